//! Receipts from the database: an order and its stringer's profile turned into the
//! `Receipt` value the renderers draw. Reading only: a receipt never mints or changes a
//! number.

use super::issuers::{self, Issuer};
use super::orders::{self, Order};
use super::schema::orders as orders_table;
use super::{DbConn, Tenant};
use crate::domain::{Language, OrderId, ReceiptNumber};
use crate::error::{Error, Wanted};
use crate::receipt::{Amount, Business, Receipt};
use chrono::{NaiveDate, NaiveDateTime};
use chrono_tz::Tz;
use diesel::prelude::*;
use std::collections::HashMap;

/// How a receipt is asked for.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// The language, over the stringer's own.
    pub language: Option<Language>,
    /// A re-issue the customer asked for.
    pub copy: bool,
}

/// The receipt of one of the tenant's orders; an order without a number has none.
pub fn receipt(
    conn: &mut DbConn,
    tenant: &Tenant,
    order: OrderId,
    options: Options,
) -> Result<Receipt, Error> {
    let order = orders::find(conn, tenant, order)?;
    let issuer = issuer_of(conn, tenant, &order)?;
    build(&order, &issuer, options)
}

/// The order of the tenant that holds `number`.
pub fn order_holding(conn: &mut DbConn, tenant: &Tenant, number: ReceiptNumber) -> Result<OrderId, Error> {
    tenant
        .orders()
        .filter(orders_table::receipt_year.eq(number.year))
        .filter(orders_table::receipt_seq.eq(number.seq))
        .select(orders_table::id)
        .first::<i64>(conn)
        .optional()?
        .map(OrderId)
        .ok_or_else(|| Error::NoSuchReceipt { number, stringer: tenant.handle().to_string() })
}

/// Calls `visit` with every receipt of `year`, of one stringer or all, by stringer and
/// number, read page by page.
pub fn for_each_of_year(
    conn: &mut DbConn,
    tenant: Option<&Tenant>,
    year: i32,
    options: Options,
    mut visit: impl FnMut(&str, Receipt) -> Result<(), Error>,
) -> Result<(), Error> {
    // A stringer has a handful of issuer versions: all are read once, before the orders
    // stream past.
    let tenants = match tenant {
        Some(tenant) => vec![tenant.clone()],
        None => Tenant::all(conn)?,
    };
    let mut versions: HashMap<i64, Issuer> = HashMap::new();
    for tenant in &tenants {
        versions.extend(issuers::of_tenant(conn, tenant)?.into_iter().map(|i| (i.id, i)));
    }
    let filter = orders::Filter { year: Some(year), ..orders::Filter::default() };
    orders::for_each(conn, tenant, &filter, None, |listed| {
        let issuer =
            listed.order.issuer.and_then(|id| versions.get(&id)).ok_or_else(|| {
                Error::Refused(format!("order {} has no issuer on record", listed.order.id))
            })?;
        visit(listed.stringer.handle(), build(&listed.order, issuer, options)?)
    })
}

/// The issuer version a numbered order's document shows.
fn issuer_of(conn: &mut DbConn, tenant: &Tenant, order: &Order) -> Result<Issuer, Error> {
    match order.issuer {
        Some(id) => issuers::find(conn, tenant, id),
        None => Err(Error::Unnumbered { order: order.id, wanted: Wanted::Receipt }),
    }
}

/// The receipt of a numbered order, from what was frozen when it was numbered: dates are
/// local dates of the issuer's zone; the issue date is the paid date of a receipt, else the
/// strung date.
fn build(order: &Order, issuer: &Issuer, options: Options) -> Result<Receipt, Error> {
    let Some(number) = order.number else {
        return Err(Error::Unnumbered { order: order.id, wanted: Wanted::Receipt });
    };
    let zone = issuer.zone;
    let local = |at: Option<NaiveDateTime>| at.map(|at| local_date(at, zone));
    let language = options.language.or(issuer.language).unwrap_or_default();
    let service_date = local(order.strung_at);
    let paid_on = local(order.paid_at);
    let issued_on = paid_on
        .or(service_date)
        .or(local(order.voided_at))
        .unwrap_or_else(|| local_date(order.created_at, zone));
    Ok(Receipt {
        number,
        language,
        copy: options.copy,
        void_reason: order.void_reason.clone(),
        business: Business {
            name: issuer.name.clone(),
            address: issuer.address.clone(),
            email: issuer.email.clone(),
            phone: issuer.phone.clone(),
            vat_number: issuer.vat_number.clone(),
        },
        issued_on,
        service_date,
        paid_on,
        customer: order.customer.clone(),
        racket: order.racket.clone(),
        string: order.string.clone(),
        tension: order.tension.clone(),
        amount: order.price.map(|price| Amount { minor: price.0, currency: order.currency.to_string() }),
        notes: order.customer_note.clone(),
    })
}

fn local_date(utc: NaiveDateTime, zone: Tz) -> NaiveDate {
    use chrono::TimeZone;
    zone.from_utc_datetime(&utc).date_naive()
}
