//! Receipts from the database: an order and its stringer's profile turned into the
//! `Receipt` value the renderers draw. Reading only: a receipt never mints or changes a
//! number.

use super::orders::{self, Order};
use super::schema::orders as orders_table;
use super::stringers::Stringer;
use super::{DbConn, Tenant};
use crate::domain::{Language, OrderId, ReceiptNumber};
use crate::error::Error;
use crate::receipt::{Amount, Business, Receipt};
use chrono::{NaiveDate, NaiveDateTime};
use chrono_tz::Tz;
use diesel::prelude::*;

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
    let stringer = super::stringers::find(conn, &tenant.handle)?;
    build(&order, &stringer, tenant.timezone, options)
}

/// The order of the tenant that holds `number`.
pub fn order_holding(conn: &mut DbConn, tenant: &Tenant, number: ReceiptNumber) -> Result<OrderId, Error> {
    tenant
        .orders()
        .filter(orders_table::receipt_number.eq(number.to_string()))
        .select(orders_table::id)
        .first::<i64>(conn)
        .optional()?
        .map(OrderId)
        .ok_or_else(|| Error::NoSuchReceipt { number, stringer: tenant.handle.clone() })
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
    let profiles: std::collections::HashMap<String, Stringer> =
        super::stringers::list(conn)?.into_iter().map(|s| (s.handle.clone(), s)).collect();
    let filter = orders::Filter { year: Some(year), ..orders::Filter::default() };
    orders::for_each(conn, tenant, &filter, None, |listed| {
        let stringer = profiles
            .get(&listed.stringer)
            .ok_or_else(|| super::stringers::no_such_stringer(&listed.stringer))?;
        visit(&listed.stringer, build(&listed.order, stringer, listed.zone, options)?)
    })
}

/// The receipt of a numbered order: dates are the stringer's local dates; the issue date
/// is the paid date of a receipt, else the strung date.
fn build(order: &Order, stringer: &Stringer, zone: Tz, options: Options) -> Result<Receipt, Error> {
    let (Some(year), Some(seq)) = (order.receipt_year, order.receipt_seq) else {
        return Err(Error::Refused(format!(
            "order {} has no receipt number yet, so it has no receipt: mint it when it is strung \
             (`receipts mint --order {}`)",
            order.id, order.id
        )));
    };
    let local = |at: Option<NaiveDateTime>| at.map(|at| local_date(at, zone));
    let language = match options.language {
        Some(language) => language,
        None => stringer
            .language
            .as_deref()
            .map(str::parse)
            .transpose()
            .map_err(Error::Refused)?
            .unwrap_or_default(),
    };
    let service_date = local(order.strung_at);
    let paid_on = local(order.paid_at);
    let issued_on = paid_on
        .or(service_date)
        .or(local(order.voided_at))
        .unwrap_or_else(|| local_date(order.created_at, zone));
    Ok(Receipt {
        number: ReceiptNumber::new(year, seq),
        language,
        copy: options.copy,
        void_reason: order.void_reason.clone(),
        business: Business {
            name: stringer.name.clone(),
            address: stringer.address.iter().flat_map(|a| a.lines()).map(str::to_string).collect(),
            email: stringer.email.clone(),
            phone: stringer.phone.clone(),
            vat_number: stringer.vat_number.clone(),
        },
        issued_on,
        service_date,
        paid_on,
        customer: order.customer.clone(),
        racket: order.racket.clone(),
        string: order.string.clone(),
        tension: order.tension.clone(),
        amount: order.price_minor.map(|minor| Amount { minor, currency: order.currency.clone() }),
        notes: order.notes.clone(),
    })
}

fn local_date(utc: NaiveDateTime, zone: Tz) -> NaiveDate {
    use chrono::TimeZone;
    zone.from_utc_datetime(&utc).date_naive()
}
