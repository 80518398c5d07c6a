//! Minting: where an order is marked strung and receives its receipt number.
//!
//! Policy: the number comes from the (stringer, year) counter row, bumped with
//! `INSERT ... ON CONFLICT DO UPDATE ... RETURNING` in the same transaction that sets
//! `strung_at`, so a failure anywhere rolls the counter back with it and the committed
//! numbers of a year are exactly 1..=last_n. The order row is locked and checked for
//! "no number yet" *before* the counter moves, so two processes minting one order produce
//! one number and no gap.

use super::events::{self, Event, EventKind};
use super::schema::{orders, receipt_counters};
use super::{Db, DbConn, Tenant};
use crate::domain::{local_year, now_utc, OrderId, ReceiptNumber};
use crate::error::Error;
use chrono::NaiveDateTime;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Integer, Nullable, Text, Timestamp};
use diesel::PgConnection;

/// The outcome of `mint`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Minted {
    pub order: OrderId,
    pub number: ReceiptNumber,
    /// False when the order already had its number and nothing was minted.
    pub fresh: bool,
}

/// Marks `order` strung at `strung_at` and gives it the next number of its stringer's
/// year (the calendar year of `strung_at` in the stringer's zone). Idempotent: an order
/// that already has a number keeps it.
pub fn mint(db: &mut Db, tenant: &Tenant, order: OrderId, strung_at: NaiveDateTime) -> Result<Minted, Error> {
    let year = local_year(strung_at, tenant.timezone);
    let lock_timeout = db.lock_timeout().as_millis().to_string();
    let minted = match db.postgres() {
        // On PostgreSQL the whole mint is one statement (a call of `receipts_mint`), and a
        // statement on its own is a transaction: one round trip, all or nothing.
        Some(pg) => match mint_statement(pg, tenant, order, year, strung_at, Some(&lock_timeout)) {
            Ok(Some(seq)) => Ok(Minted { order, number: ReceiptNumber::new(year, seq), fresh: true }),
            Ok(None) => db.write(|conn| already_numbered(conn, tenant, order, strung_at)),
            Err(e) => Err(e.into()),
        },
        None => db.write(|conn| mint_in_transaction(conn, tenant, order, strung_at)),
    };
    match minted {
        Err(Error::Database(e)) if is_receipt_number_collision(&e) => {
            let last_n = tenant
                .counters()
                .filter(receipt_counters::year.eq(year))
                .select(receipt_counters::last_n)
                .first::<i64>(db.conn())
                .optional()?
                .unwrap_or(0);
            Err(Error::CounterBehind {
                stringer: tenant.handle.clone(),
                year,
                number: ReceiptNumber::new(year, last_n + 1).to_string(),
            })
        }
        other => other,
    }
}

/// `mint` inside a write transaction the caller opened and will commit or roll back.
pub fn mint_in_transaction(
    conn: &mut DbConn,
    tenant: &Tenant,
    order: OrderId,
    strung_at: NaiveDateTime,
) -> Result<Minted, Error> {
    let year = local_year(strung_at, tenant.timezone);
    let fresh_seq = match conn {
        // The caller's transaction has set the lock timeout already.
        DbConn::Postgres(pg) => mint_statement(pg, tenant, order, year, strung_at, None)?,
        DbConn::Sqlite(_) => mint_step_by_step(conn, tenant, order, year, strung_at, now_utc())?,
    };
    match fresh_seq {
        Some(seq) => Ok(Minted { order, number: ReceiptNumber::new(year, seq), fresh: true }),
        None => already_numbered(conn, tenant, order, strung_at),
    }
}

/// Nothing was minted: the order is not this stringer's, or it has its number already.
fn already_numbered(
    conn: &mut DbConn,
    tenant: &Tenant,
    order: OrderId,
    strung_at: NaiveDateTime,
) -> Result<Minted, Error> {
    let (number, was_strung) = tenant
        .orders()
        .filter(orders::id.eq(order.0))
        .select((orders::receipt_number, orders::strung_at.is_not_null()))
        .first::<(Option<String>, bool)>(conn)
        .optional()?
        .ok_or_else(|| tenant.no_such_order(order))?;
    let number = number
        .ok_or_else(|| Error::Refused(format!("order {order} could not be numbered")))?
        .parse::<ReceiptNumber>()
        .map_err(Error::Refused)?;
    if !was_strung {
        // Strung again after `order unstring`: the order keeps the number it had.
        diesel::update(tenant.orders().filter(orders::id.eq(order.0)))
            .set((orders::strung_at.eq(strung_at), orders::updated_at.eq(now_utc())))
            .execute(conn)?;
    }
    Ok(Minted { order, number, fresh: false })
}

