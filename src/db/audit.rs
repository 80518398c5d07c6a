//! The audit: proof, per (stringer, year), that the issued numbers are exactly 1..=last_n,
//! with every void explained and every gap or coming collision named.

use super::schema::{orders, receipt_counters};
use super::{DbConn, MultiBackend, Tenant};
use crate::domain::{format_local, local_year, year_start, ReceiptNumber};
use crate::error::Error;
use chrono::NaiveDateTime;
use chrono_tz::Tz;
use diesel::prelude::*;
use diesel::query_builder::{BoxedSqlQuery, SqlQuery};
use diesel::sql_types::{BigInt, Integer};
use serde::Serialize;
use std::collections::BTreeMap;

/// What the audit found for one (stringer, year).
#[derive(Debug, Clone, Default, Serialize)]
pub struct YearAudit {
    pub stringer: String,
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
    /// Numbers issued that no order holds.
    Gap { first: ReceiptNumber, last: ReceiptNumber },
    /// A numbered order strung outside the year of its number.
    Misplaced { number: ReceiptNumber, order: i64, strung_at: String, strung_year: i32 },
    /// More misplaced orders than are listed.
    MoreMisplaced { count: i64 },
    /// The counter is behind (or missing): the next mint would collide.
    CounterBehind { counter: Option<i64>, highest: ReceiptNumber },
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Problem::Duplicates { count } => write!(f, "{count} numbers are held by more than one order"),
            Problem::Gap { first, last } => write!(
                f,
                "{} issued but held by no order (document lost numbers with `receipts void --number`)",
                Gap { first: *first, last: *last }
            ),
            Problem::Misplaced { number, order, strung_at, strung_year } => write!(
                f,
                "{number} (order {order}) was strung on {strung_at}, in {strung_year}: a receipt's year is the year it was strung"
            ),
            Problem::MoreMisplaced { count } => {
                write!(f, "{count} more orders were strung outside the year of their number")
            }
            Problem::CounterBehind { counter, highest } => write!(
                f,
                "counter {} is behind the highest number {highest}: the next mint would collide; run `receipts resync-counters`",
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
    pub number: ReceiptNumber,
    pub order: i64,
    pub reason: String,
}

/// Numbers `first..=last` that no order holds.
#[derive(Debug, Clone, Serialize)]
pub struct Gap {
    pub first: ReceiptNumber,
    pub last: ReceiptNumber,
}

impl std::fmt::Display for Gap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.first == self.last {
            write!(f, "{}", self.first)
        } else {
            write!(f, "{}..{}", self.first, self.last)
        }
    }
}

impl YearAudit {
    pub fn is_sound(&self) -> bool {
        self.problems.is_empty()
    }
}

