//! What the program e-mails over the stringer's mail server, each exactly once unless asked
//! again and journaled only once the server accepted it, so that a failure leaves nothing
//! behind and trying again is safe: a numbered order's document (SPEC 14: `receipts send`,
//! the counter's Send) and "your racket is ready" (SPEC 19: `receipts notify`, `mint
//! --notify`, the counter's Notify).

use crate::db::receipts::{self, Options};
use crate::db::{orders, sends, stringers, Db, DbConn, Tenant};
use crate::domain::{check_email, format_local, CreditNumber, OrderId, OrderKind, ReceiptNumber};
use crate::error::{Error, Wanted};
use crate::mail::{message_id, Notice, Outgoing, SmtpUrl};
use crate::ops::batch::Tally;
use crate::ops::einvoices::{self, Form};
use crate::receipt::Receipt;

/// Tells the customer of `order` that the racket is ready, once unless `again`: the message
/// goes to the server first, and is journaled only once it accepted it, so a failure leaves
/// nothing behind and running the command again is safe (a failure after the server
/// accepted is `Error::AfterSending`). Returns the recipient.
pub fn notify(
    db: &mut Db,
    server: &SmtpUrl,
    tenant: &Tenant,
    order: OrderId,
    again: bool,
) -> Result<String, Error> {
    let prepared = prepare(db, tenant, order)?;
    // A message must never speak of a racket whose mint a failover could take back.
    db.confirm_durable()?;
    if let (false, Some(on)) = (again, prepared.notified_at) {
        let to = db.read(|conn| sends::last_notice(conn, tenant, order))?.unwrap_or_default();
        return Err(Error::AlreadyNotified { order, on: format_local(on, tenant.zone()), to });
    }
    deliver(db, server, tenant, order, &prepared)?;
    Ok(prepared.to)
}

/// Sends a prepared notice and journals it once the server accepted it (a failure from
/// then on would tell the customer twice if run again: `Error::AfterSending`).
fn deliver(
    db: &mut Db,
    server: &SmtpUrl,
    tenant: &Tenant,
    order: OrderId,
    prepared: &Prepared,
) -> Result<(), Error> {
    let message = prepared.notice().message()?;
    // Accepted and journaled, or neither: an interrupt waits for both.
    let _whole = crate::interrupt::Deferred::start();
    server.send(&message)?;
    let id = message_id(&message);
    db.write(|conn| sends::record_notice(conn, tenant, order, prepared.number, &prepared.to, &id))
        .map_err(|e| Error::AfterSending(Box::new(e)))
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
            from: (profile.business.name, sender),
            to,
            pickup_note: profile.pickup_note,
            notified_at: found.notified_at,
        })
    })
}

/// Sends the document of a numbered order to `to` (else the order's e-mail address), once
/// unless `again`: the number it carries is made durable first (SPEC 16), the message goes
/// to the server, and only what the server accepted is journaled. Returns what was sent.
pub fn send(
    db: &mut Db,
    server: &SmtpUrl,
    tenant: &Tenant,
    order: OrderId,
    asked: &Asked,
) -> Result<Document, Error> {
    let Asked { to, options, again } = *asked;
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
    deliver_document(db, server, tenant, order, &document, &message)?;
    Ok(document)
}

/// Sends credit note `number` to `to` (else its order's e-mail address), once unless
/// `again`, journaled only once the server accepted it. Returns the recipient.
pub fn send_credit(
    db: &mut Db,
    server: &SmtpUrl,
    tenant: &Tenant,
    number: CreditNumber,
    to: Option<&str>,
    again: bool,
) -> Result<String, Error> {
    let document = prepare_credit(db, tenant, number, to, Options::default())?;
    let message = document.message()?;
    db.confirm_durable()?;
    if !again {
        if let Some((when, to)) = db.read(|conn| sends::last_credit(conn, tenant, number))? {
            let on = format_local(when, tenant.zone());
            return Err(Error::AlreadySentCredit { number, on, to });
        }
    }
    let _whole = crate::interrupt::Deferred::start();
    server.send(&message)?;
    let id = message_id(&message);
    db.write(|conn| {
        sends::record_credit(conn, tenant, document.order, number, &document.to, &id)?;
        document.journal_einvoice(conn, tenant)
    })
    .map_err(|e| Error::AfterSending(Box::new(e)))?;
    Ok(document.to)
}

