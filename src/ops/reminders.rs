//! Reminders, as both doors ask for them (SPEC 22): the next reminder of one overdue
//! invoice, or of every invoice whose next reminder is due. Each is issued (its row and
//! its journal event, in one transaction) before it goes out; its sending is journaled only
//! once the mail server accepted it, so a failure leaves an issued, unsent reminder that
//! the next run sends unchanged, and a level is never issued twice.

use crate::db::reminders::{self, Invoice, Next, NotNow, Reminder, Settings};
use crate::db::{events, orders, receipts, stringers, Db, DbConn, Tenant};
use crate::domain::{
    format_local, local_date, now_utc, LastReminder, Level, NoReminder, OrderId, Price, ReceiptNumber,
};
use crate::error::Error;
use crate::mail::{message_id, Outgoing, SmtpUrl};
use crate::ops::batch::Tally;
use crate::receipt::{pdf, Receipt};
use chrono::NaiveDate;
use std::path::{Path, PathBuf};

/// How a reminder reached the customer's way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Delivery {
    /// E-mailed to this address.
    Sent(String),
    /// Written for the post, to this file.
    Printed(PathBuf),
    /// For the post, handed over as these PDF bytes (the counter's download).
    Handed(Vec<u8>),
}

/// A reminder done: issued now or before, and delivered.
#[derive(Debug, Clone)]
pub struct Reminded {
    pub invoice: ReceiptNumber,
    pub reminder: Reminder,
    /// False: issued by an earlier run whose delivery failed, delivered now unchanged.
    pub fresh: bool,
    pub delivery: Delivery,
}

/// The ways a reminder goes: by e-mail over the server, and for the post (a customer
/// without e-mail address) into a directory, or handed over as the PDF itself.
#[derive(Debug, Clone, Copy, Default)]
pub struct Ways<'a> {
    pub server: Option<&'a SmtpUrl>,
    pub out_dir: Option<&'a Path>,
    pub hand_over: bool,
}

impl Ways<'_> {
    /// Whether a reminder for the post can go.
    fn by_post(&self) -> bool {
        self.out_dir.is_some() || self.hand_over
    }
}

/// `remind ORDER`: the next reminder of one of the tenant's invoices, as soon as the invoice
/// (or the reminder before) is past its due date; or, `again`, the last one sent once more.
pub fn remind(
    db: &mut Db,
    ways: Ways,
    tenant: &Tenant,
    order: OrderId,
    again: bool,
) -> Result<Reminded, Error> {
    let (invoice, settings) = db.read(|conn| invoice_of(conn, tenant, order))?;
    if again {
        let last = last_issued(&invoice)?;
        ready(db, ways, tenant, &invoice)?;
        return deliver(db, ways, tenant, &invoice, last, false);
    }
    let today = local_date(now_utc(), tenant.zone());
    let next = match reminders::judge(&invoice, &settings, tenant.zone(), today, true) {
        Ok(next) => next,
        Err(not) => return Err(db.read(|conn| refusal(conn, tenant, &invoice, not))?),
    };
    ready(db, ways, tenant, &invoice)?;
    go(db, ways, tenant, &invoice, next)
}

/// Refused before anything is issued: a reminder that could never go (no way to the
/// customer, no sender address, a mail server that is not there).
fn ready(db: &mut Db, ways: Ways, tenant: &Tenant, invoice: &Invoice) -> Result<(), Error> {
    let order = invoice.order.id;
    match (invoice.order.email.is_some(), ways) {
        (true, Ways { server: Some(server), .. }) => {
            db.read(|conn| stringers::profile(conn, tenant)?.sender())?;
            server.check()
        }
        (true, Ways { server: None, .. }) => Err(Error::NoMailServer),
        (false, ways) if ways.by_post() => Ok(()),
        (false, _) => Err(no_address(order)),
    }
}

/// A reminder for a customer without e-mail address, and no directory for the post.
fn no_address(order: OrderId) -> Error {
    Error::NotRemindable { order, last: None, why: NoReminder::NoAddress { order } }
}

/// What `remind ORDER --dry-run` writes: the message it would send (RFC 5322), or for a
/// customer without e-mail the reminder's PDF; and the reminder's title.
pub struct DryRun {
    pub bytes: Vec<u8>,
    pub title: &'static str,
}

