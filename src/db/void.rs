//! Voiding: a numbered order that is cancelled keeps its number forever, marked void with
//! the reason, so the number is accounted for. Numbers whose orders were lost are voided
//! through placeholder orders that hold them.

use super::events::{self, Event};
use super::schema::{credit_notes, orders as orders_table};
use super::{counters, orders};
use super::{DbConn, Tenant};
use crate::domain::{
    local_year, now_utc, NumberRange, OrderId, OrderKind, ReceiptNumber, Series, SeriesRange, YEARS,
};
use crate::error::{Error, Wanted};
use diesel::prelude::*;
use serde::Serialize;

/// Voids one of the tenant's numbered orders, `reason` given (and trimmed). Returns the
/// number, and whether this call voided it (false: the same void was found done).
pub fn void_order(
    conn: &mut DbConn,
    tenant: &Tenant,
    order: OrderId,
    reason: &str,
) -> Result<(ReceiptNumber, bool), Error> {
    let found = orders::find(conn, tenant, order)?;
    let Some(number) = found.number else {
        return Err(Error::Unnumbered { order, wanted: Wanted::Void });
    };
    match found.void_reason {
        Some(existing) if existing == reason => return Ok((number, false)),
        Some(existing) => return Err(Error::AlreadyVoid { order, number, reason: existing }),
        None => {}
    }
    if let Some(how) = super::order_edit::left_the_shop(conn, tenant, &found)? {
        return Err(Error::LeftTheShop { order, number, how });
    }
    let now = now_utc();
    diesel::update(tenant.orders().filter(orders_table::id.eq(order.0)))
        .set((
            orders_table::voided_at.eq(now),
            orders_table::void_reason.eq(reason),
            orders_table::updated_at.eq(now),
        ))
        .execute(conn)?;
    let numbers = NumberRange { first: number, last: number };
    events::record(conn, &Event::void(tenant.id(), numbers, Some(order), None, reason))?;
    Ok((number, true))
}

/// The most numbers one `void --number` range records: a range longer than a lost day's
/// work is far more likely a typo than a loss.
pub const MAX_LOST_NUMBERS: i64 = 10_000;

/// What `void_lost_numbers` recorded, or in a dry run would record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LostNumbers {
    pub numbers: String,
    /// The year's counter before and after: it moves when the range goes past it.
    pub counter_before: i64,
    pub counter_after: i64,
    /// The first placeholder order (None in a dry run).
    pub first_order: Option<OrderId>,
}

/// Documents numbers that were issued but whose orders are gone (lost in a restore): one
/// void order row holds each number, with the reason, so the numbers stay taken and the
/// audit shows them as explained.
///
/// Numbers at or below the year's counter must be held by no order. Numbers above it are
/// accepted only as a range that starts right after it (the counter then moves to the
/// range's end), so a void never opens an unexplained gap.
pub fn void_lost_numbers(
    conn: &mut DbConn,
    tenant: &Tenant,
    lost: SeriesRange,
    reason: &str,
    dry_run: bool,
) -> Result<LostNumbers, Error> {
    let reason = required_reason(reason)?;
    let SeriesRange { series, range: numbers } = lost;
    let year = numbers.year();
    let this_year = local_year(now_utc(), tenant.zone());
    if !YEARS.contains(&year) || year > this_year {
        return Err(Error::BadInput(format!(
            "{numbers} is of the year {year}, in which no receipt can have been issued yet \
             (numbers are issued from {} to this year, {this_year})",
            YEARS.start()
        )));
    }
    if numbers.count() > MAX_LOST_NUMBERS {
        return Err(Error::BadInput(format!(
            "{numbers} is {} numbers; one void records at most {MAX_LOST_NUMBERS}: check the range, \
             or void it in parts",
            numbers.count()
        )));
    }
    let now = now_utc();
    let counter = if dry_run {
        counters::last_n(conn, tenant, series, year)?.unwrap_or(0)
    } else {
        counters::lock(conn, tenant, series, year, now)?
    };
    if numbers.first.seq > counter + 1 {
        let next = series.number(ReceiptNumber::new(year, counter + 1));
        let issued = if counter == 0 {
            format!("no number of {year} was issued yet")
        } else {
            format!("the last number issued is {}", series.number(ReceiptNumber::new(year, counter)))
        };
        return Err(Error::Invalid {
            field: "number",
            problem: format!(
                "{lost} lies above the counter of {} for {year} ({issued}): numbers above it \
                 can only be voided as a range that starts at {next}, e.g. {next}..{}",
                tenant.handle(),
                series.number(numbers.last)
            ),
        });
    }
    match series {
        Series::Receipts => refuse_held_numbers(conn, tenant, numbers)?,
        Series::Credits => refuse_held_credit_numbers(conn, tenant, numbers)?,
    }
    let counter_after = counter.max(numbers.last.seq);
    if dry_run {
        return Ok(LostNumbers {
            numbers: lost.to_string(),
            counter_before: counter,
            counter_after,
            first_order: None,
        });
    }
    let first_order = match series {
        Series::Receipts => Some(insert_placeholders(conn, tenant, numbers, reason)?),
        Series::Credits => {
            super::credits::insert_placeholders(conn, tenant, numbers, reason)?;
            None
        }
    };
    counters::set(conn, tenant, series, year, Some(counter), counter_after, now)?;
    let moved = (counter_after != counter).then_some((counter, counter_after));
    let event = Event::void(tenant.id(), numbers, first_order, moved, reason).in_series(series);
    events::record(conn, &event)?;
    Ok(LostNumbers { numbers: lost.to_string(), counter_before: counter, counter_after, first_order })
}

