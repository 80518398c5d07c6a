//! The content hash of an issued document (SPEC 23): SHA-256 over the canonical form of what
//! it prints, frozen with it (docs/JOURNAL.md). The event that issued the document carries
//! it, so a frozen field changed later no longer matches the chain. PostgreSQL's trigger
//! computes the same bytes (`receipts_document_canonical`); `audit --verify` recomputes them
//! here, a page of events at a time.

use super::issuers::IssuerRow;
use super::schema::{credit_notes, issuers, order_items, orders};
use super::tenant::{credit_notes_of, orders_of};
use super::DbConn;
use crate::domain::journal::{canonical_field, micros, sha256_hex};
use crate::domain::StringerId;
use chrono::NaiveDateTime;
use diesel::prelude::*;
use std::collections::HashMap;

/// A document as its event names it: a receipt by its order, a credit note by its number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Document {
    Receipt { order: i64 },
    CreditNote { year: i32, seq: i64 },
}

impl Document {
    /// The document an event of `kind` issued, if it issued one.
    pub fn of(kind: &str, order: Option<i64>, year: i32, first_seq: Option<i64>) -> Option<Document> {
        match (kind, order, first_seq) {
            ("mint", Some(order), _) => Some(Document::Receipt { order }),
            ("credit", Some(_), Some(seq)) => Some(Document::CreditNote { year, seq }),
            _ => None,
        }
    }
}

/// The content hash of the document an event about to be written issues (SQLite; the
/// trigger does it on PostgreSQL).
pub fn of_event(
    conn: &mut DbConn,
    kind: &str,
    stringer: i64,
    order: Option<i64>,
    year: i32,
    first_seq: Option<i64>,
) -> QueryResult<Option<String>> {
    let Some(document) = Document::of(kind, order, year, first_seq) else { return Ok(None) };
    Ok(hashes(conn, stringer, &[document])?.remove(&document))
}

/// The content hashes of the stringer's `documents` as they stand now (those not found are
/// left out).
pub fn hashes(
    conn: &mut DbConn,
    stringer: i64,
    documents: &[Document],
) -> QueryResult<HashMap<Document, String>> {
    let mut found = HashMap::new();
    let orders: Vec<i64> = documents
        .iter()
        .filter_map(|d| match d {
            Document::Receipt { order } => Some(*order),
            Document::CreditNote { .. } => None,
        })
        .collect();
    for chunk in orders.chunks(5_000) {
        // Each order with its frozen seller, in one query; the items only of orders that have
        // any (most have none: no query for them).
        let printed: Vec<(Printed, Option<IssuerRow>)> = orders_of(StringerId(stringer))
            .left_join(issuers::table)
            .filter(orders::id.eq_any(chunk))
            .select((Printed::as_select(), Option::<IssuerRow>::as_select()))
            .load(conn)?;
        let with_items: Vec<i64> =
            printed.iter().filter(|(o, _)| o.item_count > 0).map(|(o, _)| o.id).collect();
        let mut items: HashMap<i64, Vec<(i32, i64, String)>> = HashMap::new();
        if !with_items.is_empty() {
            for (order, position, price, text) in order_items::table
                .filter(order_items::order_id.eq_any(&with_items))
                .order((order_items::order_id, order_items::position))
                .select((
                    order_items::order_id,
                    order_items::position,
                    order_items::price_minor,
                    order_items::text,
                ))
                .load::<(i64, i32, i64, String)>(conn)?
            {
                items.entry(order).or_default().push((position, price, text));
            }
        }
        for (order, issuer) in &printed {
            let items = items.get(&order.id).map_or(&[][..], Vec::as_slice);
            let canonical = receipt_canonical(order, items, issuer.as_ref());
            found.insert(Document::Receipt { order: order.id }, sha256_hex(&canonical));
        }
    }
    for document in documents {
        if let Document::CreditNote { year, seq } = *document {
            let note: Option<Credited> = credit_notes_of(StringerId(stringer))
                .filter(credit_notes::credit_year.eq(year))
                .filter(credit_notes::credit_seq.eq(seq))
                .select(Credited::as_select())
                .first(conn)
                .optional()?;
            if let Some(note) = note {
                found.insert(*document, sha256_hex(&credit_canonical(&note)));
            }
        }
    }
    Ok(found)
}

