//! The audit: proof, per (stringer, series, year), that the issued numbers are exactly
//! 1..=last_n, with every void explained and every gap or coming collision named. The two
//! series, receipts and credit notes, are kept apart.

use super::counters;
use super::schema::orders;
use super::{DbConn, MultiBackend, Tenant};
use crate::domain::{format_local, local_year, year_start, ReceiptNumber, Series};
use crate::error::Error;
use chrono::NaiveDateTime;
use chrono_tz::Tz;
use diesel::prelude::*;
use diesel::query_builder::{BoxedSqlQuery, SqlQuery};
use diesel::sql_types::{BigInt, Integer, Nullable, Text};
use serde::Serialize;
use std::collections::BTreeMap;

/// What the audit found for one (stringer, year).
#[derive(Debug, Clone, Default, Serialize)]
pub struct YearAudit {
    pub stringer: String,
    /// Receipts, or credit notes.
    pub series: Series,
    pub year: i32,
    /// Orders holding a number of this year.
    pub numbers: i64,
    /// The highest number in use (0 when none).
    pub highest: i64,
    /// `last_n`, or None when the counter row is missing.
    pub counter: Option<i64>,
    pub voids: Vec<Void>,
    pub gaps: Vec<Gap>,
    pub duplicates: i64,
    /// Numbered orders strung outside the year of their number (the first few).
    pub misplaced: Vec<Misplaced>,
    /// How many there are in all.
    pub misplaced_count: i64,
    pub problems: Vec<Problem>,
}

/// Something wrong with a (stringer, year): JSON shows its code and data, people the sentence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "code", rename_all = "snake_case")]
pub enum Problem {
    /// Numbers held by more than one order.
    Duplicates { count: i64 },
    /// Numbers issued that no order (no credit note) holds.
    Gap { first: String, last: String },
    /// A numbered order strung outside the year of its number.
    Misplaced { number: ReceiptNumber, order: i64, strung_at: String, strung_year: i32 },
    /// More misplaced orders than are listed.
    MoreMisplaced { count: i64 },
    /// The counter is behind (or missing): the next mint would collide.
    CounterBehind { counter: Option<i64>, highest: String },
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Problem::Duplicates { count } => write!(f, "{count} numbers are held by more than one order"),
            Problem::Gap { first, last } => {
                let range = if first == last { first.clone() } else { format!("{first}..{last}") };
                write!(f, "{range} issued but held by nothing (document lost numbers with `receipts void --number`)")
            }
            Problem::Misplaced { number, order, strung_at, strung_year } => write!(
                f,
                "{number} (order {order}) was strung on {strung_at}, in {strung_year}: a receipt's year is the year it was strung"
            ),
            Problem::MoreMisplaced { count } => {
                write!(f, "{count} more orders were strung outside the year of their number")
            }
            Problem::CounterBehind { counter, highest } => write!(
                f,
                "counter {} is behind the highest number {highest}: the next number would collide; run `receipts resync-counters`",
                counter.map_or("missing".to_string(), |c| c.to_string())
            ),
        }
    }
}

/// A numbered order whose strung time lies in another local year than its number's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Misplaced {
    pub number: ReceiptNumber,
    pub order: i64,
    /// The strung time, local to the stringer.
    pub strung_at: String,
    pub strung_year: i32,
}

/// The numbered orders of (stringer, year) whose `strung_at` lies outside that year in
/// `zone`: the first `limit` of them by number, and how many there are in all. The year's
/// bounds are computed once, so the database compares instants on an index.
pub fn strung_outside_year(
    conn: &mut DbConn,
    tenant: &Tenant,
    year: i32,
    zone: Tz,
    limit: i64,
) -> QueryResult<(Vec<Misplaced>, i64)> {
    let (from, until) = (year_start(year, zone), year_start(year + 1, zone));
    let outside = || {
        tenant
            .orders()
            .filter(orders::receipt_year.eq(year))
            .filter(orders::strung_at.lt(from).or(orders::strung_at.ge(until)))
    };
    let count: i64 = outside().count().get_result(conn)?;
    if count == 0 {
        return Ok((Vec::new(), 0));
    }
    let rows: Vec<(i64, Option<i64>, Option<NaiveDateTime>)> = outside()
        .select((orders::id, orders::receipt_seq, orders::strung_at))
        .order(orders::receipt_seq)
        .limit(limit)
        .load(conn)?;
    let misplaced = rows
        .into_iter()
        .filter_map(|(order, seq, strung_at)| {
            let (seq, strung_at) = (seq?, strung_at?);
            Some(Misplaced {
                number: ReceiptNumber::new(year, seq),
                order,
                strung_at: format!("{} {zone}", format_local(strung_at, zone)),
                strung_year: local_year(strung_at, zone),
            })
        })
        .collect();
    Ok((misplaced, count))
}

