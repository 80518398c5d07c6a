//! `receipts send`: a document e-mailed, or every unsent one.

use super::output;
use super::{one_of, Context, StringerOpt};
use crate::db::receipts::Options;
use crate::db::{Access, Db};
use crate::domain::{CreditNumber, Language};
use crate::mail::SmtpUrl;
use crate::ops::outbox::{self, prepare_document, Asked, Step};
use clap::Args;
use serde::Serialize;
use std::io::Write;
use std::path::PathBuf;
use tabled::Tabled;

#[derive(Debug, Args)]
#[group(id = "which", required = true, multiple = false, args = ["order", "unsent"])]
pub struct Opts {
    /// The order: its id, or its receipt number (YYYY-NNNN, with --stringer); or a credit
    /// note's number (C-YYYY-NNNN)
    #[arg(value_name = "ORDER")]
    order: Option<String>,
    /// Every numbered order with a customer e-mail address that was never sent, one message
    /// each, going on past one that fails
    #[arg(long)]
    unsent: bool,
    /// With --unsent: only this year's
    #[arg(long, requires = "unsent")]
    year: Option<i32>,
    /// The recipient [default: the order's e-mail address]
    #[arg(long, value_name = "ADDRESS", conflicts_with = "unsent")]
    to: Option<String>,
    /// Language of the message and its document [default: the stringer's, else English]
    #[arg(long, value_parser = one_of::<Language>(super::names::<Language>()))]
    lang: Option<Language>,
    /// Send the document as a copy (a re-issue the customer asked for)
    #[arg(long)]
    copy: bool,
    /// Send it although it was sent before
    #[arg(long, conflicts_with = "unsent")]
    again: bool,
    /// Send nothing: print the message it would send (RFC 5322, an .eml) to stdout or -o FILE;
    /// with --unsent, list what would be sent (recipient, document, subject)
    #[arg(long)]
    dry_run: bool,
    /// With --dry-run: write the message to this file (never over a different one)
    #[arg(short, long, value_name = "FILE", requires = "dry_run", conflicts_with = "unsent")]
    output: Option<PathBuf>,
    /// With --unsent --dry-run: a table for people, JSON for scripts, or CSV for spreadsheets
    #[arg(long, value_enum, default_value_t, requires = "unsent")]
    format: output::Listed,
    #[command(flatten)]
    server: super::notify::ServerOpt,
    #[command(flatten)]
    stringer: StringerOpt,
}

pub fn run(opts: Opts, ctx: &Context) -> anyhow::Result<()> {
    // A dry run only looks.
    let mut db = ctx.open(if opts.dry_run { Access::Read } else { Access::Write })?;
    let options = Options { language: opts.lang, copy: opts.copy };
    let server = if opts.dry_run { None } else { Some(opts.server.server()?) };
    if opts.unsent {
        return unsent(&mut db, server.as_ref(), &opts, options);
    }
    let named = opts.order.as_deref().unwrap_or_default();
    if let Ok(number) = named.parse::<CreditNumber>() {
        return send_credit(&mut db, server.as_ref(), &opts, number, options);
    }
    let (tenant, order) = opts.stringer.whose().order_named(&mut db, named)?;
    let Some(server) = server else {
        let document = prepare_document(&mut db, &tenant, order, opts.to.as_deref(), options)?;
        let bytes = document.message()?.formatted();
        match &opts.output {
            None => super::output::Stdout.write_all(&bytes)?,
            Some(path) => {
                crate::files::write_new(path, &bytes, "send --dry-run")?;
                eprintln!("wrote the message of receipt {} to {}", document.number, path.display());
            }
        }
        return Ok(());
    };
    let asked = Asked { to: opts.to.as_deref(), options, again: opts.again };
    let sent = outbox::send(&mut db, &server, &tenant, order, &asked)?;
    eprintln!("sent receipt {} of {} to {}", sent.number, tenant.handle(), sent.to);
    Ok(())
}

/// A credit note e-mailed (or, in a dry run, its message written).
fn send_credit(
    db: &mut Db,
    server: Option<&SmtpUrl>,
    opts: &Opts,
    number: CreditNumber,
    options: Options,
) -> anyhow::Result<()> {
    let tenant = opts.stringer.whose().required(db)?;
    let Some(server) = server else {
        let document = outbox::prepare_credit(db, &tenant, number, opts.to.as_deref(), options)?;
        let bytes = document.message()?.formatted();
        match &opts.output {
            None => super::output::Stdout.write_all(&bytes)?,
            Some(path) => {
                crate::files::write_new(path, &bytes, "send --dry-run")?;
                eprintln!("wrote the message of credit note {number} to {}", path.display());
            }
        }
        return Ok(());
    };
    let to = outbox::send_credit(db, server, &tenant, number, opts.to.as_deref(), opts.again)?;
    eprintln!("sent credit note {number} of {} to {to}", tenant.handle());
    Ok(())
}

/// A message `send --unsent --dry-run` would send.
#[derive(Serialize, Tabled)]
struct Planned {
    stringer: String,
    order: i64,
    receipt: String,
    to: String,
    subject: String,
}

/// Every unsent document, one message each, a failure reported and the others going on;
/// with --dry-run, the list of what would be sent.
fn unsent(db: &mut Db, server: Option<&SmtpUrl>, opts: &Opts, options: Options) -> anyhow::Result<()> {
    let tenants = opts.stringer.whose().or_all(db)?;
    let mut planned = Vec::new();
    let batch = outbox::send_unsent(db, server, &tenants, opts.year, options, |step| match (step, server) {
        (Step::Done { tenant, order, number, to, subject }, None) => planned.push(Planned {
            stringer: tenant.handle().to_string(),
            order: order.0,
            receipt: number.map(|n| n.to_string()).unwrap_or_default(),
            to: to.to_string(),
            subject: subject.clone(),
        }),
        (Step::Done { tenant, number, to, .. }, Some(_)) => {
            let number = number.map(|n| n.to_string()).unwrap_or_default();
            eprintln!("sent receipt {number} of {} to {to}", tenant.handle())
        }
        (Step::Failed { tenant, order, error }, _) => {
            eprintln!("error: order {order} of {} was not sent: {error}", tenant.handle())
        }
    })?;
    let skipped = batch.without_address;
    if server.is_none() {
        output::rows(opts.format, &planned)?;
        eprintln!(
            "dry run: {} would be sent, {skipped} skipped without a customer e-mail address; nothing was sent",
            output::count(batch.tally.done, "message")
        );
    } else {
        eprintln!(
            "{} sent, {} failed, {skipped} skipped without a customer e-mail address",
            output::count(batch.tally.done, "message"),
            batch.tally.failed.len(),
        );
    }
    if batch.tally.stopped.is_some() {
        eprintln!("the run stopped: what was not sent goes with the next run");
    }
    Ok(batch.tally.outcome()?)
}
