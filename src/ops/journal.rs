//! The journal verified (SPEC 23): each stringer's chain recomputed from its genesis, the
//! documents, reminders, seal and personal values it covers checked against it, then its
//! closures: numbered, following each other, signed by the keys recorded, and summed again.
//! What is decided here is read through `db`; the hashing is `domain::journal`'s.

use crate::db::closures::{self, Closure};
use crate::db::document_hash::{self, Document};
use crate::db::{chain, events, reminders, sealing, DbConn, Tenant};
use crate::domain::journal::{genesis, personal, sha256_hex};
use crate::domain::EventKind;
use crate::error::Error;
use crate::signing;
use chrono::{NaiveDate, NaiveDateTime};
use serde::Serialize;
use std::collections::{BTreeSet, HashMap};

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

/// What was read for a page of events to check what they cover: the documents' content
/// hashes, the reminders they issued, the personal values kept beside them.
struct Covered {
    contents: HashMap<Document, String>,
    reminders: HashMap<i64, Vec<crate::db::reminders::Reminder>>,
    kept: HashMap<i64, events::Kept>,
}

impl Covered {
    fn read(conn: &mut DbConn, tenant: &Tenant, page: &[chain::Row]) -> Result<Covered, Error> {
        let documents: Vec<Document> = page
            .iter()
            .filter(|row| row.document_hash.is_some())
            .filter_map(|row| Document::of(&row.kind, row.order_id, row.year, row.first_seq))
            .collect();
        let reminded: Vec<i64> = page
            .iter()
            .filter(|row| row.kind == EventKind::Reminder.as_str())
            .filter_map(|row| row.order_id)
            .collect();
        let ids: Vec<i64> = page.iter().map(|row| row.id).collect();
        Ok(Covered {
            contents: document_hash::hashes(conn, tenant.id().0, &documents)?,
            reminders: reminders::of_orders(conn, tenant, &reminded)?,
            kept: events::kept_values(conn, &ids)?,
        })
    }

    /// Why `row` no longer holds what it covers (a seal, a reminder, a personal value, a
    /// document's content), if it does not.
    fn break_at(
        &self,
        conn: &mut DbConn,
        tenant: &Tenant,
        row: &chain::Row,
    ) -> Result<Option<String>, Error> {
        if row.kind == EventKind::Seal.as_str() {
            let (count, digest) = sealing::seal_digest(conn, tenant.id().0, row.seq.unwrap_or(0))?;
            if row.old_value.as_deref() != Some(count.to_string().as_str())
                || row.new_value.as_ref() != Some(&digest)
            {
                let what = "the documents it sealed no longer match it (a frozen field of an older document changed)";
                return Ok(Some(what.into()));
            }
        }
        if row.kind == EventKind::Reminder.as_str() {
            // A reminder's frozen content is the event's own `new` value.
            let level = row.old_value.as_deref().and_then(|l| l.parse::<i32>().ok());
            let issued = row
                .order_id
                .and_then(|order| self.reminders.get(&order))
                .and_then(|all| all.iter().find(|r| Some(r.level.get()) == level));
            if issued.map(|r| r.journaled()) != row.new_value {
                let order = row.order_id.unwrap_or_default();
                let what = format!(
                    "the reminder it issued (order {order}, level {}) no longer matches it (changed or removed)",
                    row.old_value.as_deref().unwrap_or("?")
                );
                return Ok(Some(what));
            }
        }
        if let Some((salt, old, new)) = self.kept.get(&row.id) {
            let digest = |value: &Option<String>| value.as_deref().map(|v| personal::digest(salt, v));
            if digest(old) != row.old_value || digest(new) != row.new_value {
                let what =
                    "a personal value kept beside it no longer matches the digest it carries (changed)";
                return Ok(Some(what.into()));
            }
        }
        if let Some(stored) = &row.document_hash {
            let document = Document::of(&row.kind, row.order_id, row.year, row.first_seq);
            if document.and_then(|d| self.contents.get(&d)) != Some(stored) {
                let what = match document {
                    Some(Document::Receipt { order }) => format!("the document it issued (order {order}) no longer matches its content hash (a frozen field changed)"),
                    Some(Document::CreditNote { year, seq }) => format!("the document it issued (credit note C-{year}-{seq:04}) no longer matches its content hash (a frozen field changed)"),
                    None => "it carries a content hash but issued no document".to_string(),
                };
                return Ok(Some(what));
            }
        }
        Ok(None)
    }
}

