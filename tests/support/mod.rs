//! Real databases for tests: an SQLite file in a temporary directory, or a PostgreSQL
//! database of its own, cloned from a migrated template, so tests run in parallel.
//!
//! PostgreSQL comes from `RECEIPTS_TEST_PG_URL` (and PgBouncer from
//! `RECEIPTS_TEST_PGBOUNCER_URL`), both set by `scripts/test`. Without them the
//! PostgreSQL tests fail: they never pass by skipping.
#![allow(dead_code)]

pub mod camt;
pub mod cli;
pub mod cluster;
pub mod formation;
pub mod proxy;
pub mod shop;
pub mod smtp;

use chrono::NaiveDateTime;
use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use diesel::sql_types::BigInt;
use diesel::PgConnection;
use diesel_migrations::MigrationHarness;
use receipts::db::{orders, stringers, DatabaseUrl, Db, Tenant, DEFAULT_LOCK_TIMEOUT};
use receipts::domain::{parse_timezone, OrderId};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::Duration;

/// The day on which the tests with fixed dates of 2025 and 2026 run the program
/// (`TestDb::with_clock_at`): their invoices of March 2026 long overdue, their reminders due
/// from 1 December 2026 on.
pub const TESTS_DAY: &str = "2026-11-30 12:00";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// A database that exists for one test and is gone after it.
pub struct TestDb {
    pub backend: Backend,
    pub url: String,
    pg_name: Option<String>,
    /// The cluster the database lives on (its superuser URL), for dropping it.
    pg_admin: Option<String>,
    /// The clock the program runs under on this database (`with_clock_at`), in seconds from
    /// the real clock; `None`: the tests' own.
    pub clock: Option<i64>,
    _dir: Option<tempfile::TempDir>,
}

pub fn pg_admin_url() -> String {
    std::env::var("RECEIPTS_TEST_PG_URL").unwrap_or_else(|_| {
        panic!(
            "RECEIPTS_TEST_PG_URL is not set: PostgreSQL tests need a server. Run the suite with \
             scripts/test, which starts a throwaway PostgreSQL and PgBouncer"
        )
    })
}

pub fn pg_de_admin_url() -> String {
    std::env::var("RECEIPTS_TEST_PG_DE_URL").unwrap_or_else(|_| {
        panic!("RECEIPTS_TEST_PG_DE_URL is not set: run the suite with scripts/test, which starts a German-language PostgreSQL")
    })
}

pub fn pgbouncer_url() -> String {
    std::env::var("RECEIPTS_TEST_PGBOUNCER_URL").unwrap_or_else(|_| {
        panic!(
            "RECEIPTS_TEST_PGBOUNCER_URL is not set: run the suite with scripts/test, which starts PgBouncer"
        )
    })
}

/// `url` with its database name replaced.
pub fn with_database(url: &str, name: &str) -> String {
    let (base, _) = url.rsplit_once('/').expect("a postgres URL ends in /database");
    format!("{base}/{name}")
}

fn admin() -> PgConnection {
    PgConnection::establish(&pg_admin_url()).expect("connect to the test PostgreSQL")
}

/// The migrated template every test database is cloned from, made once per test binary.
fn template() -> &'static str {
    static TEMPLATE: OnceLock<String> = OnceLock::new();
    TEMPLATE.get_or_init(|| {
        let name = format!("receipts_tmpl_{}", std::process::id());
        admin().batch_execute(&format!("CREATE DATABASE {name}")).expect("create the template database");
        let mut conn =
            PgConnection::establish(&with_database(&pg_admin_url(), &name)).expect("connect to the template");
        conn.run_pending_migrations(receipts::db::POSTGRES_MIGRATIONS).expect("migrate the template");
        name
    })
}

static NEXT: AtomicUsize = AtomicUsize::new(0);

