//! The payment part (SPEC section 12): QR-bills and EPC QR codes decoded from the rendered
//! pages by a real decoder (ZXing), compared byte for byte with payloads and references
//! computed here, cross-checked with PyPI's qrbill, measured on the page.

use super::*;
use crate::on_both_backends;
use std::path::Path;

/// A QR code found on a page: its bytes, error correction level, and corners in millimetres
/// from the page's top left corner.
#[derive(Debug)]
pub(super) struct Code {
    page: usize,
    bytes: Vec<u8>,
    level: String,
    corners: Vec<(f32, f32)>,
}

impl Code {
    pub(super) fn text(&self) -> String {
        String::from_utf8(self.bytes.clone()).unwrap()
    }

    /// (left, top, width, height) in mm.
    fn frame(&self) -> (f32, f32, f32, f32) {
        let xs: Vec<f32> = self.corners.iter().map(|c| c.0).collect();
        let ys: Vec<f32> = self.corners.iter().map(|c| c.1).collect();
        let (left, right) =
            (xs.iter().cloned().fold(f32::MAX, f32::min), xs.iter().cloned().fold(0.0, f32::max));
        let (top, bottom) =
            (ys.iter().cloned().fold(f32::MAX, f32::min), ys.iter().cloned().fold(0.0, f32::max));
        (left, top, right - left, bottom - top)
    }
}

/// Every QR code on every page of a PDF, as ZXing reads them from a 300 dpi rendering.
pub(super) fn codes(pdf: &Path) -> Vec<Code> {
    let dir = tempfile::tempdir().unwrap();
    let prefix = dir.path().join("page");
    tool("pdftoppm", &["-r", "300", "-png", pdf.to_str().unwrap(), prefix.to_str().unwrap()]);
    let mut pages: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().path()).collect();
    pages.sort();
    let mut found = Vec::new();
    for (index, page) in pages.iter().enumerate() {
        let out = std::process::Command::new("ZXingReader")
            .args(["-format", "QRCode", page.to_str().unwrap()])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        let field =
            |name: &str| text.lines().find_map(|l| l.strip_prefix(name)).map(|v| v.trim().to_string());
        let Some(bytes) = field("Bytes:") else { continue };
        let px_to_mm = 25.4 / 300.0;
        found.push(Code {
            page: index + 1,
            bytes: bytes.split_whitespace().map(|b| u8::from_str_radix(b, 16).unwrap()).collect(),
            level: field("EC Level:").unwrap_or_default(),
            corners: field("Position:")
                .unwrap()
                .split_whitespace()
                .map(|p| {
                    let (x, y) = p.split_once('x').unwrap();
                    (x.parse::<f32>().unwrap() * px_to_mm, y.parse::<f32>().unwrap() * px_to_mm)
                })
                .collect(),
        });
    }
    found
}

fn pdf_of(db: &TestDb, order: &str, extra: &[&str]) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("invoice.pdf");
    let mut args = vec!["receipt", order, "-o", path.to_str().unwrap()];
    args.extend(extra);
    ok(db, &args);
    (dir, path)
}

/// The creditor reference of a receipt, computed here: RF, two ISO 11649 check digits
/// (98 minus the body followed by "RF00", letters as numbers, modulo 97), then stringer (7),
/// year (4), sequence (10).
pub(super) fn scor(stringer: i64, year: i32, seq: i64) -> String {
    let body = format!("{stringer:07}{year:04}{seq:010}");
    let digits = format!("{body}271500");
    let remainder = digits.chars().fold(0u64, |r, c| (r * 10 + u64::from(c.to_digit(10).unwrap())) % 97);
    format!("RF{:02}{body}", 98 - remainder)
}

/// PyPI's qrbill makes the same payload of the same fields, and finds nothing to refuse.
fn qrbill_agrees(payload: &str) {
    let python = std::env::var("RECEIPTS_TEST_PYTHON").expect(
        "RECEIPTS_TEST_PYTHON is not set: run the suite with scripts/test, which installs PyPI's qrbill",
    );
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/support/qrbill_check.py");
    let mut child = std::process::Command::new(python)
        .arg(script)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(payload.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "qrbill refused the payload: {}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        payload,
        "qrbill makes another payload of the same fields"
    );
}

