//! The strings on the shelf: reels recorded, the stock listed (`db::stock` counts it).

use crate::db::stock::{self, Reel, Stocked};
use crate::db::{stringers, Db, Tenant};
use crate::domain::{Length, Price};
use crate::error::Error;

/// A reel bought: `cost` in the stringer's currency. Returns the string's stock after it.
pub fn add_reel(
    db: &mut Db,
    tenant: &Tenant,
    name: &str,
    length: Length,
    cost: Option<Price>,
    low: Option<Length>,
) -> Result<Stocked, Error> {
    let name = name.trim().to_string();
    if name.is_empty() {
        return Err(Error::BadInput("a string needs a name: the name given is empty".into()));
    }
    db.write(|conn| {
        let currency = stringers::profile(conn, tenant)?.currency;
        let reel = Reel { name, length, cost: cost.map(|cost| (cost, currency)), low };
        stock::add_reel(conn, tenant, &reel)
    })
}

pub fn list(db: &mut Db, tenant: &Tenant) -> Result<Vec<Stocked>, Error> {
    db.read(|conn| super::views::strings(conn, tenant))
}
