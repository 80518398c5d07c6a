//! The till by country (SPEC 23): where the law wants payments at the counter recorded by a
//! certified till (Germany's TSE, Austria's RKSV, France's NF 525 for a VAT-registered
//! seller, Italy's registratore telematico), every path that records one refuses what the
//! program may not take, in one line naming the law and the way out (`till`), and writes
//! nothing; `till` records a payment the shop's own till took, listed apart and never
//! counted as the program's takings.

use super::*;
use crate::on_both_backends;
use serde_json::Value;

fn json(db: &TestDb, args: &[&str]) -> Value {
    serde_json::from_str(&ok(db, args)).unwrap_or_else(|e| panic!("{args:?}: {e}"))
}

/// A stringer of `profile` with `count` orders of CHF/EUR 30 strung; their ids.
fn strung(db: &TestDb, handle: &str, profile: &[&str], count: usize) -> Vec<String> {
    Shop::new(db).stringer(handle, "Saiten", profile);
    (0..count)
        .map(|_| {
            let order = ok(db, &["order", "add", "--stringer", handle, "--customer", "Iga", "--price", "30"]);
            ok(db, &["mint", "--order", &order]);
            order
        })
        .collect()
}

/// The order as `order show` tells it: (picked up, paid, method).
fn state(db: &TestDb, order: &str) -> (Value, Value, Value) {
    let shown = json(db, &["order", "show", order, "--format", "json"]);
    (shown["returned_at"].clone(), shown["paid_at"].clone(), shown["payment_method"].clone())
}

