//! `receipts vat-report`: the VAT of a period, per rate, on the invoiced or the received
//! basis.

use super::output::{self, Listed, Rows};
use super::{Context, StringerOpt};
use crate::db::listings::Basis;
use crate::db::Access;
use crate::domain::{Price, VatRate};
use crate::ops;
use crate::Error;
use anyhow::Context as _;
use chrono::{Months, NaiveDate};
use clap::builder::PossibleValue;
use clap::Args;
use serde::Serialize;
use std::collections::BTreeMap;
use tabled::Tabled;

#[derive(Debug, Args)]
#[group(id = "period", multiple = false, args = ["quarter", "half", "month"])]
pub struct Opts {
    /// The year of the period [a whole year unless --quarter, --half or --month]
    #[arg(long)]
    year: i32,
    /// Only this quarter of the year (1-4)
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=4))]
    quarter: Option<u32>,
    /// Only this half of the year (1-2)
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=2))]
    half: Option<u32>,
    /// Only this month of the year (1-12)
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=12))]
    month: Option<u32>,
    #[command(flatten)]
    stringer: StringerOpt,
    /// agreed: receipts by their strung date; received: paid receipts by their paid date
    #[arg(long, default_value = "agreed", value_parser = super::one_of::<BasisArg>([
        PossibleValue::new("agreed").help("receipts by the date they were strung"),
        PossibleValue::new("received").help("paid receipts by the date they were paid"),
    ]))]
    basis: BasisArg,
    /// A table for people, JSON for scripts, or CSV for spreadsheets
    #[arg(long, value_enum, default_value_t)]
    format: Listed,
}

#[derive(Debug, Clone, Copy)]
pub struct BasisArg(Basis);

impl std::str::FromStr for BasisArg {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "agreed" => Ok(BasisArg(Basis::Agreed)),
            "received" => Ok(BasisArg(Basis::Received)),
            _ => Err(format!("\"{s}\" is not a basis (expected agreed or received)")),
        }
    }
}

/// One line of the report: a stringer's receipts in one currency at one rate, or a total.
#[derive(Serialize, Tabled)]
struct Line {
    stringer: String,
    currency: String,
    /// In percent; empty for receipts without VAT.
    vat_rate: String,
    receipts: u64,
    /// Credit notes that lower the period's VAT (their amounts are taken off).
    credit_notes: u64,
    gross: String,
    vat: String,
    net: String,
}

#[derive(Default)]
struct Sums {
    receipts: u64,
    credit_notes: u64,
    gross: i64,
    vat: i64,
}

pub fn run(opts: Opts, ctx: &Context) -> anyhow::Result<()> {
    let (first, last) = period(&opts)?;
    let mut db = ctx.open(Access::Read)?;
    let tenant = opts.stringer.whose().optional(&mut db)?;
    let mut sums: BTreeMap<(String, String, Option<VatRate>), Sums> = BTreeMap::new();
    ops::reports::orders_of_period(
        &mut db,
        tenant.as_ref(),
        opts.basis.0,
        (first, last),
        |tenant, order, rate| {
            // On the received basis, what was paid in part counts when it was paid.
            let part_paid = if opts.basis.0 == Basis::Received { order.part_paid.0 } else { 0 };
            let gross = order.total().map_or(0, |p| p.0) - part_paid;
            let key = (tenant.handle().to_string(), order.currency.to_string(), rate);
            let line = sums.entry(key).or_default();
            line.receipts += 1;
            line.gross += gross;
            line.vat += rate.map_or(0, |r| r.included_in(gross));
            Ok(())
        },
    )
    .context("cannot make the VAT report")?;
    if opts.basis.0 == Basis::Received {
        ops::reports::part_payments_of_period(
            &mut db,
            tenant.as_ref(),
            (first, last),
            |tenant, part, order, rate| {
                let key = (tenant.handle().to_string(), order.currency.to_string(), rate);
                let line = sums.entry(key).or_default();
                line.gross += part.amount_minor;
                line.vat += rate.map_or(0, |r| r.included_in(part.amount_minor));
                Ok(())
            },
        )
        .context("cannot make the VAT report")?;
    }
    ops::reports::credits_of_period(&mut db, tenant.as_ref(), opts.basis.0, (first, last), |tenant, note| {
        let key = (tenant.handle().to_string(), note.currency.to_string(), note.vat_rate);
        let line = sums.entry(key).or_default();
        line.credit_notes += 1;
        line.gross -= note.amount.0;
        line.vat -= note.vat.0;
        Ok(())
    })
    .context("cannot make the VAT report")?;
    let mut totals: BTreeMap<String, Sums> = BTreeMap::new();
    let mut rows = Rows::<Line>::new(opts.format.into());
    for ((stringer, currency, rate), line) in &sums {
        let total = totals.entry(currency.clone()).or_default();
        total.receipts += line.receipts;
        total.credit_notes += line.credit_notes;
        total.gross += line.gross;
        total.vat += line.vat;
        rows.push(&row(stringer, currency, *rate, line))?;
    }
    for (currency, total) in &totals {
        rows.push(&row("total", currency, None, total))?;
    }
    rows.finish()?;
    if sums.is_empty() && opts.format == Listed::Table {
        eprintln!("no receipts from {first} to {}", last.pred_opt().unwrap_or(last));
    }
    Ok(())
}

fn row(stringer: &str, currency: &str, rate: Option<VatRate>, sums: &Sums) -> Line {
    Line {
        stringer: stringer.to_string(),
        currency: currency.to_string(),
        vat_rate: output::cell(rate),
        receipts: sums.receipts,
        credit_notes: sums.credit_notes,
        gross: Price(sums.gross).to_string(),
        vat: Price(sums.vat).to_string(),
        net: Price(sums.gross - sums.vat).to_string(),
    }
}

/// The first day of the period and the first day after it.
fn period(opts: &Opts) -> Result<(NaiveDate, NaiveDate), Error> {
    let (first_month, months) = match (opts.quarter, opts.half, opts.month) {
        (Some(q), _, _) => (3 * (q - 1) + 1, 3),
        (_, Some(h), _) => (6 * (h - 1) + 1, 6),
        (_, _, Some(m)) => (m, 1),
        _ => (1, 12),
    };
    let first = NaiveDate::from_ymd_opt(opts.year, first_month, 1)
        .ok_or_else(|| Error::Usage(format!("{} is not a year of the calendar", opts.year)))?;
    let after = first
        .checked_add_months(Months::new(months))
        .ok_or_else(|| Error::Usage(format!("{} is not a year of the calendar", opts.year)))?;
    Ok((first, after))
}
