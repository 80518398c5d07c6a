//! The till's count (SPEC 19): the money received and paid back in a period, per currency,
//! line and VAT rate, with the VAT it includes (`domain::DayMoney`). `receipts takings` and
//! the counter's `/takings`.

use super::listings::{self, Basis};
use super::receipts::Frozen;
use super::{applied_payments, credits, part_payments, DbConn, Tenant};
use crate::domain::{day_start, local_date, now_utc, owed_when_paid, DayMoney, Movement, PaymentMethod};
use crate::error::Error;
use chrono::NaiveDate;

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
    pub money: DayMoney,
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
        let money = of(conn, &tenant, &frozen, first, last)?;
        counted.push(Counted { tenant, first, last, money });
    }
    Ok(counted)
}

/// The tenant's payments received from `first` to `last` (days of the stringer's
/// calendar, inclusive), and the money paid back then.
fn of(
    conn: &mut DbConn,
    tenant: &Tenant,
    frozen: &Frozen,
    first: NaiveDate,
    last: NaiveDate,
) -> Result<DayMoney, Error> {
    let zone = tenant.zone();
    let until = last.succ_opt().unwrap_or(last);
    let bounds = (day_start(first, zone), day_start(until, zone));
    let mut money = DayMoney::default();
    // A payment of an order credited before, or by the bank (which may include a reminder's
    // fee), is counted once those are read, for all of them at once.
    let mut later = Vec::new();
    listings::for_each_in_period(conn, tenant, Basis::Received, bounds, |order| {
        // A rate that cannot be read is a failure, never a VAT of 0 in the count.
        let rate = frozen.vat_rate(&order, tenant)?;
        // What was paid in part before was counted when it was paid.
        let total = order.total().map_or(0, |p| p.0) - order.part_paid.0;
        if order.credited.0 > 0 || order.payment_method == Some(PaymentMethod::Transfer) {
            later.push((order, rate));
        } else {
            money.add(&order.currency, Movement::payment(order.payment_method, rate, total, 0), 1);
        }
        Ok(())
    })?;
    let ids: Vec<i64> = later.iter().map(|(order, _)| order.id.0).collect();
    let taken_back = credits::taken_back(conn, tenant, &ids)?;
    let fees = applied_payments::fees(conn, tenant, &ids)?;
    for (order, rate) in later {
        let credits = taken_back.get(&order.id.0).map(Vec::as_slice).unwrap_or_default();
        let paid_at = order.paid_at.unwrap_or(bounds.0);
        let owed = owed_when_paid(order.total().map_or(0, |p| p.0), credits, paid_at) - order.part_paid.0;
        let fee = fees.get(&order.id.0).copied().unwrap_or(0);
        money.add(&order.currency, Movement::payment(order.payment_method, rate, owed, fee), 1);
    }
    for (part, order) in part_payments::in_period_with_orders(conn, tenant, bounds)? {
        let rate = frozen.vat_rate(&order, tenant)?;
        money.add(&order.currency, Movement::payment(Some(part.method), rate, part.amount_minor, 0), 1);
    }
    for note in credits::in_period(conn, tenant, bounds)? {
        if let Some(method) = note.refund.method() {
            money.add(&note.currency, Movement::refund(method, note.vat_rate, note.amount.0, note.vat.0), 1);
        }
    }
    Ok(money)
}
