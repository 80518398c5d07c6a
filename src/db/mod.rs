//! The database: one connection type over PostgreSQL and SQLite, chosen from the URL, the
//! embedded migrations, and the write transaction every change goes through.
//!
//! Policy: nothing here relies on session state, so PostgreSQL may sit behind PgBouncer in
//! transaction-pooling mode. Statements are never cached as named prepared statements; the
//! lock timeout is set with `SET LOCAL` inside each write transaction.

pub mod audit;
pub mod counters;
pub mod events;
pub mod mint;
pub mod orders;
pub mod resync;
pub mod schema;
pub mod stringers;
pub mod tenant;
pub mod void;

use crate::error::Error;
use diesel::connection::{AnsiTransactionManager, CacheSize, SimpleConnection, TransactionManager};
use diesel::prelude::*;
use diesel::{PgConnection, SqliteConnection};
use diesel_migrations::{embed_migrations, EmbeddedMigrations, MigrationHarness};
use std::path::PathBuf;
use std::time::Duration;

pub use tenant::Tenant;

pub const POSTGRES_MIGRATIONS: EmbeddedMigrations = embed_migrations!("migrations/postgres");
pub const SQLITE_MIGRATIONS: EmbeddedMigrations = embed_migrations!("migrations/sqlite");

/// How long a write waits for a lock before it gives up with a retryable error.
pub const DEFAULT_LOCK_TIMEOUT: Duration = Duration::from_secs(5);

#[derive(diesel::MultiConnection)]
pub enum DbConn {
    Postgres(PgConnection),
    Sqlite(SqliteConnection),
}

/// Where the data lives, read from `--database-url` / `DATABASE_URL`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DatabaseUrl {
    Postgres(String),
    Sqlite(String),
}

impl DatabaseUrl {
    /// `postgres://` or `postgresql://` is PostgreSQL; `sqlite://PATH`, `file:PATH` or a
    /// plain path is an SQLite file.
    pub fn parse(url: &str) -> Result<DatabaseUrl, Error> {
        let url = url.trim();
        if url.is_empty() {
            return Err(Error::Usage("the database URL is empty".into()));
        }
        if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            return Ok(DatabaseUrl::Postgres(url.to_string()));
        }
        if let Some(path) = url.strip_prefix("sqlite://") {
            return Ok(DatabaseUrl::Sqlite(path.to_string()));
        }
        if url.starts_with("file:") {
            return Ok(DatabaseUrl::Sqlite(url.to_string()));
        }
        if let Some((scheme, _)) = url.split_once("://") {
            return Err(Error::Usage(format!(
                "unsupported database URL scheme \"{scheme}\": use postgres://..., sqlite://PATH or a file path"
            )));
        }
        Ok(DatabaseUrl::Sqlite(url.to_string()))
    }

    /// The SQLite file in the platform's data directory, used when no URL is given.
    pub fn default_sqlite() -> Result<DatabaseUrl, Error> {
        let dir = dirs::data_dir().map(|d| d.join("receipts")).ok_or_else(|| {
            Error::Usage("no data directory on this machine: pass --database-url or set DATABASE_URL".into())
        })?;
        std::fs::create_dir_all(&dir).map_err(|e| Error::Unreachable {
            url: dir.display().to_string(),
            reason: format!("cannot create the data directory: {e}"),
        })?;
        Ok(DatabaseUrl::Sqlite(path_text(dir.join("receipts.db"))))
    }

    /// The URL with any password replaced, fit for messages.
    pub fn redacted(&self) -> String {
        match self {
            DatabaseUrl::Sqlite(path) => path.clone(),
            DatabaseUrl::Postgres(url) => redact_password(url),
        }
    }
}

fn path_text(path: PathBuf) -> String {
    path.to_string_lossy().into_owned()
}

fn redact_password(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    let Some((credentials, host)) = authority.rsplit_once('@') else {
        return url.to_string();
    };
    let user = credentials.split_once(':').map_or(credentials, |(user, _)| user);
    let tail = redact_query_password(tail);
    if credentials.contains(':') {
        format!("{scheme}://{user}:***@{host}{tail}")
    } else {
        format!("{scheme}://{credentials}@{host}{tail}")
    }
}

fn redact_query_password(tail: &str) -> String {
    let Some((path, query)) = tail.split_once('?') else {
        return tail.to_string();
    };
    let query: Vec<String> = query
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some((key, _)) if key.eq_ignore_ascii_case("password") => format!("{key}=***"),
            _ => pair.to_string(),
        })
        .collect();
    format!("{path}?{}", query.join("&"))
}

/// An open database: the connection and the settings every transaction uses.
pub struct Db {
    conn: DbConn,
    lock_timeout: Duration,
}

impl Db {
    /// Connects, prepares the session (SQLite pragmas; no statement cache on PostgreSQL)
    /// and, for SQLite, applies pending migrations.
    pub fn connect(url: &DatabaseUrl, lock_timeout: Duration) -> Result<Db, Error> {
        let unreachable = |reason: String| Error::Unreachable { url: url.redacted(), reason };
        let conn = match url {
            DatabaseUrl::Postgres(text) => {
                let mut conn = PgConnection::establish(&with_connect_timeout(text))
                    .map_err(|e| unreachable(first_line(&e.to_string())))?;
                // PgBouncer in transaction mode hands each transaction to any server
                // connection: a named prepared statement may not be there next time.
                conn.set_prepared_statement_cache_size(CacheSize::Disabled);
                DbConn::Postgres(conn)
            }
            DatabaseUrl::Sqlite(path) => {
                let mut conn =
                    SqliteConnection::establish(path).map_err(|e| unreachable(first_line(&e.to_string())))?;
                conn.batch_execute(&format!(
                    "PRAGMA busy_timeout = {}; PRAGMA journal_mode = WAL; \
                     PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;",
                    lock_timeout.as_millis()
                ))
                .map_err(|e| unreachable(e.to_string()))?;
                DbConn::Sqlite(conn)
            }
        };
        let mut db = Db { conn, lock_timeout };
        if matches!(url, DatabaseUrl::Sqlite(_)) {
            db.migrate()?;
        }
        Ok(db)
    }

