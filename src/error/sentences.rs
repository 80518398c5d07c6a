//! Longer sentences of the errors' messages, built from their data.

use super::Wanted;
use crate::domain::{OrderId, ReceiptNumber};

pub(super) fn unnumbered(order: OrderId, wanted: Wanted) -> String {
    match wanted {
        Wanted::Void => format!(
            "order {order} has no receipt number, so there is nothing to void \
             (an order without a number can be deleted: `receipts order delete {order}`)"
        ),
        Wanted::Restring => format!(
            "order {order} was never strung, so there is nothing to restring: mint it when it is \
             strung (`receipts mint --order {order}`), or edit it"
        ),
        Wanted::Send => format!(
            "order {order} has no receipt number yet, so there is no document to send: mint it when it \
             is strung (`receipts mint --order {order}`)"
        ),
        Wanted::Receipt => format!(
            "order {order} has no receipt number yet, so it has no receipt: mint it when it is \
             strung (`receipts mint --order {order}`)"
        ),
    }
}

pub(super) fn held_numbers(
    numbers: &str,
    stringer: &str,
    held: &[(ReceiptNumber, OrderId)],
    more: bool,
) -> String {
    if let [(number, order)] = held {
        return format!(
            "{number} of stringer {stringer} belongs to order {order}, so it is not lost: \
             void that order with `receipts void --order {order} --reason ...`"
        );
    }
    let shown: Vec<String> = held.iter().map(|(number, order)| format!("{number} (order {order})")).collect();
    format!(
        "{numbers} of stringer {stringer} includes numbers that orders hold, so they are not lost: {}{}; \
         void only the numbers no order holds (`receipts audit` lists them as gaps)",
        shown.join(", "),
        if more { ", ..." } else { "" }
    )
}

pub(super) fn zone_moves(stringer: &str, from: &str, to: &str, moved: &[String], count: i64) -> String {
    let more = count - moved.len() as i64;
    let more = if more > 0 { format!(" and {more} more") } else { String::new() };
    format!(
        "changing the time zone of {stringer} from {from} to {to} would move {} into another year: {}{more}; \
         receipts keep their numbers, so the zone stays {from}",
        issued_receipts(count as usize),
        moved.join(", ")
    )
}

pub(super) fn rate_moves(stringer: &str, shown: &[String], count: usize) -> String {
    let more = if count > shown.len() { format!(" and {} more", count - shown.len()) } else { String::new() };
    format!(
        "this VAT rate would change the rate that {} of {stringer} show: {}{more}; a rate applies to receipts \
         from its date on, and issued receipts keep theirs (choose a later --vat-from)",
        issued_receipts(count),
        shown.join(", ")
    )
}

/// "1 issued receipt", "11 issued receipts".
pub(super) fn issued_receipts(count: usize) -> String {
    if count == 1 {
        "1 issued receipt".into()
    } else {
        format!("{count} issued receipts")
    }
}