/// Calls `receipts_mint` (migrations/postgres/*_mint_function): the new sequence number, or
/// None when the order is not eligible. `lock_timeout` (milliseconds) bounds its lock
/// waits; None keeps the transaction's.
fn mint_statement(
    conn: &mut PgConnection,
    tenant: &Tenant,
    order: OrderId,
    year: i32,
    strung_at: NaiveDateTime,
    lock_timeout: Option<&str>,
) -> QueryResult<Option<i64>> {
    diesel::sql_query("SELECT receipts_mint($1, $2, $3, $4, $5, $6) AS receipt_seq")
        .bind::<BigInt, _>(order.0)
        .bind::<BigInt, _>(tenant.id.0)
        .bind::<Integer, _>(year)
        .bind::<Timestamp, _>(strung_at)
        .bind::<Timestamp, _>(now_utc())
        .bind::<Nullable<Text>, _>(lock_timeout)
        .get_result::<MintedSeq>(conn)
        .map(|row| row.receipt_seq)
}

#[derive(QueryableByName)]
struct MintedSeq {
    #[diesel(sql_type = Nullable<BigInt>)]
    receipt_seq: Option<i64>,
}

/// The same steps as `receipts_mint`, one statement each, for SQLite: its `BEGIN
/// IMMEDIATE` write lock already keeps every other writer out.
fn mint_step_by_step(
    conn: &mut DbConn,
    tenant: &Tenant,
    order: OrderId,
    year: i32,
    strung_at: NaiveDateTime,
    now: NaiveDateTime,
) -> QueryResult<Option<i64>> {
    let unnumbered = tenant.orders().filter(orders::id.eq(order.0)).filter(orders::receipt_number.is_null());
    let eligible: i64 = unnumbered.count().get_result(conn)?;
    if eligible == 0 {
        return Ok(None);
    }
    let seq = bump_counter(conn, tenant, year, now)?;
    diesel::update(unnumbered)
        .set((
            orders::strung_at.eq(strung_at),
            orders::receipt_year.eq(year),
            orders::receipt_seq.eq(seq),
            orders::receipt_number.eq(ReceiptNumber::new(year, seq).to_string()),
            orders::updated_at.eq(now),
        ))
        .execute(conn)?;
    events::record(
        conn,
        &Event {
            kind: EventKind::Mint,
            stringer: tenant.id,
            year,
            seqs: Some((seq, seq)),
            order: Some(order.0),
            counter: Some((seq - 1, seq)),
            reason: None,
        },
    )?;
    Ok(Some(seq))
}

/// The counter upsert: creates the year's row at 1 or adds one, and returns the new value.
fn bump_counter(conn: &mut DbConn, tenant: &Tenant, year: i32, now: NaiveDateTime) -> QueryResult<i64> {
    let upsert = diesel::insert_into(receipt_counters::table)
        .values((
            receipt_counters::stringer_id.eq(tenant.id.0),
            receipt_counters::year.eq(year),
            receipt_counters::last_n.eq(1i64),
            receipt_counters::created_at.eq(now),
            receipt_counters::updated_at.eq(now),
        ))
        .on_conflict((receipt_counters::stringer_id, receipt_counters::year))
        .do_update()
        .set((
            receipt_counters::last_n.eq(receipt_counters::last_n + 1),
            receipt_counters::updated_at.eq(now),
        ))
        .returning(receipt_counters::last_n);
    // `on_conflict` is not implemented for the connection enum: run it on the inner one.
    match conn {
        DbConn::Postgres(c) => upsert.get_result(c),
        DbConn::Sqlite(c) => upsert.get_result(c),
    }
}

/// Whether a failed write hit the one-number-per-order-per-stringer index: the counter
/// handed out a number some order already has.
fn is_receipt_number_collision(error: &diesel::result::Error) -> bool {
    use diesel::result::{DatabaseErrorKind, Error as DbError};
    match error {
        DbError::DatabaseError(DatabaseErrorKind::UniqueViolation, info) => {
            info.constraint_name() == Some("orders_receipt_number_key")
                || info.message().contains("orders.receipt_number")
        }
        _ => false,
    }
}
