//! `receipts receipt`: the document the customer keeps. Text receipts are snapshotted in
//! every language and state; PDFs are checked with the real tools (qpdf, poppler).

use super::*;
use crate::on_both_backends;
use std::path::Path;

/// A VAT-registered shop with a paid, an unpaid and a void receipt; returns their order ids.
fn receipts_shop(db: &TestDb) -> (String, String, String) {
    Shop::new(db).stringer(
        "stefan",
        "Stefan Muster Bespannungen",
        &[
            "--address",
            "Bahnhofstrasse 1",
            "--address",
            "8001 Zürich",
            "--email",
            "stefan@example.ch",
            "--phone",
            "+41 79 123 45 67",
            "--vat-number",
            "CHE-123.456.788 MWST",
            "--vat-rate",
            "8.1",
            "--vat-from",
            "2024-01-01",
        ],
    );
    let order = |customer: &str, price: &str| {
        Shop::new(db).order(
            "stefan",
            &[
                "--customer",
                customer,
                "--racket",
                "Wilson Pro Staff 97",
                "--string",
                "Luxilon ALU Power 1.25",
                "--tension",
                "24/23 kg",
                "--price",
                price,
                "--customer-note",
                "Grip replaced as well.",
                "--notes",
                "Internal: pays late.",
            ],
        )
    };
    let (paid, unpaid, void) =
        (order("Roger Federer", "1250"), order("Martina Hingis", "35.50"), order("Belinda Bencic", "42"));
    for (id, at) in [(&paid, "2025-11-21 14:30"), (&unpaid, "2025-11-22 09:15"), (&void, "2025-11-23 16:00")]
    {
        // CHF 1'250.00 is above the small-amount limit: numbered without the customer's
        // address on purpose (the document then shows what such a receipt shows).
        ok(db, &["mint", "--order", id, "--at", at, "--backdate", "--without-address"]);
    }
    ok(db, &["order", "edit", &paid, "--paid-at", "2025-11-24 10:00"]);
    ok(db, &["void", "--order", &void, "--reason", "racket frame cracked while stringing"]);
    (paid, unpaid, void)
}

#[test]
fn text_receipts_in_every_language_and_state() {
    let db = TestDb::sqlite().with_clock_at(TESTS_DAY);
    let (paid, unpaid, void) = receipts_shop(&db);
    for lang in ["en", "de", "fr", "it"] {
        let mut text = String::new();
        for (what, args) in [
            ("paid, 80 columns", vec!["receipt", &paid, "--lang", lang]),
            ("unpaid", vec!["receipt", &unpaid, "--lang", lang]),
            ("void", vec!["receipt", &void, "--lang", lang]),
            ("copy", vec!["receipt", &paid, "--lang", lang, "--copy"]),
            ("paid, 32 columns", vec!["receipt", &paid, "--lang", lang, "--width", "32"]),
        ] {
            let out = ok(&db, &args);
            let widest = out.lines().map(|l| l.chars().count()).max().unwrap_or(0);
            let limit = if what.contains("32") { 32 } else { 80 };
            assert!(widest <= limit, "{lang} {what}: a line of {widest} columns");
            text.push_str(&format!("===== {what}\n{}\n", masked_check(&out)));
        }
        insta::assert_snapshot!(format!("text_receipt_{lang}"), text);
    }
}

/// The document with its check value (a hash of when it was issued, new every run) masked.
fn masked_check(document: &str) -> String {
    let mut lines: Vec<String> = Vec::new();
    for line in document.lines() {
        match line.rsplit_once(' ') {
            Some((label, value)) if value.len() == 14 && value.matches('-').count() == 2 => {
                lines.push(format!("{label} ####-####-####"))
            }
            _ => lines.push(line.to_string()),
        }
    }
    lines.join("\n")
}

on_both_backends! {
    fn a_document_prints_the_check_value_of_the_journals_event_that_issued_it(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        let (paid, _, _) = receipts_shop(&db);
        let hash = |sql: &str| db.query_text(sql).expect("a hash");
        let minted = hash(&format!("SELECT hash FROM receipt_events WHERE kind = 'mint' AND order_id = {paid}"));
        let check = |hash: &str| {
            let upper = hash[..12].to_uppercase();
            format!("{}-{}-{}", &upper[..4], &upper[4..8], &upper[8..])
        };
        let document = ok(&db, &["receipt", &paid, "--lang", "de"]);
        assert!(document.contains(&format!("Prüfwert {}", check(&minted))), "{document}");
        ok(&db, &["credit", &paid, "--reason", "Storniert", "--refund", "cash"]);
        let credited = hash("SELECT hash FROM receipt_events WHERE kind = 'credit'");
        let note = ok(&db, &["receipt", "C-2026-0001"]);
        assert!(note.contains(&format!("Check {}", check(&credited))), "{note}");
        assert_ne!(minted, credited);
    }
}

