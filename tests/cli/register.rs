//! The customer register (SPEC 18): customers and their rackets, found whatever the accents,
//! an order taken for a known customer with "the same as last time", merged and forgotten
//! customers, the migration that linked the orders there were, and tenancy.

use super::*;
use crate::on_both_backends;
use diesel_migrations::MigrationHarness;
use receipts::db::{DbConn, POSTGRES_MIGRATIONS, SQLITE_MIGRATIONS};

fn json(db: &TestDb, args: &[&str]) -> serde_json::Value {
    serde_json::from_str(&ok(db, args)).unwrap()
}

fn ids(value: &serde_json::Value) -> Vec<i64> {
    value.as_array().unwrap().iter().map(|v| v["id"].as_i64().unwrap()).collect()
}

fn stefan(db: &TestDb) {
    ok(db, &["stringer", "add", "stefan", "--name", "Stefan Muster", "--timezone", "Europe/Zurich"]);
}

on_both_backends! {
    fn the_register_keeps_customers_and_their_rackets(db: TestDb) {
        stefan(&db);
        let roger = ok(&db, &["customer", "add", "Roger Müller", "--email", "roger@example.com", "--phone", "+41 79 123 45 67",
                              "--street", "Seestrasse", "--house-number", "5", "--postcode", "8002", "--town", "Zürich", "--country", "CH",
                              "--notes", "likes it tight"]);
        let aero = ok(&db, &["racket", "add", "--customer", &roger, "--model", "Babolat Pure Aero 2023", "--pattern", "16x19", "--tag", "RM-1"]);
        let twin = ok(&db, &["racket", "add", "--customer", &roger, "--model", "Babolat Pure Aero 2023", "--tag", "RM-2", "--sport", "tennis"]);
        assert_ne!(aero, twin, "identical frames told apart by their tags");
        let shown = json(&db, &["customer", "show", &roger, "--format", "json"]);
        assert_eq!(shown["name"], "Roger Müller");
        assert_eq!(shown["address"], serde_json::json!(["Seestrasse 5", "8002 Zürich"]));
        assert_eq!(shown["rackets"].as_array().unwrap().len(), 2);
        ok(&db, &["customer", "edit", &roger, "--phone", "+41 79 765 43 21", "--notes", ""]);
        let shown = json(&db, &["customer", "show", &roger, "--format", "json"]);
        assert_eq!((shown["phone"].as_str(), shown["notes"].is_null()), (Some("+41 79 765 43 21"), true));
        assert!(run(&db, &["customer", "edit", &roger, "--phone", "+41 79 765 43 21"]).stderr.contains("nothing changed"));
        ok(&db, &["racket", "edit", &aero, "--pattern", "16x20"]);
        let racket = json(&db, &["racket", "show", "RM-1", "--format", "json"]);
        assert_eq!((racket["id"].to_string(), racket["pattern"].as_str(), racket["customer"].to_string()), (aero.clone(), Some("16x20"), roger.clone()));
        let listed = json(&db, &["racket", "list", "--customer", &roger, "--format", "json"]);
        assert_eq!(ids(&listed).len(), 2);
        let csv = ok(&db, &["customer", "list", "--format", "csv"]);
        assert_eq!(csv.lines().next(), Some("id,stringer,name,email,phone,town"));
        assert!(csv.contains("Roger Müller,roger@example.com"), "{csv}");
        // Refusals: one line, their exit code, nothing written.
        assert_eq!(fails(&db, 65, &["customer", "add", "   "]), "error: a customer needs a name: the name given is empty");
        assert_eq!(fails(&db, 1, &["racket", "add", "--customer", &roger, "--tag", "RM-1"]), format!("error: the tag \"RM-1\" is racket {aero}'s already: tags tell a stringer's rackets apart"));
        assert_eq!(fails(&db, 1, &["racket", "edit", &twin, "--tag", "RM-1"]).lines().count(), 1);
        assert_eq!(fails(&db, 1, &["customer", "show", "999"]), "error: there is no customer 999");
        assert_eq!(fails(&db, 1, &["racket", "show", "NOPE"]), "error: stringer stefan has no racket tagged \"NOPE\"");
        assert!(fails(&db, 65, &["customer", "add", "Anna", "--email", "anna@"]).starts_with("error: --email: "));
        assert_eq!(ids(&json(&db, &["customer", "list", "--format", "json"])).len(), 1);
    }

    fn search_ignores_case_and_accents_and_reads_phone_numbers_digit_by_digit(db: TestDb) {
        stefan(&db);
        let mut added = Vec::new();
        for (name, phone) in [("Müller", "079 111 22 33"), ("Muller", "+41 44 555 66 77"), ("MÜLLER", ""), ("Hans  Mueller", ""), ("Anna Moser", "")] {
            let mut args = vec!["customer", "add", name];
            if !phone.is_empty() {
                args.extend(["--phone", phone]);
            }
            added.push(ok(&db, &args).parse::<i64>().unwrap());
        }
        let found = |text: &str| {
            let mut found = ids(&json(&db, &["customer", "list", "--search", text, "--format", "json"]));
            found.sort();
            found
        };
        assert_eq!(found("muller"), added[..3].to_vec(), "Müller, Muller and MÜLLER");
        assert_eq!(found("MÜLL"), added[..3].to_vec());
        assert_eq!(found("hans mue"), vec![added[3]], "repeated spaces ignored");
        assert_eq!(found("0791112233"), vec![added[0]], "the phone's digits");
        assert_eq!(found("44 555"), vec![added[1]]);
        assert_eq!(found("%"), Vec::<i64>::new(), "a % is a character");
        assert_eq!(found("").len(), 5);
        // Short texts, and texts with the search syntax's own characters, find the same way.
        assert_eq!(found("mo"), vec![added[4]]);
        assert_eq!(found("555 6"), vec![added[1]], "digits with a space: a phone number");
        assert_eq!(found("\"anna"), Vec::<i64>::new());
        assert_eq!(found("anna mo*"), Vec::<i64>::new(), "a * is a character");
        // What is changed, merged or forgotten is found as it is now.
        ok(&db, &["customer", "edit", &added[4].to_string(), "--name", "Anna Moser-Keller", "--email", "anna@example.ch"]);
        assert_eq!(found("moser-kel"), vec![added[4]]);
        assert_eq!(found("example.ch"), vec![added[4]]);
        ok(&db, &["customer", "forget", &added[4].to_string(), "--reason", "asked to be forgotten"]);
        assert_eq!(found("moser"), Vec::<i64>::new(), "a forgotten name is found no more");
        ok(&db, &["customer", "merge", &added[2].to_string(), "--into", &added[0].to_string()]);
        assert_eq!(found("muller"), added[..2].to_vec(), "the merged one is gone");
    }

    fn an_order_for_a_known_customer_takes_the_same_as_last_time_of_that_racket(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        stefan(&db);
        let roger = ok(&db, &["customer", "add", "Roger", "--email", "roger@example.com", "--address", "Seestrasse 5\\n8002 Zürich"]);
        let aero = ok(&db, &["racket", "add", "--customer", &roger, "--model", "Pure Aero", "--tag", "R1"]);
        let blade = ok(&db, &["racket", "add", "--customer", &roger, "--model", "Blade 98"]);
        let take = |extra: &[&str]| {
            let mut args = vec!["order", "add", "--customer-id", roger.as_str()];
            args.extend_from_slice(extra);
            ok(&db, &args)
        };
        let first = take(&["--racket-id", &aero, "--string", "RPM Blast 1.25", "--tension", "24/23", "--price", "35"]);
        ok(&db, &["mint", "--order", &first, "--at", "2026-03-02 10:00"]);
        let shown = json(&db, &["order", "show", &first, "--format", "json"]);
        assert_eq!((shown["customer"].as_str(), shown["email"].as_str(), shown["racket"].as_str()), (Some("Roger"), Some("roger@example.com"), Some("Pure Aero (R1)")));
        assert_eq!(shown["customer_address"], "Seestrasse 5\n8002 Zürich");
        // A later job on the other racket: the customer's last order, not this racket's.
        let other = take(&["--racket-id", &blade, "--string", "Luxilon ALU 1.25", "--tension", "22", "--price", "38"]);
        ok(&db, &["mint", "--order", &other, "--at", "2026-03-05 10:00"]);
        let again = take(&["--racket-tag", "R1", "--same"]);
        let shown = json(&db, &["order", "show", &again, "--format", "json"]);
        assert_eq!((shown["string"].as_str(), shown["tension"].as_str(), shown["price"].as_str()), (Some("RPM Blast 1.25"), Some("24/23"), Some("35.00")));
        // What is given wins over what is copied.
        let tighter = take(&["--racket-id", &aero, "--same", "--tension", "25/24"]);
        let shown = json(&db, &["order", "show", &tighter, "--format", "json"]);
        assert_eq!((shown["string"].as_str(), shown["tension"].as_str()), (Some("RPM Blast 1.25"), Some("25/24")));
        // The history: newest first; by racket; by string.
        let history = json(&db, &["customer", "show", &roger, "--format", "json"]);
        let orders: Vec<i64> = history["history"].as_array().unwrap().iter().map(|h| h["order"].as_i64().unwrap()).collect();
        assert_eq!(orders, [&tighter, &again, &other, &first].map(|o| o.parse::<i64>().unwrap()));
        assert_eq!(ids(&json(&db, &["order", "list", "--racket-id", &aero, "--format", "json"])).len(), 3);
        assert_eq!(ids(&json(&db, &["order", "list", "--customer-id", &roger, "--string", "alu", "--format", "json"])), vec![other.parse::<i64>().unwrap()]);
        let newest = json(&db, &["order", "list", "--customer-id", &roger, "--newest", "--limit", "1", "--format", "json"]);
        assert_eq!(ids(&newest), vec![tighter.parse::<i64>().unwrap()]);
        let jobs = json(&db, &["racket", "show", &aero, "--format", "json"]);
        assert_eq!(jobs["jobs"][2]["receipt"], "2026-0001");
        assert_eq!(jobs["jobs"][2]["stringer"], "stefan");
        // A racket never strung has nothing to copy; a racket of another customer is refused.
        let fresh = ok(&db, &["racket", "add", "--customer", &roger, "--model", "Gravity"]);
        assert_eq!(fails(&db, 65, &["order", "add", "--customer-id", &roger, "--racket-id", &fresh, "--same"]), format!("error: racket {fresh} has no strung order to copy: give --string, --tension and --price instead of --same"));
        let anna = ok(&db, &["customer", "add", "Anna"]);
        assert_eq!(fails(&db, 1, &["order", "add", "--customer-id", &anna, "--racket-id", &aero]), format!("error: racket {aero} is not customer {anna}'s: name one of theirs, or add it (`receipts racket add --customer {anna}`)"));
        assert_eq!(ids(&json(&db, &["order", "list", "--customer-id", &anna, "--format", "json"])).len(), 0, "nothing written");
    }

    fn an_order_by_name_links_creates_or_asks(db: TestDb) {
        stefan(&db);
        let known = ok(&db, &["customer", "add", "Martina Hingis", "--email", "martina@example.com"]);
        // One of that name: linked, in the register's spelling.
        let linked = ok(&db, &["order", "add", "--customer", "martina  HINGIS", "--racket", "Pure Drive", "--price", "30"]);
        let shown = json(&db, &["order", "show", &linked, "--format", "json"]);
        assert_eq!((shown["customer"].as_str(), shown["email"].as_str()), (Some("Martina Hingis"), Some("martina@example.com")));
        assert_eq!(ids(&json(&db, &["order", "list", "--customer-id", &known, "--format", "json"])), vec![linked.parse::<i64>().unwrap()]);
        // The same racket again is the same racket of the register.
        let again = ok(&db, &["order", "add", "--customer", "Martina Hingis", "--racket", "pure drive", "--price", "30"]);
        let rackets = json(&db, &["racket", "list", "--customer", &known, "--format", "json"]);
        assert_eq!(ids(&rackets).len(), 1);
        assert_eq!(json(&db, &["order", "show", &again, "--format", "json"])["racket"], "Pure Drive");
        // None of that name: the register gains one, with the order's contact.
        let out = run(&db, &["order", "add", "--customer", "Belinda Bencic", "--email", "belinda@example.com", "--price", "30"]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert!(out.stderr.contains("the register gains customer"), "{}", out.stderr);
        let found = json(&db, &["customer", "list", "--search", "bencic", "--format", "json"]);
        assert_eq!(found[0]["email"], "belinda@example.com");
        // Several of that name: refused, listing them; nothing written.
        let second = ok(&db, &["customer", "add", "Martina Hingis", "--town", "Trübbach", "--postcode", "9477", "--country", "CH"]);
        let before = ids(&json(&db, &["order", "list", "--format", "json"])).len();
        let message = fails(&db, 65, &["order", "add", "--customer", "Martina Hingis", "--price", "30"]);
        assert_eq!(message, format!("error: 2 customers are called \"Martina Hingis\": say which with --customer-id ID ({known} (martina@example.com); {second} (Trübbach))"));
        assert_eq!(ids(&json(&db, &["order", "list", "--format", "json"])).len(), before);
    }

    fn an_issued_receipt_keeps_what_it_showed_whatever_the_register_says_later(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        stefan(&db);
        let roger = ok(&db, &["customer", "add", "Roger", "--address", "Seestrasse 5\\n8002 Zürich"]);
        let order = ok(&db, &["order", "add", "--customer-id", &roger, "--racket", "Pure Aero", "--price", "35"]);
        ok(&db, &["mint", "--order", &order, "--at", "2026-03-02 10:00"]);
        let (pdf_before, text_before) = (pdf(&db, &order), ok(&db, &["receipt", &order]));
        ok(&db, &["customer", "edit", &roger, "--name", "Roger Federer", "--address", "Bahnhofstrasse 1\\n8001 Zürich"]);
        ok(&db, &["racket", "edit", &json(&db, &["racket", "list", "--customer", &roger, "--format", "json"])[0]["id"].to_string(), "--model", "Pure Aero 2023"]);
        assert_eq!(pdf(&db, &order), pdf_before, "byte for byte");
        assert_eq!(ok(&db, &["receipt", &order]), text_before);
        // The next order takes the register as it is now.
        let next = ok(&db, &["order", "add", "--customer-id", &roger, "--price", "35"]);
        assert_eq!(json(&db, &["order", "show", &next, "--format", "json"])["customer"], "Roger Federer");
    }

    fn a_customer_entered_twice_is_merged_and_one_forgotten_keeps_only_what_the_law_requires(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        stefan(&db);
        let kept = ok(&db, &["customer", "add", "Roger", "--email", "roger@example.com"]);
        let twice = ok(&db, &["customer", "add", "Roger F.", "--phone", "079 111 22 33"]);
        let racket = ok(&db, &["racket", "add", "--customer", &twice, "--model", "Pure Aero", "--notes", "grip size 3"]);
        let numbered = ok(&db, &["order", "add", "--customer-id", &twice, "--racket-id", &racket, "--customer-address", "Seestrasse 5", "--email", "rf@example.com", "--notes", "pays late", "--price", "35"]);
        ok(&db, &["mint", "--order", &numbered, "--at", "2026-03-02 10:00"]);
        let open = ok(&db, &["order", "add", "--customer-id", &twice, "--email", "rf@example.com", "--customer-note", "for the final", "--price", "35"]);
        let out = run(&db, &["customer", "merge", &twice, "--into", &kept]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert!(out.stderr.contains("2 orders and 1 racket moved"), "{}", out.stderr);
        assert_eq!(fails(&db, 1, &["customer", "show", &twice]), format!("error: there is no customer {twice}"));
        assert_eq!(ids(&json(&db, &["order", "list", "--customer-id", &kept, "--format", "json"])).len(), 2);
        let merged = journaled(&db, "customer_merge");
        assert_eq!(merged.len(), 1);
        assert!(merged[0]["reason"].as_str().unwrap().contains(&format!("customer {twice} (Roger F.) merged into customer {kept} (Roger)")));
        // Forgotten: the register's personal data and the open order's are erased; the issued
        // receipt keeps its name and address; its e-mail and notes go.
        let document = pdf(&db, &numbered);
        let out = run(&db, &["customer", "forget", &kept, "--reason", "asked on 2026-11-25"]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert!(out.stderr.contains("kept, as the law requires of issued documents for 10 years: the name and address printed on 1 receipt (2026-0001)"), "{}", out.stderr);
        let shown = json(&db, &["customer", "show", &kept, "--format", "json"]);
        assert_eq!(shown["name"], format!("forgotten customer {kept}"));
        assert!(shown["email"].is_null() && shown["phone"].is_null() && shown["address"].as_array().unwrap().is_empty(), "{shown}");
        assert!(shown["rackets"][0]["notes"].is_null(), "racket notes erased: {shown}");
        let numbered_now = json(&db, &["order", "show", &numbered, "--format", "json"]);
        assert_eq!((numbered_now["customer"].as_str(), numbered_now["customer_address"].as_str()), (Some("Roger F."), Some("Seestrasse 5")));
        assert!(numbered_now["email"].is_null() && numbered_now["notes"].is_null(), "{numbered_now}");
        assert_eq!(pdf(&db, &numbered), document, "the issued document is as it was");
        let open_now = json(&db, &["order", "show", &open, "--format", "json"]);
        assert_eq!(open_now["customer"], format!("forgotten customer {kept}"));
        assert!(open_now["email"].is_null() && open_now["customer_note"].is_null(), "{open_now}");
        assert_eq!(ids(&json(&db, &["customer", "list", "--search", "roger", "--format", "json"])).len(), 0);
        let forgot = journaled(&db, "customer_forget");
        assert_eq!((forgot.len(), forgot[0]["reason"].as_str()), (1, Some("asked on 2026-11-25")));
        assert!(fails(&db, 1, &["customer", "forget", &kept, "--reason", "again"]).contains("was forgotten on"));
    }

    fn another_stringers_customers_and_rackets_are_not_there(db: TestDb) {
        stefan(&db);
        ok(&db, &["stringer", "add", "anna", "--timezone", "Europe/Zurich"]);
        let secret = ok(&db, &["customer", "add", "Secret Client", "--stringer", "anna", "--email", "secret@example.com"]);
        let racket = ok(&db, &["racket", "add", "--customer", &secret, "--stringer", "anna", "--tag", "A1"]);
        for args in [
            vec!["customer", "show", &secret, "--stringer", "stefan"],
            vec!["customer", "edit", &secret, "--stringer", "stefan", "--name", "Mine"],
            vec!["customer", "forget", &secret, "--stringer", "stefan", "--reason", "x"],
            vec!["racket", "show", &racket, "--stringer", "stefan"],
            vec!["racket", "show", "A1", "--stringer", "stefan"],
            vec!["racket", "add", "--customer", &secret, "--stringer", "stefan"],
            vec!["order", "add", "--stringer", "stefan", "--customer-id", &secret],
            vec!["order", "add", "--stringer", "stefan", "--racket-id", &racket],
        ] {
            let out = run(&db, &args);
            assert_eq!(out.code, 1, "{args:?}: {}", out.stderr);
            assert!(out.stderr.contains("stringer stefan has no") && !out.stderr.contains("Secret") && !out.stderr.contains("secret@"), "{args:?}: {}", out.stderr);
        }
        let own = ok(&db, &["customer", "add", "Mine", "--stringer", "stefan"]);
        let message = fails(&db, 1, &["customer", "merge", &secret, "--into", &own, "--stringer", "stefan"]);
        assert!(message.contains(&format!("stringer stefan has no customer {secret}")), "{message}");
        assert!(ok(&db, &["customer", "list", "--stringer", "stefan"]).contains("Mine") && !ok(&db, &["customer", "list", "--stringer", "stefan"]).contains("Secret"));
        assert_eq!(json(&db, &["customer", "show", &secret, "--stringer", "anna", "--format", "json"])["name"], "Secret Client");
    }

    fn the_migration_links_the_orders_there_were_and_documents_stay_the_same(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        stefan(&db);
        ok(&db, &["stringer", "add", "anna", "--timezone", "UTC"]);
        let order = |customer: &str, racket: &str, at: &str, extra: &[&str]| {
            let mut args = vec!["order", "add", "--stringer", "stefan", "--customer", customer, "--racket", racket, "--price", "35", "--ordered-at", at];
            args.extend_from_slice(extra);
            ok(&db, &args)
        };
        let a = order("Roger Müller", "Pure Aero", "2026-03-01 10:00", &["--email", "old@example.com"]);
        let b = order("roger  muller", "pure aero", "2026-03-05 10:00", &["--customer-address", "Seestrasse 5"]);
        let c = order("ROGER MÜLLER", "Blade 98", "2026-03-03 10:00", &["--email", "between@example.com"]);
        let d = order("Belinda", "Speed MP", "2026-03-02 10:00", &[]);
        // Spelled otherwise on one order, as orders taken before the register were.
        ok(&db, &["order", "edit", &b, "--customer", "roger  muller", "--racket", "pure aero", "--email", "roger@example.com"]);
        let own = ok(&db, &["order", "add", "--stringer", "stefan", "--kind", "self", "--customer", "Stefan"]);
        let annas = ok(&db, &["order", "add", "--stringer", "anna", "--customer", "Roger Müller", "--price", "20"]);
        for (i, id) in [&a, &b, &c, &d].into_iter().enumerate() {
            ok(&db, &["mint", "--order", id, "--at", &format!("2026-03-{:02} 12:00", i + 6)]);
        }
        // Text documents: the chain's migration, run again below, chains these mints as the
        // events of a database from before the chain, whose documents print no check value.
        let text = |order: &String| ok(&db, &["receipt", order]);
        let before: Vec<String> = [&a, &b, &c, &d]
            .iter()
            .map(|o| text(o).lines().filter(|l| !l.starts_with("Check ")).collect::<Vec<_>>().join("\n"))
            .collect();
        // Back to the schema before the register, and forward again: the migration links the
        // orders that are there.
        let mut conn = db.connect();
        // Every migration since, then the register's own.
        conn.without_transaction(|conn| loop {
            let reverted = match conn {
                DbConn::Postgres(pg) => pg.revert_last_migration(POSTGRES_MIGRATIONS)?,
                DbConn::Sqlite(lite) => lite.revert_last_migration(SQLITE_MIGRATIONS)?,
            };
            if reverted.to_string() == "20261125000003" {
                return Ok::<_, Box<dyn std::error::Error + Send + Sync>>(());
            }
        })
        .unwrap();
        assert!(db.execute("SELECT count(*) FROM customers").is_err(), "no register any more");
        drop(conn);
        ok(&db, &["db", "migrate"]);
        let after: Vec<String> = [&a, &b, &c, &d].iter().map(|o| text(o)).collect();
        assert_eq!(after, before, "documents word for word");
        let customers = json(&db, &["customer", "list", "--stringer", "stefan", "--format", "json"]);
        let names: Vec<&str> = customers.as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["Belinda", "roger  muller"], "one customer per name, named as on the latest order");
        let roger = customers[1]["id"].to_string();
        let shown = json(&db, &["customer", "show", &roger, "--format", "json"]);
        assert_eq!(shown["email"], "roger@example.com", "the latest e-mail");
        assert_eq!(shown["address"], serde_json::json!(["Seestrasse 5"]));
        let models: Vec<&str> = shown["rackets"].as_array().unwrap().iter().map(|r| r["model"].as_str().unwrap()).collect();
        let mut models = models;
        models.sort();
        assert_eq!(models, ["Blade 98", "pure aero"], "one racket per text, as on the latest order");
        assert_eq!(shown["history"].as_array().unwrap().len(), 3);
        let own = json(&db, &["order", "list", "--stringer", "stefan", "--format", "json"]).as_array().unwrap().iter().find(|o| o["id"].as_i64() == own.parse().ok()).unwrap().clone();
        assert_eq!(own["kind"], "self");
        assert_eq!(ids(&json(&db, &["customer", "list", "--stringer", "anna", "--format", "json"])).len(), 1, "anna's Roger is anna's");
        let _ = annas;
    }
}
