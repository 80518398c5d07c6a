//! E-invoices as files (SPEC 24): the document rendered as data, written, and journaled
//! (an `einvoice` entry with the file's SHA-256) in the transaction that sees it written.

use crate::db::events::{self, Event};
use crate::db::{stringers, Db, DbConn, Tenant};
use crate::domain::journal::hex;
use crate::domain::{EinvoiceDefault, OrderId};
use crate::einvoice;
use crate::error::Error;
use crate::receipt::Receipt;
use sha2::{Digest, Sha256};
use std::path::Path;

/// The forms an e-invoice is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// The PDF/A-3 with its Factur-X XML embedded.
    Hybrid,
    /// The Factur-X (CII) XML alone.
    FacturX,
}

impl Form {
    /// The journal's name of the form (the field of its entry; a credit note's starts with
    /// `credit_`, as `events::CREDIT_EINVOICE` reads it).
    fn field(self, credit: bool) -> &'static str {
        match (self, credit) {
            (Form::Hybrid, false) => "facturx_pdf",
            (Form::Hybrid, true) => "credit_facturx_pdf",
            (Form::FacturX, false) => "facturx_xml",
            (Form::FacturX, true) => "credit_facturx_xml",
        }
    }

    /// The document in this form, refused (naming the field) when it cannot be an e-invoice.
    pub fn render(self, receipt: &Receipt) -> Result<Vec<u8>, Error> {
        match self {
            Form::Hybrid => einvoice::hybrid::render(receipt),
            Form::FacturX => einvoice::check(receipt).map(|()| einvoice::cii::render(receipt)),
        }
    }
}

/// The stringer's default: whether the PDF of `receipt` is a hybrid unless a command says.
/// A document that cannot be an e-invoice stays a plain PDF by default (asked for, it is
/// refused instead).
pub fn hybrid_by_default(db: &mut Db, tenant: &Tenant, receipt: &Receipt) -> Result<bool, Error> {
    let setting: EinvoiceDefault = db.read(|conn| stringers::profile(conn, tenant))?.einvoice;
    Ok(setting.for_buyer(&receipt.buyer) && einvoice::check(receipt).is_ok())
}

/// Writes `bytes`, the e-invoice of `order`'s document in `form`, to `path`, and journals
/// it in the same transaction: a file that could not be written is not journaled, and a
/// journal entry that could not be made leaves no file. A file there already with the same
/// bytes is left as it is, and not journaled again.
#[allow(clippy::too_many_arguments)]
pub fn write(
    db: &mut Db,
    tenant: &Tenant,
    order: OrderId,
    receipt: &Receipt,
    form: Form,
    bytes: &[u8],
    path: &Path,
    what: &'static str,
) -> Result<(), Error> {
    let mut written_new = false;
    let outcome = db.write(|conn| {
        written_new = crate::files::write_new_or_same(path, bytes)
            .map_err(|e| crate::files::cannot_write(path, e, what))?;
        match written_new {
            true => record(conn, tenant, order, receipt, form, bytes, &path.display().to_string()),
            false => Ok(()),
        }
    });
    if outcome.is_err() && written_new {
        let _ = std::fs::remove_file(path);
    }
    outcome
}

/// Journals `bytes`, handed out as `name` (standard output, a download), as the e-invoice
/// of `order`'s document in `form`.
pub fn journal(
    db: &mut Db,
    tenant: &Tenant,
    order: OrderId,
    receipt: &Receipt,
    form: Form,
    bytes: &[u8],
    name: &str,
) -> Result<(), Error> {
    db.write(|conn| record(conn, tenant, order, receipt, form, bytes, name))
}

fn record(
    conn: &mut DbConn,
    tenant: &Tenant,
    order: OrderId,
    receipt: &Receipt,
    form: Form,
    bytes: &[u8],
    name: &str,
) -> Result<(), Error> {
    let sha256 = hex(&Sha256::digest(bytes));
    let number = receipt.credit.as_ref().map_or(receipt.number, |credit| credit.number.0);
    let field = form.field(receipt.credit.is_some());
    events::record(conn, &Event::einvoice(tenant.id(), order, number, field, name, &sha256))?;
    Ok(())
}
