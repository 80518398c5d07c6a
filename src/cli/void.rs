//! `receipts void`: a numbered order cancelled, or lost numbers accounted for, with the
//! reason.

use super::output::{self, Shown};
use super::{Context, StringerOpt};
use crate::db::Access;
use crate::domain::{OrderId, Series, SeriesRange};
use crate::ops::void;
use clap::Args;

#[derive(Debug, Args)]
#[group(id = "what", required = true, multiple = false, args = ["order", "number"])]
pub struct Opts {
    /// The numbered order to void
    #[arg(long, value_name = "ID")]
    order: Option<OrderId>,
    /// Numbers that were issued but whose orders are lost (e.g. in a restore): one number or
    /// a range YYYY-NNNN..YYYY-MMMM of one year, or credit note numbers
    /// C-YYYY-NNNN..C-YYYY-MMMM. Numbers above the counter only as a range that starts right
    /// after it. Needs --stringer
    #[arg(long, value_name = "[C-]YYYY-NNNN[..[C-]YYYY-MMMM]", requires = "stringer")]
    number: Option<SeriesRange>,
    /// Why, for the audit: the number stays taken and this reason explains it
    #[arg(long)]
    reason: String,
    /// With --number: show what would be recorded; write nothing
    #[arg(long, requires = "number")]
    dry_run: bool,
    #[command(flatten)]
    stringer: StringerOpt,
    /// With --number: what was recorded as JSON on stdout, for scripts
    #[arg(long, value_enum, default_value_t)]
    format: Shown,
}

pub fn run(opts: Opts, ctx: &Context) -> anyhow::Result<()> {
    let mut db = ctx.open(Access::Write)?;
    let reason = opts.reason.trim();
    if let Some(order) = opts.order {
        let tenant = opts.stringer.whose().of_order(&mut db, order)?;
        let number = void::order(&mut db, &tenant, order, reason)?;
        eprintln!("receipt {number} (order {order}) is void: {reason}");
        return Ok(());
    }
    let Some(numbers) = opts.number else {
        unreachable!("clap requires --order or --number");
    };
    let tenant = opts.stringer.whose().required(&mut db)?;
    let lost = void::lost_numbers(&mut db, &tenant, numbers, reason, opts.dry_run)?;
    if opts.format == Shown::Json {
        output::json(&lost)?;
    }
    let count = output::count(numbers.range.count() as usize, "number");
    let counter = if lost.counter_after != lost.counter_before {
        let series = match numbers.series {
            Series::Receipts => "",
            Series::Credits => " credit note",
        };
        format!(
            "; the {}{series} counter moves from {} to {}",
            numbers.range.year(),
            lost.counter_before,
            lost.counter_after
        )
    } else {
        String::new()
    };
    if opts.dry_run {
        eprintln!(
            "dry run: {numbers} of {} ({count}) would be recorded as void{counter}: {reason}; nothing was written",
            tenant.handle()
        );
    } else {
        eprintln!("{numbers} of {} ({count}) recorded as void{counter}: {reason}", tenant.handle());
    }
    Ok(())
}
