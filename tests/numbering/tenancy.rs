use crate::on_both_backends;
use crate::support::*;
use receipts::db::orders;
use receipts::ops::mint::mint;
use receipts::ops::void::order as void_order;
use receipts::Error;

on_both_backends! {
    fn a_stringer_sees_and_changes_only_its_own_rows(db: TestDb) {
        let mut conn = db.connect();
        let stefan = stringer(&mut conn, "stefan", "UTC");
        let anna = stringer(&mut conn, "anna", "UTC");
        let (mine, theirs) = (order(&mut conn, &stefan), order(&mut conn, &anna));
        mint(&mut conn, &stefan, mine, utc("2026-03-01 10:00")).unwrap();
        mint(&mut conn, &anna, theirs, utc("2026-03-01 10:00")).unwrap();

        assert!(matches!(conn.read(|c| orders::find(c, &stefan, theirs)), Err(Error::NoSuchOrder { order, stringer: Some(ref s) }) if order == theirs && s == "stefan"));
        assert!(matches!(mint(&mut conn, &stefan, theirs, utc("2026-03-02 10:00")), Err(Error::NoSuchOrder { order, stringer: Some(ref s) }) if order == theirs && s == "stefan"));
        assert!(matches!(void_order(&mut conn, &stefan, theirs, "no"), Err(Error::NoSuchOrder { order, stringer: Some(ref s) }) if order == theirs && s == "stefan"));
        assert!(matches!(conn.write(|c| orders::unstring(c, &stefan, theirs)), Err(Error::NoSuchOrder { order, stringer: Some(ref s) }) if order == theirs && s == "stefan"));
        assert!(matches!(conn.write(|c| orders::restring(c, &stefan, theirs)), Err(Error::NoSuchOrder { order, stringer: Some(ref s) }) if order == theirs && s == "stefan"));
        let mut listed = Vec::new();
        conn.read(|c| {
            receipts::db::listings::for_each(c, Some(&stefan), &Default::default(), None, |_, l| {
                listed.push(l.order.id);
                Ok(())
            })
        })
        .unwrap();
        assert_eq!(listed, vec![mine]);

        // Stefan's counters are his alone (Anna counts a 2026 too).
        let counters = conn
            .read(|c| Ok(receipts::db::counters::of_stringer(c, &stefan, receipts::domain::Series::Receipts)?))
            .unwrap();
        assert_eq!(counters, vec![(2026, 1)]);
        // Anna's order was left as it was.
        assert_eq!(db.query_i64(&format!("SELECT count(*) FROM orders WHERE id = {} AND receipt_number = '2026-0001' AND strung_at IS NOT NULL", theirs.0)), Some(1));
    }
}