/// Audits every (stringer, year), or only the tenant's, or only one year. A view over every
/// stringer at once (a few grouped queries, never a loop over orders), exempt from tenancy:
/// it filters by the tenant's id itself when one is given.
pub fn audit(conn: &mut DbConn, tenant: Option<&Tenant>, year: Option<i32>) -> Result<Vec<YearAudit>, Error> {
    let tenants: BTreeMap<i64, Tenant> = match tenant {
        Some(tenant) => BTreeMap::from([(tenant.id().0, tenant.clone())]),
        None => Tenant::all(conn)?.into_iter().map(|t| (t.id().0, t)).collect(),
    };
    let mut years: BTreeMap<(i64, i32), YearAudit> = BTreeMap::new();
    fn entry<'a>(
        years: &'a mut BTreeMap<(i64, i32), YearAudit>,
        tenants: &BTreeMap<i64, Tenant>,
        stringer: i64,
        year: i32,
    ) -> &'a mut YearAudit {
        years.entry((stringer, year)).or_insert_with(|| YearAudit {
            stringer: tenants.get(&stringer).map_or_else(|| stringer.to_string(), |t| t.handle().to_string()),
            year,
            ..YearAudit::default()
        })
    }

    let filters = Filters { stringer: tenant.map(|t| t.id().0), year };
    let (mut counters, voided) = match tenant {
        Some(tenant) => (tenant.counters().into_boxed(), tenant.orders().into_boxed()),
        None => (receipt_counters::table.into_boxed(), orders::table.into_boxed()),
    };
    let mut voided = voided.filter(orders::voided_at.is_not_null());
    if let Some(year) = year {
        counters = counters.filter(receipt_counters::year.eq(year));
        voided = voided.filter(orders::receipt_year.eq(year));
    }

    for summary in filters
        .scoped(
            "SELECT stringer_id, receipt_year AS year, count(*) AS numbers,
                count(DISTINCT receipt_seq) AS distinct_numbers, max(receipt_seq) AS highest
             FROM orders WHERE receipt_number IS NOT NULL",
        )
        .sql(" GROUP BY stringer_id, receipt_year")
        .load::<Summary>(conn)?
    {
        let audit = entry(&mut years, &tenants, summary.stringer_id, summary.year);
        audit.numbers = summary.numbers;
        audit.duplicates = summary.numbers - summary.distinct_numbers;
        audit.highest = summary.highest;
    }
    for (stringer, year, last_n) in counters
        .select((receipt_counters::stringer_id, receipt_counters::year, receipt_counters::last_n))
        .load::<(i64, i32, i64)>(conn)?
    {
        entry(&mut years, &tenants, stringer, year).counter = Some(last_n);
    }
    for (stringer, year, seq, order, reason) in voided
        .select((
            orders::stringer_id,
            orders::receipt_year,
            orders::receipt_seq,
            orders::id,
            orders::void_reason,
        ))
        .order((orders::stringer_id, orders::receipt_year, orders::receipt_seq))
        .load::<(i64, Option<i32>, Option<i64>, i64, Option<String>)>(conn)?
    {
        if let (Some(year), Some(seq)) = (year, seq) {
            entry(&mut years, &tenants, stringer, year).voids.push(Void {
                number: ReceiptNumber::new(year, seq),
                order,
                reason: reason.unwrap_or_default(),
            });
        }
    }
    for gap in inner_gaps(conn, &filters)? {
        entry(&mut years, &tenants, gap.stringer_id, gap.year).gaps.push(Gap {
            first: ReceiptNumber::new(gap.year, gap.first_missing),
            last: ReceiptNumber::new(gap.year, gap.last_missing),
        });
    }

    for (&(stringer, year), audit) in years.iter_mut() {
        if let Some(tenant) = tenants.get(&stringer) {
            (audit.misplaced, audit.misplaced_count) =
                strung_outside_year(conn, tenant, year, tenant.zone(), 5)?;
        }
    }

    let mut report: Vec<YearAudit> = years.into_values().collect();
    for audit in &mut report {
        judge(audit);
    }
    report.sort_by(|a, b| (&a.stringer, a.year).cmp(&(&b.stringer, b.year)));
    Ok(report)
}

/// Adds the numbers the counter handed out beyond the highest order, and names problems.
fn judge(audit: &mut YearAudit) {
    let counter = audit.counter.unwrap_or(0);
    if counter > audit.highest {
        audit.gaps.push(Gap {
            first: ReceiptNumber::new(audit.year, audit.highest + 1),
            last: ReceiptNumber::new(audit.year, counter),
        });
    }
    if audit.duplicates > 0 {
        audit.problems.push(Problem::Duplicates { count: audit.duplicates });
    }
    for gap in &audit.gaps {
        audit.problems.push(Problem::Gap { first: gap.first, last: gap.last });
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
            highest: ReceiptNumber::new(audit.year, audit.highest),
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
    /// `sql` (a query over `orders` that ends in its WHERE clause) narrowed to the scope,
    /// the values bound as parameters (`$1` is a placeholder on both backends).
    fn scoped(&self, sql: &str) -> BoxedSqlQuery<'static, MultiBackend, SqlQuery> {
        let mut query = diesel::sql_query(sql).into_boxed();
        let mut placeholders = 0;
        if let Some(id) = self.stringer {
            placeholders += 1;
            query = query.sql(format!(" AND stringer_id = ${placeholders}")).bind::<BigInt, _>(id);
        }
        if let Some(year) = self.year {
            placeholders += 1;
            query = query.sql(format!(" AND receipt_year = ${placeholders}")).bind::<Integer, _>(year);
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
fn inner_gaps(conn: &mut DbConn, filters: &Filters) -> QueryResult<Vec<InnerGap>> {
    filters
        .scoped(
            "SELECT stringer_id, receipt_year AS year, prev + 1 AS first_missing, receipt_seq - 1 AS last_missing
             FROM (
                 SELECT stringer_id, receipt_year, receipt_seq,
                        lag(receipt_seq, 1, CAST(0 AS BIGINT))
                            OVER (PARTITION BY stringer_id, receipt_year ORDER BY receipt_seq) AS prev
                 FROM orders
                 WHERE receipt_number IS NOT NULL",
        )
        .sql(
            ") numbered
             WHERE receipt_seq > prev + 1
             ORDER BY stringer_id, year, first_missing",
        )
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
