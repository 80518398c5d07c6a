use crate::on_both_backends;
use crate::support::*;
use receipts::db::mint::{mint_in_transaction, Minted};
use receipts::db::{Db, Tenant};
use receipts::domain::{OrderId, Timestamp};
use receipts::ops::mint::mint;
use receipts::Error;
use std::sync::{mpsc, Arc, Barrier};
use std::thread;
use std::time::Duration;

/// Work for one thread, on a connection of its own.
type Job<T> = Box<dyn FnOnce(&mut Db) -> T + Send>;

/// Runs each job on its own thread with its own connection, all released at once.
fn at_once<T: Send + 'static>(db: &TestDb, jobs: Vec<Job<T>>) -> Vec<T> {
    let barrier = Arc::new(Barrier::new(jobs.len()));
    let handles: Vec<_> = jobs
        .into_iter()
        .map(|job| {
            let mut conn = db.connect();
            let barrier = Arc::clone(&barrier);
            thread::spawn(move || {
                barrier.wait();
                job(&mut conn)
            })
        })
        .collect();
    handles.into_iter().map(|h| h.join().expect("a worker panicked")).collect()
}

fn mint_job(tenant: &Tenant, order: OrderId, at: &str) -> Job<Result<Minted, Error>> {
    let (tenant, at) = (tenant.clone(), utc(at));
    Box::new(move |conn| mint(conn, &tenant, order, at))
}

/// Holds a write transaction that has minted `order`, until the returned sender is used
/// (or dropped), then commits.
fn hold_mint(
    db: &TestDb,
    tenant: &Tenant,
    order: OrderId,
    at: &str,
) -> (mpsc::Sender<()>, thread::JoinHandle<Minted>) {
    let (ready_tx, ready_rx) = mpsc::channel();
    let (release_tx, release_rx) = mpsc::channel::<()>();
    let (mut conn, tenant, at) = (db.connect(), tenant.clone(), utc(at));
    let holder = thread::spawn(move || {
        conn.write(|c| {
            let minted = mint_in_transaction(c, &tenant, order, at)?;
            ready_tx.send(()).unwrap();
            let _ = release_rx.recv();
            Ok::<_, Error>(minted)
        })
        .expect("the held mint commits")
    });
    ready_rx.recv().expect("the holder minted");
    (release_tx, holder)
}

/// Waits until some session of this PostgreSQL database is waiting for a lock.
fn until_a_session_waits_for_a_lock(db: &TestDb) {
    let waiting = "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'";
    for _ in 0..2000 {
        if db.query_i64(waiting) > Some(0) {
            return;
        }
        thread::sleep(Duration::from_millis(5));
    }
    panic!("no session ever waited for the lock");
}

on_both_backends! {
    fn two_concurrent_mints_of_one_stringer_get_n_and_n_plus_1(db: TestDb) {
        let mut conn = db.connect();
        let stefan = stringer(&mut conn, "stefan", "UTC");
        let (a, b) = (order(&mut conn, &stefan), order(&mut conn, &stefan));
        let results = at_once(&db, vec![mint_job(&stefan, a, "2026-05-01 10:00"), mint_job(&stefan, b, "2026-05-01 10:00")]);
        let mut seqs: Vec<i64> = results.into_iter().map(|r| r.unwrap().number.seq).collect();
        seqs.sort();
        assert_eq!(seqs, vec![1, 2]);
        assert_eq!(counter(&db, &stefan, 2026), Some(2));
    }

    fn concurrent_double_mint_of_one_order_gives_one_number(db: TestDb) {
        let mut conn = db.connect();
        let stefan = stringer(&mut conn, "stefan", "UTC");
        let a = order(&mut conn, &stefan);
        let jobs = (0..4).map(|_| mint_job(&stefan, a, "2026-05-01 10:00")).collect();
        let results: Vec<Minted> = at_once(&db, jobs).into_iter().map(Result::unwrap).collect();
        assert!(results.iter().all(|m| m.number.to_string() == "2026-0001"), "{results:?}");
        assert_eq!(results.iter().filter(|m| m.is_fresh()).count(), 1);
        assert_eq!(counter(&db, &stefan, 2026), Some(1));
        assert_eq!(db.query_i64("SELECT count(*) FROM receipt_events"), Some(1));
    }

    fn first_mints_of_a_new_year_race_to_0001_and_0002(db: TestDb) {
        let mut conn = db.connect();
        let stefan = stringer(&mut conn, "stefan", "UTC");
        let (a, b) = (order(&mut conn, &stefan), order(&mut conn, &stefan));
        let results = at_once(&db, vec![mint_job(&stefan, a, "2027-01-01 00:00"), mint_job(&stefan, b, "2027-01-01 00:01")]);
        let mut numbers: Vec<String> = results.into_iter().map(|r| r.unwrap().number.to_string()).collect();
        numbers.sort();
        assert_eq!(numbers, vec!["2027-0001", "2027-0002"]);
    }

    fn a_lock_held_too_long_gives_a_retryable_error(db: TestDb) {
        let mut conn = db.connect();
        let stefan = stringer(&mut conn, "stefan", "UTC");
        let (a, b) = (order(&mut conn, &stefan), order(&mut conn, &stefan));
        let (release, holder) = hold_mint(&db, &stefan, a, "2026-05-01 10:00");
        let mut impatient = db.connect_with_timeout(Duration::from_millis(200));
        let err = mint(&mut impatient, &stefan, b, utc("2026-05-01 10:05")).unwrap_err();
        assert!(matches!(err, Error::Busy(_)), "{err:?}");
        assert_eq!(err.exit_code(), 75);
        release.send(()).unwrap();
        holder.join().unwrap();
        // Nothing was lost or skipped by the failed attempt.
        assert_eq!(mint(&mut conn, &stefan, b, utc("2026-05-01 10:06")).unwrap().number.to_string(), "2026-0002");
    }

    fn storm_of_8_workers_leaves_every_year_numbered_1_to_n(db: TestDb) {
        storm(&db, &db.url);
    }
}

