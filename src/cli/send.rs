use super::output;
use super::{one_of, Context, StringerOpt};
use crate::db::receipts::Options;
use crate::db::{sends, Access, Db, Tenant};
use crate::domain::{Language, OrderId};
use crate::outbox::{self, deliver_document, prepare_document};
use crate::Error;
use clap::Args;
use serde::Serialize;
use std::io::Write;
use std::path::PathBuf;
use tabled::Tabled;

#[derive(Debug, Args)]
#[group(id = "which", required = true, multiple = false, args = ["order", "unsent"])]
pub struct Opts {
    /// The order: its id, or its receipt number (YYYY-NNNN, with --stringer)
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
    #[arg(long, value_parser = one_of::<Language>(Language::ALL.map(|l| l.code().into())))]
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
    if opts.unsent && opts.dry_run {
        return plan_unsent(&mut db, &opts, options);
    }
    if opts.unsent {
        return send_unsent(&mut db, &opts, options);
    }
    let server = if opts.dry_run { None } else { Some(opts.server.server()?) };
    let (tenant, order) = opts.stringer.order_named(&mut db, opts.order.as_deref().unwrap_or_default())?;
    let Some(server) = server else {
        let document = prepare_document(&mut db, &tenant, order, opts.to.as_deref(), options)?;
        let bytes = document.message()?.formatted();
        match &opts.output {
            None => super::retry::Stdout.write_all(&bytes)?,
            Some(path) => {
                output::write_new_or_same(path, &bytes, "send --dry-run")?;
                eprintln!("wrote the message of receipt {} to {}", document.number, path.display());
            }
        }
        return Ok(());
    };
    let to = opts.to.as_deref();
    let sent =
        outbox::send(&mut db, &server, &tenant, order, to, options, opts.again, super::retry::beyond_repeat)?;
    eprintln!("sent receipt {} of {} to {}", sent.number, tenant.handle(), sent.to);
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

/// The documents `send --unsent` is about, per stringer (the one named, or all): the
/// numbered orders never sent that have an e-mail address, and how many have none.
fn unsent(db: &mut Db, opts: &Opts) -> Result<Vec<(Tenant, Vec<OrderId>, i64)>, Error> {
    let tenants = match opts.stringer.optional(db)? {
        Some(tenant) => vec![tenant],
        None => db.read(Tenant::all)?,
    };
    tenants
        .into_iter()
        .map(|tenant| {
            let (unsent, without) = db.read(|conn| {
                Ok((
                    sends::unsent(conn, &tenant, opts.year)?,
                    sends::without_address(conn, &tenant, opts.year)?,
                ))
            })?;
            Ok((tenant, unsent, without))
        })
        .collect()
}

/// What `send --unsent` would send, one line each; nothing is sent or recorded.
fn plan_unsent(db: &mut Db, opts: &Opts, options: Options) -> anyhow::Result<()> {
    let mut planned = Vec::new();
    let mut without = 0;
    for (tenant, unsent, skipped) in unsent(db, opts)? {
        let tenant = &tenant;
        without += skipped;
        for order in unsent {
            let prepared = prepare_document(db, tenant, order, None, options)?;
            let subject = prepared.outgoing().subject();
            planned.push(Planned {
                stringer: tenant.handle().to_string(),
                order: order.0,
                receipt: prepared.number.to_string(),
                to: prepared.to,
                subject,
            });
        }
    }
    let count = planned.len();
    output::rows(opts.format, &planned)?;
    eprintln!(
        "dry run: {} would be sent, {without} skipped without a customer e-mail address; nothing was sent",
        output::count(count, "message")
    );
    Ok(())
}

/// Every unsent document, one message each; a failure is reported and the others go on.
fn send_unsent(db: &mut Db, opts: &Opts, options: Options) -> anyhow::Result<()> {
    let server = opts.server.server()?;
    // A mail must never carry a number that a failover could take back: one confirmation
    // covers everything this connection reads.
    db.confirm_durable()?;
    let (mut sent, mut failed, mut skipped) = (0usize, Vec::new(), 0i64);
    for (tenant, unsent, without) in unsent(db, opts)? {
        let tenant = &tenant;
        skipped += without;
        for order in unsent {
            let outcome = prepare_document(db, tenant, order, None, options)
                .and_then(|prepared| Ok((prepared.message()?, prepared)))
                .and_then(|(message, prepared)| {
                    let accepted = super::retry::beyond_repeat;
                    deliver_document(db, &server, tenant, order, &prepared, &message, accepted)
                        .map(|()| prepared)
                });
            match outcome {
                Ok(prepared) => {
                    sent += 1;
                    eprintln!("sent receipt {} of {} to {}", prepared.number, tenant.handle(), prepared.to);
                }
                Err(e) => {
                    eprintln!("error: order {order} of {} was not sent: {e}", tenant.handle());
                    failed.push(format!("order {order} of {}", tenant.handle()));
                }
            }
        }
    }
    eprintln!(
        "{} sent, {} failed, {} skipped without a customer e-mail address",
        output::count(sent, "message"),
        failed.len(),
        skipped
    );
    if let Some(first) = failed.first() {
        return Err(Error::NotAll { count: failed.len(), first: first.clone(), sending: true }.into());
    }
    Ok(())
}