/// A Zurich shop paid into `iban`; returns a numbered, unpaid order of `price` in `currency`.
fn shop_with_account(db: &TestDb, iban: &str, currency: &str, price: &str) -> String {
    Shop::new(db).stringer(
        "stefan",
        "Stefan Muster Bespannungen",
        &[
            "--iban",
            iban,
            "--street",
            "Bahnhofstrasse",
            "--house-number",
            "1",
            "--postcode",
            "8001",
            "--town",
            "Zürich",
            "--country",
            "CH",
            "--payment-days",
            "20",
        ],
    );
    let order = Shop::new(db).order(
        "stefan",
        &[
            "--customer",
            "Roger Federer",
            "--price",
            price,
            "--currency",
            currency,
            "--customer-street",
            "Seestrasse",
            "--customer-house-number",
            "5",
            "--customer-postcode",
            "8002",
            "--customer-town",
            "Zürich",
            "--customer-country",
            "CH",
        ],
    );
    assert_eq!(ok(db, &["mint", "--order", &order, "--at", "2026-03-02 10:00"]), "2026-0001");
    order
}

/// The payload the SIX guidelines make of the shop's invoice.
fn expected_bill(
    iban: &str,
    amount: &str,
    currency: &str,
    kind: &str,
    reference: &str,
    message: &str,
) -> String {
    [
        "SPC",
        "0200",
        "1",
        iban,
        "S",
        "Stefan Muster Bespannungen",
        "Bahnhofstrasse",
        "1",
        "8001",
        "Zürich",
        "CH",
        "",
        "",
        "",
        "",
        "",
        "",
        "",
        amount,
        currency,
        "S",
        "Roger Federer",
        "Seestrasse",
        "5",
        "8002",
        "Zürich",
        "CH",
        kind,
        reference,
        message,
        "EPD",
    ]
    .join("\n")
}

