//! Credit notes: a document the customer holds, taken back in full or in part by another
//! document that names it, in a gapless series of its own per (stringer, year of issue).
//!
//! Policy: the original order's row is locked first, so that concurrent credits of one
//! order queue behind each other and together never take back more than its total; the
//! number then comes from the same upsert as a receipt's (`counters::bump` on
//! `credit_counters`) in the transaction that writes the credit note, raises the order's
//! credited sum and journals it. A credit note is never changed nor deleted (triggers).

use super::events::{self, Event};
use super::mint::Chronology;
use super::orders::{self, Order};
use super::schema::{credit_notes, orders as orders_table};
use super::{counters, DbConn, Tenant};
use crate::domain::{
    format_local, local_date, local_year, now_utc, CreditNumber, Currency, NoCredit, NumberRange, OrderId,
    OrderKind, PaymentMethod, Price, ReceiptNumber, Refund, Series, VatRate, YEARS,
};
use crate::error::{Error, Wanted};
use chrono::NaiveDateTime;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Integer, Nullable, Text, Timestamp};
use diesel::PgConnection;
use std::collections::HashMap;

/// A credit note as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CreditNote {
    pub number: CreditNumber,
    /// The original; None for a placeholder of a lost number.
    pub order: Option<OrderId>,
    pub issued_at: NaiveDateTime,
    /// What it takes back (positive).
    pub amount: Price,
    pub currency: Currency,
    /// The original's rate, for a stringer who charged VAT on it.
    pub vat_rate: Option<VatRate>,
    /// The VAT of `amount` at that rate.
    pub vat: Price,
    pub reason: String,
    pub refund: Refund,
    /// The issuer version of the original: the seller as the customer knows it.
    pub issuer: Option<i64>,
    /// What earlier credit notes of the original had taken back.
    pub credited_before: Price,
    /// It took back all that was left: the original is cancelled.
    pub completes: bool,
}

#[derive(Queryable, Selectable)]
#[diesel(table_name = credit_notes)]
struct CreditRow {
    order_id: Option<i64>,
    credit_year: i32,
    credit_seq: i64,
    issued_at: NaiveDateTime,
    amount_minor: i64,
    #[diesel(deserialize_as = String)]
    currency: Currency,
    vat_rate_bp: Option<i32>,
    vat_minor: i64,
    reason: String,
    #[diesel(deserialize_as = String)]
    refund_method: Refund,
    issuer_id: Option<i64>,
    credited_before_minor: i64,
    completes: bool,
}

impl From<CreditRow> for CreditNote {
    fn from(row: CreditRow) -> CreditNote {
        CreditNote {
            number: CreditNumber::new(row.credit_year, row.credit_seq),
            order: row.order_id.map(OrderId),
            issued_at: row.issued_at,
            amount: Price(row.amount_minor),
            currency: row.currency,
            vat_rate: row.vat_rate_bp.map(VatRate),
            vat: Price(row.vat_minor),
            reason: row.reason,
            refund: row.refund_method,
            issuer: row.issuer_id,
            credited_before: Price(row.credited_before_minor),
            completes: row.completes,
        }
    }
}

/// A credit as a door asks for it.
#[derive(Debug, Clone)]
pub struct Request<'a> {
    pub order: OrderId,
    /// None: everything not credited yet (a full credit, safe to repeat).
    pub amount: Option<Price>,
    /// None: not said (`none` for an unpaid invoice; required for a paid one).
    pub refund: Option<Refund>,
    pub reason: &'a str,
    pub issued_at: NaiveDateTime,
    /// How `issued_at` must stand to the year's last credit note.
    pub chronology: Chronology,
    /// The counter's form's one-time token: posted again, the credit note it issued is named.
    pub token: Option<&'a str>,
}

/// What a credit did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Credited {
    pub number: CreditNumber,
    pub order: OrderId,
    pub amount: Price,
    pub currency: Currency,
    /// False: a full credit asked again; the credit note that completed it is named.
    pub fresh: bool,
}

