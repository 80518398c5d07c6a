//! Payments at the counter towards a numbered invoice, in full or in part. A part leaves the
//! invoice open and is kept (`part_payments`, append-only) with the order's running sum; the
//! payment that settles what is left is the order's payment (`paid_at`), as a payment in full
//! is. Both are journaled. The money a payment counts is therefore always what was owed when
//! it was paid less the parts before it (`domain::Movement`).

use super::events::{self, Change, Event};
use super::orders::{self, refuse_if_void, Order, OrderRow};
use super::schema::{orders as orders_table, part_payments};
use super::{DbConn, Tenant};
use crate::domain::{format_local, format_utc, now_utc, OrderId, OrderKind, PaymentMethod, Price};
use crate::error::{Error, Wanted};
use chrono::NaiveDateTime;
use diesel::prelude::*;
use std::collections::HashMap;

/// A payment asked for at the counter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Payment {
    /// None: all that is open.
    pub amount: Option<Price>,
    pub method: PaymentMethod,
    pub at: NaiveDateTime,
}

/// What a payment did: the order as it now stands, the amount taken, and whether it settled
/// the invoice.
#[derive(Debug)]
pub struct Paid {
    pub order: Order,
    pub amount: Price,
    pub settled: bool,
}

/// One part payment as kept.
#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable)]
#[diesel(table_name = part_payments)]
pub struct Part {
    pub order_id: i64,
    pub amount_minor: i64,
    #[diesel(deserialize_as = String)]
    pub method: PaymentMethod,
    pub paid_at: NaiveDateTime,
}

/// Records a payment of `order` at the counter in the caller's write transaction: a part
/// while something stays open, or the payment that settles it. Refused for an order that asks
/// for no money now: not numbered, void, the stringer's own, paid, or credited in full; and
/// for more than is open.
pub fn pay(conn: &mut DbConn, tenant: &Tenant, id: OrderId, payment: Payment) -> Result<Paid, Error> {
    let order = orders::locked(conn, tenant, id)?;
    refuse_if_void(&order, "paid")?;
    if order.kind == OrderKind::Own {
        return Err(Error::OwnRacket { order: id });
    }
    let number = order.number.ok_or(Error::Unnumbered { order: id, wanted: Wanted::Receipt })?;
    if let Some(paid_at) = order.paid_at {
        let on = format_local(paid_at, tenant.zone());
        return Err(Error::AlreadyPaid {
            order: id,
            on,
            method: order.payment_method.map(|m| m.to_string()),
            at_pickup: false,
        });
    }
    // Money taken by the shop's own bank account is no payment at the counter.
    if payment.method != PaymentMethod::Transfer {
        super::stringers::check_counter_payment(conn, tenant, payment.method, "method")?;
    }
    let open = order.still_due().unwrap_or_default();
    if open.0 <= 0 {
        return Err(Error::Invalid {
            field: "amount",
            problem: format!(
                "cannot be taken: order {id} ({number}) owes nothing, its credit notes and part payments cover it"
            ),
        });
    }
    let amount = payment.amount.unwrap_or(open);
    if amount.0 <= 0 || amount.0 > open.0 {
        return Err(Error::Invalid {
            field: "amount",
            problem: format!(
                "{amount} is not a payment of order {id} ({number}): it owes {open} {}",
                order.currency
            ),
        });
    }
    let now = now_utc();
    let at = format_utc(payment.at);
    let method = payment.method;
    let settled = amount == open;
    if settled {
        diesel::update(tenant.orders().filter(orders_table::id.eq(id.0)))
            .set((
                orders_table::paid_at.eq(payment.at),
                orders_table::payment_method.eq(method.as_str()),
                orders_table::updated_at.eq(now),
            ))
            .execute(conn)?;
        let paid = Change { field: "paid_at", old: None, new: Some(&at) };
        let reason = match order.part_paid {
            Price(0) => format!("paid: {method}"),
            _ => format!("paid: {method}, the {amount} left after {} paid in part", order.part_paid),
        };
        events::record(conn, &Event::payment(tenant.id(), id, number, paid, &reason))?;
    } else {
        diesel::insert_into(part_payments::table)
            .values((
                tenant.owns(part_payments::stringer_id),
                part_payments::order_id.eq(id.0),
                part_payments::amount_minor.eq(amount.0),
                part_payments::method.eq(method.as_str()),
                part_payments::paid_at.eq(payment.at),
                part_payments::created_at.eq(now),
            ))
            .execute(conn)?;
        let sum = Price(order.part_paid.0 + amount.0);
        diesel::update(tenant.orders().filter(orders_table::id.eq(id.0)))
            .set((orders_table::part_paid_minor.eq(sum.0), orders_table::updated_at.eq(now)))
            .execute(conn)?;
        let (old, new) = (order.part_paid.to_string(), sum.to_string());
        let part = Change { field: PART_PAID, old: Some(&old), new: Some(&new) };
        let reason = format!("paid in part: {amount} {} by {method} at {at}", order.currency);
        events::record(conn, &Event::payment(tenant.id(), id, number, part, &reason))?;
    }
    Ok(Paid { order: orders::find(conn, tenant, id)?, amount, settled })
}

