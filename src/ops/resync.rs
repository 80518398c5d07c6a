//! Repairing the counters after a restore: every counter compared with the orders while no
//! mint can move one.

use crate::db::resync::{self, CounterChange, Options};
use crate::db::{Db, Lock};
use crate::error::Error;

/// Compares every counter with the orders and repairs it (unless `dry_run`).
pub fn resync_counters(db: &mut Db, options: Options) -> Result<Vec<CounterChange>, Error> {
    // No mint may move a counter meanwhile (SQLite: the write lock keeps every writer out).
    db.transaction(Lock::Recount, |conn| resync::resync_counters(conn, options))
}
