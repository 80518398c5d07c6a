//! Staying up (SPEC section 16), the parts that need no formation: multi-host URLs, a COMMIT
//! whose answer never came (cut by `support::proxy` the way a dying primary cuts it),
//! `--retry-for`, and SQLite paths that must exist. The failover itself is tested on a real
//! formation in `tests/ha`.

use super::*;
use std::time::{Duration, Instant};
use support::proxy::{Cut, Proxy};

/// `127.0.0.1:PORT` of a PostgreSQL test database's URL.
fn server_of(db: &TestDb) -> String {
    let after_at = db.url.split_once('@').expect("a user in the URL").1;
    after_at.split('/').next().unwrap().to_string()
}

/// The test database's URL through another `host:port` list.
fn via(db: &TestDb, hosts: &str) -> String {
    db.url.replace(&server_of(db), hosts)
}

/// A port nothing listens on (yet).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

fn run_at(url: &str, args: &[&str]) -> Output {
    let mut cmd = binary();
    cmd.env("DATABASE_URL", url).env("TZ", "UTC").args(args);
    cmd.output().unwrap().into()
}

fn mint_events(db: &TestDb) -> usize {
    journaled(db, "mint").len()
}

#[test]
fn a_multi_host_url_reaches_the_server_that_answers() {
    let db = TestDb::postgres();
    let dead = free_port();
    let url = format!(
        "{}?target_session_attrs=read-write",
        via(&db, &format!("127.0.0.1:{dead},{}", server_of(&db)))
    );
    let out = run_at(&url, &["stringer", "add", "stefan", "--name", "Stefan"]);
    assert_eq!((out.code, out.stdout.trim()), (0, "stefan"), "{}", out.stderr);
    // No host answers: exit 69 within the connect timeouts, both hosts named, no password.
    let url =
        format!("postgresql://app:s3cret@127.0.0.1:{dead},127.0.0.1:{}/r?connect_timeout=2", free_port());
    let started = Instant::now();
    let out = run_at(&url, &["order", "list"]);
    assert_eq!(out.code, 69, "{}", out.stderr);
    assert!(started.elapsed() < Duration::from_secs(10));
    assert!(
        out.stderr.starts_with("error: cannot reach the database at postgresql://app:***@127.0.0.1:"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains(&dead.to_string()) && !out.stderr.contains("s3cret"), "{}", out.stderr);
}

#[test]
fn a_commit_whose_answer_never_came_is_in_doubt_until_the_mint_runs_again() {
    for (cut, committed) in [(Cut::BeforeCommit, false), (Cut::AfterCommit, true)] {
        let db = TestDb::postgres();
        let order = shop(&db);
        let proxy = Proxy::start(0, server_of(&db), Some(("receipts_mint", cut)));
        let out = run_at(&via(&db, &format!("127.0.0.1:{}", proxy.port)), &["mint", "--order", &order]);
        assert!(proxy.has_cut());
        assert_eq!(out.code, 69, "{cut:?}: {}", out.stderr);
        assert_eq!(out.stdout, "", "{cut:?}: no number is printed for a mint that may not exist");
        assert!(
            out.stderr.contains("while committing")
                && out.stderr.contains("may or may not have been saved; run the same command again"),
            "{cut:?}: {}",
            out.stderr
        );
        let numbered = db.query_i64(&format!(
            "SELECT count(*) FROM orders WHERE id = {order} AND receipt_seq IS NOT NULL"
        ));
        assert_eq!(numbered, Some(i64::from(committed)), "{cut:?}");
        // Running it again tells: the number it was given, or the number it gets now.
        assert_eq!(ok(&db, &["mint", "--order", &order]), format!("{}-0001", db.this_year()), "{cut:?}");
        assert_eq!(mint_events(&db), 1, "{cut:?}: one number, minted once");
    }
}

#[test]
fn retry_for_waits_out_an_outage_only_for_commands_safe_to_repeat() {
    let db = TestDb::postgres();
    let order = shop(&db);
    let port = free_port();
    let down = via(&db, &format!("127.0.0.1:{port}"));
    // Adding an order is never repeated: it fails at once, however long --retry-for is.
    let started = Instant::now();
    let out =
        run_at(&down, &["order", "add", "--stringer", "stefan", "--customer", "Anna", "--retry-for", "30"]);
    assert_eq!(out.code, 69, "{}", out.stderr);
    assert!(
        !out.stderr.contains("trying again") && started.elapsed() < Duration::from_secs(10),
        "{}",
        out.stderr
    );
    // Without --retry-for a mint fails at once too; with a short one it gives up at its end.
    let out = run_at(&down, &["mint", "--order", &order]);
    assert_eq!(out.code, 69);
    assert!(!out.stderr.contains("trying again"), "{}", out.stderr);
    let started = Instant::now();
    let out = run_at(&down, &["mint", "--order", &order, "--retry-for", "2"]);
    assert_eq!(out.code, 69, "{}", out.stderr);
    // Tried again, and then one line: the error (a terminal sees a status line meanwhile).
    assert!(started.elapsed() >= Duration::from_millis(250), "it tried again");
    assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
    assert!(out.stderr.starts_with("error: cannot reach the database"), "{}", out.stderr);
    assert!(started.elapsed() < Duration::from_secs(10));
    // With time to wait, the mint succeeds once the database is back: its first try meets a
    // port that hangs up at once, its next ones the server.
    let hanging_up = std::net::TcpListener::bind(("127.0.0.1", 0)).unwrap();
    let coming_back = via(&db, &format!("127.0.0.1:{}", hanging_up.local_addr().unwrap().port()));
    let child = binary()
        .env("DATABASE_URL", &coming_back)
        .env("RECEIPTS_RETRY_FOR", "60")
        .args(["mint", "--order", &order])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(hanging_up.accept().unwrap());
    let _proxy = Proxy::serve(hanging_up, server_of(&db), None);
    let out: Output = child.wait_with_output().unwrap().into();
    assert_eq!(
        (out.code, out.stdout.as_str()),
        (0, format!("{}-0001\n", db.this_year()).as_str()),
        "{}",
        out.stderr
    );
    let warned: Vec<&str> = out.stderr.lines().filter(|l| l.starts_with("warning: ")).collect();
    assert_eq!(warned.len(), 1, "one line for the waiting: {}", out.stderr);
    assert!(warned[0].contains("; succeeded on trying again after"), "{}", out.stderr);
    assert_eq!(mint_events(&db), 1);
}

#[test]
fn an_sqlite_file_is_made_only_where_a_directory_exists_and_saying_so() {
    let dir = tempfile::tempdir().unwrap();
    let typo = dir.path().join("recipts").join("receipts.db");
    let typo = typo.to_str().unwrap();
    for args in
        [&["stringer", "add", "stefan", "--name", "Stefan"][..], &["db", "migrate"], &["order", "list"]]
    {
        let out = run_at(typo, args);
        assert_eq!(out.code, 66, "{args:?}: {}", out.stderr);
        assert!(out.stderr.contains(typo), "{args:?} names the path: {}", out.stderr);
    }
    assert!(!dir.path().join("recipts").exists(), "no directory made for a path given");
    let path = dir.path().join("receipts.db");
    let path = path.to_str().unwrap();
    let out = run_at(path, &["stringer", "add", "stefan", "--name", "Stefan"]);
    assert_eq!(out.code, 0);
    assert!(out.stderr.starts_with(&format!("created a new database at {path}\n")), "{}", out.stderr);
    let out = run_at(path, &["stringer", "add", "anna", "--name", "Anna"]);
    assert!(!out.stderr.contains("created a new database"), "{}", out.stderr);
    // The default location is the program's to make.
    let data = dir.path().join("data");
    let out: Output = binary()
        .env("HOME", dir.path())
        .env("XDG_DATA_HOME", &data)
        .args(["stringer", "add", "stefan", "--name", "Stefan"])
        .output()
        .unwrap()
        .into();
    assert_eq!(out.code, 0, "{}", out.stderr);
    let made = data.join("receipts").join("receipts.db");
    assert!(made.is_file());
    assert!(
        out.stderr.starts_with(&format!("created a new database at {}\n", made.display())),
        "{}",
        out.stderr
    );
}

/// Through a formation's URL (several hosts) to a primary with no synchronous standby
/// (pg_auto_failover's `wait_primary`: its standby gone, or still catching up): a state read
/// back is as durable there as a fresh mint, which is printed at once, so it is printed too:
/// the mint of a numbered order prints its number, a void found done says so. (A standby lost
/// while the confirmation waited is refused instead: tests/ha.)
#[test]
fn a_state_read_back_from_a_primary_alone_is_printed_as_a_fresh_mint_is() {
    let db = TestDb::postgres();
    let order = shop(&db);
    let formation = format!(
        "{}?target_session_attrs=read-write",
        via(&db, &format!("{},127.0.0.1:{}", server_of(&db), free_port()))
    );
    let minted = run_at(&formation, &["mint", "--order", &order]);
    assert_eq!(minted.code, 0, "{}", minted.stderr);
    let number = minted.stdout.trim().to_string();
    let again = run_at(&formation, &["mint", "--order", &order]);
    assert_eq!((again.code, again.stdout.trim()), (0, number.as_str()), "{}", again.stderr);
    assert!(again.stderr.contains("already has receipt"), "{}", again.stderr);
    let void = ["void", "--order", order.as_str(), "--reason", "customer cancelled"];
    ok(&db, &void);
    let found_done = run_at(&formation, &void);
    assert_eq!(found_done.code, 0, "{}", found_done.stderr);
    assert_eq!(mint_events(&db), 1);
}
