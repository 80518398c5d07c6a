//! The items of an order: lines after the stringing line (a grip, an overgrip, a rush
//! surcharge). The database keeps their sum in `orders.items_minor` and refuses any change
//! to them once the order is numbered: they are printed.

use super::schema::order_items;
use super::DbConn;
use crate::domain::{Item, OrderId, Price};
use crate::error::Error;
use diesel::prelude::*;

/// An order's items, in their order. The caller has found the order as the tenant's.
pub fn of(conn: &mut DbConn, order: OrderId) -> Result<Vec<Item>, Error> {
    let rows: Vec<(String, i64)> = order_items::table
        .filter(order_items::order_id.eq(order.0))
        .order(order_items::position)
        .select((order_items::text, order_items::price_minor))
        .load(conn)?;
    Ok(rows.into_iter().map(|(text, price)| Item { text, price: Price(price) }).collect())
}

/// The items of the tenant's orders numbered in `year`, by order, each in its order.
pub fn of_year(
    conn: &mut DbConn,
    tenant: &super::Tenant,
    year: i32,
) -> Result<std::collections::HashMap<i64, Vec<Item>>, Error> {
    use super::schema::orders;
    let rows: Vec<(i64, String, i64)> = tenant
        .orders()
        .inner_join(order_items::table)
        .filter(orders::receipt_year.eq(year))
        .order((order_items::order_id, order_items::position))
        .select((order_items::order_id, order_items::text, order_items::price_minor))
        .load(conn)?;
    let mut items: std::collections::HashMap<i64, Vec<Item>> = std::collections::HashMap::new();
    for (order, text, price) in rows {
        items.entry(order).or_default().push(Item { text, price: Price(price) });
    }
    Ok(items)
}

/// Makes `items` the order's items, in this order.
pub fn replace(conn: &mut DbConn, order: OrderId, items: &[Item]) -> Result<(), Error> {
    diesel::delete(order_items::table.filter(order_items::order_id.eq(order.0))).execute(conn)?;
    for (item, position) in items.iter().zip(1..) {
        diesel::insert_into(order_items::table)
            .values((
                order_items::order_id.eq(order.0),
                order_items::position.eq::<i32>(position),
                order_items::text.eq(&item.text),
                order_items::price_minor.eq(item.price.0),
            ))
            .execute(conn)?;
    }
    Ok(())
}
