//! Reminders of unpaid invoices (SPEC 22): which invoice is due for which level, and the
//! reminder issued (its frozen row and its journal event, whose hash is the check value its
//! document prints) in the caller's write transaction, once per (invoice, level).
//!
//! Policy: the order's row is locked first (PostgreSQL; SQLite's write transaction keeps
//! every other writer out), and the order judged again under the lock, so that two runs at
//! once issue a level once; the unique (order, level) index is the last word. A reminder is
//! never changed afterwards except that its first delivery is noted (`sent_at`, or
//! `printed_at` for the post), by triggers.

use super::events::{self, Event};
use super::issuers::{self, Issuer};
use super::orders::{self, Order};
use super::schema::{listed_payments, orders as orders_table, receipt_events, reminders, stringers};
use super::{DbConn, Tenant};
use crate::domain::{
    fee_forbidden, local_date, now_utc, reminder_due, Currency, EventKind, Level, NoReminder, OrderId,
    OrderKind, Price, ReceiptNumber,
};
use crate::error::Error;
use chrono::{Days, NaiveDate, NaiveDateTime};
use diesel::prelude::*;
use std::collections::{HashMap, HashSet};

/// A reminder as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reminder {
    pub order: OrderId,
    pub level: Level,
    pub issued_at: NaiveDateTime,
    /// What the invoice still asked when it was issued: its total less its credit notes.
    pub open: Price,
    /// The fee of its level (zero: none).
    pub fee: Price,
    pub currency: Currency,
    /// Its new last day to pay.
    pub due_on: NaiveDate,
    pub sent_at: Option<NaiveDateTime>,
    /// Written for the post (a customer without e-mail).
    pub printed_at: Option<NaiveDateTime>,
}

impl Reminder {
    /// When it first reached the customer's way: sent, or written for the post.
    pub fn delivered(&self) -> Option<NaiveDateTime> {
        self.sent_at.or(self.printed_at)
    }

    /// What it asks: the open amount and its fee.
    pub fn asked(&self) -> Price {
        Price(self.open.0 + self.fee.0)
    }

    /// The journal's words for what it asks (the event's `new` value), which `audit --verify`
    /// compares with the row: `CHF 55.00 + 5.00 until 2026-12-10`.
    pub fn journaled(&self) -> String {
        format!("{} {} + {} until {}", self.currency, self.open, self.fee, self.due_on)
    }
}

#[derive(Queryable, Selectable)]
#[diesel(table_name = reminders)]
struct ReminderRow {
    order_id: i64,
    level: i32,
    issued_at: NaiveDateTime,
    open_minor: i64,
    fee_minor: i64,
    #[diesel(deserialize_as = String)]
    currency: Currency,
    due_on: NaiveDate,
    sent_at: Option<NaiveDateTime>,
    printed_at: Option<NaiveDateTime>,
}

impl TryFrom<ReminderRow> for Reminder {
    type Error = Error;

    fn try_from(row: ReminderRow) -> Result<Reminder, Error> {
        let level = Level::new(row.level).ok_or_else(|| Error::Internal {
            what: "a reminder",
            detail: format!("order {} has a reminder of level {}", row.order_id, row.level),
        })?;
        Ok(Reminder {
            order: OrderId(row.order_id),
            level,
            issued_at: row.issued_at,
            open: Price(row.open_minor),
            fee: Price(row.fee_minor),
            currency: row.currency,
            due_on: row.due_on,
            sent_at: row.sent_at,
            printed_at: row.printed_at,
        })
    }
}

/// A stringer's reminder settings (`stringer edit --remind-after/--remind-every/--remind-from
/// /--reminder-fee`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// Level 1 is due this many days after the invoice's due date.
    pub after_days: i32,
    /// Each next level this many days after the reminder before.
    pub every_days: i32,
    /// Invoices numbered before this day are never reminded.
    pub from: Option<NaiveDate>,
    /// The fee of each level, if set.
    pub fees: [Option<Price>; 3],
    /// The stringer's country (ISO 3166), whose law says which fees a reminder may ask.
    pub country: Option<String>,
}

