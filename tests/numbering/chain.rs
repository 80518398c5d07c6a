//! The journal that proves itself (SPEC 23): every event chained per stringer on both
//! backends (a trigger on PostgreSQL, the program on SQLite, the same bytes), and
//! `receipts audit --verify` naming the first break when the database's owner edits,
//! deletes, inserts or reorders events behind the program's back.

use crate::on_both_backends;
use crate::support::*;
use diesel_migrations::MigrationHarness;
use receipts::db::{DbConn, Tenant};
use receipts::ops::journal::verify_chain as verify;
use receipts::ops::mint::mint;

/// A stringer with `count` orders minted in May 2026 (a mint event each).
fn minted(db: &TestDb, count: usize) -> Tenant {
    let mut conn = db.connect();
    let stefan = stringer(&mut conn, "stefan", "UTC");
    for _ in 0..count {
        let order = order(&mut conn, &stefan);
        mint(&mut conn, &stefan, order, utc("2026-05-01 10:00")).expect("mint");
    }
    stefan
}

/// `receipts audit --verify`: (exit code, stderr).
fn audit_verify(db: &TestDb) -> (i32, String) {
    let out = crate::support::cli::binary()
        .env("DATABASE_URL", &db.url)
        .env("TZ", "UTC")
        .args(["audit", "--verify"])
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(!stderr.contains("panicked"), "{stderr}");
    (out.status.code().unwrap(), stderr)
}

/// SQL as the database's owner, the program's guards (triggers, the chain's unique index)
/// removed first.
fn as_owner(db: &TestDb, sql: &str) {
    let unguarded = match db.backend {
        Backend::Postgres => {
            format!("ALTER TABLE receipt_events DISABLE TRIGGER USER; DROP INDEX receipt_events_chain_key; {sql}")
        }
        Backend::Sqlite => format!(
            "DROP TRIGGER receipt_events_append_only_on_update; DROP TRIGGER receipt_events_append_only_on_delete; \
             DROP INDEX receipt_events_chain_key; {sql}"
        ),
    };
    db.execute(&unguarded).unwrap_or_else(|e| panic!("{sql}: {e}"));
}

