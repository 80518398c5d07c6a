//! The till's count (SPEC 19): the payments received in a period, per currency, method and
//! VAT rate, with the VAT they include. `receipts takings` and the counter's `/takings`.

use super::listings::{self, Basis};
use super::receipts::Frozen;
use super::{DbConn, Tenant};
use crate::domain::{day_start, local_date, now_utc, PaymentMethod, Refund, VatRate};
use crate::error::Error;
use chrono::NaiveDate;
use std::collections::BTreeMap;

/// Payments of one kind, summed.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Sums {
    pub payments: u64,
    /// In minor units of the currency.
    pub amount: i64,
    /// The VAT the amount includes.
    pub vat: i64,
}

impl Sums {
    fn add(&mut self, other: &Sums) {
        self.payments += other.payments;
        self.amount += other.amount;
        self.vat += other.vat;
    }
}

/// (currency, method, VAT rate): the method is `cash`, `card`, `twint`, `transfer`,
/// `other`, `till` (taken through the shop's certified till: listed, never in the totals), or
/// `unrecorded` for a payment entered without its method; `cash refund`, `card refund`,
/// `twint refund`, `till refund` for money paid back at the counter (negative).
pub type Key = (String, String, Option<VatRate>);

/// A period's takings.
#[derive(Debug, Default)]
pub struct Takings {
    /// Per currency, method and rate, in the order people read them.
    pub sums: BTreeMap<Key, Sums>,
    /// Per currency.
    pub totals: BTreeMap<String, Sums>,
}

/// Which days: one, a period (inclusive), or each stringer's today.
#[derive(Debug, Clone, Copy)]
pub enum Days {
    Today,
    On(NaiveDate),
    From(NaiveDate, NaiveDate),
}

/// One stringer's takings of the days asked.
pub struct Counted {
    pub tenant: Tenant,
    pub first: NaiveDate,
    pub last: NaiveDate,
    pub takings: Takings,
}

/// The takings of the stringer named, or of every stringer, of the days asked: one load of
/// what the documents froze, then each stringer's count.
pub fn count(conn: &mut DbConn, named: Option<&Tenant>, days: Days) -> Result<Vec<Counted>, Error> {
    let frozen = Frozen::load(conn, named)?;
    let tenants = match named {
        Some(tenant) => vec![tenant.clone()],
        None => Tenant::all(conn)?,
    };
    let mut counted = Vec::new();
    for tenant in tenants {
        let (first, last) = match days {
            Days::On(day) => (day, day),
            Days::From(since, until) => (since, until),
            Days::Today => {
                let today = local_date(now_utc(), tenant.zone());
                (today, today)
            }
        };
        let takings = of(conn, &tenant, &frozen, first, last)?;
        counted.push(Counted { tenant, first, last, takings });
    }
    Ok(counted)
}

/// The tenant's payments received from `first` to `last` (days of the stringer's
/// calendar, inclusive).
fn of(
    conn: &mut DbConn,
    tenant: &Tenant,
    frozen: &Frozen,
    first: NaiveDate,
    last: NaiveDate,
) -> Result<Takings, Error> {
    let zone = tenant.zone();
    let until = last.succ_opt().unwrap_or(last);
    let bounds = (day_start(first, zone), day_start(until, zone));
    let mut sums: BTreeMap<Key, Sums> = BTreeMap::new();
    listings::for_each_in_period(conn, tenant, Basis::Received, bounds, |order| {
        // A rate that cannot be read is a failure, never a VAT of 0 in the count.
        let rate = frozen.vat_rate(&order, tenant)?;
        let amount = order.total().map_or(0, |p| p.0);
        let method = order.payment_method.map_or("unrecorded".to_string(), |m| m.to_string());
        let sum = sums.entry((order.currency.to_string(), method, rate)).or_default();
        sum.add(&Sums { payments: 1, amount, vat: rate.map_or(0, |r| r.included_in(amount)) });
        Ok(())
    })?;
    // Money paid back at the counter: a line of its own per method, negative, on its day.
    for note in super::credits::in_period(conn, tenant, bounds)? {
        if !note.refund.at_the_counter() && note.refund != Refund::Till {
            continue;
        }
        let method = format!("{} refund", note.refund);
        let sum = sums.entry((note.currency.to_string(), method, note.vat_rate)).or_default();
        sum.add(&Sums { payments: 1, amount: -note.amount.0, vat: -note.vat.0 });
    }
    let mut totals: BTreeMap<String, Sums> = BTreeMap::new();
    // What the shop's certified till took is listed, but it is that till's to count.
    for ((currency, method, _), sum) in &sums {
        if !method.starts_with(PaymentMethod::Till.as_str()) {
            totals.entry(currency.clone()).or_default().add(sum);
        }
    }
    Ok(Takings { sums, totals })
}
