//! The numbering journal: one row per number minted or voided and per counter change.
//! Rows are only ever appended (the database refuses updates and deletes).

use super::schema::receipt_events;
use super::DbConn;
use crate::domain::{now_utc, NumberRange, OrderId, ReceiptNumber, StringerId};
use diesel::prelude::*;
use diesel::SqliteConnection;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    Mint,
    Void,
    Resync,
    V1Import,
}

impl EventKind {
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::Mint => "mint",
            EventKind::Void => "void",
            EventKind::Resync => "resync",
            EventKind::V1Import => "v1_import",
        }
    }
}

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
}

impl<'a> Event<'a> {
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
        }
    }

    /// `numbers` were voided: an order's own number, or numbers whose orders were lost
    /// (then `order` is the first placeholder and `counter` says if the counter moved).
    pub fn void(
        stringer: StringerId,
        numbers: NumberRange,
        order: OrderId,
        counter: Option<(i64, i64)>,
        reason: &'a str,
    ) -> Event<'a> {
        Event {
            kind: EventKind::Void,
            stringer,
            year: numbers.year(),
            seqs: Some((numbers.first.seq, numbers.last.seq)),
            order: Some(order),
            counter,
            reason: Some(reason),
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
        }
    }
}

/// The journal row of an event.
#[derive(Insertable)]
#[diesel(table_name = receipt_events)]
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
        }
    }
}

pub fn record(conn: &mut DbConn, event: &Event<'_>) -> QueryResult<()> {
    diesel::insert_into(receipt_events::table).values(event.row()).execute(conn).map(drop)
}

/// `record`, for the steps that run on SQLite only.
pub fn record_sqlite(conn: &mut SqliteConnection, event: &Event<'_>) -> QueryResult<()> {
    diesel::insert_into(receipt_events::table).values(event.row()).execute(conn).map(drop)
}

/// A journal row with its stringer's handle and zone.
#[derive(Debug, Clone, Queryable)]
pub struct Logged {
    pub id: i64,
    pub kind: String,
    pub year: i32,
    pub first_seq: Option<i64>,
    pub last_seq: Option<i64>,
    pub order_id: Option<i64>,
    pub counter_old: Option<i64>,
    pub counter_new: Option<i64>,
    pub reason: Option<String>,
    pub created_at: chrono::NaiveDateTime,
    pub stringer: String,
    pub zone: String,
}

/// Calls `visit` with each journal row, oldest first (of one stringer, of one year when
/// given), read page by page.
pub fn for_each(
    conn: &mut DbConn,
    stringer: Option<StringerId>,
    year: Option<i32>,
    mut visit: impl FnMut(Logged) -> Result<(), crate::Error>,
) -> Result<(), crate::Error> {
    use super::schema::stringers;
    const PAGE: i64 = 1000;
    let mut after = 0i64;
    loop {
        let mut query = receipt_events::table
            .inner_join(stringers::table)
            .filter(receipt_events::id.gt(after))
            .order(receipt_events::id)
            .select((
                receipt_events::id,
                receipt_events::kind,
                receipt_events::year,
                receipt_events::first_seq,
                receipt_events::last_seq,
                receipt_events::order_id,
                receipt_events::counter_old,
                receipt_events::counter_new,
                receipt_events::reason,
                receipt_events::created_at,
                stringers::handle,
                stringers::timezone,
            ))
            .limit(PAGE)
            .into_boxed();
        if let Some(stringer) = stringer {
            query = query.filter(receipt_events::stringer_id.eq(stringer.0));
        }
        if let Some(year) = year {
            query = query.filter(receipt_events::year.eq(year));
        }
        let page: Vec<Logged> = query.load(conn)?;
        let full = page.len() as i64 == PAGE;
        for logged in page {
            after = logged.id;
            visit(logged)?;
        }
        if !full {
            return Ok(());
        }
    }
}
