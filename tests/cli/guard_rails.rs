//! SPEC section 8 and 9 through the binary: no slip of the keyboard burns, bends or hides a
//! number. Every refusal writes nothing; each check runs on SQLite and PostgreSQL.

use super::*;
use crate::on_both_backends;
use chrono::{Duration, Utc};

/// The orders, counters and journal as one comparable text: what a refusal must not change.
fn state(db: &TestDb) -> String {
    let counts = [
        "SELECT count(*) FROM orders",
        "SELECT count(*) FROM orders WHERE receipt_number IS NOT NULL",
        "SELECT count(*) FROM orders WHERE strung_at IS NOT NULL",
        "SELECT count(*) FROM orders WHERE voided_at IS NOT NULL",
        "SELECT coalesce(sum(last_n), 0) FROM receipt_counters",
        "SELECT count(*) FROM receipt_counters",
        "SELECT count(*) FROM receipt_events",
    ];
    counts.iter().map(|sql| format!("{:?}", db.query_i64(sql))).collect::<Vec<_>>().join(" ")
}

/// Runs a command that must be refused with `code` and change nothing; returns its message.
fn refused(db: &TestDb, code: i32, args: &[&str]) -> String {
    let before = state(db);
    let message = fails(db, code, args);
    assert_eq!(message.lines().count(), 1, "{message}");
    assert_eq!(state(db), before, "receipts {args:?} was refused but wrote");
    message
}

fn strung_at(db: &TestDb, order: &str) -> Option<i64> {
    db.query_i64(&format!("SELECT count(*) FROM orders WHERE id = {order} AND strung_at IS NOT NULL"))
}

