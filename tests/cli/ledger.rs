//! SPEC section 11: the accountant's year (`export`), filters and streaming of `order list`,
//! the journal, backups of a live SQLite file, completions and the manual page.

use super::*;
use crate::on_both_backends;
use std::collections::BTreeMap;

/// Two stringers, two currencies, paid, unpaid and void receipts of 2025, an open order,
/// and one receipt of 2024; returns the orders by name.
fn books(db: &TestDb) -> BTreeMap<&'static str, String> {
    ok(db, &["stringer", "add", "stefan", "--timezone", "Europe/Zurich"]);
    ok(db, &["stringer", "add", "anna", "--timezone", "UTC"]);
    let mut orders = BTreeMap::new();
    // name, stringer, customer, price, currency, strung at
    type Planned = (&'static str, &'static str, &'static str, &'static str, &'static str, &'static str);
    let plan: [Planned; 6] = [
        ("late", "stefan", "Roger Federer", "35.50", "CHF", "2025-12-31 23:30"),
        ("early", "stefan", "Martina Hingis", "1250", "CHF", "2025-01-02 08:00"),
        ("euro", "stefan", "Rafael Nadal", "40", "EUR", "2025-06-01 10:00"),
        ("cancelled", "stefan", "Belinda Bencic", "42", "CHF", "2025-06-02 10:00"),
        ("anna", "anna", "Stan Wawrinka", "30", "CHF", "2025-03-01 12:00"),
        ("old", "stefan", "Timea Bacsinszky", "33", "CHF", "2024-05-01 10:00"),
    ];
    for (name, stringer, customer, price, currency, at) in plan {
        let id = ok(
            db,
            &[
                "order",
                "add",
                "--stringer",
                stringer,
                "--customer",
                customer,
                "--price",
                price,
                "--currency",
                currency,
            ],
        );
        ok(db, &["mint", "--order", &id, "--at", at, "--backdate"]);
        orders.insert(name, id);
    }
    orders.insert("open", ok(db, &["order", "add", "--stringer", "stefan", "--customer", "Open Order"]));
    ok(db, &["order", "edit", &orders["late"], "--paid-at", "2026-01-02 10:00"]);
    ok(db, &["order", "edit", &orders["euro"], "--paid-at", "2025-06-01 18:00"]);
    ok(db, &["void", "--order", &orders["cancelled"], "--reason", "customer cancelled"]);
    orders
}

