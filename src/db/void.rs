//! Voiding: a numbered order that is cancelled keeps its number forever, marked void with
//! the reason, so the number is accounted for.

use super::events::{self, Event, EventKind};
use super::schema::orders;
use super::{Db, Tenant};
use crate::domain::{now_utc, OrderId, ReceiptNumber};
use crate::error::Error;
use diesel::prelude::*;

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
                "order {order} has no receipt number, so there is nothing to void"
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
        events::record(
            conn,
            &Event {
                kind: EventKind::Void,
                stringer: tenant.id,
                year,
                seqs: Some((seq, seq)),
                order: Some(order.0),
                counter: None,
                reason: Some(reason),
            },
        )?;
        Ok(number)
    })
}

/// Documents a number that was issued but whose order is gone (lost in a restore): an
/// order row that holds the number, void, with the reason, so the number stays taken and
/// the audit shows it as explained. Returns the placeholder order's id.
pub fn void_lost_number(
    db: &mut Db,
    tenant: &Tenant,
    number: ReceiptNumber,
    reason: &str,
) -> Result<OrderId, Error> {
    let reason = required_reason(reason)?;
    db.write(|conn| {
        let holder = tenant
            .orders()
            .filter(orders::receipt_number.eq(number.to_string()))
            .select(orders::id)
            .first::<i64>(conn)
            .optional()?;
        if let Some(holder) = holder {
            return Err(Error::Refused(format!(
                "{number} of stringer {} belongs to order {holder}: void that order with --order {holder}",
                tenant.handle
            )));
        }
        let now = now_utc();
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
        events::record(
            conn,
            &Event {
                kind: EventKind::Void,
                stringer: tenant.id,
                year: number.year,
                seqs: Some((number.seq, number.seq)),
                order: Some(id),
                counter: None,
                reason: Some(reason),
            },
        )?;
        Ok(OrderId(id))
    })
}

fn required_reason(reason: &str) -> Result<&str, Error> {
    let reason = reason.trim();
    if reason.is_empty() {
        return Err(Error::Usage("a void needs a reason: pass --reason TEXT".into()));
    }
    Ok(reason)
}