fn unique_name(prefix: &str) -> String {
    format!("{prefix}_{}_{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed))
}

impl TestDb {
    pub fn new(backend: Backend) -> TestDb {
        match backend {
            Backend::Sqlite => TestDb::sqlite(),
            Backend::Postgres => TestDb::postgres(),
        }
    }

    pub fn sqlite() -> TestDb {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let url = dir.path().join("receipts.db").to_string_lossy().into_owned();
        TestDb { backend: Backend::Sqlite, url, pg_name: None, pg_admin: None, clock: None, _dir: Some(dir) }
    }

    /// A migrated PostgreSQL database of this test's own.
    pub fn postgres() -> TestDb {
        let name = unique_name("receipts_test");
        admin()
            .batch_execute(&format!("CREATE DATABASE {name} TEMPLATE {}", template()))
            .expect("clone the template database");
        TestDb::adopt_postgres(name)
    }

    /// An empty PostgreSQL database (no schema), for migration tests.
    pub fn empty_postgres() -> TestDb {
        let name = unique_name("receipts_empty");
        admin().batch_execute(&format!("CREATE DATABASE {name}")).expect("create a database");
        TestDb::adopt_postgres(name)
    }

    fn adopt_postgres(name: String) -> TestDb {
        TestDb::adopt(pg_admin_url(), name)
    }

    fn adopt(admin_url: String, name: String) -> TestDb {
        let url = with_database(&admin_url, &name);
        TestDb {
            backend: Backend::Postgres,
            url,
            pg_name: Some(name),
            pg_admin: Some(admin_url),
            clock: None,
            _dir: None,
        }
    }

    /// An empty database on the cluster whose messages are German.
    pub fn empty_german_postgres() -> TestDb {
        let admin_url = pg_de_admin_url();
        let name = unique_name("receipts_de");
        PgConnection::establish(&admin_url)
            .expect("connect to the German test PostgreSQL")
            .batch_execute(&format!("CREATE DATABASE {name}"))
            .expect("create a database");
        TestDb::adopt(admin_url, name)
    }

    /// A migrated database on the cluster whose messages are German.
    pub fn german_postgres() -> TestDb {
        let db = TestDb::empty_german_postgres();
        db.connect().migrate().expect("migrate the German database");
        db
    }

    /// From here on the program run on this database (`cli::receipts`) sees the clock at
    /// `when` (UTC, `YYYY-MM-DD HH:MM`), ticking on: for a test that means days of its own,
    /// such as invoices numbered in March 2026 and overdue in December. Such a test derives
    /// nothing from its own clock.
    pub fn with_clock_at(mut self, when: &str) -> TestDb {
        let when = NaiveDateTime::parse_from_str(when, "%Y-%m-%d %H:%M")
            .unwrap_or_else(|e| panic!("{when:?} is no YYYY-MM-DD HH:MM: {e}"));
        self.clock = Some((when - cli::real_now()).num_seconds());
        self
    }

    /// Now (UTC) on the program's clock on this database.
    pub fn now(&self) -> NaiveDateTime {
        match self.clock {
            Some(offset) => cli::real_now() + chrono::Duration::seconds(offset),
            None => chrono::Utc::now().naive_utc(),
        }
    }

    /// Today in Zurich, where the tests' stringers work (`Shop::stringer`), on the program's
    /// clock: the day a command run now counts as today.
    pub fn today(&self) -> chrono::NaiveDate {
        self.now().and_utc().with_timezone(&chrono_tz::Europe::Zurich).date_naive()
    }

    /// This year in Zurich on the program's clock: the year of a number issued now.
    pub fn this_year(&self) -> i32 {
        use chrono::Datelike;
        self.today().year()
    }

    /// The same database reached through PgBouncer in transaction-pooling mode.
    pub fn pgbouncer_url(&self) -> String {
        let name = self.pg_name.as_deref().expect("PgBouncer fronts PostgreSQL databases only");
        with_database(&pgbouncer_url(), name)
    }

    /// This database, from now on reached through PgBouncer.
    pub fn through_pgbouncer(mut self) -> TestDb {
        self.url = self.pgbouncer_url();
        self
    }

    pub fn connect(&self) -> Db {
        self.connect_with_timeout(DEFAULT_LOCK_TIMEOUT)
    }

    pub fn connect_with_timeout(&self, lock_timeout: Duration) -> Db {
        let url = DatabaseUrl::parse(&self.url).expect("a valid URL");
        Db::connect(&url, lock_timeout).expect("connect to the test database")
    }

    /// Runs SQL outside the program, as an administrator or a test of the schema would.
    pub fn execute(&self, sql: &str) -> Result<(), String> {
        self.connect().without_transaction(|conn| conn.batch_execute(sql)).map_err(|e| e.to_string())
    }

    /// One integer from SQL (NULL as None).
    pub fn query_i64(&self, sql: &str) -> Option<i64> {
        #[derive(QueryableByName)]
        struct Row {
            #[diesel(sql_type = diesel::sql_types::Nullable<BigInt>)]
            value: Option<i64>,
        }
        self.connect()
            .without_transaction(|conn| {
                diesel::sql_query(format!("SELECT CAST(({sql}) AS BIGINT) AS value")).get_result::<Row>(conn)
            })
            .unwrap_or_else(|e| panic!("{sql}: {e}"))
            .value
    }

    /// One text from SQL (NULL as None).
    pub fn query_text(&self, sql: &str) -> Option<String> {
        #[derive(QueryableByName)]
        struct Row {
            #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::Text>)]
            value: Option<String>,
        }
        self.connect()
            .without_transaction(|conn| {
                diesel::sql_query(format!("SELECT ({sql}) AS value")).get_result::<Row>(conn)
            })
            .unwrap_or_else(|e| panic!("{sql}: {e}"))
            .value
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        if let (Some(name), Some(admin_url)) = (&self.pg_name, &self.pg_admin) {
            if let Ok(mut admin) = PgConnection::establish(admin_url) {
                let _ = admin.batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"));
            }
        }
    }
}

/// Adds a stringer and returns it as a tenant.
pub fn stringer(db: &mut Db, handle: &str, zone: &str) -> Tenant {
    db.write(|conn| {
        stringers::add(conn, handle, handle, parse_timezone(zone).unwrap())?;
        Tenant::load(conn, handle)
    })
    .expect("add a stringer")
}

pub fn order(db: &mut Db, tenant: &Tenant) -> OrderId {
    db.write(|conn| {
        orders::add(
            conn,
            tenant,
            receipts::domain::OrderKind::Client,
            None,
            &orders::OrderChanges { price_minor: Some(3500), ..Default::default() },
        )
    })
    .expect("add an order")
}

/// `YYYY-MM-DD HH:MM` as a UTC instant.
/// The names of the files in `dir`, sorted.
pub fn file_names(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

pub fn utc(text: &str) -> NaiveDateTime {
    NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M").expect("YYYY-MM-DD HH:MM")
}

/// The counter of (stringer, year), if the row exists.
pub fn counter(db: &TestDb, tenant: &Tenant, year: i32) -> Option<i64> {
    db.query_i64(&format!(
        "SELECT last_n FROM receipt_counters WHERE stringer_id = {} AND year = {year}",
        tenant.id().0
    ))
}

/// The issued sequence numbers of (stringer, year), ascending.
pub fn issued(db: &TestDb, stringer_id: i64, year: i32) -> Vec<i64> {
    #[derive(QueryableByName)]
    struct Row {
        #[diesel(sql_type = BigInt)]
        receipt_seq: i64,
    }
    db.connect()
        .without_transaction(|conn| {
            diesel::sql_query(format!(
                "SELECT receipt_seq FROM orders WHERE stringer_id = {stringer_id} AND receipt_year = {year} \
                 ORDER BY receipt_seq"
            ))
            .load::<Row>(conn)
        })
        .expect("read issued numbers")
        .into_iter()
        .map(|r| r.receipt_seq)
        .collect()
}

/// Each test body runs once per backend, as `NAME::sqlite` and `NAME::postgres`.
#[macro_export]
macro_rules! on_both_backends {
    ($($(#[$meta:meta])* fn $name:ident($db:ident: TestDb) $body:block)*) => {
        $(
            $(#[$meta])*
            mod $name {
                #[allow(unused_imports, reason = "a test body may use nothing of its file")]
                use super::*;
                fn check($db: $crate::support::TestDb) $body
                #[test]
                fn sqlite() { check($crate::support::TestDb::sqlite()) }
                #[test]
                fn postgres() { check($crate::support::TestDb::postgres()) }
            }
        )*
    };
}

/// Orders holding the given numbers of (stringer, year), inserted as a restore or a person
/// re-entering known numbers would: straight into the table, bypassing the mint.
pub fn insert_numbered(db: &TestDb, tenant: &Tenant, year: i32, seqs: impl IntoIterator<Item = i64>) {
    let rows: Vec<String> = seqs
        .into_iter()
        .map(|seq| {
            format!(
                "({}, 'client', {year}, {seq}, '{year}-06-01 10:00:00', '{year}-06-01 10:00:00', '{year}-06-01 10:00:00')",
                tenant.id().0
            )
        })
        .collect();
    db.execute(&format!(
        "INSERT INTO orders (stringer_id, kind, receipt_year, receipt_seq, strung_at, created_at, updated_at) VALUES {}",
        rows.join(", ")
    ))
    .expect("insert numbered orders");
}
