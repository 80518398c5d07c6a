//! The journal's chain (SPEC 23): per stringer, every event carries a gapless `seq`, the
//! previous event's hash and its own, SHA-256 (hex) over the previous hash, a newline and the
//! event's canonical form (docs/JOURNAL.md). The head is one row per stringer
//! (`chain_heads`), moved in the event's own transaction.
//!
//! On PostgreSQL a trigger chains each event (`receipt_events_chain`, in the migrations), so
//! a mint stays one statement; on SQLite `link` does it here, in the transaction that writes
//! the event. `verify` recomputes every chain with the same canonical form as both.

use super::schema::{chain_heads, receipt_events, stringers};
use super::tenant::{chain_head_of, events_of};
use super::{DbConn, Tenant};
use crate::domain::journal::{genesis, Chained};
use crate::domain::StringerId;
use crate::error::Error;
use chrono::NaiveDateTime;
use diesel::prelude::*;

/// A stringer's head: the last event's `seq`, hash and instant.
#[derive(Debug, Clone, Queryable)]
struct Head {
    seq: i64,
    hash: String,
    at: NaiveDateTime,
}

/// SQLite: links an event about to be written to its stringer's chain, the head moved onto
/// it in the caller's write transaction (which keeps every other writer out). Returns its
/// `seq`, previous hash, hash and instant (never before the previous event's).
pub fn link(conn: &mut DbConn, event: &Chained<'_>) -> QueryResult<(i64, String, String, NaiveDateTime)> {
    let head = head_of(conn, StringerId(event.stringer))?;
    let at = event.at.max(head.at);
    let linked = Chained { seq: head.seq + 1, at, ..event.clone() };
    let hash = linked.hash(&head.hash);
    diesel::update(chain_head_of(StringerId(event.stringer)))
        .set((chain_heads::seq.eq(linked.seq), chain_heads::hash.eq(&hash), chain_heads::at.eq(at)))
        .execute(conn)?;
    Ok((linked.seq, head.hash, hash, at))
}

/// The stringer's head; a stringer without one yet has its earlier events chained first
/// (written before the chain existed), in the order they were written.
fn head_of(conn: &mut DbConn, stringer: StringerId) -> QueryResult<Head> {
    let head = chain_head_of(stringer)
        .select((chain_heads::seq, chain_heads::hash, chain_heads::at))
        .first::<Head>(conn)
        .optional()?;
    match head {
        Some(head) => Ok(head),
        None => chain_unchained(conn, stringer),
    }
}

/// Chains the stringer's events that have no hash yet (SQLite, after the chain's migration)
/// and makes its head.
fn chain_unchained(conn: &mut DbConn, stringer: StringerId) -> QueryResult<Head> {
    let handle: String = stringers::table.find(stringer.0).select(stringers::handle).first(conn)?;
    let mut head = Head { seq: 0, hash: genesis(stringer, &handle), at: NaiveDateTime::MIN };
    let unchained: Vec<Row> = events_of(stringer)
        .filter(receipt_events::hash.is_null())
        .order(receipt_events::id)
        .select(Row::as_select())
        .load(conn)?;
    for row in &unchained {
        let at = row.created_at.max(head.at);
        let chained = Chained { seq: head.seq + 1, at, ..row.chained() };
        let hash = chained.hash(&head.hash);
        diesel::update(receipt_events::table.filter(receipt_events::id.eq(row.id)))
            .set((
                receipt_events::seq.eq(chained.seq),
                receipt_events::prev_hash.eq(&head.hash),
                receipt_events::hash.eq(&hash),
                receipt_events::created_at.eq(at),
            ))
            .execute(conn)?;
        head = Head { seq: chained.seq, hash, at };
    }
    let at = if head.at == NaiveDateTime::MIN { crate::domain::now_utc() } else { head.at };
    diesel::insert_into(chain_heads::table)
        .values((
            chain_heads::stringer_id.eq(stringer.0),
            chain_heads::seq.eq(head.seq),
            chain_heads::hash.eq(&head.hash),
            chain_heads::at.eq(at),
            chain_heads::live_from.eq(head.seq + 1),
        ))
        .execute(conn)?;
    Ok(Head { at, ..head })
}

/// SQLite: chains the events every stringer wrote before the chain existed (run right after
/// the migration that added it).
pub fn chain_all(conn: &mut DbConn) -> QueryResult<()> {
    let unchained: Vec<i64> = receipt_events::table
        .filter(receipt_events::hash.is_null())
        .select(receipt_events::stringer_id)
        .distinct()
        .load(conn)?;
    for stringer in unchained {
        let headless = chain_heads::table.find(stringer).count().get_result::<i64>(conn)? == 0;
        if headless {
            chain_unchained(conn, StringerId(stringer))?;
        }
    }
    Ok(())
}

