use super::output::{self, Ledger, Rows};
use super::{Context, StringerOpt};
use crate::db::orders::{self, Filter, Listed};
use crate::db::Access;
use crate::domain::Price;
use crate::Error;
use anyhow::Context as _;
use chrono::{NaiveDateTime, TimeZone};
use chrono_tz::Tz;
use clap::Args;
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use tabled::Tabled;

#[derive(Debug, Args)]
pub struct Opts {
    /// The year whose receipts to export
    #[arg(long)]
    year: i32,
    #[command(flatten)]
    stringer: StringerOpt,
    /// Write to this file instead of stdout (an existing file is not overwritten)
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// CSV for an accountant's program, or JSON for scripts
    #[arg(long, value_enum, default_value_t)]
    format: Ledger,
}

/// One issued number of the year, as the accountant's ledger lists it.
#[derive(Serialize, Tabled)]
struct Entry {
    stringer: String,
    receipt_number: String,
    /// issued | void
    status: &'static str,
    strung_at: String,
    paid_at: String,
    customer: String,
    racket: String,
    string: String,
    tension: String,
    amount: String,
    currency: String,
    void_reason: String,
    order_id: i64,
}

/// Count and sums of one stringer's receipts in one currency, voids apart.
#[derive(Default)]
struct Totals {
    receipts: u64,
    voids: u64,
    total: i64,
    paid: i64,
}

pub fn run(opts: Opts, ctx: &Context) -> anyhow::Result<()> {
    let mut db = ctx.open(Access::Read)?;
    let tenant = opts.stringer.optional(&mut db)?;
    let out: Box<dyn Write> = match &opts.output {
        None => Box::new(std::io::stdout()),
        Some(path) => {
            Box::new(std::fs::OpenOptions::new().write(true).create_new(true).open(path).map_err(|e| {
                match e.kind() {
                    std::io::ErrorKind::AlreadyExists => {
                        Error::OutputExists { path: path.display().to_string(), what: "an export" }
                    }
                    _ => Error::InputFile(format!("cannot create {}: {e}", path.display())),
                }
            })?)
        }
    };
    let mut rows = Rows::<Entry>::to(opts.format.into(), out);
    let mut totals: BTreeMap<(String, String), Totals> = BTreeMap::new();
    let filter = Filter { year: Some(opts.year), ..Filter::default() };
    db.read(|conn| {
        orders::for_each(conn, tenant.as_ref(), &filter, None, |listed| {
            let entry = entry(&listed);
            let sums = totals.entry((entry.stringer.clone(), entry.currency.clone())).or_default();
            let amount = listed.order.price.map_or(0, |p| p.0);
            if listed.order.voided_at.is_some() {
                sums.voids += 1;
            } else {
                sums.receipts += 1;
                sums.total += amount;
                if listed.order.paid_at.is_some() {
                    sums.paid += amount;
                }
            }
            Ok(rows.push(&entry)?)
        })
    })
    .context("cannot export the year")?;
    let written = rows.finish()?;
    for ((stringer, currency), sums) in &totals {
        eprintln!(
            "{stringer} {}, {currency}: {}, total {}, paid {}, unpaid {}{}",
            opts.year,
            output::count(sums.receipts as usize, "receipt"),
            Price(sums.total),
            Price(sums.paid),
            Price(sums.total - sums.paid),
            if sums.voids > 0 { format!(" ({} void, not counted)", sums.voids) } else { String::new() }
        );
    }
    if let Some(path) = &opts.output {
        eprintln!("wrote {} of {} to {}", output::count(written, "number"), opts.year, path.display());
    }
    Ok(())
}

fn entry(listed: &Listed<'_>) -> Entry {
    let order = &listed.order;
    let zone = listed.stringer.zone();
    let local = |at: Option<NaiveDateTime>| at.map(|at| iso_local(at, zone)).unwrap_or_default();
    Entry {
        stringer: listed.stringer.handle().to_string(),
        receipt_number: output::cell(order.number),
        status: if order.voided_at.is_some() { "void" } else { "issued" },
        strung_at: local(order.strung_at),
        paid_at: local(order.paid_at),
        customer: order.customer.clone().unwrap_or_default(),
        racket: order.racket.clone().unwrap_or_default(),
        string: order.string.clone().unwrap_or_default(),
        tension: order.tension.clone().unwrap_or_default(),
        amount: output::cell(order.price),
        currency: order.currency.to_string(),
        void_reason: order.void_reason.clone().unwrap_or_default(),
        order_id: order.id.0,
    }
}

/// `2026-11-21T14:30:00+01:00`: local time of the stringer, with its offset.
fn iso_local(utc: NaiveDateTime, zone: Tz) -> String {
    zone.from_utc_datetime(&utc).format("%Y-%m-%dT%H:%M:%S%:z").to_string()
}