on_both_backends! {
    fn a_qr_iban_invoice_carries_a_qr_bill_with_a_qrr_reference(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        let order = shop_with_account(&db, "CH44 3199 9123 0008 8901 2", "CHF", "35.50");
        let stringer = db.query_i64("SELECT id FROM stringers WHERE handle = 'stefan'").unwrap();
        let (_dir, pdf) = pdf_of(&db, &order, &["--lang", "de"]);
        let found = codes(&pdf);
        assert_eq!(found.len(), 1, "{found:?}");
        let code = &found[0];
        let reference = qrr(stringer, 2026, 1);
        let expected = expected_bill("CH4431999123000889012", "35.50", "CHF", "QRR", &reference, "Rechnung 2026-0001");
        assert_eq!(code.text(), expected);
        assert_eq!(code.level, "M");
        qrbill_agrees(&code.text());
        // 46 mm square, at 67 mm from the left, 17 mm below the slip's top (297 - 105 mm).
        let (left, top, width, height) = code.frame();
        assert!((width - 46.0).abs() < 0.5 && (height - 46.0).abs() < 0.5, "{width} x {height} mm");
        assert!((left - 67.0).abs() < 0.5 && (top - (192.0 + 17.0)).abs() < 0.5, "at {left}, {top} mm");
        let text = tool("pdftotext", &["-layout", pdf.to_str().unwrap(), "-"]);
        for heading in ["Zahlteil", "Empfangsschein", "Konto / Zahlbar an", "Referenz", "Zusätzliche Informationen",
                        "Zahlbar durch", "Währung", "Betrag", "Annahmestelle", "Vor der Einzahlung abzutrennen",
                        "Zahlbar bis 22. März 2026"] {
            assert!(text.contains(heading), "{heading:?} is not on the invoice:\n{text}");
        }
        // The reference printed in groups: 2, then five of 5.
        let printed = format!("{} {} {} {} {} {}", &reference[..2], &reference[2..7], &reference[7..12], &reference[12..17], &reference[17..22], &reference[22..]);
        assert!(text.contains(&printed), "{printed}:\n{text}");
        // Liberation Sans on the slip, embedded; DejaVu Sans on the document.
        let fonts = tool("pdffonts", &[pdf.to_str().unwrap()]);
        for font in ["LiberationSans ", "LiberationSans-Bold", "DejaVuSans "] {
            assert!(fonts.lines().any(|l| l.contains(font) && l.contains(" yes yes ")), "{font}:\n{fonts}");
        }
        // The same invoice again: the same bytes.
        let (_again_dir, again) = pdf_of(&db, &order, &["--lang", "de"]);
        assert_eq!(std::fs::read(&again).unwrap(), std::fs::read(&pdf).unwrap());
    }

    fn a_normal_swiss_iban_takes_a_scor_reference_in_chf_and_eur(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        let order = shop_with_account(&db, "CH93 0076 2011 6238 5295 7", "EUR", "1250");
        let stringer = db.query_i64("SELECT id FROM stringers WHERE handle = 'stefan'").unwrap();
        let (_dir, pdf) = pdf_of(&db, &order, &[]);
        let code = codes(&pdf).pop().expect("a code");
        let reference = scor(stringer, 2026, 1);
        assert_eq!(code.text(), expected_bill("CH9300762011623852957", "1250.00", "EUR", "SCOR", &reference, "Invoice 2026-0001"));
        qrbill_agrees(&code.text());
        let text = tool("pdftotext", &[pdf.to_str().unwrap(), "-"]);
        let grouped: Vec<String> = reference.as_bytes().chunks(4).map(|c| String::from_utf8(c.to_vec()).unwrap()).collect();
        assert!(text.contains(&grouped.join(" ")), "{text}");
        for heading in ["Payment part", "Receipt", "Account / Payable to", "Separate before paying in", "Payable by 22 March 2026"] {
            assert!(text.contains(heading), "{heading:?}:\n{text}");
        }
        // The text document names the same payment details.
        let plain = ok(&db, &["receipt", &order]);
        for line in ["IBAN           CH93 0076 2011 6238 5295 7", &format!("Reference      {}", grouped.join(" ")), "Payable by     22 March 2026", "Amount         EUR 1,250.00"] {
            assert!(plain.contains(line), "{line}:\n{plain}");
        }
    }

    fn a_euro_account_abroad_takes_an_epc_code(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        ok(&db, &["stringer", "add", "hans", "--name", "Hans Saiten", "--timezone", "Europe/Berlin"]);
        ok(&db, &["stringer", "edit", "hans", "--iban", "DE89 3704 0044 0532 0130 00", "--bic", "COBADEFFXXX",
                  "--currency", "EUR", "--country", "DE", "--postcode", "80331", "--town", "München", "--language", "de"]);
        let order = ok(&db, &["order", "add", "--stringer", "hans", "--customer", "Boris", "--price", "35.50"]);
        ok(&db, &["mint", "--order", &order, "--at", "2026-03-02 10:00"]);
        let stringer = db.query_i64("SELECT id FROM stringers WHERE handle = 'hans'").unwrap();
        let (_dir, pdf) = pdf_of(&db, &order, &[]);
        let code = codes(&pdf).pop().expect("a code");
        let reference = scor(stringer, 2026, 1);
        let expected = ["BCD", "002", "1", "SCT", "COBADEFFXXX", "Hans Saiten", "DE89370400440532013000", "EUR35.5", "", &reference].join("\n");
        assert_eq!(code.text(), expected);
        assert!(code.bytes.len() <= 331);
        assert_eq!(code.level, "M");
        let (_, _, width, _) = code.frame();
        assert!(width >= 30.0, "{width} mm");
        let text = tool("pdftotext", &[pdf.to_str().unwrap(), "-"]);
        for shown in ["Mit der Banking-App", "scannen und bezahlen", "DE89 3704 0044 0532 0130 00", "COBADEFFXXX", "35,50 €", "Zahlbar bis 1. April 2026"] {
            assert!(text.contains(shown), "{shown:?}:\n{text}");
        }
    }

    fn paid_void_and_other_invoices_carry_no_payment_part(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        let order = shop_with_account(&db, "CH93 0076 2011 6238 5295 7", "CHF", "35.50");
        // A copy of an unpaid invoice keeps it.
        let (_dir, copy) = pdf_of(&db, &order, &["--copy"]);
        assert_eq!(codes(&copy).len(), 1);
        ok(&db, &["order", "edit", &order, "--paid-at", "2026-03-03 10:00"]);
        let (_dir, paid) = pdf_of(&db, &order, &[]);
        assert!(codes(&paid).is_empty(), "a paid receipt has no slip");
        assert!(!ok(&db, &["receipt", &order]).contains("IBAN"));
        // Another currency: no payment part.
        let usd = ok(&db, &["order", "add", "--stringer", "stefan", "--price", "40", "--currency", "USD"]);
        ok(&db, &["mint", "--order", &usd, "--at", "2026-03-04 10:00"]);
        let (_dir, pdf) = pdf_of(&db, &usd, &[]);
        assert!(codes(&pdf).is_empty());
        assert!(ok(&db, &["receipt", &usd]).contains("Payable by"), "a due date all the same");
        // Void: none.
        let void = ok(&db, &["order", "add", "--stringer", "stefan", "--price", "40"]);
        ok(&db, &["mint", "--order", &void, "--at", "2026-03-05 10:00"]);
        ok(&db, &["void", "--order", &void, "--reason", "cancelled"]);
        let (_dir, pdf) = pdf_of(&db, &void, &[]);
        assert!(codes(&pdf).is_empty());
    }

    fn what_the_payment_part_shows_is_frozen_with_the_invoice(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        let order = shop_with_account(&db, "CH93 0076 2011 6238 5295 7", "CHF", "35.50");
        let (_dir, before) = pdf_of(&db, &order, &[]);
        ok(&db, &["stringer", "edit", "stefan", "--iban", "CH44 3199 9123 0008 8901 2", "--town", "Bern", "--postcode", "3000"]);
        let (_dir, after) = pdf_of(&db, &order, &[]);
        assert_eq!(std::fs::read(&after).unwrap(), std::fs::read(&before).unwrap());
        let next = ok(&db, &["order", "add", "--stringer", "stefan", "--customer", "Anna", "--price", "20"]);
        ok(&db, &["mint", "--order", &next, "--at", "2026-03-03 10:00"]);
        let (_dir, pdf) = pdf_of(&db, &next, &[]);
        let text = codes(&pdf).pop().unwrap().text();
        assert!(text.starts_with("SPC\n0200\n1\nCH4431999123000889012\nS\nStefan Muster Bespannungen\nBahnhofstrasse\n1\n3000\nBern\nCH\n"), "{text}");
        assert!(text.contains("\nQRR\n"), "{text}");
    }

    fn text_a_bank_would_reject_is_refused_where_it_is_entered(db: TestDb) {
        ok(&db, &["stringer", "add", "stefan", "--timezone", "Europe/Zurich"]);
        let message = fails(&db, 65, &["stringer", "edit", "stefan", "--iban", "CH93 0076 2011 6238 5295 8"]);
        assert!(message.contains("is not an IBAN"), "{message}");
        let message = fails(&db, 65, &["stringer", "edit", "stefan", "--iban", "CH93 0076 2011 6238 5295 7"]);
        assert!(message.contains("need the stringer's structured address"), "{message}");
        let message = fails(&db, 65, &["stringer", "edit", "stefan", "--street", "Ωmega-Strasse"]);
        assert!(message.contains("the street holds \"Ω\" (U+03A9), which a QR-bill cannot carry"), "{message}");
        let message = fails(&db, 65, &["stringer", "edit", "stefan", "--town", &"Z".repeat(36)]);
        assert!(message.contains("the town has 36 characters, and a QR-bill takes at most 35"), "{message}");
        assert!(fails(&db, 65, &["stringer", "edit", "stefan", "--country", "XX"]).contains("not a country code"));
        assert!(fails(&db, 65, &["stringer", "edit", "stefan", "--bic", "ABC"]).contains("not a BIC"));
        ok(&db, &["stringer", "edit", "stefan", "--iban", "CH93 0076 2011 6238 5295 7", "--postcode", "8001",
                  "--town", "Zürich", "--country", "ch"]);
        let show = ok(&db, &["stringer", "show", "stefan"]);
        assert!(show.contains("CH93 0076 2011 6238 5295 7") && show.contains("CH-8001 Zürich"), "{show}");
        // A name a QR-bill cannot carry, once the account is Swiss.
        let message = fails(&db, 65, &["stringer", "edit", "stefan", "--name", "Stefan Ωmega"]);
        assert!(message.contains("the name holds \"Ω\""), "{message}");
        // The customer's structured address, when the order is taken.
        let message = fails(&db, 65, &["order", "add", "--stringer", "stefan", "--price", "30", "--customer", "Anna",
                                       "--customer-street", "Ωmega-Weg", "--customer-postcode", "8000", "--customer-town", "Zürich",
                                       "--customer-country", "CH"]);
        assert!(message.contains("the customer street holds \"Ω\""), "{message}");
        let message = fails(&db, 65, &["order", "add", "--stringer", "stefan", "--price", "30", "--customer-town", "Zürich"]);
        assert!(message.contains("--customer-postcode is missing"), "{message}");
        assert!(fails(&db, 2, &["order", "add", "--stringer", "stefan", "--price", "1000000000"]).contains("is not a price"));
        assert_eq!(db.query_i64("SELECT count(*) FROM orders"), Some(0));
    }

    fn a_slip_without_room_goes_on_a_page_of_its_own(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        ok(&db, &["stringer", "add", "stefan", "--timezone", "Europe/Zurich"]);
        ok(&db, &["stringer", "edit", "stefan", "--iban", "CH93 0076 2011 6238 5295 7", "--postcode", "8001",
                  "--town", "Zürich", "--country", "CH"]);
        let note = "Strung with care, checked twice, and ready on Friday. ".repeat(45);
        let order = ok(&db, &["order", "add", "--stringer", "stefan", "--price", "30", "--customer-note", &note]);
        ok(&db, &["mint", "--order", &order, "--at", "2026-03-02 10:00"]);
        let (_dir, pdf) = pdf_of(&db, &order, &[]);
        assert!(tool("pdfinfo", &[pdf.to_str().unwrap()]).contains("Pages:           2\n"));
        let found = codes(&pdf);
        assert_eq!(found.iter().map(|c| c.page).collect::<Vec<_>>(), [2]);
        // The year's batch makes the same invoices.
        let dir = tempfile::tempdir().unwrap();
        ok(&db, &["receipt", "--year", "2026", "--out-dir", dir.path().to_str().unwrap()]);
        assert_eq!(std::fs::read(dir.path().join("stefan-2026-0001.pdf")).unwrap(), std::fs::read(&pdf).unwrap());
    }
}

