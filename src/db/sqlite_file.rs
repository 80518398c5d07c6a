//! What only an SQLite file has: a consistent copy of it taken while it is in use, and
//! SQLite's own check of a file.

use super::DbConn;
use diesel::prelude::*;
use diesel::sql_types::Text;
use std::path::Path;

/// Writes a consistent copy of the database into the empty file at `into` (`VACUUM INTO`:
/// one read transaction, so others may go on writing). Runs outside a transaction, as
/// VACUUM must.
pub fn copy_into(conn: &mut DbConn, into: &Path) -> QueryResult<()> {
    diesel::sql_query("VACUUM INTO ?")
        .bind::<Text, _>(into.to_string_lossy().into_owned())
        .execute(conn)
        .map(drop)
}

/// SQLite's integrity check of the database: `ok`, or what it found.
pub fn integrity_check(conn: &mut DbConn) -> QueryResult<Vec<String>> {
    #[derive(QueryableByName)]
    struct Check {
        #[diesel(sql_type = Text)]
        integrity_check: String,
    }
    let checks: Vec<Check> = diesel::sql_query("PRAGMA integrity_check").load(conn)?;
    Ok(checks.into_iter().map(|c| c.integrity_check).collect())
}
