//! `receipts payments import` (SPEC section 15): bank files written by the test support
//! (`support::camt`) in both messages and versions, imported through the binary: exact
//! payments applied once, every mismatch listed and left alone, one file one transaction;
//! and `order list --status overdue`.

use super::payment::scor;
use super::*;
use crate::on_both_backends;
use support::camt::{self, Entry, Message, Tx, Version};

/// Stefan in Zurich with invoices of the given prices (`Shop::stefan_with_invoices`).
fn stefan_with_invoices(db: &TestDb, prices: &[&str]) -> Vec<String> {
    Shop::new(db).stefan_with_invoices(prices)
}

/// Anna in Berlin, paid into a German account (SCOR references, EUR).
fn anna_with_invoices(db: &TestDb, prices: &[&str]) -> Vec<String> {
    ok(db, &["stringer", "add", "anna", "--name", "Anna Saiten", "--timezone", "Europe/Berlin"]);
    ok(
        db,
        &[
            "stringer",
            "edit",
            "anna",
            "--iban",
            "DE89 3704 0044 0532 0130 00",
            "--bic",
            "COBADEFFXXX",
            "--postcode",
            "10115",
            "--town",
            "Berlin",
            "--country",
            "DE",
            "--currency",
            "EUR",
        ],
    );
    Shop::new(db).invoices("anna", "EUR", prices)
}

/// The bank file written to a temporary directory.
struct BankFile {
    _dir: tempfile::TempDir,
    path: String,
}

fn bank_file(name: &str, xml: &str) -> BankFile {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, xml).unwrap();
    BankFile { path: path.to_str().unwrap().to_string(), _dir: dir }
}

fn import(db: &TestDb, file: &BankFile, extra: &[&str]) -> Output {
    let mut args = vec!["payments", "import", file.path.as_str(), "--format", "json"];
    args.extend_from_slice(extra);
    run(db, &args)
}

/// The listed credits: (receipt, outcome, bank reference).
fn listed(out: &Output) -> Vec<(String, String, String)> {
    let rows: serde_json::Value =
        serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", out.stdout));
    rows.as_array()
        .unwrap()
        .iter()
        .map(|row| {
            let text = |key: &str| row[key].as_str().unwrap().to_string();
            (text("receipt"), text("outcome"), text("bank_reference"))
        })
        .collect()
}

fn row(receipt: &str, outcome: &str, bank_reference: &str) -> (String, String, String) {
    (receipt.into(), outcome.into(), bank_reference.into())
}

/// When the order was paid (UTC, RFC 3339), or "" when it is not.
fn paid_at(db: &TestDb, order: &str) -> String {
    let json: serde_json::Value =
        serde_json::from_str(&ok(db, &["order", "show", order, "--format", "json"])).unwrap();
    json["paid_at"].as_str().unwrap_or_default().to_string()
}

/// The journal's `payment` entries: (numbers, new paid_at, reason).
fn payments_journaled(db: &TestDb) -> Vec<(String, String, String)> {
    journaled(db, "payment")
        .iter()
        .map(|e| {
            let text = |key: &str| e[key].as_str().unwrap_or_default().to_string();
            (text("numbers"), text("new"), text("reason"))
        })
        .collect()
}

const FILES: [(Message, Version); 4] = [
    (Message::Notification, Version::V04),
    (Message::Notification, Version::V08),
    (Message::Statement, Version::V04),
    (Message::Statement, Version::V08),
];

