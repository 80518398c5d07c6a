//! `receipts resync-counters`: the counters compared with the orders after a restore, and
//! repaired.

use super::output::{self, Shown};
use super::Context;
use crate::db::resync::{Action, CounterChange, Options};
use crate::db::Access;
use crate::ops::resync::resync_counters;
use clap::Args;
use serde::Serialize;
use tabled::Tabled;

#[derive(Debug, Args)]
pub struct Opts {
    /// Only show what would change
    #[arg(long)]
    dry_run: bool,
    /// Also lower counters that are ahead of the orders. Only when you know the numbers above
    /// the highest order were never given to a customer: otherwise they would be issued twice
    #[arg(long)]
    allow_lower: bool,
    /// The highest closure number of the stringer known outside the restored database (from
    /// the e-mailed digests): its closures go on above it, and `audit --verify` lists the
    /// ones lost. Needs --stringer
    #[arg(long, value_name = "N", requires = "stringer", value_parser = clap::value_parser!(i64).range(1..))]
    last_closure: Option<i64>,
    /// The stringer of --last-closure
    #[arg(long, value_name = "HANDLE")]
    stringer: Option<String>,
    /// A table for people, or JSON for scripts
    #[arg(long, value_enum, default_value_t)]
    format: Shown,
}

#[derive(Serialize, Tabled)]
struct Row {
    stringer: String,
    /// receipts, or credit notes
    series: &'static str,
    year: i32,
    old: String,
    new: String,
    change: &'static str,
}

pub fn run(opts: Opts, ctx: &Context) -> anyhow::Result<()> {
    // A dry run only looks: it never creates or writes the database.
    let mut db = ctx.open(if opts.dry_run { Access::Read } else { Access::Write })?;
    let options = Options {
        dry_run: opts.dry_run,
        allow_lower: opts.allow_lower,
        last_closure: opts.stringer.clone().zip(opts.last_closure),
    };
    let changes = resync_counters(&mut db, options)?;
    match opts.format {
        Shown::Json => output::json(&changes)?,
        Shown::Table if !changes.is_empty() => {
            let rows: Vec<Row> = changes.iter().map(row).collect();
            output::rows(Shown::Table, &rows)?;
        }
        Shown::Table => {}
    }
    let applied = changes.iter().filter(|c| c.action != Action::KeptAhead).count();
    let kept = changes.len() - applied;
    if changes.is_empty() {
        eprintln!("every counter matches the highest number in use; nothing to do");
    } else if opts.dry_run {
        eprintln!("dry run: {} would change; nothing was written", output::count(applied, "counter"));
    } else {
        eprintln!("{} changed", output::count(applied, "counter"));
    }
    if kept > 0 {
        eprintln!(
            "{} ahead of the orders and kept: numbers above the highest in use \
             were handed out; document them with `receipts void --number`, or pass --allow-lower \
             if they were never given to anyone",
            output::count(kept, "counter")
        );
    }
    Ok(())
}

fn row(change: &CounterChange) -> Row {
    Row {
        stringer: change.stringer.clone(),
        series: change.series.label(),
        year: change.year,
        old: output::cell(change.old),
        new: output::cell(change.new),
        change: match change.action {
            Action::Created => "created",
            Action::Raised => "raised",
            Action::Lowered => "lowered",
            Action::KeptAhead => "kept (ahead)",
        },
    }
}
