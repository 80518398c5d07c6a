//! The V1 import's SQL: the rows a file brings, the rows imported before, and what a year
//! holds already. The import itself (checking, numbering, comparing) lives in `v1`.
//!
//! Exempt from tenancy by design: a V1 file holds several stringers, so these queries take
//! the import's stringers together.

use super::schema::orders;
use super::{DbConn, Tenant};
use crate::domain::{OrderKind, ReceiptNumber, StringerId};
use chrono::NaiveDateTime;
use diesel::prelude::*;

/// A row of the file, as inserted.
#[derive(Insertable)]
#[diesel(table_name = orders)]
#[diesel(treat_none_as_default_value = false)]
pub struct NewOrder {
    pub stringer_id: i64,
    pub kind: &'static str,
    pub customer: Option<String>,
    pub racket: Option<String>,
    pub string: Option<String>,
    pub tension: Option<String>,
    pub price_minor: Option<i64>,
    pub currency: String,
    pub ordered_at: Option<NaiveDateTime>,
    pub strung_at: Option<NaiveDateTime>,
    pub paid_at: Option<NaiveDateTime>,
    pub receipt_year: Option<i32>,
    pub receipt_seq: Option<i64>,
    /// The VAT rate in force on the local strung date, for a stringer who charges VAT.
    pub vat_rate_bp: Option<i32>,
    pub v1_kind: Option<&'static str>,
    pub v1_id: Option<i64>,
    pub notes: Option<String>,
    pub email: Option<String>,
    pub created_at: NaiveDateTime,
    pub updated_at: NaiveDateTime,
}

/// Inserts a chunk of rows.
pub fn insert(conn: &mut DbConn, rows: &[NewOrder]) -> QueryResult<()> {
    super::insert_all!(conn, orders::table, rows)
}

/// A row imported before, with what a re-import compares.
pub struct Imported {
    pub stringer: StringerId,
    pub kind: OrderKind,
    pub v1_id: i64,
    pub customer: Option<String>,
    pub racket: Option<String>,
    pub string: Option<String>,
    pub tension: Option<String>,
    pub price_minor: Option<i64>,
    pub ordered_at: Option<NaiveDateTime>,
    pub strung_at: Option<NaiveDateTime>,
    pub paid_at: Option<NaiveDateTime>,
    pub notes: Option<String>,
    pub number: Option<ReceiptNumber>,
}

/// Calls `visit` with every V1 row these stringers already have, read in pages so memory
/// stays small.
pub fn for_each_imported(
    conn: &mut DbConn,
    stringers: &[StringerId],
    mut visit: impl FnMut(Imported),
) -> QueryResult<()> {
    let ids: Vec<i64> = stringers.iter().map(|s| s.0).collect();
    let mut after = 0i64;
    loop {
        #[expect(clippy::type_complexity, reason = "one row of the query")]
        let page: Vec<(
            i64,
            i64,
            Option<String>,
            Option<i64>,
            (Option<String>, Option<String>, Option<String>, Option<String>, Option<i64>),
            (Option<NaiveDateTime>, Option<NaiveDateTime>, Option<NaiveDateTime>, Option<String>),
            (Option<i32>, Option<i64>),
        )> = orders::table
            .filter(orders::v1_id.is_not_null())
            .filter(orders::stringer_id.eq_any(&ids))
            .filter(orders::id.gt(after))
            .order(orders::id)
            .limit(20_000)
            .select((
                orders::id,
                orders::stringer_id,
                orders::v1_kind,
                orders::v1_id,
                (orders::customer, orders::racket, orders::string, orders::tension, orders::price_minor),
                (orders::ordered_at, orders::strung_at, orders::paid_at, orders::notes),
                (orders::receipt_year, orders::receipt_seq),
            ))
            .load(conn)?;
        let Some(last) = page.last() else { return Ok(()) };
        after = last.0;
        for (_, stringer, kind, v1_id, (customer, racket, string, tension, price_minor), times, number) in
            page
        {
            // The schema's CHECKs allow only known kinds, and both parts or neither.
            let (Some(kind), Some(v1_id)) = (kind.and_then(|k| k.parse().ok()), v1_id) else {
                continue;
            };
            let (ordered_at, strung_at, paid_at, notes) = times;
            visit(Imported {
                stringer: StringerId(stringer),
                kind,
                v1_id,
                customer,
                racket,
                string,
                tension,
                price_minor,
                ordered_at,
                strung_at,
                paid_at,
                notes,
                number: number.0.zip(number.1).map(|(year, seq)| ReceiptNumber::new(year, seq)),
            });
        }
    }
}

/// How many numbers of `year` the tenant holds, and the lowest and highest.
pub fn numbers_of_year(
    conn: &mut DbConn,
    tenant: &Tenant,
    year: i32,
) -> QueryResult<(i64, Option<i64>, Option<i64>)> {
    tenant
        .orders()
        .filter(orders::receipt_year.eq(year))
        .select((
            diesel::dsl::count_star(),
            diesel::dsl::min(orders::receipt_seq),
            diesel::dsl::max(orders::receipt_seq),
        ))
        .first(conn)
}
