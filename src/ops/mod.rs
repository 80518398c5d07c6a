//! The shop's verbs, one function per action, called by both doors: the command line
//! (`cli/`) and the counter in the browser (`web/`). What owns a transaction, waits for
//! durability, sends mail or writes a file lives here and takes the `Db`; `db/` takes a
//! connection and never begins a transaction; a door makes one call here per action and
//! says what came back in its own words.

pub mod backup;
pub mod label;
pub mod mint;
pub mod outbox;
pub mod payments;
pub mod resync;
pub mod takings;
pub mod void;

use crate::db::{Db, Tenant};
use crate::domain::OrderId;
use crate::error::Error;

/// Whose data an action is about: the stringer of the counter's session, or the one named
/// on the command line (none named: the order's own, or the only stringer).
#[derive(Debug, Clone, Copy)]
pub enum Whose<'a> {
    Known(&'a Tenant),
    Named(Option<&'a str>),
}

impl Whose<'_> {
    /// The handle named or known, if any.
    pub fn handle(&self) -> Option<&str> {
        match self {
            Whose::Known(tenant) => Some(tenant.handle()),
            Whose::Named(handle) => *handle,
        }
    }

    /// The stringer of `order`: the one known, the one named, or else the order's owner.
    pub fn of_order(&self, db: &mut Db, order: OrderId) -> Result<Tenant, Error> {
        match self {
            Whose::Known(tenant) => Ok((*tenant).clone()),
            Whose::Named(handle) => db.read(|conn| Tenant::named_or_owner(conn, *handle, order)),
        }
    }
}
