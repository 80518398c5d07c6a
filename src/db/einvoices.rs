//! The e-invoices written, as the journal recorded them (`einvoice` entries, SPEC 24):
//! `order show`, the counter's order page and the auditor's export list them, and `audit
//! --verify` renders each again.

use super::schema::receipt_events;
use super::{DbConn, Tenant};
use crate::domain::{EventKind, OrderId};
use chrono::NaiveDateTime;
use diesel::prelude::*;

/// One e-invoice written: when, in which form (the entry's field: `facturx_pdf`,
/// `facturx_xml`, `fatturapa`, `credit_` before them for a credit note's), of which document
/// number, as which file, with which SHA-256.
#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable)]
#[diesel(table_name = receipt_events)]
pub struct Written {
    #[diesel(column_name = created_at)]
    pub at: NaiveDateTime,
    #[diesel(column_name = field)]
    pub form: Option<String>,
    pub year: i32,
    #[diesel(column_name = first_seq)]
    pub seq: Option<i64>,
    #[diesel(column_name = order_id)]
    pub order: Option<i64>,
    #[diesel(column_name = reason)]
    pub file: Option<String>,
    #[diesel(column_name = new_value)]
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

/// Which of the tenant's e-invoices to read.
#[derive(Debug, Clone, Copy)]
pub enum Which {
    All,
    /// Those of one order's documents.
    Order(OrderId),
    /// Those of the documents numbered in a year.
    Year(i32),
}

/// The tenant's e-invoices of `which`, in the journal's order.
pub fn written(conn: &mut DbConn, tenant: &Tenant, which: Which) -> QueryResult<Vec<Written>> {
    let mut query = tenant
        .events()
        .filter(receipt_events::kind.eq(EventKind::Einvoice.as_str()))
        .order(receipt_events::id)
        .select(Written::as_select())
        .into_boxed();
    match which {
        Which::All => {}
        Which::Order(order) => query = query.filter(receipt_events::order_id.eq(order.0)),
        Which::Year(year) => query = query.filter(receipt_events::year.eq(year)),
    }
    query.load(conn)
}
