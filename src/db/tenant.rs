//! The tenancy chokepoint: every query a command makes for one stringer (`--stringer H`,
//! or the owner of the order it names) starts from a `Tenant`, so it can only ever see and
//! change that stringer's rows.
//!
//! Exempt, by design, are the views over every stringer, which no `--stringer` scopes:
//! `audit`, `order list` and `receipt --year` without `--stringer`, `resync-counters` (it
//! repairs every counter in one transaction) and `migrate-v1` (a V1 file holds several
//! stringers). They filter by stringer themselves when one is given.

use super::schema::{orders, receipt_counters, stringers};
use super::DbConn;
use crate::domain::{parse_timezone, OrderId, StringerId};
use crate::error::Error;
use chrono_tz::Tz;
use diesel::dsl::{Eq, Filter};
use diesel::prelude::*;

/// The stringer a command acts for.
#[derive(Debug, Clone)]
pub struct Tenant {
    pub id: StringerId,
    pub handle: String,
    pub timezone: Tz,
}

impl Tenant {
    /// This stringer's orders and nobody else's.
    pub fn orders(&self) -> Filter<orders::table, Eq<orders::stringer_id, i64>> {
        orders::table.filter(orders::stringer_id.eq(self.id.0))
    }

    /// This stringer's counters and nobody else's.
    pub fn counters(&self) -> Filter<receipt_counters::table, Eq<receipt_counters::stringer_id, i64>> {
        receipt_counters::table.filter(receipt_counters::stringer_id.eq(self.id.0))
    }

    /// The stringer with this handle (handles ignore case).
    pub fn load(conn: &mut DbConn, handle: &str) -> Result<Tenant, Error> {
        let stringer = super::stringers::find(conn, handle)?;
        Tenant::from_row((stringer.id, stringer.handle, stringer.timezone))
    }

    /// The stringer who owns an order, for commands run without `--stringer`.
    pub fn owner_of(conn: &mut DbConn, order: OrderId) -> Result<Tenant, Error> {
        let row = orders::table
            .inner_join(stringers::table)
            .filter(orders::id.eq(order.0))
            .select((stringers::id, stringers::handle, stringers::timezone))
            .first::<(i64, String, String)>(conn)
            .optional()?
            .ok_or(Error::NoSuchOrder { order, stringer: None })?;
        Tenant::from_row(row)
    }

    fn from_row((id, handle, timezone): (i64, String, String)) -> Result<Tenant, Error> {
        let timezone = parse_timezone(&timezone).map_err(|e| {
            Error::Refused(format!("stringer {handle} has a time zone this program does not know: {e}"))
        })?;
        Ok(Tenant { id: StringerId(id), handle, timezone })
    }

    /// The error for an order id this stringer does not have.
    pub fn no_such_order(&self, order: OrderId) -> Error {
        Error::NoSuchOrder { order, stringer: Some(self.handle.clone()) }
    }
}
