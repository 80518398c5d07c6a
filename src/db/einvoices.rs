//! The e-invoices written, as the journal recorded them (`einvoice` entries, SPEC 24):
//! `order show`, the counter's order page and the auditor's export list them.

use super::schema::receipt_events;
use super::{DbConn, Tenant};
use crate::domain::{EventKind, OrderId};
use chrono::NaiveDateTime;
use diesel::prelude::*;

/// One e-invoice written: when, in which form (the entry's field: `facturx_pdf`,
/// `facturx_xml`, `fatturapa`, `credit_` before them for a credit note's), of which document
/// number, as which file, with which SHA-256.
#[derive(Debug, Clone, PartialEq, Eq, Queryable)]
pub struct Written {
    pub at: NaiveDateTime,
    pub form: Option<String>,
    pub year: i32,
    pub seq: Option<i64>,
    pub order: Option<i64>,
    pub file: Option<String>,
    pub sha256: Option<String>,
}

impl Written {
    /// The document's number: `2026-0001`, or `C-2026-0001` for a credit note's.
    pub fn number(&self) -> String {
        let credit = self.form.as_deref().is_some_and(|f| f.starts_with(super::events::CREDIT_EINVOICE));
        let number = format!("{}-{:04}", self.year, self.seq.unwrap_or_default());
        if credit {
            format!("C-{number}")
        } else {
            number
        }
    }
}

/// The e-invoices of one of the tenant's orders, oldest first.
pub fn of_order(conn: &mut DbConn, tenant: &Tenant, order: OrderId) -> QueryResult<Vec<Written>> {
    tenant
        .events()
        .filter(receipt_events::kind.eq(EventKind::Einvoice.as_str()))
        .filter(receipt_events::order_id.eq(order.0))
        .order(receipt_events::id)
        .select(COLUMNS)
        .load(conn)
}

/// Every e-invoice of the tenant, in the journal's order.
pub fn all(conn: &mut DbConn, tenant: &Tenant) -> QueryResult<Vec<Written>> {
    tenant
        .events()
        .filter(receipt_events::kind.eq(EventKind::Einvoice.as_str()))
        .order(receipt_events::id)
        .select(COLUMNS)
        .load(conn)
}

/// The e-invoices of the tenant's documents numbered in `year`, in the journal's order.
pub fn of_year(conn: &mut DbConn, tenant: &Tenant, year: i32) -> QueryResult<Vec<Written>> {
    tenant
        .events()
        .filter(receipt_events::kind.eq(EventKind::Einvoice.as_str()))
        .filter(receipt_events::year.eq(year))
        .order(receipt_events::id)
        .select(COLUMNS)
        .load(conn)
}

const COLUMNS: (
    receipt_events::created_at,
    receipt_events::field,
    receipt_events::year,
    receipt_events::first_seq,
    receipt_events::order_id,
    receipt_events::reason,
    receipt_events::new_value,
) = (
    receipt_events::created_at,
    receipt_events::field,
    receipt_events::year,
    receipt_events::first_seq,
    receipt_events::order_id,
    receipt_events::reason,
    receipt_events::new_value,
);
