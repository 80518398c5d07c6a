//! The database: one connection type over PostgreSQL and SQLite, chosen from the URL, the
//! embedded migrations, and the transactions every read and change go through.
//!
//! Policy: nothing here relies on session state, so PostgreSQL may sit behind PgBouncer in
//! transaction-pooling mode. Statements are never cached as named prepared statements; the
//! lock timeout is set inside each transaction, by the `receipts_begin` call that takes its
//! table locks. Every wait is bounded: for the server, for a lock, for a pooler's queue.

pub mod accounts;
pub mod applied_payments;
pub mod audit;
pub mod chain;
pub mod closures;
mod connect;
pub use connect::keep_stderr;
pub mod counters;
pub mod credits;
pub mod customers;
pub mod document_hash;
pub mod document_vat;
pub mod einvoices;
pub mod events;
pub mod failure;
pub mod intake;
pub mod issuers;
pub mod items;
pub mod listed_payments;
pub mod listings;
mod migrations;
pub mod mint;
pub mod order_edit;
pub mod orders;
pub mod part_payments;
pub mod payments;
pub mod queue;
pub mod rackets;
pub mod receipts;
pub mod reminders;
pub mod resync;
pub mod schema;
pub mod sealing;
pub mod sends;
pub mod sqlite_file;
pub mod stock;
pub mod stringers;
pub mod takings;
pub mod tenant;
mod url;
pub mod v1_import;
pub mod vat;
pub mod void;

use crate::error::{first_line, Error};
use diesel::connection::{AnsiTransactionManager, SimpleConnection, TransactionManager};
use diesel::prelude::*;
use diesel::sql_types::{Nullable, Text};
use diesel::{PgConnection, SqliteConnection};
use std::time::{Duration, Instant};

use connect::{connect_postgres, open_sqlite};
pub use failure::{classify, Failure};
pub use migrations::{POSTGRES_MIGRATIONS, SQLITE_MIGRATIONS};
pub use tenant::Tenant;
pub use url::DatabaseUrl;

/// How long a statement waits for a lock before it gives up with a retryable error.
pub const DEFAULT_LOCK_TIMEOUT: Duration = Duration::from_secs(5);

#[derive(diesel::MultiConnection)]
pub enum DbConn {
    Postgres(PgConnection),
    Sqlite(SqliteConnection),
}

/// Inserts many rows: one binary COPY on PostgreSQL; on SQLite one cached prepared
/// statement run per row, which beats multi-row INSERTs there (those are prepared anew each
/// time, and the two-backend connection cannot build them anyway).
macro_rules! insert_all {
    ($conn:expr, $table:expr, $rows:expr) => {
        match $conn {
            $crate::db::DbConn::Postgres(pg) => {
                diesel::copy_from($table).from_insertable($rows).execute(pg).map(drop)
            }
            $crate::db::DbConn::Sqlite(lite) => $rows
                .iter()
                .try_for_each(|row| diesel::insert_into($table).values(row).execute(lite).map(drop)),
        }
    };
}
pub(crate) use insert_all;

/// Readies the connection for a bulk load: on SQLite a 64 MiB page cache (the default 2 MiB
/// holds a few thousand orders; past that every lookup goes to the file).
pub fn prepare_bulk(conn: &mut DbConn) -> QueryResult<()> {
    match conn {
        DbConn::Sqlite(_) => conn.batch_execute("PRAGMA cache_size = -65536"),
        DbConn::Postgres(_) => Ok(()),
    }
}

/// A table a command may have loaded many rows into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Loaded {
    Orders,
    Payments,
}

/// What a command does with the database.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Only reads: an SQLite file must exist and is opened read-only, never migrated.
    Read,
    /// Writes: an SQLite file is created and migrated when needed.
    Write,
    /// `db migrate`: an SQLite file is created, and the caller migrates it.
    Migrate,
}

/// The locks a transaction takes up front, each wait bounded by the lock timeout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lock {
    /// Reads see one consistent state; only a DBA's exclusive table lock holds them up.
    Read,
    /// Writes; on SQLite the whole database (`BEGIN IMMEDIATE`).
    Write,
    /// Writes, and no mint may move a counter until the transaction ends.
    Recount,
    /// Writes, one V1 import at a time.
    Import,
}

impl Lock {
    /// The mode of `receipts_begin` (migrations/postgres/*_bounded_waits).
    fn postgres_mode(self) -> &'static str {
        match self {
            Lock::Read => "read",
            Lock::Write => "write",
            Lock::Recount => "recount",
            Lock::Import => "import",
        }
    }
}