/// What a receipt prints, as stored.
#[derive(Queryable, Selectable)]
#[diesel(table_name = orders)]
struct Printed {
    id: i64,
    kind: String,
    receipt_number: Option<String>,
    strung_at: Option<NaiveDateTime>,
    customer: Option<String>,
    customer_address: Option<String>,
    customer_postal: Option<String>,
    customer_note: Option<String>,
    racket: Option<String>,
    string: Option<String>,
    cross_string: Option<String>,
    tension: Option<String>,
    own_string: bool,
    price_minor: Option<i64>,
    items_minor: i64,
    item_count: i32,
    currency: String,
    vat_rate_bp: Option<i32>,
    issuer_id: Option<i64>,
    customer_business: Option<String>,
}

/// What a credit note prints of its own (the original it names has its own hash).
#[derive(Queryable, Selectable)]
#[diesel(table_name = credit_notes)]
struct Credited {
    credit_number: String,
    order_id: Option<i64>,
    issued_at: NaiveDateTime,
    amount_minor: i64,
    currency: String,
    vat_rate_bp: Option<i32>,
    vat_minor: i64,
    reason: String,
    refund_method: String,
    issuer_id: Option<i64>,
    credited_before_minor: i64,
    completes: bool,
}

fn text<T: ToString>(value: Option<T>) -> Option<String> {
    value.map(|v| v.to_string())
}

fn receipt_canonical(o: &Printed, items: &[(i32, i64, String)], issuer: Option<&IssuerRow>) -> String {
    let mut canonical = String::from("receipts-document-v1\n");
    let mut field =
        |name: &str, value: Option<String>| canonical_field(&mut canonical, name, value.as_deref());
    field("kind", Some("receipt".into()));
    field("number", o.receipt_number.clone());
    field("order", Some(o.id.to_string()));
    field("order_kind", Some(o.kind.clone()));
    field("strung_at", o.strung_at.map(micros));
    field("customer", o.customer.clone());
    field("customer_address", o.customer_address.clone());
    field("customer_postal", o.customer_postal.clone());
    field("customer_note", o.customer_note.clone());
    field("racket", o.racket.clone());
    field("string", o.string.clone());
    field("cross_string", o.cross_string.clone());
    field("tension", o.tension.clone());
    field("own_string", Some(o.own_string.to_string()));
    field("price_minor", text(o.price_minor));
    field("items_minor", Some(o.items_minor.to_string()));
    field("currency", Some(o.currency.clone()));
    field("vat_rate_bp", text(o.vat_rate_bp));
    field("issuer", text(o.issuer_id));
    for (position, price, item) in items {
        field("item", Some(format!("{position} {price} {item}")));
    }
    if let Some(i) = issuer {
        field("issuer_name", Some(i.name.clone()));
        field("issuer_address", i.address.clone());
        field("issuer_email", i.email.clone());
        field("issuer_phone", i.phone.clone());
        field("issuer_vat_number", i.vat_number.clone());
        field("issuer_tax_number", i.tax_number.clone());
        field("issuer_small_business", Some(i.small_business.to_string()));
        field("issuer_language", i.language.clone());
        field("issuer_street", i.street.clone());
        field("issuer_house_number", i.house_number.clone());
        field("issuer_postcode", i.postcode.clone());
        field("issuer_town", i.town.clone());
        field("issuer_country", i.country.clone());
        field("issuer_iban", i.iban.clone());
        field("issuer_bic", i.bic.clone());
        field("issuer_payment_days", Some(i.payment_days.to_string()));
        field("issuer_siret", i.siret.clone());
        field("issuer_account_holder", i.account_holder.clone());
    }
    // Only when there are any: documents without them hash as they did before they existed.
    if o.customer_business.is_some() {
        field("customer_business", o.customer_business.clone());
    }
    canonical
}

fn credit_canonical(c: &Credited) -> String {
    let mut canonical = String::from("receipts-document-v1\n");
    let mut field =
        |name: &str, value: Option<String>| canonical_field(&mut canonical, name, value.as_deref());
    field("kind", Some("credit_note".into()));
    field("number", Some(c.credit_number.clone()));
    field("order", text(c.order_id));
    field("issued_at", Some(micros(c.issued_at)));
    field("amount_minor", Some(c.amount_minor.to_string()));
    field("currency", Some(c.currency.clone()));
    field("vat_rate_bp", text(c.vat_rate_bp));
    field("vat_minor", Some(c.vat_minor.to_string()));
    field("reason", Some(c.reason.clone()));
    field("refund_method", Some(c.refund_method.clone()));
    field("issuer", text(c.issuer_id));
    field("credited_before_minor", Some(c.credited_before_minor.to_string()));
    field("completes", Some(c.completes.to_string()));
    canonical
}
