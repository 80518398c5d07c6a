//! `receipts migrate-v1 FILE`: the backfill from the old V1 system, all or nothing.

use super::output::{self, Shown};
use super::Context;
use crate::db::{Access, Db};
use crate::domain::{parse_timezone, validate_handle};
use crate::v1::{migrate_v1, GroupReport, Options};
use chrono_tz::Tz;
use clap::Args;
use serde::Serialize;
use std::io::IsTerminal;
use std::path::PathBuf;
use tabled::Tabled;

#[derive(Debug, Args)]
pub struct Opts {
    /// The V1 export (CSV with a header row)
    file: PathBuf,
    /// The stringer of rows without one (for a single stringer's export)
    #[arg(long, env = "RECEIPTS_STRINGER", hide_env = true, value_name = "HANDLE", value_parser = validate_handle)]
    stringer: Option<String>,
    /// Time zone of the stringers this import creates [default: the TZ environment variable,
    /// else this machine's zone, else UTC]
    #[arg(long, value_name = "TZ", value_parser = parse_timezone)]
    timezone: Option<Tz>,
    /// Check the file and show the plan; write nothing
    #[arg(long)]
    dry_run: bool,
    /// The summary as a table for people, or JSON for scripts
    #[arg(long, value_enum, default_value_t)]
    format: Shown,
}

#[derive(Serialize, Tabled)]
struct Row {
    stringer: String,
    year: String,
    orders: u64,
    numbered: u64,
    first: String,
    last: String,
}

pub fn run(opts: Opts, ctx: &Context) -> anyhow::Result<()> {
    // A dry run only looks: it never creates or writes the database, and with no database
    // yet it plans against an empty one.
    let mut db = match ctx.open(if opts.dry_run { Access::Read } else { Access::Write }) {
        Err(crate::Error::NoDatabase { .. }) if opts.dry_run => Db::empty()?,
        opened => opened?,
    };
    let options = Options {
        stringer: opts.stringer,
        timezone: opts.timezone,
        dry_run: opts.dry_run,
        progress: std::io::stderr().is_terminal(),
    };
    let report = migrate_v1(&mut db, &opts.file, &options).inspect_err(|e| {
        // Each problem on a line of its own, then the error.
        if let crate::Error::FileProblems { total, listed } = e {
            let name = opts.file.display();
            for problem in listed {
                eprintln!("{name}: {problem}");
            }
            if *total > listed.len() {
                eprintln!("{name}: ... and {} more", total - listed.len());
            }
        }
    })?;
    for warning in &report.warnings {
        eprintln!("warning: {warning}");
    }
    match opts.format {
        Shown::Json => output::json(&report)?,
        Shown::Table => output::rows(Shown::Table, &report.groups.iter().map(row).collect::<Vec<_>>())?,
    }
    let file = opts.file.display();
    let verb = if report.dry_run { "would create" } else { "created" };
    for handle in &report.created_stringers {
        eprintln!("{verb} stringer {handle} (time zone {})", report.timezone_for_new);
    }
    if report.new_orders == 0 {
        eprintln!(
            "nothing to do: all {} of {file} were imported before",
            output::count(report.rows as usize, "row")
        );
    } else if report.dry_run {
        eprintln!(
            "dry run: {} of {file} would be imported; nothing was written",
            output::count(report.new_orders as usize, "new order")
        );
    } else {
        eprintln!("imported {} from {file}", output::count(report.new_orders as usize, "new order"));
    }
    Ok(())
}

fn row(group: &GroupReport) -> Row {
    Row {
        stringer: group.stringer.clone(),
        year: group.year.map_or("unstrung".to_string(), |y| y.to_string()),
        orders: group.orders,
        numbered: group.numbered,
        first: output::cell(group.first),
        last: output::cell(group.last),
    }
}