/// The reminder `remind ORDER --dry-run` would issue (or deliver unchanged), nothing
/// issued nor sent.
pub fn dry_run(db: &mut Db, tenant: &Tenant, order: OrderId, again: bool) -> Result<DryRun, Error> {
    let (receipt, email, profile) = db.read(|conn| {
        let (receipt, email) = draft(conn, tenant, order, again)?;
        Ok((receipt, email, stringers::profile(conn, tenant)?))
    })?;
    let pdf = pdf::render(&receipt)?;
    let title = receipt.title_text();
    let Some(to) = email else { return Ok(DryRun { bytes: pdf, title }) };
    let reminder = receipt.reminder.as_ref().ok_or_else(|| Error::Internal {
        what: "a reminder's dry run",
        detail: "the document is no reminder".into(),
    })?;
    let sender = profile.sender()?;
    let outgoing = Outgoing {
        receipt: &receipt,
        from: (&profile.business.name, &sender),
        to: &to,
        pdf,
        filename: file_name(tenant, reminder.invoice, reminder.level),
    };
    Ok(DryRun { bytes: outgoing.message()?.formatted(), title })
}

/// The reminder ORDER would get now (or the last one, `again`) as a document, and the
/// customer's e-mail address.
fn draft(
    conn: &mut DbConn,
    tenant: &Tenant,
    order: OrderId,
    again: bool,
) -> Result<(Receipt, Option<String>), Error> {
    let (invoice, settings) = invoice_of(conn, tenant, order)?;
    let email = invoice.order.email.clone();
    let today = local_date(now_utc(), tenant.zone());
    let issued = match again {
        true => last_issued(&invoice)?,
        false => match reminders::judge(&invoice, &settings, tenant.zone(), today, true) {
            Ok(Next::Issue(level)) => {
                // Not issued: drafted as it would be, without a check value yet.
                let draft = reminders::draft(tenant, &invoice.order, level, &settings);
                let receipt =
                    receipts::reminder_document(conn, tenant, &draft, &invoice.order, &invoice.issuer)?;
                return Ok((receipt, email));
            }
            Ok(Next::Deliver(issued)) => issued,
            Err(not) => return Err(refusal(conn, tenant, &invoice, not)?),
        },
    };
    // Issued: as it was issued, with its check value.
    Ok((receipts::reminder(conn, tenant, order, issued.level)?, email))
}

/// The invoice's last reminder, which `--again` sends once more.
fn last_issued(invoice: &Invoice) -> Result<Reminder, Error> {
    invoice.last().cloned().ok_or_else(|| Error::NotRemindable {
        order: invoice.order.id,
        last: None,
        why: NoReminder::NoneToSendAgain { number: invoice.number },
    })
}

/// The unpaid invoice `order` and the stringer's reminder settings; or why it is no
/// invoice.
fn invoice_of(conn: &mut DbConn, tenant: &Tenant, order: OrderId) -> Result<(Invoice, Settings), Error> {
    let found = orders::find(conn, tenant, order)?;
    let invoice = reminders::invoice(conn, tenant, found)?.map_err(|why| Error::NotRemindable {
        order,
        last: None,
        why,
    })?;
    Ok((invoice, reminders::settings(conn, tenant)?))
}

/// Why nothing is due, with what was sent when.
fn refusal(conn: &mut DbConn, tenant: &Tenant, invoice: &Invoice, not: NotNow) -> Result<Error, Error> {
    let last = match invoice.last().and_then(|last| Some((last, last.delivered()?))) {
        Some((last, when)) => Some(LastReminder {
            level: last.level,
            to: last_recipient(conn, tenant, last)?,
            sent: last.sent_at.is_some(),
            on: format_local(when, tenant.zone()),
        }),
        None => None,
    };
    Ok(Error::NotRemindable { order: invoice.order.id, last, why: not.why })
}

/// Whom a reminder was last e-mailed to.
fn last_recipient(conn: &mut DbConn, tenant: &Tenant, reminder: &Reminder) -> Result<Option<String>, Error> {
    crate::db::sends::last_reminder(conn, tenant, reminder.order, reminder.level)
        .map(|last| last.map(|(_, to)| to))
}

