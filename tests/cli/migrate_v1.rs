//! `receipts migrate-v1` on both backends: the numbers of the fixtures checked against
//! oracles written outside the program, bad files refused whole, re-imports idempotent.

use super::*;
use std::collections::BTreeMap;

/// (stringer, kind, v1_id) -> receipt number ("" when unnumbered), as the database holds them.
fn numbers(db: &TestDb) -> BTreeMap<(String, String, i64), String> {
    use diesel::prelude::*;
    use receipts::db::schema::{orders, stringers};
    type Row = (String, Option<String>, Option<i64>, Option<String>);
    let rows: Vec<Row> = db
        .connect()
        .without_transaction(|c| {
            orders::table
                .inner_join(stringers::table)
                .select((stringers::handle, orders::v1_kind, orders::v1_id, orders::receipt_number))
                .load(c)
        })
        .unwrap();
    rows.into_iter().map(|(h, k, id, n)| ((h, k.unwrap(), id.unwrap()), n.unwrap_or_default())).collect()
}

fn sample_oracle() -> BTreeMap<(String, String, i64), String> {
    let mut reader = csv::Reader::from_path(fixture("sample.expected.csv")).unwrap();
    reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            ((r[0].to_string(), r[1].to_string(), r[2].parse().unwrap()), r[3].to_string())
        })
        .collect()
}

