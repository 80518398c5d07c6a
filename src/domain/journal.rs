//! The journal's pure parts (SPEC 23, docs/JOURNAL.md): hashing, the canonical forms an
//! event's hash and a closure's signature cover, the check value a document prints, and the
//! salted digests of personal values. Free of the database: the writers (`db::events`,
//! `db::chain`) and the verifications (`ops::journal`) share them.

use chrono::NaiveDateTime;
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;

use super::StringerId;

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

/// The check value a document prints: the first 12 hex digits of its event's hash, in
/// capitals, grouped by four (`7F3A-91C2-0B5E`).
pub fn check_value(hash: &str) -> String {
    let digits = hash.get(..12).unwrap_or(hash).to_uppercase();
    let groups: Vec<&str> = [0..4, 4..8, 8..12].into_iter().filter_map(|range| digits.get(range)).collect();
    groups.join("-")
}

/// RFC 8785 for values without floating-point numbers: object keys sorted, no white space,
/// strings escaped as JSON requires and nothing more.
pub fn canonical_json(value: &Value) -> String {
    match value {
        Value::Object(map) => {
            let sorted: BTreeMap<&String, &Value> = map.iter().collect();
            let fields: Vec<String> = sorted
                .into_iter()
                .map(|(key, value)| format!("{}:{}", Value::String(key.clone()), canonical_json(value)))
                .collect();
            format!("{{{}}}", fields.join(","))
        }
        Value::Array(items) => {
            format!("[{}]", items.iter().map(canonical_json).collect::<Vec<_>>().join(","))
        }
        other => other.to_string(),
    }
}

/// Personal values of events, kept beside them (`event_values`): the event carries a salted
/// digest of each (`sha256:` and 64 hex digits), so the values can be erased (`customer
/// forget`) and the chain still verifies.
pub mod personal {
    use super::{hex, sha256_hex};

    /// What the journal shows of a value erased.
    pub const FORGOTTEN: &str = "(forgotten)";

    /// A new random salt, 16 bytes as hex.
    pub fn salt() -> String {
        let mut bytes = [0u8; 16];
        // Without randomness the digest is still a digest: only guessing it gets easier.
        let _ = getrandom::fill(&mut bytes);
        hex(&bytes)
    }

    /// The digest of `value` the event carries.
    pub fn digest(salt: &str, value: &str) -> String {
        format!("sha256:{}", sha256_hex(&format!("{salt}\n{value}")))
    }

    /// What a stored value says: the value kept beside the event when it was digested, the
    /// stored value itself when it was not, `(forgotten)` when it was erased.
    pub fn shown(stored: Option<String>, kept: Option<Option<String>>) -> Option<String> {
        match kept {
            Some(value) => value,
            None if stored.as_deref().is_some_and(|s| s.starts_with("sha256:")) => {
                Some(FORGOTTEN.to_string())
            }
            None => stored,
        }
    }
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
