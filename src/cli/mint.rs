use super::{output, Context, StringerOpt};
use crate::db::mint::{mint_now, mint_with, Chronology, Outcome, Rules};
use crate::db::{stock, Access};
use crate::domain::{check_strung_at, now_utc, Dated, OrderId, Timestamp};
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
    let (tenant, minted) = match opts.at {
        // At the counter: now, in as few round trips as the database allows.
        None => mint_now(&mut db, opts.stringer.stringer.as_deref(), opts.order, opts.without_address)?,
        Some(at) => {
            let tenant = opts.stringer.tenant_for(&mut db, opts.order)?;
            let at = at.resolve(tenant.zone()).map_err(Error::Usage)?;
            let dated =
                check_strung_at(at, now_utc(), tenant.zone(), opts.backdate).map_err(Error::BadInput)?;
            let rules = Rules {
                chronology: if opts.backdate { Chronology::Backdated } else { Chronology::Checked },
                without_address: opts.without_address,
                note: match dated {
                    Dated::BeforeLastYear { year } => {
                        Some(format!("backdated: strung in {year}, before last year"))
                    }
                    Dated::Recent => None,
                },
            };
            let minted = mint_with(&mut db, &tenant, opts.order, at, &rules)?;
            (tenant, minted)
        }
    };
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
    if minted.is_fresh() {
        // Said, never refused: the stock does not stop a racket from being strung, nor does
        // a failure to read it undo a mint that is done.
        let used = db.read(|conn| stock::used_by(conn, &tenant, order)).unwrap_or_default();
        for low in used.iter().filter(|s| s.is_low()) {
            eprintln!("warning: {}", super::strings::low_warning(low));
        }
    }
    let Some(server) = server else { return Ok(()) };
    match crate::outbox::notify(&mut db, &server, &tenant, order, false, super::retry::beyond_repeat) {
        Ok(to) => eprintln!("told the customer that the racket is ready: {to}"),
        // Minted again after a notice went out: nothing more to say.
        Err(Error::AlreadyNotified { on, to, .. }) => eprintln!("the customer was told on {on} ({to})"),
        Err(why @ Error::NoEmail { .. }) => eprintln!("warning: nobody was told the racket is ready: {why}"),
        Err(e) => return Err(e.into()),
    }
    Ok(())
}
