//! `receipts credit` (SPEC 21): a document the customer holds taken back by a credit note in
//! its own gapless series, and what that changes everywhere the total is used: the lists of
//! what is owed, the journal, the audit, the counters, the export, the VAT report, the till,
//! the bank matching; the credit note document itself; and the refusals, which change nothing.

use super::*;
use crate::on_both_backends;
use serde_json::Value;
use support::camt::{self, Entry, Message, Tx, Version};

fn json(db: &TestDb, args: &[&str]) -> Value {
    serde_json::from_str(&ok(db, args)).unwrap_or_else(|e| panic!("{args:?}: {e}"))
}

/// How many credit notes the database holds (placeholders of lost numbers included).
fn credit_notes(db: &TestDb) -> Option<i64> {
    db.query_i64("SELECT count(*) FROM credit_notes")
}

/// A VAT-registered shop in Zurich, paid into a QR-IBAN, with invoices numbered in March.
fn vat_shop(db: &TestDb, prices: &[&str]) -> Vec<String> {
    let shop = Shop::new(db);
    let orders = shop.stefan_with_invoices(&[]);
    assert!(orders.is_empty());
    shop.profile(
        "stefan",
        &["--vat-number", "CHE-123.456.788 MWST", "--vat-rate", "8.1", "--vat-from", "2024-01-01"],
    );
    shop.invoices("stefan", "CHF", prices)
}