/// Recomputes the tenant's chain from its genesis, event by event in `seq` order, read page
/// by page: every `seq` 1..N present once, each previous hash the one before's, each hash
/// its event's, instants never going back, and the head on the last event.
pub fn verify_chain(conn: &mut DbConn, tenant: &Tenant) -> Result<Verified, Error> {
    const PAGE: i64 = 10_000;
    let name = tenant.handle().to_string();
    let broken = |seq: i64, what: String| Break { stringer: name.clone(), seq, what };
    let mut prev = genesis(tenant.id(), tenant.handle());
    let mut expected = 1i64;
    let mut last_at = NaiveDateTime::MIN;
    let unchained = chain::unchained_count(conn, tenant)?;
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
        let page = chain::page(conn, tenant, expected, PAGE)?;
        let full = page.len() as i64 == PAGE;
        let covered = Covered::read(conn, tenant, &page)?;
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
            if let Some(what) = covered.break_at(conn, tenant, row)? {
                return Ok(finish(seq - 1, None, Some(broken(seq, what))));
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
    let head = chain::head(conn, tenant)?;
    let head_holds = match &head {
        None => events == 0,
        Some((seq, hash)) => *seq == events && *hash == prev,
    };
    if !head_holds {
        let what = "the chain's head does not stand on its last event (events removed from the end, or the head rewritten)";
        return Ok(finish(events, None, Some(broken(events, what.into()))));
    }
    let (issued, journaled) = reminders::issued_and_journaled(conn, tenant)?;
    if issued != journaled {
        let what = format!("{issued} reminders are stored and {journaled} journaled: a reminder was written outside the program");
        return Ok(finish(events, None, Some(broken(events, what))));
    }
    Ok(finish(events, Some(prev), None))
}

/// Where the closures do not hold.
#[derive(Debug, Clone)]
pub struct ClosureBreak {
    pub closure: i64,
    pub what: String,
}

/// What verifying a stringer's closures found.
#[derive(Debug, Clone, Default)]
pub struct ClosuresVerified {
    pub count: i64,
    pub last: Option<(i64, NaiveDate, String)>,
    /// Fingerprints of the keys recorded, in order.
    pub keys: Vec<String>,
    pub broken: Option<ClosureBreak>,
    /// The anchors given that were found.
    pub anchors_found: Vec<String>,
    /// Closures a declared restore lost: (the restore's event, first, last).
    pub lost: Vec<(i64, i64, i64)>,
}

/// The stringer's chain recomputed, then its closures when the chain holds.
pub fn verify_journal(
    conn: &mut DbConn,
    tenant: &Tenant,
    given_key: Option<&str>,
    anchors: &[String],
) -> Result<(Verified, Option<ClosuresVerified>), Error> {
    let chain = verify_chain(conn, tenant)?;
    let closures = match chain.broken {
        None => Some(verify_closures(conn, tenant, given_key, anchors)?),
        Some(_) => None,
    };
    Ok((chain, closures))
}

/// The stringer's keys as the journal recorded them: each with the event that recorded it,
/// and from which event on the key given (if any) is trusted.
struct Keys {
    trusted_from: Option<i64>,
    key_at: Vec<(i64, String)>,
}

/// The stringer's keys, each rotation signed by the key before, and the key given among
/// them; their fingerprints noted in `found`. A break when they are not.
fn keys(
    conn: &mut DbConn,
    tenant: &Tenant,
    given_key: Option<&str>,
    found: &mut ClosuresVerified,
) -> Result<Result<Keys, ClosureBreak>, Error> {
    let mut trusted_from: Option<i64> = None;
    let mut key_at: Vec<(i64, String)> = Vec::new();
    for closures::KeyEvent { seq, old, new, rotation } in closures::key_events(conn, tenant)? {
        let Some(new) = new else { continue };
        if let Some((_, before)) = key_at.last() {
            let signed = rotation.as_deref().is_some_and(|sig| {
                signing::verifies(before, closures::rotation_message(tenant, &new).as_bytes(), sig)
            });
            if old.as_deref() != Some(before.as_str()) || !signed {
                let what =
                    format!("the key recorded at event {seq} was not handed over by the key before it");
                return Ok(Err(ClosureBreak { closure: 0, what }));
            }
        }
        if given_key == Some(new.as_str()) {
            trusted_from = Some(seq);
        }
        found.keys.push(signing::fingerprint(&new));
        key_at.push((seq, new));
    }
    if let (Some(given), None) = (given_key, trusted_from) {
        let what = format!(
            "the public key given (fingerprint {}) was never recorded for {}: its keys were replaced",
            signing::fingerprint(given),
            tenant.handle()
        );
        return Ok(Err(ClosureBreak { closure: 0, what }));
    }
    Ok(Ok(Keys { trusted_from, key_at }))
}

/// Recomputes the stringer's closures (after its chain was verified): numbered 1..N, each
/// after the one before and covering the events after it, its digest its content's, signed
/// by the key recorded when it was made (and, with `given_key`, by that key or one it handed
/// over to), its documents and voids summed again from the journal and its grand totals the
/// previous ones plus its own. The keys' rotations must be signed by the key before.
pub fn verify_closures(
    conn: &mut DbConn,
    tenant: &Tenant,
    given_key: Option<&str>,
    anchors: &[String],
) -> Result<ClosuresVerified, Error> {
    let mut found = ClosuresVerified::default();
    let Keys { trusted_from, key_at } = match keys(conn, tenant, given_key, &mut found)? {
        Ok(keys) => keys,
        Err(broken) => {
            found.broken = Some(broken);
            return Ok(found);
        }
    };
    let closures = closures::all(conn, tenant)?;
    let closure_events = closures::closure_events(conn, tenant)?;
    let declared = closures::declared_lost(conn, tenant)?;
    let mut previous: Option<&Closure> = None;
    for closure in &closures {
        let broken = |what: String| Some(ClosureBreak { closure: closure.seq, what });
        let after = previous.map_or(0, |p| p.seq);
        // A gap a restore declared: the closures it lost, numbered outside.
        let restore =
            declared.iter().find(|(_, here, outside)| *here == after && *outside == closure.seq - 1);
        if let Some((event, here, outside)) = restore {
            found.lost.push((*event, here + 1, *outside));
        }
        let expected_seq = if restore.is_some() { closure.seq } else { after + 1 };
        let expected_previous =
            previous.map_or_else(|| genesis(tenant.id(), tenant.handle()), |p| p.digest.clone());
        let expected_first = previous.map_or(1, |p| p.event_seq + 1);
        let made_at = closure_events.get(&closure.seq.to_string()).copied();
        let key_then =
            made_at.and_then(|at| key_at.iter().rev().find(|(seq, _)| *seq < at)).map(|(_, key)| key);
        let event_hash = chain::hash_of(conn, tenant, closure.event_seq)?;
        let canonical = closure.canonical();
        found.broken = if closure.seq != expected_seq {
            broken(format!("closure {expected_seq} is missing"))
        } else if closure.previous != expected_previous || closure.first_event_seq != expected_first {
            broken("it does not follow the closure before it".into())
        } else if made_at.is_none() {
            broken("the journal has no event of it".into())
        } else if event_hash != Some(Some(closure.event_hash.clone())) {
            broken(format!("the event it ends on ({}) is not the one it covered", closure.event_seq))
        } else if sha256_hex(&canonical) != closure.digest {
            broken("its content does not match its digest (changed)".into())
        } else if key_then != Some(&closure.public_key) {
            broken("it is not signed by the key recorded for it".into())
        } else if !signing::verifies(&closure.public_key, canonical.as_bytes(), &closure.signature) {
            broken("its signature does not verify (changed, or signed by another key)".into())
        } else if trusted_from.is_some_and(|from| made_at.is_some_and(|at| at > from))
            && !key_at.iter().any(|(seq, key)| Some(*seq) >= trusted_from && key == &closure.public_key)
        {
            broken("it is not signed by the key given or one it handed over to".into())
        } else {
            recheck_totals(conn, tenant, closure, previous)?.and_then(broken)
        };
        if found.broken.is_some() {
            return Ok(found);
        }
        found.count += 1;
        found.last = Some((closure.seq, closure.day, closure.digest.clone()));
        if anchors.contains(&closure.digest) {
            found.anchors_found.push(closure.digest.clone());
        }
        previous = Some(closure);
    }
    let kept: BTreeSet<String> = closures.iter().map(|c| c.seq.to_string()).collect();
    let mut lost: Vec<i64> =
        closure_events.keys().filter(|seq| !kept.contains(*seq)).filter_map(|seq| seq.parse().ok()).collect();
    lost.sort_unstable();
    if let Some(first) = lost.first() {
        found.broken = Some(ClosureBreak {
            closure: *first,
            what: "the journal records it, but it is not among the closures (removed)".into(),
        });
    }
    Ok(found)
}

/// The closure's documents and voids summed again from the journal, its grand totals the
/// previous closure's plus its own.
fn recheck_totals(
    conn: &mut DbConn,
    tenant: &Tenant,
    closure: &Closure,
    previous: Option<&Closure>,
) -> Result<Option<String>, Error> {
    let stored = match closure.totals() {
        Ok(totals) => totals,
        Err(why) => return Ok(Some(why)),
    };
    let grand = match closure.grand_totals() {
        Ok(totals) => totals,
        Err(why) => return Ok(Some(why)),
    };
    let recomputed = closures::sum(conn, tenant, closure.first_event_seq, closure.event_seq)?;
    if !stored.recomputed_as(&recomputed) {
        return Ok(Some("its totals are not the sum of the documents and voids it covers".into()));
    }
    let before = match previous.map(Closure::grand_totals).transpose() {
        Ok(before) => before.unwrap_or_default(),
        Err(why) => return Ok(Some(why)),
    };
    if before.plus(&stored) != grand {
        return Ok(Some("its grand totals are not the previous closure's plus its own".into()));
    }
    Ok(None)
}
