//! `receipts audit`: every (stringer, year) sequence checked, its problems listed (exit 1).

use super::output::{self, Rows, Shown};
use super::{Context, StringerOpt};
use crate::db::audit::YearAudit;
use crate::db::Access;
use crate::domain::ReceiptNumber;
use crate::ops;
use crate::Error;
use anyhow::Context as _;
use clap::Args;
use serde::Serialize;
use tabled::Tabled;

#[derive(Debug, Args)]
pub struct Opts {
    /// Only this stringer
    #[command(flatten)]
    stringer: StringerOpt,
    /// Only this year
    #[arg(long)]
    year: Option<i32>,
    /// A table for people, or JSON for scripts
    #[arg(long, value_enum, default_value_t)]
    format: Shown,
    /// Also recompute every stringer's journal chain from its start: each event's hash, its
    /// place, the head; the first break is named (stringer, event, what)
    #[arg(long)]
    verify: bool,
    /// With --verify: the stringer's public key as kept outside the database (`key init`
    /// printed it); the closures must be signed by it or by a key it handed over to
    #[arg(long, value_name = "HEX", requires = "verify")]
    public_key: Option<String>,
    /// With --verify: a closure's digest kept outside the database (`close --mail` sends
    /// them); each must be found in the journal. May be repeated
    #[arg(long = "anchor", value_name = "DIGEST", requires = "verify")]
    anchors: Vec<String>,
}

#[derive(Serialize, Tabled)]
struct Row {
    stringer: String,
    /// receipts, or credit notes (C-YYYY-NNNN)
    series: &'static str,
    year: i32,
    numbers: i64,
    highest: String,
    counter: String,
    voids: usize,
    gaps: usize,
    status: &'static str,
}

pub fn run(opts: Opts, ctx: &Context) -> anyhow::Result<()> {
    let mut db = ctx.open(Access::Read)?;
    let tenant = opts.stringer.whose().optional(&mut db)?;
    let report =
        ops::reports::audit(&mut db, tenant.as_ref(), opts.year).context("cannot audit the numbering")?;
    match opts.format {
        Shown::Json => output::json(&report)?,
        Shown::Table => table(&report)?,
    }
    let unsound = report.iter().filter(|y| !y.is_sound()).count();
    let numbering = match unsound {
        0 => {
            eprintln!(
                "audit passed: {} (stringer, series, year) sequences, each numbered 1..N with every void explained",
                report.len()
            );
            Ok(())
        }
        _ => {
            let problems: usize = report.iter().map(|y| y.problems.len()).sum();
            Err(Error::AuditFailed(format!(
                "the audit found {} in {unsound} of {} (stringer, series, year) sequences",
                output::count(problems, "problem"),
                report.len()
            )))
        }
    };
    // The journal's verification comes last: what it cannot prove is the last word.
    if opts.verify {
        verify(&mut db, &opts)?;
    }
    Ok(numbering?)
}

/// The chains and closures recomputed: a line per stringer on stderr, the first break an
/// error (exit 1), and what is not proven said last.
fn verify(db: &mut crate::db::Db, opts: &Opts) -> anyhow::Result<()> {
    let tenants = opts.stringer.whose().or_all(db)?;
    if opts.public_key.is_some() && tenants.len() != 1 {
        return Err(
            Error::Usage("--public-key is one stringer's: name the stringer with --stringer".into()).into()
        );
    }
    let anchors: Vec<String> = opts.anchors.iter().map(|a| a.trim().to_lowercase()).collect();
    let public_key = opts.public_key.as_deref().map(|k| k.trim().to_lowercase());
    let verified = ops::reports::verify_chains(db, &tenants, public_key.as_deref(), &anchors)
        .context("cannot verify the journal")?;
    let report = ops::reports::verification(&verified, public_key.as_deref(), &anchors);
    for line in &report.lines {
        eprintln!("{line}");
    }
    if let Some(why) = report.broken {
        return Err(Error::AuditFailed(format!("the journal is broken: {why}")).into());
    }
    // The e-invoices written, each rendered again from its document.
    for tenant in &tenants {
        let verified = ops::einvoices::verify(db, tenant).context("cannot verify the e-invoices")?;
        if let Some(why) = verified.mismatch {
            return Err(Error::AuditFailed(format!("stringer {}: {why}", tenant.handle())).into());
        }
        if verified.count > 0 {
            eprintln!(
                "{}: {} written match their documents",
                tenant.handle(),
                crate::domain::count(verified.count, "e-invoice")
            );
        }
    }
    Ok(())
}

/// The table, then one line per void and per problem.
fn table(report: &[YearAudit]) -> std::io::Result<()> {
    let mut rows = Rows::<Row>::new(Shown::Table.into());
    for y in report {
        rows.push(&Row {
            stringer: y.stringer.clone(),
            series: y.series.label(),
            year: y.year,
            numbers: y.numbers,
            highest: if y.highest > 0 {
                y.series.number(ReceiptNumber::new(y.year, y.highest))
            } else {
                String::new()
            },
            counter: output::cell(y.counter),
            voids: y.voids.len(),
            gaps: y.gaps.len(),
            status: if y.is_sound() { "ok" } else { "PROBLEM" },
        })?;
    }
    rows.finish()?;
    for y in report {
        for void in &y.voids {
            let order = void.order.map(|order| format!(" (order {order})")).unwrap_or_default();
            output::line(&format!(
                "{} {}: void {}{order}: {}",
                y.stringer, y.year, void.number, void.reason
            ))?;
        }
        for problem in &y.problems {
            output::line(&format!("{} {}: PROBLEM: {problem}", y.stringer, y.year))?;
        }
    }
    Ok(())
}
