//! Editing an order after it was taken (`order edit`, the counter's forms): what a numbered
//! order's document does not print may change, each change journaled; what it prints may
//! not, and the refusal says how the document reached the customer.

use super::events::{self, Change, Event};
use super::orders::{check_due, find, refuse_if_void, Order, OrderChanges};
use super::schema::orders;
use super::{DbConn, Tenant};
use crate::domain::{
    format_local, format_utc, now_utc, Due, Item, OrderId, OrderKind, PaymentMethod, ReceiptNumber,
};
use crate::error::Error;
use chrono::NaiveDateTime;
use diesel::prelude::*;

/// What `order edit` changes besides the order's details: the items (all of them, when
/// given), when the racket went back, the payment (`Some(None)` clears one recorded by
/// mistake), and why (for the journal).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Edit {
    pub details: OrderChanges,
    pub items: Option<Vec<Item>>,
    /// A new promised time, as given (after the order was taken, for `+24h`).
    pub due: Option<Due>,
    pub returned_at: Option<NaiveDateTime>,
    pub paid_at: Option<Option<NaiveDateTime>>,
    /// How it was paid, with a `paid_at`.
    pub method: Option<PaymentMethod>,
    pub reason: Option<String>,
}

/// How a client's numbered document reached the customer, if it did: e-mailed, paid,
/// picked up. Such a document is taken back by a credit note, never by a void.
pub fn left_the_shop(
    conn: &mut DbConn,
    tenant: &Tenant,
    order: &Order,
) -> Result<Option<&'static str>, Error> {
    // The stringer's own racket has no customer to hold its document.
    if order.kind != OrderKind::Client {
        return Ok(None);
    }
    if order.credited.0 > 0 {
        return Ok(Some("is taken back by a credit note already"));
    }
    if order.paid_at.is_some() {
        return Ok(Some("is paid"));
    }
    if order.part_paid.0 > 0 {
        return Ok(Some("is paid in part"));
    }
    if order.returned_at.is_some() {
        return Ok(Some("was picked up"));
    }
    let sent = super::sends::last(conn, tenant, order.id)?.is_some();
    if sent {
        return Ok(Some("was sent by e-mail"));
    }
    let reminded = !super::reminders::of_order(conn, tenant, order.id)?.is_empty();
    Ok(reminded.then_some("was reminded"))
}

/// Edits one of the tenant's orders. A void order is final: only its notes can still
/// change. A numbered order's document is fixed: only what it does not print (internal
/// notes, when the racket went back) and the payment may change, each change journaled
/// with its old and new value; clearing a payment needs a reason.
/// Changes an order as `edit` says; None when that would leave it as it is (nothing is
/// written then).
pub fn edit(conn: &mut DbConn, tenant: &Tenant, id: OrderId, edit: &Edit) -> Result<Option<Order>, Error> {
    let order = find(conn, tenant, id)?;
    let only_notes = Edit {
        details: OrderChanges { notes: edit.details.notes.clone(), ..OrderChanges::default() },
        reason: edit.reason.clone(),
        ..Edit::default()
    };
    if *edit != only_notes {
        refuse_if_void(&order, "edited (only its notes can still change)")?;
    }
    let items = super::items::of(conn, id)?;
    let new_items = edit.items.as_ref().filter(|new| **new != items);
    if let Some(number) = order.number {
        let mut fields = edit.details.printed_changes(&order);
        if new_items.is_some() {
            fields.push("items");
        }
        if !fields.is_empty() {
            let left_the_shop = left_the_shop(conn, tenant, &order)?;
            return Err(Error::DocumentFrozen { order: id, number, fields, left_the_shop });
        }
    }
    let mut details = edit.details.clone();
    if let Some(due) = edit.due {
        let zone = tenant.zone();
        let ordered_at = order.ordered_at.unwrap_or(order.created_at);
        let due_at = due.resolve(ordered_at, zone).map_err(Error::Usage)?;
        if let Some(returned_at) = order.returned_at.filter(|_| Some(due_at) != order.due_at) {
            let on = format_local(returned_at, zone);
            return Err(Error::PickedUp { order: id, on, what: "its promised time is history" });
        }
        check_due(tenant, ordered_at, due_at)?;
        details.due_at = Some(due_at);
    }
    let unchanged = details.changes(&order).is_empty()
        && new_items.is_none()
        && edit.returned_at.is_none_or(|at| Some(at) == order.returned_at)
        && edit.paid_at.is_none_or(|at| at == order.paid_at)
        && edit.method.is_none_or(|method| Some(method) == order.payment_method);
    if unchanged {
        return Ok(None);
    }
    if let Some(Some(_)) = edit.paid_at {
        match edit.method {
            Some(method) => super::stringers::check_counter_payment(conn, tenant, method, "method")?,
            None => super::stringers::check_method_named(conn, tenant)?,
        }
    }
    if edit.paid_at == Some(None) && order.paid_at.is_some() && edit.reason.is_none() {
        return Err(Error::ReasonRequired { order: id });
    }
    if let Some(new_items) = new_items {
        super::items::replace(conn, id, new_items)?;
    }
    diesel::update(tenant.orders().filter(orders::id.eq(id.0)))
        .set((
            &details,
            edit.returned_at.map(|at| orders::returned_at.eq(at)),
            edit.paid_at.map(|at| orders::paid_at.eq(at)),
            edit.method.map(|method| orders::payment_method.eq(method.as_str())),
            orders::updated_at.eq(now_utc()),
        ))
        .execute(conn)?;
    let edited = find(conn, tenant, id)?;
    if let Some(number) = edited.number {
        journal_changes(conn, tenant, &order, &edited, number, edit.reason.as_deref())?;
    }
    Ok(Some(edited))
}

/// One journal entry per field of a numbered order that changed.
fn journal_changes(
    conn: &mut DbConn,
    tenant: &Tenant,
    before: &Order,
    after: &Order,
    number: ReceiptNumber,
    reason: Option<&str>,
) -> Result<(), Error> {
    let instant = |at: Option<NaiveDateTime>| at.map(format_utc);
    for (field, old, new) in [
        ("paid_at", instant(before.paid_at), instant(after.paid_at)),
        (
            "payment_method",
            before.payment_method.map(|m| m.to_string()),
            after.payment_method.map(|m| m.to_string()),
        ),
        ("returned_at", instant(before.returned_at), instant(after.returned_at)),
        ("notes", before.notes.clone(), after.notes.clone()),
        ("email", before.email.clone(), after.email.clone()),
        ("due_at", instant(before.due_at), instant(after.due_at)),
    ] {
        if old != new {
            let change = Change { field, old: old.as_deref(), new: new.as_deref() };
            events::record(conn, &Event::edit(tenant.id(), before.id, number, change, reason))?;
        }
    }
    Ok(())
}
