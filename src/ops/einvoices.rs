//! E-invoices as files (SPEC 24): the document rendered as data, written, and journaled
//! (an `einvoice` entry with the file's SHA-256) in the transaction that sees it written.

use crate::db::events::{self, Event};
use crate::db::{stringers, Db, DbConn, Tenant};
use crate::domain::journal::hex;
use crate::domain::EinvoiceDefault;
use crate::einvoice;
use crate::error::Error;
use crate::files::Written;
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
    /// FatturaPA XML, for a stringer in Italy.
    FatturaPa,
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
            (Form::FatturaPa, false) => "fatturapa",
            (Form::FatturaPa, true) => "credit_fatturapa",
        }
    }

    /// What the form is, for people.
    pub fn description(self) -> &'static str {
        match self {
            Form::Hybrid => "e-invoice (PDF/A-3 with Factur-X EN 16931)",
            Form::FacturX => "Factur-X XML (EN 16931)",
            Form::FatturaPa => "FatturaPA XML",
        }
    }

    /// The document in this form, refused (naming the field) when it cannot be an e-invoice.
    pub fn render(self, receipt: &Receipt) -> Result<Vec<u8>, Error> {
        match self {
            Form::Hybrid => einvoice::hybrid::render(receipt),
            Form::FacturX => einvoice::check(receipt).map(|()| einvoice::cii::render(receipt)),
            Form::FatturaPa => {
                einvoice::fatturapa::check(receipt).map(|()| einvoice::fatturapa::render(receipt))
            }
        }
    }
}

/// The stringer's default: whether the PDF of `receipt` is a hybrid unless a command says.
/// A document that cannot be an e-invoice stays a plain PDF by default (asked for, it is
/// refused instead).
pub fn hybrid_by_default(db: &mut Db, tenant: &Tenant, receipt: &Receipt) -> Result<bool, Error> {
    let setting = db.read(|conn| stringers::profile(conn, tenant))?.einvoice;
    Ok(is_hybrid(setting, receipt))
}

/// Whether `setting` makes the PDF of `receipt` a hybrid (when it can be one).
pub fn is_hybrid(setting: EinvoiceDefault, receipt: &Receipt) -> bool {
    setting.for_buyer(&receipt.buyer) && einvoice::check(receipt).is_ok()
}

/// The PDF of `receipt` as `setting` has it handed out (`send`, the counter's links): the
/// hybrid or the plain one; and whether it is the hybrid.
pub fn default_pdf(setting: EinvoiceDefault, receipt: &Receipt) -> Result<(Vec<u8>, bool), Error> {
    match is_hybrid(setting, receipt) {
        true => Form::Hybrid.render(receipt).map(|pdf| (pdf, true)),
        false => crate::receipt::pdf::render(receipt).map(|pdf| (pdf, false)),
    }
}

/// Writes `bytes`, the e-invoice of `order`'s document in `form`, to `path`, and journals
/// it in the same transaction: a file that could not be written is not journaled, and a
/// journal entry that could not be made leaves no file. A file there already with the same
/// bytes is left as it is, and not journaled again.
#[allow(clippy::too_many_arguments)]
pub fn write(
    db: &mut Db,
    tenant: &Tenant,
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
            true => record(conn, tenant, receipt, form, &sha256(bytes), &path.display().to_string()),
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
    receipt: &Receipt,
    form: Form,
    bytes: &[u8],
    name: &str,
) -> Result<(), Error> {
    db.write(|conn| record(conn, tenant, receipt, form, &sha256(bytes), name))
}

/// The journal's `einvoice` entry of `receipt`'s document written in `form` as `name`, its
/// file's digest `sha256`.
pub(crate) fn record(
    conn: &mut DbConn,
    tenant: &Tenant,
    receipt: &Receipt,
    form: Form,
    sha256: &str,
    name: &str,
) -> Result<(), Error> {
    let number = receipt.credit.as_ref().map_or(receipt.number, |credit| credit.number.0);
    let field = form.field(receipt.credit.is_some());
    events::record(conn, &Event::einvoice(tenant.id(), receipt.order, number, field, name, sha256))?;
    Ok(())
}