/// Issues a credit note in the caller's write transaction.
pub fn credit(conn: &mut DbConn, tenant: &Tenant, request: &Request<'_>) -> Result<Credited, Error> {
    let order = orders::locked(conn, tenant, request.order)?;
    if let Some(done) = request.token.map(|token| issued_for(conn, tenant, token)).transpose()?.flatten() {
        return Ok(Credited { fresh: false, ..done });
    }
    let (number, total) = creditable(&order)?;
    let left = Price(total.0 - order.credited.0);
    let amount = match request.amount {
        None if left.0 <= 0 => {
            let last =
                of_order(conn, tenant, order.id)?.into_iter().last().ok_or_else(|| Error::Internal {
                    what: "credit",
                    detail: format!("order {} is credited without a credit note", order.id),
                })?;
            let (number, amount, currency) = (last.number, last.amount, last.currency);
            return Ok(Credited { number, order: order.id, amount, currency, fresh: false });
        }
        None => left,
        Some(_) if left.0 <= 0 => return Err(credited_in_full(conn, tenant, &order, number)?),
        Some(amount) => check_amount(&order, number, amount, left)?,
    };
    // Money paid in part of an open invoice stays paid: only what is left to pay is taken back.
    let open = left.0 - order.part_paid.0;
    if order.paid_at.is_none() && order.part_paid.0 > 0 && amount.0 > open {
        return Err(Error::Invalid {
            field: "amount",
            problem: format!(
                "is {currency} {amount}, but {currency} {paid} of order {id} ({number}) is paid in part: an open \
                 invoice is credited at most the {currency} {open} left to pay (once paid in full, the rest \
                 is credited with its refund)",
                currency = order.currency,
                paid = order.part_paid,
                id = order.id,
                open = Price(open.max(0)),
            ),
        });
    }
    let refund = refund_of(&order, request.refund)?;
    // Money paid back by the shop's own bank transfer is no payment at the counter.
    if let Some(method) = refund.method().filter(|&m| m != PaymentMethod::Transfer) {
        super::stringers::check_counter_payment(conn, tenant, method, "refund")?;
    }
    let year = credit_year(tenant, request.issued_at)?;
    check_time(conn, tenant, &order, year, request)?;
    let issuer = order.issuer.ok_or(Error::Unnumbered { order: order.id, wanted: Wanted::Receipt })?;
    let vat_rate = super::document_vat::document_vat_rate(conn, tenant, &order)?;
    let completes = amount == left;
    let vat = match vat_rate {
        None => 0,
        Some(rate) if completes => rate.included_in(total.0) - vat_credited(conn, order.id)?,
        Some(rate) => rate.included_in(amount.0),
    };
    let now = now_utc();
    let seq = counters::bump(conn, tenant, Series::Credits, year, now)?;
    diesel::insert_into(credit_notes::table)
        .values((
            tenant.owns(credit_notes::stringer_id),
            credit_notes::order_id.eq(order.id.0),
            credit_notes::credit_year.eq(year),
            credit_notes::credit_seq.eq(seq),
            credit_notes::issued_at.eq(request.issued_at),
            credit_notes::amount_minor.eq(amount.0),
            credit_notes::currency.eq(order.currency.as_str()),
            credit_notes::vat_rate_bp.eq(vat_rate.map(|r| r.0)),
            credit_notes::vat_minor.eq(vat),
            credit_notes::reason.eq(request.reason),
            credit_notes::refund_method.eq(refund.as_str()),
            credit_notes::issuer_id.eq(issuer),
            credit_notes::credited_before_minor.eq(order.credited.0),
            credit_notes::completes.eq(completes),
            credit_notes::request_token.eq(request.token),
            credit_notes::created_at.eq(now),
        ))
        .execute(conn)?;
    diesel::update(tenant.orders().filter(orders_table::id.eq(order.id.0)))
        .set((orders_table::credited_minor.eq(order.credited.0 + amount.0), orders_table::updated_at.eq(now)))
        .execute(conn)?;
    let credit_number = CreditNumber::new(year, seq);
    let (original, shown) = (number.to_string(), format!("{} {amount}", order.currency));
    let event = Event::credit(tenant.id(), order.id, credit_number, &original, &shown, request.reason);
    events::record(conn, &event)?;
    Ok(Credited { number: credit_number, order: order.id, amount, currency: order.currency, fresh: true })
}