on_both_backends! {
    fn a_credit_note_takes_an_invoice_back_in_its_own_gapless_series(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        let orders = vat_shop(&db, &["35.00", "50.00", "20.00"]);
        let (a, b) = (&orders[0], &orders[1]);

        // A part first: the rest is still owed, and the invoice still overdue.
        assert_eq!(ok(&db, &["credit", a, "--reason", "Wrong string", "--amount", "10"]), "C-2026-0001");
        let shown = json(&db, &["order", "show", a, "--format", "json"]);
        assert_eq!((shown["status"].as_str(), shown["credited"].as_str()), (Some("overdue"), Some("10.00")));
        assert_eq!(shown["credited_by"], "C-2026-0001");
        let details = ok(&db, &["order", "show", a]);
        assert!(details.contains("credited     10.00 CHF by C-2026-0001"), "{details}");
        assert!(details.contains("credit note  C-2026-0001 10.00 CHF, not sent"), "{details}");
        let overdue = json(&db, &["order", "list", "--status", "overdue", "--format", "json"]);
        assert_eq!(overdue.as_array().unwrap().len(), 3);

        // The rest: credited in full, owed no more, listed as credited.
        assert_eq!(ok(&db, &["credit", a, "--reason", "Order cancelled"]), "C-2026-0002");
        let shown = json(&db, &["order", "show", a, "--format", "json"]);
        assert_eq!((shown["status"].as_str(), shown["due_on"].as_str()), (Some("credited"), None));
        assert_eq!(shown["credited_by"], "C-2026-0001, C-2026-0002");
        let ids = |status: &str| -> Vec<i64> {
            json(&db, &["order", "list", "--status", status, "--format", "json"])
                .as_array().unwrap().iter().map(|o| o["id"].as_i64().unwrap()).collect()
        };
        assert!(!ids("overdue").contains(&a.parse().unwrap()) && !ids("unpaid").contains(&a.parse().unwrap()));
        assert_eq!(ids("credited"), [a.parse::<i64>().unwrap()]);
        let listed = json(&db, &["order", "list", "--status", "credited", "--format", "json"]);
        assert_eq!(listed[0]["credited_by"], "C-2026-0001, C-2026-0002");

        // Asked again, a full credit names the credit note that completed it and issues nothing.
        let again = run(&db, &["credit", a, "--reason", "Order cancelled"]);
        assert_eq!((again.code, again.stdout.as_str()), (0, "C-2026-0002\n"), "{}", again.stderr);
        assert!(again.stderr.contains("credited in full already by C-2026-0002; nothing issued"), "{}", again.stderr);

        // The journal keeps the series apart: each credit with its number, original, amount, reason.
        let credits = journaled(&db, "credit");
        let summary: Vec<(&str, &str, &str, &str)> = credits
            .iter()
            .map(|e| (e["numbers"].as_str().unwrap(), e["old"].as_str().unwrap(), e["new"].as_str().unwrap(), e["reason"].as_str().unwrap()))
            .collect();
        assert_eq!(summary, [("C-2026-0001", "2026-0001", "CHF 10.00", "Wrong string"), ("C-2026-0002", "2026-0001", "CHF 25.00", "Order cancelled")]);

        // The audit checks both series 1..N.
        let audit = json(&db, &["audit", "--format", "json"]);
        let series: Vec<(&str, i64, i64)> = audit
            .as_array().unwrap().iter()
            .map(|y| (y["series"].as_str().unwrap(), y["numbers"].as_i64().unwrap(), y["counter"].as_i64().unwrap()))
            .collect();
        assert_eq!(series, [("receipts", 3, 3), ("credits", 2, 2)]);

        // The export: a row per credit note, negative, naming its original; the VAT at the
        // original's rate, the one that completes the total taking what VAT is left.
        let export = ok(&db, &["export", "--year", "2026", "--format", "json"]);
        let rows: Vec<Value> = serde_json::from_str(&export).unwrap();
        let credit_rows: Vec<(&str, &str, &str, &str, &str)> = rows
            .iter()
            .filter(|r| r["status"] == "credit")
            .map(|r| (r["receipt_number"].as_str().unwrap(), r["amount"].as_str().unwrap(), r["vat_amount"].as_str().unwrap(), r["credits"].as_str().unwrap(), r["vat_rate"].as_str().unwrap()))
            .collect();
        // VAT of 35.00 at 8.1 %: 2.62; of 10.00: 0.75; the rest takes 2.62 - 0.75 = 1.87.
        assert_eq!(credit_rows, [("C-2026-0001", "-10.00", "-0.75", "2026-0001", "8.1"), ("C-2026-0002", "-25.00", "-1.87", "2026-0001", "8.1")]);

        // The VAT report of the quarter the credit notes were issued in lowers its VAT.
        let report = ok(&db, &["vat-report", "--year", "2026", "--quarter", "4", "--format", "csv"]);
        assert!(report.contains("stefan,CHF,8.1,0,2,-35.00,-2.62,-32.38"), "{report}");
        // On the received basis, a credit of an unpaid invoice moved no money.
        let received = ok(&db, &["vat-report", "--year", "2026", "--quarter", "4", "--basis", "received", "--format", "csv"]);
        assert_eq!(received.lines().count(), 1, "{received}");

        // More than is left, nothing, less than nothing: 65, naming --amount; no reason: 2.
        let too_much = fails(&db, 65, &["credit", b, "--reason", "x", "--amount", "60"]);
        assert!(too_much.contains("--amount is CHF 60.00, more than the CHF 50.00 left to credit"), "{too_much}");
        for nothing in ["0", "-5", "ten"] {
            let refused = fails(&db, 65, &["credit", b, "--reason", "x", "--amount", nothing]);
            assert!(refused.starts_with("error: --amount "), "{refused}");
        }
        fails(&db, 2, &["credit", b, "--amount", "5"]);
        fails(&db, 65, &["credit", b, "--reason", "  "]);
        let more = fails(&db, 1, &["credit", a, "--reason", "x", "--amount", "1"]);
        assert!(more.contains("credited in full already (by C-2026-0001, C-2026-0002)"), "{more}");
        assert_eq!(credit_notes(&db), Some(2), "a refusal writes nothing");
        assert_eq!(journaled(&db, "credit").len(), 2);

        // The way to a corrected document: credited in full, then strung anew with a new number.
        let fixed = ok(&db, &["order", "restring", a]);
        ok(&db, &["order", "edit", &fixed, "--price", "30.00"]);
        assert_eq!(ok(&db, &["mint", "--order", &fixed]), "2026-0004");
        // The database itself refuses to change or forget a credit note.
        for tampering in ["UPDATE credit_notes SET amount_minor = 1", "DELETE FROM credit_notes", "UPDATE orders SET credited_minor = 0"] {
            assert!(db.execute(tampering).is_err(), "{tampering} was let through");
        }
        assert_eq!(credit_notes(&db), Some(2));
    }

    fn what_cannot_be_credited_is_refused_and_a_void_never_takes_back_what_left_the_shop(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        let shop = Shop::new(&db);
        shop.stringer("stefan", "Stefan Muster", &[]).stringer("anna", "Anna Keller", &[]);
        let open = shop.order("stefan", &["--customer", "Roger", "--price", "35"]);
        let own = ok(&db, &["order", "add", "--stringer", "stefan", "--kind", "self", "--price", "10"]);
        ok(&db, &["mint", "--order", &own, "--at", "2026-11-01 10:00"]);
        let void = shop.minted("stefan", &["--customer", "Roger", "--price", "35"], "2026-11-02 10:00");
        ok(&db, &["void", "--order", &void, "--reason", "typed twice"]);
        let paid = shop.minted("stefan", &["--customer", "Martina", "--price", "40"], "2026-11-03 10:00");
        ok(&db, &["order", "pickup", &paid, "--paid", "cash"]);
        let unpaid = shop.minted("stefan", &["--customer", "Belinda", "--price", "30"], "2026-11-04 10:00");

        let why = |order: &str| fails(&db, 1, &["credit", order, "--reason", "x"]);
        assert!(why(&open).contains("has no receipt number"), "{}", why(&open));
        assert!(why(&void).contains("is void (typed twice)"), "{}", why(&void));
        assert!(why(&own).contains("the stringer's own racket"), "{}", why(&own));
        // Another stringer's order: not found, nothing of it shown.
        let other = fails(&db, 1, &["credit", &unpaid, "--reason", "x", "--stringer", "anna"]);
        assert_eq!(other, format!("error: stringer anna has no order {unpaid}"));

        // A paid order: the credit says how the money went back.
        let refund = fails(&db, 65, &["credit", &paid, "--reason", "x"]);
        assert!(refund.contains("--refund is needed: order"), "{refund}");
        let not_paid = fails(&db, 65, &["credit", &unpaid, "--reason", "x", "--refund", "cash"]);
        assert!(not_paid.contains("--refund is cash, but order"), "{not_paid}");
        // Times: never in the future, never before the original.
        fails(&db, 65, &["credit", &unpaid, "--reason", "x", "--at", "2099-01-01 10:00"]);
        let before = fails(&db, 65, &["credit", &unpaid, "--reason", "x", "--at", "2026-11-01 10:00"]);
        assert!(before.contains("before its original 2026-0004"), "{before}");
        assert_eq!(credit_notes(&db), Some(0), "refusals write nothing");

        // A void of what the customer holds is refused, naming the credit note.
        let picked_up = fails(&db, 1, &["void", "--order", &paid, "--reason", "x"]);
        assert!(picked_up.contains("is paid") && picked_up.contains("`receipts credit"), "{picked_up}");
        let frozen = fails(&db, 1, &["order", "edit", &paid, "--price", "30"]);
        assert!(frozen.contains("take it back with a credit note (`receipts credit"), "{frozen}");

        // A refund at the counter: a line of its own in the day's till, negative.
        ok(&db, &["credit", &paid, "--reason", "Grip charged twice", "--amount", "5", "--refund", "cash"]);
        let takings = json(&db, &["takings", "--stringer", "stefan", "--format", "json"]);
        let lines: Vec<(&str, &str)> = takings.as_array().unwrap().iter().map(|l| (l["method"].as_str().unwrap(), l["amount"].as_str().unwrap())).collect();
        assert!(lines.contains(&("cash refund", "-5.00")), "{lines:?}");
        // Credited in part, the void is refused as well.
        let credited = fails(&db, 1, &["void", "--order", &paid, "--reason", "x"]);
        assert!(credited.contains("credit note"), "{credited}");

        // In time order within the series, unless backdated on purpose.
        ok(&db, &["credit", &unpaid, "--reason", "Discount", "--amount", "5", "--at", "2026-11-20 10:00", "--backdate"]);
        let out_of_order = fails(&db, 65, &["credit", &unpaid, "--reason", "x", "--amount", "5", "--at", "2026-11-19 10:00"]);
        assert!(out_of_order.contains("credit notes follow time"), "{out_of_order}");
        assert_eq!(credit_notes(&db), Some(2));
    }

    fn resync_and_void_keep_the_credit_series_whole_after_a_restore(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        let orders = Shop::new(&db).stefan_with_invoices(&["35.00", "50.00", "20.00"]);
        for order in &orders[..2] {
            ok(&db, &["credit", order, "--reason", "cancelled"]);
        }
        // A restore that lost the counter's last move: the next credit would collide.
        db.execute("UPDATE credit_counters SET last_n = 1").unwrap();
        let behind = fails(&db, 1, &["credit", &orders[2], "--reason", "cancelled"]);
        assert!(behind.contains("credit note number C-2026-0002 is already taken") && behind.contains("resync-counters"), "{behind}");
        let audit = run(&db, &["audit"]);
        assert_eq!(audit.code, 1);
        assert!(audit.stdout.contains("counter 1 is behind the highest number C-2026-0002"), "{}", audit.stdout);
        let resync = ok(&db, &["resync-counters"]);
        assert!(resync.contains("credit notes") && resync.contains("raised"), "{resync}");
        assert_eq!(ok(&db, &["credit", &orders[2], "--reason", "cancelled"]), "C-2026-0003");
        // Credit numbers the customers hold but the restore lost: voided as a range after the
        // counter, so the audit explains them.
        ok(&db, &["void", "--number", "C-2026-0004..C-2026-0005", "--reason", "lost in the restore", "--stringer", "stefan"]);
        let held = fails(&db, 1, &["void", "--number", "C-2026-0003", "--reason", "x", "--stringer", "stefan"]);
        assert!(held.contains("credit notes hold"), "{held}");
        let audit = ok(&db, &["audit"]);
        assert!(audit.contains("void C-2026-0004: lost in the restore"), "{audit}");
        assert_eq!(ok(&db, &["credit", &orders[0], "--reason", "x"]), "C-2026-0001", "credited in full already");
        let fresh = Shop::new(&db).minted("stefan", &["--customer", "Roger", "--price", "12"], "2026-11-20 10:00");
        assert_eq!(ok(&db, &["credit", &fresh, "--reason", "x"]), "C-2026-0006");
        let journal = ok(&db, &["journal", "--format", "csv"]);
        assert!(journal.contains(",void,stefan,C-2026-0004..C-2026-0005,"), "{journal}");
    }

    fn a_bank_payment_of_a_credited_invoice_needs_attention(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        let orders = Shop::new(&db).stefan_with_invoices(&["35.00", "50.00"]);
        ok(&db, &["credit", &orders[0], "--reason", "cancelled"]);
        ok(&db, &["credit", &orders[1], "--reason", "discount", "--amount", "10"]);
        let id = stringer_id(&db, "stefan");
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("camt.xml");
        let entries = [Entry::booked(
            "2026-11-25",
            "BATCH-1",
            vec![Tx::paying(&qrr(id, 2026, 1), 3500, "CHF", "TX-1"), Tx::paying(&qrr(id, 2026, 2), 4000, "CHF", "TX-2")],
        )];
        std::fs::write(&file, camt::file(Message::Statement, Version::V08, &entries)).unwrap();
        let out = run(&db, &["payments", "import", file.to_str().unwrap(), "--format", "json"]);
        let listed: Value = serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}{}", out.stdout, out.stderr));
        let outcomes: Vec<(&str, &str)> = listed
            .as_array().unwrap().iter()
            .map(|p| (p["receipt"].as_str().unwrap(), p["outcome"].as_str().unwrap()))
            .collect();
        // The rest of a part-credited invoice pays it exactly; a credited one is owed nothing.
        assert_eq!(outcomes, [("2026-0001", "credited"), ("2026-0002", "applied")], "{}", out.stderr);
        assert_eq!(json(&db, &["order", "show", &orders[1], "--format", "json"])["status"], "paid");
    }
}

