//! "Your racket is ready" (SPEC 19): the notice to the customer of a strung racket, sent
//! over the stringer's mail server exactly once unless asked again, and journaled only
//! once the server accepted it. `receipts notify`, `mint --notify` and the counter's
//! Notify all come here.

use crate::db::receipts::{self, Options};
use crate::db::{orders, sends, stringers, Db, Tenant};
use crate::domain::{format_local, OrderId, OrderKind, ReceiptNumber};
use crate::error::Error;
use crate::mail::{message_id, Notice, SmtpUrl};
use crate::receipt::Receipt;

/// Tells the customer of `order` that the racket is ready, once unless `again`: the message
/// goes to the server first, and is journaled only once it accepted it, so a failure leaves
/// nothing behind and running the command again is safe. Returns the recipient.
pub fn notify(
    db: &mut Db,
    server: &SmtpUrl,
    tenant: &Tenant,
    order: OrderId,
    again: bool,
    accepted: impl FnOnce(),
) -> Result<String, Error> {
    let prepared = prepare(db, tenant, order)?;
    // A message must never speak of a racket whose mint a failover could take back.
    db.confirm_durable()?;
    if let (false, Some(on)) = (again, prepared.notified_at) {
        let to = db.read(|conn| sends::last_notice(conn, tenant, order))?.unwrap_or_default();
        return Err(Error::AlreadyNotified { order, on: format_local(on, tenant.zone()), to });
    }
    deliver(db, server, tenant, order, &prepared, accepted)?;
    Ok(prepared.to)
}

/// Sends a prepared notice and journals it once the server accepted it; `accepted` is
/// called in between (from then on, running the command again would tell the customer
/// twice).
pub fn deliver(
    db: &mut Db,
    server: &SmtpUrl,
    tenant: &Tenant,
    order: OrderId,
    prepared: &Prepared,
    accepted: impl FnOnce(),
) -> Result<(), Error> {
    let message = prepared.notice().message()?;
    server.send(&message)?;
    accepted();
    let id = message_id(&message);
    db.write(|conn| sends::record_notice(conn, tenant, order, prepared.number, &prepared.to, &id))
}

/// A ready notice, ready to go.
pub struct Prepared {
    receipt: Receipt,
    number: ReceiptNumber,
    from: (String, String),
    pub to: String,
    pickup_note: Option<String>,
    notified_at: Option<chrono::NaiveDateTime>,
}

impl Prepared {
    pub fn notice(&self) -> Notice<'_> {
        Notice {
            receipt: &self.receipt,
            from: (&self.from.0, &self.from.1),
            to: &self.to,
            pickup_note: self.pickup_note.as_deref(),
        }
    }
}

/// Only a client's racket that is strung and not picked up is announced, to the order's
/// e-mail address, from the stringer's.
pub fn prepare(db: &mut Db, tenant: &Tenant, order: OrderId) -> Result<Prepared, Error> {
    db.read(|conn| {
        let found = orders::find(conn, tenant, order)?;
        orders::refuse_if_void(&found, "announced as ready")?;
        if found.kind == OrderKind::Own {
            return Err(Error::OwnRacket { order });
        }
        let (Some(number), Some(_)) = (found.number, found.strung_at) else {
            return Err(Error::NotReady { order });
        };
        if let Some(returned_at) = found.returned_at {
            let on = format_local(returned_at, tenant.zone());
            return Err(Error::PickedUp { order, on, what: "nobody needs telling it is ready" });
        }
        let to = found.email.clone().ok_or(Error::NoEmail { order })?;
        let profile = stringers::profile(conn, tenant)?;
        let sender = profile.sender()?;
        Ok(Prepared {
            receipt: receipts::receipt(conn, tenant, order, Options::default())?,
            number,
            from: (profile.name, sender),
            to,
            pickup_note: profile.pickup_note,
            notified_at: found.notified_at,
        })
    })
}
