//! `receipts journal`: what happened to the numbers and documents, oldest first.

use super::output::{self, Listed, Rows};
use super::{Context, StringerOpt};
use crate::db::events::Logged;
use crate::db::Access;
use crate::domain::{format_iso_local, EventKind, ReceiptNumber};
use crate::ops;
use anyhow::Context as _;
use clap::Args;
use serde::Serialize;
use tabled::Tabled;

#[derive(Debug, Args)]
pub struct Opts {
    #[command(flatten)]
    stringer: StringerOpt,
    /// Only this year's numbers
    #[arg(long)]
    year: Option<i32>,
    /// A table for people, JSON for scripts, or CSV for spreadsheets
    #[arg(long, value_enum, default_value_t)]
    format: Listed,
}

/// One journal entry: when, what, which numbers, which order, the counter, why. Scripts get
/// numbers as numbers and nothing as null.
#[derive(Serialize, Tabled)]
struct Entry {
    /// Local time of the stringer, ISO 8601 with its offset (as the ledger writes it).
    when: String,
    what: String,
    stringer: String,
    numbers: String,
    #[tabled(display = "output::optional")]
    order: Option<i64>,
    /// The year of the counter that moved, and from and to.
    #[tabled(display = "output::optional")]
    counter_year: Option<i32>,
    #[tabled(display = "output::optional")]
    counter_old: Option<i64>,
    #[tabled(display = "output::optional")]
    counter_new: Option<i64>,
    #[tabled(display = "output::optional")]
    reason: Option<String>,
    /// For a change of a numbered order: which field, from what, to what.
    #[tabled(display = "output::optional")]
    field: Option<String>,
    #[tabled(display = "output::optional")]
    old: Option<String>,
    #[tabled(display = "output::optional")]
    new: Option<String>,
}

pub fn run(opts: Opts, ctx: &Context) -> anyhow::Result<()> {
    let mut db = ctx.open(Access::Read)?;
    let tenant = opts.stringer.whose().optional(&mut db)?;
    let mut rows = Rows::<Entry>::new(opts.format.into());
    ops::reports::journal(&mut db, tenant.as_ref(), opts.year, |e| Ok(rows.push(&entry(e))?))
        .context("cannot read the journal")?;
    if rows.finish()? == 0 && opts.format == Listed::Table {
        eprintln!("the journal is empty: no number was issued, voided or recounted yet");
    }
    Ok(())
}

fn entry(logged: Logged<'_>) -> Entry {
    let series = logged.series();
    let number = |seq: i64| series.number(ReceiptNumber::new(logged.year, seq));
    let numbers = match (logged.first_seq, logged.last_seq) {
        (Some(first), Some(last)) if first == last => number(first),
        (Some(first), Some(last)) => format!("{}..{}", number(first), number(last)),
        _ => String::new(),
    };
    let moved = logged.counter_old.is_some() || logged.counter_new.is_some();
    // A changed time is stored as an instant in UTC; it is shown like `when`, in the
    // stringer's zone with its offset.
    let zone = logged.stringer.zone();
    let local = |value: Option<String>| {
        value.map(|value| match chrono::DateTime::parse_from_rfc3339(&value) {
            Ok(at) if value.ends_with('Z') => format_iso_local(at.naive_utc(), zone),
            _ => value,
        })
    };
    let what = match logged.kind {
        EventKind::V1Import => "import".to_string(),
        kind => kind.to_string(),
    };
    Entry {
        when: format_iso_local(logged.created_at, logged.stringer.zone()),
        what,
        stringer: logged.stringer.handle().to_string(),
        numbers,
        order: logged.order.map(|o| o.0),
        counter_year: moved.then_some(logged.year),
        counter_old: logged.counter_old,
        counter_new: logged.counter_new,
        reason: logged.reason,
        field: logged.field,
        old: local(logged.old_value),
        new: local(logged.new_value),
    }
}