impl Settings {
    pub fn fee(&self, level: Level) -> Option<Price> {
        self.fees[(level.get() - 1) as usize]
    }
}

pub fn settings(conn: &mut DbConn, tenant: &Tenant) -> Result<Settings, Error> {
    let (after_days, every_days, from, one, two, three, country): SettingsRow = tenant
        .row()
        .select((
            stringers::remind_after_days,
            stringers::remind_every_days,
            stringers::remind_from,
            stringers::reminder_fee_1_minor,
            stringers::reminder_fee_2_minor,
            stringers::reminder_fee_3_minor,
            stringers::country,
        ))
        .first(conn)?;
    let fees = [one, two, three].map(|fee| fee.map(Price));
    Ok(Settings { after_days, every_days, from, fees, country })
}

type SettingsRow = (i32, i32, Option<NaiveDate>, Option<i64>, Option<i64>, Option<i64>, Option<String>);

/// What `stringer edit` changes of the settings; None leaves a value as it is.
#[derive(Debug, Clone, Default)]
pub struct SettingsEdit {
    pub after_days: Option<i32>,
    pub every_days: Option<i32>,
    /// `Some(None)`: cleared.
    pub from: Option<Option<NaiveDate>>,
    /// A level's fee: `Some(None)` clears it.
    pub fees: Vec<(Level, Option<Price>)>,
}

impl SettingsEdit {
    pub fn is_empty(&self) -> bool {
        self.after_days.is_none() && self.every_days.is_none() && self.from.is_none() && self.fees.is_empty()
    }
}

/// Changes the settings; a fee the law of the stringer's country forbids is refused (65).
pub fn edit_settings(conn: &mut DbConn, tenant: &Tenant, edit: &SettingsEdit) -> Result<Settings, Error> {
    let mut wanted = settings(conn, tenant)?;
    if let Some(days) = edit.after_days {
        wanted.after_days = days;
    }
    if let Some(days) = edit.every_days {
        wanted.every_days = days;
    }
    if let Some(from) = edit.from {
        wanted.from = from;
    }
    for &(level, fee) in &edit.fees {
        if let (Some(fee), Some(law)) =
            (fee.filter(|f| f.0 > 0), fee_forbidden(wanted.country.as_deref(), level))
        {
            return Err(Error::Invalid {
                field: "reminder-fee",
                problem: format!("is {fee} for level {level}, but {law}"),
            });
        }
        wanted.fees[(level.get() - 1) as usize] = fee.filter(|f| f.0 > 0);
    }
    let [one, two, three] = wanted.fees.map(|fee| fee.map(|f| f.0));
    diesel::update(tenant.row())
        .set((
            stringers::remind_after_days.eq(wanted.after_days),
            stringers::remind_every_days.eq(wanted.every_days),
            stringers::remind_from.eq(wanted.from),
            stringers::reminder_fee_1_minor.eq(one),
            stringers::reminder_fee_2_minor.eq(two),
            stringers::reminder_fee_3_minor.eq(three),
        ))
        .execute(conn)?;
    Ok(wanted)
}

/// The reminders of one of the tenant's orders, by level.
pub fn of_order(conn: &mut DbConn, tenant: &Tenant, order: OrderId) -> Result<Vec<Reminder>, Error> {
    Ok(of_orders(conn, tenant, &[order.0])?.remove(&order.0).unwrap_or_default())
}