    pub fn conn(&mut self) -> &mut DbConn {
        &mut self.conn
    }

    /// The PostgreSQL connection, for the statements that are PostgreSQL's own.
    pub fn postgres(&mut self) -> Option<&mut PgConnection> {
        match &mut self.conn {
            DbConn::Postgres(pg) => Some(pg),
            DbConn::Sqlite(_) => None,
        }
    }

    pub fn lock_timeout(&self) -> Duration {
        self.lock_timeout
    }

    /// Applies the embedded migrations this database lacks; returns their names.
    pub fn migrate(&mut self) -> Result<Vec<String>, Error> {
        let applied = match &mut self.conn {
            DbConn::Postgres(c) => c.run_pending_migrations(POSTGRES_MIGRATIONS),
            DbConn::Sqlite(c) => c.run_pending_migrations(SQLITE_MIGRATIONS),
        }
        .map_err(|e| Error::Refused(format!("cannot migrate the database: {e}")))?;
        Ok(applied.iter().map(ToString::to_string).collect())
    }

    /// Runs `work` in one write transaction: committed if it returns `Ok`, rolled back
    /// otherwise. Lock waits are bounded by the lock timeout.
    ///
    /// SQLite takes the write lock up front (`BEGIN IMMEDIATE`): a deferred transaction that
    /// reads first and writes later fails with "database is locked" under contention.
    pub fn write<T, E>(&mut self, work: impl FnOnce(&mut DbConn) -> Result<T, E>) -> Result<T, E>
    where
        E: From<diesel::result::Error>,
    {
        type Manager = <DbConn as Connection>::TransactionManager;
        match &mut self.conn {
            DbConn::Sqlite(c) => AnsiTransactionManager::begin_transaction_sql(c, "BEGIN IMMEDIATE")?,
            DbConn::Postgres(c) => {
                AnsiTransactionManager::begin_transaction(c)?;
                let timeout = format!("SET LOCAL lock_timeout = {}", self.lock_timeout.as_millis());
                if let Err(e) = c.batch_execute(&timeout) {
                    let _ = AnsiTransactionManager::rollback_transaction(c);
                    return Err(e.into());
                }
            }
        }
        match work(&mut self.conn) {
            Ok(value) => match Manager::commit_transaction(&mut self.conn) {
                Ok(()) => Ok(value),
                Err(e) => {
                    let _ = Manager::rollback_transaction(&mut self.conn);
                    Err(e.into())
                }
            },
            Err(e) => {
                let _ = Manager::rollback_transaction(&mut self.conn);
                Err(e)
            }
        }
    }
}

/// Connecting waits at most this long for a server that does not answer, unless the URL
/// says otherwise (`?connect_timeout=N`): libpq alone would wait for TCP to give up.
const CONNECT_TIMEOUT_SECONDS: u32 = 10;

fn with_connect_timeout(url: &str) -> String {
    if url.contains("connect_timeout=") {
        return url.to_string();
    }
    let separator = if url.contains('?') { '&' } else { '?' };
    format!("{url}{separator}connect_timeout={CONNECT_TIMEOUT_SECONDS}")
}

fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or_default().trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chooses_the_backend_from_the_url() {
        let pg = |u: &str| DatabaseUrl::Postgres(u.into());
        let lite = |p: &str| DatabaseUrl::Sqlite(p.into());
        assert_eq!(DatabaseUrl::parse("postgres://u@h/db").unwrap(), pg("postgres://u@h/db"));
        assert_eq!(DatabaseUrl::parse("postgresql://h/db").unwrap(), pg("postgresql://h/db"));
        assert_eq!(DatabaseUrl::parse("sqlite:///var/r.db").unwrap(), lite("/var/r.db"));
        assert_eq!(DatabaseUrl::parse("sqlite://r.db").unwrap(), lite("r.db"));
        assert_eq!(DatabaseUrl::parse("file:r.db").unwrap(), lite("file:r.db"));
        assert_eq!(DatabaseUrl::parse("data/r.db").unwrap(), lite("data/r.db"));
        assert!(matches!(DatabaseUrl::parse("mysql://h/db"), Err(Error::Usage(_))));
    }

    #[test]
    fn bounds_the_wait_for_a_server_unless_the_url_does() {
        assert_eq!(with_connect_timeout("postgres://h/db"), "postgres://h/db?connect_timeout=10");
        assert_eq!(
            with_connect_timeout("postgres://h/db?sslmode=require"),
            "postgres://h/db?sslmode=require&connect_timeout=10"
        );
        assert_eq!(
            with_connect_timeout("postgres://h/db?connect_timeout=3"),
            "postgres://h/db?connect_timeout=3"
        );
    }

    #[test]
    fn never_shows_a_password() {
        let url = DatabaseUrl::parse("postgres://app:s3cret@db:5432/r?password=other&x=1").unwrap();
        assert_eq!(url.redacted(), "postgres://app:***@db:5432/r?password=***&x=1");
        let url = DatabaseUrl::parse("postgres://app@db/r").unwrap();
        assert_eq!(url.redacted(), "postgres://app@db/r");
    }
}