on_both_backends! {
    fn the_ledger_of_a_year_lists_every_number_with_its_amounts(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        let orders = books(&db);
        let out = run(&db, &["export", "--year", "2025"]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        let mut reader = csv::Reader::from_reader(out.stdout.as_bytes());
        assert_eq!(
            reader.headers().unwrap().iter().collect::<Vec<_>>(),
            ["stringer", "receipt_number", "status", "strung_at", "paid_at", "customer", "racket", "string", "tension", "amount", "vat_rate", "vat_amount", "net_amount", "currency", "void_reason", "order_id", "credits", "credited_at", "part_paid"]
        );
        let rows: Vec<Vec<String>> = reader.records().map(|r| r.unwrap().iter().map(String::from).collect()).collect();
        let row = |stringer: &str, number: &str, status: &str, strung: &str, paid: &str, customer: &str, amount: &str, currency: &str, reason: &str, order: &str| {
            // Neither stringer is VAT-registered: no VAT columns.
            [stringer, number, status, strung, paid, customer, "", "", "", amount, "", "", "", currency, reason, order, "", "", ""].map(String::from).to_vec()
        };
        // By stringer, then by number: minting order decides the numbers, not the order ids.
        assert_eq!(
            rows,
            vec![
                row("anna", "2025-0001", "issued", "2025-03-01T12:00:00+00:00", "", "Stan Wawrinka", "30.00", "CHF", "", &orders["anna"]),
                row("stefan", "2025-0001", "issued", "2025-12-31T23:30:00+01:00", "2026-01-02T10:00:00+01:00", "Roger Federer", "35.50", "CHF", "", &orders["late"]),
                row("stefan", "2025-0002", "issued", "2025-01-02T08:00:00+01:00", "", "Martina Hingis", "1250.00", "CHF", "", &orders["early"]),
                row("stefan", "2025-0003", "issued", "2025-06-01T10:00:00+02:00", "2025-06-01T18:00:00+02:00", "Rafael Nadal", "40.00", "EUR", "", &orders["euro"]),
                row("stefan", "2025-0004", "void", "2025-06-02T10:00:00+02:00", "", "Belinda Bencic", "42.00", "CHF", "customer cancelled", &orders["cancelled"]),
            ]
        );
        // The summary for people: per stringer and currency, voids out of the totals.
        assert!(out.stderr.contains("stefan 2025, CHF: 2 receipts, total 1285.50, paid 35.50, unpaid 1250.00 (1 void, not counted)"), "{}", out.stderr);
        assert!(out.stderr.contains("stefan 2025, EUR: 1 receipt, total 40.00, paid 40.00, unpaid 0.00"), "{}", out.stderr);
        assert!(out.stderr.contains("anna 2025, CHF: 1 receipt, total 30.00, paid 0.00, unpaid 30.00"), "{}", out.stderr);

        // JSON, one stringer, into a file that is never overwritten.
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("ledger.json");
        ok(&db, &["export", "--year", "2025", "--stringer", "anna", "--format", "json", "-o", file.to_str().unwrap()]);
        let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        assert_eq!(json.as_array().unwrap().len(), 1);
        assert_eq!(json[0]["receipt_number"], "2025-0001");
        assert_eq!(json[0]["amount"], "30.00");
        fails(&db, 73, &["export", "--year", "2025", "-o", file.to_str().unwrap()]);
    }

    fn order_list_filters_and_sorts(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        let orders = books(&db);
        let ids = |args: &[&str]| -> Vec<String> {
            let mut all = vec!["order", "list", "--format", "csv"];
            all.extend_from_slice(args);
            let out = ok(&db, &all);
            csv::Reader::from_reader(out.as_bytes()).records().map(|r| r.unwrap()[0].to_string()).collect()
        };
        let o = |names: &[&str]| names.iter().map(|n| orders[n].clone()).collect::<Vec<_>>();
        assert_eq!(ids(&["--year", "2025", "--stringer", "stefan"]), o(&["late", "early", "euro", "cancelled"]), "by number");
        assert_eq!(ids(&["--status", "void"]), o(&["cancelled"]));
        assert_eq!(ids(&["--status", "open"]), o(&["open"]));
        assert_eq!(ids(&["--status", "paid"]), o(&["late", "euro"]));
        assert_eq!(ids(&["--status", "unpaid", "--stringer", "stefan"]), o(&["early", "old"]));
        assert_eq!(ids(&["--customer", "HINGIS"]), o(&["early"]));
        assert_eq!(ids(&["--customer", "%"]), Vec::<String>::new(), "a % is a character, not a wildcard");
        assert_eq!(ids(&["--since", "2025-06-01", "--until", "2025-06-02", "--stringer", "stefan"]), o(&["euro", "cancelled"]));
        // 23:30 on 31 December in Zurich is that day there.
        assert_eq!(ids(&["--since", "2025-12-31", "--until", "2025-12-31", "--status", "strung"]), o(&["late"]));
        assert_eq!(ids(&["--limit", "2"]).len(), 2);
        // JSON for scripts; show by receipt number.
        let json: serde_json::Value = serde_json::from_str(&ok(&db, &["order", "list", "--status", "void", "--format", "json"])).unwrap();
        assert_eq!(json[0]["void_reason"], "customer cancelled");
        assert!(ok(&db, &["order", "show", "2025-0003", "--stringer", "stefan"]).contains("Rafael Nadal"));
        assert!(fails(&db, 1, &["order", "show", "2025-0009", "--stringer", "stefan"]).contains("has no receipt 2025-0009"));
        assert!(fails(&db, 2, &["order", "list", "--since", "yesterday"]).contains("is not a"));
    }

    fn the_journal_says_who_issued_or_skipped_each_number(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        books(&db);
        let json: serde_json::Value = serde_json::from_str(&ok(&db, &["journal", "--stringer", "stefan", "--year", "2025", "--format", "json"])).unwrap();
        let entries = json.as_array().unwrap();
        let what: Vec<&str> = entries.iter().map(|e| e["what"].as_str().unwrap()).collect();
        // Payments of numbered orders are journaled too.
        assert_eq!(what, ["mint", "mint", "mint", "mint", "edit", "edit", "void"]);
        assert!(entries[4..6].iter().all(|e| e["field"] == "paid_at" && e["old"].is_null() && e["new"].is_string()), "{entries:?}");
        assert_eq!(entries[6]["numbers"], "2025-0004");
        assert_eq!(entries[6]["reason"], "customer cancelled");
        // Numbers as numbers, nothing as null, times in the stringer's zone with its offset.
        assert_eq!((&entries[0]["counter_year"], &entries[0]["counter_old"], &entries[0]["counter_new"]), (&serde_json::json!(2025), &serde_json::json!(0), &serde_json::json!(1)));
        assert!(entries[0]["order"].is_i64() && entries[0]["reason"].is_null(), "{}", entries[0]);
        let when = entries[0]["when"].as_str().unwrap();
        assert!(chrono::DateTime::parse_from_rfc3339(when).is_ok() && (when.ends_with("+01:00") || when.ends_with("+02:00")), "{when}");
        // A changed time too: the payment's, in Zurich's offset like `when`, not in UTC.
        let paid = entries[4]["new"].as_str().unwrap();
        assert!(chrono::DateTime::parse_from_rfc3339(paid).is_ok() && (paid.ends_with("+01:00") || paid.ends_with("+02:00")), "{paid}");
        let csv_out = ok(&db, &["journal", "--format", "csv"]);
        assert_eq!(csv_out.lines().next(), Some("when,what,stringer,numbers,order,counter_year,counter_old,counter_new,reason,field,old,new"));
        assert_eq!(csv_out.lines().count(), 1 + 9, "seven entries of stefan, two of anna");
        assert!(ok(&db, &["journal"]).contains("| mint "));
    }
}

#[test]
fn a_backup_taken_while_mints_run_is_sound_and_never_overwrites() {
    let db = TestDb::sqlite();
    ok(&db, &["stringer", "add", "stefan", "--timezone", "UTC"]);
    let orders: Vec<String> =
        (0..40).map(|_| ok(&db, &["order", "add", "--stringer", "stefan", "--price", "35.00"])).collect();
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("copy.db");
    // Mints in another thread, through the binary, while the backup is taken.
    let minting = {
        let url = db.url.clone();
        let orders = orders.clone();
        std::thread::spawn(move || {
            for order in orders {
                let out = binary()
                    .env("DATABASE_URL", &url)
                    .env("TZ", "UTC")
                    .args(["mint", "--order", &order])
                    .output()
                    .unwrap();
                assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
            }
        })
    };
    let out = run(&db, &["backup", copy.to_str().unwrap()]);
    minting.join().unwrap();
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains("integrity ok"), "{}", out.stderr);
    // The copy is a database of its own that audits clean.
    let audited = binary().env("DATABASE_URL", &copy).args(["audit"]).output().unwrap();
    assert!(audited.status.success(), "{}", String::from_utf8_lossy(&audited.stderr));
    let before = std::fs::read(&copy).unwrap();
    assert!(fails(&db, 73, &["backup", copy.to_str().unwrap()]).contains("never overwrites"));
    assert_eq!(std::fs::read(&copy).unwrap(), before);
}