/// The reminders of some of the tenant's orders, by order and level.
pub fn of_orders(
    conn: &mut DbConn,
    tenant: &Tenant,
    orders: &[i64],
) -> Result<HashMap<i64, Vec<Reminder>>, Error> {
    let mut found: HashMap<i64, Vec<Reminder>> = HashMap::new();
    for chunk in orders.chunks(5_000) {
        let rows: Vec<ReminderRow> = tenant
            .reminders()
            .filter(reminders::order_id.eq_any(chunk))
            .order((reminders::order_id, reminders::level))
            .select(ReminderRow::as_select())
            .load(conn)?;
        for row in rows {
            let reminder = Reminder::try_from(row)?;
            found.entry(reminder.order.0).or_default().push(reminder);
        }
    }
    Ok(found)
}

/// Every reminder of the tenant issued from `bounds.0` up to `bounds.1` (UTC instants), by
/// issue.
pub fn in_period(
    conn: &mut DbConn,
    tenant: &Tenant,
    bounds: (NaiveDateTime, NaiveDateTime),
) -> Result<Vec<Reminder>, Error> {
    tenant
        .reminders()
        .filter(reminders::issued_at.ge(bounds.0))
        .filter(reminders::issued_at.lt(bounds.1))
        .order((reminders::issued_at, reminders::id))
        .select(ReminderRow::as_select())
        .load(conn)?
        .into_iter()
        .map(Reminder::try_from)
        .collect()
}

/// An unpaid invoice and what the database knows around it, to be judged.
#[derive(Debug, Clone)]
pub struct Invoice {
    pub order: Order,
    /// The profile version it was issued under.
    pub issuer: Issuer,
    pub number: ReceiptNumber,
    /// Its last day to pay, by the profile it was issued under.
    pub due_on: NaiveDate,
    pub reminders: Vec<Reminder>,
    /// The customer has it: the racket was picked up, or its document e-mailed.
    pub delivered: bool,
    /// A bank transaction naming it waits in `payments list --open`: booked on, amount.
    pub waiting_payment: Option<(NaiveDate, Price)>,
}

impl Invoice {
    /// The last reminder issued, if any.
    pub fn last(&self) -> Option<&Reminder> {
        self.reminders.last()
    }
}

/// What comes next for an invoice.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Next {
    /// Issued before and never delivered (the mail server failed, say): delivered unchanged.
    Deliver(Reminder),
    /// The next level, issued now.
    Issue(Level),
}

/// Why an invoice is not reminded now: the reason, and whether it will be later (only then
/// does `remind --due` list it as waiting; the others are simply not its business).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotNow {
    pub why: NoReminder,
    /// The day the next level is due, when only time stands in its way.
    pub due_on: Option<NaiveDate>,
}

/// Whether `invoice` gets a reminder `today`: asked on purpose (`remind ORDER`: as soon as
/// the invoice, or the reminder before, is past its due date) or in a run (`remind --due`:
/// after the stringer's days).
pub fn judge(
    invoice: &Invoice,
    settings: &Settings,
    zone: chrono_tz::Tz,
    today: NaiveDate,
    on_purpose: bool,
) -> Result<Next, NotNow> {
    let never = |why: NoReminder| Err(NotNow { why, due_on: None });
    let number = invoice.number;
    if let Some((booked_on, amount)) = invoice.waiting_payment {
        let amount = format!("{} {amount}", invoice.order.currency);
        return never(NoReminder::BankPaymentWaits { number, amount, booked_on });
    }
    if let Some(from) = settings.from {
        if invoice.order.strung_at.is_some_and(|at| local_date(at, zone) < from) {
            return never(NoReminder::BeforeRemindFrom { number, from });
        }
    }
    if !invoice.delivered {
        return never(NoReminder::NotDelivered { number, order: invoice.order.id });
    }
    if let Some(last) = invoice.last().filter(|r| r.delivered().is_none()) {
        return Ok(Next::Deliver(last.clone()));
    }
    let (level, past, due_on) = match invoice.last() {
        None => {
            let after = Days::new(settings.after_days.max(0) as u64);
            (Level::FIRST, invoice.due_on, invoice.due_on + after)
        }
        Some(last) => {
            let Some(level) = last.level.next() else {
                return never(NoReminder::FinalReached { number, on: local_date(last.issued_at, zone) });
            };
            let every = Days::new(settings.every_days.max(1) as u64);
            let next = (local_date(last.issued_at, zone) + every).max(last.due_on + Days::new(1));
            (level, last.due_on, next)
        }
    };
    if today <= past {
        return Err(NotNow {
            why: NoReminder::NotOverdue { number, last: invoice.last().map(|last| last.level), until: past },
            due_on: Some(due_on.max(past + Days::new(1))),
        });
    }
    if !on_purpose && today < due_on {
        return Err(NotNow {
            why: NoReminder::NotDueYet { number, level, on: due_on },
            due_on: Some(due_on),
        });
    }
    Ok(Next::Issue(level))
}