/// An open database: the connection and the settings every transaction uses.
pub struct Db {
    conn: DbConn,
    url: DatabaseUrl,
    lock_timeout: Duration,
    /// An SQLite file opened read-only: its transactions only read.
    read_only: bool,
    /// An SQLite file this opening created.
    created: bool,
    /// The connection was lost in a transaction: a pool replaces it.
    lost: bool,
    /// When a transaction last committed on it.
    committed_at: Option<Instant>,
}

impl Db {
    /// Opens the database for writing (SQLite files are created and migrated as needed).
    pub fn connect(url: &DatabaseUrl, lock_timeout: Duration) -> Result<Db, Error> {
        Db::open(url, Access::Write, lock_timeout)
    }

    /// Opens the database for `access`. PostgreSQL: no statement cache (PgBouncer in
    /// transaction mode may hand the next transaction to another server connection), and
    /// the wait for the server bounded. SQLite: the pragmas every connection needs.
    pub fn open(url: &DatabaseUrl, access: Access, lock_timeout: Duration) -> Result<Db, Error> {
        let created = matches!(url, DatabaseUrl::Sqlite(path) if access != Access::Read && !path.exists());
        let conn = match url {
            DatabaseUrl::Postgres(text) => DbConn::Postgres(connect_postgres(url, text)?),
            DatabaseUrl::Sqlite(path) => DbConn::Sqlite(open_sqlite(path, access, lock_timeout)?),
        };
        let read_only = matches!((url, access), (DatabaseUrl::Sqlite(_), Access::Read));
        let mut db =
            Db { conn, url: url.clone(), lock_timeout, read_only, created, lost: false, committed_at: None };
        if let DbConn::Postgres(_) = db.conn {
            db.refuse_newer_postgres()?;
        }
        if let DbConn::Sqlite(_) = db.conn {
            let current = db.sqlite_schema_is_current()?;
            match access {
                Access::Write if !current => {
                    db.migrate()?;
                }
                Access::Read if !current && db.schema_is_behind()? => return Err(Error::NotMigrated),
                _ => {}
            }
        }
        Ok(db)
    }

    /// An empty database of the current schema that lives in memory: what a dry run plans
    /// against when there is no database yet.
    pub fn empty() -> Result<Db, Error> {
        let mut conn = SqliteConnection::establish(":memory:").map_err(|e| Error::Internal {
            what: "an empty database in memory",
            detail: first_line(&e.to_string()),
        })?;
        register_functions(&mut conn)?;
        let url = DatabaseUrl::Sqlite(":memory:".into());
        let mut db = Db {
            conn: DbConn::Sqlite(conn),
            url,
            lock_timeout: DEFAULT_LOCK_TIMEOUT,
            read_only: false,
            created: false,
            lost: false,
            committed_at: None,
        };
        db.migrate()?;
        Ok(db)
    }

    /// The connection outside any transaction, for the statements that cannot run inside
    /// one (SQLite's `VACUUM INTO`) and for an administrator's own SQL. Everything the
    /// program does goes through `read`, `write` or `transaction`.
    /// Whether the server answers (a statement of its own, no transaction).
    pub fn ping(&mut self) -> Result<(), Error> {
        use diesel::RunQueryDsl;
        self.without_transaction(|conn| diesel::sql_query("SELECT 1").execute(conn))?;
        Ok(())
    }

    pub fn without_transaction<T>(&mut self, work: impl FnOnce(&mut DbConn) -> T) -> T {
        work(&mut self.conn)
    }

    /// After a bulk load: PostgreSQL's planner learns the table's new size now, not when
    /// autovacuum next comes by (until then it may scan the whole table for a few rows).
    /// Best effort: the load has committed, and a role that does not own the table is
    /// only warned.
    pub fn refresh_statistics(&mut self, table: Loaded) {
        if let DbConn::Postgres(pg) = &mut self.conn {
            let _ = pg.batch_execute(match table {
                Loaded::Orders => "ANALYZE orders",
                Loaded::Payments => "ANALYZE payments",
            });
        }
    }

    /// Whether opening it made a new SQLite file.
    pub fn is_new(&self) -> bool {
        self.created
    }

    /// Whether the connection was lost in a transaction (and is no use any more).
    pub fn is_lost(&self) -> bool {
        self.lost
    }

    /// Whether a transaction committed on the connection within `span`.
    pub fn committed_within(&self, span: Duration) -> bool {
        self.committed_at.is_some_and(|at| at.elapsed() < span)
    }

