//! The (stringer, year) counters: the one place in the program that writes them. (The
//! PostgreSQL mint bumps its counter inside the `receipts_mint` function, in the
//! migrations.) `last_n` is the last number issued; the next mint takes `last_n + 1`.

use super::schema::receipt_counters;
use super::{DbConn, Tenant};
use chrono::NaiveDateTime;
use diesel::prelude::*;

/// The counter row of (stringer, year).
fn row(
    tenant: &Tenant,
    year: i32,
) -> diesel::dsl::Filter<
    diesel::dsl::Filter<receipt_counters::table, diesel::dsl::Eq<receipt_counters::stringer_id, i64>>,
    diesel::dsl::Eq<receipt_counters::year, i32>,
> {
    tenant.counters().filter(receipt_counters::year.eq(year))
}

/// A new counter row.
#[derive(Insertable)]
#[diesel(table_name = receipt_counters)]
struct NewCounter {
    stringer_id: i64,
    year: i32,
    last_n: i64,
    created_at: NaiveDateTime,
    updated_at: NaiveDateTime,
}

fn new_row(tenant: &Tenant, year: i32, last_n: i64, now: NaiveDateTime) -> NewCounter {
    NewCounter { stringer_id: tenant.id().0, year, last_n, created_at: now, updated_at: now }
}

/// `last_n` of (stringer, year); None when the year has no counter row yet.
pub fn last_n(conn: &mut DbConn, tenant: &Tenant, year: i32) -> QueryResult<Option<i64>> {
    row(tenant, year).select(receipt_counters::last_n).first(conn).optional()
}

/// Every year of a stringer with its `last_n`, oldest first.
pub fn of_stringer(conn: &mut DbConn, tenant: &Tenant) -> QueryResult<Vec<(i32, i64)>> {
    tenant
        .counters()
        .order(receipt_counters::year)
        .select((receipt_counters::year, receipt_counters::last_n))
        .load(conn)
}

/// `last_n` of (stringer, year), with the row locked until the transaction ends so no mint
/// moves it meanwhile (SQLite: the write transaction already keeps every writer out). A
/// missing row is made at 0, which is what it means.
pub fn lock(conn: &mut DbConn, tenant: &Tenant, year: i32, now: NaiveDateTime) -> QueryResult<i64> {
    let missing = diesel::insert_into(receipt_counters::table)
        .values(new_row(tenant, year, 0, now))
        .on_conflict_do_nothing();
    match conn {
        DbConn::Postgres(pg) => {
            missing.execute(pg)?;
            row(tenant, year).select(receipt_counters::last_n).for_update().first(pg)
        }
        DbConn::Sqlite(lite) => {
            missing.execute(lite)?;
            row(tenant, year).select(receipt_counters::last_n).first(lite)
        }
    }
}

/// Sets (stringer, year) to `new`; `old` is what the caller read (None: no row yet).
pub fn set(
    conn: &mut DbConn,
    tenant: &Tenant,
    year: i32,
    old: Option<i64>,
    new: i64,
    now: NaiveDateTime,
) -> QueryResult<()> {
    match old {
        Some(old) if old == new => Ok(()),
        Some(_) => diesel::update(row(tenant, year))
            .set((receipt_counters::last_n.eq(new), receipt_counters::updated_at.eq(now)))
            .execute(conn)
            .map(drop),
        None => diesel::insert_into(receipt_counters::table)
            .values(new_row(tenant, year, new, now))
            .execute(conn)
            .map(drop),
    }
}

/// The SQLite mint's step: creates the year's row at 1 or adds one, and returns the new
/// value (`INSERT ... ON CONFLICT DO UPDATE ... RETURNING`). (PostgreSQL's mint does the
/// same inside `receipts_mint`.)
pub fn bump(conn: &mut DbConn, tenant: &Tenant, year: i32, now: NaiveDateTime) -> QueryResult<i64> {
    let upsert = diesel::insert_into(receipt_counters::table)
        .values(new_row(tenant, year, 1, now))
        .on_conflict((receipt_counters::stringer_id, receipt_counters::year))
        .do_update()
        .set((
            receipt_counters::last_n.eq(receipt_counters::last_n + 1),
            receipt_counters::updated_at.eq(now),
        ))
        .returning(receipt_counters::last_n);
    match conn {
        DbConn::Postgres(pg) => upsert.get_result(pg),
        DbConn::Sqlite(lite) => upsert.get_result(lite),
    }
}