/// An event as stored, with its chain columns.
#[derive(Debug, Clone, Queryable, Selectable)]
#[diesel(table_name = receipt_events)]
pub struct Row {
    pub id: i64,
    pub kind: String,
    pub stringer_id: i64,
    pub year: i32,
    pub first_seq: Option<i64>,
    pub last_seq: Option<i64>,
    pub order_id: Option<i64>,
    pub counter_old: Option<i64>,
    pub counter_new: Option<i64>,
    pub reason: Option<String>,
    pub created_at: NaiveDateTime,
    pub field: Option<String>,
    pub old_value: Option<String>,
    pub new_value: Option<String>,
    pub seq: Option<i64>,
    pub prev_hash: Option<String>,
    pub hash: Option<String>,
    pub document_hash: Option<String>,
}

/// The tenant's events written from `from` until before `until`, in chain order, read a
/// page at a time.
pub fn for_each_between(
    conn: &mut DbConn,
    tenant: &Tenant,
    (from, until): (NaiveDateTime, NaiveDateTime),
    mut each: impl FnMut(Row) -> Result<(), Error>,
) -> Result<(), Error> {
    const PAGE: i64 = 10_000;
    let mut after = 0i64;
    loop {
        let page: Vec<Row> = tenant
            .events()
            .filter(receipt_events::seq.gt(after))
            .filter(receipt_events::created_at.ge(from))
            .filter(receipt_events::created_at.lt(until))
            .order(receipt_events::seq)
            .select(Row::as_select())
            .limit(PAGE)
            .load(conn)?;
        let full = page.len() as i64 == PAGE;
        for row in page {
            after = row.seq.unwrap_or(after);
            each(row)?;
        }
        if !full {
            return Ok(());
        }
    }
}

impl Row {
    pub fn chained(&self) -> Chained<'_> {
        Chained {
            seq: self.seq.unwrap_or(0),
            stringer: self.stringer_id,
            kind: &self.kind,
            year: self.year,
            first_seq: self.first_seq,
            last_seq: self.last_seq,
            order: self.order_id,
            counter_old: self.counter_old,
            counter_new: self.counter_new,
            reason: self.reason.as_deref(),
            at: self.created_at,
            field: self.field.as_deref(),
            old: self.old_value.as_deref(),
            new: self.new_value.as_deref(),
            document: self.document_hash.as_deref(),
        }
    }
}

/// The hash of the event that issued a document (`kind` mint or credit, of `order`, or of
/// the credit note numbered `number`), when it was chained as it was written: documents
/// issued before the chain existed print no check value.
pub fn issuing_hash(
    conn: &mut DbConn,
    tenant: &Tenant,
    kind: crate::domain::EventKind,
    order: Option<i64>,
    number: Option<(i32, i64)>,
) -> QueryResult<Option<String>> {
    // One query: the head's `live_from` asked inside it (no head: nothing chained live).
    let live_from = chain_heads::table.find(tenant.id().0).select(chain_heads::live_from.nullable());
    let mut query = tenant
        .events()
        .filter(receipt_events::kind.eq(kind.as_str()))
        .filter(receipt_events::seq.ge(live_from.single_value()))
        .into_boxed();
    if let Some(order) = order {
        query = query.filter(receipt_events::order_id.eq(order));
    }
    if let Some((year, seq)) = number {
        query = query.filter(receipt_events::year.eq(year)).filter(receipt_events::first_seq.eq(seq));
    }
    query
        .order(receipt_events::seq.desc())
        .select(receipt_events::hash)
        .first::<Option<String>>(conn)
        .optional()
        .map(Option::flatten)
}

/// How many of the tenant's events carry no hash: written outside the program, or never
/// chained.
pub fn unchained_count(conn: &mut DbConn, tenant: &Tenant) -> QueryResult<i64> {
    tenant.events().filter(receipt_events::hash.is_null()).count().get_result(conn)
}

/// At most `limit` of the tenant's events from `seq` on, in `seq` order.
pub fn page(conn: &mut DbConn, tenant: &Tenant, seq: i64, limit: i64) -> QueryResult<Vec<Row>> {
    tenant
        .events()
        .filter(receipt_events::seq.ge(seq))
        .order(receipt_events::seq)
        .select(Row::as_select())
        .limit(limit)
        .load(conn)
}

/// The tenant's head: the last event's `seq` and hash (None before the first event).
pub fn head(conn: &mut DbConn, tenant: &Tenant) -> QueryResult<Option<(i64, String)>> {
    chain_heads::table
        .find(tenant.id().0)
        .select((chain_heads::seq, chain_heads::hash))
        .first(conn)
        .optional()
}

/// The hash of the tenant's event `seq` (None: no such event; Some(None): not chained).
pub fn hash_of(conn: &mut DbConn, tenant: &Tenant, seq: i64) -> QueryResult<Option<Option<String>>> {
    tenant.events().filter(receipt_events::seq.eq(seq)).select(receipt_events::hash).first(conn).optional()
}

/// The `seq` from which the tenant's events were chained as they were written (events
/// before were chained by the migration, and their documents print no check value).
pub fn live_from(conn: &mut DbConn, tenant: &Tenant) -> QueryResult<i64> {
    Ok(chain_head_of(tenant.id()).select(chain_heads::live_from).first(conn).optional()?.unwrap_or(i64::MAX))
}
