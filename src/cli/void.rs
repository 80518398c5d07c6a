use super::{Context, StringerOpt};
use crate::db::void::void_order;
use crate::domain::OrderId;
use clap::Args;

#[derive(Debug, Args)]
pub struct Opts {
    /// The numbered order to void
    #[arg(long, value_name = "ID")]
    order: OrderId,
    /// Why, for the audit: the number stays taken and this reason explains it
    #[arg(long)]
    reason: String,
    #[command(flatten)]
    stringer: StringerOpt,
}

pub fn run(opts: Opts, ctx: &Context) -> anyhow::Result<()> {
    let mut db = ctx.connect()?;
    let tenant = opts.stringer.tenant_for(&mut db, opts.order)?;
    let number = void_order(&mut db, &tenant, opts.order, &opts.reason)?;
    eprintln!(
        "receipt {number} (order {}) is void: {}",
        opts.order,
        opts.reason.trim()
    );
    Ok(())
}