/// `backup --out-dir DIR --keep N`: a checked backup named by its time (UTC), then the
/// oldest backups named so beyond N removed; a file of another name is never touched.
#[test]
fn backups_in_a_directory_are_named_by_their_time_and_the_oldest_beyond_keep_removed() {
    let db = TestDb::sqlite().with_clock_at("2030-05-04 10:00");
    shop(&db);
    let dir = tempfile::tempdir().unwrap();
    let others = ["pre-upgrade-0.9.0-20200101-000000.sqlite3", "receipts-2020.sqlite3", "notes.txt"];
    for name in others.iter().chain(&["receipts-20200101-000000.sqlite3", "receipts-20200102-000000.sqlite3"])
    {
        std::fs::write(dir.path().join(name), name).unwrap();
    }
    let names = || file_names(dir.path());
    let out = run(&db, &["backup", "--out-dir", dir.path().to_str().unwrap(), "--keep", "2"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let written: Vec<String> = names().into_iter().filter(|n| n.starts_with("receipts-20300504-")).collect();
    assert_eq!(written.len(), 1, "{:?}", names());
    assert!(out.stderr.contains("integrity ok") && out.stderr.contains(&written[0]), "{}", out.stderr);
    assert!(
        out.stderr.contains("removed the older backup") && out.stderr.contains("receipts-20200101-000000"),
        "{}",
        out.stderr
    );
    let mut expected: Vec<String> = others
        .iter()
        .map(|s| s.to_string())
        .chain(["receipts-20200102-000000.sqlite3".into(), written[0].clone()])
        .collect();
    expected.sort();
    assert_eq!(names(), expected, "the oldest beyond 2 removed, the others untouched");
    // The backup is a database of its own that audits clean.
    let audited =
        binary().env("DATABASE_URL", dir.path().join(&written[0])).args(["audit"]).output().unwrap();
    assert!(audited.status.success(), "{}", String::from_utf8_lossy(&audited.stderr));
    // Keep must be at least one, and only with --out-dir.
    fails(&db, 2, &["backup", "--out-dir", dir.path().to_str().unwrap(), "--keep", "0"]);
    fails(&db, 2, &["backup", "x.sqlite3", "--keep", "3"]);
    fails(&db, 2, &["backup"]);
    assert_eq!(names(), expected, "a refused command touches nothing");
}

#[test]
fn postgres_is_backed_up_with_pg_dump() {
    let db = TestDb::postgres();
    let message = fails(&db, 2, &["backup", "/tmp/never-written.db"]);
    assert!(message.contains("pg_dump") && message.contains("docs/RESTORE.md"), "{message}");
    assert!(!std::path::Path::new("/tmp/never-written.db").exists());
}

#[test]
fn a_long_listing_streams_and_a_closed_pipe_is_no_error() {
    let db = TestDb::sqlite();
    ok(&db, &["stringer", "add", "stefan"]);
    db.execute("INSERT INTO orders (stringer_id, kind, customer) SELECT 1, 'client', 'c' || value FROM generate_series(1, 3000)")
        .or_else(|_| {
            // Without the series extension: a recursive CTE.
            db.execute("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000) \
                        INSERT INTO orders (stringer_id, kind, customer) SELECT 1, 'client', 'c' || i FROM n")
        })
        .unwrap();
    assert_eq!(ok(&db, &["order", "list", "--limit", "20"]).lines().count(), 2 + 20);
    // Reading two lines and closing the pipe ends the listing quietly.
    let mut child = receipts(&db)
        .args(["order", "list"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufRead::lines(std::io::BufReader::new(child.stdout.take().unwrap()));
    assert!(lines.next().unwrap().unwrap().contains("stringer"));
    drop(lines);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    // Wide tables: the widths come from the first rows, later rows still show whole.
    let all = ok(&db, &["order", "list"]);
    assert_eq!(all.lines().count(), 2 + 3000);
    assert!(all.lines().last().unwrap().contains("c3000"));
}

#[test]
fn completions_and_the_manual_page_come_from_the_command_line_definition() {
    let db = TestDb::sqlite();
    for shell in ["bash", "zsh", "fish"] {
        let script = ok(&db, &["completions", shell]);
        assert!(script.contains("receipts") && script.contains("resync-counters"), "{shell}");
    }
    let man = ok(&db, &["man"]);
    assert!(man.contains(".TH receipts 1") && man.contains("migrate\\-v1"), "{}", &man[..200]);
    assert!(fails(&db, 2, &["completions", "cmd.exe"]).contains("invalid value"));
}