on_both_backends! {
    fn exact_payments_are_applied_from_both_messages_in_both_versions(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        let orders = stefan_with_invoices(&db, &["35.50", "42.00", "28.00", "60.00", "19.90", "45.00", "31.00", "52.50"]);
        let stefan = stringer_id(&db, "stefan");
        for (i, (message, version)) in FILES.into_iter().enumerate() {
            // Two invoices per file: one paid alone, one in a batch beside a credit without
            // a reference; and a debit.
            let (single, batched) = (2 * i as i64 + 1, 2 * i as i64 + 2);
            let price = |seq: i64| -> i64 { [3550, 4200, 2800, 6000, 1990, 4500, 3100, 5250][seq as usize - 1] };
            let entries = [
                Entry::booked("2026-03-20", &format!("E{i}-1"), vec![Tx::paying(&qrr(stefan, 2026, single), price(single), "CHF", &format!("T{i}-1"))]),
                Entry::booked("2026-03-21", &format!("E{i}-2"), vec![
                    Tx::unstructured("Thanks for the racket", 5000, &format!("T{i}-2")),
                    Tx::paying(&qrr(stefan, 2026, batched), price(batched), "CHF", &format!("T{i}-3")),
                ]),
                Entry::booked("2026-03-21", &format!("E{i}-3"), vec![Tx::debit(12000, &format!("T{i}-4"))]),
            ];
            let file = bank_file("bank.xml", &camt::file(message, version, &entries));
            let out = import(&db, &file, &[]);
            assert_eq!(out.code, 0, "{message:?} {version:?}: {}", out.stderr);
            assert_eq!(
                listed(&out),
                [row(&format!("2026-{single:04}"), "applied", &format!("T{i}-1")), row(&format!("2026-{batched:04}"), "applied", &format!("T{i}-3"))],
                "{message:?} {version:?}"
            );
            let kind = match message { Message::Statement => "camt.053", Message::Notification => "camt.054" };
            let number = format!("001.{:02}", version.0);
            assert_eq!(
                out.stderr,
                format!("{} ({kind}.{number}): 4 transactions, 2 applied, 1 credit without a reference of ours ignored, 1 debit ignored\n", file.path)
            );
            // Paid on the booking date, noon in Zurich (11:00 UTC in winter time).
            assert_eq!(paid_at(&db, &orders[single as usize - 1]), "2026-03-20T11:00:00Z");
            assert_eq!(paid_at(&db, &orders[batched as usize - 1]), "2026-03-21T11:00:00Z");
        }
        let journaled = payments_journaled(&db);
        assert_eq!(journaled.len(), 8);
        assert_eq!(
            journaled[0],
            ("2026-0001".into(), "2026-03-20T12:00:00+01:00".into(), format!("CHF 35.50 paid, reference {}, bank reference T0-1", qrr(stefan, 2026, 1)))
        );
        assert_eq!(ok(&db, &["order", "list", "--status", "unpaid", "--format", "json"]), "[]");
        assert_eq!(run(&db, &["audit"]).code, 0);
    }

    fn what_cannot_be_applied_is_listed_with_its_reason_and_changes_nothing(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        let orders = stefan_with_invoices(&db, &["35.50", "42.00", "28.00", "60.00", "19.90", "45.00", "31.00"]);
        let stefan = stringer_id(&db, "stefan");
        ok(&db, &["order", "edit", &orders[3], "--paid-at", "2026-03-10 09:00"]);
        ok(&db, &["void", "--order", &orders[4], "--reason", "customer never came back"]);
        let paying = |seq: i64, minor: i64, currency: &'static str, bank: &str| Tx::paying(&qrr(stefan, 2026, seq), minor, currency, bank);
        let entries = [
            Entry::booked("2026-03-20", "E1", vec![paying(1, 3550, "CHF", "T1")]),
            Entry::booked("2026-03-20", "E2", vec![
                paying(2, 4000, "CHF", "T2"),
                paying(3, 3000, "CHF", "T3"),
                paying(99, 1000, "CHF", "T4"),
            ]),
            Entry::booked("2026-03-20", "E3", vec![paying(4, 6000, "CHF", "T5")]),
            Entry::booked("2026-03-20", "E4", vec![paying(5, 1990, "CHF", "T6")]),
            Entry::booked("2026-03-20", "E5", vec![paying(6, 4500, "EUR", "T7")]),
            // The same invoice paid twice in one file: the second is a double payment.
            Entry::booked("2026-03-21", "E6", vec![paying(7, 3100, "CHF", "T8"), paying(7, 3100, "CHF", "T9")]),
            // Pending, not booked: nothing to apply yet.
            Entry { status: "PDNG", ..Entry::booked("2026-03-22", "E7", vec![paying(2, 4200, "CHF", "T10")]) },
        ];
        let file = bank_file("bank.xml", &camt::file(Message::Notification, Version::V08, &entries));
        let out = import(&db, &file, &[]);
        assert_eq!(out.code, 1, "{}", out.stderr);
        assert_eq!(
            listed(&out),
            [
                row("2026-0001", "applied", "T1"),
                row("2026-0002", "partial", "T2"),
                row("2026-0003", "over", "T3"),
                row("2026-0099", "unknown_reference", "T4"),
                row("2026-0004", "already_paid", "T5"),
                row("2026-0005", "void", "T6"),
                row("2026-0006", "other_currency", "T7"),
                row("2026-0007", "applied", "T8"),
                row("2026-0007", "already_paid", "T9"),
            ]
        );
        let rows: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!(rows[1]["reason"], "less than the invoice asks: a partial payment");
        assert_eq!(rows[1]["amount"], "40.00");
        assert_eq!(rows[4]["reason"], "the order was paid already: a double payment, refund the customer");
        assert_eq!(
            out.stderr,
            format!(
                "{0} (camt.054.001.08): 10 transactions, 2 applied, 7 need attention, 1 credit not booked (pending, or undated) ignored\n\
                 error: 7 payments of {0} could not be applied (see the reasons listed): nothing was changed for them; \
                 once handled, `receipts payments settle BANK_REF --reason ...`\n",
                file.path
            )
        );
        // Only the exact payments changed anything.
        let paid: Vec<String> = orders.iter().map(|o| paid_at(&db, o)).collect();
        assert_eq!(paid, ["2026-03-20T11:00:00Z", "", "", "2026-03-10T08:00:00Z", "", "", "2026-03-21T11:00:00Z"]);
        assert_eq!(payments_journaled(&db).len(), 2);
        // A table for people says why.
        let out = run(&db, &["payments", "import", &file.path]);
        assert_eq!(out.code, 1);
        assert!(out.stdout.contains("applied by an earlier import") && out.stdout.contains("more than the invoice asks: an overpayment"), "{}", out.stdout);
    }

    fn a_file_imported_twice_or_overlapping_statements_apply_each_payment_once(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        let orders = stefan_with_invoices(&db, &["35.50", "42.00", "28.00"]);
        let stefan = stringer_id(&db, "stefan");
        let first = Entry::booked("2026-03-20", "E1", vec![Tx::paying(&qrr(stefan, 2026, 1), 3550, "CHF", "T1")]);
        let second = Entry::booked("2026-03-21", "E2", vec![Tx::paying(&qrr(stefan, 2026, 2), 4200, "CHF", "T2")]);
        let notification = bank_file("notification.xml", &camt::file(Message::Notification, Version::V08, &[first.clone(), second.clone()]));
        assert_eq!(import(&db, &notification, &[]).code, 0);
        let again = import(&db, &notification, &[]);
        assert_eq!(again.code, 0, "{}", again.stderr);
        assert_eq!(listed(&again), [row("2026-0001", "already_applied", "T1"), row("2026-0002", "already_applied", "T2")]);
        assert_eq!(
            again.stderr,
            format!("{} (camt.054.001.08): 2 transactions, 0 applied, 2 applied by an earlier import\nnothing new was applied\n", notification.path)
        );
        // The month's statement books the same transactions again, and one more.
        let third = Entry::booked("2026-03-25", "E3", vec![Tx::paying(&qrr(stefan, 2026, 3), 2800, "CHF", "T3")]);
        let statement = bank_file("statement.xml", &camt::file(Message::Statement, Version::V04, &[first, second, third]));
        let out = import(&db, &statement, &[]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert_eq!(
            listed(&out),
            [row("2026-0001", "already_applied", "T1"), row("2026-0002", "already_applied", "T2"), row("2026-0003", "applied", "T3")]
        );
        assert_eq!(payments_journaled(&db).len(), 3);
        assert_eq!(paid_at(&db, &orders[0]), "2026-03-20T11:00:00Z");
        // A payment cleared by mistake and paid again by the same bank transaction stays cleared.
        ok(&db, &["order", "edit", &orders[0], "--paid-at", "none", "--reason", "booked to the wrong invoice"]);
        assert_eq!(import(&db, &statement, &[]).code, 0);
        assert_eq!(paid_at(&db, &orders[0]), "");
    }

    fn a_malformed_entry_late_in_a_file_applies_nothing(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        let orders = stefan_with_invoices(&db, &["35.50", "42.00"]);
        let stefan = stringer_id(&db, "stefan");
        let good = Entry::booked("2026-03-20", "E1", vec![Tx::paying(&qrr(stefan, 2026, 1), 3550, "CHF", "T1")]);
        let entries = [
            good.clone(),
            Entry::booked("2026-03-20", "E2", vec![Tx::debit(500, "T2")]),
            Entry::booked("2026-03-21", "E3", vec![Tx::unstructured("x", 4200, "T3")]),
        ];
        // The third entry's amounts written with a decimal comma.
        let xml = camt::file(Message::Statement, Version::V08, &entries).replace(">42.00<", ">42,00<");
        let file = bank_file("bank.xml", &xml);
        let message = fails(&db, 65, &["payments", "import", &file.path]);
        assert_eq!(message, format!("error: {}: entry 3: \"42,00\" is not an amount", file.path));
        assert_eq!(paid_at(&db, &orders[0]), "", "nothing of the file was applied");
        assert!(payments_journaled(&db).is_empty());
        // Cut off in the middle: not well-formed.
        let whole = camt::file(Message::Notification, Version::V04, std::slice::from_ref(&good));
        let cut = bank_file("cut.xml", &whole[..whole.len() - 40]);
        let message = fails(&db, 65, &["payments", "import", &cut.path]);
        assert!(message.starts_with(&format!("error: {}: ", cut.path)), "{message}");
        assert_eq!(paid_at(&db, &orders[0]), "");
        // A payment of ours without the bank's reference could not be applied exactly once.
        let unkeyed = Entry { bank_reference: None, ..Entry::booked("2026-03-21", "", vec![Tx { bank_reference: None, ..Tx::paying(&qrr(stefan, 2026, 2), 4200, "CHF", "") }]) };
        let file = bank_file("unkeyed.xml", &camt::file(Message::Notification, Version::V08, &[good, unkeyed]));
        assert_eq!(
            fails(&db, 65, &["payments", "import", &file.path]),
            format!("error: {}: entry 2: a payment for receipt 2026-0002 carries no bank reference (AcctSvcrRef), which is needed to apply it exactly once", file.path)
        );
        assert_eq!(paid_at(&db, &orders[0]), "");
        assert!(payments_journaled(&db).is_empty());
    }

    fn each_stringer_is_paid_by_their_own_references(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        let stefans = stefan_with_invoices(&db, &["35.50"]);
        let annas = anna_with_invoices(&db, &["45.00"]);
        let (stefan, anna) = (stringer_id(&db, "stefan"), stringer_id(&db, "anna"));
        // The same receipt number, told apart by the stringer in the reference.
        let entries = [
            Entry::booked("2026-03-20", "E1", vec![Tx::paying(&qrr(stefan, 2026, 1), 3550, "CHF", "T1")]),
            Entry::booked("2026-03-20", "E2", vec![Tx::paying(&scor(anna, 2026, 1), 4500, "EUR", "T2")]),
        ];
        let file = bank_file("bank.xml", &camt::file(Message::Notification, Version::V08, &entries));
        let out = import(&db, &file, &["--stringer", "anna"]);
        assert_eq!(out.code, 1, "{}", out.stderr);
        // Stefan's payment needs attention, and nothing of Stefan's is shown.
        assert_eq!(listed(&out), [row("", "other_stringer", "T1"), row("2026-0001", "applied", "T2")]);
        let rows: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!((rows[1]["stringer"].as_str(), rows[1]["currency"].as_str()), (Some("anna"), Some("EUR")));
        assert_eq!((rows[0]["stringer"].as_str(), rows[0]["order"].is_null()), (Some(""), true));
        assert!(rows[0]["reason"].as_str().unwrap().contains("another stringer"), "{}", rows[0]);
        assert!(!out.stdout.contains("stefan") && !out.stderr.contains("stefan"), "{}{}", out.stdout, out.stderr);
        assert!(out.stderr.contains("1 applied, 1 need attention"), "{}", out.stderr);
        // Noon in Berlin.
        assert_eq!(paid_at(&db, &annas[0]), "2026-03-20T11:00:00Z");
        assert_eq!(paid_at(&db, &stefans[0]), "");
        let out = import(&db, &file, &[]);
        assert_eq!(listed(&out), [row("2026-0001", "applied", "T1"), row("2026-0001", "already_applied", "T2")]);
        assert_eq!(paid_at(&db, &stefans[0]), "2026-03-20T11:00:00Z");
        // One stringer's bank reference does not hide another's payment.
        let entries = [Entry::booked("2026-03-20", "E1", vec![Tx::paying(&scor(anna, 2026, 1), 4500, "EUR", "T1")])];
        let same_reference = bank_file("other-bank.xml", &camt::file(Message::Notification, Version::V04, &entries));
        let out = import(&db, &same_reference, &[]);
        assert_eq!(listed(&out), [row("2026-0001", "already_paid", "T1")]);
    }

    fn a_dry_run_shows_the_plan_and_changes_nothing(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        let orders = stefan_with_invoices(&db, &["35.50", "42.00"]);
        let stefan = stringer_id(&db, "stefan");
        let entries = [Entry::booked("2026-03-20", "E1", vec![
            Tx::paying(&qrr(stefan, 2026, 1), 3550, "CHF", "T1"),
            Tx::paying(&qrr(stefan, 2026, 1), 3550, "CHF", "T2"),
        ])];
        let file = bank_file("bank.xml", &camt::file(Message::Notification, Version::V08, &entries));
        let plan = import(&db, &file, &["--dry-run"]);
        assert_eq!(plan.code, 1, "{}", plan.stderr);
        assert_eq!(listed(&plan), [row("2026-0001", "applied", "T1"), row("2026-0001", "already_paid", "T2")]);
        assert!(plan.stderr.contains("1 would be applied, 1 need attention") && plan.stderr.contains("dry run: nothing was changed"), "{}", plan.stderr);
        assert_eq!(paid_at(&db, &orders[0]), "");
        assert!(payments_journaled(&db).is_empty());
        let done = import(&db, &file, &[]);
        assert_eq!(listed(&done), listed(&plan), "the plan is what happens");
        assert_eq!(paid_at(&db, &orders[0]), "2026-03-20T11:00:00Z");
    }

    fn overdue_lists_unpaid_invoices_past_their_due_date(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        // Due 20 days after 2 to 5 March 2026: long past.
        let orders = stefan_with_invoices(&db, &["35.50", "42.00", "28.00", "60.00"]);
        ok(&db, &["order", "edit", &orders[1], "--paid-at", "2026-03-10 09:00"]);
        ok(&db, &["void", "--order", &orders[2], "--reason", "wrong racket"]);
        // Strung yesterday: due in 20 days, even after the profile gives fewer days.
        let yesterday = (db.today() - chrono::Duration::days(1)).format("%Y-%m-%d 10:00").to_string();
        let recent = ok(&db, &["order", "add", "--stringer", "stefan", "--customer", "Stan", "--price", "30.00"]);
        ok(&db, &["mint", "--order", &recent, "--at", &yesterday]);
        ok(&db, &["stringer", "edit", "stefan", "--payment-days", "0"]);
        // Strung now under the new terms: due today, not yet overdue.
        let today = ok(&db, &["order", "add", "--stringer", "stefan", "--customer", "Belinda", "--price", "30.00"]);
        ok(&db, &["mint", "--order", &today]);
        let json: serde_json::Value = serde_json::from_str(&ok(&db, &["order", "list", "--status", "overdue", "--format", "json"])).unwrap();
        let ids: Vec<String> = json.as_array().unwrap().iter().map(|o| o["id"].to_string()).collect();
        assert_eq!(ids, [orders[0].clone(), orders[3].clone()]);
        let unpaid = ok(&db, &["order", "list", "--status", "unpaid", "--format", "csv"]);
        assert_eq!(unpaid.lines().count(), 1 + 4, "{unpaid}");
        // A payment from the bank takes it off the list.
        let stefan = stringer_id(&db, "stefan");
        let entries = [Entry::booked("2026-11-02", "E1", vec![Tx::paying(&qrr(stefan, 2026, 4), 6000, "CHF", "T1")])];
        let file = bank_file("bank.xml", &camt::file(Message::Notification, Version::V08, &entries));
        assert_eq!(import(&db, &file, &[]).code, 0);
        let json: serde_json::Value = serde_json::from_str(&ok(&db, &["order", "list", "--status", "overdue", "--format", "json"])).unwrap();
        assert_eq!(json.as_array().unwrap().len(), 1);
        assert_eq!(json[0]["id"].to_string(), orders[0]);
    }
}

#[test]
fn files_that_are_not_camt_are_refused_naming_the_file() {
    let db = TestDb::sqlite().with_clock_at(TESTS_DAY);
    stefan_with_invoices(&db, &["35.50"]);
    let pain = bank_file(
        "pain.xml",
        r#"<?xml version="1.0"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.09"><CstmrCdtTrfInitn/></Document>"#,
    );
    assert_eq!(
        fails(&db, 65, &["payments", "import", &pain.path]),
        format!(
            "error: {}: is pain.001.001.09, not a camt.053 or camt.054 file (versions 001.01 to 001.12)",
            pain.path
        )
    );
    let intraday =
        camt::file(Message::Statement, Version::V08, &[]).replace("camt.053.001.08", "camt.052.001.08");
    let intraday = bank_file("camt052.xml", &intraday);
    assert_eq!(
        fails(&db, 65, &["payments", "import", &intraday.path]),
        format!(
            "error: {}: is camt.052.001.08, not a camt.053 or camt.054 file (versions 001.01 to 001.12)",
            intraday.path
        )
    );
    let future =
        camt::file(Message::Statement, Version::V08, &[]).replace("camt.053.001.08", "camt.053.001.13");
    let future = bank_file("camt053-13.xml", &future);
    assert_eq!(
        fails(&db, 65, &["payments", "import", &future.path]),
        format!(
            "error: {}: is camt.053.001.13, not a camt.053 or camt.054 file (versions 001.01 to 001.12)",
            future.path
        )
    );
    let csv = bank_file("export.csv", "date;amount;reference\n2026-03-20;35.50;RF18\n");
    assert_eq!(
        fails(&db, 65, &["payments", "import", &csv.path]),
        format!("error: {}: is not a camt.053 or camt.054 file: it holds no ISO 20022 Document", csv.path)
    );
    let missing = format!("{}.missing", csv.path);
    assert_eq!(
        fails(&db, 66, &["payments", "import", &missing]),
        format!("error: cannot read {missing}: no such file")
    );
}

/// A bank file written in another shape.
type Reshape = fn(&str) -> String;

/// Stefan with one invoice per file to come: (orders, Stefan's id).
fn stefan_with(db: &TestDb, count: usize) -> (Vec<String>, i64) {
    let prices: Vec<String> = (0..count).map(|i| format!("{}.00", 30 + i)).collect();
    let prices: Vec<&str> = prices.iter().map(String::as_str).collect();
    let orders = stefan_with_invoices(db, &prices);
    (orders, stringer_id(db, "stefan"))
}

/// A file paying Stefan's invoice `seq` (of `stefan_with`) exactly.
fn paying_file(stefan: i64, seq: i64, message: Message, version: Version) -> String {
    let tx = Tx::paying(&qrr(stefan, 2026, seq), (29 + seq) * 100, "CHF", &format!("T{seq}"));
    camt::file(message, version, &[Entry::booked("2026-03-30", &format!("E{seq}"), vec![tx])])
}

on_both_backends! {
    fn bank_files_of_every_version_and_shape_are_read(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        let versions: Vec<u8> = Version::ALL.collect();
        let shapes: [(&str, Reshape); 8] = [
            ("the Austrian banks' namespace", camt::austrian),
            ("five fraction digits", camt::five_fraction_digits),
            ("an envelope", camt::enveloped),
            ("namespace prefixes", |xml| camt::prefixed(xml, "ns2")),
            ("an envelope and prefixes", |xml| camt::enveloped(&camt::prefixed(xml, "camt"))),
            ("CRLF line endings", |xml| xml.replace('\n', "\r\n")),
            ("CR line endings", |xml| xml.replace('\n', "\r")),
            ("one line", |xml| xml.replace('\n', "")),
        ];
        let (orders, stefan) = stefan_with(&db, 2 * versions.len() + shapes.len());
        let mut seq = 0;
        for version in versions {
            for message in [Message::Notification, Message::Statement] {
                seq += 1;
                let file = bank_file("bank.xml", &paying_file(stefan, seq, message, Version(version)));
                let out = import(&db, &file, &[]);
                assert_eq!(out.code, 0, "001.{version:02} {message:?}: {}", out.stderr);
                assert_eq!(listed(&out), [row(&format!("2026-{seq:04}"), "applied", &format!("T{seq}"))]);
                assert!(out.stderr.contains(&format!(".001.{version:02}): 1 transaction, 1 applied")), "{}", out.stderr);
            }
        }
        for (shape, reshape) in shapes {
            seq += 1;
            let file = bank_file("bank.xml", &reshape(&paying_file(stefan, seq, Message::Notification, Version::V08)));
            let out = import(&db, &file, &[]);
            assert_eq!(out.code, 0, "{shape}: {}", out.stderr);
            assert_eq!(listed(&out), [row(&format!("2026-{seq:04}"), "applied", &format!("T{seq}"))], "{shape}");
        }
        assert!(orders.iter().all(|order| paid_at(&db, order) == "2026-03-30T10:00:00Z"));
    }

    fn entries_as_banks_book_them_are_read_and_other_creditors_left_alone(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        let (orders, stefan) = stefan_with(&db, 3);
        let isr = "210000000003139471430009017";
        let another_business = qrr(stefan + 1000, 2026, 1);
        let entries = [
            // No transaction details: the entry alone, a credit without a reference.
            Entry { details: false, ..Entry::booked("2026-03-30", "E1", vec![Tx::unstructured("cash deposit", 20000, "T1")]) },
            // No booking date: the value date serves.
            Entry { dated: camt::Dated::ValueOnly, ..Entry::booked("2026-03-31", "E2", vec![Tx::paying(&qrr(stefan, 2026, 1), 3000, "CHF", "T2")]) },
            // Neither date: not booked, left alone.
            Entry { dated: camt::Dated::Neither, ..Entry::booked("2026-03-31", "E3", vec![Tx::paying(&qrr(stefan, 2026, 2), 3100, "CHF", "T3")]) },
            // References of other creditors.
            Entry::booked("2026-03-31", "E4", vec![Tx::paying(isr, 4000, "CHF", "T4"), Tx::paying(&another_business, 5000, "CHF", "T5")]),
            Entry::booked("2026-03-31", "E5", vec![Tx::paying("RF18539007547034", 6000, "EUR", "T6")]),
        ];
        let file = bank_file("bank.xml", &camt::file(Message::Statement, Version::V08, &entries));
        let out = import(&db, &file, &[]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert_eq!(listed(&out), [row("2026-0001", "applied", "T2")]);
        assert_eq!(
            out.stderr,
            format!(
                "{} (camt.053.001.08): 6 transactions, 1 applied, 1 credit without a reference of ours ignored, \
                 3 credits with another creditor's reference left alone, 1 credit not booked (pending, or undated) ignored\n",
                file.path
            )
        );
        // Paid on its value date, noon in Zurich (summer time: 10:00 UTC).
        assert_eq!(paid_at(&db, &orders[0]), "2026-03-31T10:00:00Z");
        assert_eq!(paid_at(&db, &orders[1]), "");
        assert!(ok(&db, &["payments", "list", "--format", "json"]) == "[]");
    }

    fn a_batch_that_gives_only_its_total_is_read_and_listed(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        let (orders, stefan) = stefan_with(&db, 4);
        let pays = |seq: i64, bank: &str| Tx::paying(&qrr(stefan, 2026, seq), (29 + seq) * 100, "CHF", bank);
        let entries = [
            // One transaction of the batch without an amount: it holds the rest of the total.
            Entry { untold_amounts: 1, ..Entry::booked("2026-03-30", "E1", vec![pays(1, "T1"), pays(2, "T2")]) },
            // Two without: only the batch's total is known, so neither is applied.
            Entry { untold_amounts: 2, ..Entry::booked("2026-03-30", "E2", vec![pays(3, "T3"), pays(4, "T4")]) },
        ];
        let file = bank_file("bank.xml", &camt::file(Message::Statement, Version::V04, &entries));
        let out = import(&db, &file, &[]);
        assert_eq!(out.code, 1, "{}", out.stderr);
        assert_eq!(
            listed(&out),
            [row("2026-0001", "applied", "T1"), row("2026-0002", "applied", "T2"), row("2026-0003", "batch_total_only", "T3"), row("2026-0004", "batch_total_only", "T4")]
        );
        assert!(out.stdout.contains("gives only its total"), "{}", out.stdout);
        let paid: Vec<bool> = orders.iter().map(|order| !paid_at(&db, order).is_empty()).collect();
        assert_eq!(paid, [true, true, false, false]);
    }

    fn a_file_cut_off_anywhere_applies_nothing(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        let (orders, stefan) = stefan_with(&db, 2);
        let entries = [
            Entry::booked("2026-03-30", "E1", vec![Tx::paying(&qrr(stefan, 2026, 1), 3000, "CHF", "T1")]),
            Entry::booked("2026-03-30", "E2", vec![Tx::paying(&qrr(stefan, 2026, 2), 3100, "CHF", "T2")]),
        ];
        let whole = camt::file(Message::Notification, Version::V08, &entries);
        let first_entry_ends = whole.find("</Ntry>").unwrap() + "</Ntry>".len();
        let closing = whole.rfind("</Ntfctn>").unwrap();
        let cuts: [(&str, String); 5] = [
            ("after its first entry", whole[..first_entry_ends].to_string()),
            ("after its first entry, in whitespace", format!("{}\n  \n", &whole[..first_entry_ends])),
            ("inside a tag", whole[..first_entry_ends + 9].to_string()),
            ("missing only its closing tags", format!("{}\n", &whole[..closing])),
            ("in the envelope's last tag", { let e = camt::enveloped(&whole); e[..e.len() - 5].to_string() }),
        ];
        for (cut, xml) in cuts {
            let file = bank_file("cut.xml", &xml);
            let message = fails(&db, 65, &["payments", "import", &file.path]);
            assert!(message.starts_with(&format!("error: {}: ", file.path)), "{cut}: {message}");
            assert!(message.contains("cut off") || message.contains("not well-formed"), "{cut}: {message}");
            assert_eq!(message.lines().count(), 1, "{message}");
            assert!(orders.iter().all(|order| paid_at(&db, order).is_empty()), "{cut}: nothing applied");
        }
        assert!(payments_journaled(&db).is_empty());
        // The whole file, downloaded again, applies.
        assert_eq!(import(&db, &bank_file("bank.xml", &whole), &[]).code, 0);
        assert!(orders.iter().all(|order| !paid_at(&db, order).is_empty()));
    }

    fn a_payment_is_listed_with_its_reference_as_the_bank_carries_it_and_never_before_its_receipt(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        let (orders, stefan) = stefan_with(&db, 2);
        // The reference in groups, as the payer typed it off the slip.
        let spaced = {
            let compact = qrr(stefan, 2026, 1);
            format!("{} {}", &compact[..2], compact.as_bytes()[2..].chunks(5).map(|c| std::str::from_utf8(c).unwrap()).collect::<Vec<_>>().join(" "))
        };
        let entries = [
            Entry::booked("2026-03-30", "E1", vec![Tx::paying(&spaced, 3000, "CHF", "T1")]),
            // Invoice 2 was issued on 3 March 2026: a payment booked before it is no payment of it.
            Entry::booked("2026-03-02", "E2", vec![Tx::paying(&qrr(stefan, 2026, 2), 3100, "CHF", "T2")]),
        ];
        let file = bank_file("bank.xml", &camt::file(Message::Notification, Version::V08, &entries));
        let out = import(&db, &file, &[]);
        assert_eq!(out.code, 1, "{}", out.stderr);
        assert_eq!(listed(&out), [row("2026-0001", "applied", "T1"), row("2026-0002", "before_issue", "T2")]);
        let rows: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!(rows[0]["reference"].as_str(), Some(spaced.as_str()));
        assert_eq!(rows[1]["reason"], "booked before the invoice was issued: not its payment");
        assert_eq!(paid_at(&db, &orders[1]), "");
        let table = run(&db, &["payments", "import", &file.path]);
        assert!(table.stdout.contains(&spaced), "the table shows the reference as carried: {}", table.stdout);
    }

    fn a_listed_bank_transaction_stays_known_until_it_is_settled(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        let (orders, stefan) = stefan_with(&db, 2);
        let entries = [
            Entry::booked("2026-03-30", "E1", vec![Tx::paying(&qrr(stefan, 2026, 1), 2000, "CHF", "SHORT")]),
            Entry::booked("2026-03-30", "E2", vec![Tx::paying(&qrr(stefan, 2026, 2), 3100, "CHF", "EXACT")]),
        ];
        let file = bank_file("bank.xml", &camt::file(Message::Notification, Version::V08, &entries));
        let first = import(&db, &file, &[]);
        assert_eq!(first.code, 1, "{}", first.stderr);
        assert_eq!(listed(&first), [row("2026-0001", "partial", "SHORT"), row("2026-0002", "applied", "EXACT")]);
        let open: serde_json::Value = serde_json::from_str(&ok(&db, &["payments", "list", "--open", "--format", "json"])).unwrap();
        assert_eq!(open.as_array().unwrap().len(), 1);
        assert_eq!((open[0]["bank_reference"].as_str(), open[0]["outcome"].as_str(), open[0]["amount"].as_str()), (Some("SHORT"), Some("partial"), Some("20.00")));
        let today = db.today().to_string();
        // The customer pays the rest in cash; the stringer marks the invoice paid by hand.
        ok(&db, &["order", "edit", &orders[0], "--paid-at", "2026-04-02 10:00"]);
        // Imported again: listed before, still open; not called a double payment.
        let again = import(&db, &file, &[]);
        assert_eq!(again.code, 1, "{}", again.stderr);
        assert_eq!(listed(&again), [row("2026-0001", "partial", "SHORT"), row("2026-0002", "already_applied", "EXACT")]);
        let rows: serde_json::Value = serde_json::from_str(&again.stdout).unwrap();
        let reason = rows[0]["reason"].as_str().unwrap();
        assert!(reason.starts_with(&format!("listed before on {today}, still open")), "{reason}");
        assert!(again.stderr.contains("1 listed by an earlier import, 1 need attention"), "{}", again.stderr);
        // Settled: journaled, and no longer a reason to fail.
        let settled = run(&db, &["payments", "settle", "SHORT", "--reason", "rest paid in cash at pickup"]);
        assert_eq!(settled.code, 0, "{}", settled.stderr);
        assert!(settled.stderr.contains("SHORT") && settled.stderr.contains("2026-0001"), "{}", settled.stderr);
        let journal = journaled(&db, "settle");
        assert_eq!(journal.len(), 1);
        assert_eq!((journal[0]["numbers"].as_str(), journal[0]["reason"].as_str()), (Some("2026-0001"), Some("rest paid in cash at pickup")));
        let third = import(&db, &file, &[]);
        assert_eq!(third.code, 0, "{}", third.stderr);
        let rows: serde_json::Value = serde_json::from_str(&third.stdout).unwrap();
        assert_eq!(
            rows[0]["reason"].as_str().unwrap(),
            format!("listed before on {today} (less than the invoice asks: a partial payment), settled on {today}: rest paid in cash at pickup")
        );
        assert_eq!(ok(&db, &["payments", "list", "--open", "--format", "json"]), "[]");
        let all = ok(&db, &["payments", "list", "--format", "csv"]);
        assert!(all.lines().nth(1).unwrap().contains("rest paid in cash at pickup"), "{all}");
        // Once only, and only what was listed.
        assert_eq!(fails(&db, 1, &["payments", "settle", "SHORT", "--reason", "again"]), format!("error: bank transaction SHORT was settled already on {today}: rest paid in cash at pickup"));
        assert_eq!(fails(&db, 1, &["payments", "settle", "EXACT", "--reason", "x"]), "error: no import listed bank transaction EXACT as needing attention (see `receipts payments list`)");
        assert_eq!(fails(&db, 65, &["payments", "settle", "SHORT", "--reason", "  "]), "error: --reason is empty: say how the payment was handled");
        assert_eq!(journaled(&db, "settle").len(), 1);
    }
}
