//! The documents as files: one receipt read for printing, or every receipt of a year
//! rendered on every core and written into a folder (never over a different file).

use crate::db::receipts::{self, Options};
use crate::db::{Db, Tenant};
use crate::domain::EinvoiceDefault;
use crate::domain::{CreditNumber, OrderId, ReceiptNumber};
use crate::error::Error;
use crate::files::Written;
use crate::ops::einvoices;
use crate::ops::Whose;
use crate::receipt::Receipt;
use std::collections::HashMap;
use std::num::NonZeroUsize;
use std::path::Path;
use std::sync::{mpsc, Mutex};
use std::thread;

/// One receipt, as its document shows it.
pub fn receipt(db: &mut Db, tenant: &Tenant, order: OrderId, options: Options) -> Result<Receipt, Error> {
    db.read(|conn| receipts::receipt(conn, tenant, order, options))
}

/// One credit note, as its document shows it.
pub fn credit_note(
    db: &mut Db,
    tenant: &Tenant,
    number: CreditNumber,
    options: Options,
) -> Result<Receipt, Error> {
    db.read(|conn| receipts::credit_note(conn, tenant, number, options))
}

/// The document named on a command line: a credit note by its number (C-YYYY-NNNN), else
/// the receipt of the order named by its id or receipt number; and whose it is.
pub fn named(db: &mut Db, whose: Whose, named: &str, options: Options) -> Result<(Tenant, Receipt), Error> {
    match named.parse::<CreditNumber>() {
        Ok(number) => {
            let tenant = whose.required(db)?;
            let note = credit_note(db, &tenant, number, options)?;
            Ok((tenant, note))
        }
        Err(_) => {
            let (tenant, order) = whose.order_named(db, named)?;
            let receipt = receipt(db, &tenant, order, options)?;
            Ok((tenant, receipt))
        }
    }
}

/// What became of one receipt of the year: (stringer, number, written or why not).
pub type YearFile = (String, ReceiptNumber, Result<Written, Error>);

/// Which PDFs `receipt --year` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum YearForm {
    /// As each stringer's `--einvoice` setting says.
    Default,
    /// Every document that can be an e-invoice as the hybrid, the others plain.
    Hybrid,
    /// Plain PDFs only.
    Plain,
}

/// One PDF per receipt of the year, rendered and written on every core as the receipts are
/// read (one transaction, in this thread; a short queue between them keeps memory flat). A
/// file that exists is left alone when it is the same, and never overwritten when it
/// differs. Each receipt's outcome is returned in the order read; one that cannot be
/// written does not stop the others.
pub fn write_year(
    db: &mut Db,
    tenant: Option<&Tenant>,
    year: i32,
    options: Options,
    dir: &Path,
    form: YearForm,
) -> Result<Vec<YearFile>, Error> {
    std::fs::create_dir_all(dir)
        .map_err(|e| Error::InputFile(format!("cannot create {}: {e}", dir.display())))?;
    let settings: HashMap<String, EinvoiceDefault> = db
        .read(crate::db::stringers::list)?
        .into_iter()
        .map(|stringer| (stringer.handle, stringer.einvoice))
        .collect();
    let setting = |handle: &str| match form {
        YearForm::Default => settings.get(handle).copied().unwrap_or_default(),
        YearForm::Hybrid => EinvoiceDefault::Yes,
        YearForm::Plain => EinvoiceDefault::No,
    };
    let hybrids = Mutex::new(Vec::new());
    let workers = thread::available_parallelism().map_or(1, NonZeroUsize::get);
    let (to_render, queue) = mpsc::sync_channel::<(usize, String, Receipt)>(2 * workers);
    let queue = Mutex::new(queue);
    let (to_report, reports) = mpsc::channel();
    let read = thread::scope(|scope| {
        for _ in 0..workers {
            let (queue, to_report, hybrids) = (&queue, to_report.clone(), &hybrids);
            scope.spawn(move || loop {
                // Its own statement: the queue is unlocked while the receipt renders.
                let next = queue.lock().map_err(drop).and_then(|queue| queue.recv().map_err(drop));
                let Ok((index, handle, receipt)) = next else { break };
                let outcome = write_one(dir, &handle, &receipt, setting(&handle), hybrids);
                let _ = to_report.send((index, handle, receipt.number, outcome));
            });
        }
        drop(to_report);
        let mut index = 0;
        let read = db.read(|conn| {
            receipts::for_each_of_year(conn, tenant, year, options, |handle, receipt| {
                index += 1;
                // Refused only when every worker is gone, which the read need not outlive.
                to_render.send((index, handle.to_string(), receipt)).map_err(|_| Error::Internal {
                    what: "the receipts could not be rendered",
                    detail: "no worker left".into(),
                })
            })
        });
        drop(to_render);
        read
    });
    let mut reports: Vec<_> = reports.into_iter().collect();
    reports.sort_unstable_by_key(|(index, ..)| *index);
    read?;
    journal_hybrids(db, hybrids.into_inner().unwrap_or_default())?;
    Ok(reports.into_iter().map(|(_, handle, number, outcome)| (handle, number, outcome)).collect())
}

/// A hybrid written by `write_year`: whose, the document, where, and the file's SHA-256
/// (kept instead of its bytes, which could be many).
type Hybrid = (String, Receipt, std::path::PathBuf, String);

/// The new hybrids journaled in one transaction; if that fails, their files are taken back.
fn journal_hybrids(db: &mut Db, hybrids: Vec<Hybrid>) -> Result<(), Error> {
    if hybrids.is_empty() {
        return Ok(());
    }
    let tenants: HashMap<String, Tenant> = db.read(|conn| {
        let handles: std::collections::BTreeSet<&String> =
            hybrids.iter().map(|(handle, ..)| handle).collect();
        handles.into_iter().map(|handle| Ok((handle.clone(), Tenant::load(conn, handle)?))).collect()
    })?;
    let journaled = db.write(|conn| {
        for (handle, receipt, path, sha256) in &hybrids {
            let name = path.display().to_string();
            einvoices::record(conn, &tenants[handle], receipt, einvoices::Form::Hybrid, sha256, &name)?;
        }
        Ok(())
    });
    if journaled.is_err() {
        for (_, _, path, _) in &hybrids {
            let _ = std::fs::remove_file(path);
        }
    }
    journaled
}

/// Renders one receipt of the year into DIR/<handle>-<number>.pdf: the hybrid when
/// `setting` has it so (a new one kept in `hybrids` to be journaled).
fn write_one(
    dir: &Path,
    handle: &str,
    receipt: &Receipt,
    setting: EinvoiceDefault,
    hybrids: &Mutex<Vec<Hybrid>>,
) -> Result<Written, Error> {
    let path = dir.join(crate::receipt::file_name(handle, &receipt.number));
    let (bytes, hybrid) = einvoices::default_pdf(setting, receipt)?;
    match std::fs::read(&path) {
        Ok(existing) if existing == bytes => Ok(Written::Same),
        Ok(_) => Ok(Written::Differs(path.display().to_string())),
        Err(_) => {
            crate::files::write_new(&path, &bytes, "receipts")?;
            if hybrid {
                let mut hybrids = hybrids.lock().map_err(|_| Error::Internal {
                    what: "the receipts could not be rendered",
                    detail: "a worker failed".into(),
                })?;
                hybrids.push((handle.to_string(), receipt.clone(), path, einvoices::sha256(&bytes)));
            }
            Ok(Written::New)
        }
    }
}
