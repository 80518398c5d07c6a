use crate::on_both_backends;
use crate::support::*;
use diesel::prelude::*;
use receipts::db::mint::{mint_in_transaction, Outcome};
use receipts::db::schema::orders;
use receipts::domain::ReceiptNumber;
use receipts::ops::mint::mint;
use receipts::Error;

on_both_backends! {
    fn first_mint_of_a_year_is_0001_and_the_next_follows(db: TestDb) {
        let mut conn = db.connect();
        let stefan = stringer(&mut conn, "stefan", "Europe/Zurich");
        let (a, b) = (order(&mut conn, &stefan), order(&mut conn, &stefan));
        let first = mint(&mut conn, &stefan, a, utc("2026-03-01 10:00")).unwrap();
        let second = mint(&mut conn, &stefan, b, utc("2026-03-02 10:00")).unwrap();
        assert_eq!(first.number.to_string(), "2026-0001");
        assert_eq!(second.number.to_string(), "2026-0002");
        assert!(first.is_fresh() && second.is_fresh());
        assert_eq!(counter(&db, &stefan, 2026), Some(2));
        assert_eq!(db.query_i64("SELECT count(*) FROM receipt_events WHERE kind = 'mint'"), Some(2));
    }

    fn second_mint_of_same_order_returns_same_number(db: TestDb) {
        let mut conn = db.connect();
        let stefan = stringer(&mut conn, "stefan", "UTC");
        let a = order(&mut conn, &stefan);
        let first = mint(&mut conn, &stefan, a, utc("2026-03-01 10:00")).unwrap();
        let again = mint(&mut conn, &stefan, a, utc("2026-05-01 10:00")).unwrap();
        assert_eq!(again.number, first.number);
        assert_eq!(again.outcome, Outcome::AlreadyStrung);
        assert_eq!(counter(&db, &stefan, 2026), Some(1));
        assert_eq!(db.query_i64("SELECT count(*) FROM receipt_events"), Some(1));
    }

    fn mint_rolls_back_counter_when_order_update_fails(db: TestDb) {
        let mut conn = db.connect();
        let stefan = stringer(&mut conn, "stefan", "UTC");
        let (a, b) = (order(&mut conn, &stefan), order(&mut conn, &stefan));
        mint(&mut conn, &stefan, a, utc("2026-03-01 10:00")).unwrap();

        // A constraint fails after the mint, in the same transaction.
        let failed = conn.write(|c| {
            mint_in_transaction(c, &stefan, b, utc("2026-03-02 10:00"))?;
            diesel::update(orders::table.filter(orders::id.eq(b.0)))
                .set(orders::price_minor.eq(-1))
                .execute(c)?;
            Ok::<_, Error>(())
        });
        assert!(matches!(failed, Err(Error::Database(_))), "{failed:?}");
        assert_eq!(counter(&db, &stefan, 2026), Some(1), "the counter advance was rolled back");
        assert_eq!(db.query_i64(&format!("SELECT count(*) FROM orders WHERE id = {} AND receipt_number IS NULL", b.0)), Some(1));
        assert_eq!(db.query_i64("SELECT count(*) FROM receipt_events"), Some(1));

        // And the first mint of a new year leaves no counter row behind.
        let failed = conn.write(|c| {
            mint_in_transaction(c, &stefan, b, utc("2027-03-02 10:00"))?;
            diesel::update(orders::table.filter(orders::id.eq(b.0)))
                .set(orders::v1_kind.eq("neither"))
                .execute(c)?;
            Ok::<_, Error>(())
        });
        assert!(
            matches!(failed, Err(Error::Database(diesel::result::Error::DatabaseError(diesel::result::DatabaseErrorKind::CheckViolation, _)))),
            "{failed:?}"
        );
        assert_eq!(counter(&db, &stefan, 2027), None);

        // Nothing was skipped: the next mint takes the next number.
        assert_eq!(mint(&mut conn, &stefan, b, utc("2026-03-03 10:00")).unwrap().number.to_string(), "2026-0002");
    }

    fn number_past_9999_grows_to_five_digits(db: TestDb) {
        let mut conn = db.connect();
        let stefan = stringer(&mut conn, "stefan", "UTC");
        let a = order(&mut conn, &stefan);
        let b = order(&mut conn, &stefan);
        let seeded = mint(&mut conn, &stefan, a, utc("2026-01-01 10:00")).unwrap();
        assert_eq!(seeded.number.to_string(), "2026-0001");
        db.execute(&format!("UPDATE receipt_counters SET last_n = 9999 WHERE stringer_id = {}", stefan.id().0)).unwrap();

        let minted = mint(&mut conn, &stefan, b, utc("2026-06-01 10:00")).unwrap();
        assert_eq!(minted.number.to_string(), "2026-10000");
        assert_eq!(minted.number, ReceiptNumber::new(2026, 10000));
        assert_eq!(
            db.query_i64(&format!("SELECT count(*) FROM orders WHERE receipt_number = '2026-10000' AND receipt_seq = 10000 AND id = {}", b.0)),
            Some(1)
        );
        assert_eq!(counter(&db, &stefan, 2026), Some(10000));
    }

    fn new_year_in_zurich_is_numbered_in_the_new_year(db: TestDb) {
        let mut conn = db.connect();
        let zurich = stringer(&mut conn, "stefan", "Europe/Zurich");
        let london = stringer(&mut conn, "anna", "UTC");
        let (a, b) = (order(&mut conn, &zurich), order(&mut conn, &london));
        // 00:30 on 1 January 2027 in Zurich is still 2026 in UTC.
        let instant = utc("2026-12-31 23:30");
        assert_eq!(mint(&mut conn, &zurich, a, instant).unwrap().number.to_string(), "2027-0001");
        assert_eq!(mint(&mut conn, &london, b, instant).unwrap().number.to_string(), "2026-0001");
        assert_eq!(counter(&db, &zurich, 2026), None);
        assert_eq!(counter(&db, &zurich, 2027), Some(1));
    }

    fn mint_into_a_number_already_taken_fails_cleanly_and_names_resync(db: TestDb) {
        let mut conn = db.connect();
        let stefan = stringer(&mut conn, "stefan", "UTC");
        let (a, b) = (order(&mut conn, &stefan), order(&mut conn, &stefan));
        mint(&mut conn, &stefan, a, utc("2026-03-01 10:00")).unwrap();
        // A restore brought back the orders but an older counter.
        db.execute("UPDATE receipt_counters SET last_n = 0").unwrap();

        let err = mint(&mut conn, &stefan, b, utc("2026-03-02 10:00")).unwrap_err();
        assert!(matches!(err, Error::CounterBehind { .. }), "{err:?}");
        let message = err.to_string();
        assert!(message.contains("2026-0001") && message.contains("resync-counters"), "{message}");
        assert_eq!(err.exit_code(), 1);
        assert_eq!(counter(&db, &stefan, 2026), Some(0), "nothing was written");
        assert_eq!(db.query_i64(&format!("SELECT count(*) FROM orders WHERE id = {} AND strung_at IS NULL", b.0)), Some(1));
        assert_eq!(db.query_i64("SELECT count(*) FROM receipt_events"), Some(1));
    }

    fn minting_an_unknown_order_is_not_found(db: TestDb) {
        let mut conn = db.connect();
        let stefan = stringer(&mut conn, "stefan", "UTC");
        let err = mint(&mut conn, &stefan, receipts::domain::OrderId(4242), utc("2026-03-01 10:00")).unwrap_err();
        assert!(matches!(err, Error::NoSuchOrder { order: receipts::domain::OrderId(4242), .. }), "{err:?}");
        assert_eq!(counter(&db, &stefan, 2026), None);
    }
}

