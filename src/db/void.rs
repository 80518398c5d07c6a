//! Voiding: a numbered order that is cancelled keeps its number forever, marked void with
//! the reason, so the number is accounted for. Numbers whose orders were lost are voided
//! through placeholder orders that hold them.

use super::counters;
use super::events::{self, Event};
use super::schema::orders;
use super::{Db, DbConn, Tenant};
use crate::domain::{local_year, now_utc, NumberRange, OrderId, ReceiptNumber, YEARS};
use crate::error::Error;
use diesel::prelude::*;
use serde::Serialize;

/// Voids one of the tenant's numbered orders. Repeating the same void changes nothing.
pub fn void_order(
    db: &mut Db,
    tenant: &Tenant,
    order: OrderId,
    reason: &str,
) -> Result<ReceiptNumber, Error> {
    let reason = required_reason(reason)?;
    db.write(|conn| {
        let (year, seq, void_reason) = tenant
            .orders()
            .filter(orders::id.eq(order.0))
            .select((orders::receipt_year, orders::receipt_seq, orders::void_reason))
            .first::<(Option<i32>, Option<i64>, Option<String>)>(conn)
            .optional()?
            .ok_or_else(|| tenant.no_such_order(order))?;
        let (Some(year), Some(seq)) = (year, seq) else {
            return Err(Error::Refused(format!(
                "order {order} has no receipt number, so there is nothing to void \
                 (an order without a number can be deleted: `receipts order delete {order}`)"
            )));
        };
        let number = ReceiptNumber::new(year, seq);
        match void_reason {
            Some(existing) if existing == reason => return Ok(number),
            Some(existing) => {
                return Err(Error::Refused(format!("order {order} ({number}) is already void: {existing}")))
            }
            None => {}
        }
        let now = now_utc();
        diesel::update(tenant.orders().filter(orders::id.eq(order.0)))
            .set((orders::voided_at.eq(now), orders::void_reason.eq(reason), orders::updated_at.eq(now)))
            .execute(conn)?;
        let numbers = NumberRange { first: number, last: number };
        events::record(conn, &Event::void(tenant.id, numbers, order, None, reason))?;
        Ok(number)
    })
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
    db: &mut Db,
    tenant: &Tenant,
    numbers: NumberRange,
    reason: &str,
    dry_run: bool,
) -> Result<LostNumbers, Error> {
    let reason = required_reason(reason)?;
    let year = numbers.year();
    let this_year = local_year(now_utc(), tenant.timezone);
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
    db.write(|conn| {
        let now = now_utc();
        let counter = if dry_run {
            counters::last_n(conn, tenant.id, year)?.unwrap_or(0)
        } else {
            counters::lock(conn, tenant.id, year, now)?
        };
        if numbers.first.seq > counter + 1 {
            let next = ReceiptNumber::new(year, counter + 1);
            let issued = if counter == 0 {
                format!("no number of {year} was issued yet")
            } else {
                format!("the last number issued is {}", ReceiptNumber::new(year, counter))
            };
            return Err(Error::BadInput(format!(
                "{numbers} lies above the counter of {} for {year} ({issued}): numbers above it \
                 can only be voided as a range that starts at {next}, e.g. --number {next}..{}",
                tenant.handle, numbers.last
            )));
        }
        refuse_held_numbers(conn, tenant, numbers)?;
        let counter_after = counter.max(numbers.last.seq);
        if dry_run {
            return Ok(LostNumbers {
                numbers: numbers.to_string(),
                counter_before: counter,
                counter_after,
                first_order: None,
            });
        }
        let first_order = insert_placeholders(conn, tenant, numbers, reason)?;
        counters::set(conn, tenant.id, year, Some(counter), counter_after, now)?;
        let moved = (counter_after != counter).then_some((counter, counter_after));
        events::record(conn, &Event::void(tenant.id, numbers, first_order, moved, reason))?;
        Ok(LostNumbers {
            numbers: numbers.to_string(),
            counter_before: counter,
            counter_after,
            first_order: Some(first_order),
        })
    })
}

/// A lost number is one no order holds: one that an order holds is voided through it.
fn refuse_held_numbers(conn: &mut DbConn, tenant: &Tenant, numbers: NumberRange) -> Result<(), Error> {
    let held: Vec<(Option<i64>, i64)> = tenant
        .orders()
        .filter(orders::receipt_year.eq(numbers.year()))
        .filter(orders::receipt_seq.between(numbers.first.seq, numbers.last.seq))
        .select((orders::receipt_seq, orders::id))
        .order(orders::receipt_seq)
        .limit(6)
        .load(conn)?;
    let held: Vec<(i64, i64)> = held.into_iter().filter_map(|(seq, order)| Some((seq?, order))).collect();
    let Some(&(seq, order)) = held.first() else {
        return Ok(());
    };
    let number = ReceiptNumber::new(numbers.year(), seq);
    if held.len() == 1 {
        return Err(Error::Refused(format!(
            "{number} of stringer {} belongs to order {order}, so it is not lost: \
             void that order with `receipts void --order {order} --reason ...`",
            tenant.handle
        )));
    }
    let shown: Vec<String> = held
        .iter()
        .take(5)
        .map(|&(seq, order)| format!("{} (order {order})", ReceiptNumber::new(numbers.year(), seq)))
        .collect();
    let more = if held.len() > 5 { ", ..." } else { "" };
    Err(Error::Refused(format!(
        "{numbers} of stringer {} includes numbers that orders hold, so they are not lost: {}{more}; \
         void only the numbers no order holds (`receipts audit` lists them as gaps)",
        tenant.handle,
        shown.join(", ")
    )))
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
        let number = ReceiptNumber::new(numbers.year(), seq);
        let id = diesel::insert_into(orders::table)
            .values((
                orders::stringer_id.eq(tenant.id.0),
                orders::kind.eq("client"),
                orders::receipt_number.eq(number.to_string()),
                orders::receipt_year.eq(number.year),
                orders::receipt_seq.eq(number.seq),
                orders::voided_at.eq(now),
                orders::void_reason.eq(reason),
                orders::notes.eq("stands for a receipt number whose order was lost"),
                orders::created_at.eq(now),
                orders::updated_at.eq(now),
            ))
            .returning(orders::id)
            .get_result::<i64>(conn)?;
        first.get_or_insert(OrderId(id));
    }
    first.ok_or_else(|| Error::Refused(format!("{numbers} holds no number")))
}

fn required_reason(reason: &str) -> Result<&str, Error> {
    let reason = reason.trim();
    if reason.is_empty() {
        return Err(Error::Usage("a void needs a reason: pass --reason TEXT".into()));
    }
    Ok(reason)
}
