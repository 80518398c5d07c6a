//! `receipts mint`: an order strung and numbered; with --notify, the customer told.

use super::{output, Context, StringerOpt};
use crate::db::mint::Outcome;
use crate::db::Access;
use crate::domain::{OrderId, Timestamp};
use crate::ops::{mint, Whose};
use crate::Error;
use clap::Args;

#[derive(Debug, Args)]
pub struct Opts {
    /// The order that was strung
    #[arg(long, value_name = "ID")]
    order: OrderId,
    /// When it was strung [default: now]; local time in the stringer's zone unless an
    /// offset is given: 2026-11-21 14:30, 2026-11-21T14:30:00+01:00, 21.11.2026 14:30.
    /// Never in the future; this year or last year unless --backdate
    #[arg(long, value_name = "TIMESTAMP")]
    at: Option<Timestamp>,
    /// Accept an --at before last year, or before the last number issued this year (a late
    /// entry of old work, journaled as such)
    #[arg(long, requires = "at")]
    backdate: bool,
    /// Number a VAT-registered stringer's invoice above the small-amount limit (CHF 400,
    /// EUR 250) without the customer's address (the journal records it)
    #[arg(long)]
    without_address: bool,
    /// Then tell the customer by e-mail that the racket is ready (as `receipts notify`), when
    /// the order has an e-mail address
    #[arg(long)]
    notify: bool,
    #[command(flatten)]
    server: super::notify::ServerOpt,
    #[command(flatten)]
    stringer: StringerOpt,
}

pub fn run(opts: Opts, ctx: &Context) -> anyhow::Result<()> {
    // Said before anything is minted: a notice without a server would never go.
    let server = opts.notify.then(|| opts.server.server()).transpose()?;
    let mut db = ctx.open(Access::Write)?;
    let request = mint::Request {
        order: opts.order,
        at: opts.at,
        backdate: opts.backdate,
        without_address: opts.without_address,
        low_stock: true,
    };
    let mint::Report { tenant, minted, low } =
        mint::strung(&mut db, Whose::Named(opts.stringer.stringer.as_deref()), &request)?;
    let (order, number) = (minted.order, minted.number);
    match minted.outcome {
        Outcome::Fresh => eprintln!("order {order} strung: receipt {number} for {}", tenant.handle()),
        Outcome::Restrung => eprintln!("order {order} strung again; it keeps receipt {number}"),
        Outcome::AlreadyStrung if opts.at.is_some() => eprintln!(
            "order {order} is strung already and has receipt {number}; nothing minted and --at was \
             ignored (to change the strung time: `receipts order unstring {order}`, then mint again)"
        ),
        Outcome::AlreadyStrung => eprintln!("order {order} already has receipt {number}; nothing minted"),
    }
    output::line(&number.to_string())?;
    for low in &low {
        eprintln!("warning: {}", super::strings::low_warning(low));
    }
    let Some(server) = server else { return Ok(()) };
    match crate::ops::outbox::notify(&mut db, &server, &tenant, order, false) {
        Ok(to) => eprintln!("told the customer that the racket is ready: {to}"),
        // Minted again after a notice went out: nothing more to say.
        Err(Error::AlreadyNotified { on, to, .. }) => eprintln!("the customer was told on {on} ({to})"),
        Err(why @ Error::NoEmail { .. }) => eprintln!("warning: nobody was told the racket is ready: {why}"),
        Err(e) => return Err(e.into()),
    }
    Ok(())
}
