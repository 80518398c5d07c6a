//! The tables of the auditor's export, as its `index.xml` describes them.

/// How a column's values read.
#[derive(Clone, Copy)]
pub(super) enum Kind {
    Text,
    /// A number with this many decimals.
    Number(u8),
    /// A day, DD.MM.YYYY.
    Day,
}

pub(super) struct Column {
    pub(super) name: &'static str,
    pub(super) description: &'static str,
    pub(super) kind: Kind,
}

const fn col(name: &'static str, description: &'static str, kind: Kind) -> Column {
    Column { name, description, kind }
}

/// A table of the export: its file, its columns (the first `keys` form its primary key) and
/// the table its first column refers to, if any.
pub(super) struct Table {
    pub(super) file: &'static str,
    pub(super) name: &'static str,
    pub(super) description: &'static str,
    pub(super) columns: &'static [Column],
    pub(super) keys: usize,
    pub(super) refers_to: Option<&'static str>,
}

use Kind::{Day, Number, Text};

pub(super) const DOCUMENTS: Table = Table {
    file: "documents.csv",
    name: "documents",
    description:
        "Receipts and invoices (numbered YYYY-NNNN) and credit notes (C-YYYY-NNNN) issued in the year",
    columns: &[
        col("number", "The document's number", Text),
        col("kind", "receipt, or credit_note", Text),
        col("status", "issued, or void (a receipt voided, the number kept)", Text),
        col("date", "The day it was issued", Day),
        col("issued_at", "When it was issued, local time with its offset (ISO 8601)", Text),
        col("order_id", "The order it documents", Number(0)),
        col("customer", "The customer as the document names them", Text),
        col("work", "Racket, string and tension, as printed", Text),
        col("amount", "The total, VAT included (negative for a credit note)", Number(2)),
        col("vat_rate", "The VAT rate in percent (empty without VAT)", Text),
        col("vat_amount", "The VAT the amount includes", Number(2)),
        col("net_amount", "The amount without VAT", Number(2)),
        col("currency", "ISO 4217", Text),
        col("paid_date", "The day it was paid (receipts)", Day),
        col("payment_method", "cash, card, twint, transfer, other, till (the shop's certified till)", Text),
        col("original", "A credit note's original (its number)", Text),
        col("reason", "Why it was voided, or credited", Text),
        col("check_value", "The check value the document prints (of its journal event's hash)", Text),
    ],
    keys: 1,
    refers_to: None,
};

const LINES: Table = Table {
    file: "document_lines.csv",
    name: "document_lines",
    description: "The lines each document prints: the stringing, then its items",
    columns: &[
        col("number", "The document's number", Text),
        col("position", "The line's place on the document", Number(0)),
        col("text", "What the line says", Text),
        col("amount", "The line's amount (negative for a credit note)", Number(2)),
    ],
    keys: 2,
    refers_to: Some("documents"),
};

const VAT: Table = Table {
    file: "document_vat.csv",
    name: "document_vat",
    description: "VAT per document and rate",
    columns: &[
        col("number", "The document's number", Text),
        col("vat_rate", "The VAT rate in percent", Text),
        col("gross", "The amount at this rate, VAT included", Number(2)),
        col("vat", "The VAT it includes", Number(2)),
        col("net", "The amount without VAT", Number(2)),
    ],
    keys: 2,
    refers_to: Some("documents"),
};

const PAYMENTS: Table = Table {
    file: "payments.csv",
    name: "payments",
    description: "Payments received for the year's documents, and money paid back (negative)",
    columns: &[
        col("number", "The document paid (or the credit note that paid back)", Text),
        col("date", "The day of the payment", Day),
        col("method", "cash, card, twint, transfer, other, till (taken by the shop's certified till)", Text),
        col("amount", "The amount paid (negative: paid back)", Number(2)),
        col("currency", "ISO 4217", Text),
        col("bank_reference", "The bank's reference of a transfer from a bank file", Text),
    ],
    keys: 0,
    refers_to: Some("documents"),
};

