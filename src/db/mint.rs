//! Minting: where an order is marked strung and receives its receipt number.
//!
//! Policy: the number comes from the (stringer, year) counter row, bumped with
//! `INSERT ... ON CONFLICT DO UPDATE ... RETURNING` in the same transaction that sets
//! `strung_at`, so a failure anywhere rolls the counter back with it and the committed
//! numbers of a year are exactly 1..=last_n. The order row is locked and checked for
//! "no number yet" *before* the counter moves, so two processes minting one order produce
//! one number and no gap.

use super::events::{self, Event};
use super::schema::{issuers, orders as orders_table, stringers};
use super::{counters, orders, stock, vat};
use super::{DbConn, Tenant};
use crate::domain::{
    address_limit_passed, format_local, local_date, local_year, now_utc, OrderId, OrderKind, ReceiptNumber,
    Series, YEARS,
};
use crate::error::Error;
use chrono::NaiveDateTime;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Bool, Date, Integer, Nullable, Text, Timestamp};
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

/// How a mint's strung time must stand to the year's last issued number: numbers follow
/// time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Chronology {
    #[default]
    /// Not compared: a mint at the clock's time (clocks of several machines may differ by a
    /// little; that is no typo).
    Unchecked,
    /// A time given by hand: not before the last issued number.
    Checked,
    /// A time given by hand that may lie before it (`--backdate`): journaled as such.
    Backdated,
}

impl Chronology {
    /// `receipts_mint`'s p_backdate.
    fn backdate(self) -> Option<bool> {
        match self {
            Chronology::Unchecked => None,
            Chronology::Checked => Some(false),
            Chronology::Backdated => Some(true),
        }
    }
}

/// What a mint checks, and what it was told to let through (each journaled with the mint).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rules {
    pub chronology: Chronology,
    /// `--without-address`: a VAT-registered stringer's client order above the small-amount
    /// limit numbered without the customer's address.
    pub without_address: bool,
    /// Said in the journal with the mint (a strung time before last year, backdated).
    pub note: Option<String>,
}

/// Calls `receipts_mint_now` (PostgreSQL): the order strung at `strung_at` and numbered in
/// one statement, for the stringer named or else the order's owner. None when the order
/// takes the long way (numbered already, refused, not there): `ops::mint` explains it.
pub fn mint_now_statement(
    pg: &mut PgConnection,
    order: OrderId,
    handle: Option<&str>,
    strung_at: NaiveDateTime,
    lock_timeout: &str,
) -> QueryResult<Option<MintedNow>> {
    diesel::sql_query("SELECT * FROM receipts_mint_now($1, $2, $3, $4)")
        .bind::<BigInt, _>(order.0)
        .bind::<Nullable<Text>, _>(handle)
        .bind::<Timestamp, _>(strung_at)
        .bind::<Text, _>(lock_timeout)
        .get_result::<MintedNow>(pg)
        .optional()
}

/// What `receipts_mint_now` answered.
#[derive(QueryableByName)]
pub struct MintedNow {
    #[diesel(sql_type = BigInt)]
    o_stringer: i64,
    #[diesel(sql_type = Text)]
    o_handle: String,
    #[diesel(sql_type = Text)]
    o_zone: String,
    #[diesel(sql_type = Integer)]
    o_year: i32,
    #[diesel(sql_type = Nullable<BigInt>)]
    o_seq: Option<i64>,
}

impl MintedNow {
    /// The stringer and the fresh number, when the statement minted one.
    pub fn fresh(self) -> Result<Option<(Tenant, ReceiptNumber)>, Error> {
        let MintedNow { o_stringer, o_handle, o_zone, o_year, o_seq } = self;
        let Some(seq) = o_seq else { return Ok(None) };
        Ok(Some((Tenant::looked_up(o_stringer, o_handle, o_zone)?, ReceiptNumber::new(o_year, seq))))
    }
}