/// A file's SHA-256, as the journal keeps it.
pub fn sha256(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// The FatturaPA files of every document of the stringer's `year` (its invoices and
/// receipts, then its credit notes) into `dir`, each named as SdI wants it, each new one
/// journaled. A file there already is left alone: kept when the same, never overwritten when
/// it differs. The stringer's own rackets and void orders are no invoices and are left out;
/// a document refused (a buyer SdI cannot reach) is reported and does not stop the others.
pub fn write_year(db: &mut Db, tenant: &Tenant, year: i32, dir: &Path) -> Result<Vec<YearFile>, Error> {
    std::fs::create_dir_all(dir)
        .map_err(|e| Error::InputFile(format!("cannot create {}: {e}", dir.display())))?;
    let options = crate::db::receipts::Options::default();
    let documents = db.read(|conn| {
        let mut documents = Vec::new();
        crate::db::receipts::for_each_of_year(conn, Some(tenant), year, options, |_, receipt| {
            if !receipt.own && receipt.void_reason.is_none() {
                documents.push(receipt);
            }
            Ok(())
        })?;
        for note in crate::db::credits::of_year(conn, tenant, year)? {
            if note.order.is_some() {
                documents.push(crate::db::receipts::credit_note(conn, tenant, note.number, options)?);
            }
        }
        Ok(documents)
    })?;
    // Written on every core: the files' fsyncs, not the rendering, are what a year costs.
    let workers = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    let chunk = documents.len().div_ceil(workers).max(1);
    let outcomes: Vec<Outcome> = std::thread::scope(|scope| {
        let handles: Vec<_> = documents
            .chunks(chunk)
            .map(|part| {
                let worker = scope.spawn(move || {
                    part.iter().map(|receipt| write_fatturapa(dir, receipt)).collect::<Vec<_>>()
                });
                (part.len(), worker)
            })
            .collect();
        // A worker that failed leaves each of its documents failed, in its place.
        let failed =
            || (Err(Error::Internal { what: "the FatturaPA files", detail: "a worker failed".into() }), None);
        handles
            .into_iter()
            .flat_map(|(count, worker)| {
                worker.join().unwrap_or_else(|_| (0..count).map(|_| failed()).collect())
            })
            .collect()
    });
    let fresh: Vec<(&Receipt, &(std::path::PathBuf, String))> = documents
        .iter()
        .zip(&outcomes)
        .filter_map(|(receipt, (_, new))| new.as_ref().map(|new| (receipt, new)))
        .collect();
    // The new files journaled in one transaction; if that fails, they are taken back.
    let journaled = db.write(|conn| {
        for (receipt, (path, sha256)) in &fresh {
            let number = receipt.credit.as_ref().map_or(receipt.number, |credit| credit.number.0);
            let field = Form::FatturaPa.field(receipt.credit.is_some());
            let name = path.display().to_string();
            events::record(conn, &Event::einvoice(tenant.id(), receipt.order, number, field, &name, sha256))?;
        }
        Ok(())
    });
    if let Err(e) = journaled {
        for (_, (path, _)) in &fresh {
            let _ = std::fs::remove_file(path);
        }
        return Err(e);
    }
    Ok(documents
        .iter()
        .zip(outcomes)
        .map(|(receipt, (outcome, _))| (receipt.shown_number(), outcome))
        .collect())
}

/// What became of one document's file, and for a new one its path and SHA-256.
type Outcome = (Result<Written, Error>, Option<(std::path::PathBuf, String)>);

/// Renders one document as FatturaPA into `dir`, never over a different file.
fn write_fatturapa(dir: &Path, receipt: &Receipt) -> Outcome {
    let bytes = match Form::FatturaPa.render(receipt) {
        Ok(bytes) => bytes,
        Err(e) => return (Err(e), None),
    };
    let path = dir.join(einvoice::fatturapa::file_name(receipt));
    match crate::files::write_new_or_same(&path, &bytes) {
        Ok(true) => (Ok(Written::New), Some((path, sha256(&bytes)))),
        Ok(false) => (Ok(Written::Same), None),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            (Ok(Written::Differs(path.display().to_string())), None)
        }
        Err(e) => (Err(crate::files::cannot_write(&path, e, "a FatturaPA file")), None),
    }
}

/// What became of one document of the year: its number, and written or why not.
pub type YearFile = (String, Result<Written, Error>);

