//! The till's count as the command line asks for it: one stringer or all, a day or a
//! period, in one read transaction (the counter's `/takings` counts in its page's own).

use crate::db::takings::{Counted, Days};
use crate::db::{Db, Tenant};
use crate::error::Error;

/// The takings of the stringer named, or of every stringer.
pub fn takings(db: &mut Db, named: Option<&Tenant>, days: Days) -> Result<Vec<Counted>, Error> {
    db.read(|conn| super::views::takings(conn, named, days))
}