/// Every word pdftotext finds, with its box: (xMin, yMin, xMax, yMax, word).
fn word_boxes(pdf: &Path) -> Vec<(f64, f64, f64, f64, String)> {
    let html = tool("pdftotext", &["-bbox", pdf.to_str().unwrap(), "-"]);
    html.lines()
        .filter_map(|line| {
            let line = line.trim().strip_prefix("<word ")?;
            let attribute = |name: &str| -> f64 {
                let start = line.find(&format!("{name}=\"")).unwrap() + name.len() + 2;
                line[start..].split('"').next().unwrap().parse().unwrap()
            };
            let word = line.split('>').nth(1)?.split('<').next()?.to_string();
            Some((attribute("xMin"), attribute("yMin"), attribute("xMax"), attribute("yMax"), word))
        })
        .collect()
}

pub(super) fn check_pdf(pdf: &Path, number: &str, expected: &[&str]) {
    let path = pdf.to_str().unwrap();
    assert!(tool("qpdf", &["--check", path]).contains("No syntax or stream encoding errors"));
    let info = tool("pdfinfo", &[path]);
    assert!(info.contains("Page size:       595.276 x 841.89 pts (A4)"), "{info}");
    assert!(info.contains("Pages:           1\n"), "{info}");
    assert!(info.contains(&format!("Title:           {number}\n")), "{info}");
    let fonts = tool("pdffonts", &[path]);
    let rows: Vec<&str> = fonts.lines().skip(2).collect();
    assert!(!rows.is_empty(), "{fonts}");
    for row in rows {
        let columns: Vec<&str> = row.split_whitespace().collect();
        let (emb, sub) = (columns[columns.len() - 5], columns[columns.len() - 4]);
        assert_eq!((emb, sub), ("yes", "yes"), "not embedded and subsetted: {row}");
    }
    let xmp = tool("pdfinfo", &["-meta", path]);
    assert!(
        xmp.contains("<pdfaid:part>2</pdfaid:part>")
            && xmp.contains("<pdfaid:conformance>B</pdfaid:conformance>")
    );
    let text = tool("pdftotext", &[path, "-"]);
    for wanted in expected {
        assert!(text.contains(wanted), "{wanted:?} is not in the PDF's text:\n{text}");
    }
}

