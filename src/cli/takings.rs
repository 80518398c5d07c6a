use super::output::{self, Listed};
use super::{Context, StringerOpt};
use crate::db::receipts::Frozen;
use crate::db::takings::{self, Sums};
use crate::db::{Access, Tenant};
use crate::domain::{local_date, now_utc, Price};
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
    payments: u64,
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
    let named = opts.stringer.optional(&mut db)?;
    let mut lines = Vec::new();
    let mut days = None;
    db.read(|conn| {
        let frozen = Frozen::load(conn, named.as_ref())?;
        let tenants = match &named {
            Some(tenant) => vec![tenant.clone()],
            None => Tenant::all(conn)?,
        };
        for tenant in &tenants {
            let today = local_date(now_utc(), tenant.zone());
            let (first, last) = match (opts.date, opts.since, opts.until) {
                (Some(day), _, _) => (day, day),
                (None, Some(since), Some(until)) => (since, until),
                _ => (today, today),
            };
            days = Some((first, last));
            let takings::Takings { sums, totals } = takings::of(conn, tenant, &frozen, first, last)?;
            let stringer = tenant.handle();
            for ((currency, method, rate), sum) in sums {
                lines.push(line(stringer, method, currency, rate.map(|r| r.to_string()), &sum));
            }
            for (currency, sum) in totals {
                lines.push(line(stringer, "total".into(), currency, None, &sum));
            }
        }
        Ok(())
    })?;
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
        payments: sum.payments,
        amount: Price(sum.amount).to_string(),
        vat: Price(sum.vat).to_string(),
    }
}