fn imports_the_sample_as_the_oracle_numbers_it(db: &TestDb) {
    let out = run(db, &["migrate-v1", &fixture("sample.csv"), "--timezone", "Europe/Zurich"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    insta::assert_snapshot!("sample_summary", out.stdout);
    let oracle = sample_oracle();
    assert_eq!(numbers(db), oracle);

    // Each counter is at the highest number of its (stringer, year); one journal row each.
    let mut highest: BTreeMap<(&str, &str), i64> = BTreeMap::new();
    for ((stringer, _, _), number) in &oracle {
        if let Some((year, seq)) = number.split_once('-') {
            let top = highest.entry((stringer.as_str(), year)).or_default();
            *top = (*top).max(seq.parse().unwrap());
        }
    }
    for ((stringer, year), top) in highest {
        let counter = db.query_i64(&format!(
            "SELECT last_n FROM receipt_counters c JOIN stringers s ON s.id = c.stringer_id WHERE s.handle = '{stringer}' AND c.year = {year}"
        ));
        assert_eq!(counter, Some(top), "{stringer} {year}");
    }
    assert_eq!(db.query_i64("SELECT count(*) FROM receipt_events WHERE kind = 'v1_import'"), Some(12));
    assert_eq!(db.query_i64("SELECT count(*) FROM stringers WHERE timezone = 'Europe/Zurich'"), Some(3));

    // Again: nothing changes, and it says so.
    let again = run(db, &["migrate-v1", &fixture("sample.csv"), "--timezone", "Europe/Zurich"]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert!(again.stderr.contains("nothing to do: all 315 rows"), "{}", again.stderr);
    assert_eq!(numbers(db), oracle);
    assert_eq!(db.query_i64("SELECT count(*) FROM receipt_events"), Some(12));

    // The next live mint continues after the highest imported number.
    let order = ok(db, &["order", "add", "--stringer", "stefan", "--price", "35.00"]);
    assert_eq!(ok(db, &["mint", "--order", &order, "--at", "2025-12-20 10:00", "--backdate"]), "2025-0042");
    let order = ok(db, &["order", "add", "--stringer", "mia", "--price", "35.00"]);
    assert_eq!(ok(db, &["mint", "--order", &order, "--at", "2024-12-20 10:00", "--backdate"]), "2024-0013");
    assert_eq!(run(db, &["audit"]).code, 0);
}

#[test]
fn sample_on_sqlite() {
    imports_the_sample_as_the_oracle_numbers_it(&TestDb::sqlite());
}

#[test]
fn sample_on_postgres() {
    imports_the_sample_as_the_oracle_numbers_it(&TestDb::postgres());
}

fn imports_the_messy_file(db: &TestDb) {
    let out = run(
        db,
        &["migrate-v1", &fixture("messy.csv"), "--stringer", "stefan", "--timezone", "Europe/Zurich"],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains("warning: ignoring unknown column \"colour\""), "{}", out.stderr);
    let key = |s: &str, k: &str, id: i64| (s.to_string(), k.to_string(), id);
    let expected: BTreeMap<_, _> = [
        (key("stefan", "client", 2), "2025-0001"), // 28.02.2025, local midnight
        (key("stefan", "self", 1), "2025-0002"),   // 2025-03-01T09:00:00+01:00
        (key("stefan", "client", 1), "2025-0003"), // 2025-03-01 10:00 local
        (key("stefan", "self", 2), ""),            // never strung
        (key("anna", "client", 3), "2025-0001"),
    ]
    .into_iter()
    .map(|(k, v)| (k, v.to_string()))
    .collect();
    assert_eq!(numbers(db), expected);
    let json: serde_json::Value =
        serde_json::from_str(&ok(db, &["order", "list", "--format", "json", "--stringer", "stefan"]))
            .unwrap();
    let first = json.as_array().unwrap().iter().find(|o| o["v1_id"] == 1 && o["kind"] == "client").unwrap();
    assert_eq!(first["customer"], "Federer, Roger");
    assert_eq!(first["string"], "Luxilon \"Big Banger\"");
    assert_eq!(first["notes"], "line one\r\nline two");
    assert_eq!(first["price_minor"], 3550);
    assert_eq!(first["strung_at"], "2025-03-01T09:00:00Z");
}

#[test]
fn messy_file_on_sqlite() {
    imports_the_messy_file(&TestDb::sqlite());
}

#[test]
fn messy_file_on_postgres() {
    imports_the_messy_file(&TestDb::postgres());
}

fn refuses_every_bad_file_whole(db: &TestDb) {
    let cases = [
        (
            "bad-date.csv",
            "line 3, strung_at: \"31/12/2025\" is not a date (expected YYYY-MM-DD or DD.MM.YYYY)",
        ),
        ("bad-time.csv", "line 2, strung_at: \"2025-03-01 25:00\" is not a time"),
        ("bad-price.csv", "line 2, price: \"35,50\" is not a price"),
        ("bad-kind.csv", "line 2, kind: \"shop\" is not an order kind"),
        ("bad-v1-id.csv", "line 2, v1_id: \"-3\" is not a V1 id"),
        ("missing-v1-id-column.csv", "line 1: missing column \"v1_id\""),
        (
            "duplicate-identity.csv",
            "line 4, v1_id: client 7 of stringer stefan appears again (first on line 2)",
        ),
        ("wrong-field-count.csv", "line 3: 4 fields, but the header has 12"),
        ("invalid-utf8.csv", "line 2, customer: is not valid UTF-8"),
        ("missing-stringer.csv", "line 2, stringer: is empty and no --stringer was given"),
        ("nonexistent-local-time.csv", "line 2, strung_at: 2025-03-30 02:30 does not exist in Europe/Zurich"),
        ("multiline-then-bad.csv", "line 5, strung_at: \"2025-13-01\" is not a date"),
        ("blank-lines-then-bad.csv", "line 5, strung_at: \"2025-02-30\" is not a date"),
        ("many-problems.csv", "line 21, strung_at"),
        ("unprintable-customer.csv", "line 3, customer: holds \"山\" (U+5C71), which receipts cannot print"),
    ];
    for (file, expected) in cases {
        let message =
            fails(db, 65, &["migrate-v1", &fixture(&format!("bad/{file}")), "--timezone", "Europe/Zurich"]);
        assert!(message.contains(expected), "{file}: {message}");
        assert!(message.contains("nothing was written"), "{file}: {message}");
        assert_eq!(db.query_i64("SELECT count(*) FROM orders"), Some(0), "{file} wrote orders");
        assert_eq!(db.query_i64("SELECT count(*) FROM stringers"), Some(0), "{file} created stringers");
    }
    // Each problem on a line of its own, naming the file; then the error, in one line.
    let many = fails(db, 65, &["migrate-v1", &fixture("bad/many-problems.csv")]);
    let lines: Vec<&str> = many.lines().collect();
    assert_eq!(lines.len(), 22, "{many}");
    assert!(lines[..21].iter().all(|l| l.starts_with(&fixture("bad/many-problems.csv"))), "{many}");
    assert!(lines[20].ends_with("... and 5 more"), "{many}");
    assert_eq!(
        lines[21],
        "error: the file has 25 problems; nothing was written (the first 20 are listed above)"
    );
    assert!(!many.contains("line 22,"), "only the first 20 are listed: {many}");
    assert_eq!(fails(db, 66, &["migrate-v1", &fixture("no-such-file.csv")]).lines().count(), 1);
}

#[test]
fn bad_files_on_sqlite() {
    refuses_every_bad_file_whole(&TestDb::sqlite());
}

#[test]
fn bad_files_on_postgres() {
    refuses_every_bad_file_whole(&TestDb::postgres());
}

#[test]
fn a_dry_run_shows_the_plan_and_writes_nothing() {
    let db = TestDb::sqlite();
    let out = run(&db, &["migrate-v1", &fixture("messy.csv"), "--stringer", "stefan", "--dry-run"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("| 2025-0001 | 2025-0003"), "{}", out.stdout);
    assert!(out.stderr.contains("dry run: 5 new orders"), "{}", out.stderr);
    assert_eq!(db.query_i64("SELECT count(*) FROM orders"), Some(0));
    assert_eq!(db.query_i64("SELECT count(*) FROM stringers"), Some(0));
}

#[test]
fn rows_numbered_into_a_year_with_other_receipts_are_refused() {
    let db = TestDb::postgres();
    ok(&db, &["stringer", "add", "stefan", "--timezone", "Europe/Zurich"]);
    let order = ok(&db, &["order", "add", "--stringer", "stefan", "--price", "35.00"]);
    ok(&db, &["mint", "--order", &order, "--at", "2025-01-15 10:00", "--backdate"]);
    let message = fails(&db, 65, &["migrate-v1", &fixture("messy.csv"), "--stringer", "stefan"]);
    assert!(
        message.contains("stringer stefan, 2025 already has receipt numbers 2025-0001..2025-0001 that this file does not hold"),
        "{message}"
    );
    assert_eq!(db.query_i64("SELECT count(*) FROM orders"), Some(1));
    assert_eq!(db.query_i64("SELECT count(*) FROM stringers"), Some(1), "anna was not created");
}

#[test]
fn a_reimport_with_changed_content_is_refused() {
    let db = TestDb::sqlite();
    ok(&db, &["migrate-v1", &fixture("messy.csv"), "--stringer", "stefan"]);
    let changed = tempfile::NamedTempFile::new().unwrap();
    let text = std::fs::read_to_string(fixture("messy.csv")).unwrap().replace("Ana", "Anna");
    std::fs::write(changed.path(), text).unwrap();
    let message = fails(&db, 65, &["migrate-v1", changed.path().to_str().unwrap(), "--stringer", "stefan"]);
    assert!(
        message.contains("line 5: client 3 of anna was imported before with different content"),
        "{message}"
    );
}

/// 50,000 rows over 4 stringers and 5 years, shuffled; each row's number is known by
/// construction (the j-th row of a (stringer, year) in time is number j).
fn imports_a_generated_50k_file(db: &TestDb) {
    const STRINGERS: [&str; 4] = ["stefan", "anna", "mia", "luca"];
    const YEARS: [i32; 5] = [2021, 2022, 2023, 2024, 2025];
    const PER_GROUP: usize = 2_500;
    let mut rows = Vec::new();
    let mut expected = BTreeMap::new();
    let mut next_id = [0i64; 2];
    for stringer in STRINGERS {
        for year in YEARS {
            for j in 0..PER_GROUP {
                let kind = if j % 3 == 0 { "self" } else { "client" };
                let id = &mut next_id[usize::from(kind == "self")];
                *id += 1;
                let strung =
                    chrono::NaiveDate::from_ymd_opt(year, 1, 1).unwrap().and_hms_opt(0, 0, 0).unwrap()
                        + chrono::Duration::hours(3 * j as i64);
                rows.push(format!(
                    "{id},{kind},{stringer},,,,,12.50,,{},,",
                    strung.format("%Y-%m-%d %H:%M:%S")
                ));
                expected
                    .insert((stringer.to_string(), kind.to_string(), *id), format!("{year}-{:04}", j + 1));
            }
        }
    }
    let n = rows.len();
    let mut text = String::from(
        "v1_id,kind,stringer,customer,racket,string,tension,price,ordered_at,strung_at,paid_at,notes\n",
    );
    for i in 0..n {
        text.push_str(&rows[(i * 7919) % n]); // 7919 is prime to 50,000: a permutation
        text.push('\n');
    }
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), text).unwrap();

    let out = run(db, &["migrate-v1", file.path().to_str().unwrap(), "--timezone", "UTC"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(numbers(db), expected);
    assert_eq!(db.query_i64("SELECT count(*) FROM receipt_counters WHERE last_n = 2500"), Some(20));
}

#[test]
fn generated_50k_rows_on_sqlite() {
    imports_a_generated_50k_file(&TestDb::sqlite());
}

#[test]
fn generated_50k_rows_on_postgres() {
    imports_a_generated_50k_file(&TestDb::postgres());
}
