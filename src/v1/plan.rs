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

#[cfg(test)]
mod tests {
    use super::*;
    use chrono_tz::Tz;

    fn at(text: &str) -> NaiveDateTime {
        NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M").unwrap()
    }

    #[test]
    fn rows_are_numbered_per_stringer_and_year_by_time_kind_and_id() {
        let mut registry = Registry::empty(Tz::UTC);
        let (stefan, anna) = (registry.index("stefan"), registry.index("anna"));
        let key = |row, stringer, kind, v1_id, strung: Option<(i32, &str)>| Key {
            row,
            line: u64::from(row) + 2,
            stringer,
            kind,
            v1_id,
            strung: strung.map(|(year, t)| (year, at(t))),
        };
        let keys = vec![
            key(0, stefan, OrderKind::Client, 2, Some((2025, "2025-03-01 10:00"))),
            key(1, stefan, OrderKind::Own, 1, Some((2025, "2025-03-01 10:00"))),
            key(2, stefan, OrderKind::Client, 1, Some((2025, "2025-02-01 10:00"))),
            key(3, stefan, OrderKind::Client, 3, None),
            key(4, anna, OrderKind::Client, 1, Some((2026, "2026-01-01 00:00"))),
            key(5, stefan, OrderKind::Client, 4, Some((2026, "2026-01-05 10:00"))),
        ];
        let mut problems = Problems::default();
        let plan = Plan::new(keys, &registry, &mut problems);
        assert!(problems.into_result().is_ok());
        let numbers: Vec<Option<String>> =
            (0..6).map(|row| plan.number(row).map(|n| n.to_string())).collect();
        let expected = ["2025-0002", "2025-0003", "2025-0001", "", "2026-0001", "2026-0001"];
        let expected: Vec<Option<String>> =
            expected.iter().map(|n| Some(n.to_string()).filter(|n| !n.is_empty())).collect();
        assert_eq!(numbers, expected);
        assert_eq!(plan.groups[&(stefan, Some(2025))], Group { orders: 3, numbered: 3, highest: 3 });
        assert_eq!(plan.groups[&(stefan, None)], Group { orders: 1, numbered: 0, highest: 0 });
    }

    #[test]
    fn a_v1_identity_twice_is_a_problem_naming_both_lines() {
        let mut registry = Registry::empty(Tz::UTC);
        let stefan = registry.index("stefan");
        let key = |row: u32| Key {
            row,
            line: u64::from(row) + 2,
            stringer: stefan,
            kind: OrderKind::Client,
            v1_id: 7,
            strung: None,
        };
        let mut problems = Problems::default();
        Plan::new(vec![key(0), key(1)], &registry, &mut problems);
        let Err(crate::Error::FileProblems { total: 1, listed }) = problems.into_result() else {
            panic!("one problem");
        };
        assert_eq!(listed, ["line 3, v1_id: client 7 of stringer stefan appears again (first on line 2)"]);
    }
}