on_both_backends! {
    fn germany_refuses_cash_at_the_counter_and_takes_it_through_the_till(db: TestDb) {
        let de = ["--country", "DE", "--currency", "EUR", "--vat-number", "DE123456789", "--vat-rate", "19", "--vat-from", "2024-01-01"];
        let orders = strung(&db, "hans", &de, 4);
        let events = db.query_i64("SELECT count(*) FROM receipt_events");

        // Cash and other: refused, naming the law and the way, and nothing written.
        for method in ["cash", "other"] {
            let said = fails(&db, 1, &["order", "pickup", &orders[0], "--paid", method]);
            assert!(said.contains(&format!("{method} payments at the counter in Germany must go through a certified till (§ 146a AO, a certified TSE)")), "{said}");
            assert!(said.contains("record it with --paid till"), "{said}");
            assert_eq!(said.lines().count(), 1, "{said}");
        }
        assert_eq!(state(&db, &orders[0]), (Value::Null, Value::Null, Value::Null));
        assert_eq!(db.query_i64("SELECT count(*) FROM receipt_events"), events, "nothing journaled");

        // A card payment is no cash register's business; the till's own is recorded as such.
        ok(&db, &["order", "pickup", &orders[0], "--paid", "card"]);
        ok(&db, &["order", "pickup", &orders[1], "--paid", "till"]);
        assert_eq!(state(&db, &orders[1]).2, "till");

        // A payment entered later needs its method there, and the method the law allows. It
        // was paid today: the day's takings count it.
        let paid = chrono::Utc::now().format("%Y-%m-%dT%H:%M:%SZ").to_string();
        let said = fails(&db, 1, &["order", "edit", &orders[2], "--paid-at", &paid]);
        assert!(said.contains("a payment in Germany needs its method") && said.contains("--method"), "{said}");
        let said = fails(&db, 1, &["order", "edit", &orders[2], "--paid-at", &paid, "--method", "cash"]);
        assert!(said.contains("record it with --method till"), "{said}");
        assert_eq!(state(&db, &orders[2]).1, Value::Null);
        ok(&db, &["order", "edit", &orders[2], "--paid-at", &paid, "--method", "till"]);
        assert_eq!(state(&db, &orders[2]).2, "till");
        let changed: Vec<String> = journaled(&db, "edit").iter().map(|e| format!("{} {}", e["field"].as_str().unwrap(), e["new"].as_str().unwrap_or("-"))).collect();
        assert!(changed.contains(&"payment_method till".to_string()), "{changed:?}");

        // A refund at the counter is a payment too.
        let said = fails(&db, 1, &["credit", &orders[0], "--reason", "returned", "--refund", "cash"]);
        assert!(said.contains("record it with --refund till"), "{said}");
        assert_eq!(db.query_i64("SELECT count(*) FROM credit_notes"), Some(0));
        assert_eq!(ok(&db, &["credit", &orders[0], "--reason", "returned", "--refund", "till"]), format!("C-{}-0001", db.this_year()));

        // The till's payments are listed apart and never in the program's totals.
        let takings = json(&db, &["takings", "--format", "json"]);
        let lines: Vec<(String, String)> = takings.as_array().unwrap().iter()
            .map(|l| (l["method"].as_str().unwrap().to_string(), l["amount"].as_str().unwrap().to_string()))
            .collect();
        assert_eq!(lines, [
            ("card".to_string(), "30.00".to_string()),
            ("till".to_string(), "60.00".to_string()),
            ("till refund".to_string(), "-30.00".to_string()),
            ("total".to_string(), "30.00".to_string()),
        ]);
        // Bank transfers matched later are no counter payments: never refused.
        ok(&db, &["order", "edit", &orders[3], "--paid-at", &paid, "--method", "transfer"]);

        // The day's closure keeps the till's apart, each payment at what was owed when paid.
        let keys = tempfile::tempdir().unwrap();
        let now = chrono::Utc::now().format("%Y-%m-%d %H:%M:%S").to_string();
        ok_at(&db, keys.path(), &now, &["key", "init"]);
        let closed: Value = serde_json::from_str(&ok_at(&db, keys.path(), &now, &["close", "--format", "json"])).unwrap();
        let totals = &closed[0]["totals"];
        let sum = |part: &str, key: &str| (totals[part][key]["count"].as_str().map(str::to_string), totals[part][key]["amount_minor"].as_str().map(str::to_string));
        let some = |count: &str, amount: &str| (Some(count.to_string()), Some(amount.to_string()));
        assert_eq!(sum("till", "till EUR"), some("3", "3000"), "30 + 30 taken, 30 paid back: {totals}");
        assert_eq!(sum("payments", "card EUR"), some("1", "3000"), "{totals}");
        assert_eq!(sum("payments", "transfer EUR"), some("1", "3000"), "{totals}");
        assert_eq!(sum("payments", "cash EUR"), (None, None), "{totals}");
    }

    fn each_country_refuses_what_its_law_keeps_for_a_certified_till(db: TestDb) {
        let cases: [(&str, &[&str], &str, &str); 9] = [
            ("at", &["--country", "AT", "--currency", "EUR"], "card", "Austria"),
            ("fr", &["--country", "FR", "--currency", "EUR", "--vat-number", "FR40303265045", "--vat-rate", "20", "--vat-from", "2024-01-01"], "card", "France"),
            ("it", &["--country", "IT", "--currency", "EUR"], "twint", "Italy"),
            // A transfer recorded at the counter is a counter payment there: only the bank
            // file's are not.
            ("itbank", &["--country", "IT", "--currency", "EUR"], "transfer", "Italy"),
            ("frbank", &["--country", "FR", "--currency", "EUR", "--vat-number", "FR40303265045", "--vat-rate", "20", "--vat-from", "2024-01-01"], "transfer", "France"),
            ("atbank", &["--country", "AT", "--currency", "EUR"], "transfer", ""),
            ("de", &["--country", "DE", "--currency", "EUR"], "other", "Germany"),
            ("fr293b", &["--country", "FR", "--currency", "EUR", "--small-business", "yes"], "cash", ""),
            ("ch", &["--country", "CH"], "cash", ""),
        ];
        for (handle, profile, method, country) in cases {
            let orders = strung(&db, handle, profile, 1);
            let out = run(&db, &["order", "pickup", &orders[0], "--paid", method]);
            if country.is_empty() {
                assert_eq!(out.code, 0, "{handle}: {}", out.stderr);
            } else {
                assert_eq!(out.code, 1, "{handle}: {}", out.stderr);
                assert!(out.stderr.contains(&format!("{method} payments at the counter in {country} must go through a certified till")), "{}", out.stderr);
                assert!(out.stderr.contains("record it with --paid till"), "{}", out.stderr);
                assert_eq!(state(&db, &orders[0]), (Value::Null, Value::Null, Value::Null), "{handle}");
                ok(&db, &["order", "pickup", &orders[0], "--paid", "till"]);
                if method == "transfer" {
                    // Money the shop pays back by its own transfer is no counter payment.
                    ok(&db, &["credit", &orders[0], "--reason", "returned", "--refund", "transfer"]);
                }
            }
        }
    }
}