/// A lost credit number is one no credit note holds.
fn refuse_held_credit_numbers(conn: &mut DbConn, tenant: &Tenant, numbers: NumberRange) -> Result<(), Error> {
    let held: Vec<String> = tenant
        .credit_notes()
        .filter(credit_notes::credit_year.eq(numbers.year()))
        .filter(credit_notes::credit_seq.between(numbers.first.seq, numbers.last.seq))
        .select(credit_notes::credit_number)
        .order(credit_notes::credit_seq)
        .limit(6)
        .load(conn)?;
    if held.is_empty() {
        return Ok(());
    }
    Err(Error::CreditNumbersHeld {
        numbers: SeriesRange { series: Series::Credits, range: numbers }.to_string(),
        stringer: tenant.handle().to_string(),
        held,
    })
}

/// A lost number is one no order holds: one that an order holds is voided through it.
fn refuse_held_numbers(conn: &mut DbConn, tenant: &Tenant, numbers: NumberRange) -> Result<(), Error> {
    const SHOWN: usize = 5;
    let held: Vec<(i64, i64)> = tenant
        .orders()
        .filter(orders_table::receipt_year.eq(numbers.year()))
        .filter(orders_table::receipt_seq.between(numbers.first.seq, numbers.last.seq))
        .select((orders_table::receipt_seq.assume_not_null(), orders_table::id))
        .order(orders_table::receipt_seq)
        .limit(SHOWN as i64 + 1)
        .load(conn)?;
    if held.is_empty() {
        return Ok(());
    }
    Err(Error::NumbersHeld {
        numbers: numbers.to_string(),
        stringer: tenant.handle().to_string(),
        more: held.len() > SHOWN,
        held: held
            .into_iter()
            .take(SHOWN)
            .map(|(seq, order)| (ReceiptNumber::new(numbers.year(), seq), OrderId(order)))
            .collect(),
    })
}

/// One void order row per number; returns the first one's id.
fn insert_placeholders(
    conn: &mut DbConn,
    tenant: &Tenant,
    numbers: NumberRange,
    reason: &str,
) -> Result<OrderId, Error> {
    let now = now_utc();
    let mut first = None;
    for seq in numbers.seqs() {
        let id = diesel::insert_into(orders_table::table)
            .values((
                tenant.owns(orders_table::stringer_id),
                orders_table::kind.eq(OrderKind::Client.as_str()),
                orders_table::receipt_year.eq(numbers.year()),
                orders_table::receipt_seq.eq(seq),
                orders_table::voided_at.eq(now),
                orders_table::void_reason.eq(reason),
                orders_table::notes.eq("stands for a receipt number whose order was lost"),
                orders_table::created_at.eq(now),
                orders_table::updated_at.eq(now),
            ))
            .returning(orders_table::id)
            .get_result::<i64>(conn)?;
        first.get_or_insert(OrderId(id));
    }
    first.ok_or_else(|| Error::Internal {
        what: "void --number",
        detail: format!("{numbers} holds no number"),
    })
}

pub fn required_reason(reason: &str) -> Result<&str, Error> {
    let reason = reason.trim();
    if reason.is_empty() {
        return Err(Error::Invalid {
            field: "reason",
            problem: "is empty, and a void needs a reason".into(),
        });
    }
    Ok(reason)
}
