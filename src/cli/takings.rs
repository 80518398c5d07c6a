//! `receipts takings`: the till's count of a day or period, per method, currency and VAT
//! rate.

use super::output::{self, Listed};
use super::{Context, StringerOpt};
use crate::db::takings::{Counted, Days};
use crate::db::Access;
use crate::domain::{Price, Sums};
use crate::ops;
use crate::Error;
use chrono::NaiveDate;
use clap::Args;
use serde::Serialize;
use tabled::Tabled;

#[derive(Debug, Args)]
pub struct Opts {
    /// The day [default: today, in the stringer's calendar]
    #[arg(long, value_name = "DATE", value_parser = super::parse_day, conflicts_with_all = ["since", "until"])]
    date: Option<NaiveDate>,
    /// From this day on (with --until)
    #[arg(long, value_name = "DATE", value_parser = super::parse_day, requires = "until")]
    since: Option<NaiveDate>,
    /// Until this day, inclusive (with --since)
    #[arg(long, value_name = "DATE", value_parser = super::parse_day, requires = "since")]
    until: Option<NaiveDate>,
    #[command(flatten)]
    stringer: StringerOpt,
    /// A table for people, JSON for scripts, or CSV for spreadsheets
    #[arg(long, value_enum, default_value_t)]
    format: Listed,
}

/// The payments of one method in one currency at one VAT rate; or, with the method
/// `total`, all of a currency.
#[derive(Debug, Serialize, Tabled)]
struct Line {
    stringer: String,
    /// cash, card, twint, transfer, other; `unrecorded` for a payment entered without its
    /// method; `total` for the sum of a currency.
    method: String,
    currency: String,
    /// In percent; empty for payments without VAT.
    vat_rate: String,
    payments: i64,
    amount: String,
    /// The VAT the amount includes.
    vat: String,
}

pub fn run(opts: Opts, ctx: &Context) -> anyhow::Result<()> {
    if let (Some(since), Some(until)) = (opts.since, opts.until) {
        if until < since {
            return Err(Error::BadInput(format!("--until {until} lies before --since {since}")).into());
        }
    }
    let mut db = ctx.open(Access::Read)?;
    let named = opts.stringer.whose().optional(&mut db)?;
    let days = match (opts.date, opts.since, opts.until) {
        (Some(day), _, _) => Days::On(day),
        (None, Some(since), Some(until)) => Days::From(since, until),
        _ => Days::Today,
    };
    let counted = ops::takings::takings(&mut db, named.as_ref(), days)?;
    let mut lines = Vec::new();
    for Counted { tenant, money, .. } in &counted {
        let stringer = tenant.handle();
        for (currency, method, rate, sum) in money.in_order() {
            let rate = rate.map(|r| r.to_string());
            lines.push(line(stringer, method.to_string(), currency.to_string(), rate, &sum));
        }
        for (currency, sum) in money.totals() {
            lines.push(line(stringer, "total".into(), currency.to_string(), None, &sum));
        }
    }
    let days = counted.last().map(|c| (c.first, c.last));
    output::rows(opts.format, &lines)?;
    if lines.is_empty() && opts.format == Listed::Table {
        let period = match days {
            Some((first, last)) if first != last => format!("from {first} to {last}"),
            Some((day, _)) => format!("on {day}"),
            None => String::new(),
        };
        eprintln!("no payments {period}");
    }
    Ok(())
}

fn line(stringer: &str, method: String, currency: String, rate: Option<String>, sum: &Sums) -> Line {
    Line {
        stringer: stringer.to_string(),
        method,
        currency,
        vat_rate: rate.unwrap_or_default(),
        payments: sum.count,
        amount: Price(sum.amount).to_string(),
        vat: Price(sum.vat).to_string(),
    }
}