/// `mint` inside a write transaction the caller opened and will commit or roll back.
pub fn mint_in_transaction(
    conn: &mut DbConn,
    tenant: &Tenant,
    order: OrderId,
    strung_at: NaiveDateTime,
) -> Result<Minted, Error> {
    mint_step(conn, tenant, order, strung_at, &Rules::default())
}

pub(crate) fn mint_step(
    conn: &mut DbConn,
    tenant: &Tenant,
    order: OrderId,
    strung_at: NaiveDateTime,
    rules: &Rules,
) -> Result<Minted, Error> {
    let year = receipt_year(tenant, strung_at)?;
    let fresh_seq = match conn {
        // The caller's transaction has set the lock timeout already.
        DbConn::Postgres(pg) => mint_statement(pg, tenant, order, year, strung_at, None, rules)?,
        DbConn::Sqlite(_) => mint_step_by_step(conn, tenant, order, year, strung_at, rules)?,
    };
    match fresh_seq {
        Some(seq) => Ok(Minted { order, number: ReceiptNumber::new(year, seq), outcome: Outcome::Fresh }),
        None => already_numbered(conn, tenant, order, strung_at),
    }
}

/// The year `strung_at` gives a receipt; one the schema cannot hold is refused here, as
/// bad input, before it reaches a CHECK constraint.
pub(crate) fn receipt_year(tenant: &Tenant, strung_at: NaiveDateTime) -> Result<i32, Error> {
    let year = local_year(strung_at, tenant.zone());
    if !YEARS.contains(&year) {
        return Err(Error::YearOutOfRange { at: format_local(strung_at, tenant.zone()), year });
    }
    Ok(year)
}

