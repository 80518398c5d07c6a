//! The counter's accounts, as the command line keeps them (`db::accounts` holds the rules:
//! hashing, throttling, sessions).

use crate::db::accounts::{self, Account, Role};
use crate::db::{Db, Tenant};
use crate::domain::Language;
use crate::error::Error;

pub fn add(
    db: &mut Db,
    tenant: &Tenant,
    username: &str,
    password: &str,
    role: Role,
    language: Option<Language>,
) -> Result<(), Error> {
    db.write(|conn| accounts::add(conn, tenant, username, password, role, language))
}

pub fn list(db: &mut Db) -> Result<Vec<Account>, Error> {
    db.read(accounts::list)
}

/// A new password; the account's sessions end.
pub fn passwd(db: &mut Db, username: &str, password: &str) -> Result<(), Error> {
    db.write(|conn| accounts::passwd(conn, username, password))
}

/// Whether this disabled it (false: it was disabled already); its sessions end.
pub fn disable(db: &mut Db, username: &str) -> Result<bool, Error> {
    db.write(|conn| accounts::disable(conn, username))
}