/// The mint at the counter (`receipts_mint_now`, PostgreSQL's one-call mint) takes the year in
/// the stringer's zone as the program does, and mints only for the stringer named.
#[test]
fn the_one_call_mint_takes_the_year_in_the_stringers_zone() {
    use receipts::domain::local_year;
    let db = TestDb::postgres();
    let mut conn = db.connect();
    let zurich = stringer(&mut conn, "zurich", "Europe/Zurich");
    let new_york = stringer(&mut conn, "newyork", "America/New_York");
    let at = utc("2025-12-31 23:30");
    for (tenant, expected) in [(&zurich, 2026), (&new_york, 2025)] {
        assert_eq!(local_year(at, tenant.zone()), expected);
        let order = order(&mut conn, tenant);
        let call = |handle: &str| {
            format!(
                "SELECT o_year * 10000 + o_seq FROM receipts_mint_now({}, {handle}, '2025-12-31 23:30', '5000')",
                order.0
            )
        };
        assert_eq!(db.query_i64(&call("'someone'")), None, "not the named stringer's order");
        assert_eq!(db.query_i64(&call("NULL")), Some(i64::from(expected) * 10000 + 1));
        assert_eq!(counter(&db, tenant, expected), Some(1));
        assert_eq!(
            db.query_i64(&call(&format!("'{}'", tenant.handle()))),
            None,
            "numbered already: no new number"
        );
    }
}
