use super::output::{choose, Format, Rows};
use super::{Context, StringerOpt};
use crate::db::events::{self, Logged};
use crate::db::Access;
use crate::domain::{format_local, parse_timezone, ReceiptNumber};
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
}

pub fn run(opts: Opts, ctx: &Context) -> anyhow::Result<()> {
    let format = choose(ctx.format, &[Format::Table, Format::Json, Format::Csv])?;
    let mut db = ctx.open(Access::Read)?;
    let tenant = opts.stringer.optional(&mut db)?;
    let mut rows = Rows::<Entry>::new(format);
    db.read(|conn| {
        events::for_each(conn, tenant.as_ref().map(|t| t.id), opts.year, |e| Ok(rows.push(&entry(e))?))
    })
    .context("cannot read the journal")?;
    if rows.finish()? == 0 && format == Format::Table {
        eprintln!("the journal is empty: no number was issued, voided or recounted yet");
    }
    Ok(())
}

fn entry(logged: Logged) -> Entry {
    let when = match parse_timezone(&logged.zone) {
        Ok(zone) => format!("{} {zone}", format_local(logged.created_at, zone)),
        Err(_) => format!("{} UTC", logged.created_at.format("%Y-%m-%d %H:%M")),
    };
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
    let what = match logged.kind.as_str() {
        "v1_import" => "import".to_string(),
        kind => kind.to_string(),
    };
    Entry {
        when,
        what,
        stringer: logged.stringer,
        numbers,
        order: logged.order_id.map(|o| o.to_string()).unwrap_or_default(),
        counter,
        reason: logged.reason.unwrap_or_default(),
    }
}
