//! No half-written files: every file the program writes appears whole or not at all. A
//! writing command killed while it writes (by the kernel's file-size limit, SIGXFSZ, as
//! sudden as SIGKILL), or interrupted (SIGINT, SIGTERM), leaves no file under the target's
//! name, and running it again succeeds and leaves nothing else behind. A command that fails
//! on a database file it just created removes it again.

use super::*;
use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use std::path::Path;
use std::time::{Duration, Instant};

/// A shop with a year of numbered, sent-ready orders: enough for every written file to
/// outgrow a 16 KiB file-size limit.
fn busy_shop(db: &TestDb) -> String {
    let order = shop(db);
    ok(db, &["stringer", "edit", "stefan", "--email", "stefan@example.ch"]);
    ok(db, &["order", "edit", &order, "--email", "roger@example.com"]);
    ok(db, &["mint", "--order", &order, "--at", "2026-11-21 10:00"]);
    for i in 0..200 {
        let more = ok(
            db,
            &[
                "order",
                "add",
                "--stringer",
                "stefan",
                "--customer",
                &format!("Customer {i}"),
                "--price",
                "35.00",
            ],
        );
        if i < 3 {
            ok(db, &["mint", "--order", &more, "--at", &format!("2026-11-21 1{}:00", i + 1)]);
        }
    }
    mint_the_rest(db);
    order
}

/// Numbers the rest of the orders through the library, as 2026 receipts (the export then
/// has 201 rows), without 200 processes.
fn mint_the_rest(db: &TestDb) {
    use receipts::db::schema::orders;
    let mut conn = db.connect();
    let tenant = conn.read(|c| receipts::db::Tenant::load(c, "stefan")).unwrap();
    let open: Vec<i64> = conn
        .read(|c| {
            Ok(orders::table
                .filter(orders::receipt_seq.is_null())
                .select(orders::id)
                .order(orders::id)
                .load(c)?)
        })
        .unwrap();
    for (i, id) in open.into_iter().enumerate() {
        let at = utc("2026-11-22 10:00") + chrono::Duration::minutes(i as i64);
        receipts::ops::mint::mint(&mut conn, &tenant, receipts::domain::OrderId(id), at).unwrap();
    }
}

/// The test database's sessions waiting for a lock (its own only: tests run side by side).
const LOCK_WAITERS: &str = "SELECT count(*) FROM pg_stat_activity \
     WHERE datname = current_database() AND wait_event_type = 'Lock'";

/// Files in `dir` whose names start with a dot: the temporary files of writes under way.
fn partial_files(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with('.'))
        .collect()
}

