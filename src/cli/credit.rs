//! `receipts credit`: a document the customer holds taken back, in full or in part, by a
//! credit note of its own series (prints its number); with --send, e-mailed.

use super::{one_of, output, Context, StringerOpt};
use crate::db::Access;
use crate::domain::{OrderId, Price, Refund, Timestamp};
use crate::ops::{credits, Whose};
use crate::Error;
use clap::Args;

#[derive(Debug, Args)]
pub struct Opts {
    /// The order whose document is taken back: its id, or its receipt number (YYYY-NNNN, with
    /// --stringer)
    #[arg(value_name = "ORDER")]
    order: String,
    /// Why, printed on the credit note and kept in the journal
    #[arg(long)]
    reason: String,
    /// Take back only this much (e.g. 12.50) [default: all that is not credited yet]. Never
    /// more than is left
    #[arg(long, value_name = "PRICE", allow_hyphen_values = true)]
    amount: Option<String>,
    /// How the money went back: required for a paid order (none: it was kept); an unpaid
    /// invoice is simply no longer owed [default: none]
    #[arg(long, value_name = "METHOD", value_parser = one_of::<Refund>(super::names::<Refund>()))]
    refund: Option<Refund>,
    /// When it was issued [default: now]; local time in the stringer's zone unless an offset
    /// is given. Never in the future, never before its original, and not before the year's
    /// last credit note unless --backdate
    #[arg(long, value_name = "TIMESTAMP")]
    at: Option<Timestamp>,
    /// Accept an --at before the year's last credit note, or before last year
    #[arg(long, requires = "at")]
    backdate: bool,
    /// Then e-mail the credit note to the order's address (as `receipts send C-...`)
    #[arg(long)]
    send: bool,
    #[command(flatten)]
    server: super::notify::ServerOpt,
    #[command(flatten)]
    stringer: StringerOpt,
}

impl Opts {
    /// A full credit run again prints the credit note that completed it; a part is another.
    pub fn safe_to_repeat(&self) -> bool {
        self.amount.is_none()
    }
}

/// A part to credit: a price, more than nothing (refused as bad input, 65, like a part too
/// large).
fn parse_amount(text: &str) -> Result<Price, Error> {
    let invalid = |problem: String| Error::Invalid { field: "amount", problem };
    if text.trim_start().starts_with('-') {
        return Err(invalid(format!("is {text}: a credit takes back more than nothing")));
    }
    text.parse().map_err(invalid)
}

pub fn run(opts: Opts, ctx: &Context) -> anyhow::Result<()> {
    // Said before anything is issued: a credit note without a server would never go.
    let server = opts.send.then(|| opts.server.server()).transpose()?;
    let mut db = ctx.open(Access::Write)?;
    let whose = opts.stringer.whose();
    // An order's id needs no lookup here: the credit finds its stringer on the way.
    let order = match opts.order.parse::<OrderId>() {
        Ok(order) => order,
        Err(_) => whose.order_named(&mut db, &opts.order)?.1,
    };
    let amount = opts.amount.as_deref().map(parse_amount).transpose()?;
    let request = credits::Request {
        order,
        amount,
        refund: opts.refund,
        reason: opts.reason,
        at: opts.at,
        backdate: opts.backdate,
        token: None,
    };
    let (tenant, credited) =
        credits::credit(&mut db, Whose::Named(opts.stringer.stringer.as_deref()), &request)?;
    let number = credited.number;
    if credited.fresh {
        eprintln!(
            "credit note {number} takes back {} {} of order {order} for {}",
            credited.currency,
            credited.amount,
            tenant.handle()
        );
    } else {
        eprintln!("order {order} is credited in full already by {number}; nothing issued");
    }
    output::line(&number.to_string())?;
    if let Some(server) = server {
        let to = crate::ops::outbox::send_credit(&mut db, &server, &tenant, number, None, false)?;
        eprintln!("credit note {number} sent to {to}");
    }
    Ok(())
}