on_both_backends! {
    fn every_event_is_chained_and_the_chain_verifies(db: TestDb) {
        let stefan = minted(&db, 5);
        let mut conn = db.connect();
        let verified = conn.read(|c| verify(c, &stefan)).unwrap();
        assert_eq!((verified.events, verified.broken.as_ref()), (5, None), "{verified:?}");
        assert_eq!(db.query_i64("SELECT count(DISTINCT seq) FROM receipt_events"), Some(5));
        assert_eq!(db.query_i64("SELECT max(seq) FROM receipt_events"), Some(5));
        assert_eq!(db.query_i64("SELECT seq FROM chain_heads"), Some(5));
        let (code, said) = audit_verify(&db);
        assert_eq!(code, 0, "{said}");
        assert!(said.contains("stefan: 5 events chained, head ") && said.contains("not proven:"), "{said}");
        // No closure yet, no anchor: the last word says so, and what cannot be proven.
        let last = said.trim_end().lines().last().unwrap();
        assert!(last.starts_with("anchors used: none; not proven: "), "{said}");
        assert!(last.ends_with("events after the last closure whose digest left the database can be removed without a trace"), "{said}");
        // A restore declared: the head found is on record, chained like every event.
        let head: String = said.split("head ").nth(1).unwrap()[..16].to_string();
        let out = crate::support::cli::binary()
            .env("DATABASE_URL", &db.url)
            .args(["resync-counters"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(db.query_i64("SELECT count(*) FROM receipt_events WHERE kind = 'restore' AND seq = 6"), Some(1));
        let found = db.query_i64(&format!(
            "SELECT count(*) FROM receipt_events WHERE kind = 'restore' AND old_value LIKE '5 {head}%'"
        ));
        assert_eq!(found, Some(1), "the head it found");
        let (code, said) = audit_verify(&db);
        assert!(code == 0 && said.contains("stefan: 6 events chained"), "{said}");
    }

    fn an_event_edited_deleted_inserted_or_reordered_is_named(db: TestDb) {
        let cases: [(&str, &str); 5] = [
            ("UPDATE receipt_events SET reason = 'nothing happened' WHERE seq = 3", "event 3: its content does not match its hash"),
            ("DELETE FROM receipt_events WHERE seq = 2", "event 2: events 2..2 are missing"),
            ("DELETE FROM receipt_events WHERE seq = 5", "event 4: the chain's head does not stand on its last event"),
            ("UPDATE receipt_events SET seq = CASE seq WHEN 2 THEN 3 ELSE 2 END WHERE seq IN (2, 3)",
             "event 2: its previous hash is not the hash of the event before it"),
            ("UPDATE receipt_events SET seq = seq + 1 WHERE seq >= 4; \
              INSERT INTO receipt_events (kind, stringer_id, year, first_seq, last_seq, counter_old, counter_new, created_at, seq, prev_hash, hash) \
              SELECT 'void', stringer_id, 2026, 1, 1, NULL, NULL, created_at, 4, hash, hash FROM receipt_events WHERE seq = 3",
             "event 4: its content does not match its hash"),
        ];
        for (tampering, named) in cases {
            let db = TestDb::new(db.backend);
            minted(&db, 5);
            assert_eq!(audit_verify(&db).0, 0);
            as_owner(&db, tampering);
            let (code, said) = audit_verify(&db);
            assert_eq!(code, 1, "{tampering}: {said}");
            assert!(said.contains(named), "{tampering}: wanted {named:?} in:\n{said}");
        }
    }

    fn a_frozen_field_changed_behind_the_programs_back_breaks_the_chain_at_its_document(db: TestDb) {
        minted(&db, 3);
        // Each mint carries the hash of what its receipt prints, the same on both backends.
        assert_eq!(db.query_i64("SELECT count(*) FROM receipt_events WHERE kind = 'mint' AND length(document_hash) = 64"), Some(3));
        assert_eq!(audit_verify(&db).0, 0);
        let order = db.query_i64("SELECT id FROM orders WHERE receipt_seq = 2").unwrap();
        let unguarded = match db.backend {
            Backend::Postgres => "ALTER TABLE orders DISABLE TRIGGER USER;",
            Backend::Sqlite => "DROP TRIGGER orders_keep_documents;",
        };
        db.execute(&format!("{unguarded} UPDATE orders SET price_minor = price_minor - 100 WHERE id = {order}")).unwrap();
        let (code, said) = audit_verify(&db);
        assert_eq!(code, 1, "{said}");
        assert!(
            said.contains(&format!("event 2: the document it issued (order {order}) no longer matches its content hash (a frozen field changed)")),
            "{said}"
        );
    }

    fn many_events_of_one_transaction_are_chained_in_order_and_the_head_moves_once(db: TestDb) {
        let stefan = minted(&db, 2);
        let mut conn = db.connect();
        conn.write(|c| {
            for year in 2020..2026 {
                let event = receipts::db::events::Event::resync(stefan.id(), year, 0, 0, "in one transaction");
                receipts::db::events::record(c, &event)?;
            }
            Ok(())
        })
        .unwrap();
        let verified = conn.read(|c| verify(c, &stefan)).unwrap();
        assert_eq!((verified.events, verified.broken), (8, None));
        assert_eq!(db.query_i64("SELECT seq FROM chain_heads"), Some(8));
        // The next transaction goes on from the head.
        let order = order(&mut conn, &stefan);
        mint(&mut conn, &stefan, order, utc("2026-05-02 10:00")).unwrap();
        let verified = conn.read(|c| verify(c, &stefan)).unwrap();
        assert_eq!((verified.events, verified.broken), (9, None));
    }

    fn a_storm_of_mints_of_one_stringer_leaves_one_unbroken_chain(db: TestDb) {
        let stefan = minted(&db, 0);
        let orders: Vec<_> = {
            let mut conn = db.connect();
            (0..48).map(|_| order(&mut conn, &stefan)).collect()
        };
        let workers: Vec<_> = orders
            .chunks(6)
            .map(|chunk| {
                let (mut conn, stefan, chunk) = (db.connect(), stefan.clone(), chunk.to_vec());
                std::thread::spawn(move || {
                    for order in chunk {
                        mint(&mut conn, &stefan, order, utc("2026-05-01 10:00")).expect("mint");
                    }
                })
            })
            .collect();
        for worker in workers {
            worker.join().unwrap();
        }
        let mut conn = db.connect();
        let verified = conn.read(|c| verify(c, &stefan)).unwrap();
        assert_eq!((verified.events, verified.broken), (48, None));
    }

    fn the_events_of_a_database_from_before_the_chain_are_chained_by_the_migration(db: TestDb) {
        let stefan = minted(&db, 3);
        let mut conn = db.connect();
        // Back to the schema before the chain, and the journal as it was then.
        // (The closures', the reminders', the profile events', the setup code's, the
        // e-invoices' and the part payments' migrations came after the chain's.)
        for _ in 0..7 {
            conn.without_transaction(|raw| match raw {
                DbConn::Postgres(c) => c.revert_last_migration(receipts::db::POSTGRES_MIGRATIONS).map(drop),
                DbConn::Sqlite(c) => c.revert_last_migration(receipts::db::SQLITE_MIGRATIONS).map(drop),
            })
            .expect("back to the schema before the chain");
        }
        assert!(db.query_i64("SELECT count(*) FROM receipt_events") == Some(3));
        conn.migrate().unwrap();
        // Chained in order, then sealed: one event covers the content of the three receipts.
        let verified = conn.read(|c| verify(c, &stefan)).unwrap();
        assert_eq!((verified.events, verified.broken), (4, None));
        assert_eq!(db.query_i64("SELECT count(*) FROM receipt_events WHERE kind = 'seal' AND seq = 4 AND old_value = '3'"), Some(1));
        // And the chain goes on from there.
        let new = order(&mut conn, &stefan);
        mint(&mut conn, &stefan, new, utc("2026-05-02 10:00")).unwrap();
        let verified = conn.read(|c| verify(c, &stefan)).unwrap();
        assert_eq!((verified.events, verified.broken), (5, None));
        // An old receipt's frozen price changed: the seal no longer matches.
        let unguarded = match db.backend {
            Backend::Postgres => "ALTER TABLE orders DISABLE TRIGGER USER;",
            Backend::Sqlite => "DROP TRIGGER orders_keep_documents;",
        };
        db.execute(&format!("{unguarded} UPDATE orders SET price_minor = 1 WHERE receipt_seq = 1")).unwrap();
        let (code, said) = audit_verify(&db);
        assert_eq!(code, 1, "{said}");
        assert!(said.contains("event 4: the documents it sealed no longer match it"), "{said}");
    }
}
