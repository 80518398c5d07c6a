//! What the program e-mails over the stringer's mail server, each exactly once unless asked
//! again and journaled only once the server accepted it, so that a failure leaves nothing
//! behind and trying again is safe: a numbered order's document (SPEC 14: `receipts send`,
//! the counter's Send) and "your racket is ready" (SPEC 19: `receipts notify`, `mint
//! --notify`, the counter's Notify).

use crate::db::receipts::{self, Options};
use crate::db::{orders, sends, stringers, Db, Tenant};
use crate::domain::{check_email, format_local, OrderId, OrderKind, ReceiptNumber};
use crate::error::{Error, Wanted};
use crate::mail::{message_id, Notice, Outgoing, SmtpUrl};
use crate::receipt::{pdf, Receipt};

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
    // Accepted and journaled, or neither: an interrupt waits for both.
    let _whole = crate::interrupt::Deferred::start();
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

/// Sends the document of a numbered order to `to` (else the order's e-mail address), once
/// unless `again`: the number it carries is made durable first (SPEC 16), the message goes
/// to the server, and only what the server accepted is journaled. `accepted` is called in
/// between. Returns what was sent.
#[allow(clippy::too_many_arguments)]
pub fn send(
    db: &mut Db,
    server: &SmtpUrl,
    tenant: &Tenant,
    order: OrderId,
    to: Option<&str>,
    options: Options,
    again: bool,
    accepted: impl FnOnce(),
) -> Result<Document, Error> {
    let document = prepare_document(db, tenant, order, to, options)?;
    let message = document.message()?;
    // A mail must never carry a number that a failover could take back.
    db.confirm_durable()?;
    if !again {
        if let Some((when, to)) = db.read(|conn| sends::last(conn, tenant, order))? {
            let on = format_local(when, tenant.zone());
            return Err(Error::AlreadySent { number: document.number, order, on, to });
        }
    }
    deliver_document(db, server, tenant, order, &document, &message, accepted)?;
    Ok(document)
}

/// Hands a document's message to the server, then journals it.
pub fn deliver_document(
    db: &mut Db,
    server: &SmtpUrl,
    tenant: &Tenant,
    order: OrderId,
    document: &Document,
    message: &lettre::Message,
    accepted: impl FnOnce(),
) -> Result<(), Error> {
    // Accepted and journaled, or neither: an interrupt waits for both.
    let _whole = crate::interrupt::Deferred::start();
    server.send(message)?;
    accepted();
    let id = message_id(message);
    db.write(|conn| sends::record(conn, tenant, order, document.number, &document.to, &id))
}

/// A document ready to be sent: its receipt, its PDF, who sends it and to whom.
pub struct Document {
    receipt: Receipt,
    pub number: ReceiptNumber,
    from: (String, String),
    pub to: String,
    pdf: Vec<u8>,
    filename: String,
}

impl Document {
    pub fn outgoing(&self) -> Outgoing<'_> {
        Outgoing {
            receipt: &self.receipt,
            from: (&self.from.0, &self.from.1),
            to: &self.to,
            pdf: self.pdf.clone(),
            filename: self.filename.clone(),
        }
    }

    pub fn message(&self) -> Result<lettre::Message, Error> {
        self.outgoing().message()
    }
}

/// A numbered order's document, addressed to `to` or else the order's e-mail address.
pub fn prepare_document(
    db: &mut Db,
    tenant: &Tenant,
    order: OrderId,
    to: Option<&str>,
    options: Options,
) -> Result<Document, Error> {
    let (found, profile, receipt) = db.read(|conn| {
        let found = orders::find(conn, tenant, order)?;
        if found.number.is_none() {
            return Err(Error::Unnumbered { order, wanted: Wanted::Send });
        }
        let profile = stringers::profile(conn, tenant)?;
        Ok((found, profile, receipts::receipt(conn, tenant, order, options)?))
    })?;
    let to = match to.or(found.email.as_deref()) {
        Some(to) => check_email(to).map_err(Error::BadInput)?,
        None => {
            return Err(Error::BadInput(format!(
                "order {order} has no customer e-mail address: pass --to ADDRESS, or set it with \
                 `receipts order edit {order} --email ...`"
            )))
        }
    };
    let sender = profile.sender()?;
    let pdf = pdf::render(&receipt)?;
    Ok(Document {
        number: receipt.number,
        filename: format!("{}-{}.pdf", tenant.handle(), receipt.number),
        from: (profile.name, sender),
        to,
        pdf,
        receipt,
    })
}