/// A credit note ready to be sent, addressed to `to` or else its order's e-mail address.
pub fn prepare_credit(
    db: &mut Db,
    tenant: &Tenant,
    number: CreditNumber,
    to: Option<&str>,
    options: Options,
) -> Result<Document, Error> {
    let (email, profile, receipt, order) = db.read(|conn| {
        let note = crate::db::credits::find(conn, tenant, number)?;
        let order = note
            .order
            .ok_or_else(|| Error::NoSuchCreditNote { number, stringer: tenant.handle().to_string() })?;
        let found = orders::find(conn, tenant, order)?;
        let profile = stringers::profile(conn, tenant)?;
        Ok((found.email, profile, receipts::credit_note(conn, tenant, number, options)?, order))
    })?;
    let to = recipient(to.or(email.as_deref()), order)?;
    let sender = profile.sender()?;
    let (pdf, hybrid) = einvoices::default_pdf(profile.einvoice, &receipt)?;
    Ok(Document {
        number: receipt.number,
        order,
        filename: crate::receipt::file_name(tenant.handle(), &number),
        from: (profile.business.name, sender),
        to,
        pdf,
        hybrid,
        receipt,
    })
}

/// The address a document goes to: the one given, else the order's.
fn recipient(to: Option<&str>, order: OrderId) -> Result<String, Error> {
    match to {
        Some(to) => check_email(to).map_err(Error::BadInput),
        None => Err(Error::NoEmailToSend { order }),
    }
}

/// What a send was asked: to whom (else the order's address), in which form, and whether
/// once more.
#[derive(Debug, Clone, Copy, Default)]
pub struct Asked<'a> {
    pub to: Option<&'a str>,
    pub options: Options,
    pub again: bool,
}

/// Hands a document's message to the server, then journals it.
fn deliver_document(
    db: &mut Db,
    server: &SmtpUrl,
    tenant: &Tenant,
    order: OrderId,
    document: &Document,
    message: &lettre::Message,
) -> Result<(), Error> {
    // Accepted and journaled, or neither: an interrupt waits for both.
    let _whole = crate::interrupt::Deferred::start();
    server.send(message)?;
    let id = message_id(message);
    db.write(|conn| {
        sends::record(conn, tenant, order, document.number, &document.to, &id)?;
        document.journal_einvoice(conn, tenant)
    })
    .map_err(|e| Error::AfterSending(Box::new(e)))
}

/// A document ready to be sent: its receipt, its PDF, who sends it and to whom.
pub struct Document {
    receipt: Receipt,
    pub number: ReceiptNumber,
    pub order: OrderId,
    from: (String, String),
    pub to: String,
    pdf: Vec<u8>,
    /// The PDF is the hybrid e-invoice (`stringer edit --einvoice`).
    hybrid: bool,
    filename: String,
}

impl Document {
    /// A hybrid e-mailed is an e-invoice written: journaled with the attachment's SHA-256.
    fn journal_einvoice(&self, conn: &mut DbConn, tenant: &Tenant) -> Result<(), Error> {
        match self.hybrid {
            true => {
                let name = format!("{} (e-mailed)", self.filename);
                einvoices::record(
                    conn,
                    tenant,
                    &self.receipt,
                    Form::Hybrid,
                    &einvoices::sha256(&self.pdf),
                    &name,
                )
            }
            false => Ok(()),
        }
    }

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
    let to = recipient(to.or(found.email.as_deref()), order)?;
    let sender = profile.sender()?;
    let (pdf, hybrid) = einvoices::default_pdf(profile.einvoice, &receipt)?;
    Ok(Document {
        number: receipt.number,
        order,
        filename: crate::receipt::file_name(tenant.handle(), &receipt.number),
        from: (profile.business.name, sender),
        to,
        pdf,
        hybrid,
        receipt,
    })
}

