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
    let reason = reason.trim();
    if reason.is_empty() {
        return Err(Error::Usage(
            "a void needs a reason: pass --reason TEXT".into(),
        ));
    }
    db.write(|conn| {
        let (year, seq, void_reason) = tenant
            .orders()
            .filter(orders::id.eq(order.0))
            .select((
                orders::receipt_year,
                orders::receipt_seq,
                orders::void_reason,
            ))
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
                return Err(Error::Refused(format!(
                    "order {order} ({number}) is already void: {existing}"
                )))
            }
            None => {}
        }
        let now = now_utc();
        diesel::update(tenant.orders().filter(orders::id.eq(order.0)))
            .set((
                orders::voided_at.eq(now),
                orders::void_reason.eq(reason),
                orders::updated_at.eq(now),
            ))
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
