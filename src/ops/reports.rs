//! What the books say, read in one transaction each: the journal, the audit, the queue, the
//! year's orders for the export, the VAT report's periods, the bank transactions listed.
//! The doors lay them out.

use crate::db::audit::{self, YearAudit};
use crate::db::credits::{self, CreditNote};
use crate::db::events::{self, Logged};
use crate::db::listed_payments::{self, ListedPayment};
use crate::db::listings::{self, Basis, Filter, Listed};
use crate::db::orders::Order;
use crate::db::part_payments::Part;
use crate::db::queue::{self, Queue};
use crate::db::receipts::Frozen;
use crate::db::stock::{self, Stocked};
use crate::db::{Db, Tenant};
use crate::domain::{day_start, Refund, VatRate};
use crate::error::Error;
use crate::ops::journal::{self, ClosuresVerified, Verified};
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
        tenants.iter().map(|tenant| journal::verify_journal(conn, tenant, public_key, anchors)).collect()
    })
}

/// What `audit --verify` and the auditor's `verify.txt` say of the chains and closures
/// verified: a line per finding, the first break (if any), and last, whatever the outcome
/// short of a break, the anchors used and what they cannot prove.
#[derive(Debug, Default)]
pub struct Verification {
    pub lines: Vec<String>,
    pub broken: Option<String>,
}

/// The report of `verified` against the public key and the closure digests given.
pub fn verification(
    verified: &[(Verified, Option<ClosuresVerified>)],
    public_key: Option<&str>,
    anchors: &[String],
) -> Verification {
    let mut report = Verification::default();
    let count = crate::domain::count;
    let mut found_anchors: Vec<&String> = Vec::new();
    for (chain, closures) in verified {
        let who = &chain.stringer;
        match (&chain.broken, &chain.head) {
            (Some(why), _) => {
                report.lines.push(format!("{who}: the journal is broken at event {}: {}", why.seq, why.what));
                report.broken = report.broken.take().or(Some(why.to_string()));
            }
            (None, Some(head)) => report.lines.push(format!(
                "{who}: {} chained, head {}",
                count(chain.events as usize, "event"),
                &head[..16.min(head.len())]
            )),
            (None, None) => report.lines.push(format!("{who}: no events yet")),
        }
        let Some(closures) = closures else { continue };
        if let Some(why) = &closures.broken {
            let at =
                if why.closure > 0 { format!("closure {}", why.closure) } else { "its keys".to_string() };
            report.lines.push(format!("{who}: the closures are broken at {at}: {}", why.what));
            report.broken = report.broken.take().or(Some(format!("stringer {who}, {at}: {}", why.what)));
            continue;
        }
        match &closures.last {
            Some((seq, day, digest)) => report.lines.push(format!(
                "{who}: {} signed and summed again, the last {seq} of {day}, digest {digest}; keys recorded: {}",
                count(closures.count as usize, "closure"),
                closures.keys.join(", ")
            )),
            None => report.lines.push(format!("{who}: no closures yet")),
        }
        for (event, first, last) in &closures.lost {
            report.lines.push(format!(
                "{who}: closures {first}..{last} were lost in the restore declared at event {event}, not removed in secret"
            ));
        }
        found_anchors.extend(&closures.anchors_found);
    }
    for anchor in anchors {
        if report.broken.is_none() && !found_anchors.contains(&anchor) {
            report.lines.push(format!("the anchor {anchor} is not the digest of any closure in the journal"));
            report.broken = Some(format!(
                "the anchor {anchor} was not found: the closures were rewritten or removed since it was kept"
            ));
        }
    }
    if report.broken.is_none() {
        let mut used = Vec::new();
        if let Some(key) = public_key {
            used.push(format!("the public key {}", crate::signing::fingerprint(key)));
        }
        if !anchors.is_empty() {
            used.push(count(anchors.len(), "closure digest"));
        }
        let used = if used.is_empty() { "none".to_string() } else { used.join(" and ") };
        report.lines.push(format!(
            "anchors used: {used}; not proven: whoever holds the database can recompute a chain from its \
             start, which only a public key and closure digests kept outside it show, and events after the \
             last closure whose digest left the database can be removed without a trace"
        ));
    }
    report
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

/// The part payments received in a period by the stringer named (or by each stringer), in
/// days of its own calendar (`last` excluded), each with its order and the VAT rate its
/// document shows.
pub fn part_payments_of_period(
    db: &mut Db,
    named: Option<&Tenant>,
    (first, last): (NaiveDate, NaiveDate),
    mut each: impl FnMut(&Tenant, &Part, &Order, Option<VatRate>) -> Result<(), Error>,
) -> Result<(), Error> {
    db.read(|conn| {
        let frozen = Frozen::load(conn, named)?;
        for tenant in &tenants(conn, named)? {
            let bounds = (day_start(first, tenant.zone()), day_start(last, tenant.zone()));
            for (part, order) in crate::db::part_payments::in_period_with_orders(conn, tenant, bounds)? {
                let rate = frozen.vat_rate(&order, tenant)?;
                each(tenant, &part, &order, rate)?;
            }
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
