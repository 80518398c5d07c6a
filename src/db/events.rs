//! The numbering journal: one row per number minted or voided and per counter change.
//! Rows are only ever appended (the database refuses updates and deletes).

use super::schema::{event_values, receipt_events};
use super::{DbConn, Tenant};
use crate::domain::journal::personal;
use crate::domain::{
    now_utc, CreditNumber, EventKind, NumberRange, OrderId, ReceiptNumber, Series, StringerId,
};
use diesel::prelude::*;
use std::collections::HashMap;

/// One journal entry; numbers are (year, first_seq..=last_seq) of the stringer.
#[derive(Debug, Clone)]
pub struct Event<'a> {
    pub kind: EventKind,
    pub stringer: StringerId,
    pub year: i32,
    pub seqs: Option<(i64, i64)>,
    pub order: Option<OrderId>,
    pub counter: Option<(i64, i64)>,
    pub reason: Option<&'a str>,
    pub change: Option<Change<'a>>,
}

/// A field of a numbered order that changed: from what to what.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Change<'a> {
    pub field: &'a str,
    pub old: Option<&'a str>,
    pub new: Option<&'a str>,
}

impl<'a> Event<'a> {
    /// Whether its values are personal (a recipient's address, internal notes, a customer's
    /// e-mail changed): kept beside it, digested in it.
    pub fn is_personal(&self) -> bool {
        let field = self.change.map(|c| c.field);
        match self.kind {
            EventKind::Send | EventKind::Notify => true,
            EventKind::Edit => matches!(field, Some("notes" | "email")),
            EventKind::Profile => {
                matches!(field, Some("email" | "phone" | "address" | "street" | "house_number"))
            }
            _ => false,
        }
    }

