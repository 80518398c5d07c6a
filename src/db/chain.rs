//! The journal's chain (SPEC 23): per stringer, every event carries a gapless `seq`, the
//! previous event's hash and its own, SHA-256 (hex) over the previous hash, a newline and the
//! event's canonical form (docs/JOURNAL.md). The head is one row per stringer
//! (`chain_heads`), moved in the event's own transaction.
//!
//! On PostgreSQL a trigger chains each event (`receipt_events_chain`, in the migrations), so
//! a mint stays one statement; on SQLite `link` does it here, in the transaction that writes
//! the event. `verify` recomputes every chain with the same canonical form as both.

use super::document_hash::{self, Document};
use super::schema::{chain_heads, event_values, receipt_events, stringers};
use super::{DbConn, Tenant};
use crate::domain::{EventKind, StringerId};
use crate::error::Error;
use chrono::NaiveDateTime;
use diesel::prelude::*;
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::collections::HashMap;

/// SHA-256 of `text`, as 64 lowercase hex digits.
pub fn sha256_hex(text: &str) -> String {
    hex(&Sha256::digest(text.as_bytes()))
}

/// Bytes as lowercase hex digits.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Where a stringer's chain begins: a hash of its id and handle.
pub fn genesis(stringer: StringerId, handle: &str) -> String {
    sha256_hex(&format!("receipts-chain-v1\n{}\n{handle}", stringer.0))
}

/// The fields of an event its hash covers, in the canonical form's order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chained<'a> {
    pub seq: i64,
    pub stringer: i64,
    pub kind: &'a str,
    pub year: i32,
    pub first_seq: Option<i64>,
    pub last_seq: Option<i64>,
    pub order: Option<i64>,
    pub counter_old: Option<i64>,
    pub counter_new: Option<i64>,
    pub reason: Option<&'a str>,
    pub at: NaiveDateTime,
    pub field: Option<&'a str>,
    pub old: Option<&'a str>,
    pub new: Option<&'a str>,
    /// The SHA-256 of a document's frozen content, on the event that issued it.
    pub document: Option<&'a str>,
}

impl Chained<'_> {
    /// The canonical form: a header line, then `name=` and `-` for nothing or the value's
    /// length in bytes, a colon and the value, one line each; instants in microseconds since
    /// 1970 (UTC).
    pub fn canonical(&self) -> String {
        let mut text = String::from("receipts-event-v1\n");
        let number = |n: Option<i64>| n.map(|n| n.to_string());
        let mut field =
            |name: &str, value: Option<String>| canonical_field(&mut text, name, value.as_deref());
        field("seq", Some(self.seq.to_string()));
        field("stringer", Some(self.stringer.to_string()));
        field("kind", Some(self.kind.to_string()));
        field("year", Some(self.year.to_string()));
        field("first_seq", number(self.first_seq));
        field("last_seq", number(self.last_seq));
        field("order", number(self.order));
        field("counter_old", number(self.counter_old));
        field("counter_new", number(self.counter_new));
        field("reason", self.reason.map(str::to_string));
        field("at", Some(micros(self.at)));
        field("field", self.field.map(str::to_string));
        field("old", self.old.map(str::to_string));
        field("new", self.new.map(str::to_string));
        // Only an event of a document has this line: the others hash as they always did.
        if let Some(document) = self.document {
            field("document", Some(document.to_string()));
        }
        text
    }

    /// Its hash after `prev`.
    pub fn hash(&self, prev: &str) -> String {
        sha256_hex(&format!("{prev}\n{}", self.canonical()))
    }
}

/// One line of a canonical form: `name=`, then `-` for nothing or the value's length in
/// bytes, a colon and the value.
pub fn canonical_field(text: &mut String, name: &str, value: Option<&str>) {
    text.push_str(name);
    text.push('=');
    match value {
        None => text.push('-'),
        Some(value) => {
            text.push_str(&value.len().to_string());
            text.push(':');
            text.push_str(value);
        }
    }
    text.push('\n');
}

/// An instant as the canonical forms write it: microseconds since 1970 (UTC).
pub fn micros(at: NaiveDateTime) -> String {
    at.and_utc().timestamp_micros().to_string()
}

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
    diesel::update(chain_heads::table.filter(chain_heads::stringer_id.eq(event.stringer)))
        .set((chain_heads::seq.eq(linked.seq), chain_heads::hash.eq(&hash), chain_heads::at.eq(at)))
        .execute(conn)?;
    Ok((linked.seq, head.hash, hash, at))
}

