//! The listings of orders: `order list` and the export page by page with their filters
//! (status, customer, racket, string, period), and the orders paid or issued in a period
//! for the VAT report and the takings.

use super::issuers::Issuer;
use super::orders::{Order, OrderRow};
use super::schema::orders;
use super::{DbConn, Tenant};
use crate::domain::{day_start, fold, local_date, now_utc, CustomerId, OrderKind, RacketId, StatusFilter};
use crate::error::Error;
use chrono::{NaiveDate, NaiveDateTime};
use diesel::prelude::*;
use diesel::sql_types::{Nullable, Timestamp};
use std::collections::HashMap;

/// An order in a listing, with its stringer.
#[derive(Debug, Clone)]
pub struct Listed<'a> {
    pub order: Order,
    pub stringer: &'a Tenant,
}

/// Which orders a listing shows.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Numbered in this year (and then in number order).
    pub year: Option<i32>,
    pub status: Option<StatusFilter>,
    /// A part of the customer's name, case, accents and repeated spaces ignored.
    pub customer: Option<String>,
    /// The order's day (strung, else taken), from and until, in the stringer's zone.
    pub since: Option<NaiveDate>,
    pub until: Option<NaiveDate>,
    pub customer_id: Option<CustomerId>,
    pub racket_id: Option<RacketId>,
    /// A part of the string's name, case and accents ignored.
    pub string: Option<String>,
    /// Newest first (else oldest first; by number under a year either way round).
    pub newest: bool,
}

diesel::define_sql_function!(fn coalesce(first: Nullable<Timestamp>, second: Nullable<Timestamp>) -> Nullable<Timestamp>);

/// Orders read per stringer (by handle), page by page, so any number of orders stream in
/// bounded memory and the first ones arrive at once.
const PAGE: i64 = 1000;