    /// `number` was issued to `order`; the counter moved from one below it.
    pub fn mint(stringer: StringerId, order: OrderId, number: ReceiptNumber) -> Event<'a> {
        Event {
            kind: EventKind::Mint,
            stringer,
            year: number.year,
            seqs: Some((number.seq, number.seq)),
            order: Some(order),
            counter: Some((number.seq - 1, number.seq)),
            reason: None,
            change: None,
        }
    }

    /// The document of `order` was e-mailed to `to`, as message `message_id`.
    pub fn send(
        stringer: StringerId,
        order: OrderId,
        number: ReceiptNumber,
        to: &'a str,
        message_id: &'a str,
    ) -> Event<'a> {
        Event {
            kind: EventKind::Send,
            stringer,
            year: number.year,
            seqs: Some((number.seq, number.seq)),
            order: Some(order),
            counter: None,
            reason: Some(message_id),
            change: Some(Change { field: EMAIL, old: None, new: Some(to) }),
        }
    }

    /// The customer of `order` was told by e-mail (to `to`, as message `message_id`) that the
    /// racket is ready.
    pub fn notify(
        stringer: StringerId,
        order: OrderId,
        number: ReceiptNumber,
        to: &'a str,
        message_id: &'a str,
    ) -> Event<'a> {
        Event { kind: EventKind::Notify, ..Event::send(stringer, order, number, to, message_id) }
    }

    /// The racket of `order` was picked up: `returned_at` as it changed.
    pub fn pickup(
        stringer: StringerId,
        order: OrderId,
        number: ReceiptNumber,
        change: Change<'a>,
    ) -> Event<'a> {
        Event { kind: EventKind::Pickup, ..Event::edit(stringer, order, number, change, None) }
    }

    /// A payment from the bank was applied to the numbered `order`.
    pub fn payment(
        stringer: StringerId,
        order: OrderId,
        number: ReceiptNumber,
        change: Change<'a>,
        reason: &'a str,
    ) -> Event<'a> {
        Event { kind: EventKind::Payment, ..Event::edit(stringer, order, number, change, Some(reason)) }
    }

    /// A bank transaction listed as needing attention was settled by hand.
    pub fn settle(
        stringer: StringerId,
        order: Option<OrderId>,
        number: ReceiptNumber,
        bank_reference: &'a str,
        reason: &'a str,
    ) -> Event<'a> {
        Event {
            kind: EventKind::Settle,
            stringer,
            year: number.year,
            seqs: Some((number.seq, number.seq)),
            order,
            counter: None,
            reason: Some(reason),
            change: Some(Change { field: "bank_reference", old: None, new: Some(bank_reference) }),
        }
    }

    /// A change of the customer register (`CustomerMerge` of `customer` into another, or
    /// `CustomerForget`), in the stringer's `year` when it happened.
    pub fn customer(
        stringer: StringerId,
        year: i32,
        kind: EventKind,
        customer: &'a str,
        reason: &'a str,
    ) -> Event<'a> {
        Event {
            kind,
            stringer,
            year,
            seqs: None,
            order: None,
            counter: None,
            reason: Some(reason),
            change: Some(Change { field: "customer", old: Some(customer), new: None }),
        }
    }

    /// A mint with something to say: backdated (`--backdate`), or let through without the
    /// customer's address (`--without-address`).
    pub fn noting(self, reason: &'a str) -> Event<'a> {
        Event { reason: Some(reason), ..self }
    }

    /// A field of the stringer's profile changed, in the stringer's `year` when it did.
    pub fn profile(stringer: StringerId, year: i32, change: Change<'a>) -> Event<'a> {
        Event {
            kind: EventKind::Profile,
            stringer,
            year,
            seqs: None,
            order: None,
            counter: None,
            reason: None,
            change: Some(change),
        }
    }

    /// A field of the numbered `order` changed.
    pub fn edit(
        stringer: StringerId,
        order: OrderId,
        number: ReceiptNumber,
        change: Change<'a>,
        reason: Option<&'a str>,
    ) -> Event<'a> {
        Event {
            kind: EventKind::Edit,
            stringer,
            year: number.year,
            seqs: Some((number.seq, number.seq)),
            order: Some(order),
            counter: None,
            reason,
            change: Some(change),
        }
    }

    /// `numbers` were voided: an order's own number, or numbers whose orders were lost
    /// (then `order` is the first placeholder and `counter` says if the counter moved).
    pub fn void(
        stringer: StringerId,
        numbers: NumberRange,
        order: Option<OrderId>,
        counter: Option<(i64, i64)>,
        reason: &'a str,
    ) -> Event<'a> {
        Event {
            kind: EventKind::Void,
            stringer,
            year: numbers.year(),
            seqs: Some((numbers.first.seq, numbers.last.seq)),
            order,
            counter,
            reason: Some(reason),
            change: None,
        }
    }

    /// An entry of a void or a resync about credit note numbers (`series`), not receipts'.
    pub fn in_series(self, series: Series) -> Event<'a> {
        match series {
            Series::Receipts => self,
            Series::Credits => {
                Event { change: Some(Change { field: SERIES, old: None, new: Some("credits") }), ..self }
            }
        }
    }

    /// Credit note `number` took `amount` back of `order`, whose receipt is `original`.
    pub fn credit(
        stringer: StringerId,
        order: OrderId,
        number: CreditNumber,
        original: &'a str,
        amount: &'a str,
        reason: &'a str,
    ) -> Event<'a> {
        let CreditNumber(ReceiptNumber { year, seq }) = number;
        Event {
            kind: EventKind::Credit,
            stringer,
            year,
            seqs: Some((seq, seq)),
            order: Some(order),
            counter: Some((seq - 1, seq)),
            reason: Some(reason),
            change: Some(Change { field: CREDITS, old: Some(original), new: Some(amount) }),
        }
    }

    /// Credit note `number` of `order` was e-mailed to `to`, as message `message_id`.
    pub fn send_credit(
        stringer: StringerId,
        order: OrderId,
        number: CreditNumber,
        to: &'a str,
        message_id: &'a str,
    ) -> Event<'a> {
        Event {
            change: Some(Change { field: CREDIT_EMAIL, old: None, new: Some(to) }),
            ..Event::send(stringer, order, number.0, to, message_id)
        }
    }

    /// Reminder `level` of the invoice `number` of `order` was issued, asking `asked`
    /// (`Reminder::journaled`).
    pub fn reminder(
        stringer: StringerId,
        order: OrderId,
        number: ReceiptNumber,
        level: &'a str,
        asked: &'a str,
    ) -> Event<'a> {
        Event {
            kind: EventKind::Reminder,
            stringer,
            year: number.year,
            seqs: Some((number.seq, number.seq)),
            order: Some(order),
            counter: None,
            reason: None,
            change: Some(Change { field: REMINDER, old: Some(level), new: Some(asked) }),
        }
    }

    /// The e-invoice of `order`'s document `number` (a credit note's when `credit`) was
    /// written in `form` (`facturx`, `fatturapa`) as the file `name`, whose SHA-256 is `sha256`.
    pub fn einvoice(
        stringer: StringerId,
        order: OrderId,
        number: ReceiptNumber,
        field: &'a str,
        name: &'a str,
        sha256: &'a str,
    ) -> Event<'a> {
        Event {
            kind: EventKind::Einvoice,
            stringer,
            year: number.year,
            seqs: Some((number.seq, number.seq)),
            order: Some(order),
            counter: None,
            reason: Some(name),
            change: Some(Change { field, old: None, new: Some(sha256) }),
        }
    }

    /// Reminder `level` of `order` (invoice `number`) was e-mailed to `to`, as `message_id`.
    pub fn send_reminder(
        stringer: StringerId,
        order: OrderId,
        number: ReceiptNumber,
        level: crate::domain::Level,
        to: &'a str,
        message_id: &'a str,
    ) -> Event<'a> {
        let field = REMINDER_EMAIL[(level.get() - 1) as usize];
        Event {
            change: Some(Change { field, old: None, new: Some(to) }),
            ..Event::send(stringer, order, number, to, message_id)
        }
    }

    /// `resync-counters` moved a counter from `old` to `new`.
    pub fn resync(stringer: StringerId, year: i32, old: i64, new: i64, reason: &'a str) -> Event<'a> {
        Event {
            kind: EventKind::Resync,
            stringer,
            year,
            seqs: None,
            order: None,
            counter: Some((old, new)),
            reason: Some(reason),
            change: None,
        }
    }

    /// `resync-counters` declared a restore: the chain's head it found (`seq hash`) is on
    /// record, so `audit --verify` can tell what a restore lost from tampering.
    pub fn restore(stringer: StringerId, year: i32, head: &'a str, reason: &'a str) -> Event<'a> {
        Event {
            kind: EventKind::Restore,
            stringer,
            year,
            seqs: None,
            order: None,
            counter: None,
            reason: Some(reason),
            change: Some(Change { field: "chain_head", old: Some(head), new: None }),
        }
    }

    /// Closure `seq` of the stringer's days, with its `digest`, in the `year` of its day.
    pub fn closure(stringer: StringerId, year: i32, seq: &'a str, digest: &'a str) -> Event<'a> {
        Event {
            kind: EventKind::Closure,
            stringer,
            year,
            seqs: None,
            order: None,
            counter: None,
            reason: None,
            change: Some(Change { field: CLOSURE, old: Some(seq), new: Some(digest) }),
        }
    }

    /// The stringer's signing key `new` recorded; replacing `old`, it carries the old key's
    /// signature of the new (`rotation`).
    pub fn key(
        stringer: StringerId,
        year: i32,
        old: Option<&'a str>,
        new: &'a str,
        rotation: Option<&'a str>,
    ) -> Event<'a> {
        Event {
            kind: EventKind::Key,
            stringer,
            year,
            seqs: None,
            order: None,
            counter: None,
            reason: rotation,
            change: Some(Change { field: SIGNING_KEY, old, new: Some(new) }),
        }
    }

    /// `count` documents issued before their events carried content hashes, sealed by
    /// `digest` (`chain::seal_digest`).
    pub fn seal(stringer: StringerId, year: i32, count: &'a str, digest: &'a str) -> Event<'a> {
        Event {
            kind: EventKind::Seal,
            stringer,
            year,
            seqs: None,
            order: None,
            counter: None,
            reason: Some(SEALED),
            change: Some(Change { field: "documents", old: Some(count), new: Some(digest) }),
        }
    }

    /// `resync-counters --last-closure`: the closures above `here` up to `outside` were made
    /// and lost in the restore; the next closure is numbered above `outside`.
    pub fn lost_closures(stringer: StringerId, year: i32, here: &'a str, outside: &'a str) -> Event<'a> {
        Event {
            kind: EventKind::Restore,
            stringer,
            year,
            seqs: None,
            order: None,
            counter: None,
            reason: Some("resync-counters --last-closure"),
            change: Some(Change { field: LAST_CLOSURE, old: Some(here), new: Some(outside) }),
        }
    }

    /// A V1 import numbered `first..=last` of a year and set its counter.
    pub fn v1_import(
        stringer: StringerId,
        year: i32,
        seqs: (i64, i64),
        counter: (i64, i64),
        reason: &'a str,
    ) -> Event<'a> {
        Event {
            kind: EventKind::V1Import,
            stringer,
            year,
            seqs: Some(seqs),
            order: None,
            counter: Some(counter),
            reason: Some(reason),
            change: None,
        }
    }
}