/// The stringer's head; a stringer without one yet has its earlier events chained first
/// (written before the chain existed), in the order they were written.
fn head_of(conn: &mut DbConn, stringer: StringerId) -> QueryResult<Head> {
    let head = chain_heads::table
        .filter(chain_heads::stringer_id.eq(stringer.0))
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
    let unchained: Vec<Row> = receipt_events::table
        .filter(receipt_events::stringer_id.eq(stringer.0))
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

/// SQLite: seals, per stringer, the documents whose issuing events carry no content hash
/// (issued before they did) with one `seal` event, as PostgreSQL's migration does; once.
pub fn seal_documents(conn: &mut DbConn) -> QueryResult<()> {
    let unsealed: Vec<i64> = receipt_events::table
        .filter(receipt_events::kind.eq_any(["mint", "credit"]))
        .filter(receipt_events::order_id.is_not_null())
        .filter(receipt_events::document_hash.is_null())
        .select(receipt_events::stringer_id)
        .distinct()
        .load(conn)?;
    for stringer in unsealed {
        let sealed = receipt_events::table
            .filter(receipt_events::stringer_id.eq(stringer))
            .filter(receipt_events::kind.eq(EventKind::Seal.as_str()))
            .count()
            .get_result::<i64>(conn)?;
        if sealed == 0 {
            let (count, digest) = seal_digest(conn, stringer, i64::MAX)?;
            let year = chrono::Datelike::year(&crate::domain::now_utc());
            let count = count.to_string();
            super::events::record(
                conn,
                &super::events::Event::seal(StringerId(stringer), year, &count, &digest),
            )?;
        }
    }
    Ok(())
}

/// An event that issued a document, as a seal reads it.
#[derive(Queryable)]
struct Issued {
    seq: Option<i64>,
    kind: String,
    order: Option<i64>,
    year: i32,
    first_seq: Option<i64>,
}

/// The seal of the stringer's documents whose issuing events before `before` (seq) carry
/// no content hash: how many, and SHA-256 over a line `SEQ HASH` for each, in chain order
/// (`-` for a document not found). Read and hashed a page at a time.
pub fn seal_digest(conn: &mut DbConn, stringer: i64, before: i64) -> QueryResult<(i64, String)> {
    const PAGE: i64 = 10_000;
    let mut digest = Sha256::new();
    let (mut count, mut after) = (0i64, 0i64);
    loop {
        let issued: Vec<Issued> = receipt_events::table
            .filter(receipt_events::stringer_id.eq(stringer))
            .filter(receipt_events::kind.eq_any(["mint", "credit"]))
            .filter(receipt_events::order_id.is_not_null())
            .filter(receipt_events::document_hash.is_null())
            .filter(receipt_events::seq.gt(after))
            .filter(receipt_events::seq.lt(before))
            .order(receipt_events::seq)
            .select((
                receipt_events::seq,
                receipt_events::kind,
                receipt_events::order_id,
                receipt_events::year,
                receipt_events::first_seq,
            ))
            .limit(PAGE)
            .load(conn)?;
        let documents: Vec<Option<Document>> =
            issued.iter().map(|i| Document::of(&i.kind, i.order, i.year, i.first_seq)).collect();
        let wanted: Vec<Document> = documents.iter().flatten().copied().collect();
        let hashes = document_hash::hashes(conn, stringer, &wanted)?;
        for (issued, document) in issued.iter().zip(&documents) {
            let hash = document.and_then(|d| hashes.get(&d)).map_or("-", String::as_str);
            digest.update(format!("{} {hash}\n", issued.seq.unwrap_or(0)).as_bytes());
        }
        count += issued.len() as i64;
        match issued.last() {
            Some(Issued { seq: Some(seq), .. }) if issued.len() as i64 == PAGE => after = *seq,
            _ => break,
        }
    }
    Ok((count, hex(&digest.finalize())))
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
    fn chained(&self) -> Chained<'_> {
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

/// The check value a document prints: the first 12 hex digits of its event's hash, in
/// capitals, grouped by four (`7F3A-91C2-0B5E`).
pub fn check_value(hash: &str) -> String {
    let digits = hash.get(..12).unwrap_or(hash).to_uppercase();
    let groups: Vec<&str> = [0..4, 4..8, 8..12].into_iter().filter_map(|range| digits.get(range)).collect();
    groups.join("-")
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

/// The first place a stringer's chain does not hold.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Break {
    pub stringer: String,
    /// The `seq` where it breaks (the head's, for a head that does not match).
    pub seq: i64,
    pub what: String,
}

impl std::fmt::Display for Break {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "stringer {}, event {}: {}", self.stringer, self.seq, self.what)
    }
}

