//! The documents issued before their events carried content hashes, sealed by one `seal`
//! event per stringer (SPEC 23): written once after the chain's migration (SQLite; the
//! PostgreSQL migration does it in SQL), and recomputed by the verification.

use super::document_hash::{self, Document};
use super::events::{self, Event};
use super::schema::receipt_events;
use super::tenant::events_of;
use super::DbConn;
use crate::domain::journal::hex;
use crate::domain::{EventKind, StringerId};
use diesel::prelude::*;
use sha2::{Digest, Sha256};

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
        let sealed = events_of(StringerId(stringer))
            .filter(receipt_events::kind.eq(EventKind::Seal.as_str()))
            .count()
            .get_result::<i64>(conn)?;
        if sealed == 0 {
            let (count, digest) = seal_digest(conn, stringer, i64::MAX)?;
            let year = chrono::Datelike::year(&crate::domain::now_utc());
            let count = count.to_string();
            events::record(conn, &Event::seal(StringerId(stringer), year, &count, &digest))?;
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
        let issued: Vec<Issued> = events_of(StringerId(stringer))
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