/// Why an order is no unpaid invoice at all (or None when it is one).
pub fn not_an_invoice(
    conn: &mut DbConn,
    tenant: &Tenant,
    order: &Order,
) -> Result<Option<NoReminder>, Error> {
    let Some(number) = order.number else {
        return Ok(Some(NoReminder::NotNumbered));
    };
    if let Some(reason) = &order.void_reason {
        return Ok(Some(NoReminder::Void { number, reason: reason.clone() }));
    }
    if order.kind == OrderKind::Own {
        return Ok(Some(NoReminder::OwnRacket { number }));
    }
    if let Some(paid) = order.paid_at {
        return Ok(Some(NoReminder::Paid { number, on: local_date(paid, tenant.zone()) }));
    }
    if order.fully_credited() {
        let by =
            super::credits::of_order(conn, tenant, order.id)?.iter().map(|c| c.number.to_string()).collect();
        return Ok(Some(NoReminder::CreditedInFull { number, by }));
    }
    // Nothing left once credits and part payments are taken off.
    if order.still_due().is_none_or(|due| due.0 <= 0) {
        return Ok(Some(NoReminder::AsksNothing { number }));
    }
    if order.v1.is_some() {
        return Ok(Some(NoReminder::FromV1 { number }));
    }
    Ok(None)
}

/// The unpaid invoice `order` of the tenant with what is known around it, or why it is none.
pub fn invoice(
    conn: &mut DbConn,
    tenant: &Tenant,
    order: Order,
) -> Result<Result<Invoice, NoReminder>, Error> {
    if let Some(why) = not_an_invoice(conn, tenant, &order)? {
        return Ok(Err(why));
    }
    // A numbered order has the profile version it was issued under.
    let id = order.id;
    let unnumbered = || Error::Unnumbered { order: id, wanted: crate::error::Wanted::Receipt };
    let issuer = issuers::find(conn, tenant, order.issuer.ok_or_else(unnumbered)?)?;
    let issuers = HashMap::from([(issuer.id, issuer)]);
    gather(conn, tenant, vec![order], &issuers)?.pop().map(Ok).ok_or_else(unnumbered)
}

/// The tenant's unpaid invoices past their due date (by the profile each was issued under,
/// against `today`), with what is known around them: a run's candidates, oldest first.
pub fn overdue(conn: &mut DbConn, tenant: &Tenant, today: NaiveDate) -> Result<Vec<Invoice>, Error> {
    let issuers: HashMap<i64, Issuer> =
        issuers::of_tenant(conn, tenant)?.into_iter().map(|issuer| (issuer.id, issuer)).collect();
    let unpaid: Vec<Order> = tenant
        .orders()
        // Every predicate of the partial index of unpaid invoices said, so that it is used.
        .filter(orders_table::receipt_number.is_not_null())
        .filter(orders_table::paid_at.is_null())
        .filter(orders_table::voided_at.is_null())
        .filter(orders_table::kind.eq(OrderKind::Client.as_str()))
        .filter(orders_table::v1_kind.is_null())
        .order(orders_table::id)
        .select(orders::OrderRow::as_select())
        .load(conn)?
        .into_iter()
        .map(Order::from)
        .filter(|order: &Order| order.owed().is_some_and(|owed| owed.0 > 0))
        .filter(|order| {
            let issuer = order.issuer.and_then(|id| issuers.get(&id));
            issuer.and_then(|issuer| order.due_on(issuer)).is_some_and(|due| due < today)
        })
        .collect();
    gather(conn, tenant, unpaid, &issuers)
}

