use super::{output, Context, StringerOpt};
use crate::db::mint::mint;
use crate::domain::{now_utc, OrderId, Timestamp};
use crate::Error;
use clap::Args;

#[derive(Debug, Args)]
pub struct Opts {
    /// The order that was strung
    #[arg(long, value_name = "ID")]
    order: OrderId,
    /// When it was strung [default: now]; local time in the stringer's zone unless an
    /// offset is given: 2026-11-21 14:30, 2026-11-21T14:30:00+01:00, 21.11.2026 14:30
    #[arg(long, value_name = "TIMESTAMP")]
    at: Option<Timestamp>,
    #[command(flatten)]
    stringer: StringerOpt,
}

pub fn run(opts: Opts, ctx: &Context) -> anyhow::Result<()> {
    let mut db = ctx.connect()?;
    let tenant = opts.stringer.tenant_for(&mut db, opts.order)?;
    let strung_at = match opts.at {
        Some(at) => at.resolve(tenant.timezone).map_err(Error::Usage)?,
        None => now_utc(),
    };
    let minted = mint(&mut db, &tenant, opts.order, strung_at)?;
    if minted.fresh {
        eprintln!("order {} strung: receipt {} for {}", minted.order, minted.number, tenant.handle);
    } else {
        eprintln!("order {} already has receipt {}; nothing minted", minted.order, minted.number);
    }
    output::line(&minted.number.to_string())?;
    Ok(())
}
