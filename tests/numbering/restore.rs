use crate::on_both_backends;
use crate::support::*;
use receipts::db::audit::{audit, Problem};
use receipts::db::resync::{Action, Options};
use receipts::domain::{NumberRange, OrderId, ReceiptNumber};
use receipts::ops::mint::mint;
use receipts::ops::resync::resync_counters;
use receipts::ops::void::{lost_numbers as void_lost_numbers, order as void_order};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Barrier};
use std::thread;
use std::time::Duration;

const APPLY: Options = Options { dry_run: false, allow_lower: false, last_closure: None };

on_both_backends! {
    fn resync_takes_the_highest_number_as_an_integer(db: TestDb) {
        let mut conn = db.connect();
        let stefan = stringer(&mut conn, "stefan", "UTC");
        insert_numbered(&db, &stefan, 2026, 1..=10001);
        let changes = resync_counters(&mut conn, APPLY).unwrap();
        assert_eq!(changes.len(), 1);
        assert_eq!((changes[0].old, changes[0].new, changes[0].action), (None, Some(10001), Action::Created));
        assert_eq!(counter(&db, &stefan, 2026), Some(10001), "not 9999, the highest as text");
        let next = order(&mut conn, &stefan);
        assert_eq!(mint(&mut conn, &stefan, next, utc("2026-07-01 10:00")).unwrap().number.to_string(), "2026-10002");
    }

    fn resync_never_lowers_a_counter_unless_allowed(db: TestDb) {
        let mut conn = db.connect();
        let stefan = stringer(&mut conn, "stefan", "UTC");
        insert_numbered(&db, &stefan, 2026, 1..=3);
        db.execute("INSERT INTO receipt_counters (stringer_id, year, last_n, created_at, updated_at) SELECT id, 2026, 5, created_at, created_at FROM stringers").unwrap();

        let kept = resync_counters(&mut conn, APPLY).unwrap();
        assert_eq!((kept[0].old, kept[0].new, kept[0].action), (Some(5), Some(5), Action::KeptAhead));
        assert_eq!(counter(&db, &stefan, 2026), Some(5));
        assert_eq!(db.query_i64("SELECT count(*) FROM receipt_events WHERE kind = 'resync'"), Some(0));

        let lowered = resync_counters(&mut conn, Options { allow_lower: true, ..APPLY }).unwrap();
        assert_eq!((lowered[0].old, lowered[0].new, lowered[0].action), (Some(5), Some(3), Action::Lowered));
        assert_eq!(counter(&db, &stefan, 2026), Some(3));
        assert_eq!(db.query_i64("SELECT count(*) FROM receipt_events WHERE kind = 'resync' AND counter_old = 5 AND counter_new = 3"), Some(1));
    }

    fn resync_recreates_missing_counters_and_a_dry_run_writes_nothing(db: TestDb) {
        let mut conn = db.connect();
        let stefan = stringer(&mut conn, "stefan", "UTC");
        let anna = stringer(&mut conn, "anna", "UTC");
        insert_numbered(&db, &stefan, 2026, 1..=2);
        insert_numbered(&db, &stefan, 2027, 1..=1);
        insert_numbered(&db, &anna, 2026, 1..=4);

        let planned = resync_counters(&mut conn, Options { dry_run: true, ..APPLY }).unwrap();
        let summary: Vec<(String, i32, Option<i64>)> = planned.iter().map(|c| (c.stringer.clone(), c.year, c.new)).collect();
        assert_eq!(summary, vec![("anna".into(), 2026, Some(4)), ("stefan".into(), 2026, Some(2)), ("stefan".into(), 2027, Some(1))]);
        assert_eq!(db.query_i64("SELECT count(*) FROM receipt_counters"), Some(0), "a dry run writes nothing");
        assert_eq!(db.query_i64("SELECT count(*) FROM receipt_events"), Some(0));

        let applied = resync_counters(&mut conn, APPLY).unwrap();
        assert_eq!(applied, planned);
        assert_eq!((counter(&db, &anna, 2026), counter(&db, &stefan, 2026), counter(&db, &stefan, 2027)), (Some(4), Some(2), Some(1)));
        assert_eq!(db.query_i64("SELECT count(*) FROM receipt_events WHERE kind = 'resync'"), Some(3));
        assert!(resync_counters(&mut conn, APPLY).unwrap().is_empty(), "a second run finds nothing to do");
    }

    fn resync_during_a_mint_storm_leaves_no_duplicate_and_no_gap(db: TestDb) {
        const WORKERS: usize = 4;
        const MINTS: usize = 100;
        let mut conn = db.connect();
        let stefan = stringer(&mut conn, "stefan", "UTC");
        let orders: Vec<Vec<OrderId>> = (0..WORKERS).map(|_| (0..MINTS).map(|_| order(&mut conn, &stefan)).collect()).collect();
        let barrier = Arc::new(Barrier::new(WORKERS + 1));
        // Halfway, the workers wait until a resync has finished: at least one resync then
        // lies between mints, whatever the scheduler does; the others run among them.
        let halfway = Arc::new(Barrier::new(WORKERS + 1));
        let minted = Arc::new(AtomicUsize::new(0));
        let mut threads = Vec::new();
        for batch in orders {
            let (mut worker, stefan, barrier) = (db.connect_with_timeout(Duration::from_secs(30)), stefan.clone(), Arc::clone(&barrier));
            let (minted, halfway) = (Arc::clone(&minted), Arc::clone(&halfway));
            threads.push(thread::spawn(move || {
                barrier.wait();
                for (i, order) in batch.into_iter().enumerate() {
                    if i == MINTS / 2 {
                        halfway.wait();
                    }
                    mint(&mut worker, &stefan, order, utc("2026-08-01 10:00")).expect("a mint during resync");
                    minted.fetch_add(1, Ordering::SeqCst);
                }
            }));
        }
        let mut resyncer = db.connect_with_timeout(Duration::from_secs(30));
        barrier.wait();
        // Resync again and again while the storm lasts; count the runs that ended with
        // some mints committed and some still to come.
        let total = WORKERS * MINTS;
        let (mut overlapping, mut past_halfway) = (0, false);
        while minted.load(Ordering::SeqCst) < total {
            for change in resync_counters(&mut resyncer, APPLY).expect("resync during mints") {
                assert_eq!(change.action, Action::Created, "only the first mint's row can be missing: {change:?}");
            }
            let done = minted.load(Ordering::SeqCst);
            if done > 0 && done < total {
                overlapping += 1;
            }
            if !past_halfway && done >= total / 2 {
                halfway.wait();
                past_halfway = true;
            }
        }
        for t in threads {
            t.join().expect("a worker panicked");
        }
        assert!(overlapping > 0, "no resync ran while mints were under way");
        let n = total as i64;
        assert_eq!(issued(&db, stefan.id().0, 2026), (1..=n).collect::<Vec<_>>());
        assert_eq!(counter(&db, &stefan, 2026), Some(n));
    }

    fn audit_names_gaps_and_collisions_and_explains_voids(db: TestDb) {
        let mut conn = db.connect();
        let stefan = stringer(&mut conn, "stefan", "UTC");
        let anna = stringer(&mut conn, "anna", "UTC");
        // Anna: sound, with one void.
        let (a, b) = (order(&mut conn, &anna), order(&mut conn, &anna));
        mint(&mut conn, &anna, a, utc("2026-02-01 10:00")).unwrap();
        mint(&mut conn, &anna, b, utc("2026-02-02 10:00")).unwrap();
        void_order(&mut conn, &anna, a, "customer cancelled").unwrap();
        // Stefan: numbers 1, 2 and 5 re-entered by hand, the counter restored at 2.
        insert_numbered(&db, &stefan, 2026, [1, 2, 5]);
        db.execute(&format!("INSERT INTO receipt_counters (stringer_id, year, last_n, created_at, updated_at) VALUES ({}, 2026, 2, '2026-01-01', '2026-01-01')", stefan.id().0)).unwrap();

        let report = conn.read(|c| audit(c, None, None)).unwrap();
        let (anna_2026, stefan_2026) = (&report[0], &report[1]);
        assert_eq!((anna_2026.stringer.as_str(), stefan_2026.stringer.as_str()), ("anna", "stefan"));
        assert!(anna_2026.is_sound(), "{anna_2026:?}");
        assert_eq!(anna_2026.voids.len(), 1);
        assert_eq!((anna_2026.voids[0].number.to_string(), anna_2026.voids[0].reason.as_str()), ("2026-0001".into(), "customer cancelled"));

        assert_eq!((stefan_2026.numbers, stefan_2026.highest, stefan_2026.counter), (3, 5, Some(2)));
        assert_eq!(stefan_2026.gaps.iter().map(ToString::to_string).collect::<Vec<_>>(), vec!["2026-0003..2026-0004"]);
        assert_eq!(stefan_2026.problems.len(), 2, "{:?}", stefan_2026.problems);
        assert!(stefan_2026.problems.iter().any(|p| matches!(p, Problem::CounterBehind { counter: Some(2), highest } if highest == "2026-0005")));

        // Repaired: counter raised, the two lost numbers documented.
        resync_counters(&mut conn, APPLY).unwrap();
        for seq in [3, 4] {
            void_lost_numbers(&mut conn, &stefan, one(2026, seq), "lost in the restore", false).unwrap();
        }
        let report = conn.read(|c| audit(c, Some(&stefan), Some(2026))).unwrap();
        assert_eq!(report.len(), 1);
        assert!(report[0].is_sound(), "{report:?}");
        assert_eq!(report[0].voids.len(), 2);

        // A counter ahead of every order is a gap at the end.
        db.execute("UPDATE receipt_counters SET last_n = 7").unwrap();
        let ahead = conn.read(|c| audit(c, Some(&stefan), None)).unwrap();
        assert_eq!(ahead[0].gaps.iter().map(ToString::to_string).collect::<Vec<_>>(), vec!["2026-0006..2026-0007"]);
        assert!(!ahead[0].is_sound());
    }

    fn a_lost_number_cannot_be_recorded_over_an_existing_order(db: TestDb) {
        let mut conn = db.connect();
        let stefan = stringer(&mut conn, "stefan", "UTC");
        let a = order(&mut conn, &stefan);
        mint(&mut conn, &stefan, a, utc("2026-02-01 10:00")).unwrap();
        let err = void_lost_numbers(&mut conn, &stefan, one(2026, 1), "lost", false).unwrap_err();
        assert!(err.to_string().contains(&format!("belongs to order {}", a.0)), "{err}");
        assert_eq!(db.query_i64("SELECT count(*) FROM orders"), Some(1));
    }
}

/// A range of one number.
fn one(year: i32, seq: i64) -> NumberRange {
    NumberRange { first: ReceiptNumber::new(year, seq), last: ReceiptNumber::new(year, seq) }
}
