//! The day's work (SPEC 19): the open orders by promised time, then the rackets strung and
//! waiting for their owners. Both read through partial indexes that hold only such orders,
//! so the queue costs the same on a database of a million orders as on a new one. Only what
//! the queue and the labels show is read, the racket's tag with it.

use super::orders::Stored;
use super::schema::{orders, rackets};
use super::{DbConn, Tenant};
use crate::domain::{strings_line, OrderId, OrderKind, PaymentMethod};
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
    pub open: Vec<Queued>,
    /// Strung in the last `WAITING_DAYS` days, not picked up: longest waiting first.
    pub waiting: Vec<Queued>,
}

/// An order as the queue and its labels show it.
#[derive(Debug, Clone)]
pub struct Queued {
    pub id: OrderId,
    pub customer: Option<String>,
    /// The racket, with the shop's tag when its name does not say it.
    pub racket: Option<String>,
    /// The string; a hybrid's as mains / crosses.
    pub string: Option<String>,
    pub tension: Option<String>,
    pub ordered_at: Option<NaiveDateTime>,
    /// When it was promised.
    pub due_at: Option<NaiveDateTime>,
    pub strung_at: Option<NaiveDateTime>,
    pub notified_at: Option<NaiveDateTime>,
    pub paid_at: Option<NaiveDateTime>,
    pub payment_method: Option<PaymentMethod>,
}

#[derive(Queryable, Selectable)]
#[diesel(table_name = orders)]
struct QueuedRow {
    id: i64,
    customer: Option<String>,
    racket: Option<String>,
    racket_id: Option<i64>,
    string: Option<String>,
    cross_string: Option<String>,
    tension: Option<String>,
    ordered_at: Option<NaiveDateTime>,
    due_at: Option<NaiveDateTime>,
    strung_at: Option<NaiveDateTime>,
    notified_at: Option<NaiveDateTime>,
    paid_at: Option<NaiveDateTime>,
    #[diesel(deserialize_as = Option<String>)]
    payment_method: Stored<PaymentMethod>,
}

impl Queued {
    /// When it is due: when promised, or when taken for an order taken before promised
    /// times were kept.
    pub fn due(&self) -> Option<NaiveDateTime> {
        self.due_at.or(self.ordered_at)
    }

    /// Not strung, and due before `now`: the one rule of the queue, the web and the label.
    pub fn is_overdue(&self, now: NaiveDateTime) -> bool {
        self.strung_at.is_none() && self.due().is_some_and(|due| due < now)
    }

    fn of(row: QueuedRow, tags: &HashMap<i64, String>) -> Queued {
        let tag = row.racket_id.and_then(|id| tags.get(&id).cloned());
        Queued {
            id: OrderId(row.id),
            customer: row.customer,
            racket: with_tag(row.racket, tag),
            string: strings_line(row.string.as_deref(), row.cross_string.as_deref()),
            tension: row.tension,
            ordered_at: row.ordered_at,
            due_at: row.due_at,
            strung_at: row.strung_at,
            notified_at: row.notified_at,
            paid_at: row.paid_at,
            payment_method: row.payment_method.0,
        }
    }
}

/// The racket as the order names it, with the shop's tag when the name does not say it (an
/// order taken for a racket of the register names it already: "Pure Aero (R7)").
fn with_tag(racket: Option<String>, tag: Option<String>) -> Option<String> {
    match (racket, tag) {
        (Some(racket), Some(tag)) if !racket.contains(&tag) => Some(format!("{racket} [{tag}]")),
        (Some(racket), _) => Some(racket),
        (None, Some(tag)) => Some(format!("[{tag}]")),
        (None, None) => None,
    }
}

pub fn of(conn: &mut DbConn, tenant: &Tenant, now: NaiveDateTime) -> Result<Queue, Error> {
    // Every predicate of the partial indexes said, so that they are used.
    let open: Vec<QueuedRow> = tenant
        .orders()
        .filter(orders::strung_at.is_null())
        .filter(orders::voided_at.is_null())
        .select(QueuedRow::as_select())
        .load(conn)?;
    let waiting: Vec<QueuedRow> = tenant
        .orders()
        .filter(orders::strung_at.is_not_null())
        .filter(orders::returned_at.is_null())
        .filter(orders::voided_at.is_null())
        .filter(orders::strung_at.ge(now - Duration::days(WAITING_DAYS)))
        .filter(orders::kind.eq(OrderKind::Client.as_str()))
        .order((orders::strung_at, orders::id))
        .select(QueuedRow::as_select())
        .load(conn)?;
    let tags = tags_of(conn, tenant, open.iter().chain(&waiting))?;
    let with_tags = |rows: Vec<QueuedRow>| rows.into_iter().map(|row| Queued::of(row, &tags)).collect();
    let mut open: Vec<Queued> = with_tags(open);
    open.sort_by_key(|order| (order.due(), order.id.0));
    Ok(Queue { open, waiting: with_tags(waiting) })
}

/// One order of this stringer as the queue shows it (for its label).
pub fn one(conn: &mut DbConn, tenant: &Tenant, order: OrderId) -> Result<Queued, Error> {
    let row = tenant
        .orders()
        .filter(orders::id.eq(order.0))
        .select(QueuedRow::as_select())
        .first(conn)
        .optional()?
        .ok_or_else(|| tenant.no_such_order(order))?;
    let tags = tags_of(conn, tenant, [&row])?;
    Ok(Queued::of(row, &tags))
}

/// The tags of these orders' rackets, by racket. Asked by the rackets' ids, not by a join:
/// a join's plan depends on how many open orders the planner guesses, and a wrong guess
/// reads every racket of the shop.
fn tags_of<'a>(
    conn: &mut DbConn,
    tenant: &Tenant,
    rows: impl IntoIterator<Item = &'a QueuedRow>,
) -> Result<HashMap<i64, String>, Error> {
    let ids: Vec<i64> = rows.into_iter().filter_map(|row| row.racket_id).collect();
    if ids.is_empty() {
        return Ok(HashMap::new());
    }
    let tags: Vec<(i64, Option<String>)> =
        tenant.rackets().filter(rackets::id.eq_any(ids)).select((rackets::id, rackets::tag)).load(conn)?;
    Ok(tags.into_iter().filter_map(|(id, tag)| Some((id, tag?))).collect())
}

#[cfg(test)]
mod tests {
    use super::with_tag;

    #[test]
    fn a_tag_is_added_where_the_racket_does_not_say_it() {
        let tag = |racket: Option<&str>, tag: Option<&str>| {
            with_tag(racket.map(str::to_string), tag.map(str::to_string))
        };
        assert_eq!(tag(Some("Pure Aero"), Some("R7")).as_deref(), Some("Pure Aero [R7]"));
        assert_eq!(tag(Some("Pure Aero (R7)"), Some("R7")).as_deref(), Some("Pure Aero (R7)"));
        assert_eq!(tag(None, Some("R7")).as_deref(), Some("[R7]"));
        assert_eq!(tag(None, None), None);
    }
}
