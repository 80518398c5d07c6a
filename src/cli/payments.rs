//! `receipts payments`: bank files imported, the transactions they listed, and settling
//! them.

use super::output::{self, Listed, Rows};
use super::{Context, StringerOpt};
use crate::db::listed_payments::ListedPayment;
use crate::db::payments::{Line, Outcome};
use crate::db::Access;
use crate::ops;
use crate::Error;
use clap::{Args, Subcommand};
use serde::Serialize;
use std::fs::File;
use std::io::BufReader;
use std::path::PathBuf;
use tabled::Tabled;

#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum Command {
    /// Mark invoices paid from a bank file (camt.054 notification or camt.053 statement):
    /// exact payments by their reference, each bank transaction once; everything else listed
    /// with its reason and remembered (exit 1 when any is new or still open)
    Import(ImportOpts),
    /// The bank transactions imports listed as needing attention, and whether they were
    /// settled
    List(ListOpts),
    /// Mark a listed bank transaction handled (a partial payment settled by hand, a double
    /// payment refunded), with the reason; journaled
    Settle(SettleOpts),
}

#[derive(Debug, Args)]
pub struct ImportOpts {
    /// The bank's ISO 20022 XML file (camt.053 or camt.054, versions 001.02 to 001.12)
    file: PathBuf,
    /// Change nothing: list what the import would do
    #[arg(long)]
    dry_run: bool,
    #[command(flatten)]
    stringer: StringerOpt,
    /// A table for people, JSON for scripts, or CSV for spreadsheets
    #[arg(long, value_enum, default_value_t)]
    format: Listed,
}

#[derive(Debug, Args)]
pub struct ListOpts {
    /// Only those not settled yet
    #[arg(long)]
    open: bool,
    #[command(flatten)]
    stringer: StringerOpt,
    /// A table for people, JSON for scripts, or CSV for spreadsheets
    #[arg(long, value_enum, default_value_t)]
    format: Listed,
}

#[derive(Debug, Args)]
pub struct SettleOpts {
    /// The bank's reference of the transaction, as `payments list` shows it
    #[arg(value_name = "BANK_REF")]
    bank_reference: String,
    /// How it was handled, for the journal
    #[arg(long)]
    reason: String,
    #[command(flatten)]
    stringer: StringerOpt,
}

/// One credit that carries one of this database's references.
#[derive(Serialize, Tabled)]
struct Row {
    stringer: String,
    receipt: String,
    #[tabled(display = "output::optional")]
    order: Option<i64>,
    amount: String,
    currency: String,
    booked_on: String,
    /// As the bank carries it.
    reference: String,
    bank_reference: String,
    #[tabled(skip)]
    outcome: &'static str,
    reason: String,
}

pub fn run(cmd: Command, ctx: &Context) -> anyhow::Result<()> {
    match cmd {
        Command::Import(opts) => import(opts, ctx),
        Command::List(opts) => list(opts, ctx),
        Command::Settle(opts) => settle(opts, ctx),
    }
}

fn import(opts: ImportOpts, ctx: &Context) -> anyhow::Result<()> {
    let name = opts.file.display().to_string();
    let file = File::open(&opts.file).map_err(|e| Error::cannot_read(&opts.file, &e))?;
    let mut db = ctx.open(if opts.dry_run { Access::Read } else { Access::Write })?;
    let only = opts.stringer.whose().optional(&mut db)?;
    let (message, report) =
        ops::payments::import(&mut db, BufReader::new(file), &name, only.as_ref(), opts.dry_run)?;

    // A table of nothing says nothing; scripts still get their empty list.
    if !(report.lines.is_empty() && opts.format == Listed::Table) {
        let mut rows = Rows::<Row>::new(opts.format.into());
        for line in &report.lines {
            rows.push(&row(line))?;
        }
        rows.finish()?;
    }
    eprintln!("{}", report.summary(&name, &message, opts.dry_run));
    let applied = report.count(Outcome::Applied);
    if applied == 0 && !opts.dry_run {
        eprintln!("nothing new was applied");
    } else if opts.dry_run {
        eprintln!("dry run: nothing was changed");
    }
    let attention = report.needing_attention();
    if attention > 0 {
        return Err(Error::PaymentsNeedAttention { file: name, count: attention }.into());
    }
    Ok(())
}

fn row(line: &Line) -> Row {
    Row {
        stringer: line.stringer.clone(),
        receipt: output::cell(line.receipt),
        order: line.order,
        amount: line.amount.to_string(),
        currency: line.currency.clone(),
        booked_on: line.booked_on.to_string(),
        reference: line.reference.clone(),
        bank_reference: line.bank_reference.clone(),
        outcome: line.outcome.as_str(),
        reason: line.reason(),
    }
}

/// One bank transaction an import listed.
#[derive(Serialize, Tabled)]
struct ListedRow {
    stringer: String,
    bank_reference: String,
    booked_on: String,
    receipt: String,
    #[tabled(display = "output::optional")]
    order: Option<i64>,
    amount: String,
    currency: String,
    #[tabled(skip)]
    reference: String,
    #[tabled(skip)]
    outcome: &'static str,
    reason: &'static str,
    listed_on: String,
    settled: String,
    #[tabled(skip)]
    file: String,
}

impl From<&ListedPayment> for ListedRow {
    fn from(listed: &ListedPayment) -> ListedRow {
        ListedRow {
            stringer: listed.stringer.clone(),
            bank_reference: listed.bank_reference.clone(),
            booked_on: listed.booked_on.to_string(),
            receipt: listed.receipt.to_string(),
            order: listed.order,
            amount: listed.amount.to_string(),
            currency: listed.currency.clone(),
            reference: listed.reference.clone(),
            outcome: listed.outcome.as_str(),
            reason: listed.outcome.reason(),
            listed_on: listed.earlier.listed_on.to_string(),
            settled: listed
                .earlier
                .settled
                .as_ref()
                .map(|(on, why)| format!("{on}: {why}"))
                .unwrap_or_default(),
            file: listed.file.clone(),
        }
    }
}

fn list(opts: ListOpts, ctx: &Context) -> anyhow::Result<()> {
    let mut db = ctx.open(Access::Read)?;
    let tenants = opts.stringer.whose().or_all(&mut db)?;
    let listed = ops::reports::listed_payments(&mut db, &tenants, opts.open)?;
    let rows: Vec<ListedRow> = listed.iter().map(ListedRow::from).collect();
    if rows.is_empty() && opts.format == Listed::Table {
        eprintln!(
            "{}",
            if opts.open { "no listed bank transaction is open" } else { "no bank transaction was listed" }
        );
        return Ok(());
    }
    output::rows(opts.format, &rows)?;
    Ok(())
}

fn settle(opts: SettleOpts, ctx: &Context) -> anyhow::Result<()> {
    let mut db = ctx.open(Access::Write)?;
    let tenants = opts.stringer.whose().or_all(&mut db)?;
    let settled = ops::payments::settle(&mut db, &tenants, &opts.bank_reference, &opts.reason)?;
    let reason = opts.reason.trim();
    eprintln!(
        "bank transaction {} ({} {} for receipt {} of {}) settled: {reason}",
        settled.bank_reference, settled.currency, settled.amount, settled.receipt, settled.stringer
    );
    Ok(())
}
