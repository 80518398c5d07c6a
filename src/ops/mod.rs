//! The shop's verbs, one function per action, called by both doors: the command line
//! (`cli/`) and the counter in the browser (`web/`). What owns a transaction, waits for
//! durability, sends mail or writes a file lives here and takes the `Db`; `db/` takes a
//! connection and never begins a transaction; a door makes one call here per action and
//! says what came back in its own words.

pub mod accounts;
pub mod auditor;
pub mod backup;
pub mod batch;
pub mod closures;
pub mod credits;
pub mod documents;
pub mod einvoices;
pub mod journal;
pub mod label;
pub mod mint;
pub mod orders;
pub mod outbox;
pub mod payments;
pub mod register;
pub mod reminders;
pub mod reports;
pub mod resync;
pub mod sessions;
pub mod setup;
pub mod stringers;
pub mod strings;
pub mod takings;
pub mod views;
pub mod void;

use crate::db::{Db, Tenant};
use crate::domain::{CustomerId, OrderId, RacketId, ReceiptNumber};
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

    /// The stringer known or named; with none named, the only one of a database that has
    /// one (a one-stringer shop never needs to say whose).
    pub fn required(&self, db: &mut Db) -> Result<Tenant, Error> {
        match self {
            Whose::Known(tenant) => Ok((*tenant).clone()),
            Whose::Named(Some(handle)) => db.read(|conn| Tenant::load(conn, handle)),
            Whose::Named(None) => db.read(Tenant::only)?.ok_or(Error::WhoseUnsaid),
        }
    }

    /// The stringer known or named, if any.
    pub fn optional(&self, db: &mut Db) -> Result<Option<Tenant>, Error> {
        match self {
            Whose::Known(tenant) => Ok(Some((*tenant).clone())),
            Whose::Named(Some(handle)) => db.read(|conn| Tenant::load(conn, handle)).map(Some),
            Whose::Named(None) => Ok(None),
        }
    }

    /// The stringer known or named, else every stringer (the views over all of them).
    pub fn or_all(&self, db: &mut Db) -> Result<Vec<Tenant>, Error> {
        match self.optional(db)? {
            Some(tenant) => Ok(vec![tenant]),
            None => db.read(Tenant::all),
        }
    }

    /// The stringer known or named, or else the owner of `customer`.
    pub fn of_customer(&self, db: &mut Db, customer: CustomerId) -> Result<Tenant, Error> {
        match self {
            Whose::Known(tenant) => Ok((*tenant).clone()),
            Whose::Named(Some(handle)) => db.read(|conn| Tenant::load(conn, handle)),
            Whose::Named(None) => db.read(|conn| Tenant::owner_of_customer(conn, customer)),
        }
    }

    /// The stringer known or named, or else the owner of `racket`.
    pub fn of_racket(&self, db: &mut Db, racket: RacketId) -> Result<Tenant, Error> {
        match self {
            Whose::Known(tenant) => Ok((*tenant).clone()),
            Whose::Named(Some(handle)) => db.read(|conn| Tenant::load(conn, handle)),
            Whose::Named(None) => db.read(|conn| Tenant::owner_of_racket(conn, racket)),
        }
    }

    /// The order named by its id, or by its receipt number (which needs the stringer), and
    /// whose it is.
    pub fn order_named(&self, db: &mut Db, named: &str) -> Result<(Tenant, OrderId), Error> {
        match named.parse::<ReceiptNumber>() {
            Ok(number) => {
                let tenant = self.required(db)?;
                let order = db.read(|conn| crate::db::receipts::order_holding(conn, &tenant, number))?;
                Ok((tenant, order))
            }
            Err(_) => {
                let order: OrderId =
                    named.parse().map_err(|_: String| Error::NotAnOrder { given: named.to_string() })?;
                Ok((self.of_order(db, order)?, order))
            }
        }
    }
}
