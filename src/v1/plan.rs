//! Numbering a V1 file: every row with a `strung_at` gets `{year}-{seq}`, where `year` is
//! the local year of `strung_at` and `seq` ranks the rows of that (stringer, year) by
//! (`strung_at`, `kind`, `v1_id`). Only small keys are kept per row, never the rows.

use super::problems::{Problem, Problems};
use super::stringers::Registry;
use crate::domain::{OrderKind, ReceiptNumber};
use chrono::NaiveDateTime;
use std::collections::BTreeMap;

/// What numbering needs to know of a row.
#[derive(Debug, Clone, Copy)]
pub struct Key {
    pub row: u32,
    pub line: u64,
    pub stringer: u32,
    pub kind: OrderKind,
    pub v1_id: i64,
    /// Local year and UTC instant of `strung_at`.
    pub strung: Option<(i32, NaiveDateTime)>,
}

/// The file's rows of one (stringer, year); year `None` holds the unstrung rows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Group {
    pub orders: u64,
    pub numbered: u64,
    pub highest: i64,
}

#[derive(Debug)]
pub struct Plan {
    /// By row: its key, with the sequence number it gets (0: none).
    pub rows: Vec<(Key, i64)>,
    pub groups: BTreeMap<(u32, Option<i32>), Group>,
}

impl Plan {
    /// Numbers the rows; a V1 identity that appears twice is a problem.
    pub fn new(mut keys: Vec<Key>, registry: &Registry, problems: &mut Problems) -> Plan {
        keys.sort_unstable_by_key(|k| (k.stringer, k.kind, k.v1_id, k.line));
        for pair in keys.windows(2) {
            let (first, again) = (&pair[0], &pair[1]);
            if (first.stringer, first.kind, first.v1_id) == (again.stringer, again.kind, again.v1_id) {
                problems.push(Problem::field(
                    again.line,
                    "v1_id",
                    format!(
                        "{} {} of stringer {} appears again (first on line {})",
                        again.kind,
                        again.v1_id,
                        registry.handle(again.stringer),
                        first.line
                    ),
                ));
            }
        }

        keys.sort_unstable_by_key(|k| {
            (k.stringer, k.strung.map(|s| s.0), k.strung.map(|s| s.1), k.kind, k.v1_id)
        });
        let mut groups: BTreeMap<(u32, Option<i32>), Group> = BTreeMap::new();
        let mut rows = Vec::with_capacity(keys.len());
        for key in keys {
            let year = key.strung.map(|s| s.0);
            let group = groups.entry((key.stringer, year)).or_default();
            group.orders += 1;
            let seq = if year.is_some() {
                group.numbered += 1;
                group.highest = group.numbered as i64;
                group.highest
            } else {
                0
            };
            rows.push((key, seq));
        }
        rows.sort_unstable_by_key(|(k, _)| k.row);
        Plan { rows, groups }
    }

    /// The number a row gets, if it is strung.
    pub fn number(&self, row: u32) -> Option<ReceiptNumber> {
        let (key, seq) = self.rows.get(row as usize)?;
        key.strung.map(|(year, _)| ReceiptNumber::new(year, *seq))
    }
}
