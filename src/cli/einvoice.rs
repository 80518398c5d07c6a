//! `receipts einvoice`: an Italian stringer's document as the FatturaPA file SdI takes, or
//! every document of a year into a folder.

use super::output;
use super::{Context, StringerOpt};
use crate::db::receipts::Options;
use crate::db::Access;
use crate::einvoice::fatturapa;
use crate::ops::documents;
use crate::ops::einvoices::{self, Form};
use clap::Args;
use std::path::PathBuf;

#[derive(Debug, Args)]
#[group(id = "which", required = true, multiple = false, args = ["order", "year"])]
pub struct Opts {
    /// The order: its id, or its receipt number (YYYY-NNNN, with --stringer); or a credit
    /// note's number (C-YYYY-NNNN)
    #[arg(value_name = "ORDER")]
    order: Option<String>,
    /// Every document of this year instead (invoices, receipts, then credit notes)
    #[arg(long, requires = "out_dir")]
    year: Option<i32>,
    /// Where the file goes, named IT{partita IVA}_{progressivo}.xml [default: the current
    /// directory]
    #[arg(long, value_name = "DIR")]
    out_dir: Option<PathBuf>,
    #[command(flatten)]
    stringer: StringerOpt,
}

pub fn run(opts: Opts, ctx: &Context) -> anyhow::Result<()> {
    let dir = opts.out_dir.unwrap_or_else(|| PathBuf::from("."));
    let mut db = ctx.open(Access::Write)?;
    if let Some(year) = opts.year {
        let tenant = opts.stringer.whose().required(&mut db)?;
        let files = einvoices::write_year(&mut db, &tenant, year, &dir)?
            .into_iter()
            .map(|(number, outcome)| (number.clone(), number, outcome))
            .collect();
        return super::receipt::report_year(files, "FatturaPA file", year, &dir, "einvoice --year");
    }
    let named = opts.order.as_deref().unwrap_or_default();
    let (tenant, receipt) = documents::named(&mut db, opts.stringer.whose(), named, Options::default())?;
    let bytes = Form::FatturaPa.render(&receipt)?;
    std::fs::create_dir_all(&dir)
        .map_err(|e| crate::Error::InputFile(format!("cannot create {}: {e}", dir.display())))?;
    let path = dir.join(fatturapa::file_name(&receipt));
    einvoices::write(&mut db, &tenant, &receipt, Form::FatturaPa, &bytes, &path, "einvoice")?;
    eprintln!("wrote FatturaPA of {} of {} to {}", receipt.shown_number(), tenant.handle(), path.display());
    output::line(&path.display().to_string())?;
    Ok(())
}
