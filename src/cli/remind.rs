//! `receipts remind`: the next reminder of an overdue invoice, or of every invoice whose
//! next reminder is due.

use super::output;
use super::{Context, StringerOpt};
use crate::db::Access;
use crate::ops::reminders::{self, Delivery, Planned, Step, Ways};
use clap::Args;
use serde::Serialize;
use std::io::Write;
use std::path::PathBuf;
use tabled::Tabled;

#[derive(Debug, Args)]
#[group(id = "which", required = true, multiple = false, args = ["order", "due"])]
pub struct Opts {
    /// The invoice's order: its id, or its receipt number (YYYY-NNNN, with --stringer). Its
    /// next reminder goes as soon as the invoice (or the reminder before) is past its due date
    #[arg(value_name = "ORDER")]
    order: Option<String>,
    /// Every invoice whose next reminder is due by the stringer's --remind-after and
    /// --remind-every days, one each, going on past one that fails
    #[arg(long)]
    due: bool,
    /// Send the last reminder of ORDER once more, unchanged
    #[arg(long, conflicts_with = "due")]
    again: bool,
    /// Issue and send nothing: ORDER's message (RFC 5322, an .eml; for a customer without
    /// e-mail, the reminder's PDF) to stdout or -o FILE; with --due, the list of what is due
    #[arg(long)]
    dry_run: bool,
    /// With --dry-run: write ORDER's message to this file (never over a different one)
    #[arg(short, long, value_name = "FILE", requires = "dry_run", conflicts_with = "due")]
    output: Option<PathBuf>,
    /// Write the reminders of customers without an e-mail address here, as PDFs for the post
    /// (without it they are listed as to print, and nothing is issued for them)
    #[arg(long, value_name = "DIR")]
    out_dir: Option<PathBuf>,
    /// With --due: a table for people, JSON for scripts, or CSV for spreadsheets
    #[arg(long, value_enum, default_value_t, requires = "due")]
    format: output::Listed,
    #[command(flatten)]
    server: super::notify::ServerOpt,
    #[command(flatten)]
    stringer: StringerOpt,
}

pub fn run(opts: Opts, ctx: &Context) -> anyhow::Result<()> {
    let mut db = ctx.open(if opts.dry_run { Access::Read } else { Access::Write })?;
    if let Some(dir) = &opts.out_dir {
        if !dir.is_dir() {
            return Err(
                crate::Error::InputFile(format!("--out-dir {} is not a directory", dir.display())).into()
            );
        }
    }
    let server = match opts.dry_run {
        true => None,
        false => opts.server.configured()?,
    };
    let ways = Ways { server: server.as_ref(), out_dir: opts.out_dir.as_deref(), hand_over: false };
    if opts.due {
        return due(&mut db, ways, &opts);
    }
    let named = opts.order.as_deref().unwrap_or_default();
    let (tenant, order) = opts.stringer.whose().order_named(&mut db, named)?;
    if opts.dry_run {
        let dry = reminders::dry_run(&mut db, &tenant, order, opts.again)?;
        match &opts.output {
            None => output::Stdout.write_all(&dry.bytes)?,
            Some(path) => {
                crate::files::write_new(path, &dry.bytes, "remind --dry-run")?;
                eprintln!("wrote the {} of order {order} to {}", dry.title, path.display());
            }
        }
        return Ok(());
    }
    let done = match reminders::remind(&mut db, ways, &tenant, order, opts.again) {
        // An e-mail to send, and no server said: the flag to pass.
        Err(crate::Error::NoMailServer) => {
            return Err(opts.server.server().err().unwrap_or(crate::Error::NoMailServer).into())
        }
        done => done?,
    };
    let level = done.reminder.level;
    let unchanged = if done.fresh || opts.again { "" } else { " (issued before, unchanged)" };
    match &done.delivery {
        Delivery::Sent(to) => {
            eprintln!("sent reminder {level} of invoice {} (order {order}){unchanged} to {to}", done.invoice)
        }
        Delivery::Handed(_) => {}
        Delivery::Printed(path) => eprintln!(
            "wrote reminder {level} of invoice {} (order {order}){unchanged} for the post: {}",
            done.invoice,
            path.display()
        ),
    }
    Ok(())
}

