//! Voiding, as both doors ask for it: a numbered order cancelled with its reason, and
//! numbers whose orders were lost accounted for (`db::void` holds the rules).

use crate::db::void::{self, required_reason, LostNumbers};
use crate::db::{Db, Tenant};
use crate::domain::{OrderId, ReceiptNumber, SeriesRange};
use crate::error::Error;

/// Voids one of the tenant's numbered orders. Repeating the same void changes nothing; a
/// void found done already (perhaps after doubt) is reported once it is durable.
pub fn order(db: &mut Db, tenant: &Tenant, order: OrderId, reason: &str) -> Result<ReceiptNumber, Error> {
    let reason = required_reason(reason)?;
    match db.write(|conn| void::void_order(conn, tenant, order, reason)) {
        Ok((number, true)) => Ok(number),
        Ok((number, false)) => db.confirm_durable().map(|()| number),
        Err(refusal @ Error::AlreadyVoid { .. }) => Err(db.confirm_durable().err().unwrap_or(refusal)),
        Err(other) => Err(other),
    }
}

/// Numbers issued whose orders are gone, each held by a void placeholder order with the
/// reason (`db::void::void_lost_numbers`); a dry run only says what it would record.
pub fn lost_numbers(
    db: &mut Db,
    tenant: &Tenant,
    numbers: impl Into<SeriesRange>,
    reason: &str,
    dry_run: bool,
) -> Result<LostNumbers, Error> {
    db.write(|conn| void::void_lost_numbers(conn, tenant, numbers.into(), reason, dry_run))
}