/// Calls `receipts_credit_now` (PostgreSQL): the credit note issued now in one statement,
/// for the stringer named or else the order's owner. None when the case takes the long way
/// (a refusal to explain, a full credit done already, an unusual order).
pub fn credit_now_statement(
    pg: &mut PgConnection,
    order: OrderId,
    handle: Option<&str>,
    amount: Option<Price>,
    reason: &str,
    refund: Option<Refund>,
    lock_timeout: &str,
) -> QueryResult<Option<CreditedNow>> {
    diesel::sql_query("SELECT * FROM receipts_credit_now($1, $2, $3, $4, $5, $6, $7)")
        .bind::<BigInt, _>(order.0)
        .bind::<Nullable<Text>, _>(handle)
        .bind::<Nullable<BigInt>, _>(amount.map(|a| a.0))
        .bind::<Text, _>(reason)
        .bind::<Nullable<Text>, _>(refund.map(Refund::as_str))
        .bind::<Timestamp, _>(now_utc())
        .bind::<Text, _>(lock_timeout)
        .get_result::<CreditedNow>(pg)
        .optional()
}

/// What `receipts_credit_now` answered.
#[derive(QueryableByName)]
pub struct CreditedNow {
    #[diesel(sql_type = BigInt)]
    o_stringer: i64,
    #[diesel(sql_type = Text)]
    o_handle: String,
    #[diesel(sql_type = Text)]
    o_zone: String,
    #[diesel(sql_type = Integer)]
    o_year: i32,
    #[diesel(sql_type = BigInt)]
    o_seq: i64,
    #[diesel(sql_type = BigInt)]
    o_amount: i64,
    #[diesel(sql_type = Text)]
    o_currency: String,
}

impl CreditedNow {
    /// The stringer and the fresh credit note.
    pub fn credited(self, order: OrderId) -> Result<(Tenant, Credited), Error> {
        let CreditedNow { o_stringer, o_handle, o_zone, o_year, o_seq, o_amount, o_currency } = self;
        let tenant = Tenant::looked_up(o_stringer, o_handle, o_zone)?;
        let currency = Currency::try_from(o_currency)
            .map_err(|detail| Error::Internal { what: "a credit note", detail })?;
        let number = CreditNumber::new(o_year, o_seq);
        let credited = Credited { number, order, amount: Price(o_amount), currency, fresh: true };
        Ok((tenant, credited))
    }
}

/// The credit note a form with `token` issued already, if any.
fn issued_for(conn: &mut DbConn, tenant: &Tenant, token: &str) -> Result<Option<Credited>, Error> {
    let found: Option<(i64, i32, i64, i64, String)> = tenant
        .credit_notes()
        .filter(credit_notes::request_token.eq(token))
        .select((
            credit_notes::order_id.assume_not_null(),
            credit_notes::credit_year,
            credit_notes::credit_seq,
            credit_notes::amount_minor,
            credit_notes::currency,
        ))
        .first(conn)
        .optional()?;
    found
        .map(|(order, year, seq, amount, currency)| {
            let currency = Currency::try_from(currency)
                .map_err(|detail| Error::Internal { what: "a credit note", detail })?;
            Ok(Credited {
                number: CreditNumber::new(year, seq),
                order: OrderId(order),
                amount: Price(amount),
                currency,
                fresh: false,
            })
        })
        .transpose()
}

/// The original's number and total, or why it cannot be credited.
fn creditable(order: &Order) -> Result<(ReceiptNumber, Price), Error> {
    let not = |why: NoCredit| Error::NotCreditable { order: order.id, why };
    let Some(number) = order.number else { return Err(not(NoCredit::NotNumbered)) };
    if let Some(reason) = &order.void_reason {
        return Err(not(NoCredit::Void { number, reason: reason.clone() }));
    }
    if order.kind == OrderKind::Own {
        return Err(not(NoCredit::OwnRacket { number }));
    }
    let total = order.total().filter(|t| t.0 > 0).ok_or_else(|| not(NoCredit::AsksNothing { number }))?;
    Ok((number, total))
}

