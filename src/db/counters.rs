//! The (stringer, year) counters of both series, receipts' and credit notes': the one place
//! in the program that writes them. (The PostgreSQL mint and credit bump theirs inside
//! their functions, in the migrations.) `last_n` is the last number issued; the next takes
//! `last_n + 1`.

use super::{DbConn, Tenant};
use crate::domain::Series;
use chrono::NaiveDateTime;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Integer, Timestamp};

/// The table that counts a series.
fn table(series: Series) -> &'static str {
    match series {
        Series::Receipts => "receipt_counters",
        Series::Credits => "credit_counters",
    }
}

#[derive(QueryableByName)]
struct LastN {
    #[diesel(sql_type = BigInt)]
    last_n: i64,
}

#[derive(QueryableByName)]
struct YearLastN {
    #[diesel(sql_type = Integer)]
    year: i32,
    #[diesel(sql_type = BigInt)]
    last_n: i64,
}

/// `last_n` of (stringer, year) in `series`; None when the year has no counter row yet.
pub fn last_n(conn: &mut DbConn, tenant: &Tenant, series: Series, year: i32) -> QueryResult<Option<i64>> {
    diesel::sql_query(format!("SELECT last_n FROM {} WHERE stringer_id = $1 AND year = $2", table(series)))
        .bind::<BigInt, _>(tenant.id().0)
        .bind::<Integer, _>(year)
        .get_result::<LastN>(conn)
        .optional()
        .map(|row| row.map(|r| r.last_n))
}

/// Every year of a stringer's series with its `last_n`, oldest first.
pub fn of_stringer(conn: &mut DbConn, tenant: &Tenant, series: Series) -> QueryResult<Vec<(i32, i64)>> {
    diesel::sql_query(format!(
        "SELECT year, last_n FROM {} WHERE stringer_id = $1 ORDER BY year",
        table(series)
    ))
    .bind::<BigInt, _>(tenant.id().0)
    .load::<YearLastN>(conn)
    .map(|rows| rows.into_iter().map(|r| (r.year, r.last_n)).collect())
}

/// Every stringer's counters of a series: (stringer, year, last_n). A view over all of them,
/// exempt from tenancy (`audit`, `resync-counters`).
pub fn all(conn: &mut DbConn, series: Series, year: Option<i32>) -> QueryResult<Vec<(i64, i32, i64)>> {
    #[derive(QueryableByName)]
    struct Row {
        #[diesel(sql_type = BigInt)]
        stringer_id: i64,
        #[diesel(sql_type = Integer)]
        year: i32,
        #[diesel(sql_type = BigInt)]
        last_n: i64,
    }
    let sql = format!("SELECT stringer_id, year, last_n FROM {}", table(series));
    let rows = match year {
        Some(year) => {
            diesel::sql_query(format!("{sql} WHERE year = $1")).bind::<Integer, _>(year).load::<Row>(conn)
        }
        None => diesel::sql_query(sql).load::<Row>(conn),
    }?;
    Ok(rows.into_iter().map(|r| (r.stringer_id, r.year, r.last_n)).collect())
}

/// `last_n` of (stringer, year), with the row locked until the transaction ends so nothing
/// moves it meanwhile (SQLite: the write transaction already keeps every writer out). A
/// missing row is made at 0, which is what it means.
pub fn lock(
    conn: &mut DbConn,
    tenant: &Tenant,
    series: Series,
    year: i32,
    now: NaiveDateTime,
) -> QueryResult<i64> {
    diesel::sql_query(format!(
        "INSERT INTO {} (stringer_id, year, last_n, created_at, updated_at) VALUES ($1, $2, 0, $3, $3)
         ON CONFLICT (stringer_id, year) DO NOTHING",
        table(series)
    ))
    .bind::<BigInt, _>(tenant.id().0)
    .bind::<Integer, _>(year)
    .bind::<Timestamp, _>(now)
    .execute(conn)?;
    let lock = match conn {
        DbConn::Postgres(_) => " FOR UPDATE",
        DbConn::Sqlite(_) => "",
    };
    diesel::sql_query(format!(
        "SELECT last_n FROM {} WHERE stringer_id = $1 AND year = $2{lock}",
        table(series)
    ))
    .bind::<BigInt, _>(tenant.id().0)
    .bind::<Integer, _>(year)
    .get_result::<LastN>(conn)
    .map(|row| row.last_n)
}

/// Sets (stringer, year) to `new`; `old` is what the caller read (None: no row yet).
pub fn set(
    conn: &mut DbConn,
    tenant: &Tenant,
    series: Series,
    year: i32,
    old: Option<i64>,
    new: i64,
    now: NaiveDateTime,
) -> QueryResult<()> {
    // Placeholders in the order they appear: SQLite numbers `$n` by first appearance.
    let query = match old {
        Some(old) if old == new => return Ok(()),
        Some(_) => diesel::sql_query(format!(
            "UPDATE {} SET last_n = $1, updated_at = $2 WHERE stringer_id = $3 AND year = $4",
            table(series)
        ))
        .into_boxed()
        .bind::<BigInt, _>(new)
        .bind::<Timestamp, _>(now)
        .bind::<BigInt, _>(tenant.id().0)
        .bind::<Integer, _>(year),
        None => diesel::sql_query(format!(
            "INSERT INTO {} (stringer_id, year, last_n, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)",
            table(series)
        ))
        .into_boxed()
        .bind::<BigInt, _>(tenant.id().0)
        .bind::<Integer, _>(year)
        .bind::<BigInt, _>(new)
        .bind::<Timestamp, _>(now),
    };
    query.execute(conn).map(drop)
}

/// The step that takes a number: creates the year's row at 1 or adds one, and returns the
/// new value (`INSERT ... ON CONFLICT DO UPDATE ... RETURNING`).
pub fn bump(
    conn: &mut DbConn,
    tenant: &Tenant,
    series: Series,
    year: i32,
    now: NaiveDateTime,
) -> QueryResult<i64> {
    diesel::sql_query(format!(
        "INSERT INTO {table} AS c (stringer_id, year, last_n, created_at, updated_at) VALUES ($1, $2, 1, $3, $3)
         ON CONFLICT (stringer_id, year) DO UPDATE SET last_n = c.last_n + 1, updated_at = excluded.updated_at
         RETURNING last_n",
        table = table(series)
    ))
    .bind::<BigInt, _>(tenant.id().0)
    .bind::<Integer, _>(year)
    .bind::<Timestamp, _>(now)
    .get_result::<LastN>(conn)
    .map(|row| row.last_n)
}
