//! VAT a tax inspector accepts (SPEC section 13): rates in force by local date, the rate and
//! the VAT on every document of a VAT-registered stringer, each country's conventions, the
//! ledger's VAT columns and the VAT report, recomputed here.

use super::*;
use crate::on_both_backends;

/// The VAT a gross amount (in cents) includes at a rate in tenths of a percent, computed
/// here with exact decimal arithmetic: gross × rate / (1000 + rate), half away from zero.
fn vat_included(gross_cents: i64, rate_tenths: i64) -> i64 {
    let numerator = gross_cents as i128 * rate_tenths as i128;
    let denominator = 1000 + rate_tenths as i128;
    let (quotient, remainder) = (numerator / denominator, numerator % denominator);
    (quotient + if 2 * remainder >= denominator { 1 } else { 0 }) as i64
}

fn cents(text: &str) -> i64 {
    let (units, fraction) = text.split_once('.').unwrap();
    units.parse::<i64>().unwrap() * 100 + fraction.parse::<i64>().unwrap()
}

/// A Zurich stringer charging Swiss VAT: 7.7 % until the end of 2023, 8.1 % since.
fn swiss_vat_shop(db: &TestDb) {
    Shop::new(db).stringer(
        "stefan",
        "Stefan Muster",
        &["--vat-number", "CHE-116.281.710 MWST", "--vat-rate", "7.7", "--vat-from", "2018-01-01"],
    );
    ok(db, &["stringer", "edit", "stefan", "--vat-rate", "8.1", "--vat-from", "2024-01-01"]);
}

fn mint_at(db: &TestDb, price: &str, at: &str) -> String {
    let order = Shop::new(db)
        .order("stefan", &["--customer", "Roger", "--customer-address", "Seestrasse 5", "--price", price]);
    ok(db, &["mint", "--order", &order, "--at", at, "--backdate"]);
    order
}