    pub fn is_sqlite(&self) -> bool {
        matches!(self.conn, DbConn::Sqlite(_))
    }

    /// The PostgreSQL connection, for the statements that are PostgreSQL's own.
    pub fn postgres(&mut self) -> Option<&mut PgConnection> {
        match &mut self.conn {
            DbConn::Postgres(pg) => Some(pg),
            DbConn::Sqlite(_) => None,
        }
    }

    /// The lock timeout as PostgreSQL's `lock_timeout` setting (milliseconds): at least 1,
    /// since 0 would mean waiting forever there.
    pub fn lock_timeout_setting(&self) -> String {
        self.lock_timeout.as_millis().max(1).to_string()
    }

    /// Runs `work` in one read transaction: one consistent view, every lock wait bounded.
    pub fn read<T>(&mut self, work: impl FnOnce(&mut DbConn) -> Result<T, Error>) -> Result<T, Error> {
        self.transaction(Lock::Read, work)
    }

    /// Runs `work` in one write transaction: committed if it returns `Ok`, rolled back
    /// otherwise.
    pub fn write<T>(&mut self, work: impl FnOnce(&mut DbConn) -> Result<T, Error>) -> Result<T, Error> {
        self.transaction(Lock::Write, work)
    }

    /// Runs `work` in one transaction that first takes `lock`. Every lock wait is bounded
    /// by the lock timeout. A failure is explained where the database can tell more (a
    /// schema that is missing, a file that is read-only or full).
    ///
    /// SQLite takes its write lock up front (`BEGIN IMMEDIATE`): a deferred transaction that
    /// reads first and writes later fails with "database is locked" under contention.
    pub fn transaction<T>(
        &mut self,
        lock: Lock,
        work: impl FnOnce(&mut DbConn) -> Result<T, Error>,
    ) -> Result<T, Error> {
        type Manager = <DbConn as Connection>::TransactionManager;
        let lock_timeout = self.lock_timeout_setting();
        let only_reads = lock == Lock::Read || self.read_only;
        let begun = match &mut self.conn {
            DbConn::Sqlite(c) if only_reads => AnsiTransactionManager::begin_transaction_sql(c, "BEGIN"),
            DbConn::Sqlite(c) => AnsiTransactionManager::begin_transaction_sql(c, "BEGIN IMMEDIATE"),
            // BEGIN and the locks in one round trip (a simple query of two statements; the
            // values are the program's own: digits and a fixed word). Refused, it may leave
            // an aborted transaction open on the server, which the ROLLBACK ends.
            DbConn::Postgres(c) => {
                let begin =
                    format!("BEGIN; SELECT receipts_begin('{lock_timeout}', '{}')", lock.postgres_mode());
                AnsiTransactionManager::begin_transaction_sql(c, &begin).inspect_err(|_| {
                    let _ = c.batch_execute("ROLLBACK");
                })
            }
        };
        let outcome = begun.map_err(Error::from).and_then(|()| work(&mut self.conn));
        let outcome = match outcome {
            Ok(value) => Manager::commit_transaction(&mut self.conn)
                .map(|()| {
                    self.committed_at = Some(Instant::now());
                    value
                })
                .map_err(|e| {
                    match classify(&e) {
                        // COMMIT was sent, its answer never came: saved or not, nobody knows yet.
                        Failure::ConnectionLost(reason) => Error::InDoubt(reason),
                        _ => Error::from(e),
                    }
                }),
            Err(e) => Err(e),
        };
        outcome.map_err(|e| {
            if matches!(e, Error::ConnectionLost(_) | Error::InDoubt(_)) {
                self.lost = true;
            }
            if Manager::transaction_manager_status_mut(&mut self.conn)
                .transaction_depth()
                .ok()
                .flatten()
                .is_some()
            {
                let _ = Manager::rollback_transaction(&mut self.conn);
            }
            self.explain(e)
        })
    }