const JOURNAL: Table = Table {
    file: "journal.csv",
    name: "journal",
    description: "The chained journal of the year: each event with its place, its predecessor's hash and its own (docs/JOURNAL.md)",
    columns: &[
        col("seq", "The event's place in the stringer's chain", Number(0)),
        col("at", "When it was written (UTC, ISO 8601)", Text),
        col("kind", "mint, void, credit, edit, send, payment, pickup, closure, key, ...", Text),
        col("year", "The year of the numbers it is about", Number(0)),
        col("first_seq", "The first number's sequence", Number(0)),
        col("last_seq", "The last number's sequence", Number(0)),
        col("order_id", "The order", Number(0)),
        col("counter_old", "The counter before", Number(0)),
        col("counter_new", "The counter after", Number(0)),
        col("reason", "Why, as recorded", Text),
        col("field", "The field that changed", Text),
        col("old_value", "Its old value", Text),
        col("new_value", "Its new value", Text),
        col("document_hash", "SHA-256 of the document it issued, as printed", Text),
        col("prev_hash", "The previous event's hash", Text),
        col("hash", "SHA-256 of prev_hash, a newline and the event's canonical form", Text),
    ],
    keys: 1,
    refers_to: None,
};

const CLOSURES: Table = Table {
    file: "closures.csv",
    name: "closures",
    description: "The day's closures of the year: sums, perpetual grand totals, Ed25519 signature",
    columns: &[
        col("seq", "The closure's number, gapless", Number(0)),
        col("day", "The business day closed", Day),
        col("first_event_seq", "The first event covered", Number(0)),
        col("event_seq", "The last event covered", Number(0)),
        col("event_hash", "The last covered event's hash", Text),
        col("totals", "Canonical JSON: documents per series, currency, VAT rate; voids; payments", Text),
        col("grand_totals", "Canonical JSON: the perpetual grand totals", Text),
        col("previous", "The previous closure's digest", Text),
        col("digest", "SHA-256 of the closure's canonical form", Text),
        col("public_key", "The Ed25519 public key that signed it (hex)", Text),
        col("signature", "The Ed25519 signature of the canonical form (hex)", Text),
    ],
    keys: 1,
    refers_to: None,
};

const REMINDERS: Table = Table {
    file: "reminders.csv",
    name: "reminders",
    description:
        "Reminders of unpaid invoices issued in the year: not numbered documents, each an invoice's level",
    columns: &[
        col("number", "The invoice reminded (its number)", Text),
        col("level", "1 payment reminder, 2 second, 3 final", Number(0)),
        col("date", "The day it was issued", Day),
        col("issued_at", "When it was issued (ISO 8601, local time)", Text),
        col("open", "What the invoice still asked: its total less its credit notes", Number(2)),
        col("fee", "The fee of its level (outside the VAT base)", Number(2)),
        col("asked", "What it asked: the open amount and the fee", Number(2)),
        col("currency", "ISO 4217", Text),
        col("due", "Its new last day to pay", Day),
        col("delivered", "email, or post", Text),
        col("delivered_on", "The day it was first sent, or written for the post", Day),
        col("check", "The check value it prints (its journal event's hash)", Text),
    ],
    keys: 2,
    refers_to: Some("documents"),
};

const EINVOICES: Table = Table {
    file: "einvoices.csv",
    name: "einvoices",
    description:
        "E-invoices written of the year's documents (Factur-X, FatturaPA), as the journal recorded them",
    columns: &[
        col("number", "The document (its number; C- before a credit note's)", Text),
        col("written_at", "When it was written (ISO 8601, local time)", Text),
        col(
            "form",
            "facturx_pdf (the hybrid PDF), facturx_xml or fatturapa; credit_ before a credit note's",
            Text,
        ),
        col("file", "The file it was written as", Text),
        col("sha256", "The file's SHA-256", Text),
    ],
    keys: 2,
    refers_to: Some("documents"),
};

pub(super) const TABLES: [&Table; 8] =
    [&DOCUMENTS, &LINES, &VAT, &PAYMENTS, &REMINDERS, &JOURNAL, &CLOSURES, &EINVOICES];
