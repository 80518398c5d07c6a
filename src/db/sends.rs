//! What was e-mailed: the journal's `send` entries, written only once the mail server has
//! accepted a message, so that nothing goes out twice by accident and a failure leaves
//! nothing behind.

use super::events::{self, Event};
use super::schema::{event_values, orders, receipt_events};
use super::{DbConn, Tenant};
use crate::domain::{now_utc, CreditNumber, EventKind, OrderId, OrderKind, ReceiptNumber};
use crate::error::Error;
use chrono::NaiveDateTime;
use diesel::dsl::{exists, not};
use diesel::prelude::*;

/// Records that the server accepted the document of `order` for `to`.
pub fn record(
    conn: &mut DbConn,
    tenant: &Tenant,
    order: OrderId,
    number: ReceiptNumber,
    to: &str,
    message_id: &str,
) -> Result<(), Error> {
    Ok(events::record(conn, &Event::send(tenant.id(), order, number, to, message_id))?)
}

/// Records that the server accepted credit note `number` of `order` for `to`.
pub fn record_credit(
    conn: &mut DbConn,
    tenant: &Tenant,
    order: OrderId,
    number: CreditNumber,
    to: &str,
    message_id: &str,
) -> Result<(), Error> {
    Ok(events::record(conn, &Event::send_credit(tenant.id(), order, number, to, message_id))?)
}

/// A send's instant, its stored recipient and the one kept beside it.
type Recipient = (NaiveDateTime, Option<String>, Option<(String, Option<String>)>);

/// When, and to whom (`(forgotten)` once erased).
fn recipient((at, stored, kept): Recipient) -> (NaiveDateTime, String) {
    (at, crate::domain::journal::personal::shown(stored, kept.map(|(_, value)| value)).unwrap_or_default())
}

/// When credit note `number` of the tenant was last sent, and to whom.
pub fn last_credit(
    conn: &mut DbConn,
    tenant: &Tenant,
    number: CreditNumber,
) -> Result<Option<(NaiveDateTime, String)>, Error> {
    last_sent(conn, tenant, events::CREDIT_EMAIL, Sent::Number(number.0))
}

/// When reminder `level` of one of the tenant's orders was last sent, and to whom.
pub fn last_reminder(
    conn: &mut DbConn,
    tenant: &Tenant,
    order: OrderId,
    level: crate::domain::Level,
) -> Result<Option<(NaiveDateTime, String)>, Error> {
    let field = events::REMINDER_EMAIL[(level.get() - 1) as usize];
    last_sent(conn, tenant, field, Sent::Order(order))
}

/// When the document of one of the tenant's orders was last sent, and to whom.
pub fn last(
    conn: &mut DbConn,
    tenant: &Tenant,
    order: OrderId,
) -> Result<Option<(NaiveDateTime, String)>, Error> {
    last_sent(conn, tenant, events::EMAIL, Sent::Order(order))
}

/// What a `send` entry names: an order (its receipt or a reminder), or a credit note by its
/// number.
enum Sent {
    Order(OrderId),
    Number(ReceiptNumber),
}

/// The last `send` entry of `field` for what `sent` names: when, and to whom.
fn last_sent(
    conn: &mut DbConn,
    tenant: &Tenant,
    field: &str,
    sent: Sent,
) -> Result<Option<(NaiveDateTime, String)>, Error> {
    let mut query = tenant
        .events()
        .filter(receipt_events::kind.eq(EventKind::Send.as_str()))
        .filter(receipt_events::field.eq(field))
        .left_join(event_values::table)
        .into_boxed();
    query = match sent {
        Sent::Order(order) => query.filter(receipt_events::order_id.eq(order.0)),
        Sent::Number(number) => query
            .filter(receipt_events::year.eq(number.year))
            .filter(receipt_events::first_seq.eq(number.seq)),
    };
    Ok(query
        .order(receipt_events::id.desc())
        .select((
            receipt_events::created_at,
            receipt_events::new_value,
            (event_values::salt, event_values::new_value).nullable(),
        ))
        .first::<Recipient>(conn)
        .optional()?
        .map(recipient))
}