/// The field of a `send` entry of a receipt's document.
pub const EMAIL: &str = "email";
/// The field of a `send` entry of a reminder, by its level.
pub const REMINDER_EMAIL: [&str; 3] = ["reminder_1_email", "reminder_2_email", "reminder_3_email"];
/// The field of a `reminder` entry: its level (old) and what it asks (new).
pub const REMINDER: &str = "reminder";

/// The field of a `credit` entry: the original's number (old) and the amount (new).
pub const CREDITS: &str = "credits";
/// The field of a `send` entry of a credit note (a receipt's says `email`).
pub const CREDIT_EMAIL: &str = "credit_email";
/// The field of a `void` or `resync` entry of credit note numbers (new: `credits`).
pub const SERIES: &str = "series";
/// The field of an `einvoice` entry about a credit note: `credit_` before the form.
pub const CREDIT_EINVOICE: &str = "credit_";

/// The field of a `restore` entry that declares closures lost: the last one kept (old), the
/// last one known outside (new).
pub const LAST_CLOSURE: &str = "last_closure";
/// Why a `seal` entry was written (the same words as PostgreSQL's migration).
pub const SEALED: &str = "the documents issued before their events carried content hashes";
/// The field of a `closure` entry: its number (old) and digest (new).
pub const CLOSURE: &str = "closure";
/// The field of a `key` entry: the key replaced (old) and the key recorded (new).
pub const SIGNING_KEY: &str = "signing_key";