/// A part to credit: more than nothing, not more than is left.
fn check_amount(order: &Order, number: ReceiptNumber, amount: Price, left: Price) -> Result<Price, Error> {
    let currency = &order.currency;
    if amount.0 <= 0 {
        return Err(Error::Invalid {
            field: "amount",
            problem: format!("is {currency} {amount}: a credit takes back more than nothing"),
        });
    }
    if amount.0 > left.0 {
        return Err(Error::Invalid {
            field: "amount",
            problem: format!(
                "is {currency} {amount}, more than the {currency} {left} left to credit of order {} ({number})",
                order.id
            ),
        });
    }
    Ok(amount)
}

/// An order credited in full already, asked for a part.
fn credited_in_full(
    conn: &mut DbConn,
    tenant: &Tenant,
    order: &Order,
    number: ReceiptNumber,
) -> Result<Error, Error> {
    let by: Vec<String> = of_order(conn, tenant, order.id)?.iter().map(|c| c.number.to_string()).collect();
    Ok(Error::NotCreditable { order: order.id, why: NoCredit::CreditedInFull { number, by } })
}

/// How the money went back: said for a paid order, none for an unpaid one.
fn refund_of(order: &Order, refund: Option<Refund>) -> Result<Refund, Error> {
    match (refund, order.paid_at.is_some()) {
        (Some(refund), true) => Ok(refund),
        (None, true) => Err(Error::Invalid {
            field: "refund",
            problem: format!(
                "is needed: order {} is paid, so say how the money went back (cash, card, twint, transfer, \
                 other, till; none when it was kept)",
                order.id
            ),
        }),
        (None | Some(Refund::None), false) => Ok(Refund::None),
        (Some(refund), false) => Err(Error::Invalid {
            field: "refund",
            problem: format!(
                "is {refund}, but order {} is not paid: no money went back (its invoice is simply no longer owed)",
                order.id
            ),
        }),
    }
}

/// The year a credit note issued at `at` belongs to.
fn credit_year(tenant: &Tenant, at: NaiveDateTime) -> Result<i32, Error> {
    let year = local_year(at, tenant.zone());
    if !YEARS.contains(&year) {
        return Err(Error::YearOutOfRange { at: format_local(at, tenant.zone()), year });
    }
    Ok(year)
}

/// A credit note is never dated before its original, and (a time given by hand) never
/// before the year's last credit note unless backdated on purpose.
fn check_time(
    conn: &mut DbConn,
    tenant: &Tenant,
    order: &Order,
    year: i32,
    request: &Request<'_>,
) -> Result<(), Error> {
    let zone = tenant.zone();
    let original_on = order.strung_at.map(|at| local_date(at, zone));
    if let Some(on) = original_on.filter(|on| local_date(request.issued_at, zone) < *on) {
        return Err(Error::Invalid {
            field: "at",
            problem: format!(
                "is {}, before its original {} of {on}: a credit note is never dated before what it takes back",
                format_local(request.issued_at, zone),
                order.number.map(|n| n.to_string()).unwrap_or_default()
            ),
        });
    }
    if request.chronology != Chronology::Checked {
        return Ok(());
    }
    let last: Option<(i64, NaiveDateTime)> = tenant
        .credit_notes()
        .filter(credit_notes::credit_year.eq(year))
        .order(credit_notes::credit_seq.desc())
        .select((credit_notes::credit_seq, credit_notes::issued_at))
        .first(conn)
        .optional()?;
    match last {
        Some((seq, at)) if at > request.issued_at => Err(Error::CreditOutOfOrder {
            at: format_local(request.issued_at, zone),
            previous: CreditNumber::new(year, seq),
            previous_at: format_local(at, zone),
        }),
        _ => Ok(()),
    }
}

/// The VAT the order's credit notes took back so far.
fn vat_credited(conn: &mut DbConn, order: OrderId) -> Result<i64, Error> {
    let vats: Vec<i64> = credit_notes::table
        .filter(credit_notes::order_id.eq(order.0))
        .select(credit_notes::vat_minor)
        .load(conn)?;
    Ok(vats.into_iter().sum())
}

