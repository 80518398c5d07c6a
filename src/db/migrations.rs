//! The schema: the migrations embedded in the program for each backend, applied by
//! `receipts db migrate`, and whether a database has all of them (a command refuses to work
//! on an older schema).

use super::{Db, DbConn};
use crate::error::{first_line, Error};
use diesel::connection::SimpleConnection;
use diesel::migration::MigrationSource;
use diesel::prelude::*;
use diesel::sql_types::{Bool, Text};
use diesel_migrations::{embed_migrations, EmbeddedMigrations};

pub const POSTGRES_MIGRATIONS: EmbeddedMigrations = embed_migrations!("migrations/postgres");
pub const SQLITE_MIGRATIONS: EmbeddedMigrations = embed_migrations!("migrations/sqlite");

impl Db {
    /// Applies the embedded migrations this database lacks; returns their names.
    pub fn migrate(&mut self) -> Result<Vec<String>, Error> {
        use diesel_migrations::MigrationHarness;
        let cannot = |e: &dyn std::fmt::Display| Error::CannotMigrate(first_line(&e.to_string()));
        let applied: Vec<String> = match &mut self.conn {
            DbConn::Postgres(c) => c.run_pending_migrations(POSTGRES_MIGRATIONS),
            DbConn::Sqlite(c) => c.run_pending_migrations(SQLITE_MIGRATIONS),
        }
        .map_err(|e| cannot(&e))?
        .iter()
        .map(ToString::to_string)
        .collect();
        if let DbConn::Sqlite(_) = &self.conn {
            // The events written before the journal was chained, chained now (PostgreSQL's
            // migration does it itself); nothing to do once they are.
            self.write(|conn| Ok(super::chain::chain_all(conn)?))?;
            // And the documents issued before their events carried content hashes, sealed.
            self.write(|conn| Ok(super::sealing::seal_documents(conn)?))?;
            self.conn
                .batch_execute(&format!("PRAGMA user_version = {}", sqlite_schema_version()?))
                .map_err(|e| cannot(&e))?;
        }
        Ok(applied)
    }

    /// SQLite: whether every embedded migration has run, as the file's header says
    /// (`PRAGMA user_version`, set by `migrate`): one read of a page the connection has
    /// read anyway, where asking the migrations table costs a process at the counter
    /// several statements. A file that predates the mark says no, and is asked the long way.
    /// A file marked by a newer program (more migrations than this one has) is refused.
    pub(super) fn sqlite_schema_is_current(&mut self) -> Result<bool, Error> {
        let DbConn::Sqlite(c) = &mut self.conn else { return Ok(false) };
        let marked = diesel::sql_query("PRAGMA user_version").get_result::<UserVersion>(c)?;
        let known = sqlite_schema_version()?;
        if marked.user_version > known {
            let newest = self.newest_applied()?.unwrap_or_else(|| format!("number {}", marked.user_version));
            return Err(Error::NewerSchema { database: newest, program: latest_known(&self.conn)? });
        }
        Ok(marked.user_version == known)
    }

    /// PostgreSQL: a schema with a migration newer than this program's newest is refused.
    /// One statement per connection; a server without the migrations table says nothing
    /// here (the first statement that needs the schema says to migrate).
    pub(super) fn refuse_newer_postgres(&mut self) -> Result<(), Error> {
        let Ok(Some(newest)) = self.newest_applied() else { return Ok(()) };
        let program = latest_known(&self.conn)?;
        if newest > program {
            return Err(Error::NewerSchema { database: newest, program });
        }
        Ok(())
    }

    /// The newest migration applied to this database, if it has the migrations table.
    fn newest_applied(&mut self) -> Result<Option<String>, Error> {
        #[derive(QueryableByName)]
        struct Newest {
            #[diesel(sql_type = diesel::sql_types::Nullable<Text>)]
            version: Option<String>,
        }
        let newest = diesel::sql_query("SELECT max(version) AS version FROM __diesel_schema_migrations")
            .get_result::<Newest>(&mut self.conn)?;
        Ok(newest.version)
    }

    /// Whether this database lacks the schema or some of its migrations. Asked of the
    /// server itself, so it works whatever language the server speaks.
    pub(super) fn schema_is_behind(&mut self) -> Result<bool, Error> {
        let latest = latest_known(&self.conn)?;
        let exists = match self.conn {
            DbConn::Postgres(_) => "to_regclass('__diesel_schema_migrations') IS NOT NULL",
            DbConn::Sqlite(_) => {
                "EXISTS (SELECT 1 FROM sqlite_master WHERE name = '__diesel_schema_migrations')"
            }
        };
        let present =
            diesel::sql_query(format!("SELECT {exists} AS value")).get_result::<Flag>(&mut self.conn)?;
        if !present.value {
            return Ok(true);
        }
        let applied = diesel::sql_query(
            "SELECT EXISTS (SELECT 1 FROM __diesel_schema_migrations WHERE version = $1) AS value"
                .replace("$1", if matches!(self.conn, DbConn::Sqlite(_)) { "?" } else { "$1" }),
        )
        .bind::<Text, _>(&latest)
        .get_result::<Flag>(&mut self.conn)?;
        Ok(!applied.value)
    }
}

/// The newest migration this program embeds for the connection's backend.
fn latest_known(conn: &DbConn) -> Result<String, Error> {
    fn latest<DB: diesel::backend::Backend>(source: &EmbeddedMigrations) -> Result<String, Error> {
        let migrations = MigrationSource::<DB>::migrations(source).map_err(|e| Error::Internal {
            what: "the embedded migrations cannot be read",
            detail: e.to_string(),
        })?;
        Ok(migrations.iter().map(|m| m.name().version().to_string()).max().unwrap_or_default())
    }
    match conn {
        DbConn::Postgres(_) => latest::<diesel::pg::Pg>(&POSTGRES_MIGRATIONS),
        DbConn::Sqlite(_) => latest::<diesel::sqlite::Sqlite>(&SQLITE_MIGRATIONS),
    }
}

#[derive(QueryableByName)]
struct Flag {
    #[diesel(sql_type = Bool)]
    value: bool,
}

/// The mark of an SQLite file that has every embedded migration: their number.
fn sqlite_schema_version() -> Result<i32, Error> {
    let migrations =
        MigrationSource::<diesel::sqlite::Sqlite>::migrations(&SQLITE_MIGRATIONS).map_err(|e| {
            Error::Internal { what: "the embedded migrations cannot be read", detail: e.to_string() }
        })?;
    Ok(migrations.len() as i32)
}

#[derive(QueryableByName)]
struct UserVersion {
    #[diesel(sql_type = diesel::sql_types::Integer)]
    user_version: i32,
}
