use crate::on_both_backends;
use crate::support::*;
use receipts::db::mint::Outcome;
use receipts::db::order_edit::{self, Edit};
use receipts::db::orders::{self, OrderChanges};
use receipts::error::{Error, Wanted};
use receipts::ops::mint::mint;
use receipts::ops::void::order as void_order;

on_both_backends! {
    fn editing_a_numbered_order_keeps_its_number_and_its_document(db: TestDb) {
        let mut conn = db.connect();
        let stefan = stringer(&mut conn, "stefan", "UTC");
        let a = order(&mut conn, &stefan);
        let minted = mint(&mut conn, &stefan, a, utc("2026-03-01 10:00")).unwrap();
        // What the document shows is fixed once numbered; internal notes may change.
        let changes = Edit { details: OrderChanges { price_minor: Some(4200), customer: Some("Roger".into()), ..Default::default() }, ..Default::default() };
        let refused = conn.write(|c| order_edit::edit(c, &stefan, a, &changes)).unwrap_err();
        assert!(matches!(refused, Error::DocumentFrozen { order, ref fields, .. } if order == a && *fields == ["customer", "price"]), "{refused}");
        let notes = Edit { details: OrderChanges { notes: Some("restrung for the final".into()), ..Default::default() }, ..Default::default() };
        let edited = conn.write(|c| order_edit::edit(c, &stefan, a, &notes)).unwrap().expect("the notes changed");
        assert_eq!(edited.notes.as_deref(), Some("restrung for the final"));
        assert_eq!(edited.number.map(|n| n.to_string()).as_deref(), Some("2026-0001"));
        // Re-emitting the receipt asks again and gets the same number.
        assert_eq!(mint(&mut conn, &stefan, a, utc("2026-03-05 10:00")).unwrap().number, minted.number);
        assert_eq!(counter(&db, &stefan, 2026), Some(1));
    }

    fn clearing_strung_at_keeps_the_number_and_restringing_time_does_not_remint(db: TestDb) {
        let mut conn = db.connect();
        let stefan = stringer(&mut conn, "stefan", "UTC");
        let a = order(&mut conn, &stefan);
        mint(&mut conn, &stefan, a, utc("2026-03-01 10:00")).unwrap();
        let cleared = conn.write(|c| orders::unstring(c, &stefan, a)).unwrap();
        assert_eq!(cleared.strung_at, None);
        assert_eq!(cleared.number.map(|n| n.to_string()).as_deref(), Some("2026-0001"));

        let again = mint(&mut conn, &stefan, a, utc("2026-03-04 09:00")).unwrap();
        assert_eq!(again.number.to_string(), "2026-0001");
        assert_eq!(again.outcome, Outcome::Restrung);
        let reloaded = conn.read(|c| orders::find(c, &stefan, a)).unwrap();
        assert_eq!(reloaded.strung_at, Some(utc("2026-03-04 09:00")));
        assert_eq!(counter(&db, &stefan, 2026), Some(1));
    }

    fn a_restring_is_a_new_order_with_the_next_number(db: TestDb) {
        let mut conn = db.connect();
        let stefan = stringer(&mut conn, "stefan", "UTC");
        let a = order(&mut conn, &stefan);
        mint(&mut conn, &stefan, a, utc("2026-03-01 10:00")).unwrap();
        let b = conn.write(|c| orders::restring(c, &stefan, a)).unwrap();
        assert_ne!(a, b);
        let copy = conn.read(|c| orders::find(c, &stefan, b)).unwrap();
        assert_eq!((copy.number, copy.strung_at, copy.restring_of), (None, None, Some(a)));
        assert_eq!(mint(&mut conn, &stefan, b, utc("2026-04-01 10:00")).unwrap().number.to_string(), "2026-0002");
    }

    fn a_void_keeps_the_number_taken_and_journals_the_reason(db: TestDb) {
        let mut conn = db.connect();
        let stefan = stringer(&mut conn, "stefan", "UTC");
        let (a, b) = (order(&mut conn, &stefan), order(&mut conn, &stefan));
        mint(&mut conn, &stefan, a, utc("2026-03-01 10:00")).unwrap();
        let voided = void_order(&mut conn, &stefan, a, "customer cancelled").unwrap();
        assert_eq!(voided.to_string(), "2026-0001");
        // Repeating the same void is harmless; a different reason is refused.
        assert_eq!(void_order(&mut conn, &stefan, a, "customer cancelled").unwrap(), voided);
        assert!(matches!(void_order(&mut conn, &stefan, a, "other"), Err(Error::AlreadyVoid { order, ref reason, .. }) if order == a && reason == "customer cancelled"));
        assert!(matches!(void_order(&mut conn, &stefan, b, "never strung"), Err(Error::Unnumbered { order, wanted: Wanted::Void }) if order == b));
        assert!(matches!(void_order(&mut conn, &stefan, a, "  "), Err(Error::Invalid { field: "reason", .. })));
        assert_eq!(
            db.query_i64("SELECT count(*) FROM receipt_events WHERE kind = 'void' AND reason = 'customer cancelled' AND first_seq = 1"),
            Some(1)
        );
        assert_eq!(mint(&mut conn, &stefan, b, utc("2026-03-02 10:00")).unwrap().number.to_string(), "2026-0002");
    }

    fn issued_numbers_cannot_be_changed_or_deleted_even_by_hand(db: TestDb) {
        let mut conn = db.connect();
        let stefan = stringer(&mut conn, "stefan", "UTC");
        let (a, open) = (order(&mut conn, &stefan), order(&mut conn, &stefan));
        mint(&mut conn, &stefan, a, utc("2026-03-01 10:00")).unwrap();
        let id = a.0;
        // Refused by the triggers, with the same words on both backends.
        for (sql, refusal) in [
            (format!("UPDATE orders SET receipt_year = NULL, receipt_seq = NULL WHERE id = {id}"), "cannot change"),
            (format!("UPDATE orders SET receipt_seq = 7 WHERE id = {id}"), "cannot change"),
            (format!("DELETE FROM orders WHERE id = {id}"), "cannot be deleted; void it instead"),
            ("DELETE FROM receipt_events".to_string(), "append-only journal"),
            ("UPDATE receipt_events SET reason = 'rewritten'".to_string(), "append-only journal"),
        ] {
            let error = db.execute(&sql).expect_err(&sql);
            assert!(error.contains(refusal), "{sql}: {error}");
        }
        assert_eq!(db.query_i64(&format!("SELECT receipt_seq FROM orders WHERE id = {id}")), Some(1));
        // The text is the database's own rendering of its parts: nobody writes it.
        let error = db.execute(&format!("UPDATE orders SET receipt_number = '2026-01', receipt_year = 2026, receipt_seq = 1 WHERE id = {}", open.0)).unwrap_err();
        assert!(error.contains("generated column") || error.contains("can only be updated to DEFAULT"), "{error}");
        // Both parts or neither.
        let error = db.execute(&format!("UPDATE orders SET receipt_year = 2026 WHERE id = {}", open.0)).unwrap_err();
        assert!(error.contains("orders_receipt_parts_together") || error.contains("CHECK constraint failed"), "{error}");
        // An order without a number can still be deleted.
        db.execute(&format!("DELETE FROM orders WHERE id = {}", open.0)).unwrap();
    }
}