/// The journal field of a part payment: the order's sum of parts, before and after.
pub const PART_PAID: &str = "part_paid";

/// The part payments of `orders`, per order, oldest first.
pub fn of(conn: &mut DbConn, tenant: &Tenant, orders: &[i64]) -> QueryResult<HashMap<i64, Vec<Part>>> {
    let mut parts: HashMap<i64, Vec<Part>> = HashMap::new();
    for chunk in orders.chunks(10_000) {
        let rows: Vec<Part> = tenant
            .part_payments()
            .filter(part_payments::order_id.eq_any(chunk))
            .order((part_payments::paid_at, part_payments::id))
            .select(Part::as_select())
            .load(conn)?;
        for part in rows {
            parts.entry(part.order_id).or_default().push(part);
        }
    }
    Ok(parts)
}

/// The part payments of the receipts numbered in `year`, per order, oldest first.
pub fn of_year(conn: &mut DbConn, tenant: &Tenant, year: i32) -> QueryResult<HashMap<i64, Vec<Part>>> {
    let rows: Vec<Part> = tenant
        .part_payments()
        .inner_join(orders_table::table)
        .filter(orders_table::receipt_year.eq(year))
        .order((part_payments::paid_at, part_payments::id))
        .select(Part::as_select())
        .load(conn)?;
    let mut parts: HashMap<i64, Vec<Part>> = HashMap::new();
    for part in rows {
        parts.entry(part.order_id).or_default().push(part);
    }
    Ok(parts)
}

/// The part payments received in `[from, until)` (UTC), oldest first.
pub fn in_period(
    conn: &mut DbConn,
    tenant: &Tenant,
    (from, until): (NaiveDateTime, NaiveDateTime),
) -> QueryResult<Vec<Part>> {
    tenant
        .part_payments()
        .filter(part_payments::paid_at.ge(from).and(part_payments::paid_at.lt(until)))
        .order((part_payments::paid_at, part_payments::id))
        .select(Part::as_select())
        .load(conn)
}

/// The part payments received in `[from, until)` (UTC), each with its order (read in one
/// query for all of them).
pub fn in_period_with_orders(
    conn: &mut DbConn,
    tenant: &Tenant,
    bounds: (NaiveDateTime, NaiveDateTime),
) -> Result<Vec<(Part, Order)>, Error> {
    let parts = in_period(conn, tenant, bounds)?;
    let ids: Vec<i64> = parts.iter().map(|part| part.order_id).collect();
    let orders: HashMap<i64, Order> = tenant
        .orders()
        .filter(orders_table::id.eq_any(&ids))
        .select(OrderRow::as_select())
        .load(conn)?
        .into_iter()
        .map(|row| (row.id, Order::from(row)))
        .collect();
    let with_order = |part: Part| {
        let id = OrderId(part.order_id);
        let order = orders.get(&id.0).cloned().ok_or(Error::NoSuchOrder { order: id, stringer: None })?;
        Ok((part, order))
    };
    parts.into_iter().map(with_order).collect()
}
