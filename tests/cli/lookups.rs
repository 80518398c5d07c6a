//! What people look up: an order's whole story in `order show` and the listings (e-mail,
//! address, due date, payment reference and method), the status as the money stands, the
//! overdue invoices with their due dates, a table that fits a terminal, a customer found
//! whatever the accents; and the stringer's own racket, which is never an invoice.

use super::*;
use crate::on_both_backends;
use chrono::Datelike;

/// Stefan in Zurich paid into a QR-IBAN, payment within 10 days.
fn stefan(db: &TestDb) -> i64 {
    ok(db, &["stringer", "add", "stefan", "--name", "Stefan Muster", "--timezone", "Europe/Zurich"]);
    ok(
        db,
        &[
            "stringer",
            "edit",
            "stefan",
            "--iban",
            "CH44 3199 9123 0008 8901 2",
            "--postcode",
            "8001",
            "--town",
            "Zürich",
            "--country",
            "CH",
            "--payment-days",
            "10",
        ],
    );
    db.query_i64("SELECT id FROM stringers WHERE handle = 'stefan'").unwrap()
}

fn order(db: &TestDb, customer: &str, extra: &[&str]) -> String {
    let mut args = vec!["order", "add", "--stringer", "stefan", "--customer", customer, "--price", "35.50"];
    args.extend_from_slice(extra);
    ok(db, &args)
}

fn json(db: &TestDb, args: &[&str]) -> serde_json::Value {
    serde_json::from_str(&ok(db, args)).unwrap()
}

