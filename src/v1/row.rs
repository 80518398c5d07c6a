//! One V1 record, validated field by field.

use super::file::Columns;
use super::problems::{Problem, Problems};
use crate::domain::{check_email, validate_handle, OrderKind, Price, Timestamp};
use crate::error::Error;
use crate::receipt::pdf::check_printable;
use chrono::{NaiveDateTime, SubsecRound};
use chrono_tz::Tz;
use csv::ByteRecord;

/// A record whose every field is valid; timestamps are still as written (their zone is the
/// stringer's, known once the stringer is).
#[derive(Debug, Clone)]
pub struct V1Row<'a> {
    pub line: u64,
    pub stringer: &'a str,
    pub kind: OrderKind,
    pub v1_id: i64,
    pub customer: Option<&'a str>,
    pub racket: Option<&'a str>,
    pub string: Option<&'a str>,
    pub tension: Option<&'a str>,
    pub price_minor: Option<i64>,
    pub ordered_at: Option<Timestamp>,
    pub strung_at: Option<Timestamp>,
    pub paid_at: Option<Timestamp>,
    pub notes: Option<&'a str>,
    /// The customer's e-mail address, checked.
    pub email: Option<&'a str>,
}

/// The row's instants in UTC, read in its stringer's zone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Instants {
    pub ordered_at: Option<NaiveDateTime>,
    pub strung_at: Option<NaiveDateTime>,
    pub paid_at: Option<NaiveDateTime>,
}

impl<'a> V1Row<'a> {
    /// Validates a record; every problem found is added to `problems`.
    pub fn parse(
        record: &'a ByteRecord,
        line: u64,
        columns: &Columns,
        default_stringer: Option<&'a str>,
        problems: &mut Problems,
    ) -> Option<V1Row<'a>> {
        let before = problems.total();
        let mut text = |index: Option<usize>, column: &'static str| -> Option<&'a str> {
            let raw = record.get(index?)?;
            match std::str::from_utf8(raw) {
                Ok(value) if value.trim().is_empty() => None,
                Ok(value) => Some(value),
                Err(_) => {
                    problems.push(Problem::field(line, column, "is not valid UTF-8".into()));
                    None
                }
            }
        };
        let v1_id = text(Some(columns.v1_id), "v1_id");
        let kind = text(Some(columns.kind), "kind");
        let stringer = text(columns.stringer, "stringer").map(str::trim);
        let customer = text(columns.customer, "customer");
        let racket = text(columns.racket, "racket");
        let string = text(columns.string, "string");
        let tension = text(columns.tension, "tension");
        let price = text(columns.price, "price");
        let ordered_at = text(columns.ordered_at, "ordered_at");
        let strung_at = text(columns.strung_at, "strung_at");
        let paid_at = text(columns.paid_at, "paid_at");
        let notes = text(columns.notes, "notes");
        let email = text(columns.email, "email").map(str::trim);

        let v1_id = noted(problems, line, "v1_id", v1_id_of(v1_id));
        let kind = noted(problems, line, "kind", kind_of(kind));
        let stringer = noted(problems, line, "stringer", stringer_of(stringer.or(default_stringer)));
        let price_minor = price.and_then(|p| noted(problems, line, "price", p.parse::<Price>().map(|p| p.0)));
        let mut fail =
            |column: &'static str, message: String| problems.push(Problem::field(line, column, message));
        if let Some(Err(e)) = email.map(check_email) {
            fail("email", e);
        }
        for (column, value) in
            [("customer", customer), ("racket", racket), ("string", string), ("tension", tension)]
        {
            if let Some(Err(Error::Unprintable { character, .. })) = value.map(|v| check_printable(column, v))
            {
                fail(
                    column,
                    format!(
                        "holds \"{character}\" (U+{:04X}), which receipts cannot print",
                        character as u32
                    ),
                );
            }
        }
        let mut timestamp = |value: Option<&str>, column: &'static str| {
            value.and_then(|v| match Timestamp::parse(v) {
                Ok(at) => Some(at),
                Err(e) => {
                    fail(column, e);
                    None
                }
            })
        };
        let ordered_at = timestamp(ordered_at, "ordered_at");
        let strung_at = timestamp(strung_at, "strung_at");
        let paid_at = timestamp(paid_at, "paid_at");

        if problems.total() != before {
            return None;
        }
        Some(V1Row {
            line,
            stringer: stringer?,
            kind: kind?,
            v1_id: v1_id?,
            customer,
            racket,
            string,
            tension,
            price_minor,
            ordered_at,
            strung_at,
            paid_at,
            notes,
            email,
        })
    }

    /// The row's instants in UTC, at the precision the databases keep.
    pub fn instants(&self, zone: Tz) -> Result<Instants, Problem> {
        let resolve = |at: Option<Timestamp>, column: &'static str| {
            at.map(|at| at.resolve(zone).map(|utc| utc.trunc_subsecs(6)))
                .transpose()
                .map_err(|e| Problem::field(self.line, column, e))
        };
        Ok(Instants {
            ordered_at: resolve(self.ordered_at, "ordered_at")?,
            strung_at: resolve(self.strung_at, "strung_at")?,
            paid_at: resolve(self.paid_at, "paid_at")?,
        })
    }
}

/// What a check said of a column: its value, or the problem noted.
fn noted<T>(
    problems: &mut Problems,
    line: u64,
    column: &'static str,
    checked: Result<T, String>,
) -> Option<T> {
    checked.map_err(|problem| problems.push(Problem::field(line, column, problem))).ok()
}

/// The V1 id of a row: a positive integer.
fn v1_id_of(value: Option<&str>) -> Result<i64, String> {
    let value = value.ok_or("is empty (every row needs its V1 id)")?;
    value
        .trim()
        .parse::<i64>()
        .ok()
        .filter(|id| *id > 0)
        .ok_or(format!("\"{value}\" is not a V1 id (a positive integer)"))
}

/// The kind of a row: client or self.
fn kind_of(value: Option<&str>) -> Result<OrderKind, String> {
    value.ok_or("is empty (expected client or self)")?.parse()
}

/// The stringer of a row, or the one the import names.
fn stringer_of(value: Option<&str>) -> Result<&str, String> {
    let handle = value.ok_or("is empty and no --stringer was given")?;
    validate_handle(handle).map(|_| handle)
}