/// The journal row of an event.
#[derive(Insertable)]
#[diesel(table_name = receipt_events)]
#[diesel(treat_none_as_default_value = false)]
struct NewEvent<'a> {
    kind: &'static str,
    stringer_id: i64,
    year: i32,
    first_seq: Option<i64>,
    last_seq: Option<i64>,
    order_id: Option<i64>,
    counter_old: Option<i64>,
    counter_new: Option<i64>,
    reason: Option<&'a str>,
    created_at: chrono::NaiveDateTime,
    field: Option<&'a str>,
    old_value: Option<&'a str>,
    new_value: Option<&'a str>,
    /// Its place in the stringer's chain: set here on SQLite, by a trigger on PostgreSQL.
    seq: Option<i64>,
    prev_hash: Option<String>,
    hash: Option<String>,
    /// A document's content hash: set here on SQLite, by the trigger on PostgreSQL.
    document_hash: Option<String>,
}

impl NewEvent<'_> {
    /// SQLite: linked to its stringer's chain (`chain::link`); PostgreSQL's trigger does it
    /// there.
    fn linked(mut self, conn: &mut DbConn) -> QueryResult<Self> {
        if let DbConn::Sqlite(_) = conn {
            self.document_hash = super::document_hash::of_event(
                conn,
                self.kind,
                self.stringer_id,
                self.order_id,
                self.year,
                self.first_seq,
            )?;
            let chained = crate::domain::journal::Chained {
                seq: 0,
                stringer: self.stringer_id,
                kind: self.kind,
                year: self.year,
                first_seq: self.first_seq,
                last_seq: self.last_seq,
                order: self.order_id,
                counter_old: self.counter_old,
                counter_new: self.counter_new,
                reason: self.reason,
                at: self.created_at,
                field: self.field,
                old: self.old_value,
                new: self.new_value,
                document: self.document_hash.as_deref(),
            };
            let (seq, prev, hash, at) = super::chain::link(conn, &chained)?;
            (self.seq, self.prev_hash, self.hash, self.created_at) = (Some(seq), Some(prev), Some(hash), at);
        }
        Ok(self)
    }
}