on_both_backends! {
    fn pdf_receipts_are_pdf_a_with_embedded_fonts_and_findable_text(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        let (paid, _, void) = receipts_shop(&db);
        let dir = tempfile::tempdir().unwrap();
        let pdf = dir.path().join("paid.pdf");
        ok(&db, &["receipt", &paid, "-o", pdf.to_str().unwrap()]);
        check_pdf(&pdf, "2025-0001", &["Receipt", "No. 2025-0001", "Roger Federer", "CHF 1,250.00", "incl. 8.1 % VAT", "CHF 93.66", "Paid on 24 November 2025"]);

        let void_pdf = dir.path().join("void.pdf");
        ok(&db, &["receipt", &void, "-o", void_pdf.to_str().unwrap(), "--lang", "de"]);
        check_pdf(&void_pdf, "2025-0003", &["STORNIERT: racket frame cracked while stringing", "Rechnung", "Nr. 2025-0003"]);

        // The same order state gives the same bytes; to stdout with -o -.
        let again = receipts(&db).args(["receipt", &paid, "--format", "pdf", "-o", "-"]).output().unwrap();
        assert!(again.status.success());
        assert_eq!(again.stdout, std::fs::read(&pdf).unwrap(), "two renders differ");

        // Rendering never mints or changes anything: three mints, the payment, the void.
        assert_eq!(db.query_i64("SELECT count(*) FROM receipt_events WHERE kind <> 'profile'"), Some(5));
    }

    fn long_texts_wrap_inside_the_page(db: TestDb) {
        ok(&db, &["stringer", "add", "stefan", "--timezone", "Europe/Zurich"]);
        let name = format!("{} {}", "Maximilian-Alexander von und zu Hohenberg-Lichtenstein".repeat(4), "X".repeat(90));
        assert!(name.chars().count() >= 300);
        let notes = "The customer asked for the cross strings two pounds lower than the mains, a new overgrip in white, and the racket to be ready before the club tournament on Saturday morning. ".repeat(6);
        let order = ok(&db, &["order", "add", "--stringer", "stefan", "--customer", &name, "--customer-note", &notes, "--price", "35"]);
        ok(&db, &["mint", "--order", &order, "--at", "2025-06-01 10:00", "--backdate"]);
        let dir = tempfile::tempdir().unwrap();
        let pdf = dir.path().join("long.pdf");
        ok(&db, &["receipt", &order, "-o", pdf.to_str().unwrap()]);
        check_pdf(&pdf, "2025-0001", &["Maximilian-Alexander", "club tournament"]);
        let boxes = word_boxes(&pdf);
        assert!(boxes.len() > 100);
        let margin = 56.0;
        for (x_min, y_min, x_max, y_max, word) in &boxes {
            assert!(*x_min >= margin - 1.0 && *x_max <= 595.276 - margin + 1.0, "{word:?} runs into the margin: {x_min}..{x_max}");
            assert!(*y_min >= margin - 12.0 && *y_max <= 841.89 - margin + 1.0, "{word:?} runs off the page: {y_min}..{y_max}");
        }
        // All of the name is there, over several lines.
        let text: String = boxes.iter().map(|b| b.4.as_str()).collect();
        assert!(text.contains(&"X".repeat(90)), "the long word was lost");
    }

    fn a_year_renders_one_file_per_receipt_and_never_overwrites_a_different_file(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        receipts_shop(&db);
        ok(&db, &["stringer", "add", "anna", "--timezone", "Europe/Zurich"]);
        let other = ok(&db, &["order", "add", "--stringer", "anna", "--customer", "Someone", "--price", "30"]);
        ok(&db, &["mint", "--order", &other, "--at", "2025-03-01 10:00", "--backdate"]);
        let dir = tempfile::tempdir().unwrap();
        let out_dir = dir.path().join("2025");
        let out = run(&db, &["receipt", "--year", "2025", "--out-dir", out_dir.to_str().unwrap()]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        let mut files: Vec<String> = std::fs::read_dir(&out_dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
        files.sort();
        assert_eq!(files, ["anna-2025-0001.pdf", "stefan-2025-0001.pdf", "stefan-2025-0002.pdf", "stefan-2025-0003.pdf"]);
        check_pdf(&out_dir.join("stefan-2025-0002.pdf"), "2025-0002", &["Martina Hingis"]);
        // Again: every file is the same, nothing to write.
        let again = run(&db, &["receipt", "--year", "2025", "--out-dir", out_dir.to_str().unwrap()]);
        assert!(again.stderr.contains("0 written, 4 unchanged"), "{}", again.stderr);
        // One stringer only.
        let anna = dir.path().join("anna");
        ok(&db, &["receipt", "--year", "2025", "--stringer", "anna", "--out-dir", anna.to_str().unwrap()]);
        assert_eq!(std::fs::read_dir(&anna).unwrap().count(), 1);
        // An order changed since: its file differs and is left alone.
        ok(&db, &["order", "edit", "2", "--paid-at", "2025-12-01"]);
        let before = std::fs::read(out_dir.join("stefan-2025-0002.pdf")).unwrap();
        let changed = run(&db, &["receipt", "--year", "2025", "--out-dir", out_dir.to_str().unwrap()]);
        assert_eq!(changed.code, 73, "{}", changed.stderr);
        assert!(changed.stderr.contains("stefan-2025-0002.pdf exists already and receipt --year never overwrites a file"), "{}", changed.stderr);
        assert_eq!(std::fs::read(out_dir.join("stefan-2025-0002.pdf")).unwrap(), before);
    }

    fn a_receipt_needs_a_number_and_its_own_stringer(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        let (paid, _, _) = receipts_shop(&db);
        ok(&db, &["stringer", "add", "anna"]);
        let open = ok(&db, &["order", "add", "--stringer", "stefan", "--price", "35.00"]);
        let dir = tempfile::tempdir().unwrap();
        let pdf = dir.path().join("open.pdf");
        let message = fails(&db, 1, &["receipt", &open, "-o", pdf.to_str().unwrap()]);
        assert!(message.contains("has no receipt number yet"), "{message}");
        assert!(!pdf.exists(), "nothing was written");
        let message = fails(&db, 1, &["receipt", &paid, "--stringer", "anna"]);
        assert_eq!(message, format!("error: stringer anna has no order {paid}"));
        // By receipt number, with the stringer.
        assert!(ok(&db, &["receipt", "2025-0002", "--stringer", "stefan"]).contains("Martina Hingis"));
        let message = fails(&db, 1, &["receipt", "2025-0002", "--stringer", "anna"]);
        assert_eq!(message, "error: stringer anna has no receipt 2025-0002");
        // A PDF goes to a file, and an existing file that differs is not overwritten.
        assert!(fails(&db, 2, &["receipt", &paid, "--format", "pdf"]).contains("pass -o FILE.pdf"));
        std::fs::write(&pdf, "something else").unwrap();
        assert!(fails(&db, 73, &["receipt", &paid, "-o", pdf.to_str().unwrap()]).contains("never overwrites"));
        assert_eq!(std::fs::read_to_string(&pdf).unwrap(), "something else");
    }

    fn a_script_the_font_cannot_show_is_refused_when_it_is_entered(db: TestDb) {
        ok(&db, &["stringer", "add", "stefan"]);
        let message = fails(&db, 65, &["order", "add", "--stringer", "stefan", "--customer", "山田太郎", "--price", "30"]);
        assert_eq!(message, "error: the customer holds \"山\" (U+5C71), which receipts cannot print: write it in Latin, Greek or Cyrillic letters");
        let order = ok(&db, &["order", "add", "--stringer", "stefan", "--customer", "Yamada Taro", "--price", "30"]);
        let message = fails(&db, 65, &["order", "edit", &order, "--racket", "ヨネックス"]);
        assert!(message.contains("the racket holds \"ヨ\""), "{message}");
        assert!(fails(&db, 65, &["stringer", "edit", "stefan", "--name", "山田ストリンギング"]).contains("the name holds"));
        assert_eq!(db.query_i64("SELECT count(*) FROM orders WHERE customer LIKE '%山%' OR racket LIKE '%ヨ%'"), Some(0));
    }

    fn the_year_batch_names_a_receipt_it_cannot_write_and_goes_on(db: TestDb) {
        ok(&db, &["stringer", "add", "stefan", "--timezone", "UTC"]);
        let orders: Vec<String> =
            (0..3).map(|_| ok(&db, &["order", "add", "--stringer", "stefan", "--price", "30"])).collect();
        // An order entered before names were checked (by hand here), numbered since.
        db.execute(&format!("UPDATE orders SET customer = '山田太郎' WHERE id = {}", orders[1])).unwrap();
        for (order, at) in orders.iter().zip(["2025-03-01 10:00", "2025-03-02 10:00", "2025-03-03 10:00"]) {
            ok(&db, &["mint", "--order", order, "--at", at, "--backdate"]);
        }
        let dir = tempfile::tempdir().unwrap();
        let out = run(&db, &["receipt", "--year", "2025", "--out-dir", dir.path().to_str().unwrap()]);
        assert_eq!(out.code, 1, "{}", out.stderr);
        assert!(out.stderr.contains("receipt 2025-0002 of stefan was not written: the customer holds \"山\""), "{}", out.stderr);
        assert!(out.stderr.contains("2 written, 0 unchanged, 0 left alone because they differ, 1 failed"), "{}", out.stderr);
        for written in ["stefan-2025-0001.pdf", "stefan-2025-0003.pdf"] {
            assert!(dir.path().join(written).exists(), "{written}");
        }
        assert!(!dir.path().join("stefan-2025-0002.pdf").exists());
        // The text receipt shows it.
        assert!(ok(&db, &["receipt", &orders[1]]).contains("山田太郎"));
    }

    fn the_stringers_profile_and_language_are_on_the_next_receipt(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        let (paid, _, _) = receipts_shop(&db);
        let before = ok(&db, &["receipt", &paid]);
        ok(&db, &["stringer", "edit", "stefan", "--language", "it", "--address", "Rue du Lac 2\\n1000 Lausanne"]);
        let show = ok(&db, &["stringer", "show", "stefan"]);
        for wanted in ["Rue du Lac 2", "1000 Lausanne", "stefan@example.ch", "CHE-123.456.788 MWST", "language     it", "2025"] {
            assert!(show.contains(wanted), "{wanted}: {show}");
        }
        assert!(show.contains("2025-0004"), "the next number: {show}");
        // The receipt issued before keeps what it showed.
        assert_eq!(ok(&db, &["receipt", &paid]), before);
        // The next one shows the new profile, in its language.
        let next = ok(&db, &["order", "add", "--stringer", "stefan", "--price", "1250"]);
        ok(&db, &["mint", "--order", &next, "--at", "2025-11-25 10:00", "--backdate", "--without-address"]);
        let text = ok(&db, &["receipt", &next]);
        assert!(text.contains("FATTURA") && text.contains("CHF 1'250.00") && text.contains("IVA 8.1 % inclusa  CHF 93.66"), "{text}");
        assert!(text.contains("\nRue du Lac 2\n1000 Lausanne\n"), "{text}");
        // Without a VAT number, no VAT at all, from the next receipt on.
        ok(&db, &["stringer", "edit", "stefan", "--vat-number", ""]);
        let third = ok(&db, &["order", "add", "--stringer", "stefan", "--price", "10"]);
        ok(&db, &["mint", "--order", &third, "--at", "2025-11-26 10:00", "--backdate"]);
        assert!(!ok(&db, &["receipt", &third, "--lang", "en"]).contains("VAT"));
        assert!(ok(&db, &["receipt", &next, "--lang", "en"]).contains("VAT"));
    }
}