/// `receipts ARGS` under a 16 KiB limit on the size of files it writes: killed by SIGXFSZ
/// in the middle of writing one.
fn killed_mid_write(db: &TestDb, args: &[&str]) {
    let mut line = format!("ulimit -f 16; exec {}", env!("CARGO_BIN_EXE_receipts"));
    for arg in args {
        line.push_str(&format!(" '{arg}'"));
    }
    let out = Command::new("bash")
        .args(["-c", &line])
        .env_clear()
        .envs(faked_clock())
        .env("DATABASE_URL", &db.url)
        .env("TZ", "UTC")
        .output()
        .unwrap();
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(
        out.status.signal(),
        Some(25),
        "{args:?} was killed mid-write (SIGXFSZ): {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Every writing command, killed while it writes, then run again.
fn no_half_written_file_survives_a_kill(db: &TestDb) {
    let order = busy_shop(db);
    let dir = tempfile::tempdir().unwrap();
    let at = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let (pdf, csv, eml, out_dir) = (at("receipt.pdf"), at("ledger.csv"), at("message.eml"), at("archive"));
    std::fs::create_dir(&out_dir).unwrap();
    let mut commands: Vec<(Vec<String>, String)> = vec![
        (vec!["receipt".into(), order.clone(), "-o".into(), pdf.clone()], pdf.clone()),
        (vec!["export".into(), "--year".into(), "2026".into(), "-o".into(), csv.clone()], csv.clone()),
        (vec!["send".into(), order.clone(), "--dry-run".into(), "-o".into(), eml.clone()], eml.clone()),
        (
            vec!["receipt".into(), "--year".into(), "2026".into(), "--out-dir".into(), out_dir.clone()],
            format!("{out_dir}/stefan-2026-0001.pdf"),
        ),
    ];
    if db.backend == Backend::Sqlite {
        let backup = at("copy.db");
        commands.push((vec!["backup".into(), backup.clone()], backup));
    }
    for (args, target) in commands {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        killed_mid_write(db, &args);
        assert!(!Path::new(&target).exists(), "{args:?}: no file under the target's name");
        let rerun = run(db, &args);
        assert_eq!(rerun.code, 0, "{args:?} runs again: {}", rerun.stderr);
        let written = std::fs::read(&target).unwrap();
        assert!(written.len() > 16 * 1024, "{args:?}: the whole file");
        let dir = Path::new(&target).parent().unwrap();
        assert_eq!(partial_files(dir), Vec::<String>::new(), "{args:?}: nothing partial left");
        // The same again: the file that is there is the same (a backup is never written over,
        // and a dry run's message has a Date and Message-ID of its own each time).
        if !matches!(args[0], "backup" | "send") {
            assert_eq!(run(db, &args).code, 0, "{args:?} again");
        }
    }
    assert_eq!(std::fs::read_dir(&out_dir).unwrap().count(), 201);
}

on_both_backends! {
    fn a_file_killed_mid_write_leaves_nothing_and_the_rerun_succeeds(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        no_half_written_file_survives_a_kill(&db);
    }
}

/// SIGINT and SIGTERM while an export waits to read (its file begun, a table lock holding
/// it up): the command removes what it began, and exits as interrupted.
#[test]
fn an_interrupted_export_removes_the_file_it_began() {
    let db = TestDb::postgres().with_clock_at(TESTS_DAY);
    busy_shop(&db);
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("ledger.csv");
    for signal in ["INT", "TERM"] {
        let mut holder = PgConnection::establish(&db.url).unwrap();
        holder.batch_execute("BEGIN; LOCK TABLE orders IN ACCESS EXCLUSIVE MODE").unwrap();
        let mut export = receipts(&db)
            .args(["--lock-timeout", "60", "export", "--year", "2026", "-o", target.to_str().unwrap()])
            .spawn()
            .unwrap();
        let started = Instant::now();
        while partial_files(dir.path()).is_empty() || db.query_i64(LOCK_WAITERS) != Some(1) {
            assert!(started.elapsed() < Duration::from_secs(30), "the export begins its file and waits");
            std::thread::sleep(Duration::from_millis(20));
        }
        let killed =
            Command::new("kill").args([&format!("-{signal}"), &export.id().to_string()]).status().unwrap();
        assert!(killed.success());
        let status = export.wait().unwrap();
        assert_eq!(status.code(), Some(130), "SIG{signal}");
        assert!(!target.exists(), "SIG{signal}: no ledger");
        assert_eq!(partial_files(dir.path()), Vec::<String>::new(), "SIG{signal}: nothing partial left");
        holder.batch_execute("ROLLBACK").unwrap();
    }
    assert_eq!(run(&db, &["export", "--year", "2026", "-o", target.to_str().unwrap()]).code, 0);
    assert_eq!(std::fs::read_to_string(&target).unwrap().lines().count(), 1 + 201);
}

#[test]
fn a_command_that_fails_on_the_database_it_created_leaves_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("typo.db");
    let out: Output = binary()
        .env("TZ", "UTC")
        .args([
            "--database-url",
            path.to_str().unwrap(),
            "order",
            "add",
            "--stringer",
            "stefan",
            "--price",
            "35",
        ])
        .output()
        .unwrap()
        .into();
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stderr.contains("there is no stringer \"stefan\""), "{}", out.stderr);
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "{}", out.stderr);
    // A database that a command could use stays.
    let out: Output = binary()
        .env("TZ", "UTC")
        .args(["--database-url", path.to_str().unwrap(), "stringer", "add", "stefan"])
        .output()
        .unwrap()
        .into();
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(path.exists());
}

/// Starts `receipts ARGS` as a shell starts a job in the background: with SIGINT ignored,
/// which a command that stops on Ctrl-C must not inherit.
pub(super) fn spawn_as_a_background_job(db: &TestDb, args: &[&str]) -> std::process::Child {
    use std::os::unix::process::CommandExt;
    let mut cmd = receipts(db);
    cmd.args(args).stdout(std::process::Stdio::null()).stderr(std::process::Stdio::piped());
    // SAFETY: only an async-signal-safe call between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            libc::signal(libc::SIGINT, libc::SIG_IGN);
            Ok(())
        });
    }
    cmd.spawn().unwrap()
}

/// Whether process `pid` has the file at `path` open.
fn has_open(pid: u32, path: &str) -> bool {
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else { return false };
    fds.flatten().any(|fd| std::fs::read_link(fd.path()).is_ok_and(|target| target == Path::new(path)))
}