/// The invoices of `unpaid` with their reminders, whether the customer has them, and a bank
/// transaction waiting for them: a query of each for all of them.
fn gather(
    conn: &mut DbConn,
    tenant: &Tenant,
    unpaid: Vec<Order>,
    issuers: &HashMap<i64, Issuer>,
) -> Result<Vec<Invoice>, Error> {
    let ids: Vec<i64> = unpaid.iter().map(|o| o.id.0).collect();
    let mut reminders = of_orders(conn, tenant, &ids)?;
    let mut sent: HashSet<i64> = HashSet::new();
    let mut waiting: HashMap<i64, (NaiveDate, Price)> = HashMap::new();
    for chunk in ids.chunks(5_000) {
        let sent_now: Vec<Option<i64>> = tenant
            .events()
            .filter(receipt_events::order_id.eq_any(chunk))
            .filter(receipt_events::kind.eq(EventKind::Send.as_str()))
            .filter(receipt_events::field.eq(events::EMAIL))
            .select(receipt_events::order_id)
            .distinct()
            .load(conn)?;
        sent.extend(sent_now.into_iter().flatten());
        let open: Vec<(Option<i64>, NaiveDate, i64)> = tenant
            .listed_payments()
            .filter(listed_payments::order_id.eq_any(chunk))
            .filter(listed_payments::settled_at.is_null())
            .select((listed_payments::order_id, listed_payments::booked_on, listed_payments::amount_minor))
            .load(conn)?;
        for (order, booked_on, amount) in open {
            if let Some(order) = order {
                waiting.entry(order).or_insert((booked_on, Price(amount)));
            }
        }
    }
    Ok(unpaid
        .into_iter()
        .filter_map(|order| {
            let issuer = order.issuer.and_then(|id| issuers.get(&id))?.clone();
            let due_on = order.due_on(&issuer)?;
            let number = order.number?;
            let id = order.id.0;
            Some(Invoice {
                number,
                due_on,
                reminders: reminders.remove(&id).unwrap_or_default(),
                delivered: order.returned_at.is_some() || sent.contains(&id),
                waiting_payment: waiting.get(&id).copied(),
                order,
                issuer,
            })
        })
        .collect())
}

/// Issues reminder `level` of the tenant's order `order` in the caller's write transaction:
/// the order locked and judged again (the level must still be the next, the invoice still
/// unpaid), the row and its journal event written. Returns the reminder.
pub fn issue(conn: &mut DbConn, tenant: &Tenant, order: OrderId, level: Level) -> Result<Reminder, Error> {
    let order = orders::locked(conn, tenant, order)?;
    if let Some(why) = not_an_invoice(conn, tenant, &order)? {
        return Err(Error::NotRemindable { order: order.id, last: None, why });
    }
    let number = order.number.expect("an invoice is numbered");
    let issued = of_order(conn, tenant, order.id)?;
    let expected = issued.last().map_or(Some(Level::FIRST), |last| last.level.next());
    if expected != Some(level) {
        let why = NoReminder::IssuedMeanwhile { number, level };
        return Err(Error::NotRemindable { order: order.id, last: None, why });
    }
    let reminder = draft(tenant, &order, level, &settings(conn, tenant)?);
    let now = reminder.issued_at;
    diesel::insert_into(reminders::table)
        .values((
            tenant.owns(reminders::stringer_id),
            reminders::order_id.eq(order.id.0),
            reminders::level.eq(level.get()),
            reminders::issued_at.eq(reminder.issued_at),
            reminders::open_minor.eq(reminder.open.0),
            reminders::fee_minor.eq(reminder.fee.0),
            reminders::currency.eq(reminder.currency.as_str()),
            reminders::due_on.eq(reminder.due_on),
            reminders::created_at.eq(now),
        ))
        .execute(conn)?;
    let (level_text, asked) = (level.to_string(), reminder.journaled());
    events::record(conn, &Event::reminder(tenant.id(), order.id, number, &level_text, &asked))?;
    Ok(reminder)
}