/// Nothing was minted: the order is not this stringer's, or it has its number already.
/// An order that was unstrung is strung again, within the year of its number.
pub fn already_numbered(
    conn: &mut DbConn,
    tenant: &Tenant,
    order: OrderId,
    strung_at: NaiveDateTime,
) -> Result<Minted, Error> {
    let found = orders::find(conn, tenant, order)?;
    let Some(number) = found.number else {
        return Err(Error::Internal {
            what: "the mint",
            detail: format!("order {order} could not be numbered"),
        });
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
pub(crate) fn mint_statement(
    conn: &mut PgConnection,
    tenant: &Tenant,
    order: OrderId,
    year: i32,
    strung_at: NaiveDateTime,
    lock_timeout: Option<&str>,
    rules: &Rules,
) -> QueryResult<Option<i64>> {
    diesel::sql_query("SELECT receipts_mint($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) AS receipt_seq")
        .bind::<BigInt, _>(order.0)
        .bind::<BigInt, _>(tenant.id().0)
        .bind::<Integer, _>(year)
        .bind::<Timestamp, _>(strung_at)
        .bind::<Timestamp, _>(now_utc())
        .bind::<Nullable<Text>, _>(lock_timeout)
        .bind::<Nullable<Bool>, _>(rules.chronology.backdate())
        .bind::<Date, _>(local_date(strung_at, tenant.zone()))
        .bind::<Bool, _>(rules.without_address)
        .bind::<Nullable<Text>, _>(rules.note.as_deref())
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
    rules: &Rules,
) -> Result<Option<i64>, Error> {
    let now = now_utc();
    let unnumbered =
        tenant.orders().filter(orders_table::id.eq(order.0)).filter(orders_table::receipt_seq.is_null());
    let Some((kind, price, items, currency, has_address, names_a_string)) = unnumbered
        .select((
            orders_table::kind,
            orders_table::price_minor,
            orders_table::items_minor,
            orders_table::currency,
            orders_table::customer_address.is_not_null().or(orders_table::customer_postal.is_not_null()),
            orders_table::string.is_not_null().or(orders_table::cross_string.is_not_null()),
        ))
        .first::<(String, Option<i64>, i64, String, bool, bool)>(conn)
        .optional()?
    else {
        return Ok(None);
    };
    let client = kind == OrderKind::Client.as_str();
    if client && price.is_none() {
        return Err(Error::NoPrice { order });
    }
    let mut notes: Vec<String> = rules.note.iter().cloned().collect();
    // The VAT rate in force on the local strung date, frozen with the document, for a
    // stringer whose current profile charges VAT.
    let charges_vat: bool = tenant
        .row()
        .inner_join(issuers::table.on(issuers::id.nullable().eq(stringers::issuer_id)))
        .select(issuers::vat_number.is_not_null().and(issuers::small_business.eq(false)))
        .first(conn)?;
    let vat_rate = match charges_vat {
        false => None,
        true => {
            let day = local_date(strung_at, tenant.zone());
            let rate = vat::history(conn, tenant)?.in_force(day);
            let rate =
                rate.ok_or_else(|| Error::NoVatRate { stringer: tenant.handle().to_string(), date: day })?;
            // The limit applies to what the invoice asks: the stringing and the items.
            let total = price.unwrap_or(0) + items;
            if client && !has_address && address_limit_passed(&currency, total).is_some() {
                if !rules.without_address {
                    let amount = format!("{currency} {}", crate::domain::Price(total));
                    return Err(Error::AddressRequired { order, amount });
                }
                notes.push(WITHOUT_ADDRESS.to_string());
            }
            Some(rate)
        }
    };
    let previous = match rules.chronology {
        Chronology::Unchecked => None,
        Chronology::Checked | Chronology::Backdated => last_strung(conn, tenant, year)?,
    };
    match previous {
        Some((number, at)) if at > strung_at && rules.chronology == Chronology::Checked => {
            return Err(out_of_order(tenant, strung_at, Some((number, at))))
        }
        Some((number, at)) if at > strung_at => notes.insert(0, format!("backdated: strung before {number}")),
        _ => {}
    }
    let seq = counters::bump(conn, tenant, Series::Receipts, year, now)?;
    diesel::update(unnumbered)
        .set((
            orders_table::strung_at.eq(strung_at),
            orders_table::receipt_year.eq(year),
            orders_table::receipt_seq.eq(seq),
            orders_table::vat_rate_bp.eq(vat_rate.map(|r| r.0)),
            orders_table::updated_at.eq(now),
        ))
        .execute(conn)?;
    let reason = notes.join("; ");
    let event = Event::mint(tenant.id(), order, ReceiptNumber::new(year, seq));
    let event = if reason.is_empty() { event } else { event.noting(&reason) };
    events::record(conn, &event)?;
    // An order that names no string takes none from stock: no statement for it.
    if names_a_string {
        stock::use_for(conn, tenant, order, now)?;
    }
    Ok(Some(seq))
}

/// What the journal says of a mint let through without the customer's address (the same
/// words as `receipts_mint`).
const WITHOUT_ADDRESS: &str = "issued without the customer's address above the small-amount limit";

/// The highest number of the tenant's year that was strung, and when: numbers follow time,
/// so the next one may not be strung before it (unless backdated).
pub(crate) fn last_strung(
    conn: &mut DbConn,
    tenant: &Tenant,
    year: i32,
) -> Result<Option<(ReceiptNumber, NaiveDateTime)>, Error> {
    Ok(tenant
        .orders()
        .filter(orders_table::receipt_number.is_not_null())
        .filter(orders_table::receipt_year.eq(year))
        .filter(orders_table::strung_at.is_not_null())
        .order(orders_table::receipt_seq.desc())
        .select((orders_table::receipt_seq.assume_not_null(), orders_table::strung_at.assume_not_null()))
        .first::<(i64, NaiveDateTime)>(conn)
        .optional()?
        .map(|(seq, at)| (ReceiptNumber::new(year, seq), at)))
}

pub(crate) fn out_of_order(
    tenant: &Tenant,
    at: NaiveDateTime,
    previous: Option<(ReceiptNumber, NaiveDateTime)>,
) -> Error {
    let zone = tenant.zone();
    match previous {
        Some((previous, previous_at)) => Error::OutOfOrder {
            at: format_local(at, zone),
            previous,
            previous_at: format_local(previous_at, zone),
        },
        // The number before it was voided meanwhile: try again.
        None => Error::Busy(crate::error::Busy::Collision),
    }
}