#[derive(Debug, Clone, Serialize)]
pub struct Void {
    pub number: String,
    /// The void order (none for a lost credit note number).
    pub order: Option<i64>,
    pub reason: String,
}

/// Numbers `first..=last` that nothing holds.
#[derive(Debug, Clone, Serialize)]
pub struct Gap {
    #[serde(skip)]
    pub series: Series,
    pub first: ReceiptNumber,
    pub last: ReceiptNumber,
}

impl std::fmt::Display for Gap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (first, last) = (self.series.number(self.first), self.series.number(self.last));
        if self.first == self.last {
            write!(f, "{first}")
        } else {
            write!(f, "{first}..{last}")
        }
    }
}

impl YearAudit {
    pub fn is_sound(&self) -> bool {
        self.problems.is_empty()
    }
}

/// Audits every (stringer, series, year), or only the tenant's, or only one year. A view
/// over every stringer at once (a few grouped queries per series, never a loop over orders),
/// exempt from tenancy: it filters by the tenant's id itself when one is given.
pub fn audit(conn: &mut DbConn, tenant: Option<&Tenant>, year: Option<i32>) -> Result<Vec<YearAudit>, Error> {
    let tenants: BTreeMap<i64, Tenant> = match tenant {
        Some(tenant) => BTreeMap::from([(tenant.id().0, tenant.clone())]),
        None => Tenant::all(conn)?.into_iter().map(|t| (t.id().0, t)).collect(),
    };
    let mut years: BTreeMap<(i64, Series, i32), YearAudit> = BTreeMap::new();
    let filters = Filters { stringer: tenant.map(|t| t.id().0), year };
    for series in [Series::Receipts, Series::Credits] {
        let found = Found::of(conn, &filters, series)?;
        for (stringer, year, audit) in found.into_years() {
            let name =
                tenants.get(&stringer).map_or_else(|| stringer.to_string(), |t| t.handle().to_string());
            years.insert((stringer, series, year), YearAudit { stringer: name, series, year, ..audit });
        }
    }
    for (&(stringer, series, year), audit) in years.iter_mut() {
        if let (Some(tenant), Series::Receipts) = (tenants.get(&stringer), series) {
            (audit.misplaced, audit.misplaced_count) =
                strung_outside_year(conn, tenant, year, tenant.zone(), 5)?;
        }
    }
    let mut report: Vec<YearAudit> = years.into_values().collect();
    for audit in &mut report {
        judge(audit);
    }
    report.sort_by(|a, b| (&a.stringer, a.series, a.year).cmp(&(&b.stringer, b.series, b.year)));
    Ok(report)
}

/// What one series holds, per (stringer, year): its numbers, counters, voids and inner gaps.
struct Found {
    years: BTreeMap<(i64, i32), YearAudit>,
}

impl Found {
    fn of(conn: &mut DbConn, filters: &Filters, series: Series) -> Result<Found, Error> {
        let mut found = Found { years: BTreeMap::new() };
        let table = Numbers::of(series);
        for summary in filters
            .scoped(
                table,
                &format!(
                    "SELECT stringer_id, {year} AS year, count(*) AS numbers,
                        count(DISTINCT {seq}) AS distinct_numbers, max({seq}) AS highest
                     FROM {table} WHERE {held}",
                    year = table.year,
                    seq = table.seq,
                    table = table.table,
                    held = table.held
                ),
            )
            .sql(format!(" GROUP BY stringer_id, {}", table.year))
            .load::<Summary>(conn)?
        {
            let audit = found.entry(summary.stringer_id, summary.year);
            audit.numbers = summary.numbers;
            audit.duplicates = summary.numbers - summary.distinct_numbers;
            audit.highest = summary.highest;
        }
        for (stringer, year, last_n) in counters::all(conn, series, filters.year)? {
            if filters.stringer.is_none_or(|id| id == stringer) {
                found.entry(stringer, year).counter = Some(last_n);
            }
        }
        for void in filters
            .scoped(
                table,
                &format!(
                    "SELECT stringer_id, {year} AS year, {seq} AS seq, {order} AS order_id, {reason} AS reason
                     FROM {table} WHERE {voided}",
                    year = table.year,
                    seq = table.seq,
                    order = table.order,
                    reason = table.reason,
                    table = table.table,
                    voided = table.voided
                ),
            )
            .sql(format!(" ORDER BY stringer_id, {}, {}", table.year, table.seq))
            .load::<VoidRow>(conn)?
        {
            found.entry(void.stringer_id, void.year).voids.push(Void {
                number: series.number(ReceiptNumber::new(void.year, void.seq)),
                order: void.order_id,
                reason: void.reason.unwrap_or_default(),
            });
        }
        for gap in inner_gaps(conn, filters, table)? {
            found.entry(gap.stringer_id, gap.year).gaps.push(Gap {
                series,
                first: ReceiptNumber::new(gap.year, gap.first_missing),
                last: ReceiptNumber::new(gap.year, gap.last_missing),
            });
        }
        for audit in found.years.values_mut() {
            audit.series = series;
        }
        Ok(found)
    }

