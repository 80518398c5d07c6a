//! An issued document never changes (SPEC section 17): what a receipt shows is frozen when
//! it is numbered, corrections are a void and a new order, every allowed change of a
//! numbered order is journaled, and a number is issued only for a complete, plausible order.

use super::*;
use crate::on_both_backends;

/// The journal's `edit` entries of an order: (field, old, new, reason).
fn edits(db: &TestDb) -> Vec<(String, String, String, String)> {
    journaled(db, "edit")
        .iter()
        .map(|e| {
            let text = |key: &str| e[key].as_str().unwrap_or_default().to_string();
            (text("field"), text("old"), text("new"), text("reason"))
        })
        .collect()
}

on_both_backends! {
    fn what_a_numbered_document_shows_cannot_be_edited(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        let order = shop(&db);
        ok(&db, &["mint", "--order", &order, "--at", "2026-11-21 10:00"]);
        let before = pdf(&db, &order);
        let message = fails(&db, 1, &["order", "edit", &order, "--price", "3.60", "--customer", "Someone Else"]);
        assert_eq!(
            message,
            format!("error: order {order} holds receipt 2026-0001, and what its document shows (customer, price) cannot change: \
                     void it (`receipts void --order {order} --reason ...`), then `receipts order restring {order}` for a corrected new order")
        );
        assert_eq!(pdf(&db, &order), before, "the document is byte for byte what it was");
        // The same value is no change.
        ok(&db, &["order", "edit", &order, "--price", "35.50"]);
        // The database itself refuses it too, whoever asks.
        let error = db.execute(&format!("UPDATE orders SET price_minor = 360 WHERE id = {order}")).unwrap_err();
        assert!(error.contains("cannot change"), "{error}");
        // The way out: void it, restring it, mint the corrected order.
        ok(&db, &["void", "--order", &order, "--reason", "wrong price"]);
        let corrected = ok(&db, &["order", "restring", &order]);
        ok(&db, &["order", "edit", &corrected, "--price", "3.60"]);
        assert_eq!(ok(&db, &["mint", "--order", &corrected, "--at", "2026-11-21 11:00"]), "2026-0002");
        assert!(ok(&db, &["receipt", &corrected]).contains("CHF 3.60"));
    }

    fn a_profile_change_applies_to_the_next_receipt_only(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        let first = shop(&db);
        ok(&db, &["mint", "--order", &first, "--at", "2026-11-21 10:00"]);
        let before = pdf(&db, &first);
        let text_before = ok(&db, &["receipt", &first]);
        ok(&db, &["stringer", "edit", "stefan", "--name", "Stefan Muster AG", "--address", "Seestrasse 9",
                  "--vat-number", "CHE-116.281.710 MWST", "--vat-rate", "8.1", "--vat-from", "2024-01-01"]);
        assert_eq!(pdf(&db, &first), before, "an issued receipt never gains a VAT number");
        let text = ok(&db, &["receipt", &first]);
        assert_eq!(text, text_before);
        assert!(!text.contains("VAT") && !text.contains("Seestrasse"), "{text}");
        let next = ok(&db, &["order", "add", "--stringer", "stefan", "--price", "40"]);
        ok(&db, &["mint", "--order", &next, "--at", "2026-11-21 11:00"]);
        let text = ok(&db, &["receipt", &next]);
        for wanted in ["Stefan Muster AG", "Seestrasse 9", "CHE-116.281.710 MWST", "incl. 8.1 % VAT  CHF 3.00"] {
            assert!(text.contains(wanted), "{wanted}: {text}");
        }
        // An order numbered before the change but unstrung and strung again keeps its issuer.
        ok(&db, &["order", "unstring", &first]);
        ok(&db, &["mint", "--order", &first, "--at", "2026-11-21 10:30"]);
        assert_eq!(ok(&db, &["receipt", &first]), text_before);
    }

    fn notes_stay_internal_and_the_customer_note_is_printed(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        let order = shop(&db);
        ok(&db, &["order", "edit", &order, "--notes", "pays late", "--customer-note", "Grip replaced too"]);
        ok(&db, &["mint", "--order", &order, "--at", "2026-11-21 10:00"]);
        let text = ok(&db, &["receipt", &order]);
        assert!(text.contains("Grip replaced too") && !text.contains("pays late"), "{text}");
        let show = ok(&db, &["order", "show", &order]);
        assert!(show.contains("pays late") && show.contains("Grip replaced too"), "{show}");
        // The note for the customer is part of the document: frozen.
        assert!(fails(&db, 1, &["order", "edit", &order, "--customer-note", "other"]).contains("(customer note)"));
    }

    fn allowed_changes_of_a_numbered_order_are_journaled(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        let order = shop(&db);
        ok(&db, &["mint", "--order", &order, "--at", "2026-11-21 10:00"]);
        ok(&db, &["order", "edit", &order, "--paid-at", "2026-11-22 09:00", "--notes", "paid cash"]);
        let message = fails(&db, 2, &["order", "edit", &order, "--paid-at", "none"]);
        assert!(message.contains("needs a reason"), "{message}");
        ok(&db, &["order", "edit", &order, "--paid-at", "none", "--reason", "booked to the wrong order"]);
        assert_eq!(
            edits(&db),
            [
                // Times in the stringer's zone with its offset, as the journal's `when`.
                ("paid_at".into(), "".into(), "2026-11-22T09:00:00+01:00".into(), "".into()),
                ("notes".into(), "".into(), "paid cash".into(), "".into()),
                ("paid_at".into(), "2026-11-22T09:00:00+01:00".into(), "".into(), "booked to the wrong order".into()),
            ]
        );
        assert!(ok(&db, &["receipt", &order]).contains("INVOICE"), "unpaid again");
        // An order without a number changes freely and silently.
        let open = ok(&db, &["order", "add", "--stringer", "stefan", "--price", "20"]);
        ok(&db, &["order", "edit", &open, "--price", "25", "--notes", "x"]);
        assert_eq!(edits(&db).len(), 3);
    }

    fn a_number_is_issued_only_for_a_complete_plausible_order(db: TestDb) {
        let db = db.with_clock_at(TESTS_DAY);
        shop(&db);
        let no_price = ok(&db, &["order", "add", "--stringer", "stefan", "--customer", "Anna"]);
        let message = fails(&db, 65, &["mint", "--order", &no_price, "--at", "2026-11-21 10:00"]);
        assert_eq!(
            message,
            format!("error: order {no_price} has no price, and a client's receipt needs one: set it with `receipts order edit {no_price} --price ...`, then mint")
        );
        assert_eq!(db.query_i64("SELECT count(*) FROM receipt_counters"), Some(0), "nothing was counted");
        // The stringer's own racket needs no price.
        let own = ok(&db, &["order", "add", "--stringer", "stefan", "--kind", "self"]);
        assert_eq!(ok(&db, &["mint", "--order", &own, "--at", "2026-11-21 12:00"]), "2026-0001");
        // Numbers follow time: an earlier racket entered later is a conscious act.
        ok(&db, &["order", "edit", &no_price, "--price", "30"]);
        let message = fails(&db, 65, &["mint", "--order", &no_price, "--at", "2026-11-21 09:00"]);
        assert_eq!(
            message,
            "error: 2026-11-21 09:00 is before 2026-0001, strung 2026-11-21 12:00: numbers follow time; to enter an \
             earlier racket after later ones on purpose, add --backdate (the journal records it)"
        );
        assert_eq!(db.query_i64("SELECT last_n FROM receipt_counters"), Some(1), "the counter did not move");
        assert_eq!(ok(&db, &["mint", "--order", &no_price, "--at", "2026-11-21 09:00", "--backdate"]), "2026-0002");
        let json: serde_json::Value = serde_json::from_str(&ok(&db, &["journal", "--format", "json"])).unwrap();
        assert_eq!(json[1]["reason"], "backdated: strung before 2026-0001");
        // A racket of three years ago entered now is backdated too, and said so, though it is
        // the first number of its year.
        let old = ok(&db, &["order", "add", "--stringer", "stefan", "--customer", "Old", "--price", "30"]);
        ok(&db, &["mint", "--order", &old, "--at", "2023-05-01 10:00", "--backdate"]);
        let json: serde_json::Value = serde_json::from_str(&ok(&db, &["journal", "--format", "json"])).unwrap();
        let last = json.as_array().unwrap().last().unwrap();
        assert_eq!((last["numbers"].as_str(), last["reason"].as_str()), (Some("2023-0001"), Some("backdated: strung in 2023, before last year")));
        assert!(json[0]["reason"].is_null(), "a mint at the clock's time says nothing more: {}", json[0]);
        // Orders are not taken in the future either.
        let message = fails(&db, 65, &["order", "add", "--stringer", "stefan", "--ordered-at", "2099-01-01 10:00"]);
        assert!(message.contains("is in the future"), "{message}");
    }

    fn the_profile_is_checked_when_it_is_entered(db: TestDb) {
        shop(&db);
        let message = fails(&db, 65, &["stringer", "edit", "stefan", "--vat-number", "CHE-123"]);
        assert!(message.contains("\"CHE-123\" is not a Swiss VAT number"), "{message}");
        let message = fails(&db, 65, &["stringer", "edit", "stefan", "--vat-number", "CHE-116.281.711 MWST"]);
        assert!(message.contains("check digit"), "{message}");
        let message = fails(&db, 65, &["stringer", "edit", "stefan", "--email", "not-an-email"]);
        assert!(message.contains("\"not-an-email\" is not an e-mail address"), "{message}");
        ok(&db, &["stringer", "edit", "stefan", "--vat-number", "de 123 456 789", "--email", "stefan@example.ch"]);
        assert!(ok(&db, &["stringer", "show", "stefan"]).contains("DE123456789"));
        // Nothing to change: nothing is written, and it says so.
        let versions = db.query_i64("SELECT count(*) FROM issuers");
        let updated = db.query_i64("SELECT count(*) FROM stringers WHERE updated_at = (SELECT max(updated_at) FROM stringers)");
        let out = run(&db, &["stringer", "edit", "stefan", "--email", "stefan@example.ch", "--name", "Stefan Muster"]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert!(out.stderr.contains("already has these values: nothing changed"), "{}", out.stderr);
        assert_eq!(db.query_i64("SELECT count(*) FROM issuers"), versions);
        assert_eq!(db.query_i64("SELECT count(*) FROM stringers WHERE updated_at = (SELECT max(updated_at) FROM stringers)"), updated);
    }
}

/// A database at the schema before documents were frozen, holding a VAT-registered
/// stringer's numbered order (with notes, printed then), as the last release left it.
fn database_of_the_last_release(db: &TestDb) {
    use diesel::connection::SimpleConnection;
    use diesel::Connection;
    use diesel_migrations::MigrationHarness;
    let before_freezing = 6;
    let mut conn = match db.backend {
        Backend::Postgres => {
            receipts::db::DbConn::Postgres(diesel::PgConnection::establish(&db.url).unwrap())
        }
        Backend::Sqlite => {
            receipts::db::DbConn::Sqlite(diesel::SqliteConnection::establish(&db.url).unwrap())
        }
    };
    for _ in 0..before_freezing {
        match &mut conn {
            receipts::db::DbConn::Postgres(c) => {
                c.run_next_migration(receipts::db::POSTGRES_MIGRATIONS).map(drop)
            }
            receipts::db::DbConn::Sqlite(c) => {
                c.run_next_migration(receipts::db::SQLITE_MIGRATIONS).map(drop)
            }
        }
        .unwrap();
    }
    conn.batch_execute(
        "INSERT INTO stringers (handle, name, timezone, address, vat_number, language)
             VALUES ('stefan', 'Stefan Muster', 'Europe/Zurich', 'Bahnhofstrasse 1\n8001 Zürich', 'CHE-116.281.710 MWST', 'de');
         INSERT INTO orders (stringer_id, kind, customer, price_minor, currency, strung_at, receipt_year, receipt_seq, notes)
             VALUES (1, 'client', 'Roger', 3550, 'CHF', '2026-03-01 09:00:00', 2026, 1, 'Grip replaced as well.');
         INSERT INTO receipt_counters (stringer_id, year, last_n) VALUES (1, 2026, 1);",
    )
    .unwrap();
}

#[test]
fn the_migration_freezes_receipts_as_they_showed_on_both_backends() {
    for db in [TestDb::sqlite(), TestDb::empty_postgres()] {
        database_of_the_last_release(&db);
        if db.backend == Backend::Postgres {
            ok(&db, &["db", "migrate"]);
        } else {
            // The first command that writes migrates an SQLite file.
            ok(&db, &["stringer", "add", "anna"]);
        }
        // Receipts of a VAT-registered stringer show the rate in force on their date.
        let message = fails(&db, 65, &["receipt", "1"]);
        assert!(message.contains("no VAT rate in force on 2026-03-01"), "{message}");
        ok(&db, &["stringer", "edit", "stefan", "--vat-rate", "8.1", "--vat-from", "2024-01-01"]);
        let frozen = ok(&db, &["receipt", "1"]);
        for shown in [
            "Stefan Muster",
            "Bahnhofstrasse 1",
            "MWST-Nr. CHE-116.281.710 MWST",
            "inkl. 8.1 % MWST  CHF 2.66",
            "Grip replaced as well.",
            "RECHNUNG",
        ] {
            assert!(frozen.contains(shown), "{shown}: {frozen}");
        }
        ok(
            &db,
            &[
                "stringer",
                "edit",
                "stefan",
                "--vat-number",
                "",
                "--address",
                "Seestrasse 9",
                "--language",
                "en",
            ],
        );
        assert_eq!(ok(&db, &["receipt", "1"]), frozen, "{:?}", db.backend);
    }
}

on_both_backends! {
    fn every_change_of_the_profile_is_a_chained_event_with_the_old_and_the_new_value(db: TestDb) {
        Shop::new(&db).stringer("otto", "Otto Saiten", &["--phone", "+41 44 000 00 00"]);
        let before = journaled(&db, "profile").len();
        ok(&db, &["stringer", "edit", "otto", "--phone", "+41 44 123 45 67", "--name", "Otto Saiten GmbH"]);
        ok(&db, &["stringer", "edit", "otto", "--vat-number", "CHE-123.456.788 MWST", "--vat-rate", "8.1", "--vat-from", "2024-01-01"]);
        ok(&db, &["stringer", "edit", "otto", "--iban", "CH93 0076 2011 6238 5295 7", "--postcode", "8001", "--town", "Zürich", "--country", "CH", "--language", "de"]);
        // The same values again change nothing, and journal nothing.
        ok(&db, &["stringer", "edit", "otto", "--phone", "+41 44 123 45 67"]);
        let changed: Vec<(String, String, String)> = journaled(&db, "profile")[before..]
            .iter()
            .map(|e| {
                let text = |key: &str| e[key].as_str().unwrap_or("-").to_string();
                (text("field"), text("old"), text("new"))
            })
            .collect();
        let expected = [
            ("name", "Otto Saiten", "Otto Saiten GmbH"),
            ("phone", "+41 44 000 00 00", "+41 44 123 45 67"),
            ("vat_number", "-", "CHE-123.456.788 MWST"),
            ("vat_rate", "-", "8.1 % from 2024-01-01"),
            ("postcode", "-", "8001"),
            ("town", "-", "Zürich"),
            ("country", "-", "CH"),
            ("iban", "-", "CH9300762011623852957"),
            ("language", "-", "de"),
        ];
        let expected: Vec<(String, String, String)> =
            expected.iter().map(|(f, o, n)| (f.to_string(), o.to_string(), n.to_string())).collect();
        assert_eq!(changed, expected);
        // The phone numbers are kept beside their event, the chain carries their digests.
        assert_eq!(
            db.query_i64("SELECT count(*) FROM event_values v JOIN receipt_events e ON e.id = v.event_id WHERE e.kind = 'profile'"),
            Some(2)
        );
        assert_eq!(db.query_i64("SELECT count(*) FROM receipt_events WHERE kind = 'profile' AND new_value = '+41 44 123 45 67'"), Some(0));
        assert_eq!(run(&db, &["audit", "--verify"]).code, 0);
        // A profile change made behind the program's back: the chain names it.
        let unguarded = match db.backend {
            Backend::Postgres => "ALTER TABLE receipt_events DISABLE TRIGGER USER;",
            Backend::Sqlite => "DROP TRIGGER receipt_events_append_only_on_update;",
        };
        db.execute(&format!("{unguarded} UPDATE receipt_events SET new_value = 'Otto Fake AG' WHERE kind = 'profile' AND field = 'name'")).unwrap();
        let audit = run(&db, &["audit", "--verify"]);
        assert_eq!(audit.code, 1, "{}", audit.stderr);
        assert!(audit.stderr.contains("otto: the journal is broken at event "), "{}", audit.stderr);
    }
}
