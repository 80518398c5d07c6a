//! `receipts remind` (SPEC 22): an unpaid invoice chased in three levels, each a frozen
//! document e-mailed through a real SMTP server on loopback (`support::smtp`), its payment
//! part decoded by ZXing; once per invoice and level, the days lived with `faketime`; what
//! is never reminded; the bank file that pays the open amount and a fee; and the failures,
//! which record nothing, or leave an issued reminder that the next run sends unchanged.

use super::payment::codes;
use super::*;
use crate::on_both_backends;
use mail_parser::{MessageParser, MimeHeaders};
use serde_json::Value;
use support::camt::{self, Entry, Message, Tx, Version};
use support::smtp::{Behaviour, Sink};

fn json(db: &TestDb, args: &[&str]) -> Value {
    serde_json::from_str(&ok(db, args)).unwrap_or_else(|e| panic!("{args:?}: {e}"))
}

/// A German-speaking Zurich shop paid into a QR-IBAN, sending from stefan@example.ch, with
/// fees on levels 2 and 3; its invoices are numbered in March (20 days to pay).
fn mailing_shop(db: &TestDb) -> Shop<'_> {
    let shop = Shop::new(db);
    shop.stefan_with_invoices(&[]);
    shop.profile(
        "stefan",
        &[
            "--email",
            "stefan@example.ch",
            "--language",
            "de",
            "--reminder-fee",
            "2=5.00",
            "--reminder-fee",
            "3=10",
        ],
    );
    shop
}

/// An invoice of `price` for a customer with `email` (if any), numbered on `day` of March and
/// picked up unpaid: the customer has it. Returns its order id.
fn handed_over(db: &TestDb, price: &str, email: Option<&str>, day: u32) -> String {
    let mut flags = vec!["--customer", "Roger Müller", "--price", price];
    if let Some(email) = email {
        flags.extend(["--email", email]);
    }
    let at = format!("2026-03-{day:02} 10:00");
    let order = Shop::new(db).minted("stefan", &flags, &at);
    ok(db, &["order", "pickup", &order]);
    order
}

/// `receipts remind ARGS` at `when` (UTC) with the mail server `url`.
fn remind(db: &TestDb, when: &str, url: &str, args: &[&str]) -> Output {
    let keys = tempfile::tempdir().unwrap();
    at(db, keys.path(), when, &[&["remind", "--smtp-url", url], args].concat())
}

/// A message the server took: its subject, its PDF attachment (written to `dir`), its text.
fn opened(data: &[u8], dir: &std::path::Path) -> (String, std::path::PathBuf, String) {
    let message = MessageParser::default().parse(data).unwrap();
    let attachment = message.attachments().next().expect("a PDF attached");
    let name = attachment.attachment_name().unwrap().to_string();
    let path = dir.join(&name);
    std::fs::write(&path, attachment.contents()).unwrap();
    let body = message.body_text(0).unwrap().into_owned();
    (message.subject().unwrap().to_string(), path, body)
}

/// A PDF's text as pdftotext reads it.
fn text_of(pdf: &std::path::Path) -> String {
    tool("pdftotext", &["-layout", pdf.to_str().unwrap(), "-"])
}

/// The amount and reference a QR-bill's payload carries (SIX IG 2.3: lines 19 and 29).
pub(super) fn qr_amount_and_reference(pdf: &std::path::Path) -> (String, String) {
    let found = codes(pdf);
    assert_eq!(found.len(), 1, "one payment part");
    let text = found[0].text();
    let lines: Vec<&str> = text.split('\n').collect();
    (lines[18].to_string(), lines[28].to_string())
}

/// The journal's reminder entries: (order, level, what it asked), and their hashes.
fn reminder_events(db: &TestDb) -> Vec<(i64, String, String)> {
    journaled(db, "reminder")
        .iter()
        .map(|e| {
            (
                e["order"].as_i64().unwrap(),
                e["old"].as_str().unwrap().into(),
                e["new"].as_str().unwrap().into(),
            )
        })
        .collect()
}

fn reminders(db: &TestDb) -> i64 {
    db.query_i64("SELECT count(*) FROM reminders").unwrap()
}

