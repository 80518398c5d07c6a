use super::*;
use receipts::db::mint::mint_in_transaction;
use receipts::db::Tenant;
use receipts::domain::OrderId;

#[test]
fn user_mistakes_get_one_line_and_the_documented_exit_code() {
    let db = TestDb::sqlite();
    let order = shop(&db);
    // Two stringers: a command for one of them must say which.
    ok(&db, &["stringer", "add", "anna"]);
    let mut messages = Vec::new();
    let mut check =
        |code: i32, args: &[&str]| messages.push(format!("{args:?} -> {code}\n{}", fails(&db, code, args)));
    check(1, &["mint", "--order", "99"]);
    check(1, &["mint", "--order", &order, "--stringer", "nobody"]);
    check(2, &["mint", "--order", "abc"]);
    check(2, &["mint", "--order", &order, "--at", "31/12/2025"]);
    check(2, &["mint", "--order", &order, "--at", "2026-03-29 02:30", "--backdate"]);
    check(2, &["order", "add", "--customer", "Roger"]);
    check(2, &["order", "add", "--stringer", "stefan", "--price", "35,50"]);
    check(2, &["stringer", "add", "stefan two"]);
    check(2, &["stringer", "add", "anna", "--timezone", "Mars/Olympus"]);
    check(1, &["stringer", "add", "stefan"]);
    check(1, &["void", "--order", &order, "--reason", "not strung yet"]);
    check(2, &["--database-url", "mysql://localhost/receipts", "stringer", "list"]);
    insta::assert_snapshot!("user_mistakes", messages.join("\n\n"));
}

#[test]
fn an_unreachable_database_is_exit_69_and_never_shows_the_password() {
    let db = TestDb::sqlite();
    let message = fails(
        &db,
        69,
        &["--database-url", "postgres://app:hunter2@127.0.0.1:1/receipts", "stringer", "list"],
    );
    assert!(
        message.starts_with("error: cannot reach the database at postgres://app:***@127.0.0.1:1/receipts"),
        "{message}"
    );
    assert!(!message.contains("hunter2"));
    assert_eq!(message.lines().count(), 1);
}

#[test]
fn a_postgres_database_without_schema_says_to_migrate() {
    let db = TestDb::empty_postgres();
    let message = fails(&db, 1, &["stringer", "list"]);
    assert_eq!(message, "error: cannot list the stringers: the database has no receipts schema yet, or an older one: run `receipts db migrate` first");
}

fn held_lock_makes_mint_exit_75(db: &TestDb) {
    let order = shop(db);
    let second = ok(db, &["order", "add", "--stringer", "stefan", "--price", "35.00"]);
    let mut holder = db.connect();
    let stefan = holder.read(|conn| Tenant::load(conn, "stefan")).unwrap();
    let message = holder
        .write(|conn| {
            mint_in_transaction(conn, &stefan, OrderId(order.parse().unwrap()), utc("2026-05-01 10:00"))?;
            // While this transaction holds the counter, the program must give up in time.
            Ok::<_, receipts::Error>(fails(
                db,
                75,
                &[
                    "--lock-timeout",
                    "0.2",
                    "mint",
                    "--order",
                    &second,
                    "--at",
                    "2026-05-01 12:00",
                    "--backdate",
                ],
            ))
        })
        .unwrap();
    assert!(message.ends_with("nothing was changed, try again"), "{message}");
    assert_eq!(ok(db, &["mint", "--order", &second, "--at", "2026-05-01 12:00", "--backdate"]), "2026-0002");
}

#[test]
fn a_lock_held_elsewhere_is_exit_75_on_sqlite() {
    held_lock_makes_mint_exit_75(&TestDb::sqlite());
}

#[test]
fn a_lock_held_elsewhere_is_exit_75_on_postgres() {
    held_lock_makes_mint_exit_75(&TestDb::postgres());
}

#[test]
fn a_counter_behind_the_orders_fails_cleanly_and_names_resync() {
    let db = TestDb::sqlite();
    let order = shop(&db);
    ok(&db, &["mint", "--order", &order, "--at", "2026-05-01 10:00", "--backdate"]);
    db.execute("UPDATE receipt_counters SET last_n = 0").unwrap();
    let second = ok(&db, &["order", "add", "--stringer", "stefan", "--price", "35.00"]);
    let message = fails(&db, 1, &["mint", "--order", &second, "--at", "2026-05-02 10:00", "--backdate"]);
    insta::assert_snapshot!("counter_behind", message);
    assert_eq!(db.query_i64("SELECT count(*) FROM orders WHERE receipt_number IS NOT NULL"), Some(1));
}

#[test]
fn a_dot_env_file_and_receipts_stringer_are_honoured() {
    let dir = tempfile::tempdir().unwrap();
    let database = dir.path().join("from-dotenv.db");
    std::fs::write(dir.path().join(".env"), format!("DATABASE_URL=sqlite://{}\n", database.display()))
        .unwrap();
    let receipts = |args: &[&str], stringer: Option<&str>| {
        let mut cmd = binary();
        cmd.env("TZ", "UTC").current_dir(dir.path()).args(args);
        if let Some(handle) = stringer {
            cmd.env("RECEIPTS_STRINGER", handle);
        }
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap().trim().to_string()
    };
    assert_eq!(receipts(&["stringer", "add", "stefan"], None), "stefan");
    let order = receipts(&["order", "add", "--price", "35.00"], Some("stefan"));
    assert_eq!(
        receipts(&["mint", "--order", &order, "--at", "2026-02-01", "--backdate"], Some("stefan")),
        "2026-0001"
    );
    assert!(database.exists(), "the .env file chose the database");
}