/// The credit notes of one of the tenant's orders, oldest first.
pub fn of_order(conn: &mut DbConn, tenant: &Tenant, order: OrderId) -> Result<Vec<CreditNote>, Error> {
    Ok(tenant
        .credit_notes()
        .filter(credit_notes::order_id.eq(order.0))
        .order((credit_notes::credit_year, credit_notes::credit_seq))
        .select(CreditRow::as_select())
        .load(conn)?
        .into_iter()
        .map(CreditNote::from)
        .collect())
}

/// The tenant's credit notes issued from `bounds.0` up to `bounds.1` (instants in UTC), by
/// number (placeholders of lost numbers left out).
pub fn in_period(
    conn: &mut DbConn,
    tenant: &Tenant,
    bounds: (NaiveDateTime, NaiveDateTime),
) -> Result<Vec<CreditNote>, Error> {
    Ok(tenant
        .credit_notes()
        .filter(credit_notes::order_id.is_not_null())
        .filter(credit_notes::issued_at.ge(bounds.0))
        .filter(credit_notes::issued_at.lt(bounds.1))
        .order((credit_notes::credit_year, credit_notes::credit_seq))
        .select(CreditRow::as_select())
        .load(conn)?
        .into_iter()
        .map(CreditNote::from)
        .collect())
}

/// The tenant's credit notes numbered in `year`, by number (placeholders left out).
pub fn of_year(conn: &mut DbConn, tenant: &Tenant, year: i32) -> Result<Vec<CreditNote>, Error> {
    Ok(tenant
        .credit_notes()
        .filter(credit_notes::order_id.is_not_null())
        .filter(credit_notes::credit_year.eq(year))
        .order(credit_notes::credit_seq)
        .select(CreditRow::as_select())
        .load(conn)?
        .into_iter()
        .map(CreditNote::from)
        .collect())
}

/// One of the tenant's credit notes by its number.
pub fn find(conn: &mut DbConn, tenant: &Tenant, number: CreditNumber) -> Result<CreditNote, Error> {
    tenant
        .credit_notes()
        .filter(credit_notes::credit_year.eq(number.0.year))
        .filter(credit_notes::credit_seq.eq(number.0.seq))
        .select(CreditRow::as_select())
        .first(conn)
        .optional()?
        .map(CreditNote::from)
        .filter(|note| note.order.is_some())
        .ok_or_else(|| Error::NoSuchCreditNote { number, stringer: tenant.handle().to_string() })
}

/// One placeholder row per lost credit number (`void --number C-...`), with the reason.
pub fn insert_placeholders(
    conn: &mut DbConn,
    tenant: &Tenant,
    numbers: NumberRange,
    reason: &str,
) -> Result<(), Error> {
    let now = now_utc();
    for seq in numbers.seqs() {
        diesel::insert_into(credit_notes::table)
            .values((
                tenant.owns(credit_notes::stringer_id),
                credit_notes::credit_year.eq(numbers.year()),
                credit_notes::credit_seq.eq(seq),
                credit_notes::issued_at.eq(now),
                credit_notes::amount_minor.eq(0),
                credit_notes::currency.eq(""),
                credit_notes::reason.eq(reason),
                credit_notes::refund_method.eq(Refund::None.as_str()),
                credit_notes::created_at.eq(now),
            ))
            .execute(conn)?;
    }
    Ok(())
}

/// What the credit notes of `orders` took back, and when: per order, (issued at, amount).
pub fn taken_back(
    conn: &mut DbConn,
    tenant: &Tenant,
    orders: &[i64],
) -> QueryResult<HashMap<i64, Vec<(NaiveDateTime, i64)>>> {
    let mut taken: HashMap<i64, Vec<(NaiveDateTime, i64)>> = HashMap::new();
    for chunk in orders.chunks(10_000) {
        let rows: Vec<(Option<i64>, NaiveDateTime, i64)> = tenant
            .credit_notes()
            .filter(credit_notes::order_id.eq_any(chunk))
            .select((credit_notes::order_id, credit_notes::issued_at, credit_notes::amount_minor))
            .load(conn)?;
        for (order, issued_at, amount) in rows {
            if let Some(order) = order {
                taken.entry(order).or_default().push((issued_at, amount));
            }
        }
    }
    Ok(taken)
}