impl Event<'_> {
    fn row(&self) -> NewEvent<'_> {
        NewEvent {
            kind: self.kind.as_str(),
            stringer_id: self.stringer.0,
            year: self.year,
            first_seq: self.seqs.map(|s| s.0),
            last_seq: self.seqs.map(|s| s.1),
            order_id: self.order.map(|o| o.0),
            counter_old: self.counter.map(|c| c.0),
            counter_new: self.counter.map(|c| c.1),
            reason: self.reason,
            created_at: now_utc(),
            field: self.change.map(|c| c.field),
            old_value: self.change.and_then(|c| c.old),
            new_value: self.change.and_then(|c| c.new),
            seq: None,
            prev_hash: None,
            hash: None,
            document_hash: None,
        }
    }
}

pub fn record(conn: &mut DbConn, event: &Event<'_>) -> QueryResult<()> {
    let Some(change) = event.change.filter(|_| event.is_personal()) else {
        let row = event.row().linked(conn)?;
        return diesel::insert_into(receipt_events::table).values(row).execute(conn).map(drop);
    };
    // The values beside the event, the event with their salted digests.
    let salt = personal::salt();
    let (old, new) =
        (change.old.map(|v| personal::digest(&salt, v)), change.new.map(|v| personal::digest(&salt, v)));
    let mut row = event.row();
    (row.old_value, row.new_value) = (old.as_deref(), new.as_deref());
    let row = row.linked(conn)?;
    let id: i64 = diesel::insert_into(receipt_events::table)
        .values(row)
        .returning(receipt_events::id)
        .get_result(conn)?;
    diesel::insert_into(event_values::table)
        .values((
            event_values::event_id.eq(id),
            event_values::salt.eq(&salt),
            event_values::old_value.eq(change.old),
            event_values::new_value.eq(change.new),
        ))
        .execute(conn)
        .map(drop)
}

/// Many entries in one statement (on SQLite, each linked to the chain in turn); entries
/// with personal values one by one.
pub fn record_all(conn: &mut DbConn, events: &[Event<'_>]) -> QueryResult<()> {
    if events.iter().any(Event::is_personal) {
        return events.iter().try_for_each(|event| record(conn, event));
    }
    let rows: Vec<NewEvent> =
        events.iter().map(|event| event.row().linked(conn)).collect::<QueryResult<_>>()?;
    super::insert_all!(conn, receipt_events::table, rows.as_slice())
}

impl Logged<'_> {
    /// Which series the entry's numbers and counter are of.
    pub fn series(&self) -> Series {
        let credits = match self.kind {
            EventKind::Credit => true,
            EventKind::Send => self.field.as_deref() == Some(CREDIT_EMAIL),
            EventKind::Einvoice => self.field.as_deref().is_some_and(|f| f.starts_with(CREDIT_EINVOICE)),
            EventKind::Void | EventKind::Resync => self.field.as_deref() == Some(SERIES),
            _ => false,
        };
        if credits {
            Series::Credits
        } else {
            Series::Receipts
        }
    }
}