/// Holds the database's write lock (and on PostgreSQL the orders table's every lock) until
/// dropped, so a command started now cannot commit anything.
struct Held(#[expect(dead_code, reason = "held for its lock")] Box<dyn diesel::connection::SimpleConnection>);

fn hold_the_database(db: &TestDb) -> Held {
    match db.backend {
        Backend::Postgres => {
            let mut conn = PgConnection::establish(&db.url).unwrap();
            conn.batch_execute("BEGIN; LOCK TABLE orders IN ACCESS EXCLUSIVE MODE").unwrap();
            Held(Box::new(conn))
        }
        Backend::Sqlite => {
            let mut conn = SqliteConnection::establish(&db.url).unwrap();
            conn.batch_execute("BEGIN EXCLUSIVE").unwrap();
            Held(Box::new(conn))
        }
    }
}

/// SIGINT to `receipts ARGS` while it waits for the database: it stops as interrupted (130),
/// even started with SIGINT ignored, and what it was doing left no trace.
fn interrupted(db: &TestDb, args: &[&str]) {
    let held = hold_the_database(db);
    let mut child = spawn_as_a_background_job(db, &[&["--lock-timeout", "60"], args].concat());
    let started = Instant::now();
    let waiting = || match db.backend {
        Backend::Postgres => db.query_i64(LOCK_WAITERS) == Some(1),
        Backend::Sqlite => has_open(child.id(), &db.url),
    };
    while !waiting() {
        assert!(started.elapsed() < Duration::from_secs(30), "{args:?} reaches the database");
        std::thread::sleep(Duration::from_millis(20));
    }
    let killed = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(killed.success());
    let status = child.wait().unwrap();
    let mut stderr = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut stderr).unwrap();
    assert_eq!(status.code(), Some(130), "{args:?} stops on SIGINT: {stderr}");
    drop(held);
}

on_both_backends! {
    fn ctrl_c_stops_an_import_and_a_bank_file_and_nothing_of_them_is_kept(db: TestDb) {
        ok(&db, &["stringer", "add", "zoe"]);
        interrupted(&db, &["migrate-v1", &fixture("sample.csv"), "--timezone", "Europe/Zurich"]);
        assert_eq!(db.query_i64("SELECT count(*) FROM orders"), Some(0), "nothing imported");
        assert_eq!(run(&db, &["migrate-v1", &fixture("sample.csv"), "--timezone", "Europe/Zurich"]).code, 0);
        let imported = db.query_i64("SELECT count(*) FROM orders").unwrap();
        assert!(imported > 300, "{imported}");

        // A bank file paying an invoice: interrupted, nothing applied; again, applied.
        let zoe = stringer_id(&db, "zoe");
        ok(&db, &["stringer", "edit", "zoe", "--timezone", "Europe/Zurich", "--iban", "CH44 3199 9123 0008 8901 2", "--postcode", "8001", "--town", "Zürich", "--country", "CH"]);
        let order = ok(&db, &["order", "add", "--stringer", "zoe", "--customer", "Roger", "--price", "30"]);
        ok(&db, &["mint", "--order", &order, "--at", "2026-03-20 10:00", "--backdate"]);
        let tx = support::camt::Tx::paying(&qrr(zoe, 2026, 1), 3000, "CHF", "T1");
        let xml = support::camt::file(support::camt::Message::Notification, support::camt::Version::V08, &[support::camt::Entry::booked("2026-03-30", "E1", vec![tx])]);
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("bank.xml");
        std::fs::write(&file, xml).unwrap();
        interrupted(&db, &["payments", "import", file.to_str().unwrap()]);
        assert_eq!(db.query_i64("SELECT count(*) FROM payments"), Some(0), "nothing applied");
        assert_eq!(run(&db, &["payments", "import", file.to_str().unwrap()]).code, 0);
        assert_eq!(db.query_i64("SELECT count(*) FROM payments"), Some(1));
    }
}

/// A year of receipts and an export, interrupted while they wait to read (PostgreSQL holds
/// them up at a locked table; SQLite readers never wait): nothing of them is left behind.
#[test]
fn ctrl_c_stops_a_year_of_receipts_and_an_export_leaving_no_file() {
    let db = TestDb::postgres().with_clock_at(TESTS_DAY);
    busy_shop(&db);
    let dir = tempfile::tempdir().unwrap();
    let receipts_dir = dir.path().join("receipts");
    std::fs::create_dir(&receipts_dir).unwrap();
    interrupted(&db, &["receipt", "--year", "2026", "--out-dir", receipts_dir.to_str().unwrap()]);
    let export = dir.path().join("ledger.csv");
    interrupted(&db, &["export", "--year", "2026", "-o", export.to_str().unwrap()]);
    assert_eq!(std::fs::read_dir(&receipts_dir).unwrap().count(), 0, "no receipt, no partial file");
    assert_eq!(partial_files(dir.path()), Vec::<String>::new());
    assert!(!export.exists());
}