/// Issues the next level (or takes the one issued and undelivered) and delivers it.
fn go(db: &mut Db, ways: Ways, tenant: &Tenant, invoice: &Invoice, next: Next) -> Result<Reminded, Error> {
    let order = invoice.order.id;
    check_room(ways, tenant, invoice, &next)?;
    let (reminder, fresh) = match next {
        Next::Deliver(reminder) => (reminder, false),
        Next::Issue(level) => (db.write(|conn| reminders::issue(conn, tenant, order, level))?, true),
    };
    deliver(db, ways, tenant, invoice, reminder, fresh)
}

/// Refuses a reminder to be issued for the post whose file is in the directory already: a
/// file that is there stays, and nothing is issued. (One issued before goes to the same file,
/// which holds the same bytes if it was written then.)
fn check_room(ways: Ways, tenant: &Tenant, invoice: &Invoice, next: &Next) -> Result<(), Error> {
    let (None, Some(dir), Next::Issue(level)) = (&invoice.order.email, ways.out_dir, next) else {
        return Ok(());
    };
    let path = dir.join(file_name(tenant, invoice.number, *level));
    match path.exists() {
        true => Err(Error::OutputExists { path: path.display().to_string(), what: "receipts" }),
        false => Ok(()),
    }
}

/// Delivers an issued reminder, whatever was delivered before: e-mailed (journaled once the
/// server accepted it), written for the post, or handed over; its first delivery noted.
fn deliver(
    db: &mut Db,
    ways: Ways,
    tenant: &Tenant,
    invoice: &Invoice,
    reminder: Reminder,
    fresh: bool,
) -> Result<Reminded, Error> {
    let order = invoice.order.id;
    // A reminder must never go out that a failover could take back.
    db.confirm_durable()?;
    let (receipt, profile) = db.read(|conn| {
        Ok((receipts::reminder(conn, tenant, order, reminder.level)?, stringers::profile(conn, tenant)?))
    })?;
    let bytes = pdf::render(&receipt)?;
    let filename = file_name(tenant, invoice.number, reminder.level);
    let level = reminder.level;
    let delivery = match (&invoice.order.email, ways) {
        (Some(to), Ways { server: Some(server), .. }) => {
            let sender = profile.sender()?;
            let outgoing = Outgoing {
                receipt: &receipt,
                from: (&profile.business.name, &sender),
                to,
                pdf: bytes,
                filename,
            };
            let message = outgoing.message()?;
            // Accepted and journaled, or neither: an interrupt waits for both.
            let _whole = crate::interrupt::Deferred::start();
            server.send(&message)?;
            let id = message_id(&message);
            db.write(|conn| {
                let event = events::Event::send_reminder(tenant.id(), order, invoice.number, level, to, &id);
                events::record(conn, &event)?;
                reminders::delivered(conn, tenant, order, level, false)
            })
            .map_err(|e| Error::AfterSending(Box::new(e)))?;
            Delivery::Sent(to.clone())
        }
        (Some(_), Ways { server: None, .. }) => return Err(Error::NoMailServer),
        (None, Ways { out_dir: Some(dir), .. }) => {
            let path = dir.join(&filename);
            // The same bytes there already (a reminder written before) are no change.
            crate::files::write_new(&path, &bytes, "receipts")?;
            db.write(|conn| reminders::delivered(conn, tenant, order, level, true))?;
            Delivery::Printed(path)
        }
        (None, Ways { hand_over: true, .. }) => {
            db.write(|conn| reminders::delivered(conn, tenant, order, level, true))?;
            Delivery::Handed(bytes)
        }
        (None, Ways { out_dir: None, .. }) => return Err(no_address(order)),
    };
    Ok(Reminded { invoice: invoice.number, reminder, fresh, delivery })
}

/// The name a reminder's PDF is saved and attached under: `anna-2026-0042-reminder-2.pdf`.
pub fn file_name(tenant: &Tenant, invoice: ReceiptNumber, level: Level) -> String {
    crate::receipt::file_name(tenant.handle(), &format!("{invoice}-reminder-{level}"))
}

/// What a run planned for one invoice.
#[derive(Debug, Clone)]
pub struct Planned<'a> {
    pub tenant: &'a Tenant,
    pub order: OrderId,
    pub invoice: ReceiptNumber,
    pub level: Level,
    /// The open amount and the fee.
    pub asked: (Price, Price),
    pub currency: String,
    pub customer: Option<String>,
    /// The customer's e-mail address; None: for the post.
    pub to: Option<String>,
}