on_both_backends! {
    fn a_french_business_prints_its_siret_and_is_paid_to_its_account_holder(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        ok(&db, &["stringer", "add", "lea", "--name", "Cordage Léa", "--timezone", "Europe/Paris"]);
        assert_eq!(
            fails(&db, 65, &["stringer", "edit", "lea", "--siret", "732 829 320 00075"]),
            "error: --siret: \"732 829 320 00075\" is not a SIRET: its check digit does not match (a typo?)"
        );
        assert!(fails(&db, 65, &["stringer", "edit", "lea", "--siret", "7328"]).contains("a SIRET has 14 digits"));
        ok(&db, &["stringer", "edit", "lea", "--siret", "732 829 320 00074", "--tax-number", "FR-FISC-42", "--iban", "FR76 3000 6000 0112 3456 7890 189",
                  "--account-holder", "Léa Martin", "--currency", "EUR", "--country", "FR", "--postcode", "69001", "--town", "Lyon", "--language", "fr"]);
        let show = ok(&db, &["stringer", "show", "lea"]);
        assert!(show.contains("SIRET        732 829 320 00074") && show.contains("holder       Léa Martin"), "{show}");
        let order = ok(&db, &["order", "add", "--stringer", "lea", "--customer", "Jean", "--price", "28.00"]);
        ok(&db, &["mint", "--order", &order, "--at", "2026-03-02 10:00"]);
        let text = ok(&db, &["receipt", &order]);
        assert!(text.contains("SIRET 732 829 320 00074"), "{text}");
        assert!(text.contains("N° fiscal FR-FISC-42") && !text.contains("SIRET FR-FISC"), "the tax number is no SIRET: {text}");
        assert!(text.contains("Léa Martin"), "the account holder among the payment details: {text}");
        let (_dir, pdf) = pdf_of(&db, &order, &[]);
        let code = codes(&pdf).pop().expect("an EPC code");
        assert_eq!(code.text().lines().nth(5), Some("Léa Martin"), "the beneficiary is the account holder");
        // Going back to the business name applies from the next document on.
        ok(&db, &["stringer", "edit", "lea", "--account-holder", ""]);
        assert!(ok(&db, &["receipt", &order]).contains("Léa Martin"), "the issued document keeps its holder");
        let next = ok(&db, &["order", "add", "--stringer", "lea", "--customer", "Paul", "--price", "28.00"]);
        ok(&db, &["mint", "--order", &next, "--at", "2026-03-03 10:00"]);
        let (_dir, pdf) = pdf_of(&db, &next, &[]);
        assert_eq!(codes(&pdf).pop().unwrap().text().lines().nth(5), Some("Cordage Léa"));
    }

    fn a_qr_bill_names_the_account_holder_as_its_creditor(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        let order = shop_with_account(&db, "CH44 3199 9123 0008 8901 2", "CHF", "35.50");
        let message = fails(&db, 65, &["stringer", "edit", "stefan", "--account-holder", "Ωmega Ltd"]);
        assert!(message.contains("the account holder holds \"Ω\""), "{message}");
        ok(&db, &["stringer", "edit", "stefan", "--account-holder", "Stefan Muster"]);
        let next = ok(&db, &["order", "add", "--stringer", "stefan", "--customer", "Anna", "--price", "20"]);
        ok(&db, &["mint", "--order", &next, "--at", "2026-03-03 10:00"]);
        let (_dir, pdf) = pdf_of(&db, &next, &[]);
        let text = codes(&pdf).pop().unwrap().text();
        assert!(text.starts_with("SPC\n0200\n1\nCH4431999123000889012\nS\nStefan Muster\nBahnhofstrasse\n"), "{text}");
        let (_dir, first) = pdf_of(&db, &order, &[]);
        assert!(codes(&first).pop().unwrap().text().contains("\nStefan Muster Bespannungen\n"), "the issued one keeps its creditor");
    }
}
