//! `receipts notify`: "your racket is ready" e-mailed, or to everybody still waiting to
//! hear.

use super::output;
use super::{Context, StringerOpt};
use crate::db::{Access, Db};
use crate::mail::SmtpUrl;
use crate::ops::outbox::{notify, notify_pending, prepare, Step};
use crate::Error;
use clap::Args;
use serde::Serialize;
use std::io::Write;
use std::path::PathBuf;
use tabled::Tabled;

#[derive(Debug, Args)]
#[group(id = "which", required = true, multiple = false, args = ["order", "pending"])]
pub struct Opts {
    /// The order: its id, or its receipt number (YYYY-NNNN, with --stringer)
    #[arg(value_name = "ORDER")]
    order: Option<String>,
    /// Every racket waiting for pickup whose customer has an e-mail address and was not told
    /// yet, one message each, going on past one that fails
    #[arg(long)]
    pending: bool,
    /// Tell the customer although they were told before
    #[arg(long, conflicts_with = "pending")]
    again: bool,
    /// Send nothing: print the message it would send (RFC 5322, an .eml) to stdout or -o FILE;
    /// with --pending, list whom it would tell
    #[arg(long)]
    dry_run: bool,
    /// With --dry-run: write the message to this file (never over a different one)
    #[arg(short, long, value_name = "FILE", requires = "dry_run", conflicts_with = "pending")]
    output: Option<PathBuf>,
    /// With --pending --dry-run: a table for people, JSON for scripts, or CSV for spreadsheets
    #[arg(long, value_enum, default_value_t, requires = "pending")]
    format: output::Listed,
    #[command(flatten)]
    server: ServerOpt,
    #[command(flatten)]
    stringer: StringerOpt,
}

// The mail server, as `send` takes it (no doc comment: see `StringerOpt`).
#[derive(Debug, Clone, Args)]
pub struct ServerOpt {
    /// The mail server: smtp://USER:PASSWORD@HOST:PORT (STARTTLS) or smtps://... (TLS)
    #[arg(long, env = "RECEIPTS_SMTP_URL", hide_env_values = true, value_name = "URL")]
    smtp_url: Option<String>,
}

impl ServerOpt {
    /// The server given, if one was.
    pub fn configured(&self) -> Result<Option<SmtpUrl>, Error> {
        self.smtp_url.as_deref().map(SmtpUrl::parse).transpose()
    }

    pub fn server(&self) -> Result<SmtpUrl, Error> {
        let text = self.smtp_url.as_deref().ok_or_else(|| {
            Error::Usage("say which mail server sends: pass --smtp-url or set RECEIPTS_SMTP_URL".into())
        })?;
        SmtpUrl::parse(text)
    }
}

pub fn run(opts: Opts, ctx: &Context) -> anyhow::Result<()> {
    let mut db = ctx.open(if opts.dry_run { Access::Read } else { Access::Write })?;
    if opts.pending {
        return pending(&mut db, &opts);
    }
    let server = if opts.dry_run { None } else { Some(opts.server.server()?) };
    let (tenant, order) =
        opts.stringer.whose().order_named(&mut db, opts.order.as_deref().unwrap_or_default())?;
    let Some(server) = server else {
        let prepared = prepare(&mut db, &tenant, order)?;
        let bytes = prepared.notice().message()?.formatted();
        match &opts.output {
            None => super::output::Stdout.write_all(&bytes)?,
            Some(path) => {
                crate::files::write_new(path, &bytes, "notify --dry-run")?;
                eprintln!("wrote the ready notice of order {order} to {}", path.display());
            }
        }
        return Ok(());
    };
    let to = notify(&mut db, &server, &tenant, order, opts.again)?;
    eprintln!("told the customer of order {order} ({}) that the racket is ready: {to}", tenant.handle());
    Ok(())
}

/// A notice `notify --pending --dry-run` would send.
#[derive(Serialize, Tabled)]
struct Planned {
    stringer: String,
    order: i64,
    to: String,
    subject: String,
}

/// Every pending notice, one message each (or with --dry-run, the list of them); a failure
/// is reported and the others go on.
fn pending(db: &mut Db, opts: &Opts) -> anyhow::Result<()> {
    let tenants = opts.stringer.whose().or_all(db)?;
    let server = if opts.dry_run { None } else { Some(opts.server.server()?) };
    let mut planned = Vec::new();
    let batch = notify_pending(db, server.as_ref(), &tenants, |step| match (step, &server) {
        (Step::Done { tenant, order, to, subject, .. }, None) => planned.push(Planned {
            stringer: tenant.handle().to_string(),
            order: order.0,
            to: to.to_string(),
            subject: subject.clone(),
        }),
        (Step::Done { tenant, order, to, .. }, Some(_)) => {
            eprintln!("told the customer of order {order} ({}): {to}", tenant.handle())
        }
        (Step::Failed { tenant, order, error }, _) => {
            eprintln!("error: order {order} of {}: {error}", tenant.handle())
        }
    })?;
    if server.is_none() {
        output::rows(opts.format, &planned)?;
        eprintln!("dry run: {} would be sent; nothing was sent", output::count(batch.tally.done, "notice"));
    } else {
        eprintln!("{} sent, {} failed", output::count(batch.tally.done, "notice"), batch.tally.failed.len());
    }
    if batch.tally.stopped.is_some() {
        eprintln!("the run stopped: what was not sent goes with the next run");
    }
    Ok(batch.tally.outcome()?)
}
