//! Minting: where an order is marked strung and receives its receipt number.
//!
//! Policy: the number comes from the (stringer, year) counter row, bumped with
//! `INSERT ... ON CONFLICT DO UPDATE ... RETURNING` in the same transaction that sets
//! `strung_at`, so a failure anywhere rolls the counter back with it and the committed
//! numbers of a year are exactly 1..=last_n. The order row is locked and checked for
//! "no number yet" *before* the counter moves, so two processes minting one order produce
//! one number and no gap.

use super::events::{self, Event};
use super::failure::{classify, Failure, Unique};
use super::schema::orders as orders_table;
use super::{counters, orders};
use super::{Db, DbConn, Tenant};
use crate::domain::{format_local, local_year, now_utc, OrderId, ReceiptNumber, YEARS};
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
    pub outcome: Outcome,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The order was strung and got a new number.
    Fresh,
    /// The order had been unstrung: it is strung again and keeps its number.
    Restrung,
    /// The order was strung and numbered already: nothing changed.
    AlreadyStrung,
}

impl Minted {
    pub fn is_fresh(&self) -> bool {
        self.outcome == Outcome::Fresh
    }
}

/// Marks `order` strung at `strung_at` and gives it the next number of its stringer's
/// year (the calendar year of `strung_at` in the stringer's zone). Idempotent: an order
/// that already has a number keeps it.
pub fn mint(db: &mut Db, tenant: &Tenant, order: OrderId, strung_at: NaiveDateTime) -> Result<Minted, Error> {
    let year = receipt_year(tenant, strung_at)?;
    let lock_timeout = db.lock_timeout_setting();
    let minted = match db.postgres() {
        // On PostgreSQL the whole mint is one statement (a call of `receipts_mint`), and a
        // statement on its own is a transaction: one round trip, all or nothing.
        Some(pg) => match mint_statement(pg, tenant, order, year, strung_at, Some(&lock_timeout)) {
            Ok(Some(seq)) => {
                Ok(Minted { order, number: ReceiptNumber::new(year, seq), outcome: Outcome::Fresh })
            }
            Ok(None) => db.write(|conn| already_numbered(conn, tenant, order, strung_at)),
            Err(e) => Err(db.explain(e.into())),
        },
        None => db.write(|conn| mint_in_transaction(conn, tenant, order, strung_at)),
    };
    match minted {
        Err(Error::Database(e)) if classify(&e) == Failure::UniqueViolation(Unique::ReceiptNumber) => {
            let last_n = db.read(|conn| Ok(counters::last_n(conn, tenant, year)?))?.unwrap_or(0);
            Err(Error::CounterBehind {
                stringer: tenant.handle().to_string(),
                number: ReceiptNumber::new(year, last_n + 1),
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
    let year = receipt_year(tenant, strung_at)?;
    let fresh_seq = match conn {
        // The caller's transaction has set the lock timeout already.
        DbConn::Postgres(pg) => mint_statement(pg, tenant, order, year, strung_at, None)?,
        DbConn::Sqlite(_) => mint_step_by_step(conn, tenant, order, year, strung_at, now_utc())?,
    };
    match fresh_seq {
        Some(seq) => Ok(Minted { order, number: ReceiptNumber::new(year, seq), outcome: Outcome::Fresh }),
        None => already_numbered(conn, tenant, order, strung_at),
    }
}

/// The year `strung_at` gives a receipt; one the schema cannot hold is refused here, as
/// bad input, before it reaches a CHECK constraint.
fn receipt_year(tenant: &Tenant, strung_at: NaiveDateTime) -> Result<i32, Error> {
    let year = local_year(strung_at, tenant.zone());
    if !YEARS.contains(&year) {
        return Err(Error::YearOutOfRange { at: format_local(strung_at, tenant.zone()), year });
    }
    Ok(year)
}

/// Nothing was minted: the order is not this stringer's, or it has its number already.
/// An order that was unstrung is strung again, within the year of its number.
fn already_numbered(
    conn: &mut DbConn,
    tenant: &Tenant,
    order: OrderId,
    strung_at: NaiveDateTime,
) -> Result<Minted, Error> {
    let found = orders::find(conn, tenant, order)?;
    let Some(number) = found.number else {
        return Err(Error::Refused(format!("order {order} could not be numbered")));
    };
    orders::refuse_if_void(&found, "strung again")?;
    if found.strung_at.is_some() {
        return Ok(Minted { order, number, outcome: Outcome::AlreadyStrung });
    }
    // Strung again after `order unstring`: the order keeps its number, so the new time must
    // lie in the number's year.
    let new_year = local_year(strung_at, tenant.zone());
    if new_year != number.year {
        return Err(Error::StrungOutsideYear {
            order,
            number,
            at: format_local(strung_at, tenant.zone()),
            year: new_year,
        });
    }
    diesel::update(tenant.orders().filter(orders_table::id.eq(order.0)))
        .set((orders_table::strung_at.eq(strung_at), orders_table::updated_at.eq(now_utc())))
        .execute(conn)?;
    Ok(Minted { order, number, outcome: Outcome::Restrung })
}

/// Calls `receipts_mint` (migrations/postgres/*_number_derived): the new sequence number,
/// or None when the order is not eligible. `lock_timeout` (milliseconds) bounds its lock
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
        .bind::<BigInt, _>(tenant.id().0)
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
    let unnumbered =
        tenant.orders().filter(orders_table::id.eq(order.0)).filter(orders_table::receipt_seq.is_null());
    let eligible: i64 = unnumbered.count().get_result(conn)?;
    if eligible == 0 {
        return Ok(None);
    }
    let seq = counters::bump(conn, tenant, year, now)?;
    diesel::update(unnumbered)
        .set((
            orders_table::strung_at.eq(strung_at),
            orders_table::receipt_year.eq(year),
            orders_table::receipt_seq.eq(seq),
            orders_table::updated_at.eq(now),
        ))
        .execute(conn)?;
    events::record(conn, &Event::mint(tenant.id(), order, ReceiptNumber::new(year, seq)))?;
    Ok(Some(seq))
}