/// A journal row with its stringer.
#[derive(Debug, Clone)]
pub struct Logged<'a> {
    pub id: i64,
    pub kind: EventKind,
    pub year: i32,
    pub first_seq: Option<i64>,
    pub last_seq: Option<i64>,
    pub order: Option<OrderId>,
    pub counter_old: Option<i64>,
    pub counter_new: Option<i64>,
    pub reason: Option<String>,
    pub created_at: chrono::NaiveDateTime,
    /// For a change of a numbered order: the field, its old and its new value.
    pub field: Option<String>,
    pub old_value: Option<String>,
    pub new_value: Option<String>,
    pub stringer: &'a Tenant,
}

#[derive(Queryable, Selectable)]
#[diesel(table_name = receipt_events)]
struct LoggedRow {
    id: i64,
    #[diesel(deserialize_as = String)]
    kind: EventKind,
    stringer_id: i64,
    year: i32,
    first_seq: Option<i64>,
    last_seq: Option<i64>,
    order_id: Option<i64>,
    counter_old: Option<i64>,
    counter_new: Option<i64>,
    reason: Option<String>,
    created_at: chrono::NaiveDateTime,
    field: Option<String>,
    old_value: Option<String>,
    new_value: Option<String>,
}

/// The values kept beside an event: salt, old, new (the salt, never NULL, tells a row kept
/// from none).
pub type Kept = (String, Option<String>, Option<String>);

/// Calls `visit` with each journal row, oldest first (of one stringer, of one year when
/// given), read page by page.
pub fn for_each(
    conn: &mut DbConn,
    tenant: Option<&Tenant>,
    year: Option<i32>,
    mut visit: impl FnMut(Logged<'_>) -> Result<(), crate::Error>,
) -> Result<(), crate::Error> {
    const PAGE: i64 = 1000;
    let tenants: HashMap<StringerId, Tenant> = match tenant {
        Some(tenant) => HashMap::from([(tenant.id(), tenant.clone())]),
        None => Tenant::all(conn)?.into_iter().map(|t| (t.id(), t)).collect(),
    };
    let mut after = 0i64;
    loop {
        let journal = match tenant {
            Some(tenant) => tenant.events().into_boxed(),
            None => receipt_events::table.into_boxed(),
        };
        let mut query = journal
            .left_join(event_values::table)
            .filter(receipt_events::id.gt(after))
            .order(receipt_events::id)
            .select((
                LoggedRow::as_select(),
                (event_values::salt, event_values::old_value, event_values::new_value).nullable(),
            ))
            .limit(PAGE);
        if let Some(year) = year {
            query = query.filter(receipt_events::year.eq(year));
        }
        let page: Vec<(LoggedRow, Option<Kept>)> = query.load(conn)?;
        let full = page.len() as i64 == PAGE;
        for (row, kept) in page {
            after = row.id;
            // Journal rows reference their stringer (a foreign key): it is among all of them.
            let Some(stringer) = tenants.get(&StringerId(row.stringer_id)) else { continue };
            visit(Logged {
                id: row.id,
                kind: row.kind,
                year: row.year,
                first_seq: row.first_seq,
                last_seq: row.last_seq,
                order: row.order_id.map(OrderId),
                counter_old: row.counter_old,
                counter_new: row.counter_new,
                reason: row.reason,
                created_at: row.created_at,
                field: row.field,
                old_value: personal::shown(row.old_value, kept.as_ref().map(|k| k.1.clone())),
                new_value: personal::shown(row.new_value, kept.map(|k| k.2)),
                stringer,
            })?;
        }
        if !full {
            return Ok(());
        }
    }
}

/// The personal values kept beside these events, per event.
pub fn kept_values(conn: &mut DbConn, events: &[i64]) -> QueryResult<HashMap<i64, Kept>> {
    Ok(event_values::table
        .filter(event_values::event_id.eq_any(events))
        .select((
            event_values::event_id,
            event_values::salt,
            event_values::old_value,
            event_values::new_value,
        ))
        .load::<(i64, String, Option<String>, Option<String>)>(conn)?
        .into_iter()
        .map(|(id, salt, old, new)| (id, (salt, old, new)))
        .collect())
}