/// The tenant's numbered orders with a customer e-mail address that were never sent (of one
/// year, when given), oldest first.
pub fn unsent(conn: &mut DbConn, tenant: &Tenant, year: Option<i32>) -> Result<Vec<OrderId>, Error> {
    let sent = receipt_events::table
        .filter(receipt_events::order_id.eq(orders::id.nullable()))
        .filter(receipt_events::kind.eq(EventKind::Send.as_str()))
        .filter(receipt_events::field.eq(events::EMAIL));
    let mut query = tenant
        .orders()
        .filter(orders::receipt_number.is_not_null())
        .filter(orders::email.is_not_null())
        .filter(not(exists(sent)))
        .select(orders::id)
        .order(orders::id)
        .into_boxed();
    if let Some(year) = year {
        query = query.filter(orders::receipt_year.eq(year));
    }
    Ok(query.load::<i64>(conn)?.into_iter().map(OrderId).collect())
}

/// How many of the tenant's numbered orders (of one year) have no customer e-mail address.
pub fn without_address(conn: &mut DbConn, tenant: &Tenant, year: Option<i32>) -> Result<i64, Error> {
    let mut query = tenant
        .orders()
        .filter(orders::receipt_number.is_not_null())
        .filter(orders::email.is_null())
        .count()
        .into_boxed();
    if let Some(year) = year {
        query = query.filter(orders::receipt_year.eq(year));
    }
    Ok(query.get_result(conn)?)
}

/// Records that the server accepted a ready notice of `order` for `to`: the order says
/// when its customer was told, the journal to whom.
pub fn record_notice(
    conn: &mut DbConn,
    tenant: &Tenant,
    order: OrderId,
    number: ReceiptNumber,
    to: &str,
    message_id: &str,
) -> Result<(), Error> {
    diesel::update(tenant.orders().filter(orders::id.eq(order.0)))
        .set(orders::notified_at.eq(now_utc()))
        .execute(conn)?;
    Ok(events::record(conn, &Event::notify(tenant.id(), order, number, to, message_id))?)
}

/// To whom the customer of one of the tenant's orders was last told the racket is ready.
pub fn last_notice(conn: &mut DbConn, tenant: &Tenant, order: OrderId) -> Result<Option<String>, Error> {
    Ok(tenant
        .events()
        .filter(receipt_events::order_id.eq(order.0))
        .filter(receipt_events::kind.eq(EventKind::Notify.as_str()))
        .left_join(event_values::table)
        .order(receipt_events::id.desc())
        .select((
            receipt_events::created_at,
            receipt_events::new_value,
            (event_values::salt, event_values::new_value).nullable(),
        ))
        .first::<Recipient>(conn)
        .optional()?
        .map(|sent| recipient(sent).1))
}

/// The tenant's rackets waiting for their owners whose customers were never told and have an
/// e-mail address, oldest first. Orders brought over from V1 are not among them: their
/// customers took their rackets long ago, whatever V1 recorded.
pub fn pending_notices(conn: &mut DbConn, tenant: &Tenant) -> Result<Vec<OrderId>, Error> {
    Ok(tenant
        .orders()
        // Every predicate of the partial index of waiting rackets said, so that it is used.
        .filter(orders::strung_at.is_not_null())
        .filter(orders::returned_at.is_null())
        .filter(orders::voided_at.is_null())
        .filter(orders::kind.eq(OrderKind::Client.as_str()))
        .filter(orders::receipt_number.is_not_null())
        .filter(orders::notified_at.is_null())
        .filter(orders::email.is_not_null())
        .filter(orders::v1_id.is_null())
        .order((orders::strung_at, orders::id))
        .select(orders::id)
        .load::<i64>(conn)?
        .into_iter()
        .map(OrderId)
        .collect())
}