/// What verifying one stringer's chain found.
#[derive(Debug, Clone, Serialize)]
pub struct Verified {
    pub stringer: String,
    pub events: i64,
    /// The head's hash, when the chain holds.
    pub head: Option<String>,
    pub broken: Option<Break>,
}

/// Recomputes the tenant's chain from its genesis, event by event in `seq` order, read page
/// by page: every `seq` 1..N present once, each previous hash the one before's, each hash
/// its event's, instants never going back, and the head on the last event.
pub fn verify(conn: &mut DbConn, tenant: &Tenant) -> Result<Verified, Error> {
    const PAGE: i64 = 10_000;
    let name = tenant.handle().to_string();
    let broken = |seq: i64, what: String| Break { stringer: name.clone(), seq, what };
    let mut prev = genesis(tenant.id(), tenant.handle());
    let mut expected = 1i64;
    let mut last_at = NaiveDateTime::MIN;
    let unchained: i64 = tenant.events().filter(receipt_events::hash.is_null()).count().get_result(conn)?;
    let finish = |events: i64, head: Option<String>, broken: Option<Break>| Verified {
        stringer: tenant.handle().to_string(),
        events,
        head,
        broken,
    };
    if unchained > 0 {
        let what = format!("{unchained} events carry no hash: written outside the program, or never chained");
        return Ok(finish(0, None, Some(broken(0, what))));
    }
    loop {
        let page: Vec<Row> = tenant
            .events()
            .filter(receipt_events::seq.ge(expected))
            .order(receipt_events::seq)
            .select(Row::as_select())
            .limit(PAGE)
            .load(conn)?;
        let full = page.len() as i64 == PAGE;
        let documents: Vec<Document> = page
            .iter()
            .filter(|row| row.document_hash.is_some())
            .filter_map(|row| Document::of(&row.kind, row.order_id, row.year, row.first_seq))
            .collect();
        let contents = document_hash::hashes(conn, tenant.id().0, &documents)?;
        let reminded: Vec<i64> = page
            .iter()
            .filter(|row| row.kind == EventKind::Reminder.as_str())
            .filter_map(|row| row.order_id)
            .collect();
        let reminders = super::reminders::of_orders(conn, tenant, &reminded)?;
        let ids: Vec<i64> = page.iter().map(|row| row.id).collect();
        let kept: HashMap<i64, (String, Option<String>, Option<String>)> = event_values::table
            .filter(event_values::event_id.eq_any(&ids))
            .select((
                event_values::event_id,
                event_values::salt,
                event_values::old_value,
                event_values::new_value,
            ))
            .load::<(i64, String, Option<String>, Option<String>)>(conn)?
            .into_iter()
            .map(|(id, salt, old, new)| (id, (salt, old, new)))
            .collect();
        for row in &page {
            let seq = row.seq.unwrap_or(0);
            if seq != expected {
                let what = if seq > expected {
                    format!("events {expected}..{} are missing (deleted)", seq - 1)
                } else {
                    format!("event {seq} appears twice")
                };
                return Ok(finish(expected - 1, None, Some(broken(expected, what))));
            }
            if row.prev_hash.as_deref() != Some(prev.as_str()) {
                let what = "its previous hash is not the hash of the event before it (reordered or inserted)";
                return Ok(finish(seq - 1, None, Some(broken(seq, what.into()))));
            }
            if row.created_at < last_at {
                let what = "it is dated before the event before it".to_string();
                return Ok(finish(seq - 1, None, Some(broken(seq, what))));
            }
            let hash = row.chained().hash(&prev);
            if row.hash.as_deref() != Some(hash.as_str()) {
                let what = format!("its content does not match its hash (a {} event, changed)", row.kind);
                return Ok(finish(seq - 1, None, Some(broken(seq, what))));
            }
            if row.kind == EventKind::Seal.as_str() {
                let (count, digest) = seal_digest(conn, tenant.id().0, seq)?;
                if row.old_value.as_deref() != Some(count.to_string().as_str())
                    || row.new_value.as_ref() != Some(&digest)
                {
                    let what = "the documents it sealed no longer match it (a frozen field of an older document changed)";
                    return Ok(finish(seq - 1, None, Some(broken(seq, what.into()))));
                }
            }
            if row.kind == EventKind::Reminder.as_str() {
                // A reminder's frozen content is the event's own `new` value.
                let level = row.old_value.as_deref().and_then(|l| l.parse::<i32>().ok());
                let issued = row
                    .order_id
                    .and_then(|order| reminders.get(&order))
                    .and_then(|all| all.iter().find(|r| Some(r.level.get()) == level));
                if issued.map(|r| r.journaled()) != row.new_value {
                    let order = row.order_id.unwrap_or_default();
                    let what = format!(
                        "the reminder it issued (order {order}, level {}) no longer matches it (changed or removed)",
                        row.old_value.as_deref().unwrap_or("?")
                    );
                    return Ok(finish(seq - 1, None, Some(broken(seq, what))));
                }
            }
            if let Some((salt, old, new)) = kept.get(&row.id) {
                let digest = |value: &Option<String>| {
                    value.as_deref().map(|v| super::events::personal::digest(salt, v))
                };
                if digest(old) != row.old_value || digest(new) != row.new_value {
                    let what =
                        "a personal value kept beside it no longer matches the digest it carries (changed)";
                    return Ok(finish(seq - 1, None, Some(broken(seq, what.into()))));
                }
            }
            if let Some(stored) = &row.document_hash {
                let document = Document::of(&row.kind, row.order_id, row.year, row.first_seq);
                if document.and_then(|d| contents.get(&d)) != Some(stored) {
                    let what = match document {
                        Some(Document::Receipt { order }) => format!("the document it issued (order {order}) no longer matches its content hash (a frozen field changed)"),
                        Some(Document::CreditNote { year, seq }) => format!("the document it issued (credit note C-{year}-{seq:04}) no longer matches its content hash (a frozen field changed)"),
                        None => "it carries a content hash but issued no document".to_string(),
                    };
                    return Ok(finish(seq - 1, None, Some(broken(seq, what))));
                }
            }
            prev = hash;
            last_at = row.created_at;
            expected += 1;
        }
        if !full {
            break;
        }
    }
    let events = expected - 1;
    let head = chain_heads::table
        .find(tenant.id().0)
        .select((chain_heads::seq, chain_heads::hash, chain_heads::at))
        .first::<Head>(conn)
        .optional()?;
    let head_holds = match &head {
        None => events == 0,
        Some(head) => head.seq == events && head.hash == prev,
    };
    if !head_holds {
        let what = "the chain's head does not stand on its last event (events removed from the end, or the head rewritten)";
        return Ok(finish(events, None, Some(broken(events, what.into()))));
    }
    let issued: i64 = tenant.reminders().count().get_result(conn)?;
    let journaled: i64 = tenant
        .events()
        .filter(receipt_events::kind.eq(EventKind::Reminder.as_str()))
        .count()
        .get_result(conn)?;
    if issued != journaled {
        let what = format!("{issued} reminders are stored and {journaled} journaled: a reminder was written outside the program");
        return Ok(finish(events, None, Some(broken(events, what))));
    }
    Ok(finish(events, Some(prev), None))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_canonical_form_says_each_field_with_its_length_and_nothing_as_a_dash() {
        let at = chrono::NaiveDate::from_ymd_opt(2026, 11, 27)
            .unwrap()
            .and_hms_micro_opt(10, 0, 0, 123_456)
            .unwrap();
        let event = Chained {
            seq: 1,
            stringer: 7,
            kind: "mint",
            year: 2026,
            first_seq: Some(1),
            last_seq: Some(1),
            order: Some(42),
            counter_old: Some(0),
            counter_new: Some(1),
            reason: Some("Müller"),
            at,
            field: None,
            old: None,
            new: None,
            document: None,
        };
        let canonical = event.canonical();
        assert!(
            canonical.starts_with("receipts-event-v1\nseq=1:1\nstringer=1:7\nkind=4:mint\n"),
            "{canonical}"
        );
        assert!(
            canonical.contains("reason=7:Müller\n") && canonical.contains("at=16:1795773600123456\n"),
            "{canonical}"
        );
        assert!(canonical.ends_with("field=-\nold=-\nnew=-\n"), "{canonical}");
        assert_eq!(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        assert_ne!(event.hash("a"), event.hash("b"), "the previous hash is covered");
        assert_eq!(check_value("7f3a91c20b5e44"), "7F3A-91C2-0B5E");
    }
}
