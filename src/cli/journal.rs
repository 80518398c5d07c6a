use super::output::{Listed, Rows};
use super::{Context, StringerOpt};
use crate::db::events::{self, Logged};
use crate::db::Access;
use crate::domain::{format_local, EventKind, ReceiptNumber};
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

/// One journal entry for people: when, what, which numbers, which order, the counter, why.
#[derive(Serialize, Tabled)]
struct Entry {
    /// Local time of the stringer.
    when: String,
    what: String,
    stringer: String,
    numbers: String,
    order: String,
    counter: String,
    reason: String,
    /// For a change of a numbered order: which field, from what, to what.
    field: String,
    old: String,
    new: String,
}

pub fn run(opts: Opts, ctx: &Context) -> anyhow::Result<()> {
    let mut db = ctx.open(Access::Read)?;
    let tenant = opts.stringer.optional(&mut db)?;
    let mut rows = Rows::<Entry>::new(opts.format.into());
    db.read(|conn| events::for_each(conn, tenant.as_ref(), opts.year, |e| Ok(rows.push(&entry(e))?)))
        .context("cannot read the journal")?;
    if rows.finish()? == 0 && opts.format == Listed::Table {
        eprintln!("the journal is empty: no number was issued, voided or recounted yet");
    }
    Ok(())
}

fn entry(logged: Logged<'_>) -> Entry {
    let zone = logged.stringer.zone();
    let when = format!("{} {zone}", format_local(logged.created_at, zone));
    let number = |seq: i64| ReceiptNumber::new(logged.year, seq);
    let numbers = match (logged.first_seq, logged.last_seq) {
        (Some(first), Some(last)) if first == last => number(first).to_string(),
        (Some(first), Some(last)) => format!("{}..{}", number(first), number(last)),
        _ => String::new(),
    };
    let counter = match (logged.counter_old, logged.counter_new) {
        (Some(old), Some(new)) => format!("{} {old} -> {new}", logged.year),
        _ => String::new(),
    };
    let what = match logged.kind {
        EventKind::V1Import => "import".to_string(),
        kind => kind.to_string(),
    };
    Entry {
        when,
        what,
        stringer: logged.stringer.handle().to_string(),
        numbers,
        order: logged.order.map(|o| o.to_string()).unwrap_or_default(),
        counter,
        reason: logged.reason.unwrap_or_default(),
        field: logged.field.unwrap_or_default(),
        old: logged.old_value.unwrap_or_default(),
        new: logged.new_value.unwrap_or_default(),
    }
}