/// A refusal names the option and the rule, in one line.
#[test]
fn refusals_name_the_option_and_the_rule_in_one_line() {
    let db = TestDb::sqlite();
    shop(&db);
    let refusal = |args: &[&str]| {
        let message = fails(&db, 65, args);
        assert_eq!(message.lines().count(), 1, "{message}");
        message
    };
    let iban = |text: &str| refusal(&["stringer", "edit", "stefan", "--iban", text]);
    assert_eq!(iban("CH93 0076 2011 6238 5295 8"), "error: --iban: \"CH93 0076 2011 6238 5295 8\" is not an IBAN: its check digits do not match (a typo?)");
    assert_eq!(
        iban("CH93 0076 2011"),
        "error: --iban: \"CH93 0076 2011\" is not an IBAN: its length or layout is not that of an IBAN of CH"
    );
    assert_eq!(iban("ZZ93 0076 2011 6238 5295 7"), "error: --iban: \"ZZ93 0076 2011 6238 5295 7\" is not an IBAN: ZZ is not a country whose banks have IBANs");
    assert!(iban("12 3456")
        .contains("an IBAN is a country code, two check digits and 11 to 30 letters or digits"));
    assert!(refusal(&["stringer", "edit", "stefan", "--vat-number", "CHE-116.281.710"]).ends_with("--vat-number: \"CHE-116.281.710\" is not a Swiss VAT number (CHE-123.456.789 MWST, TVA or IVA): it must end in MWST, TVA or IVA"));
    assert!(refusal(&["stringer", "edit", "stefan", "--email", "stefan@"]).starts_with("error: --email: "));
    assert!(fails(&db, 2, &["stringer", "add", "rené"]).contains("(a-z without accents, digits"));
    // A name typed with a line break in it stays on the error's one line.
    let message = fails(&db, 1, &["order", "show", "--stringer", "line\none", "2026-0001"]);
    assert_eq!(message.lines().count(), 1, "{message}");
}

/// A server that accepts the connection, then, shutting down, warns of it and goes while the
/// connection is being set up (diesel's first statements): libpq prints such a notice
/// itself, raw, until the connection has a notice processor of its own; the program's error
/// stays its one line.
#[test]
fn a_servers_notice_while_connecting_is_never_printed_raw() {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let server = std::thread::spawn(move || {
        let (mut client, _) = listener.accept().unwrap();
        loop {
            let mut head = [0u8; 8];
            client.read_exact(&mut head).unwrap();
            let length = u32::from_be_bytes(head[..4].try_into().unwrap()) as usize;
            let code = u32::from_be_bytes(head[4..].try_into().unwrap());
            // SSL or GSS encryption asked first: not here.
            if length == 8 && matches!(code, 80877103 | 80877104) {
                client.write_all(b"N").unwrap();
                continue;
            }
            let mut rest = vec![0u8; length - 8];
            client.read_exact(&mut rest).unwrap();
            break;
        }
        let message = |kind: u8, severity: &str, code: &str, text: &str| {
            let mut body = Vec::new();
            for (field, value) in [(b'S', severity), (b'V', severity), (b'C', code), (b'M', text)] {
                body.push(field);
                body.extend_from_slice(value.as_bytes());
                body.push(0);
            }
            body.push(0);
            let mut out = vec![kind];
            out.extend_from_slice(&(body.len() as u32 + 4).to_be_bytes());
            out.extend_from_slice(&body);
            out
        };
        let frame = |kind: u8, body: &[u8]| {
            let mut out = vec![kind];
            out.extend_from_slice(&(body.len() as u32 + 4).to_be_bytes());
            out.extend_from_slice(body);
            out
        };
        // Authenticated, the settings libpq reads, ready.
        client.write_all(&frame(b'R', &0u32.to_be_bytes())).unwrap();
        for (name, value) in [
            ("server_version", "15.18"),
            ("client_encoding", "UTF8"),
            ("standard_conforming_strings", "on"),
            ("integer_datetimes", "on"),
            ("DateStyle", "ISO, MDY"),
        ] {
            client.write_all(&frame(b'S', format!("{name}\0{value}\0").as_bytes())).unwrap();
        }
        client.write_all(&frame(b'K', &[0, 0, 0, 42, 0, 0, 0, 7])).unwrap();
        client.write_all(&frame(b'Z', b"I")).unwrap();
        // The first statement: the server is going down.
        let mut head = [0u8; 5];
        client.read_exact(&mut head).unwrap();
        let warning =
            message(b'N', "WARNING", "57P01", "terminating connection due to immediate shutdown command");
        client.write_all(&warning).unwrap();
    });
    let url = format!("postgres://app:s3cret@127.0.0.1:{port}/receipts?connect_timeout=2");
    let out: Output = binary().env("DATABASE_URL", &url).args(["order", "list"]).output().unwrap().into();
    server.join().unwrap();
    assert_eq!(out.code, 69, "{}", out.stderr);
    assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
    assert!(!out.stderr.contains("WARNING") && !out.stderr.contains("s3cret"), "{}", out.stderr);
    assert!(
        out.stderr.starts_with("error: cannot reach the database at postgres://app:***@127.0.0.1:"),
        "{}",
        out.stderr
    );
}
