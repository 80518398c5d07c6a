use super::output::{self, Listed, Rows};
use super::{Context, StringerOpt};
use crate::bank;
use crate::db::payments::{Import, Line, Outcome, Report};
use crate::db::{Access, Loaded};
use crate::Error;
use clap::{Args, Subcommand};
use serde::Serialize;
use std::fs::File;
use std::io::BufReader;
use std::path::PathBuf;
use tabled::Tabled;

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Mark invoices paid from a bank file (camt.054 notification or camt.053 statement):
    /// exact payments by their reference, each bank transaction once; everything else listed
    /// with its reason (exit 1 when any needs attention)
    Import(ImportOpts),
}

#[derive(Debug, Args)]
pub struct ImportOpts {
    /// The bank's ISO 20022 XML file (camt.053 or camt.054, version 001.04 or 001.08)
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

/// One credit that carries one of this database's references.
#[derive(Serialize, Tabled)]
struct Row {
    stringer: String,
    receipt: String,
    order: String,
    amount: String,
    currency: String,
    booked_on: String,
    bank_reference: String,
    #[tabled(skip)]
    reference: String,
    #[tabled(skip)]
    outcome: &'static str,
    reason: &'static str,
}

pub fn run(cmd: Command, ctx: &Context) -> anyhow::Result<()> {
    match cmd {
        Command::Import(opts) => import(opts, ctx),
    }
}

fn import(opts: ImportOpts, ctx: &Context) -> anyhow::Result<()> {
    let name = opts.file.display().to_string();
    let file = File::open(&opts.file).map_err(|e| Error::cannot_read(&opts.file, &e))?;
    let mut db = ctx.open(if opts.dry_run { Access::Read } else { Access::Write })?;
    let only = opts.stringer.optional(&mut db)?;
    // One file, one transaction: an entry that cannot be read, however late, applies nothing.
    let work = |conn: &mut crate::db::DbConn| {
        crate::db::prepare_bulk(conn)?;
        let mut import = Import::new(conn, &name, only.as_ref(), opts.dry_run)?;
        let message = bank::read(BufReader::new(file), &name, |tx| import.push(conn, tx))?;
        Ok((message, import.finish(conn)?))
    };
    let (message, report) = if opts.dry_run { db.read(work)? } else { db.write(work)? };
    if !opts.dry_run && report.count(Outcome::Applied) > 0 {
        db.refresh_statistics(Loaded::Payments);
    }
    // What was judged from earlier imports (applied before, paid already) is reported only
    // once it is durable: a re-run after doubt may have read it from a restarted primary.
    if !opts.dry_run && report.lines.iter().any(|line| line.outcome != Outcome::Applied) {
        db.confirm_durable()?;
    }

    // A table of nothing says nothing; scripts still get their empty list.
    if !(report.lines.is_empty() && opts.format == Listed::Table) {
        let mut rows = Rows::<Row>::new(opts.format.into());
        for line in &report.lines {
            rows.push(&row(line))?;
        }
        rows.finish()?;
    }
    eprintln!("{}", summary(&name, &message, &report, opts.dry_run));
    let applied = report.count(Outcome::Applied);
    let attention = report.needing_attention();
    if applied == 0 && !opts.dry_run {
        eprintln!("nothing new was applied");
    } else if opts.dry_run {
        eprintln!("dry run: nothing was changed");
    }
    if attention > 0 {
        return Err(Error::Refused(format!(
            "{} of {name} could not be applied (see the reasons listed): nothing was changed for {}",
            output::count(attention, "payment"),
            if attention == 1 { "it" } else { "them" }
        ))
        .into());
    }
    Ok(())
}

/// "bank.xml (camt.054.001.08): 4 transactions, 2 applied, 1 debit ignored"
fn summary(name: &str, message: &str, report: &Report, dry_run: bool) -> String {
    let applied = report.count(Outcome::Applied);
    let earlier = report.count(Outcome::AlreadyApplied);
    let attention = report.needing_attention();
    let mut said = vec![format!("{name} ({message}): {}", output::count(report.transactions, "transaction"))];
    said.push(if dry_run { format!("{applied} would be applied") } else { format!("{applied} applied") });
    if earlier > 0 {
        said.push(format!("{earlier} applied by an earlier import"));
    }
    if attention > 0 {
        said.push(format!("{attention} need attention"));
    }
    if report.not_ours > 0 {
        said.push(format!(
            "{} without a reference of ours ignored",
            output::count(report.not_ours, "credit")
        ));
    }
    if report.other_stringers > 0 {
        said.push(format!(
            "{} for other stringers left alone",
            output::count(report.other_stringers, "credit")
        ));
    }
    if report.not_booked > 0 {
        said.push(format!("{} not booked yet (pending) ignored", output::count(report.not_booked, "credit")));
    }
    if report.debits > 0 {
        said.push(format!("{} ignored", output::count(report.debits, "debit")));
    }
    said.join(", ")
}

fn row(line: &Line) -> Row {
    Row {
        stringer: line.stringer.clone(),
        receipt: line.receipt.to_string(),
        order: line.order.map(|o| o.to_string()).unwrap_or_default(),
        amount: line.amount.to_string(),
        currency: line.currency.clone(),
        booked_on: line.booked_on.to_string(),
        bank_reference: line.bank_reference.clone(),
        outcome: line.outcome.as_str(),
        reference: line.reference.clone(),
        reason: line.outcome.reason(),
    }
}