on_both_backends! {
    fn a_renumbered_year_is_refused_when_an_unstrung_order_is_strung_again(db: TestDb) {
        let order = shop(&db);
        assert_eq!(ok(&db, &["mint", "--order", &order, "--at", "2025-11-01 10:00", "--backdate"]), "2025-0001");
        ok(&db, &["order", "unstring", &order]);
        let message =
            refused(&db, 65, &["mint", "--order", &order, "--at", "2024-06-01 10:00", "--backdate"]);
        assert!(message.contains("holds receipt 2025-0001, so it can only be strung again in 2025"), "{message}");
        assert!(message.contains("receipts order restring"), "{message}");
        assert_eq!(strung_at(&db, &order), Some(0));
        // Within the number's year it is strung again, and keeps its number.
        let again = run(&db, &["mint", "--order", &order, "--at", "2025-12-24 09:00", "--backdate"]);
        assert_eq!((again.code, again.stdout.trim()), (0, "2025-0001"), "{}", again.stderr);
        assert!(again.stderr.contains("strung again; it keeps receipt 2025-0001"), "{}", again.stderr);
        ok(&db, &["audit"]);
    }

    fn the_audit_finds_a_receipt_strung_outside_its_year(db: TestDb) {
        let order = shop(&db);
        ok(&db, &["mint", "--order", &order, "--at", "2025-11-01 10:00", "--backdate"]);
        // By hand, as no command of the program can: the strung time moves to another year.
        db.execute(&format!("UPDATE orders SET strung_at = '2024-06-01 10:00:00' WHERE id = {order}")).unwrap();
        let out = run(&db, &["audit"]);
        assert_eq!(out.code, 1, "{}", out.stderr);
        assert!(
            out.stdout.contains("2025-0001 (order 1) was strung on 2024-06-01 12:00 Europe/Zurich, in 2024"),
            "{}",
            out.stdout
        );
    }

    fn an_implausible_strung_time_is_refused(db: TestDb) {
        let order = shop(&db);
        for at in ["0001-01-01", "9999-12-31 23:59", "1969-12-31 10:00"] {
            let message = refused(&db, 65, &["mint", "--order", &order, "--at", at, "--backdate"]);
            assert!(message.contains("receipts are numbered in the years 1970 to 9998"), "{at}: {message}");
        }
        let tomorrow = (Utc::now() + Duration::days(1)).format("%Y-%m-%dT%H:%M:%SZ").to_string();
        let message = refused(&db, 65, &["mint", "--order", &order, "--at", &tomorrow, "--backdate"]);
        assert!(message.contains("is in the future"), "{message}");
        let typo = format!("{}-06-01 10:00", db.this_year() + 36);
        assert!(refused(&db, 65, &["mint", "--order", &order, "--at", &typo]).contains("is in the future"));
        let old = format!("{}-06-01 10:00", db.this_year() - 2);
        let message = refused(&db, 65, &["mint", "--order", &order, "--at", &old]);
        assert!(message.contains("pass --backdate if it really was strung then"), "{message}");
        let last_year = format!("{}-06-01 10:00", db.this_year() - 1);
        assert_eq!(ok(&db, &["mint", "--order", &order, "--at", &last_year]), format!("{}-0001", db.this_year() - 1));
    }

    fn a_strung_time_past_the_last_year_is_refused_before_the_database_sees_it(db: TestDb) {
        ok(&db, &["stringer", "add", "kenji", "--timezone", "Asia/Tokyo"]);
        let order = ok(&db, &["order", "add", "--stringer", "kenji", "--price", "35.00"]);
        let message = refused(&db, 65, &["mint", "--order", &order, "--at", "9999-12-31T23:59:00Z", "--backdate"]);
        assert!(message.contains("is in the year 10000"), "{message}");
        assert!(!message.to_lowercase().contains("constraint"), "{message}");
    }

    fn at_is_ignored_and_said_so_for_an_order_strung_already(db: TestDb) {
        let order = shop(&db);
        ok(&db, &["mint", "--order", &order, "--at", "2025-11-01 10:00", "--backdate"]);
        let before = ok(&db, &["order", "show", &order, "--format", "json"]);
        let again = run(&db, &["mint", "--order", &order, "--at", "2025-11-05 10:00", "--backdate"]);
        assert_eq!((again.code, again.stdout.trim()), (0, "2025-0001"));
        assert!(again.stderr.contains("--at was ignored"), "{}", again.stderr);
        assert_eq!(ok(&db, &["order", "show", &order, "--format", "json"]), before);
    }

    fn numbers_above_the_counter_are_voided_only_from_the_counter_on(db: TestDb) {
        let order = shop(&db);
        let year = db.this_year();
        let at = format!("{year}-01-01 00:00");
        ok(&db, &["mint", "--order", &order, "--at", &at]);
        let number = |seq: &str| format!("{year}-{seq}");
        let void = |numbers: &str, extra: &[&str]| {
            let mut args = vec!["void", "--stringer", "stefan", "--reason", "lost in the restore", "--number"];
            args.push(numbers);
            args.extend_from_slice(extra);
            args.into_iter().map(String::from).collect::<Vec<_>>()
        };
        let args = void(&number("0080"), &[]);
        let message = refused(&db, 65, &args.iter().map(String::as_str).collect::<Vec<_>>());
        assert!(message.contains(&format!("can only be voided as a range that starts at {}", number("0002"))), "{message}");

        // Overflowing and over-long sequence numbers are not numbers at all.
        for bad in [number("9223372036854775807"), number("99999999999999999999")] {
            let args = void(&bad, &[]);
            refused(&db, 2, &args.iter().map(String::as_str).collect::<Vec<_>>());
        }

        // A dry run shows the range and writes nothing; the real one moves the counter.
        let range = format!("{}..{}", number("0002"), number("0004"));
        let args = void(&range, &["--dry-run"]);
        let before = state(&db);
        let out = run(&db, &args.iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert!(out.stderr.contains("would be recorded as void; the"), "{}", out.stderr);
        assert_eq!(state(&db), before);
        let args = void(&range, &[]);
        ok(&db, &args.iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(db.query_i64(&format!("SELECT last_n FROM receipt_counters WHERE year = {year}")), Some(4));
        assert_eq!(db.query_i64("SELECT count(*) FROM orders WHERE voided_at IS NOT NULL"), Some(3));
        ok(&db, &["audit"]);
        // Numbers that orders hold are not lost.
        let args = void(&format!("{}..{}", number("0001"), number("0002")), &[]);
        let message = refused(&db, 1, &args.iter().map(String::as_str).collect::<Vec<_>>());
        assert!(message.contains("includes numbers that orders hold"), "{message}");
        // The next mint goes on after the range.
        let next = ok(&db, &["order", "add", "--stringer", "stefan", "--price", "35.00"]);
        assert_eq!(ok(&db, &["mint", "--order", &next, "--at", &at]), number("0005"));
        // Numbers of a year to come cannot have been issued.
        let args = void(&format!("{}-0001", year + 1), &[]);
        assert!(refused(&db, 65, &args.iter().map(String::as_str).collect::<Vec<_>>()).contains("no receipt can have been issued yet"));
    }

    fn a_void_order_is_final(db: TestDb) {
        let order = shop(&db);
        ok(&db, &["mint", "--order", &order, "--at", "2025-11-01 10:00", "--backdate"]);
        ok(&db, &["void", "--order", &order, "--reason", "customer cancelled"]);
        for args in [
            vec!["order", "edit", &order, "--price", "1"],
            vec!["order", "edit", &order, "--customer", "Someone else", "--notes", "x"],
            vec!["order", "unstring", &order],
            vec!["mint", "--order", &order],
        ] {
            let message = refused(&db, 1, &args);
            assert!(message.contains("is void (customer cancelled)"), "{args:?}: {message}");
        }
        ok(&db, &["order", "edit", &order, "--notes", "refunded in cash"]);
        let copy = ok(&db, &["order", "restring", &order]);
        assert_eq!(ok(&db, &["mint", "--order", &copy, "--at", "2025-11-02 10:00", "--backdate"]), "2025-0002");
    }

    fn handles_ignore_case(db: TestDb) {
        shop(&db);
        let message = refused(&db, 1, &["stringer", "add", "Stefan"]);
        assert!(message.contains("there is already a stringer \"stefan\""), "{message}");
        assert_eq!(ok(&db, &["order", "add", "--stringer", "STEFAN", "--price", "35.00"]), "2");
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("v1.csv");
        std::fs::write(&file, "v1_id,kind,stringer,strung_at\n1,client,Stefan,2024-03-01 10:00\n").unwrap();
        let out = run(&db, &["migrate-v1", file.to_str().unwrap()]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert_eq!(db.query_i64("SELECT count(*) FROM stringers"), Some(1), "no second stringer");
    }

    fn a_stringer_zone_that_would_move_a_receipt_into_another_year_is_refused(db: TestDb) {
        let order = shop(&db);
        // 23:30 on New Year's Eve in Zurich: 22:30 UTC, already the next year in Auckland.
        ok(&db, &["mint", "--order", &order, "--at", "2025-12-31 23:30", "--backdate"]);
        let message = refused(&db, 1, &["stringer", "edit", "stefan", "--timezone", "Pacific/Auckland"]);
        assert!(message.contains("would move 1 issued receipt into another year: 2025-0001"), "{message}");
        ok(&db, &["stringer", "edit", "stefan", "--timezone", "America/New_York"]);
        assert!(ok(&db, &["stringer", "list"]).contains("America/New_York"));
        ok(&db, &["audit"]);
    }

    fn orders_taken_by_mistake_can_be_deleted_but_not_restrung(db: TestDb) {
        let order = shop(&db);
        let mistake = ok(&db, &["order", "add", "--stringer", "stefan", "--price", "35.00"]);
        let message = refused(&db, 1, &["order", "restring", &mistake]);
        assert!(message.contains("was never strung"), "{message}");
        ok(&db, &["order", "delete", &mistake]);
        assert_eq!(db.query_i64(&format!("SELECT count(*) FROM orders WHERE id = {mistake}")), Some(0));
        ok(&db, &["mint", "--order", &order, "--at", "2025-11-01 10:00", "--backdate"]);
        let message = refused(&db, 1, &["order", "delete", &order]);
        assert!(message.contains("holds receipt 2025-0001 and can never be deleted"), "{message}");
    }

    fn a_hand_written_repair_insert_needs_no_timestamps(db: TestDb) {
        shop(&db);
        db.execute("INSERT INTO stringers (handle, name, timezone) VALUES ('anna', 'Anna', 'UTC')").unwrap();
        db.execute("INSERT INTO receipt_counters (stringer_id, year, last_n) VALUES (1, 2025, 3)").unwrap();
        db.execute("INSERT INTO orders (stringer_id, kind) VALUES (1, 'client')").unwrap();
        db.execute("INSERT INTO receipt_events (kind, stringer_id, year) VALUES ('resync', 1, 2025)").unwrap();
        // The program reads them back: the defaults are instants it understands.
        ok(&db, &["stringer", "show", "stefan"]);
        ok(&db, &["order", "list"]);
        assert!(ok(&db, &["stringer", "list"]).contains("anna"));
    }
}

on_both_backends! {
    fn the_zone_of_a_new_stringer_honours_tz(db: TestDb) {
    let out = receipts(&db).env("TZ", "Europe/Zurich").args(["stringer", "add", "a"]).output().unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("time zone Europe/Zurich"));
    assert_eq!(db.query_i64("SELECT count(*) FROM stringers WHERE timezone = 'Europe/Zurich'"), Some(1));
    let out = receipts(&db).env("TZ", "Not/AZone").args(["stringer", "add", "b"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("pass --timezone"));
    }

    fn a_dry_run_import_names_the_zone_of_the_stringers_it_would_create(db: TestDb) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("v1.csv");
    std::fs::write(&file, "v1_id,kind,stringer,strung_at\n1,client,ana,2024-03-01 10:00\n").unwrap();
    let out = receipts(&db)
        .env("TZ", "America/Chicago")
        .args(["migrate-v1", file.to_str().unwrap(), "--dry-run"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("would create stringer ana (time zone America/Chicago)"));
    if db.backend == Backend::Sqlite {
        assert!(!std::path::Path::new(&db.url).exists(), "a dry run created the database");
    }
    }
}

#[test]
fn postgres_refuses_truncate_of_numbers_and_their_history() {
    let db = TestDb::postgres();
    let order = shop(&db);
    ok(&db, &["mint", "--order", &order, "--at", "2025-11-01 10:00", "--backdate"]);
    for sql in [
        "TRUNCATE orders CASCADE",
        "TRUNCATE receipt_counters",
        "TRUNCATE receipt_events",
        "TRUNCATE stringers CASCADE",
    ] {
        let error = db.execute(sql).expect_err(sql);
        // The journal is refused by the values kept beside it before its own guard answers.
        let refused =
            error.contains("cannot be truncated") || error.contains("referenced in a foreign key constraint");
        assert!(refused, "{sql}: {error}");
    }
    let error = db.execute("TRUNCATE receipt_events CASCADE").expect_err("cascade");
    assert!(error.contains("cannot be truncated"), "{error}");
    assert_eq!(db.query_i64("SELECT count(*) FROM orders WHERE receipt_number IS NOT NULL"), Some(1));
}

on_both_backends! {
    fn payment_and_pickup_times_are_plausible_as_strung_times_are(db: TestDb) {
        let order = shop(&db);
        ok(&db, &["mint", "--order", &order]);
        let future = format!("{}-01-01", db.this_year() + 4);
        let ancient = format!("{}-01-01", db.this_year() - 27);
        for flag in ["--paid-at", "--returned-at"] {
            let message = refused(&db, 65, &["order", "edit", &order, flag, &future]);
            assert!(message.contains("is in the future"), "{flag}: {message}");
            let message = refused(&db, 65, &["order", "edit", &order, flag, &ancient]);
            assert!(message.contains("pass --backdate if it really was"), "{flag}: {message}");
        }
        let last_year = format!("{}-12-01 10:00", db.this_year() - 1);
        ok(&db, &["order", "edit", &order, "--paid-at", &last_year]);
        ok(&db, &["order", "edit", &order, "--returned-at", &ancient, "--backdate"]);
        // Before the order was taken is fine: orders are often entered after the fact.
        let other = ok(&db, &["order", "add", "--stringer", "stefan", "--price", "20"]);
        ok(&db, &["order", "edit", &other, "--paid-at", &last_year]);
    }

    fn tensions_and_blank_details_are_checked_where_they_are_typed(db: TestDb) {
        let order = shop(&db);
        let add = |extra: &[&str]| {
            let mut args = vec!["order", "add", "--stringer", "stefan", "--price", "30"];
            args.extend_from_slice(extra);
            args.iter().map(|a| a.to_string()).collect::<Vec<String>>()
        };
        for tension in ["24", "24/23", "24 kg", "24.5/23.5 kg", "52 lb", "52/50 lb"] {
            let args = add(&["--tension", tension]);
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            ok(&db, &args);
        }
        for tension in ["24/", "abc"] {
            let message = refused(&db, 65, &["order", "edit", &order, "--tension", tension]);
            assert!(message.contains(&format!("--tension \"{tension}\" is not a tension")), "{message}");
        }
        for tension in ["4", "45 kg", "95 lb"] {
            let message = refused(&db, 65, &["order", "add", "--stringer", "stefan", "--tension", tension]);
            assert!(message.contains("is outside"), "{message}");
        }
        for flag in ["--customer", "--racket", "--string", "--tension"] {
            let message = refused(&db, 65, &["order", "add", "--stringer", "stefan", flag, "   "]);
            assert_eq!(message, format!("error: {flag} holds only spaces: give a value, or \"\" to clear it"));
        }
        let message = refused(&db, 2, &["order", "add", "--stringer", "stefan", "--price", "-5"]);
        assert!(message.contains("'--price <PRICE>'") && message.contains("\"-5\" is not a price"), "{message}");
        // Trimmed as typed, and an edit that changes nothing says so.
        let roger = ok(&db, &["order", "add", "--stringer", "stefan", "--customer", "  Roger  ", "--price", "30"]);
        let shown: serde_json::Value = serde_json::from_str(&ok(&db, &["order", "show", &roger, "--format", "json"])).unwrap();
        assert_eq!(shown["customer"], "Roger");
        let same = run(&db, &["order", "edit", &roger, "--customer", "Roger", "--price", "30"]);
        assert_eq!(same.code, 0);
        assert_eq!(same.stderr, format!("order {roger} already has these values: nothing changed\n"));
    }
}