on_both_backends! {
    fn an_invoice_above_the_small_amount_limit_names_the_customers_address_before_it_is_numbered(db: TestDb) {
        swiss_vat_shop(&db);
        let take = |price: &str| run(&db, &["order", "add", "--stringer", "stefan", "--customer", "Roger", "--price", price]);
        // Said when the order is taken...
        let big = take("450");
        assert_eq!(big.code, 0);
        let order = big.stdout.trim().to_string();
        assert!(big.stderr.contains(&format!("warning: order {order} is above CHF 400, so its invoice must name the customer's address")), "{}", big.stderr);
        let small = take("399.95");
        assert!(!small.stderr.contains("warning"), "{}", small.stderr);
        // ...enforced when it is numbered: nothing issued, nothing written.
        let refused = fails(&db, 65, &["mint", "--order", &order]);
        assert_eq!(
            refused,
            format!("error: order {order} is over the small-amount limit (CHF 450.00) and its invoice must name the customer's address: set it with `receipts order edit {order} --customer-address ...`, or mint with --without-address (the journal records it)")
        );
        assert!(journaled(&db, "mint").is_empty());
        // An edit that leaves it without says so again; one that adds it is quiet, and it mints.
        assert!(run(&db, &["order", "edit", &order, "--notes", "pays late"]).stderr.contains("warning"));
        let edited = run(&db, &["order", "edit", &order, "--customer-address", "Seestrasse 5\\n8002 Zürich"]);
        assert!(!edited.stderr.contains("warning"), "{}", edited.stderr);
        assert_eq!(ok(&db, &["mint", "--order", &order]).len(), 9);
        // Or, on purpose, without it: journaled.
        let other = take("1250").stdout.trim().to_string();
        ok(&db, &["mint", "--order", &other, "--without-address"]);
        let mints = journaled(&db, "mint");
        assert_eq!(mints.len(), 2);
        assert_eq!(mints[1]["reason"], "issued without the customer's address above the small-amount limit");
        assert!(mints[0]["reason"].as_str().unwrap_or_default().is_empty(), "{}", mints[0]);
        assert!(run(&db, &["receipt", &other]).stderr.contains("names no customer address"));
        // The stringer's own racket, and a business without VAT, have no such rule.
        let own = ok(&db, &["order", "add", "--stringer", "stefan", "--kind", "self", "--price", "900"]);
        ok(&db, &["mint", "--order", &own]);
        ok(&db, &["stringer", "edit", "stefan", "--vat-number", ""]);
        let untaxed = take("900");
        assert!(!untaxed.stderr.contains("warning"), "{}", untaxed.stderr);
        ok(&db, &["mint", "--order", untaxed.stdout.trim()]);
    }

    fn a_german_invoice_above_eur_250_names_the_customers_address(db: TestDb) {
        ok(&db, &["stringer", "add", "hans", "--timezone", "Europe/Berlin"]);
        ok(&db, &["stringer", "edit", "hans", "--country", "DE", "--currency", "EUR", "--vat-number", "DE123456789", "--vat-rate", "19", "--vat-from", "2026-01-01"]);
        let order = ok(&db, &["order", "add", "--stringer", "hans", "--customer", "Boris", "--price", "250.01"]);
        assert!(fails(&db, 65, &["mint", "--order", &order]).contains("over the small-amount limit (EUR 250.01)"));
        let fine = ok(&db, &["order", "add", "--stringer", "hans", "--customer", "Boris", "--price", "250.00"]);
        ok(&db, &["mint", "--order", &fine]);
    }

    fn the_rate_is_the_one_in_force_on_the_local_strung_date(db: TestDb) {
        swiss_vat_shop(&db);
        // 23:30 on New Year's Eve in Zurich is 22:30 UTC; 00:30 on New Year's Day is 23:30 UTC
        // of the old year.
        let old = mint_at(&db, "35.50", "2023-12-31T22:30:00Z");
        let new = mint_at(&db, "35.50", "2023-12-31T23:30:00Z");
        let old_text = ok(&db, &["receipt", &old]);
        let new_text = ok(&db, &["receipt", &new]);
        let line = |rate: &str, tenths: i64| format!("incl. {rate} % VAT  CHF 2.{:02}", vat_included(3550, tenths) - 200);
        assert!(old_text.contains(&line("7.7", 77)), "{old_text}");
        assert!(new_text.contains(&line("8.1", 81)), "{new_text}");
        assert!(old_text.contains("No. 2023-0001") && new_text.contains("No. 2024-0001"));
        let show = ok(&db, &["stringer", "show", "stefan"]);
        assert!(show.contains("VAT rates    7.7 % from 2018-01-01, 8.1 % from 2024-01-01"), "{show}");
        // A rate that would change an issued receipt is refused, naming it; a later one is not.
        let message = fails(&db, 1, &["stringer", "edit", "stefan", "--vat-rate", "8.0", "--vat-from", "2023-06-01"]);
        assert!(message.contains("would change the rate that 1 issued receipt of stefan show: 2023-0001"), "{message}");
        ok(&db, &["stringer", "edit", "stefan", "--vat-rate", "8.5", "--vat-from", "2030-01-01"]);
        assert_eq!(ok(&db, &["receipt", &old]), old_text);
    }

    fn a_vat_number_without_a_rate_numbers_nothing(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        ok(&db, &["stringer", "add", "stefan", "--timezone", "Europe/Zurich"]);
        ok(&db, &["stringer", "edit", "stefan", "--vat-number", "CHE-116.281.710 MWST"]);
        let order = ok(&db, &["order", "add", "--stringer", "stefan", "--price", "30"]);
        let message = fails(&db, 65, &["mint", "--order", &order, "--at", "2026-03-01 10:00"]);
        assert!(message.contains("stringer stefan has a VAT number but no VAT rate in force on 2026-03-01") && message.contains("stringer edit stefan --vat-rate"), "{message}");
        assert_eq!(db.query_i64("SELECT count(*) FROM receipt_counters"), Some(0));
        // A small business shows no VAT, so needs no rate; its country's note instead.
        ok(&db, &["stringer", "edit", "stefan", "--small-business", "yes", "--country", "DE", "--postcode", "80331", "--town", "München"]);
        ok(&db, &["mint", "--order", &order, "--at", "2026-03-01 10:00"]);
        let text = ok(&db, &["receipt", &order, "--lang", "de"]);
        assert!(text.contains("Gemäß § 19 UStG wird keine Umsatzsteuer berechnet.") && !text.contains("inkl."), "{text}");
    }

    fn a_german_business_writes_as_germany_does(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        ok(&db, &["stringer", "add", "hans", "--name", "Hans Saiten", "--timezone", "Europe/Berlin"]);
        ok(&db, &["stringer", "edit", "hans", "--country", "DE", "--postcode", "80331", "--town", "München",
                  "--street", "Marienplatz", "--house-number", "2", "--currency", "EUR", "--vat-number", "DE123456789",
                  "--vat-rate", "19", "--vat-from", "2020-01-01", "--language", "de"]);
        // New orders take the stringer's currency.
        let order = ok(&db, &["order", "add", "--stringer", "hans", "--customer", "Boris", "--price", "1250",
                              "--customer-address", "Leopoldstraße 1\\n80802 München"]);
        ok(&db, &["mint", "--order", &order, "--at", "2026-03-01 10:00"]);
        let text = ok(&db, &["receipt", &order]);
        let vat = vat_included(125_000, 190);
        for shown in ["USt-IdNr. DE123456789", "1.250,00 €", &format!("inkl. 19 % USt.  {},{:02} €", vat / 100, vat % 100),
                      "Marienplatz 2\n80331 München", "Kunde          Boris\n               Leopoldstraße 1\n               80802 München"] {
            assert!(text.contains(shown), "{shown:?}:\n{text}");
        }
        let listed = ok(&db, &["order", "list", "--stringer", "hans"]);
        assert!(listed.contains("1250.00 EUR"), "{listed}");
        // A tax number, printed when there is no VAT number.
        ok(&db, &["stringer", "edit", "hans", "--vat-number", "", "--tax-number", "143/123/45678"]);
        let next = ok(&db, &["order", "add", "--stringer", "hans", "--price", "10"]);
        ok(&db, &["mint", "--order", &next, "--at", "2026-03-02 10:00"]);
        let text = ok(&db, &["receipt", &next]);
        assert!(text.contains("Steuernummer 143/123/45678") && !text.contains("USt"), "{text}");
    }

    fn the_ledger_and_the_report_carry_the_vat(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        swiss_vat_shop(&db);
        // Quarter boundaries in local time: 23:30 on 31 March is Q1 in Zurich (21:30 UTC), and
        // 00:30 on 1 April is Q2 (22:30 UTC on 31 March).
        let q1 = mint_at(&db, "35.50", "2026-03-31T21:30:00Z");
        let q2 = mint_at(&db, "1250.00", "2026-03-31T22:30:00Z");
        let q2b = mint_at(&db, "0.05", "2026-05-10 10:00");
        let q3_void = mint_at(&db, "99.00", "2026-07-01 10:00");
        ok(&db, &["void", "--order", &q3_void, "--reason", "cancelled"]);
        // Strung in Q1, paid in Q2; strung in Q2, paid in Q3.
        ok(&db, &["order", "edit", &q1, "--paid-at", "2026-04-02 10:00"]);
        ok(&db, &["order", "edit", &q2, "--paid-at", "2026-07-03 10:00"]);
        let _ = q2b;

        // The ledger, row by row.
        let ledger = ok(&db, &["export", "--year", "2026"]);
        let mut reader = csv::Reader::from_reader(ledger.as_bytes());
        let headers: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
        let column = |name: &str| headers.iter().position(|h| h == name).unwrap();
        for row in reader.records() {
            let row = row.unwrap();
            let gross = cents(&row[column("amount")]);
            assert_eq!(&row[column("vat_rate")], "8.1");
            let vat = vat_included(gross, 81);
            assert_eq!(cents(&row[column("vat_amount")]), vat, "{row:?}");
            assert_eq!(cents(&row[column("net_amount")]), gross - vat, "{row:?}");
        }

        // The report, recomputed: (receipts, gross, VAT) of the non-void receipts counted.
        let report = |args: &[&str]| -> Vec<Vec<String>> {
            let mut all = vec!["vat-report", "--year", "2026", "--format", "csv"];
            all.extend(args);
            let out = ok(&db, &all);
            csv::Reader::from_reader(out.as_bytes()).records().map(|r| r.unwrap().iter().map(String::from).collect()).collect()
        };
        let line = |stringer: &str, orders: &[i64]| {
            let gross: i64 = orders.iter().sum();
            let vat: i64 = orders.iter().map(|&g| vat_included(g, 81)).sum();
            let money = |c: i64| format!("{}.{:02}", c / 100, c % 100);
            vec![stringer.to_string(), "CHF".into(), if stringer == "total" { String::new() } else { "8.1".into() },
                 orders.len().to_string(), "0".into(), money(gross), money(vat), money(gross - vat)]
        };
        assert_eq!(report(&["--quarter", "1"]), [line("stefan", &[3550]), line("total", &[3550])]);
        assert_eq!(report(&["--quarter", "2"]), [line("stefan", &[125_000, 5]), line("total", &[125_000, 5])]);
        assert_eq!(report(&["--quarter", "3"]), Vec::<Vec<String>>::new(), "a void is not counted");
        assert_eq!(report(&["--quarter", "2", "--basis", "received"]), [line("stefan", &[3550]), line("total", &[3550])]);
        assert_eq!(report(&["--half", "2", "--basis", "received"]), [line("stefan", &[125_000]), line("total", &[125_000])]);
        assert_eq!(report(&["--month", "5"]), [line("stefan", &[5]), line("total", &[5])]);
        assert_eq!(report(&[]), [line("stefan", &[3550, 125_000, 5]), line("total", &[3550, 125_000, 5])]);
        let summary = run(&db, &["export", "--year", "2026"]).stderr;
        let vat: i64 = [3550, 125_000, 5].iter().map(|&g| vat_included(g, 81)).sum();
        assert!(summary.contains(&format!("VAT {}.{:02} at 8.1 %", vat / 100, vat % 100)), "{summary}");
    }

    fn a_v1_import_takes_its_rates_from_the_history(db: TestDb) {
        swiss_vat_shop(&db);
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("v1.csv");
        std::fs::write(&file, "v1_id,kind,stringer,customer,price,strung_at\n1,client,stefan,Roger,35.50,2023-12-31 23:30\n2,client,stefan,Anna,35.50,2024-01-01 00:30\n").unwrap();
        ok(&db, &["migrate-v1", file.to_str().unwrap()]);
        assert_eq!(db.query_i64("SELECT vat_rate_bp FROM orders WHERE v1_id = 1"), Some(770));
        assert_eq!(db.query_i64("SELECT vat_rate_bp FROM orders WHERE v1_id = 2"), Some(810));
    }
}