on_both_backends! {
    fn the_credit_note_is_a_pdf_a_document_that_names_its_original_which_stays_as_it_was(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        let orders = vat_shop(&db, &["35.00"]);
        let a = &orders[0];
        let original = pdf(&db, a);
        assert_eq!(ok(&db, &["credit", a, "--reason", "Falsche Saite", "--amount", "10"]), "C-2026-0001");
        assert_eq!(pdf(&db, a), original, "the original stays byte for byte");

        let text = ok(&db, &["receipt", "C-2026-0001", "--lang", "de"]);
        for wanted in [
            "GUTSCHRIFT",
            "C-2026-0001",
            "zu Rechnung 2026-0001 vom 2. März 2026",
            "Stefan Muster Bespannungen",
            "MWST-Nr. CHE-123.456.788 MWST",
            "Roger Federer",
            "Gutgeschrieben",
            "CHF -10.00",
            "inkl. 8.1 % MWST  CHF -0.75",
            "Betrag nach dieser Korrektur",
            "CHF 25.00",
            "Grund          Falsche Saite",
            "Mit dem offenen Betrag verrechnet",
        ] {
            assert!(text.contains(wanted), "{wanted:?} is not on the credit note:\n{text}");
        }
        // Nothing is to be paid: no payment part, no reference.
        assert!(!text.contains("IBAN") && !text.contains("Referenz"), "{text}");
        assert_eq!(ok(&db, &["receipt", "C-2026-0001", "--lang", "de"]), text, "the same words every time");

        // The rest: the credit note that completes the total cancels the original.
        assert_eq!(ok(&db, &["credit", a, "--reason", "Storniert"]), "C-2026-0002");
        let english = ok(&db, &["receipt", "C-2026-0002"]);
        assert!(english.contains("CREDIT NOTE") && english.contains("cancels invoice 2026-0001 of 2 March 2026"), "{english}");
        assert!(english.contains("incl. 8.1 % VAT  CHF -1.87"), "{english}");
        let french = ok(&db, &["receipt", "C-2026-0002", "--lang", "fr"]);
        assert!(french.contains("NOTE DE CRÉDIT") && french.contains("annule la facture 2026-0001"), "{french}");
        let italian = ok(&db, &["receipt", "C-2026-0002", "--lang", "it"]);
        assert!(italian.contains("NOTA DI CREDITO") && italian.contains("annulla la fattura 2026-0001"), "{italian}");

        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("credit.pdf");
        ok(&db, &["receipt", "C-2026-0001", "--lang", "de", "-o", file.to_str().unwrap()]);
        super::receipt::check_pdf(&file, "C-2026-0001", &["Gutschrift", "C-2026-0001", "2026-0001", "CHF -10.00", "Falsche Saite"]);
        let images = tool("pdfimages", &["-list", file.to_str().unwrap()]);
        assert_eq!(images.lines().count(), 2, "no QR code on a credit note: {images}");

        // Another stringer's credit note, or one that does not exist: not found.
        Shop::new(&db).stringer("anna", "Anna Keller", &[]);
        let missing = fails(&db, 1, &["receipt", "C-2026-0001", "--stringer", "anna"]);
        assert_eq!(missing, "error: stringer anna has no credit note C-2026-0001");
    }

    fn the_title_follows_the_country_germany_and_france_never_say_gutschrift(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        let shop = Shop::new(&db);
        shop.stringer("anna", "Anna Saiten", &["--country", "DE", "--currency", "EUR", "--vat-number", "DE123456789", "--vat-rate", "19", "--vat-from", "2024-01-01"]);
        shop.stringer("marie", "Marie Cordage", &["--country", "FR", "--currency", "EUR", "--vat-number", "FR40303265045", "--vat-rate", "20", "--vat-from", "2024-01-01"]);
        let anna = shop.minted("anna", &["--customer", "Jan", "--price", "119", "--currency", "EUR", "--customer-address", "Hauptstr. 1, Berlin"], "2026-11-02 10:00");
        let marie = shop.minted("marie", &["--customer", "Luc", "--price", "120", "--currency", "EUR", "--customer-address", "1 rue de Rivoli, Paris"], "2026-11-02 10:00");
        ok(&db, &["credit", &anna, "--reason", "Storno"]);
        ok(&db, &["credit", &marie, "--reason", "Remise", "--amount", "60"]);
        let german = ok(&db, &["receipt", "C-2026-0001", "--stringer", "anna", "--lang", "de"]);
        assert!(german.contains("RECHNUNGSKORREKTUR") && !german.contains("GUTSCHRIFT"), "{german}");
        assert!(german.contains("storniert Rechnung 2026-0001 vom 2. November 2026") && german.contains("-119,00 €"), "{german}");
        assert!(german.contains("inkl. 19 % USt.  -19,00 €"), "{german}");
        // France: the reduction before tax, its VAT, the total after it.
        let french = ok(&db, &["receipt", "C-2026-0001", "--stringer", "marie", "--lang", "fr"]);
        for wanted in ["AVOIR", "pour la facture 2026-0001 du 2 novembre 2026", "Montant HT", "-50,00 €", "TVA 20 % incluse", "-10,00 €", "-60,00 €", "Total après cet avoir", "60,00 €"] {
            assert!(french.contains(wanted), "{wanted:?} is not on the avoir:\n{french}");
        }
    }
}
