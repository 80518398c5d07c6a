//! `receipts receipt`: a document as text or PDF/A, or every document of a year into a
//! folder.

use super::output;
use super::{one_of, Context, StringerOpt};
use crate::db::receipts::Options;
use crate::db::{Access, Db, Tenant};
use crate::domain::Language;
use crate::files::Written;
use crate::ops::documents::{self, YearForm};
use crate::ops::einvoices::{self, Form};
use crate::receipt::Receipt;
use crate::receipt::{pdf, text};
use crate::Error;
use clap::Args;
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Debug, Args)]
#[group(id = "which", required = true, multiple = false, args = ["order", "year"])]
pub struct Opts {
    /// The order: its id, or its receipt number (YYYY-NNNN, with --stringer); or a credit
    /// note's number (C-YYYY-NNNN)
    #[arg(value_name = "ORDER")]
    order: Option<String>,
    /// Every receipt of this year instead, as PDF files in --out-dir
    #[arg(long, requires = "out_dir")]
    year: Option<i32>,
    /// Where --year writes its files: DIR/<handle>-<number>.pdf
    #[arg(long, value_name = "DIR", requires = "year")]
    out_dir: Option<PathBuf>,
    /// Write to this file (- for stdout); a PDF needs it. --format defaults to pdf when the
    /// name ends in .pdf
    #[arg(short, long, value_name = "FILE", conflicts_with = "year")]
    output: Option<PathBuf>,
    /// Language of the receipt [default: the stringer's, else English]
    #[arg(long, value_parser = one_of::<Language>(super::names::<Language>()))]
    lang: Option<Language>,
    /// Mark it as a copy (a re-issue the customer asked for)
    #[arg(long)]
    copy: bool,
    /// Columns of a text receipt (at least 32; 48 or 42 for receipt printers)
    #[arg(long, default_value_t = text::DEFAULT_WIDTH, value_parser = clap::value_parser!(u16).range(i64::from(text::MIN_WIDTH)..=1000))]
    width: u16,
    #[command(flatten)]
    stringer: StringerOpt,
    /// text for a terminal or a receipt printer, or pdf (PDF/A) [default: pdf when -o ends in
    /// .pdf, else text]
    #[arg(long, value_enum, conflicts_with = "year")]
    format: Option<Document>,
    /// Write the PDF as an e-invoice: PDF/A-3 with its Factur-X (EN 16931) XML embedded;
    /// refused when the document cannot be one (with --year: each that can be one)
    /// [default: as `stringer edit --einvoice` says]
    #[arg(long, conflicts_with = "no_einvoice")]
    einvoice: bool,
    /// Write a plain PDF, whatever the stringer's default
    #[arg(long)]
    no_einvoice: bool,
    /// Write the Factur-X (EN 16931 CII) XML alone to this file (- for stdout)
    #[arg(long, value_name = "FILE", conflicts_with_all = ["year", "output", "format", "einvoice", "no_einvoice"])]
    xml: Option<PathBuf>,
}

/// What `receipt` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Document {
    Text,
    Pdf,
}

pub fn run(opts: Opts, ctx: &Context) -> anyhow::Result<()> {
    let options = Options { language: opts.lang, copy: opts.copy };
    if let (Some(year), Some(dir)) = (opts.year, &opts.out_dir) {
        // Hybrids written are journaled.
        let mut db = ctx.open(Access::Write)?;
        let tenant = opts.stringer.whose().optional(&mut db)?;
        let form = match (opts.einvoice, opts.no_einvoice) {
            (true, _) => YearForm::Hybrid,
            (_, true) => YearForm::Plain,
            _ => YearForm::Default,
        };
        return write_year(&mut db, tenant.as_ref(), year, options, dir, form);
    }
    let mut db = ctx.open(Access::Read)?;
    let named = opts.order.as_deref().unwrap_or_default();
    let (tenant, receipt) = documents::named(&mut db, opts.stringer.whose(), named, options)?;
    if let Some(path) = &opts.xml {
        let bytes = Form::FacturX.render(&receipt)?;
        return write_einvoice(ctx, &tenant, &receipt, Form::FacturX, &bytes, path);
    }
    if let Some(limit) = missing_customer_address(&receipt) {
        eprintln!(
            "warning: receipt {} is above {limit} and names no customer address, which the documents of a \
             VAT-registered business above it must (`receipts order add --customer-address ...`)",
            receipt.number
        );
    }
    let pdf_file =
        opts.output.as_deref().is_some_and(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("pdf")));
    let format = opts.format.unwrap_or(if pdf_file { Document::Pdf } else { Document::Text });
    let bytes = match format {
        Document::Pdf if opts.output.is_none() => {
            return Err(Error::Usage(
                "a PDF receipt goes to a file: pass -o FILE.pdf (or -o - for stdout)".into(),
            )
            .into())
        }
        Document::Pdf => {
            let hybrid = opts.einvoice
                || (!opts.no_einvoice && einvoices::hybrid_by_default(&mut db, &tenant, &receipt)?);
            if hybrid {
                let bytes = Form::Hybrid.render(&receipt)?;
                let path = opts.output.as_deref().unwrap_or(Path::new("-"));
                return write_einvoice(ctx, &tenant, &receipt, Form::Hybrid, &bytes, path);
            }
            pdf::render(&receipt)?
        }
        Document::Text if opts.einvoice => {
            return Err(Error::Usage("an e-invoice is a PDF: pass -o FILE.pdf with --einvoice".into()).into())
        }
        Document::Text => text::render(&receipt, opts.width).into_bytes(),
    };
    match opts.output.as_deref() {
        None => super::output::Stdout.write_all(&bytes)?,
        Some(path) if path == Path::new("-") => {
            let mut out = super::output::Stdout;
            out.write_all(&bytes)?;
            out.flush()?;
        }
        Some(path) => {
            crate::files::write_new(path, &bytes, "a receipt")?;
            let what = if receipt.credit.is_some() { "credit note" } else { "receipt" };
            eprintln!("wrote {what} {} of {} to {}", receipt.shown_number(), tenant.handle(), path.display());
        }
    }
    Ok(())
}

