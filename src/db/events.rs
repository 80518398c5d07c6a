//! The numbering journal: one row per number minted or voided and per counter change.
//! Rows are only ever appended (the database refuses updates and deletes).

use super::schema::receipt_events;
use super::DbConn;
use crate::domain::{now_utc, StringerId};
use diesel::prelude::*;

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
    pub order: Option<i64>,
    pub counter: Option<(i64, i64)>,
    pub reason: Option<&'a str>,
}

pub fn record(conn: &mut DbConn, event: &Event<'_>) -> QueryResult<()> {
    diesel::insert_into(receipt_events::table)
        .values((
            receipt_events::kind.eq(event.kind.as_str()),
            receipt_events::stringer_id.eq(event.stringer.0),
            receipt_events::year.eq(event.year),
            receipt_events::first_seq.eq(event.seqs.map(|s| s.0)),
            receipt_events::last_seq.eq(event.seqs.map(|s| s.1)),
            receipt_events::order_id.eq(event.order),
            receipt_events::counter_old.eq(event.counter.map(|c| c.0)),
            receipt_events::counter_new.eq(event.counter.map(|c| c.1)),
            receipt_events::reason.eq(event.reason),
            receipt_events::created_at.eq(now_utc()),
        ))
        .execute(conn)
        .map(drop)
}
