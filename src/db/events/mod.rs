//! The numbering journal: one row per number minted or voided and per counter change.
//! Rows are only ever appended (the database refuses updates and deletes).

use super::schema::{event_values, receipt_events};
use super::{DbConn, Tenant};
use crate::domain::journal::personal;
use crate::domain::{now_utc, EventKind, OrderId, Series, StringerId};
use diesel::prelude::*;
use std::collections::HashMap;

mod entries;
pub use entries::*;

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
