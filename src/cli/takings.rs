use super::output::{self, Listed};
use super::{Context, StringerOpt};
use crate::db::orders::{self, Basis};
use crate::db::receipts::Frozen;
use crate::db::{Access, Tenant};
use crate::domain::{day_start, local_date, now_utc, Price, VatRate};
use crate::Error;
use chrono::NaiveDate;
use clap::Args;
use serde::Serialize;
use std::collections::BTreeMap;
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

#[derive(Default)]
struct Sums {
    payments: u64,
    amount: i64,
    vat: i64,
}

pub fn run(opts: Opts, ctx: &Context) -> anyhow::Result<()> {
    if let (Some(since), Some(until)) = (opts.since, opts.until) {
        if until < since {
            return Err(Error::BadInput(format!("--until {until} lies before --since {since}")).into());
        }
    }
    let mut db = ctx.open(Access::Read)?;
    let named = opts.stringer.optional(&mut db)?;
    // (stringer, currency, method, rate) in the order people read them.
    let mut sums: BTreeMap<(String, String, String, Option<VatRate>), Sums> = BTreeMap::new();
    let mut days = None;
    db.read(|conn| {
        let frozen = Frozen::load(conn, named.as_ref())?;
        let tenants = match &named {
            Some(tenant) => vec![tenant.clone()],
            None => Tenant::all(conn)?,
        };
        for tenant in &tenants {
            let zone = tenant.zone();
            let today = local_date(now_utc(), zone);
            let (first, last) = match (opts.date, opts.since, opts.until) {
                (Some(day), _, _) => (day, day),
                (None, Some(since), Some(until)) => (since, until),
                _ => (today, today),
            };
            days = Some((first, last));
            let until = last.succ_opt().unwrap_or(last);
            let bounds = (day_start(first, zone), day_start(until, zone));
            orders::for_each_in_period(conn, tenant, Basis::Received, bounds, |order| {
                let rate = frozen.vat_rate(&order, tenant).ok().flatten();
                let amount = order.total().map_or(0, |p| p.0);
                let method = order.payment_method.map_or("unrecorded".to_string(), |m| m.to_string());
                let key = (tenant.handle().to_string(), order.currency.to_string(), method, rate);
                let sum = sums.entry(key).or_default();
                sum.payments += 1;
                sum.amount += amount;
                sum.vat += rate.map_or(0, |r| r.included_in(amount));
                Ok(())
            })?;
        }
        Ok(())
    })?;
    let mut lines = Vec::new();
    let mut totals: BTreeMap<(String, String), Sums> = BTreeMap::new();
    for ((stringer, currency, method, rate), sum) in sums {
        let total = totals.entry((stringer.clone(), currency.clone())).or_default();
        total.payments += sum.payments;
        total.amount += sum.amount;
        total.vat += sum.vat;
        lines.push(line(stringer, method, currency, rate.map(|r| r.to_string()), &sum));
    }
    for ((stringer, currency), sum) in totals {
        lines.push(line(stringer, "total".into(), currency, None, &sum));
    }
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

fn line(stringer: String, method: String, currency: String, rate: Option<String>, sum: &Sums) -> Line {
    Line {
        stringer,
        method,
        currency,
        vat_rate: rate.unwrap_or_default(),
        payments: sum.payments,
        amount: Price(sum.amount).to_string(),
        vat: Price(sum.vat).to_string(),
    }
}
