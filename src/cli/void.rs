use super::{Context, StringerOpt};
use crate::db::void::{void_lost_number, void_order};
use crate::domain::{OrderId, ReceiptNumber};
use clap::Args;

#[derive(Debug, Args)]
#[group(id = "what", required = true, multiple = false, args = ["order", "number"])]
pub struct Opts {
    /// The numbered order to void
    #[arg(long, value_name = "ID")]
    order: Option<OrderId>,
    /// A number that was issued but whose order is lost (e.g. in a restore); needs --stringer
    #[arg(long, value_name = "YYYY-NNNN", requires = "stringer")]
    number: Option<ReceiptNumber>,
    /// Why, for the audit: the number stays taken and this reason explains it
    #[arg(long)]
    reason: String,
    #[command(flatten)]
    stringer: StringerOpt,
}

pub fn run(opts: Opts, ctx: &Context) -> anyhow::Result<()> {
    let mut db = ctx.connect()?;
    let reason = opts.reason.trim();
    match (opts.order, opts.number) {
        (Some(order), _) => {
            let tenant = opts.stringer.tenant_for(&mut db, order)?;
            let number = void_order(&mut db, &tenant, order, reason)?;
            eprintln!("receipt {number} (order {order}) is void: {reason}");
        }
        (None, Some(number)) => {
            let tenant = opts.stringer.required(&mut db)?;
            let placeholder = void_lost_number(&mut db, &tenant, number, reason)?;
            eprintln!(
                "receipt {number} of {} is recorded as void (order {placeholder} stands for it): {reason}",
                tenant.handle
            );
        }
        (None, None) => unreachable!("clap requires --order or --number"),
    }
    Ok(())
}