    /// Makes sure that what this connection read is stored where a failover would take the
    /// database, before a command reports it: a number read back after doubt (SPEC 16).
    ///
    /// After a crash, a restarted primary shows commits that its synchronous standby may
    /// never have received (PostgreSQL replays them from its own disk), and a failover that
    /// follows takes them back. So a small write to the log commits with
    /// `synchronous_commit = on`: the server confirms it only once a synchronous standby has
    /// the log up to it, the earlier commits included. A server that stopped having a
    /// synchronous standby while the commit waited (a standby lost, or this primary being
    /// demoted for a failover) confirms nothing: refused, and worth trying again. A primary
    /// that had none to begin with (pg_auto_failover's `wait_primary`: its standby is gone or
    /// still catching up, so no node can be promoted in its place without first taking
    /// everything from it) holds the number as durably as a fresh mint it would commit now,
    /// which is printed: so is this one. A lone server (one host in the URL, no standby
    /// streaming from it) has nowhere to fail over to. SQLite: always durable once read.
    ///
    /// Only the rare path pays: a mint or an import that commits its own change waits for
    /// the standby anyway.
    pub fn confirm_durable(&mut self) -> Result<(), Error> {
        let several_hosts = self.url.hosts() > 1;
        let DbConn::Postgres(pg) = &mut self.conn else { return Ok(()) };
        // A transactional message in the log: the transaction takes an id and writes to the
        // log, so its commit waits for the standby (an id alone writes nothing, and such a
        // commit waits for nobody). No table is touched, no row contended. Cut off while it
        // commits, it changed nothing of ours: the command fails as unreachable (exit 69).
        let before = pg
            .transaction(|c| {
                diesel::sql_query(
                    "SELECT current_setting('synchronous_standby_names') AS standbys, \
                     (SELECT count(*) FROM pg_stat_replication) AS senders \
                     FROM set_config('synchronous_commit', 'on', true), \
                     pg_logical_emit_message(true, 'receipts', 'confirm on standby')",
                )
                .get_result::<Replication>(c)
            })
            .map_err(Error::from)?;
        // Read after the commit returned: a standby lost while it waited releases the wait
        // (the setting is cleared), and the setting is read anew between statements.
        let after = diesel::sql_query(
            "SELECT current_setting('synchronous_standby_names') AS standbys, 0::bigint AS senders",
        )
        .get_result::<Replication>(pg)
        .map_err(Error::from)?;
        let (synchronous_before, synchronous_after) =
            (!before.standbys.trim().is_empty(), !after.standbys.trim().is_empty());
        let replicated = several_hosts || before.senders > 0;
        let lost_while_waiting = synchronous_before && !synchronous_after;
        if lost_while_waiting && replicated {
            return Err(Error::NotDurable);
        }
        Ok(())
    }

    /// A plain failure, explained where the database can tell more: which file is read-only
    /// or full, or (PostgreSQL, asked of the server) that the schema is missing.
    pub fn explain(&mut self, error: Error) -> Error {
        let Error::Database(cause) = &error else {
            return error;
        };
        match (&self.url, classify(cause)) {
            (DatabaseUrl::Sqlite(path), Failure::ReadOnly) => {
                Error::DatabaseFile { path: path.display().to_string(), problem: "is read-only".into() }
            }
            (DatabaseUrl::Sqlite(path), Failure::DiskFull) => Error::DatabaseFile {
                path: path.display().to_string(),
                problem: "cannot grow: the disk is full".into(),
            },
            (DatabaseUrl::Postgres(_), _) => match self.schema_is_behind() {
                Ok(true) => Error::NotMigrated,
                _ => error,
            },
            _ => error,
        }
    }
}

/// What `confirm_durable` asks of the server's replication.
#[derive(QueryableByName)]
struct Replication {
    #[diesel(sql_type = Text)]
    standbys: String,
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    senders: i64,
}

diesel::define_sql_function! {
    /// Text folded for comparison (`domain::fold`): on PostgreSQL a function of the
    /// migrations, on SQLite the program's own, registered with every connection.
    fn receipts_fold(text: Nullable<Text>) -> Nullable<Text>;
}

/// Readies an SQLite connection for the program's SQL: its functions (the migrations use them).
pub fn register_functions(conn: &mut SqliteConnection) -> QueryResult<()> {
    receipts_fold_utils::register_impl(conn, |text: Option<String>| text.map(|t| crate::domain::fold(&t)))
}

/// A statement written with PostgreSQL's `$1`, `$2` for the connection at hand: SQLite
/// numbers parameters by their first appearance in the text, so it is given `?1`, `?2`.
pub(crate) fn numbered_parameters<'a>(conn: &DbConn, sql: &'a str) -> std::borrow::Cow<'a, str> {
    match conn {
        DbConn::Postgres(_) => sql.into(),
        DbConn::Sqlite(_) => (1..=9)
            .rev()
            .fold(sql.to_string(), |sql, n| sql.replace(&format!("${n}"), &format!("?{n}")))
            .into(),
    }
}