/// 8 workers x 200 mints over 3 stringers in 3 zones, straddling New Year: every
/// (stringer, year) ends up numbered exactly 1..=N, with its counter at N.
fn storm(db: &TestDb, worker_url: &str) {
    const WORKERS: usize = 8;
    const MINTS_PER_WORKER: usize = 200;
    let mut conn = db.connect();
    let stringers = [
        stringer(&mut conn, "utc", "UTC"),
        stringer(&mut conn, "zurich", "Europe/Zurich"),
        stringer(&mut conn, "newyork", "America/New_York"),
    ];
    let mut work: Vec<Vec<(Tenant, OrderId, chrono::NaiveDateTime)>> = vec![Vec::new(); WORKERS];
    for i in 0..WORKERS * MINTS_PER_WORKER {
        let tenant = &stringers[i % stringers.len()];
        let local = if i % 2 == 0 { "2026-12-31 23:59" } else { "2027-01-01 00:01" };
        let at = Timestamp::parse(local).unwrap().resolve(tenant.zone()).unwrap();
        work[i % WORKERS].push((tenant.clone(), order(&mut conn, tenant), at));
    }

    let barrier = Arc::new(Barrier::new(WORKERS));
    let workers: Vec<_> = work
        .into_iter()
        .map(|jobs| {
            let url = receipts::db::DatabaseUrl::parse(worker_url).unwrap();
            let mut worker = Db::connect(&url, Duration::from_secs(30)).expect("a worker connects");
            let barrier = Arc::clone(&barrier);
            thread::spawn(move || {
                barrier.wait();
                jobs.into_iter()
                    .map(|(tenant, order, at)| {
                        mint(&mut worker, &tenant, order, at).expect("a storm mint").number
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let minted: usize = workers.into_iter().map(|w| w.join().expect("a worker panicked").len()).sum();
    assert_eq!(minted, WORKERS * MINTS_PER_WORKER);

    for tenant in &stringers {
        for year in [2026, 2027] {
            let seqs = issued(db, tenant.id().0, year);
            let n = seqs.len() as i64;
            assert!(n > 0, "{} has no {year} receipts", tenant.handle());
            assert_eq!(seqs, (1..=n).collect::<Vec<_>>(), "{} {year}", tenant.handle());
            assert_eq!(counter(db, tenant, year), Some(n), "{} {year}", tenant.handle());
        }
    }
    assert_eq!(
        db.query_i64("SELECT count(*) FROM receipt_events WHERE kind = 'mint'"),
        Some((WORKERS * MINTS_PER_WORKER) as i64)
    );
}

#[test]
fn storm_through_pgbouncer_in_transaction_mode() {
    let db = TestDb::postgres();
    storm(&db, &db.pgbouncer_url());
}

#[test]
fn mints_of_different_stringers_do_not_wait_for_each_other() {
    let db = TestDb::postgres();
    let mut conn = db.connect();
    let stefan = stringer(&mut conn, "stefan", "UTC");
    let anna = stringer(&mut conn, "anna", "UTC");
    let (a, b) = (order(&mut conn, &stefan), order(&mut conn, &anna));
    // Stefan's mint holds its transaction open; Anna's must not wait for it at all.
    let (release, holder) = hold_mint(&db, &stefan, a, "2026-05-01 10:00");
    let mut impatient = db.connect_with_timeout(Duration::from_millis(100));
    let minted = mint(&mut impatient, &anna, b, utc("2026-05-01 10:00"));
    release.send(()).unwrap();
    assert_eq!(holder.join().unwrap().number.to_string(), "2026-0001");
    assert_eq!(minted.unwrap().number.to_string(), "2026-0001");
}

#[test]
fn a_second_mint_of_the_same_order_waits_and_then_sees_the_first_number() {
    let db = TestDb::postgres();
    let mut conn = db.connect();
    let stefan = stringer(&mut conn, "stefan", "UTC");
    let a = order(&mut conn, &stefan);
    let (release, holder) = hold_mint(&db, &stefan, a, "2026-05-01 10:00");
    let second = {
        let (mut conn, stefan) = (db.connect(), stefan.clone());
        thread::spawn(move || mint(&mut conn, &stefan, a, utc("2026-05-01 10:01")))
    };
    until_a_session_waits_for_a_lock(&db);
    release.send(()).unwrap();
    let first = holder.join().unwrap();
    let second = second.join().unwrap().unwrap();
    assert_eq!((first.number, first.is_fresh()), (second.number, !second.is_fresh()));
    assert_eq!(counter(&db, &stefan, 2026), Some(1), "the waiting mint did not bump the counter");
}

#[test]
fn a_first_mint_of_the_year_waits_for_the_row_another_one_is_creating() {
    let db = TestDb::postgres();
    let mut conn = db.connect();
    let stefan = stringer(&mut conn, "stefan", "UTC");
    let (a, b) = (order(&mut conn, &stefan), order(&mut conn, &stefan));
    let (release, holder) = hold_mint(&db, &stefan, a, "2027-01-01 00:00");
    let second = {
        let (mut conn, stefan) = (db.connect(), stefan.clone());
        thread::spawn(move || mint(&mut conn, &stefan, b, utc("2027-01-01 00:01")))
    };
    until_a_session_waits_for_a_lock(&db);
    release.send(()).unwrap();
    assert_eq!(holder.join().unwrap().number.to_string(), "2027-0001");
    assert_eq!(second.join().unwrap().unwrap().number.to_string(), "2027-0002");
}