on_both_backends! {
    fn an_invoice_is_chased_in_three_levels_each_once_with_its_payment_part(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        mailing_shop(&db);
        let a = handed_over(&db, "55.00", Some("roger@example.com"), 2);
        let b = handed_over(&db, "50.00", Some("eva@example.com"), 3);
        ok(&db, &["credit", &b, "--reason", "Rabatt", "--amount", "10"]);
        let sink = Sink::start(Behaviour::Accept);
        let url = sink.url(None);
        let id = stringer_id(&db, "stefan");
        let dir = tempfile::tempdir().unwrap();

        // The first run: a payment reminder for each, the open amount on the payment part
        // with the invoice's own reference.
        let out = remind(&db, "2026-12-01 09:00:00", &url, &["--due"]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert!(out.stderr.contains("2 reminders went, 0 to print, 0 failed"), "{}", out.stderr);
        assert!(out.stderr.contains("stefan: no bank file was imported yet"), "{}", out.stderr);
        let received = sink.received();
        assert_eq!(received.len(), 2);
        let (subject, pdf, body) = opened(&received[0].data, dir.path());
        assert_eq!(subject, "Zahlungserinnerung – Rechnung 2026-0001 – Stefan Muster Bespannungen");
        assert_eq!(received[0].to, ["roger@example.com"]);
        assert!(body.contains("Unsere Rechnung 2026-0001 vom 2. März 2026, fällig am 22. März 2026, ist noch nicht bezahlt."), "{body}");
        assert!(body.contains("Zu zahlen: CHF 55.00"), "{body}");
        assert!(pdf.ends_with("stefan-2026-0001-reminder-1.pdf"));
        // A PDF/A document of its own, titled by the invoice and its level.
        super::receipt::check_pdf(&pdf, "2026-0001/1", &["Zahlungserinnerung", "Rechnung 2026-0001"]);
        assert_eq!(qr_amount_and_reference(&pdf), ("55.00".to_string(), qrr(id, 2026, 1)));
        let text = text_of(&pdf);
        for wanted in ["Zahlungserinnerung", "Rechnung 2026-0001", "Offener Betrag", "Bitte bezahlen Sie bis zum 11. Dezember 2026."] {
            assert!(text.contains(wanted), "{wanted} in:\n{text}");
        }
        assert!(!text.contains("Mahngebühr"), "no fee on level 1 unless set:\n{text}");
        // The check value is the hash of the journal's event that issued it.
        let hash = db
            .query_text(&format!("SELECT hash FROM receipt_events WHERE kind = 'reminder' AND order_id = {a}"))
            .unwrap()
            .to_uppercase();
        let check = format!("{}-{}-{}", &hash[..4], &hash[4..8], &hash[8..12]);
        assert!(text.contains(&check), "check value {check} in:\n{text}");
        // A credited part is not owed: the open amount is the rest.
        let (_, pdf_b, _) = opened(&received[1].data, dir.path());
        assert_eq!(qr_amount_and_reference(&pdf_b), ("40.00".to_string(), qrr(id, 2026, 2)));
        assert!(text_of(&pdf_b).contains("Gutgeschrieben"), "{}", text_of(&pdf_b));
        assert_eq!(
            reminder_events(&db),
            [(a.parse().unwrap(), "1".into(), "CHF 55.00 + 0.00 until 2026-12-11".into()),
             (b.parse().unwrap(), "1".into(), "CHF 40.00 + 0.00 until 2026-12-11".into())]
        );

        // Run again the same day, nothing goes: the next level waits for its days.
        let out = remind(&db, "2026-12-01 18:00:00", &url, &["--due"]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert!(out.stderr.contains("0 reminders went, 0 to print, 0 failed, 2 overdue not due yet"), "{}", out.stderr);
        assert_eq!(sink.received().len(), 2);
        // Asked for one on purpose, it says what was sent when.
        let out = remind(&db, "2026-12-01 18:00:00", &url, &[&a]);
        assert_eq!(out.code, 1, "{}", out.stderr);
        assert!(out.stderr.contains("reminder 1 was sent to roger@example.com on 2026-12-01 10:00"), "{}", out.stderr);
        assert!(out.stderr.contains("reminder 1 of invoice 2026-0001 gives until 2026-12-11: not overdue yet"), "{}", out.stderr);

        // Past the reminder's due date, on purpose: the second level with its fee, on the
        // payment part too (the open amount and this level's fee).
        let out = remind(&db, "2026-12-12 09:00:00", &url, &[&a]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert!(out.stderr.contains("sent reminder 2 of invoice 2026-0001"), "{}", out.stderr);
        let (subject, pdf, _) = opened(&sink.received()[2].data, dir.path());
        assert!(subject.starts_with("1. Mahnung – Rechnung 2026-0001"), "{subject}");
        assert_eq!(qr_amount_and_reference(&pdf), ("60.00".to_string(), qrr(id, 2026, 1)));
        assert!(text_of(&pdf).contains("Mahngebühr"), "{}", text_of(&pdf));

        // A month on, the run: the final reminder of one (its own fee, not the sum), the
        // second of the other.
        let out = remind(&db, "2027-01-10 09:00:00", &url, &["--due"]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        let received = sink.received();
        assert_eq!(received.len(), 5);
        let (subject, pdf, _) = opened(&received[3].data, dir.path());
        assert!(subject.starts_with("Letzte Mahnung – Rechnung 2026-0001"), "{subject}");
        assert_eq!(qr_amount_and_reference(&pdf).0, "65.00");
        let final_pdf = std::fs::read(&pdf).unwrap();
        assert!(opened(&received[4].data, dir.path()).0.starts_with("1. Mahnung – Rechnung 2026-0002"));

        // Never a fourth; --again sends the final one once more, unchanged.
        let out = remind(&db, "2027-03-01 09:00:00", &url, &[&a]);
        assert_eq!(out.code, 1, "{}", out.stderr);
        assert!(out.stderr.contains("had its final reminder on 2027-01-10: there is no fourth"), "{}", out.stderr);
        let out = remind(&db, "2027-03-01 09:00:00", &url, &[&a, "--again"]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        let again_dir = tempfile::tempdir().unwrap();
        let (_, again, _) = opened(&sink.received()[5].data, again_dir.path());
        assert_eq!(std::fs::read(&again).unwrap(), final_pdf, "sent again, byte for byte");
        let levels: Vec<String> = reminder_events(&db).into_iter().map(|(_, level, _)| level).collect();
        assert_eq!(levels, ["1", "1", "2", "3", "2"]);
        assert_eq!(reminders(&db), 5);
        let sends: Vec<String> = journaled(&db, "send").iter().map(|e| e["field"].as_str().unwrap_or_default().to_string()).collect();
        assert_eq!(sends.len(), 6, "each message the server accepted is journaled: {sends:?}");

        // The level shows in the lists, and a reminded invoice cannot be voided.
        let overdue = ok(&db, &["order", "list", "--status", "overdue"]);
        let row = overdue.lines().find(|line| line.contains("2026-0001")).unwrap();
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        assert!(cells.windows(3).any(|w| w == ["overdue", "", "3"]), "status, credit notes, reminder: {overdue}");
        let listed = json(&db, &["order", "list", "--status", "overdue", "--format", "json"]);
        let levels: Vec<(i64, &str)> = listed.as_array().unwrap().iter()
            .map(|o| (o["reminder_level"].as_i64().unwrap(), &o["reminded_at"].as_str().unwrap()[..10]))
            .collect();
        assert_eq!(levels, [(3, "2027-01-10"), (2, "2027-01-10")]);
        let shown = json(&db, &["order", "show", &a, "--format", "json"]);
        assert_eq!(shown["reminder_level"], 3);
        let refused = fails(&db, 1, &["void", "--order", &a, "--reason", "oops"]);
        assert!(refused.contains("credit"), "{refused}");

        // The chain verifies with the reminders in it, and the auditor's export lists the
        // year's reminders with their check values.
        ok(&db, &["audit", "--verify"]);
        let exported = tempfile::tempdir().unwrap();
        ok(&db, &["export", "--auditor", "--year", "2026", "--out-dir", exported.path().to_str().unwrap()]);
        let rows = std::fs::read_to_string(exported.path().join("reminders.csv")).unwrap();
        let rows: Vec<Vec<&str>> = rows.lines().map(|l| l.split(';').collect()).collect();
        let summary: Vec<(&str, &str, &str, &str, &str)> = rows.iter().map(|r| (r[0], r[1], r[2], r[6], r[9])).collect();
        assert_eq!(summary, [
            ("2026-0001", "1", "01.12.2026", "55.00", "email"),
            ("2026-0002", "1", "01.12.2026", "40.00", "email"),
            ("2026-0001", "2", "12.12.2026", "60.00", "email"),
        ]);
        assert_eq!(rows[0][11], check, "the check value the document prints");
    }
}

on_both_backends! {
    fn a_bank_payment_of_the_open_amount_or_with_a_reminders_fee_pays_the_invoice(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        mailing_shop(&db).profile("stefan", &["--vat-number", "CHE-123.456.788 MWST", "--vat-rate", "8.1", "--vat-from", "2024-01-01"]);
        let orders: Vec<String> = (2..=5).map(|day| handed_over(&db, "55.00", Some("roger@example.com"), day)).collect();
        let sink = Sink::start(Behaviour::Accept);
        let url = sink.url(None);
        assert_eq!(remind(&db, "2026-12-01 09:00:00", &url, &["--due"]).code, 0);
        for order in &orders[..3] {
            let out = remind(&db, "2026-12-12 09:00:00", &url, &[order]);
            assert_eq!(out.code, 0, "{}", out.stderr);
        }
        let id = stringer_id(&db, "stefan");
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("camt.xml");
        let entries = [Entry::booked(
            "2026-12-15",
            "BATCH-1",
            vec![
                Tx::paying(&qrr(id, 2026, 1), 6000, "CHF", "TX-1"),
                Tx::paying(&qrr(id, 2026, 2), 5500, "CHF", "TX-2"),
                Tx::paying(&qrr(id, 2026, 3), 5700, "CHF", "TX-3"),
                Tx::paying(&qrr(id, 2026, 4), 6000, "CHF", "TX-4"),
            ],
        )];
        std::fs::write(&file, camt::file(Message::Statement, Version::V08, &entries)).unwrap();
        let out = run(&db, &["payments", "import", file.to_str().unwrap(), "--format", "json"]);
        let listed: Value = serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}{}", out.stdout, out.stderr));
        let outcomes: Vec<(&str, &str)> = listed
            .as_array().unwrap().iter()
            .map(|p| (p["receipt"].as_str().unwrap(), p["outcome"].as_str().unwrap()))
            .collect();
        // The open amount and the fee; the open amount; something else; a fee never asked.
        assert_eq!(outcomes, [("2026-0001", "applied"), ("2026-0002", "applied"), ("2026-0003", "over"), ("2026-0004", "over")]);
        assert_eq!(db.query_i64("SELECT fee_minor FROM payments WHERE bank_reference = 'TX-1'"), Some(500));
        assert_eq!(db.query_i64("SELECT fee_minor FROM payments WHERE bank_reference = 'TX-2'"), Some(0));
        let payment = &journaled(&db, "payment")[0];
        assert!(payment["reason"].as_str().unwrap().contains("CHF 60.00 paid (with the reminder fee 5.00)"), "{payment}");

        // A fee is outside the VAT base: the report has the two invoices' 110.00, not the 115.00 paid.
        let vat = ok(&db, &["vat-report", "--year", "2026", "--quarter", "4", "--basis", "received", "--format", "csv"]);
        assert!(vat.contains("stefan,CHF,8.1,2,0,110.00,8.24,101.76") && !vat.contains("115.00"), "{vat}");

        // The day's closure counts the money received: the fee too.
        let keys = tempfile::tempdir().unwrap();
        ok_at(&db, keys.path(), "2026-12-20 10:00:00", &["key", "init", "--stringer", "stefan"]);
        ok_at(&db, keys.path(), "2026-12-20 10:00:00", &["close", "--stringer", "stefan"]);
        let grand = db.query_text("SELECT grand_totals FROM closures ORDER BY seq DESC LIMIT 1").unwrap();
        assert!(grand.contains("\"transfer CHF\":{\"amount_minor\":\"11500\",\"count\":\"2\"}"), "55.00 and 60.00: {grand}");

        // The run says up to when payments are known, and chases nobody who paid; a bank
        // transaction that waits for attention stops the reminders of its invoice.
        let out = remind(&db, "2027-01-10 09:00:00", &url, &["--due", "--dry-run"]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert!(out.stderr.contains("stefan: payments booked after 2026-12-15 are not known yet"), "{}", out.stderr);
        assert!(!out.stdout.contains("2026-0001") && !out.stdout.contains("2026-0002"), "{}", out.stdout);
        assert!(!out.stdout.contains("2026-0003") && !out.stdout.contains("2026-0004"), "waiting in payments list --open: {}", out.stdout);
        let refused = remind(&db, "2027-01-10 09:00:00", &url, &[&orders[2]]);
        assert_eq!(refused.code, 1);
        assert!(refused.stderr.contains("names invoice 2026-0003 and waits in `receipts payments list --open`"), "{}", refused.stderr);

        // A reminder's fee lowered behind the program's back: the journal names it.
        ok(&db, &["audit", "--verify"]);
        let unguarded = match db.backend {
            Backend::Postgres => "ALTER TABLE reminders DISABLE TRIGGER USER;",
            Backend::Sqlite => "DROP TRIGGER reminders_frozen_on_update;",
        };
        db.execute(&format!("{unguarded} UPDATE reminders SET fee_minor = 0 WHERE level = 2 AND order_id = {}", orders[0])).unwrap();
        let audit = run(&db, &["audit", "--verify"]);
        assert_eq!(audit.code, 1, "{}", audit.stderr);
        let all = format!("{}{}", audit.stdout, audit.stderr);
        assert!(all.contains(&format!("the reminder it issued (order {}, level 2) no longer matches it", orders[0])), "{all}");
    }
}

on_both_backends! {
    fn order_show_and_the_reminder_agree_on_what_is_still_due(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        mailing_shop(&db);
        let order = handed_over(&db, "90.00", Some("roger@example.com"), 2);
        let shown = json(&db, &["order", "show", &order, "--format", "json"]);
        assert_eq!((shown["due_minor"].as_i64(), shown["still_due"].as_str()), (Some(9000), Some("90.00")));
        let credit = ok(&db, &["credit", &order, "--reason", "grip not fitted", "--amount", "30"]);
        let text = ok(&db, &["order", "show", &order]);
        assert!(text.contains(&format!("credited     30.00 CHF by {credit}")), "{text}");
        assert!(text.contains("still due    60.00 CHF"), "{text}");
        let shown = json(&db, &["order", "show", &order, "--format", "json"]);
        assert_eq!((shown["due_minor"].as_i64(), shown["still_due"].as_str()), (Some(6000), Some("60.00")));
        // The reminder asks the same.
        let url = Sink::start(Behaviour::Accept).url(None);
        let out = remind(&db, "2026-12-01 09:00:00", &url, &["--due", "--dry-run", "--format", "json"]);
        let rows: Value = serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}{}", out.stdout, out.stderr));
        assert_eq!(rows[0]["open"].as_str(), Some("60.00"), "{rows}");
        // Paid: nothing is due any more, and the text says no more than that it was paid.
        ok(&db, &["order", "edit", &order, "--paid-at", "2026-11-30 10:00"]);
        let shown = json(&db, &["order", "show", &order, "--format", "json"]);
        assert_eq!(shown["due_minor"].as_i64(), Some(0));
        assert!(!ok(&db, &["order", "show", &order]).contains("still due"));
    }
}

/// `order list` as a terminal of `columns` shows it.
fn order_list_in(db: &TestDb, columns: &str) -> String {
    let out: Output = receipts(db).env("COLUMNS", columns).args(["order", "list"]).output().unwrap().into();
    assert_eq!(out.code, 0, "{}", out.stderr);
    out.stdout
}

on_both_backends! {
    fn the_order_list_never_cuts_what_the_status_says(db: TestDb) {
    let db = db.with_clock_at(TESTS_DAY);
    mailing_shop(&db);
    let long = ["--racket", "Babolat Pure Aero Rafa Origin (T17)", "--string", "Babolat RPM Blast Rough 1.30 / VS Touch 1.30"];
    let credited = Shop::new(&db).minted("stefan", &[&["--customer", "Roger Müller-Brunner", "--price", "90", "--email", "roger@example.com"][..], &long[..]].concat(), "2026-03-02 10:00");
    ok(&db, &["order", "pickup", &credited]);
    ok(&db, &["credit", &credited, "--reason", "grip not fitted", "--amount", "30"]);
    let url = Sink::start(Behaviour::Accept).url(None);
    assert_eq!(remind(&db, "2026-12-01 09:00:00", &url, &[&credited]).code, 0);
    let taken_back = Shop::new(&db).minted("stefan", &[&["--customer", "Iga", "--price", "35"][..], &long[..]].concat(), "2026-03-03 10:00");
    ok(&db, &["credit", &taken_back, "--reason", "racket returned"]);
    Shop::new(&db).minted("stefan", &["--customer", "Stan", "--price", "40"], "2026-03-04 10:00");
    for columns in [80, 120] {
        let table = order_list_in(&db, &columns.to_string());
        let split = |line: &str| -> Vec<String> { line.split('|').map(|cell| cell.trim().to_string()).collect() };
        let headers = split(table.lines().next().unwrap());
        let cell = |id: &str, header: &str| {
            let row = table.lines().find(|line| line.starts_with(&format!(" {id} "))).unwrap();
            split(row)[headers.iter().position(|h| h == header).unwrap()].clone()
        };
        // The status, the credit note and the reminder level, each whole in a column of its own.
        for (id, said) in [("1", ["overdue", "C-2026-0001", "1"]), ("2", ["credited", "C-2026-0002", ""])] {
            let shown = ["status", "credit notes", "reminder"].map(|header| cell(id, header));
            assert_eq!(shown, said, "{columns} columns:\n{table}");
        }
        assert!(table.lines().all(|line| line.chars().count() <= columns), "{columns} columns:\n{table}");
        insta::assert_snapshot!(format!("order_list_{columns}_columns"), table);
    }
    }
}

on_both_backends! {
    fn an_invoice_whose_partial_bank_payment_waits_for_attention_is_held_back(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        mailing_shop(&db);
        let paid_in_part = handed_over(&db, "55.00", Some("roger@example.com"), 2);
        let other = handed_over(&db, "40.00", Some("eva@example.com"), 3);
        // The customer paid 20.00 of 55.00 by transfer: listed, and waiting for somebody.
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("camt.xml");
        let id = stringer_id(&db, "stefan");
        let entries = [Entry::booked("2026-11-20", "E-1", vec![Tx::paying(&qrr(id, 2026, 1), 2000, "CHF", "PART")])];
        std::fs::write(&file, camt::file(Message::Notification, Version::V08, &entries)).unwrap();
        assert_eq!(run(&db, &["payments", "import", file.to_str().unwrap()]).code, 1, "a partial payment needs attention");
        let sink = Sink::start(Behaviour::Accept);
        let url = sink.url(None);
        let said = format!("held back: order {paid_in_part} of stefan: a bank transaction of CHF 20.00 booked on 2026-11-20 names invoice 2026-0001 and waits in `receipts payments list --open`");
        for args in [&["--due", "--dry-run"][..], &["--due"][..]] {
            let out = remind(&db, "2026-12-01 09:00:00", &url, args);
            assert_eq!(out.code, 0, "{args:?}: {}", out.stderr);
            assert!(out.stderr.contains(&said), "{args:?}: {}", out.stderr);
            assert!(out.stderr.contains("1 held back by the bank"), "{args:?}: {}", out.stderr);
            assert!(!out.stdout.contains("2026-0001"), "{args:?}: {}", out.stdout);
        }
        // The other invoice was reminded, this one not.
        let reminded: Vec<i64> = reminder_events(&db).iter().map(|(order, _, _)| *order).collect();
        assert_eq!(reminded, [other.parse::<i64>().unwrap()]);
        assert_eq!(sink.received().len(), 1);
        // Settled, it is chased again.
        ok(&db, &["payments", "settle", "PART", "--reason", "the customer pays the rest in cash"]);
        let out = remind(&db, "2026-12-01 10:00:00", &url, &["--due", "--dry-run"]);
        assert!(out.stdout.contains("2026-0001") && !out.stderr.contains("held back: "), "{}{}", out.stdout, out.stderr);
    }
}

on_both_backends! {
    fn what_is_never_reminded_is_refused_saying_why_and_issues_nothing(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        mailing_shop(&db);
        let url = Sink::start(Behaviour::Accept).url(None);
        let paid = handed_over(&db, "30.00", Some("a@example.com"), 2);
        ok(&db, &["order", "edit", &paid, "--paid-at", "2026-03-05 10:00", "--method", "transfer"]);
        let void = Shop::new(&db).minted("stefan", &["--customer", "X", "--price", "20", "--email", "x@example.com"], "2026-03-03 10:00");
        ok(&db, &["void", "--order", &void, "--reason", "typo"]);
        let credited = handed_over(&db, "40.00", Some("c@example.com"), 4);
        ok(&db, &["credit", &credited, "--reason", "cancelled"]);
        let own = Shop::new(&db).minted("stefan", &["--kind", "self"], "2026-03-05 10:00");
        let shelf = Shop::new(&db).minted("stefan", &["--customer", "Y", "--price", "35", "--email", "y@example.com"], "2026-03-06 10:00");
        let before = handed_over(&db, "25.00", Some("b@example.com"), 7);
        let recent = Shop::new(&db).minted("stefan", &["--customer", "Z", "--price", "35", "--email", "z@example.com"], "2026-11-26 10:00");
        ok(&db, &["order", "pickup", &recent]);
        for (order, why) in [
            (&paid, "2026-0001 is paid (on 2026-03-05)"),
            (&void, "2026-0002 is void (typo)"),
            (&credited, "2026-0003 is credited in full (by C-2026-0001), so nothing is owed"),
            (&own, "2026-0004 is the stringer's own racket"),
            (&shelf, "the customer has not got invoice 2026-0005: the racket waits for pickup and the invoice was never sent"),
            (&recent, "invoice 2026-0007 is due on 2026-12-16: not overdue yet"),
        ] {
            let out = remind(&db, "2026-12-01 09:00:00", &url, &[order]);
            assert_eq!(out.code, 1, "{why}: {}", out.stderr);
            assert!(out.stderr.contains(why), "{why} in: {}", out.stderr);
        }
        ok(&db, &["stringer", "edit", "stefan", "--remind-from", "2026-03-08"]);
        let out = remind(&db, "2026-12-01 09:00:00", &url, &[&before]);
        assert!(out.stderr.contains("numbered before the stringer's --remind-from 2026-03-08"), "{}", out.stderr);
        assert_eq!(reminders(&db), 0);
        let out = remind(&db, "2026-12-01 09:00:00", &url, &["--due"]);
        assert!(out.stderr.contains("0 reminders went"), "{}", out.stderr);
        assert_eq!((reminders(&db), journaled(&db, "reminder").len()), (0, 0));
        // Sent by e-mail, the invoice is the customer's: then it is reminded (the date limit
        // removed again).
        ok(&db, &["stringer", "edit", "stefan", "--remind-from", ""]);
        let sent = run(&db, &["send", &shelf, "--smtp-url", &url]);
        assert_eq!(sent.code, 0, "{}", sent.stderr);
        let out = remind(&db, "2026-12-01 09:00:00", &url, &["--due"]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert_eq!(reminders(&db), 2, "the sent invoice and the one before the limit: {}", out.stderr);
    }
}

on_both_backends! {
    fn a_failed_send_records_nothing_or_leaves_the_reminder_for_the_next_run_unchanged(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        mailing_shop(&db);
        let a = handed_over(&db, "55.00", Some("roger@example.com"), 2);
        let b = handed_over(&db, "45.00", Some("gone@example.com"), 3);

        // No server said: the flag to pass (a usage error, 2), nothing issued.
        let keys = tempfile::tempdir().unwrap();
        let out = at(&db, keys.path(), "2026-12-01 09:00:00", &["remind", "--due"]);
        assert_eq!(out.code, 2, "{}", out.stderr);
        assert!(out.stderr.contains("--smtp-url"), "{}", out.stderr);
        assert_eq!(reminders(&db), 0);

        // No server there: exit 69, nothing issued.
        let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("smtp://{}", closed.local_addr().unwrap());
        drop(closed);
        let out = remind(&db, "2026-12-01 09:00:00", &url, &["--due"]);
        assert_eq!(out.code, 69, "{}", out.stderr);
        assert_eq!((reminders(&db), journaled(&db, "reminder").len()), (0, 0));

        // One recipient refused: the run goes on past it (exit 1), the refused reminder is
        // issued and not sent.
        let refusing = Sink::start(Behaviour::RefuseRecipient("gone@example.com".into()));
        let out = remind(&db, "2026-12-01 09:00:00", &refusing.url(None), &["--due"]);
        assert_eq!(out.code, 1, "{}", out.stderr);
        assert!(out.stderr.contains("1 reminder went, 0 to print, 1 failed"), "{}", out.stderr);
        assert_eq!(refusing.received().len(), 1);
        assert_eq!(reminders(&db), 2);
        assert_eq!(journaled(&db, "send").len(), 1);

        // The next run, days later, sends that reminder as it was issued: same level, same
        // due date and check value; no second level.
        ok(&db, &["order", "edit", &b, "--email", "eva@example.com"]);
        let sink = Sink::start(Behaviour::Accept);
        let out = remind(&db, "2026-12-05 09:00:00", &sink.url(None), &["--due"]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        let received = sink.received();
        assert_eq!(received.len(), 1);
        assert_eq!(received[0].to, ["eva@example.com"]);
        let dir = tempfile::tempdir().unwrap();
        let (subject, pdf, _) = opened(&received[0].data, dir.path());
        assert!(subject.starts_with("Zahlungserinnerung – Rechnung 2026-0002"), "{subject}");
        let text = text_of(&pdf);
        assert!(text.contains("11. Dezember 2026"), "the due date it was issued with:\n{text}");
        assert_eq!(reminders(&db), 2);
        assert_eq!(journaled(&db, "reminder").len(), 2);
        let _ = a;
    }
}

on_both_backends! {
    fn a_customer_without_e_mail_gets_a_pdf_for_the_post(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        mailing_shop(&db);
        let order = handed_over(&db, "35.00", None, 2);
        let url = Sink::start(Behaviour::Accept).url(None);
        // Without --out-dir: listed to print, nothing issued.
        let out = remind(&db, "2026-12-01 09:00:00", &url, &["--due"]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert!(out.stderr.contains("to print: reminder 1 of invoice 2026-0001"), "{}", out.stderr);
        assert_eq!(reminders(&db), 0);
        let dir = tempfile::tempdir().unwrap();
        let out_dir = dir.path().to_str().unwrap();
        let out = remind(&db, "2026-12-01 09:00:00", &url, &["--due", "--out-dir", out_dir]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        let pdf = dir.path().join("stefan-2026-0001-reminder-1.pdf");
        assert!(text_of(&pdf).contains("Zahlungserinnerung"));
        assert_eq!(qr_amount_and_reference(&pdf).0, "35.00");
        assert_eq!(db.query_i64("SELECT count(*) FROM reminders WHERE printed_at IS NOT NULL"), Some(1));
        // Run again: nothing new; a different file where the next one goes is refused (73).
        let out = remind(&db, "2026-12-01 10:00:00", &url, &["--due", "--out-dir", out_dir]);
        assert!(out.stderr.contains("0 reminders went"), "{}", out.stderr);
        std::fs::write(dir.path().join("stefan-2026-0001-reminder-2.pdf"), b"something else").unwrap();
        let out = remind(&db, "2026-12-20 09:00:00", &url, &[&order, "--out-dir", out_dir]);
        assert_eq!(out.code, 73, "{}", out.stderr);
        assert_eq!(std::fs::read(dir.path().join("stefan-2026-0001-reminder-2.pdf")).unwrap(), b"something else");
        assert_eq!(reminders(&db), 1, "nothing issued");
        // A run of the due ones likewise: the file that is there is named, and nothing of the
        // run is issued (the second reminder of the first, whose file is free now, neither).
        std::fs::remove_file(dir.path().join("stefan-2026-0001-reminder-2.pdf")).unwrap();
        let other = handed_over(&db, "20.00", None, 3);
        let taken = dir.path().join("stefan-2026-0002-reminder-1.pdf");
        std::fs::write(&taken, b"another shop's letter").unwrap();
        let out = remind(&db, "2026-12-20 09:00:00", &url, &["--due", "--out-dir", out_dir]);
        assert_eq!(out.code, 73, "{}", out.stderr);
        assert!(out.stderr.contains(&taken.display().to_string()), "{}", out.stderr);
        assert_eq!(out.stderr.trim_end().lines().count(), 1, "{}", out.stderr);
        assert_eq!(std::fs::read(&taken).unwrap(), b"another shop's letter");
        assert_eq!(reminders(&db), 1, "nothing issued, of {order} nor of {other}");
    }
}

on_both_backends! {
    fn fees_follow_the_country_and_bad_settings_are_refused(db: TestDb) {
        Shop::new(&db).stringer("hans", "Hans", &["--country", "DE", "--currency", "EUR"]);
        Shop::new(&db).stringer("marie", "Marie", &["--country", "FR", "--currency", "EUR"]);
        let refused = fails(&db, 65, &["stringer", "edit", "hans", "--reminder-fee", "1=2.50"]);
        assert!(refused.contains("in Germany the first reminder puts the customer in default"), "{refused}");
        ok(&db, &["stringer", "edit", "hans", "--reminder-fee", "2=2.50"]);
        let refused = fails(&db, 65, &["stringer", "edit", "marie", "--reminder-fee", "3=5"]);
        assert!(refused.contains("in France a reminder asks no fee"), "{refused}");
        for (flag, wanted) in [("4=5", "a reminder's level is 1, 2 or 3"), ("2=five", "is not a price"), ("2", "write LEVEL=PRICE")] {
            let refused = fails(&db, 65, &["stringer", "edit", "hans", "--reminder-fee", flag]);
            assert!(refused.contains(wanted), "{flag}: {refused}");
        }
        fails(&db, 2, &["stringer", "edit", "hans", "--remind-every", "0"]);
        assert_eq!(db.query_i64("SELECT reminder_fee_2_minor FROM stringers WHERE handle = 'hans'"), Some(250));
        let shown = ok(&db, &["stringer", "show", "hans"]);
        assert!(shown.contains("reminders    7 days after the due date, then every 14 days; fees 1: none, 2: 2.50, 3: none"), "{shown}");
        assert_eq!(db.query_i64("SELECT count(*) FROM stringers WHERE reminder_fee_1_minor IS NOT NULL"), Some(0));
    }
}

on_both_backends! {
    fn a_german_invoice_is_reminded_with_its_epc_code_and_no_fee_on_the_first_reminder(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        Shop::new(&db).stringer("hans", "Hans Saiten", &["--iban", "DE89 3704 0044 0532 0130 00", "--bic", "COBADEFFXXX",
            "--currency", "EUR", "--country", "DE", "--postcode", "80331", "--town", "München", "--language", "de",
            "--email", "hans@example.de", "--reminder-fee", "2=2.50"]);
        let flags = ["--customer", "Boris", "--price", "35.50", "--email", "boris@example.de"];
        let order = Shop::new(&db).minted("hans", &flags, "2026-03-02 10:00");
        ok(&db, &["order", "pickup", &order]);
        let sink = Sink::start(Behaviour::Accept);
        let url = sink.url(None);
        let reference = super::payment::scor(stringer_id(&db, "hans"), 2026, 1);
        let dir = tempfile::tempdir().unwrap();
        let epc = |pdf: &std::path::Path| codes(pdf).pop().expect("an EPC code").text();
        assert_eq!(remind(&db, "2026-12-01 09:00:00", &url, &["--due"]).code, 0);
        let (subject, pdf, _) = opened(&sink.received()[0].data, dir.path());
        assert!(subject.starts_with("Zahlungserinnerung – Rechnung 2026-0001"), "{subject}");
        let expected = ["BCD", "002", "1", "SCT", "COBADEFFXXX", "Hans Saiten", "DE89370400440532013000", "EUR35.5", "", &reference].join("\n");
        assert_eq!(epc(&pdf), expected, "the open amount, the invoice's reference, no fee");
        assert_eq!(remind(&db, "2026-12-12 09:00:00", &url, &[&order]).code, 0);
        let (subject, pdf, _) = opened(&sink.received()[1].data, dir.path());
        assert!(subject.starts_with("1. Mahnung – Rechnung 2026-0001"), "{subject}");
        assert!(epc(&pdf).contains("\nEUR38\n"), "the open amount and the second level's fee: {}", epc(&pdf));
        assert!(text_of(&pdf).contains("Mahngebühr"), "{}", text_of(&pdf));
    }
}

#[test]
fn a_server_gone_half_way_stops_the_run_and_the_issued_reminder_goes_with_the_next() {
    let db = TestDb::sqlite().with_clock_at(TESTS_DAY);
    mailing_shop(&db);
    handed_over(&db, "55.00", Some("roger@example.com"), 2);
    handed_over(&db, "45.00", Some("eva@example.com"), 3);
    // It answers the check, takes the first message, and never says whether it accepted it.
    let stalling = Sink::start(Behaviour::StallAfterData);
    let out = remind(&db, "2026-12-01 09:00:00", &stalling.url(None), &["--due"]);
    assert_eq!(out.code, 69, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("the run stopped: a reminder issued and not sent goes unchanged with the next run"),
        "{}",
        out.stderr
    );
    assert_eq!(
        (reminders(&db), journaled(&db, "send").len()),
        (1, 0),
        "the first issued, nothing journaled as sent"
    );
    let sink = Sink::start(Behaviour::Accept);
    let out = remind(&db, "2026-12-01 10:00:00", &sink.url(None), &["--due"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!((sink.received().len(), reminders(&db)), (2, 2));
    // Nothing was issued when the server is not there from the start: no such words.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("smtp://{}", closed.local_addr().unwrap());
    drop(closed);
    let out = remind(&db, "2026-12-20 09:00:00", &url, &["--due"]);
    assert_eq!(out.code, 69, "{}", out.stderr);
    assert!(!out.stderr.contains("the run stopped"), "{}", out.stderr);
}

#[test]
fn orders_brought_in_by_migrate_v1_are_never_reminded() {
    let db = TestDb::sqlite();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("v1.csv");
    std::fs::write(
        &file,
        "v1_id,kind,stringer,customer,racket,string,tension,price,ordered_at,strung_at,paid_at,notes\n\
         1,client,vera,Max,Pure Aero,RPM Blast,24 kg,45.00,2026-03-01,2026-03-02 10:00,,\n",
    )
    .unwrap();
    ok(&db, &["migrate-v1", file.to_str().unwrap(), "--timezone", "Europe/Zurich"]);
    let unpaid = db
        .query_i64("SELECT min(id) FROM orders WHERE v1_kind IS NOT NULL AND receipt_number IS NOT NULL AND paid_at IS NULL AND kind = 'client' AND price_minor > 0 AND voided_at IS NULL")
        .expect("the file's unpaid invoice")
        .to_string();
    ok(&db, &["order", "pickup", &unpaid]);
    let url = Sink::start(Behaviour::Accept).url(None);
    let out = remind(&db, "2026-12-01 09:00:00", &url, &[&unpaid]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stderr.contains("was brought in by migrate-v1"), "{}", out.stderr);
    let out = remind(&db, "2026-12-01 09:00:00", &url, &["--due", "--dry-run"]);
    assert_eq!(
        (out.code, out.stdout.lines().count()),
        (0, 2),
        "a table without rows: {}{}",
        out.stdout,
        out.stderr
    );
    assert_eq!(reminders(&db), 0);
}

#[test]
fn a_dry_run_writes_the_message_and_issues_nothing() {
    let db = TestDb::sqlite().with_clock_at(TESTS_DAY);
    mailing_shop(&db);
    let order = handed_over(&db, "55.00", Some("roger@example.com"), 2);
    let dir = tempfile::tempdir().unwrap();
    let eml = dir.path().join("reminder.eml");
    let keys = tempfile::tempdir().unwrap();
    let out = at(
        &db,
        keys.path(),
        "2026-12-01 09:00:00",
        &["remind", &order, "--dry-run", "-o", eml.to_str().unwrap()],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let message = std::fs::read(&eml).unwrap();
    let (subject, pdf, _) = opened(&message, dir.path());
    assert!(subject.starts_with("Zahlungserinnerung – Rechnung 2026-0001"), "{subject}");
    assert_eq!(qr_amount_and_reference(&pdf).0, "55.00");
    assert_eq!(reminders(&db), 0);
    // In the invoice's language: an invoice issued in Italian is reminded in Italian.
    ok(&db, &["stringer", "edit", "stefan", "--language", "it"]);
    let italian = handed_over(&db, "30.00", Some("gianni@example.com"), 3);
    let out = at(&db, keys.path(), "2026-12-01 09:00:00", &["remind", &italian, "--dry-run"]);
    let (subject, pdf, body) = opened(out.stdout.as_bytes(), dir.path());
    assert!(subject.starts_with("Sollecito di pagamento – Fattura 2026-0002"), "{subject}");
    assert!(body.contains("non è ancora stata pagata"), "{body}");
    assert!(text_of(&pdf).contains("Importo aperto"), "{}", text_of(&pdf));
    // The same file again is no change; a different one is refused.
    std::fs::write(&eml, b"other").unwrap();
    let out = at(
        &db,
        keys.path(),
        "2026-12-01 09:00:00",
        &["remind", &order, "--dry-run", "-o", eml.to_str().unwrap()],
    );
    assert_eq!(out.code, 73, "{}", out.stderr);
}