/// Calls `visit` with each order the filter lets through, with its stringer (and the
/// connection, free between orders): stringer by
/// stringer (only the tenant's when one is given), by receipt number under a year, else
/// oldest first; at most `limit` of them.
pub fn for_each(
    conn: &mut DbConn,
    tenant: Option<&Tenant>,
    filter: &Filter,
    limit: Option<u64>,
    mut visit: impl FnMut(&mut DbConn, Listed<'_>) -> Result<(), Error>,
) -> Result<(), Error> {
    let tenants = match tenant {
        Some(tenant) => vec![tenant.clone()],
        None => Tenant::all(conn)?,
    };
    let mut left = limit.unwrap_or(u64::MAX);
    for tenant in &tenants {
        let overdue = match filter.status {
            Some(StatusFilter::Overdue) => Some(Overdue::of(conn, tenant)?),
            _ => None,
        };
        let mut after = None;
        while left > 0 {
            let page_size = PAGE.min(i64::try_from(left).unwrap_or(PAGE));
            let page = page_of(conn, tenant, filter, after, page_size)?;
            let full = page.len() as i64 == page_size;
            for order in page {
                after = Some(match (filter.year, order.number) {
                    (Some(_), Some(number)) => number.seq,
                    _ => order.id.0,
                });
                if overdue.as_ref().is_some_and(|overdue| !overdue.holds(&order)) {
                    continue;
                }
                visit(conn, Listed { order, stringer: tenant })?;
                left -= 1;
            }
            if !full {
                break;
            }
        }
    }
    Ok(())
}

/// Which unpaid invoices are past their due date: each by the payment days and calendar of
/// the profile version it was issued under, against today in that calendar.
struct Overdue {
    issuers: HashMap<i64, Issuer>,
}

impl Overdue {
    fn of(conn: &mut DbConn, tenant: &Tenant) -> Result<Overdue, Error> {
        let issuers = super::issuers::of_tenant(conn, tenant)?;
        Ok(Overdue { issuers: issuers.into_iter().map(|issuer| (issuer.id, issuer)).collect() })
    }

    fn holds(&self, order: &Order) -> bool {
        let Some(issuer) = order.issuer.and_then(|id| self.issuers.get(&id)) else { return false };
        order.due_on(issuer).is_some_and(|due| due < local_date(now_utc(), issuer.zone))
    }
}

/// Something of the total is left once credit notes are taken off.
const OWED: &str = "orders.credited_minor < coalesce(orders.price_minor, 0) + orders.items_minor";

/// Something of the total is left to pay once credit notes and part payments are taken off.
const LEFT_TO_PAY: &str =
    "orders.credited_minor + orders.part_paid_minor < coalesce(orders.price_minor, 0) + orders.items_minor";

/// One page of a stringer's orders after the key `after` (receipt sequence under a year
/// filter, else id).
fn page_of(
    conn: &mut DbConn,
    tenant: &Tenant,
    filter: &Filter,
    after: Option<i64>,
    size: i64,
) -> QueryResult<Vec<Order>> {
    let zone = tenant.zone();
    let mut query = tenant.orders().select(OrderRow::as_select()).into_boxed();
    match (filter.year, filter.newest) {
        (Some(year), newest) => {
            // Implied by the year, and said so the partial index on numbered orders is used.
            query = query.filter(orders::receipt_number.is_not_null()).filter(orders::receipt_year.eq(year));
            query = match (newest, after) {
                (false, None) => query.order(orders::receipt_seq),
                (false, Some(after)) => {
                    query.order(orders::receipt_seq).filter(orders::receipt_seq.gt(after))
                }
                (true, None) => query.order(orders::receipt_seq.desc()),
                (true, Some(after)) => {
                    query.order(orders::receipt_seq.desc()).filter(orders::receipt_seq.lt(after))
                }
            };
        }
        (None, false) => {
            query = query.order(orders::id);
            if let Some(after) = after {
                query = query.filter(orders::id.gt(after));
            }
        }
        (None, true) => {
            query = query.order(orders::id.desc());
            if let Some(after) = after {
                query = query.filter(orders::id.lt(after));
            }
        }
    }
    if let Some(customer) = filter.customer_id {
        query = query.filter(orders::customer_id.eq(customer.0));
    }
    if let Some(racket) = filter.racket_id {
        query = query.filter(orders::racket_id.eq(racket.0));
    }
    if let Some(part) = &filter.string {
        let escaped = fold(part).replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_");
        query = query.filter(super::receipts_fold(orders::string).like(format!("%{escaped}%")).escape('\\'));
    }
    let not_void = orders::voided_at.is_null();
    query = match filter.status {
        None => query,
        Some(StatusFilter::Open) => query.filter(orders::receipt_number.is_null()),
        Some(StatusFilter::Strung) => query.filter(orders::strung_at.is_not_null()).filter(not_void),
        Some(StatusFilter::Paid) => query.filter(orders::paid_at.is_not_null()).filter(not_void),
        // The stringer's own rackets ask for no money.
        // ... and an invoice credited in full is owed no more.
        Some(StatusFilter::Unpaid | StatusFilter::Overdue) => query
            .filter(orders::receipt_number.is_not_null())
            .filter(orders::kind.eq(OrderKind::Client.as_str()))
            .filter(orders::paid_at.is_null())
            .filter(not_void)
            .filter(diesel::dsl::sql::<diesel::sql_types::Bool>(LEFT_TO_PAY)),
        Some(StatusFilter::Credited) => query
            .filter(orders::credited_minor.gt(0))
            .filter(diesel::dsl::not(diesel::dsl::sql::<diesel::sql_types::Bool>(OWED)))
            .filter(not_void),
        Some(StatusFilter::Void) => query.filter(orders::voided_at.is_not_null()),
        Some(StatusFilter::Waiting) => query
            .filter(orders::strung_at.is_not_null())
            .filter(orders::returned_at.is_null())
            .filter(orders::kind.eq(OrderKind::Client.as_str()))
            .filter(not_void),
    };
    if let Some(part) = &filter.customer {
        // Case, accents and repeated spaces ignored: `muller` finds Müller.
        let escaped = fold(part).replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_");
        query =
            query.filter(super::receipts_fold(orders::customer).like(format!("%{escaped}%")).escape('\\'));
    }
    let day = coalesce(orders::strung_at, orders::ordered_at);
    if let Some(since) = filter.since {
        query = query.filter(day.ge(day_start(since, zone)));
    }
    if let Some(until) = filter.until.and_then(|d| d.succ_opt()) {
        query = query.filter(coalesce(orders::strung_at, orders::ordered_at).lt(day_start(until, zone)));
    }
    Ok(query.limit(size).load(conn)?.into_iter().map(Order::from).collect())
}

/// What dates a period's receipts: the strung date (VAT on what was agreed) or the paid date
/// (VAT on what was received).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Basis {
    Agreed,
    Received,
}

/// Calls `visit` with each of the tenant's numbered, not void orders strung (or paid, by
/// `basis`) from `from` until before `until` (UTC instants), read page by page.
pub fn for_each_in_period(
    conn: &mut DbConn,
    tenant: &Tenant,
    basis: Basis,
    (from, until): (NaiveDateTime, NaiveDateTime),
    mut visit: impl FnMut(Order) -> Result<(), Error>,
) -> Result<(), Error> {
    let mut after = 0i64;
    loop {
        let mut query = tenant
            .orders()
            .filter(orders::receipt_number.is_not_null())
            .filter(orders::voided_at.is_null())
            .filter(orders::id.gt(after))
            .select(OrderRow::as_select())
            .order(orders::id)
            .limit(PAGE)
            .into_boxed();
        query = match basis {
            Basis::Agreed => query.filter(orders::strung_at.ge(from)).filter(orders::strung_at.lt(until)),
            Basis::Received => query.filter(orders::paid_at.ge(from)).filter(orders::paid_at.lt(until)),
        };
        let page: Vec<OrderRow> = query.load(conn)?;
        let full = page.len() as i64 == PAGE;
        for row in page {
            after = row.id;
            visit(Order::from(row))?;
        }
        if !full {
            return Ok(());
        }
    }
}
