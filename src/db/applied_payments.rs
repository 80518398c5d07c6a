//! The payments applied from bank files, as others read them: the reminder fees they
//! included (a day's money) and the transfers of a year (the auditor's export).

use super::schema::{orders as orders_table, payments};
use super::{DbConn, Tenant};
use chrono::NaiveDate;
use diesel::prelude::*;
use std::collections::HashMap;

/// The reminder fees the bank payments of `orders` included: per order, money received
/// besides what was owed.
pub fn fees(conn: &mut DbConn, tenant: &Tenant, orders: &[i64]) -> QueryResult<HashMap<i64, i64>> {
    let mut fees = HashMap::new();
    for chunk in orders.chunks(10_000) {
        let rows: Vec<(i64, i64)> = tenant
            .payments()
            .filter(payments::order_id.eq_any(chunk))
            .filter(payments::fee_minor.gt(0))
            .select((payments::order_id, payments::fee_minor))
            .load(conn)?;
        fees.extend(rows);
    }
    Ok(fees)
}

/// A transfer from a bank file: booked, amount, currency, the bank's reference.
pub type Transfer = (NaiveDate, i64, String, String);

/// The transfers from bank files applied to the year's orders: (booked, amount, currency,
/// bank reference) by order.
pub fn transfers_of_year(
    conn: &mut DbConn,
    tenant: &Tenant,
    year: i32,
) -> QueryResult<HashMap<i64, Vec<Transfer>>> {
    let rows: Vec<(i64, NaiveDate, i64, String, String)> = tenant
        .payments()
        .inner_join(orders_table::table)
        .filter(orders_table::receipt_year.eq(year))
        .order((payments::order_id, payments::booked_on))
        .select((
            payments::order_id,
            payments::booked_on,
            payments::amount_minor,
            payments::currency,
            payments::bank_reference,
        ))
        .load(conn)?;
    let mut by_order: HashMap<i64, Vec<_>> = HashMap::new();
    for (order, booked, amount, currency, reference) in rows {
        by_order.entry(order).or_default().push((booked, amount, currency, reference));
    }
    Ok(by_order)
}