/// Writes an e-invoice (to stdout for `-`) and journals it.
fn write_einvoice(
    ctx: &Context,
    tenant: &Tenant,
    receipt: &Receipt,
    form: Form,
    bytes: &[u8],
    path: &Path,
) -> anyhow::Result<()> {
    let mut db = ctx.open(Access::Write)?;
    if path == Path::new("-") {
        let mut out = super::output::Stdout;
        out.write_all(bytes)?;
        out.flush()?;
        einvoices::journal(&mut db, tenant, receipt, form, bytes, "-")?;
        return Ok(());
    }
    einvoices::write(&mut db, tenant, receipt, form, bytes, path, "an e-invoice")?;
    eprintln!(
        "wrote {} {} of {} to {}",
        form.description(),
        receipt.shown_number(),
        tenant.handle(),
        path.display()
    );
    Ok(())
}

/// One PDF per receipt of the year (`ops::documents::write_year`), each that could not be
/// written named, the others written all the same.
fn write_year(
    db: &mut Db,
    tenant: Option<&Tenant>,
    year: i32,
    options: Options,
    dir: &Path,
    form: YearForm,
) -> anyhow::Result<()> {
    let files = documents::write_year(db, tenant, year, options, dir, form)?
        .into_iter()
        .map(|(handle, number, outcome)| {
            (format!("receipt {number} of {handle}"), format!("{handle} {number}"), outcome)
        })
        .collect();
    report_year(files, "receipt", year, dir, "receipt --year")
}

/// Says what became of each file of a year (`what` names it and the named one, for an
/// error, and for the list of those that failed), and fails when one could not be written
/// or differs from the file there.
pub(super) fn report_year(
    files: Vec<(String, String, Result<Written, Error>)>,
    noun: &str,
    year: i32,
    dir: &Path,
    command: &'static str,
) -> anyhow::Result<()> {
    let total = files.len();
    let (mut written, mut same) = (0usize, 0usize);
    let (mut differing, mut failed) = (Vec::new(), Vec::new());
    for (what, named, outcome) in files {
        match outcome {
            Ok(Written::New) => written += 1,
            Ok(Written::Same) => same += 1,
            Ok(Written::Differs(path)) => differing.push(path),
            Err(e) => {
                eprintln!("error: {what} was not written: {e}");
                failed.push(named);
            }
        }
    }
    eprintln!(
        "{} of {year} in {}: {written} written, {same} unchanged, {} left alone because they differ, {} failed",
        output::count(total, noun),
        dir.display(),
        differing.len(),
        failed.len()
    );
    if let Some(first) = failed.first() {
        return Err(Error::NotAll { count: failed.len(), first: first.clone(), sending: false }.into());
    }
    if let Some(first) = differing.first() {
        return Err(Error::OutputExists {
            path: match differing.len() {
                1 => first.clone(),
                n => format!("{first} (and {} more)", n - 1),
            },
            what: command,
        }
        .into());
    }
    Ok(())
}

/// The small-amount limit (CHF 400, EUR 250) a VAT-registered stringer's receipt is above
/// without naming the customer's address (Swiss MWSTV art. 57, German § 33 UStDV).
fn missing_customer_address(receipt: &crate::receipt::Receipt) -> Option<&'static str> {
    let amount = receipt.amount.as_ref()?;
    let named = receipt.customer.is_some() && !receipt.customer_address.is_empty();
    let limit = crate::domain::address_limit_passed(amount.currency.as_str(), amount.minor)?;
    (receipt.vat.is_some() && !named).then_some(limit)
}