/// What a batch did with one order, said by the door as it happens.
pub enum Step<'a> {
    /// Sent (or, in a dry run, would be): the document's number if it is one, the recipient,
    /// the subject.
    Done {
        tenant: &'a Tenant,
        order: OrderId,
        number: Option<ReceiptNumber>,
        to: &'a str,
        subject: String,
    },
    Failed {
        tenant: &'a Tenant,
        order: OrderId,
        error: &'a Error,
    },
}

/// How a batch went.
#[derive(Debug, Default)]
pub struct Batch {
    pub tally: Tally,
    /// Numbered orders skipped for want of a customer e-mail address (`send --unsent`).
    pub without_address: i64,
}

/// `send --unsent`: every numbered document of `tenants` (of `year`, if given) never sent
/// that has a customer e-mail address, one message each, as a batch (`ops::batch`).
/// Without a server, a dry run: nothing is sent, each is said as it would go.
pub fn send_unsent(
    db: &mut Db,
    server: Option<&SmtpUrl>,
    tenants: &[Tenant],
    year: Option<i32>,
    options: Options,
    mut each: impl FnMut(&Step),
) -> Result<Batch, Error> {
    if server.is_some() {
        // A mail must never carry a number that a failover could take back: one
        // confirmation covers everything this connection reads.
        db.confirm_durable()?;
    }
    let mut batch = Batch::default();
    'tenants: for tenant in tenants {
        let (unsent, without) = db.read(|conn| {
            Ok((sends::unsent(conn, tenant, year)?, sends::without_address(conn, tenant, year)?))
        })?;
        batch.without_address += without;
        for order in unsent {
            let outcome = prepare_document(db, tenant, order, None, options).and_then(|document| {
                let message = document.message()?;
                if let Some(server) = server {
                    deliver_document(db, server, tenant, order, &document, &message)?;
                }
                Ok(document)
            });
            match outcome {
                Ok(document) => {
                    let subject = document.outgoing().subject();
                    let number = Some(document.number);
                    batch.tally.went();
                    each(&Step::Done { tenant, order, number, to: &document.to, subject })
                }
                // Without a server nothing can fail half-way: a dry run stops at the first.
                Err(error) if server.is_none() => return Err(error),
                Err(error) => {
                    each(&Step::Failed { tenant, order, error: &error });
                    if batch.tally.failed(tenant, order, error).is_break() {
                        break 'tenants;
                    }
                }
            }
        }
    }
    Ok(batch)
}

/// `notify --pending`: every racket of `tenants` waiting for pickup whose customer has an
/// e-mail address and was not told yet, one message each, as a batch (`ops::batch`).
/// Without a server, a dry run.
pub fn notify_pending(
    db: &mut Db,
    server: Option<&SmtpUrl>,
    tenants: &[Tenant],
    mut each: impl FnMut(&Step),
) -> Result<Batch, Error> {
    if server.is_some() {
        db.confirm_durable()?;
    }
    let mut batch = Batch::default();
    'tenants: for tenant in tenants {
        for order in db.read(|conn| sends::pending_notices(conn, tenant))? {
            let outcome = prepare(db, tenant, order).and_then(|prepared| match server {
                Some(server) => deliver(db, server, tenant, order, &prepared).map(|()| prepared),
                None => Ok(prepared),
            });
            match outcome {
                Ok(prepared) => {
                    let subject = prepared.notice().subject();
                    batch.tally.went();
                    each(&Step::Done { tenant, order, number: None, to: &prepared.to, subject })
                }
                Err(error) => {
                    each(&Step::Failed { tenant, order, error: &error });
                    if batch.tally.failed(tenant, order, error).is_break() {
                        break 'tenants;
                    }
                }
            }
        }
    }
    Ok(batch)
}