/// A reminder `remind --due` sends (or, in a dry run, would send).
#[derive(Serialize, Tabled)]
struct Row {
    stringer: String,
    order: i64,
    invoice: String,
    level: i32,
    open: String,
    fee: String,
    currency: String,
    /// The recipient, or "to print" / the file written for the post.
    to: String,
}

fn row(planned: &Planned, delivery: Option<&Delivery>) -> Row {
    let to = match (delivery, &planned.to) {
        (Some(Delivery::Printed(path)), _) => path.display().to_string(),
        (Some(Delivery::Sent(to)), _) | (None, Some(to)) => to.clone(),
        (None, None) | (Some(Delivery::Handed(_)), _) => "(post)".to_string(),
    };
    Row {
        stringer: planned.tenant.handle().to_string(),
        order: planned.order.0,
        invoice: planned.invoice.to_string(),
        level: planned.level.get(),
        open: planned.asked.0.to_string(),
        fee: planned.asked.1.to_string(),
        currency: planned.currency.clone(),
        to,
    }
}

fn due(db: &mut crate::db::Db, ways: Ways, opts: &Opts) -> anyhow::Result<()> {
    let tenants = opts.stringer.whose().or_all(db)?;
    let mut rows = Vec::new();
    let mut to_print = Vec::new();
    let dry_run = opts.dry_run;
    let outcome = reminders::remind_due(db, ways, dry_run, &tenants, |step| match step {
        Step::Done(planned, delivery) if dry_run => rows.push(row(planned, *delivery)),
        Step::Done(planned, delivery) => {
            let done = row(planned, *delivery);
            let how = match delivery {
                Some(Delivery::Printed(_)) => "wrote for the post",
                _ => "sent",
            };
            eprintln!(
                "{how} reminder {} of invoice {} (order {}) of {}: {}",
                done.level, done.invoice, done.order, done.stringer, done.to
            );
            rows.push(done);
        }
        Step::ToPrint(planned) if dry_run => {
            rows.push(Row { to: "(to print: no e-mail address)".into(), ..row(planned, None) })
        }
        Step::ToPrint(planned) => to_print.push(row(planned, None)),
        Step::Failed(planned, error) => eprintln!(
            "error: reminder {} of order {} of {} did not go: {error}",
            planned.level,
            planned.order,
            planned.tenant.handle()
        ),
    });
    if dry_run {
        output::rows(opts.format, &rows)?;
    }
    for printed in &to_print {
        eprintln!(
            "to print: reminder {} of invoice {} (order {}) of {}: no customer e-mail address (pass --out-dir DIR)",
            printed.level, printed.invoice, printed.order, printed.stringer
        );
    }
    let run = match outcome {
        Ok(run) => run,
        // An e-mail to send, and no server said: nothing was issued; the flag to pass.
        Err(crate::Error::NoMailServer) => {
            return Err(opts.server.server().err().unwrap_or(crate::Error::NoMailServer).into())
        }
        Err(error) => return Err(error.into()),
    };
    for (stringer, known) in &run.bank_known_until {
        match known {
            Some(day) => eprintln!(
                "{stringer}: payments booked after {day} are not known yet (the last bank file imported)"
            ),
            None => {
                eprintln!("{stringer}: no bank file was imported yet, so payments by transfer are not known")
            }
        }
    }
    for held in &run.held {
        eprintln!("held back: {held}");
    }
    let verb = if dry_run { "would go" } else { "went" };
    eprintln!(
        "{} {verb}, {} to print, {} failed, {} overdue not due yet, {} held back by the bank{}",
        output::count(run.tally.done, "reminder"),
        run.to_print,
        run.tally.failed.len(),
        run.waiting,
        run.held.len(),
        if dry_run { "; dry run: nothing was issued or sent" } else { "" }
    );
    if run.tally.stopped.is_some() {
        eprintln!("the run stopped: a reminder issued and not sent goes unchanged with the next run");
    }
    Ok(run.tally.outcome()?)
}
