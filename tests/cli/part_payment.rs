//! Part payments (`order pay ORDER --amount X --method M`): the invoice stays open for the
//! rest, its document and its QR-bill ask for the rest, and every sum of money (takings,
//! the closure, the VAT report on the received basis, the auditor's payments) counts each
//! part when it was paid and the payment that settles it for what was left. The bank's
//! payment of what is left settles it too. What would take more than is open is refused.

use super::*;
use crate::on_both_backends;
use serde_json::Value;

fn json(db: &TestDb, args: &[&str]) -> Value {
    serde_json::from_str(&ok(db, args)).unwrap_or_else(|e| panic!("{args:?}: {e}"))
}

/// `receipts ARGS` with the signing keys in `keys`, on the test database's clock.
fn keyed(db: &TestDb, keys: &std::path::Path, args: &[&str]) -> String {
    let out: Output = receipts(db).env("RECEIPTS_KEY_DIR", keys).args(args).output().unwrap().into();
    assert_eq!(out.code, 0, "receipts {args:?}: {}", out.stderr);
    out.stdout
}

/// A day's takings as (method, amount) pairs.
fn takings(db: &TestDb, day: &str) -> Vec<(String, String)> {
    let rows = json(db, &["takings", "--date", day, "--format", "json"]);
    rows.as_array()
        .unwrap()
        .iter()
        .map(|r| (r["method"].as_str().unwrap().to_string(), r["amount"].as_str().unwrap().to_string()))
        .filter(|(method, _)| method != "total")
        .collect()
}

on_both_backends! {
    fn a_part_payment_leaves_the_invoice_open_for_the_rest_and_every_sum_counts_it(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        let keys = tempfile::tempdir().unwrap();
        let orders = Shop::new(&db).stefan_with_invoices(&["60.00", "30.00"]);
        let (order, other) = (orders[0].as_str(), orders[1].as_str());
        keyed(&db, keys.path(), &["key", "init", "--stringer", "stefan"]);

        // More than is owed, or nothing, is refused and changes nothing.
        let more = run(&db, &["order", "pay", order, "--amount", "60.01", "--method", "cash"]);
        assert_eq!(more.code, 65, "{}", more.stderr);
        assert!(more.stderr.contains("--amount 60.01 is not a payment of order") && more.stderr.contains("it owes 60.00 CHF"), "{}", more.stderr);
        assert_eq!(run(&db, &["order", "pay", order, "--amount", "0", "--method", "cash"]).code, 65);
        assert_eq!(db.query_i64("SELECT count(*) FROM part_payments"), Some(0));

        // Picked up on 10 March, and 20.00 paid there in cash: the invoice stays open for 40.00.
        ok(&db, &["order", "pickup", order, "--at", "2026-03-10 10:55"]);
        let part = run(&db, &["order", "pay", order, "--amount", "20", "--method", "cash", "--at", "2026-03-10 11:00"]);
        assert_eq!(part.code, 0, "{}", part.stderr);
        assert!(part.stderr.contains("20.00 CHF paid in part by cash; 40.00 CHF left to pay"), "{}", part.stderr);
        let shown = json(&db, &["order", "show", order, "--format", "json"]);
        assert_eq!((shown["part_paid"].as_str(), shown["still_due"].as_str()), (Some("20.00"), Some("40.00")));
        assert_eq!(shown["paid_at"], Value::Null);
        assert_eq!((shown["part_payments"][0]["method"].as_str(), shown["part_payments"][0]["amount"].as_str()), (Some("cash"), Some("20.00")));
        let text = ok(&db, &["order", "show", order]);
        assert!(text.contains("paid in part 20.00 CHF by cash, 2026-03-10 11:00"), "{text}");
        assert!(text.contains("still due    40.00 CHF"), "{text}");
        assert_eq!(db.query_i64("SELECT count(*) FROM receipt_events WHERE kind = 'payment' AND field = 'part_paid' AND new_value = '20.00'"), Some(1));

        // The invoice says what was paid and asks for the rest, its QR-bill too.
        let dir = tempfile::tempdir().unwrap();
        let pdf = dir.path().join("invoice.pdf");
        ok(&db, &["receipt", order, "-o", pdf.to_str().unwrap(), "--lang", "en"]);
        let printed = tool("pdftotext", &["-layout", pdf.to_str().unwrap(), "-"]);
        let line = |label: &str| printed.lines().find(|l| l.contains(label)).unwrap_or_else(|| panic!("{label}:\n{printed}")).to_string();
        assert!(line("Paid so far").contains("20.00"), "{printed}");
        assert!(line("Left to pay").contains("40.00"), "{printed}");
        let codes = super::payment::codes(&pdf);
        let bill = codes.iter().map(|c| c.text()).find(|t| t.starts_with("SPC")).expect("a QR-bill");
        assert_eq!(bill.lines().nth(18), Some("40.00"), "the QR-bill asks for what is left:\n{bill}");

        // Overdue, it is reminded of the rest, the part listed.
        // (Roger has no e-mail address: it is a letter, the PDF itself.)
        let reminder = dir.path().join("reminder.pdf");
        keyed(&db, keys.path(), &["remind", order, "--dry-run", "-o", reminder.to_str().unwrap()]);
        assert!(std::fs::read(&reminder).unwrap().starts_with(b"%PDF-"));
        assert_eq!(super::remind::qr_amount_and_reference(&reminder).0, "40.00");
        let printed = tool("pdftotext", &["-layout", reminder.to_str().unwrap(), "-"]);
        let paid = printed.lines().find(|l| l.contains("Bereits bezahlt") || l.contains("Paid so far"));
        assert!(paid.is_some_and(|l| l.contains("20.00")), "{printed}");

        // An open invoice is credited at most what is left to pay.
        let credit = run(&db, &["credit", order, "--reason", "goodwill", "--amount", "45"]);
        assert_eq!(credit.code, 65, "{}", credit.stderr);
        assert!(credit.stderr.contains("is paid in part") && credit.stderr.contains("CHF 40.00 left to pay"), "{}", credit.stderr);

        // The bank pays exactly what is left: applied, the invoice is paid.
        let stefan = db.query_i64("SELECT id FROM stringers WHERE handle = 'stefan'").unwrap();
        let reference = qrr(stefan, 2026, 1);
        let camt = dir.path().join("camt.xml");
        let rest = support::camt::file(support::camt::Message::Notification, support::camt::Version::V04,
            &[support::camt::Entry::booked("2026-03-20", "E1", vec![support::camt::Tx::paying(&reference, 4000, "CHF", "T1")])]);
        std::fs::write(&camt, rest).unwrap();
        let imported = run(&db, &["payments", "import", camt.to_str().unwrap()]);
        assert_eq!(imported.code, 0, "{}", imported.stderr);
        let shown = json(&db, &["order", "show", order, "--format", "json"]);
        assert_eq!((shown["status"].as_str(), shown["payment_method"].as_str()), (Some("paid"), Some("transfer")));

        // The other invoice, paid in full at the counter by card: what is left is all of it.
        let whole = run(&db, &["order", "pay", other, "--method", "card", "--at", "2026-03-20 15:00"]);
        assert!(whole.code == 0 && whole.stderr.contains("30.00 CHF paid by card; paid in full"), "{}", whole.stderr);
        let again = run(&db, &["order", "pay", other, "--method", "card"]);
        assert!(again.code == 1 && again.stderr.contains("nothing is left to pay"), "{}", again.stderr);

        // Every sum counts each part when it was paid and the rest when it was settled.
        assert_eq!(takings(&db, "2026-03-10"), [("cash".to_string(), "20.00".to_string())]);
        let mut settled = takings(&db, "2026-03-20");
        settled.sort();
        assert_eq!(settled, [("card".to_string(), "30.00".to_string()), ("transfer".to_string(), "40.00".to_string())]);
        let received = json(&db, &["vat-report", "--year", "2026", "--quarter", "1", "--basis", "received", "--format", "json"]);
        assert_eq!((received[0]["receipts"].as_u64(), received[0]["gross"].as_str()), (Some(2), Some("90.00")), "{received}");
        let closure: Value = serde_json::from_str(&keyed(&db, keys.path(), &["close", "--stringer", "stefan", "--format", "json"])).unwrap();
        let payments = &closure.as_array().unwrap().last().unwrap()["grand_totals"]["payments"];
        let sum = |key: &str| (payments[key]["count"].as_str().unwrap_or("0").to_string(), payments[key]["amount_minor"].as_str().unwrap_or("0").to_string());
        assert_eq!(sum("cash CHF"), ("1".into(), "2000".into()), "{payments}");
        assert_eq!(sum("transfer CHF"), ("1".into(), "4000".into()), "{payments}");
        assert_eq!(sum("card CHF"), ("1".into(), "3000".into()), "{payments}");
        let audit = tempfile::tempdir().unwrap();
        let out = audit.path().join("audit");
        ok(&db, &["export", "--auditor", "--year", "2026", "--stringer", "stefan", "--out-dir", out.to_str().unwrap()]);
        let rows = std::fs::read_to_string(out.join("payments.csv")).unwrap();
        let paid: Vec<(String, String, String)> = rows
            .lines()
            .map(|l| l.split(';').map(str::to_string).collect::<Vec<_>>())
            .map(|r| (r[0].clone(), r[2].clone(), r[3].clone()))
            .collect();
        assert_eq!(paid, [
            ("2026-0001".to_string(), "cash".to_string(), "20.00".to_string()),
            ("2026-0001".to_string(), "transfer".to_string(), "40.00".to_string()),
            ("2026-0002".to_string(), "card".to_string(), "30.00".to_string()),
        ]);
        let verified = run(&db, &["audit", "--verify"]);
        assert_eq!(verified.code, 0, "{}", verified.stderr);
        // Kept for good.
        assert!(db.execute("DELETE FROM part_payments").is_err());
    }
}