    fn entry(&mut self, stringer: i64, year: i32) -> &mut YearAudit {
        self.years.entry((stringer, year)).or_insert_with(|| YearAudit { year, ..YearAudit::default() })
    }

    fn into_years(self) -> impl Iterator<Item = (i64, i32, YearAudit)> {
        self.years.into_iter().map(|((stringer, year), audit)| (stringer, year, audit))
    }
}

/// Where a series keeps its numbers.
#[derive(Clone, Copy)]
struct Numbers {
    table: &'static str,
    year: &'static str,
    seq: &'static str,
    /// A row that holds a number.
    held: &'static str,
    /// A row that holds a number void (with its reason).
    voided: &'static str,
    order: &'static str,
    reason: &'static str,
}

impl Numbers {
    fn of(series: Series) -> Numbers {
        match series {
            Series::Receipts => Numbers {
                table: "orders",
                year: "receipt_year",
                seq: "receipt_seq",
                held: "receipt_number IS NOT NULL",
                voided: "receipt_number IS NOT NULL AND voided_at IS NOT NULL",
                order: "id",
                reason: "void_reason",
            },
            Series::Credits => Numbers {
                table: "credit_notes",
                year: "credit_year",
                seq: "credit_seq",
                held: "credit_seq IS NOT NULL",
                voided: "order_id IS NULL",
                order: "order_id",
                reason: "reason",
            },
        }
    }
}

#[derive(QueryableByName)]
struct VoidRow {
    #[diesel(sql_type = BigInt)]
    stringer_id: i64,
    #[diesel(sql_type = Integer)]
    year: i32,
    #[diesel(sql_type = BigInt)]
    seq: i64,
    #[diesel(sql_type = Nullable<BigInt>)]
    order_id: Option<i64>,
    #[diesel(sql_type = Nullable<Text>)]
    reason: Option<String>,
}

/// Adds the numbers the counter handed out beyond the highest order, and names problems.
fn judge(audit: &mut YearAudit) {
    let counter = audit.counter.unwrap_or(0);
    let series = audit.series;
    if counter > audit.highest {
        audit.gaps.push(Gap {
            series,
            first: ReceiptNumber::new(audit.year, audit.highest + 1),
            last: ReceiptNumber::new(audit.year, counter),
        });
    }
    if audit.duplicates > 0 {
        audit.problems.push(Problem::Duplicates { count: audit.duplicates });
    }
    for gap in &audit.gaps {
        audit.problems.push(Problem::Gap { first: series.number(gap.first), last: series.number(gap.last) });
    }
    for m in &audit.misplaced {
        audit.problems.push(Problem::Misplaced {
            number: m.number,
            order: m.order,
            strung_at: m.strung_at.clone(),
            strung_year: m.strung_year,
        });
    }
    let unlisted = audit.misplaced_count - audit.misplaced.len() as i64;
    if unlisted > 0 {
        audit.problems.push(Problem::MoreMisplaced { count: unlisted });
    }
    if counter < audit.highest {
        audit.problems.push(Problem::CounterBehind {
            counter: audit.counter,
            highest: series.number(ReceiptNumber::new(audit.year, audit.highest)),
        });
    }
}

/// The audit's scope: every stringer (a view over all of them, exempt from tenancy) or one,
/// every year or one.
struct Filters {
    stringer: Option<i64>,
    year: Option<i32>,
}

