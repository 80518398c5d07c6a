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
    if unsound > 0 {
        let problems: usize = report.iter().map(|y| y.problems.len()).sum();
        return Err(Error::AuditFailed(format!(
            "the audit found {} in {unsound} of {} (stringer, series, year) sequences",
            output::count(problems, "problem"),
            report.len()
        ))
        .into());
    }
    eprintln!(
        "audit passed: {} (stringer, series, year) sequences, each numbered 1..N with every void explained",
        report.len()
    );
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