on_both_backends! {
    fn a_part_paid_invoice_whose_rest_is_credited_is_settled(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        let orders = Shop::new(&db).stefan_with_invoices(&["60.00"]);
        let order = orders[0].as_str();
        ok(&db, &["order", "pickup", order, "--at", "2026-03-10 10:55"]);
        ok(&db, &["order", "pay", order, "--amount", "20", "--method", "twint", "--at", "2026-03-10 11:00"]);
        let unpaid = |db: &TestDb| json(db, &["order", "list", "--status", "unpaid", "--format", "json"]).as_array().unwrap().len();
        assert_eq!(unpaid(&db), 1);
        // The rest forgiven: nothing is left to pay, and the invoice is settled.
        ok(&db, &["credit", order, "--reason", "goodwill", "--amount", "40"]);
        let shown = json(&db, &["order", "show", order, "--format", "json"]);
        assert_eq!((shown["status"].as_str(), shown["still_due"].as_str()), (Some("paid"), Some("0.00")));
        assert_eq!(unpaid(&db), 0);
        let remind = run(&db, &["remind", order, "--dry-run"]);
        assert_ne!(remind.code, 0, "nothing to remind of: {}", remind.stdout);
        let pay = run(&db, &["order", "pay", order, "--method", "cash"]);
        assert!(pay.code == 65 && pay.stderr.contains("owes nothing"), "{}", pay.stderr);
        // What was paid stays paid: the day's takings keep the part.
        assert_eq!(json(&db, &["takings", "--date", "2026-03-10", "--format", "json"])[0]["amount"], "20.00");
    }
}