impl Filters {
    /// `sql` (a query over the series' table that ends in its WHERE clause) narrowed to the
    /// scope, the values bound as parameters (`$1` is a placeholder on both backends).
    fn scoped(&self, numbers: Numbers, sql: &str) -> BoxedSqlQuery<'static, MultiBackend, SqlQuery> {
        let mut query = diesel::sql_query(sql).into_boxed();
        let mut placeholders = 0;
        if let Some(id) = self.stringer {
            placeholders += 1;
            query = query.sql(format!(" AND stringer_id = ${placeholders}")).bind::<BigInt, _>(id);
        }
        if let Some(year) = self.year {
            placeholders += 1;
            query = query.sql(format!(" AND {} = ${placeholders}", numbers.year)).bind::<Integer, _>(year);
        }
        query
    }
}

#[derive(QueryableByName)]
struct Summary {
    #[diesel(sql_type = BigInt)]
    stringer_id: i64,
    #[diesel(sql_type = Integer)]
    year: i32,
    #[diesel(sql_type = BigInt)]
    numbers: i64,
    #[diesel(sql_type = BigInt)]
    distinct_numbers: i64,
    #[diesel(sql_type = BigInt)]
    highest: i64,
}

#[derive(QueryableByName)]
struct InnerGap {
    #[diesel(sql_type = BigInt)]
    stringer_id: i64,
    #[diesel(sql_type = Integer)]
    year: i32,
    #[diesel(sql_type = BigInt)]
    first_missing: i64,
    #[diesel(sql_type = BigInt)]
    last_missing: i64,
}

/// Runs of missing numbers below the highest one, found by comparing each number with the
/// one before it (in the database, so a million orders are never loaded).
fn inner_gaps(conn: &mut DbConn, filters: &Filters, numbers: Numbers) -> QueryResult<Vec<InnerGap>> {
    let Numbers { table, year, seq, held, .. } = numbers;
    filters
        .scoped(
            numbers,
            &format!(
                "SELECT stringer_id, {year} AS year, prev + 1 AS first_missing, {seq} - 1 AS last_missing
                 FROM (
                     SELECT stringer_id, {year}, {seq},
                            lag({seq}, 1, CAST(0 AS BIGINT))
                                OVER (PARTITION BY stringer_id, {year} ORDER BY {seq}) AS prev
                     FROM {table}
                     WHERE {held}"
            ),
        )
        .sql(format!(
            ") numbered
             WHERE {seq} > prev + 1
             ORDER BY stringer_id, year, first_missing"
        ))
        .load(conn)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn year(numbers: i64, highest: i64, counter: Option<i64>) -> YearAudit {
        YearAudit { stringer: "stefan".into(), year: 2026, numbers, highest, counter, ..YearAudit::default() }
    }

    #[test]
    fn a_sound_year_has_no_problem() {
        let mut sound = year(3, 3, Some(3));
        judge(&mut sound);
        assert!(sound.is_sound(), "{:?}", sound.problems);
    }

    #[test]
    fn numbers_handed_out_beyond_the_orders_are_a_gap() {
        let mut ahead = year(3, 3, Some(5));
        judge(&mut ahead);
        assert_eq!(ahead.gaps.iter().map(ToString::to_string).collect::<Vec<_>>(), ["2026-0004..2026-0005"]);
        assert_eq!(ahead.problems.len(), 1);
    }

    #[test]
    fn a_counter_behind_or_missing_is_a_coming_collision() {
        for counter in [Some(2), None] {
            let mut behind = year(3, 3, counter);
            judge(&mut behind);
            assert!(
                behind
                    .problems
                    .iter()
                    .any(|p| matches!(p, Problem::CounterBehind { counter: c, .. } if *c == counter)),
                "{counter:?}"
            );
        }
    }

    #[test]
    fn duplicates_and_misplaced_receipts_are_problems() {
        let mut twice = year(4, 3, Some(3));
        twice.duplicates = 1;
        twice.misplaced = vec![Misplaced {
            number: ReceiptNumber::new(2026, 2),
            order: 7,
            strung_at: "2027-01-01 00:30 Europe/Zurich".into(),
            strung_year: 2027,
        }];
        twice.misplaced_count = 3;
        judge(&mut twice);
        assert_eq!(twice.problems.len(), 3, "{:?}", twice.problems);
        assert!(twice.problems[1]
            .to_string()
            .starts_with("2026-0002 (order 7) was strung on 2027-01-01 00:30"));
        assert_eq!(twice.problems[2], Problem::MoreMisplaced { count: 2 });
    }
}
