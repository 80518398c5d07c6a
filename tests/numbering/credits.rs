//! Credit notes under concurrency (SPEC 21), through the binary as the counter and scripts
//! run it: `receipts credit` processes released at once get one number each in the
//! stringer's credit series, with no gap, and together never take back more than an
//! order's total.

use crate::on_both_backends;
use crate::support::*;
use chrono::Datelike;
use receipts::db::Tenant;
use receipts::domain::OrderId;
use receipts::ops::mint::mint;
use std::process::Stdio;

/// A stringer with `count` invoices of CHF 35.00 numbered in May 2026.
fn invoices(db: &TestDb, count: usize) -> (Tenant, Vec<OrderId>) {
    let mut conn = db.connect();
    let stefan = stringer(&mut conn, "stefan", "UTC");
    let orders = (0..count)
        .map(|_| {
            let order = order(&mut conn, &stefan);
            mint(&mut conn, &stefan, order, utc("2026-05-01 10:00")).expect("mint");
            order
        })
        .collect();
    (stefan, orders)
}

/// `receipts credit` processes, all started before any is waited for: (exit code, stdout).
fn credits_at_once(db: &TestDb, runs: Vec<Vec<String>>) -> Vec<(i32, String)> {
    let children: Vec<_> = runs
        .into_iter()
        .map(|args| {
            crate::support::cli::binary()
                .env("DATABASE_URL", &db.url)
                .env("TZ", "UTC")
                .args(["--lock-timeout", "30", "credit"])
                .args(args)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("start receipts")
        })
        .collect();
    children
        .into_iter()
        .map(|child| {
            let out = child.wait_with_output().unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(!stderr.contains("panicked"), "{stderr}");
            (out.status.code().unwrap(), String::from_utf8(out.stdout).unwrap().trim().to_string())
        })
        .collect()
}

/// The credit note numbers of the stringer's year, ascending, and what they took back in all.
fn series(db: &TestDb, tenant: &Tenant) -> (Vec<i64>, i64) {
    let id = tenant.id().0;
    let count = db.query_i64(&format!("SELECT count(*) FROM credit_notes WHERE stringer_id = {id}")).unwrap();
    let highest = db
        .query_i64(&format!("SELECT coalesce(max(credit_seq), 0) FROM credit_notes WHERE stringer_id = {id}"))
        .unwrap();
    let distinct = db
        .query_i64(&format!("SELECT count(DISTINCT credit_seq) FROM credit_notes WHERE stringer_id = {id}"))
        .unwrap();
    let total = db
        .query_i64(&format!(
            "SELECT coalesce(sum(amount_minor), 0) FROM credit_notes WHERE stringer_id = {id}"
        ))
        .unwrap();
    assert_eq!((count, distinct), (highest, highest), "numbers 1..N, each once");
    ((1..=highest).collect(), total)
}

on_both_backends! {
    fn sixty_four_concurrent_credits_of_sixty_four_orders_are_numbered_1_to_64(db: TestDb) {
        let (stefan, orders) = invoices(&db, 64);
        let runs = orders.iter().map(|o| vec![o.to_string(), "--reason".into(), "cancelled".into()]).collect();
        let results = credits_at_once(&db, runs);
        let mut printed: Vec<String> = results.iter().map(|(code, out)| {
            assert_eq!(*code, 0, "{out}");
            out.clone()
        }).collect();
        printed.sort();
        let year = db.now().year();
        let expected: Vec<String> = (1..=64).map(|seq| format!("C-{year}-{seq:04}")).collect();
        assert_eq!(printed, expected);
        let (numbers, total) = series(&db, &stefan);
        assert_eq!((numbers.len(), total), (64, 64 * 3500));
        assert_eq!(db.query_i64(&format!("SELECT last_n FROM credit_counters WHERE stringer_id = {}", stefan.id().0)), Some(64));
        assert_eq!(db.query_i64("SELECT count(*) FROM receipt_events WHERE kind = 'credit'"), Some(64));
    }

    fn eight_concurrent_credits_of_one_order_never_take_back_more_than_its_total(db: TestDb) {
        let (stefan, orders) = invoices(&db, 2);
        // CHF 35.00 in parts of 10.00: three fit, and the fourth would be more than is left.
        let parts = (0..8).map(|_| vec![orders[0].to_string(), "--reason".into(), "discount".into(), "--amount".into(), "10".into()]).collect();
        let results = credits_at_once(&db, parts);
        let issued: Vec<&(i32, String)> = results.iter().filter(|(code, _)| *code == 0).collect();
        let refused = results.iter().filter(|(code, _)| *code == 65).count();
        assert_eq!((issued.len(), refused), (3, 5), "{results:?}");
        // Eight full credits of the other at once: one credit note, named by every process.
        let full = (0..8).map(|_| vec![orders[1].to_string(), "--reason".into(), "cancelled".into()]).collect();
        let named: Vec<(i32, String)> = credits_at_once(&db, full);
        assert!(named.iter().all(|r| *r == (0, format!("C-{}-0004", db.now().year()))), "{named:?}");
        let (numbers, total) = series(&db, &stefan);
        assert_eq!((numbers.len(), total), (4, 3 * 1000 + 3500));
        let credited = db.query_i64(&format!("SELECT credited_minor FROM orders WHERE id = {}", orders[0].0));
        assert_eq!(credited, Some(3000));
    }
}