on_both_backends! {
    fn an_order_shows_its_whole_story_and_its_status_as_the_money_stands(db: TestDb) {
        let stefan = stefan(&db);
        let today = chrono::Utc::now().with_timezone(&chrono_tz::Europe::Zurich).date_naive();
        let paid = order(&db, "Roger", &["--email", "roger@example.com", "--customer-address", "Seestrasse 5\\n8002 Zürich"]);
        let unpaid = order(&db, "Martina", &[]);
        let overdue = order(&db, "Belinda", &[]);
        let void = order(&db, "Stan", &[]);
        let open = order(&db, "Timea", &[]);
        let own = ok(&db, &["order", "add", "--stringer", "stefan", "--kind", "self", "--price", "10"]);
        ok(&db, &["mint", "--order", &paid]);
        ok(&db, &["mint", "--order", &unpaid]);
        let long_ago = (today - chrono::Days::new(40)).format("%Y-%m-%d 10:00").to_string();
        ok(&db, &["mint", "--order", &overdue, "--at", &long_ago, "--backdate"]);
        ok(&db, &["mint", "--order", &void]);
        ok(&db, &["void", "--order", &void, "--reason", "cancelled"]);
        ok(&db, &["mint", "--order", &own]);
        // The bank pays Roger's invoice: a transfer.
        let entries = [support::camt::Entry::booked(&today.to_string(), "E1", vec![support::camt::Tx::paying(&qrr(stefan, today.year(), 1), 3550, "CHF", "T1")])];
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("bank.xml");
        std::fs::write(&file, support::camt::file(support::camt::Message::Notification, support::camt::Version::V08, &entries)).unwrap();
        ok(&db, &["payments", "import", file.to_str().unwrap()]);

        let shown = json(&db, &["order", "show", &paid, "--format", "json"]);
        assert_eq!(shown["status"], "paid");
        assert_eq!(shown["email"], "roger@example.com");
        assert_eq!(shown["customer_address"], "Seestrasse 5\n8002 Zürich");
        assert_eq!(shown["payment_method"], "transfer");
        let reference = qrr(stefan, today.year(), 1);
        let printed = format!("{} {}", &reference[..2], reference.as_bytes()[2..].chunks(5).map(|c| std::str::from_utf8(c).unwrap()).collect::<Vec<_>>().join(" "));
        assert_eq!(shown["payment_reference"], printed.as_str());
        assert!(shown["due_on"].is_null(), "a paid receipt is due no more");
        assert!(shown["customer_country"].is_null(), "an address given as lines names no country");
        let abroad = order(&db, "Angelique", &["--customer-street", "Hauptstrasse", "--customer-house-number", "3", "--customer-postcode", "10115", "--customer-town", "Berlin", "--customer-country", "DE"]);
        let shown_abroad = json(&db, &["order", "show", &abroad, "--format", "json"]);
        assert_eq!((&shown_abroad["customer_country"], &shown_abroad["customer_address"]), (&serde_json::json!("DE"), &serde_json::json!("Hauptstrasse 3\n10115 Berlin")));
        ok(&db, &["order", "delete", &abroad]);
        let text = ok(&db, &["order", "show", &paid]);
        for wanted in ["roger@example.com", "Seestrasse 5, 8002 Zürich", "transfer", printed.as_str(), "status       paid"] {
            assert!(text.contains(wanted), "{wanted}: {text}");
        }
        let unpaid_shown = json(&db, &["order", "show", &unpaid, "--format", "json"]);
        assert_eq!(unpaid_shown["due_on"], (today + chrono::Days::new(10)).to_string());
        let statuses: Vec<(String, String)> = json(&db, &["order", "list", "--format", "json"]).as_array().unwrap().iter()
            .map(|o| (o["id"].to_string(), o["status"].as_str().unwrap().to_string())).collect();
        assert_eq!(statuses, [(paid.clone(), "paid".into()), (unpaid.clone(), "unpaid".into()), (overdue.clone(), "overdue".into()), (void.clone(), "void".into()), (open.clone(), "open".into()), (own.clone(), "own".into())]);
        // CSV carries the same columns.
        let csv = ok(&db, &["order", "list", "--format", "csv"]);
        let header = csv.lines().next().unwrap();
        for column in ["email", "customer_address", "due_on", "payment_reference", "payment_method"] {
            assert!(header.split(',').any(|c| c == column), "{column}: {header}");
        }
        // The overdue list, with its due date; the own racket is never unpaid or overdue.
        let due = (today - chrono::Days::new(30)).to_string();
        let table = ok(&db, &["order", "list", "--status", "overdue"]);
        assert!(table.lines().next().unwrap().contains("due"), "{table}");
        assert!(table.contains(&due) && table.contains("Belinda") && table.lines().count() == 3, "{table}");
        let unpaid_ids: Vec<String> = json(&db, &["order", "list", "--status", "unpaid", "--format", "json"]).as_array().unwrap().iter().map(|o| o["id"].to_string()).collect();
        assert_eq!(unpaid_ids, [unpaid, overdue]);
    }

    fn the_stringers_own_racket_is_no_invoice(db: TestDb) {
        stefan(&db);
        let own = ok(&db, &["order", "add", "--stringer", "stefan", "--kind", "self", "--racket", "Pure Aero", "--price", "12.00"]);
        ok(&db, &["mint", "--order", &own]);
        let text = ok(&db, &["receipt", &own]);
        assert!(text.contains("RECEIPT") && !text.contains("INVOICE"), "{text}");
        for absent in ["Payable by", "IBAN", "Reference"] {
            assert!(!text.contains(absent), "{absent}: {text}");
        }
        let dir = tempfile::tempdir().unwrap();
        let pdf = dir.path().join("own.pdf");
        ok(&db, &["receipt", &own, "-o", pdf.to_str().unwrap()]);
        let words = tool("pdftotext", &[pdf.to_str().unwrap(), "-"]);
        assert!(!words.contains("Payment part") && !words.contains("Account / Payable to") && !words.contains("Payable by"), "no payment part: {words}");
        let shown = json(&db, &["order", "show", &own, "--format", "json"]);
        assert_eq!((shown["status"].as_str(), shown["due_on"].as_str(), shown["payment_reference"].as_str()), (Some("own"), None, None));
    }

    fn a_customer_is_found_whatever_the_accents_and_the_table_fits_a_terminal(db: TestDb) {
        stefan(&db);
        let long = "Maximilian-Alexander von Hohenzollern-Sigmaringen-Württemberg";
        let ids: Vec<String> = ["Müller", "MULLER", "Hans  Muller", long].iter().map(|name| order(&db, name, &["--racket", "Babolat Pure Aero Rafa Origin 2023 Limited", "--string", "Luxilon ALU Power Rough 1.25 / RPM Blast 1.30", "--tension", "24.5/23.5 kg"])).collect();
        for search in ["muller", "MÜLLER", "hans muller"] {
            let found: Vec<String> = json(&db, &["order", "list", "--customer", search, "--format", "json"]).as_array().unwrap().iter().map(|o| o["id"].to_string()).collect();
            let expected: Vec<String> = if search == "hans muller" { vec![ids[2].clone()] } else { ids[..3].to_vec() };
            assert_eq!(found, expected, "{search}");
        }
        assert_eq!(json(&db, &["order", "list", "--customer", "wurttemberg", "--format", "json"]).as_array().unwrap().len(), 1);
        let table = ok(&db, &["order", "list"]);
        for line in table.lines() {
            assert!(textwidth(line) <= 120, "{} columns: {line}", textwidth(line));
        }
        assert!(table.contains("Maximilian") && table.contains('…'), "{table}");
    }
}

fn textwidth(line: &str) -> usize {
    line.chars().count()
}