/// What a run did with one invoice, said by the door as it happens.
pub enum Step<'a> {
    /// Done (in a dry run: would be done).
    Done(&'a Planned<'a>, Option<&'a Delivery>),
    /// No e-mail address and no --out-dir: to print, nothing issued.
    ToPrint(&'a Planned<'a>),
    Failed(&'a Planned<'a>, &'a Error),
}

/// How a run went, per stringer and in all.
#[derive(Debug, Default)]
pub struct Run {
    pub tally: Tally,
    pub to_print: usize,
    /// Overdue invoices whose next reminder is not due yet.
    pub waiting: usize,
    /// Overdue invoices held back by a bank transaction naming them that waits for somebody
    /// to handle it (`payments list --open`): why, each.
    pub held: Vec<String>,
    /// Per stringer: the last booking date of the bank files imported (None: none yet).
    pub bank_known_until: Vec<(String, Option<NaiveDate>)>,
}

/// `remind --due`: for each of `tenants`, every invoice whose next reminder is due, issued
/// and delivered one by one as a batch (`ops::batch`: a reminder issued and not sent goes
/// unchanged with the next run). An error means nothing of that stringer was
/// issued. `dry_run`: nothing is issued, each is said as it would go.
pub fn remind_due(
    db: &mut Db,
    ways: Ways,
    dry_run: bool,
    tenants: &[Tenant],
    mut each: impl FnMut(&Step),
) -> Result<Run, Error> {
    let mut run = Run::default();
    for tenant in tenants {
        let today = local_date(now_utc(), tenant.zone());
        let (invoices, settings, known) = db.read(|conn| {
            Ok((
                reminders::overdue(conn, tenant, today)?,
                reminders::settings(conn, tenant)?,
                reminders::bank_known_until(conn, tenant)?,
            ))
        })?;
        run.bank_known_until.push((tenant.handle().to_string(), known));
        let planned = plan(tenant, &invoices, &settings, today, &mut run);
        if !dry_run {
            // Said before anything is issued: a server that is not there, once per stringer,
            // and a file for the post that is there already.
            if let Some((_, invoice, _)) = planned.iter().find(|(p, _, _)| p.to.is_some()) {
                ready(db, ways, tenant, invoice)?;
            }
            for (_, invoice, next) in &planned {
                check_room(ways, tenant, invoice, next)?;
            }
        }
        for (planned, invoice, next) in planned {
            if planned.to.is_none() && !ways.by_post() {
                run.to_print += 1;
                each(&Step::ToPrint(&planned));
                continue;
            }
            if dry_run {
                run.tally.went();
                each(&Step::Done(&planned, None));
                continue;
            }
            match go(db, ways, tenant, &invoice, next) {
                Ok(done) => {
                    run.tally.went();
                    each(&Step::Done(&planned, Some(&done.delivery)));
                }
                Err(error) => {
                    each(&Step::Failed(&planned, &error));
                    if run.tally.failed(tenant, planned.order, error).is_break() {
                        return Ok(run);
                    }
                }
            }
        }
    }
    Ok(run)
}

/// The invoices of a run: those whose next reminder is due, with what each will ask.
fn plan<'a>(
    tenant: &'a Tenant,
    invoices: &[Invoice],
    settings: &Settings,
    today: NaiveDate,
    run: &mut Run,
) -> Vec<(Planned<'a>, Invoice, Next)> {
    let mut planned = Vec::new();
    for invoice in invoices {
        let next = match reminders::judge(invoice, settings, tenant.zone(), today, false) {
            Ok(next) => next,
            Err(NotNow { due_on: Some(_), .. }) => {
                run.waiting += 1;
                continue;
            }
            Err(NotNow { why, .. }) if invoice.waiting_payment.is_some() => {
                run.held.push(format!("order {} of {}: {why}", invoice.order.id, tenant.handle()));
                continue;
            }
            Err(_) => continue,
        };
        let (level, asked) = match &next {
            Next::Deliver(reminder) => (reminder.level, (reminder.open, reminder.fee)),
            Next::Issue(level) => {
                let draft = reminders::draft(tenant, &invoice.order, *level, settings);
                (*level, (draft.open, draft.fee))
            }
        };
        planned.push((
            Planned {
                tenant,
                order: invoice.order.id,
                invoice: invoice.number,
                level,
                asked,
                currency: invoice.order.currency.to_string(),
                customer: invoice.order.customer.clone(),
                to: invoice.order.email.clone(),
            },
            invoice.clone(),
            next,
        ));
    }
    planned
}