/// The PDF of `receipt` as the stringer hands it out by default (the counter's links): the
/// hybrid, journaled as handed out under `name`, or the plain one.
pub fn handed_out(db: &mut Db, tenant: &Tenant, receipt: &Receipt, name: &str) -> Result<Vec<u8>, Error> {
    let setting = db.read(|conn| stringers::profile(conn, tenant))?.einvoice;
    let (pdf, hybrid) = default_pdf(setting, receipt)?;
    if hybrid {
        journal(db, tenant, receipt, Form::Hybrid, &pdf, &format!("{name} (downloaded)"))?;
    }
    Ok(pdf)
}

/// The e-invoice of `receipt` as its country has it, journaled as downloaded: FatturaPA XML
/// for an Italian stringer, the hybrid PDF for the others; with the file's name and type.
pub fn download(
    db: &mut Db,
    tenant: &Tenant,
    receipt: &Receipt,
) -> Result<(Vec<u8>, String, &'static str), Error> {
    let (form, name, mime) = match receipt.business.country.as_deref() {
        Some("IT") => (Form::FatturaPa, einvoice::fatturapa::file_name(receipt), "application/xml"),
        _ => (
            Form::Hybrid,
            crate::receipt::file_name(tenant.handle(), &receipt.shown_number()),
            "application/pdf",
        ),
    };
    let bytes = form.render(receipt)?;
    journal(db, tenant, receipt, form, &bytes, &format!("{name} (downloaded)"))?;
    Ok((bytes, name, mime))
}

/// What verifying the e-invoices written found: how many there are, and the first that no
/// longer matches its document (its journal entry's file and number).
#[derive(Debug, Default)]
pub struct Verified {
    pub count: usize,
    pub mismatch: Option<String>,
}

/// Each e-invoice the journal says was written, rendered again from its document as it
/// stands: its SHA-256 must be the one journaled, in one of the forms the program writes
/// (the document's language or another, a copy or not). A frozen field changed since, or
/// a file that was not the program's, shows here.
pub fn verify(db: &mut Db, tenant: &Tenant) -> Result<Verified, Error> {
    use crate::db::receipts::{self, Options};
    use crate::domain::{CreditNumber, Language, OrderId, Price, ReceiptNumber};
    use strum::VariantArray;
    db.read(|conn| {
        let written = crate::db::einvoices::written(conn, tenant, crate::db::einvoices::Which::All)?;
        let mut verified = Verified { count: written.len(), mismatch: None };
        for entry in written {
            let field = entry.form.clone().unwrap_or_default();
            let form = match field.trim_start_matches(events::CREDIT_EINVOICE) {
                "facturx_pdf" => Form::Hybrid,
                "facturx_xml" => Form::FacturX,
                _ => Form::FatturaPa,
            };
            let languages = std::iter::once(None).chain(Language::VARIANTS.iter().copied().map(Some));
            let order = OrderId(entry.order.unwrap_or_default());
            // The document as it stands, or the invoice as it stood before it was paid, with
            // each sum its part payments reached by then.
            let mut states = vec![None, Some(Price(0))];
            let parts =
                crate::db::part_payments::of(conn, tenant, &[order.0])?.remove(&order.0).unwrap_or_default();
            states.extend(parts.iter().scan(0, |sum, part| {
                *sum += part.amount_minor;
                Some(Some(Price(*sum)))
            }));
            let mut matches = false;
            'forms: for language in languages {
                for (copy, state) in
                    [false, true].into_iter().flat_map(|copy| states.iter().map(move |s| (copy, *s)))
                {
                    let options = Options { language, copy };
                    let document = match (field.starts_with(events::CREDIT_EINVOICE), entry.seq, state) {
                        (true, Some(seq), _) => {
                            let number = CreditNumber(ReceiptNumber::new(entry.year, seq));
                            receipts::credit_note(conn, tenant, number, options)
                        }
                        (_, _, Some(part_paid)) => {
                            receipts::invoice_before_payment(conn, tenant, order, part_paid, options)
                        }
                        _ => receipts::receipt(conn, tenant, order, options),
                    };
                    let rendered = document.and_then(|document| form.render(&document));
                    if rendered.is_ok_and(|bytes| entry.sha256.as_deref() == Some(sha256(&bytes).as_str())) {
                        matches = true;
                        break 'forms;
                    }
                }
            }
            if !matches {
                verified.mismatch = Some(format!(
                    "the e-invoice {} of {} no longer matches its document",
                    entry.file.as_deref().unwrap_or("-"),
                    entry.number()
                ));
                break;
            }
        }
        Ok(verified)
    })
}
