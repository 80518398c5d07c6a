//! An order's life as both doors ask for it: taken, listed, shown, edited, unstrung,
//! restrung, picked up, deleted (`db::orders` holds the rules; each call here is one
//! transaction).

use crate::db::intake::{self, Details, Intake, Taken};
use crate::db::listings::{self, Filter, Listed};
use crate::db::order_edit::{self, Edit};
use crate::db::orders::{self, Order, Pickup};
use crate::db::part_payments::{self, Paid, Payment};
use crate::db::receipts::{Billing, Frozen};
use crate::db::{Db, Tenant};
use crate::domain::{OrderId, OrderKind};
use crate::error::Error;
use chrono::NaiveDateTime;

/// Takes an order at the counter (`db::intake::take_order`): what was done, and the
/// small-amount limit it is above when its invoice will need the customer's address.
pub fn take(
    db: &mut Db,
    tenant: &Tenant,
    kind: OrderKind,
    ordered_at: NaiveDateTime,
    intake: &Intake,
    details: Details,
) -> Result<(Taken, Option<&'static str>), Error> {
    db.write(|conn| intake::take_order(conn, tenant, kind, ordered_at, intake, details))
}

/// Every order of the filter, with what its document bills, in one read transaction.
pub fn list(
    db: &mut Db,
    tenant: Option<&Tenant>,
    filter: &Filter,
    limit: Option<u64>,
    mut each: impl FnMut(Listed<'_>, Billing) -> Result<(), Error>,
) -> Result<(), Error> {
    db.read(|conn| {
        let frozen = Frozen::load(conn, tenant)?;
        listings::for_each(conn, tenant, filter, limit, |conn, listed| {
            let billing = frozen
                .billing(&listed.order, listed.stringer)
                .with_credit_notes(conn, listed.stringer, &listed.order, false)?
                .with_reminders(conn, listed.stringer, &listed.order, false)?;
            each(listed, billing)
        })
    })
}

/// One order with what its document bills and its items.
pub fn show(db: &mut Db, tenant: &Tenant, order: OrderId) -> Result<super::views::OrderSeen, Error> {
    db.read(|conn| super::views::order(conn, tenant, order))
}

/// Edits an order: None when nothing changed; else the order, and the small-amount limit
/// it is above when its invoice will need the customer's address.
pub fn edit(
    db: &mut Db,
    tenant: &Tenant,
    order: OrderId,
    edit: &Edit,
) -> Result<Option<(Order, Option<&'static str>)>, Error> {
    db.write(|conn| {
        let Some(edited) = order_edit::edit(conn, tenant, order, edit)? else { return Ok(None) };
        let address = orders::address_wanted(conn, tenant, &edited)?;
        Ok(Some((edited, address)))
    })
}

pub fn unstring(db: &mut Db, tenant: &Tenant, order: OrderId) -> Result<Order, Error> {
    db.write(|conn| orders::unstring(conn, tenant, order))
}

/// A new order for the same racket; its id.
pub fn restring(db: &mut Db, tenant: &Tenant, order: OrderId) -> Result<OrderId, Error> {
    db.write(|conn| orders::restring(conn, tenant, order))
}

/// The racket picked up, and paid there when the pickup names a method.
pub fn pickup(db: &mut Db, tenant: &Tenant, order: OrderId, pickup: Pickup) -> Result<Order, Error> {
    db.write(|conn| orders::pickup(conn, tenant, order, pickup))
}

/// A payment of a numbered invoice at the counter, in full or in part.
pub fn pay(db: &mut Db, tenant: &Tenant, order: OrderId, payment: Payment) -> Result<Paid, Error> {
    db.write(|conn| part_payments::pay(conn, tenant, order, payment))
}

pub fn delete(db: &mut Db, tenant: &Tenant, order: OrderId) -> Result<(), Error> {
    db.write(|conn| orders::delete(conn, tenant, order))
}