/// Reminder `level` of `order` as it would be issued now (a dry run shows it; `issue`
/// writes it): the open amount, the fee of its level unless the law of the stringer's
/// country forbids one, the new due date.
pub fn draft(tenant: &Tenant, order: &Order, level: Level, settings: &Settings) -> Reminder {
    let fee = match fee_forbidden(settings.country.as_deref(), level) {
        Some(_) => Price(0),
        None => settings.fee(level).unwrap_or_default(),
    };
    let now = now_utc();
    Reminder {
        order: order.id,
        level,
        issued_at: now,
        open: order.still_due().unwrap_or_default(),
        fee,
        currency: order.currency.clone(),
        due_on: reminder_due(local_date(now, tenant.zone())),
        sent_at: None,
        printed_at: None,
    }
}

/// Notes the first delivery of a reminder: sent by e-mail, or written for the post.
pub fn delivered(
    conn: &mut DbConn,
    tenant: &Tenant,
    order: OrderId,
    level: Level,
    by_post: bool,
) -> Result<(), Error> {
    let now = now_utc();
    let row =
        tenant.reminders().filter(reminders::order_id.eq(order.0)).filter(reminders::level.eq(level.get()));
    if by_post {
        diesel::update(row.filter(reminders::printed_at.is_null()))
            .set(reminders::printed_at.eq(now))
            .execute(conn)?;
    } else {
        diesel::update(row.filter(reminders::sent_at.is_null()))
            .set(reminders::sent_at.eq(now))
            .execute(conn)?;
    }
    Ok(())
}

/// The hash of the event that issued reminder `level` of `order`: its check value.
pub fn issuing_hash(
    conn: &mut DbConn,
    tenant: &Tenant,
    order: OrderId,
    level: Level,
) -> Result<Option<String>, Error> {
    let hash: Option<Option<String>> = tenant
        .events()
        .filter(receipt_events::kind.eq(EventKind::Reminder.as_str()))
        .filter(receipt_events::order_id.eq(order.0))
        .filter(receipt_events::old_value.eq(level.to_string()))
        .select(receipt_events::hash)
        .first(conn)
        .optional()?;
    Ok(hash.flatten().map(|hash| crate::domain::journal::check_value(&hash)))
}

/// The last booking date of the bank files imported for the tenant, if any: payments booked
/// after it are not known yet.
pub fn bank_known_until(conn: &mut DbConn, tenant: &Tenant) -> Result<Option<NaiveDate>, Error> {
    use super::schema::payments;
    let applied: Option<NaiveDate> =
        tenant.payments().select(diesel::dsl::max(payments::booked_on)).first(conn)?;
    let listed: Option<NaiveDate> =
        tenant.listed_payments().select(diesel::dsl::max(listed_payments::booked_on)).first(conn)?;
    Ok(applied.max(listed))
}

/// How many reminders the tenant has stored, and how many `reminder` events the journal
/// has: the same, unless one was written outside the program.
pub fn issued_and_journaled(conn: &mut DbConn, tenant: &Tenant) -> QueryResult<(i64, i64)> {
    let issued: i64 = tenant.reminders().count().get_result(conn)?;
    let journaled: i64 = tenant
        .events()
        .filter(receipt_events::kind.eq(EventKind::Reminder.as_str()))
        .count()
        .get_result(conn)?;
    Ok((issued, journaled))
}
