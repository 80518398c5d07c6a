//! The day's work (SPEC 19): the open orders by promised time, then the rackets strung and
//! waiting for their owners. Both read through partial indexes that hold only such orders,
//! so the queue costs the same on a database of a million orders as on a new one.

use super::orders::{Order, OrderRow};
use super::schema::{orders, rackets};
use super::{DbConn, Tenant};
use crate::domain::{OrderKind, RacketId};
use crate::error::Error;
use chrono::{Duration, NaiveDateTime};
use diesel::prelude::*;
use std::collections::HashMap;

/// How far back `queue` looks for rackets waiting; older ones are in `order list --status
/// waiting`.
pub const WAITING_DAYS: i64 = 60;

/// A stringer's queue.
#[derive(Debug, Clone, Default)]
pub struct Queue {
    /// Not strung, not void: by promised time (then by id), the overdue first.
    pub open: Vec<Order>,
    /// Strung in the last `WAITING_DAYS` days, not picked up: longest waiting first.
    pub waiting: Vec<Order>,
    /// The racket tags of these orders.
    pub tags: HashMap<RacketId, String>,
}

pub fn of(conn: &mut DbConn, tenant: &Tenant, now: NaiveDateTime) -> Result<Queue, Error> {
    // Every predicate of the partial indexes said, so that they are used.
    let mut open: Vec<Order> = tenant
        .orders()
        .filter(orders::strung_at.is_null())
        .filter(orders::voided_at.is_null())
        .select(OrderRow::as_select())
        .load(conn)?
        .into_iter()
        .map(Order::from)
        .collect();
    // An order taken before promised times were kept is due when it was taken.
    open.sort_by_key(|order| (order.due_at.or(order.ordered_at), order.id));
    let waiting: Vec<Order> = tenant
        .orders()
        .filter(orders::strung_at.is_not_null())
        .filter(orders::returned_at.is_null())
        .filter(orders::voided_at.is_null())
        .filter(orders::strung_at.ge(now - Duration::days(WAITING_DAYS)))
        .filter(orders::kind.eq(OrderKind::Client.as_str()))
        .order((orders::strung_at, orders::id))
        .select(OrderRow::as_select())
        .load(conn)?
        .into_iter()
        .map(Order::from)
        .collect();
    let ids: Vec<i64> =
        open.iter().chain(&waiting).filter_map(|order| order.racket_id.map(|r| r.0)).collect();
    let tags: Vec<(i64, Option<String>)> = if ids.is_empty() {
        Vec::new()
    } else {
        rackets::table
            .filter(rackets::stringer_id.eq(tenant.id().0))
            .filter(rackets::id.eq_any(ids))
            .select((rackets::id, rackets::tag))
            .load(conn)?
    };
    let tags = tags.into_iter().filter_map(|(id, tag)| Some((RacketId(id), tag?))).collect();
    Ok(Queue { open, waiting, tags })
}
