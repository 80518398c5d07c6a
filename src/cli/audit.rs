use super::{output, Context, Format, StringerOpt};
use crate::db::audit::{audit, YearAudit};
use crate::db::Access;
use crate::domain::ReceiptNumber;
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
}

#[derive(Serialize, Tabled)]
struct Row {
    stringer: String,
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
    let tenant = opts.stringer.optional(&mut db)?;
    let report =
        db.read(|conn| Ok(audit(conn, tenant.as_ref(), opts.year)?)).context("cannot audit the numbering")?;
    match ctx.listing()? {
        Format::Json => output::json(&report)?,
        _ => output::line(&text(&report))?,
    }
    let unsound = report.iter().filter(|y| !y.is_sound()).count();
    if unsound > 0 {
        let problems: usize = report.iter().map(|y| y.problems.len()).sum();
        return Err(Error::AuditFailed(format!(
            "the audit found {} in {unsound} of {} (stringer, year) sequences",
            output::count(problems, "problem"),
            report.len()
        ))
        .into());
    }
    eprintln!(
        "audit passed: {} (stringer, year) sequences, each numbered 1..N with every void explained",
        report.len()
    );
    Ok(())
}

/// The table, then one line per void and per problem.
fn text(report: &[YearAudit]) -> String {
    let rows: Vec<Row> = report
        .iter()
        .map(|y| Row {
            stringer: y.stringer.clone(),
            year: y.year,
            numbers: y.numbers,
            highest: if y.highest > 0 {
                ReceiptNumber::new(y.year, y.highest).to_string()
            } else {
                String::new()
            },
            counter: output::cell(y.counter),
            voids: y.voids.len(),
            gaps: y.gaps.len(),
            status: if y.is_sound() { "ok" } else { "PROBLEM" },
        })
        .collect();
    let mut text = tabled::Table::new(&rows).with(tabled::settings::Style::psql()).to_string();
    for y in report {
        for void in &y.voids {
            text.push_str(&format!(
                "\n{} {}: void {} (order {}): {}",
                y.stringer, y.year, void.number, void.order, void.reason
            ));
        }
        for problem in &y.problems {
            text.push_str(&format!("\n{} {}: PROBLEM: {problem}", y.stringer, y.year));
        }
    }
    text
}
