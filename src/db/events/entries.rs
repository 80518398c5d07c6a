//! The entries the program writes, one constructor each, and the names of their fields.

use super::{Change, Event};
use crate::domain::{CreditNumber, EventKind, NumberRange, OrderId, ReceiptNumber, Series, StringerId};

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
