//! What the books say, read in one transaction each: the journal, the audit, the queue, the
//! year's orders for the export, the VAT report's periods, the bank transactions listed.
//! The doors lay them out.

use crate::db::audit::{self, YearAudit};
use crate::db::chain::Verified;
use crate::db::closures::{self, ClosuresVerified};
use crate::db::credits::{self, CreditNote};
use crate::db::events::{self, Logged};
use crate::db::listed_payments::{self, ListedPayment};
use crate::db::listings::{self, Basis, Filter, Listed};
use crate::db::orders::Order;
use crate::db::queue::{self, Queue};
use crate::db::receipts::Frozen;
use crate::db::stock::{self, Stocked};
use crate::db::{Db, Tenant};
use crate::domain::{day_start, Refund, VatRate};
use crate::error::Error;
use chrono::{NaiveDate, NaiveDateTime};

/// The journal's entries of the stringer (or all), of a year (or all), oldest first.
pub fn journal(
    db: &mut Db,
    tenant: Option<&Tenant>,
    year: Option<i32>,
    each: impl FnMut(Logged<'_>) -> Result<(), Error>,
) -> Result<(), Error> {
    db.read(|conn| events::for_each(conn, tenant, year, each))
}

/// Each stringer's journal chain recomputed from its genesis (`db::chain::verify`), then its
/// closures (`db::closures::verify`) against the key and digests kept outside.
pub fn verify_chains(
    db: &mut Db,
    tenants: &[Tenant],
    public_key: Option<&str>,
    anchors: &[String],
) -> Result<Vec<(Verified, Option<ClosuresVerified>)>, Error> {
    db.read(|conn| {
        tenants.iter().map(|tenant| closures::verify_journal(conn, tenant, public_key, anchors)).collect()
    })
}

/// Every (stringer, year) sequence checked: gapless, each gap explained.
pub fn audit(db: &mut Db, tenant: Option<&Tenant>, year: Option<i32>) -> Result<Vec<YearAudit>, Error> {
    db.read(|conn| audit::audit(conn, tenant, year))
}

/// Each stringer's queue at `now`, with the strings in stock that run low.
pub fn queues(
    db: &mut Db,
    tenants: Vec<Tenant>,
    now: NaiveDateTime,
) -> Result<Vec<(Tenant, Queue, Vec<Stocked>)>, Error> {
    db.read(|conn| {
        tenants
            .into_iter()
            .map(|tenant| {
                let queue = queue::of(conn, &tenant, now)?;
                let low = stock::list(conn, &tenant)?.into_iter().filter(Stocked::is_low).collect();
                Ok((tenant, queue, low))
            })
            .collect()
    })
}

/// Every order of the year, with the VAT rate its document shows (an error when the rate
/// cannot be read: a receipt numbered before rates were kept).
pub fn orders_of_year(
    db: &mut Db,
    tenant: Option<&Tenant>,
    year: i32,
    mut each: impl FnMut(&Listed<'_>, Result<Option<VatRate>, Error>) -> Result<(), Error>,
) -> Result<(), Error> {
    let filter = Filter { year: Some(year), ..Filter::default() };
    db.read(|conn| {
        let frozen = Frozen::load(conn, tenant)?;
        listings::for_each(conn, tenant, &filter, None, |_, listed| {
            let rate = frozen.vat_rate(&listed.order, listed.stringer);
            each(&listed, rate)
        })
    })
}

/// The orders of a period of the stringer named (or of each stringer), in days of its own
/// calendar (`last` included), on the basis asked, with the VAT rate each document shows.
pub fn orders_of_period(
    db: &mut Db,
    named: Option<&Tenant>,
    basis: Basis,
    (first, last): (NaiveDate, NaiveDate),
    mut each: impl FnMut(&Tenant, Order, Option<VatRate>) -> Result<(), Error>,
) -> Result<(), Error> {
    db.read(|conn| {
        let frozen = Frozen::load(conn, named)?;
        for tenant in &tenants(conn, named)? {
            let bounds = (day_start(first, tenant.zone()), day_start(last, tenant.zone()));
            listings::for_each_in_period(conn, tenant, basis, bounds, |order| {
                let rate = frozen.vat_rate(&order, tenant)?;
                each(tenant, order, rate)
            })?;
        }
        Ok(())
    })
}

/// The credit notes of the year of the stringer named (or of each stringer), each with its
/// original.
pub fn credits_of_year(
    db: &mut Db,
    named: Option<&Tenant>,
    year: i32,
    mut each: impl FnMut(&Tenant, CreditNote, Order) -> Result<(), Error>,
) -> Result<(), Error> {
    db.read(|conn| {
        for tenant in &tenants(conn, named)? {
            for note in credits::of_year(conn, tenant, year)? {
                let Some(order) = note.order else { continue };
                let original = crate::db::orders::find(conn, tenant, order)?;
                each(tenant, note, original)?;
            }
        }
        Ok(())
    })
}

/// The credit notes a period's VAT report lowers: every one issued in it on the agreed
/// basis; on the received basis only those that paid money back.
pub fn credits_of_period(
    db: &mut Db,
    named: Option<&Tenant>,
    basis: Basis,
    (first, last): (NaiveDate, NaiveDate),
    mut each: impl FnMut(&Tenant, CreditNote) -> Result<(), Error>,
) -> Result<(), Error> {
    db.read(|conn| {
        for tenant in &tenants(conn, named)? {
            let bounds = (day_start(first, tenant.zone()), day_start(last, tenant.zone()));
            for note in credits::in_period(conn, tenant, bounds)? {
                if basis == Basis::Agreed || note.refund != Refund::None {
                    each(tenant, note)?;
                }
            }
        }
        Ok(())
    })
}

/// The stringer named, or every stringer.
fn tenants(conn: &mut crate::db::DbConn, named: Option<&Tenant>) -> Result<Vec<Tenant>, Error> {
    match named {
        Some(tenant) => Ok(vec![tenant.clone()]),
        None => Tenant::all(conn),
    }
}

/// The bank transactions imports listed for somebody to look at (only those open).
pub fn listed_payments(
    db: &mut Db,
    tenants: &[Tenant],
    open_only: bool,
) -> Result<Vec<ListedPayment>, Error> {
    db.read(|conn| listed_payments::listed(conn, tenants, open_only))
}
