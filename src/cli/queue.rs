//! `receipts queue`: the rackets to string and those waiting for pickup, the overdue first.

use super::output::{self, Format, Listed, Rows};
use super::{Context, StringerOpt};
use crate::db::queue::{Queue, Queued};
use crate::db::{Access, Tenant};
use crate::domain::{format_local, format_utc, local_date, now_utc};
use crate::ops;
use chrono::NaiveDateTime;
use clap::Args;
use serde::Serialize;
use tabled::Tabled;

#[derive(Debug, Args)]
pub struct Opts {
    /// Only this stringer's queue [default: every stringer's]
    #[command(flatten)]
    stringer: StringerOpt,
    /// A table for people, JSON for scripts, or CSV for spreadsheets
    #[arg(long, value_enum, default_value_t)]
    format: Listed,
}

pub fn run(opts: Opts, ctx: &Context) -> anyhow::Result<()> {
    let mut db = ctx.open(Access::Read)?;
    let now = now_utc();
    let tenants = opts.stringer.whose().or_all(&mut db)?;
    let queues = ops::reports::queues(&mut db, tenants, now)?;
    let rows: Vec<QueueRow> =
        queues.iter().flat_map(|(tenant, queue, _)| rows_of(tenant, queue, now)).collect();
    let format: Format = opts.format.into();
    if format != Format::Table {
        output::rows(format, &rows)?;
        for (_, _, low) in &queues {
            for string in low {
                eprintln!("warning: {}", super::strings::low_warning(string));
            }
        }
        return Ok(());
    }
    for (section, title) in [(Section::Open, "to string"), (Section::Waiting, "waiting for pickup")] {
        let shown: Vec<&QueueRow> = rows.iter().filter(|row| row.section == section).collect();
        output::line(&format!("{title} ({})", shown.len()))?;
        match section {
            _ if shown.is_empty() => {}
            Section::Open => table(shown.into_iter().map(OpenRow::from))?,
            Section::Waiting => table(shown.into_iter().map(WaitingRow::from))?,
        }
        output::line("")?;
    }
    for (_, _, low) in &queues {
        for string in low {
            output::line(&format!("low stock: {}", super::strings::low_warning(string)))?;
        }
    }
    Ok(())
}

/// A section's table, within a terminal's width.
fn table<R: Tabled + Serialize>(rows: impl Iterator<Item = R>) -> std::io::Result<()> {
    let mut table = Rows::new(Format::Table).within_terminal();
    for row in rows {
        table.push(&row)?;
    }
    table.finish().map(drop)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
enum Section {
    /// Still to be strung.
    Open,
    /// Strung, waiting for its owner.
    Waiting,
}

/// One order of the queue, as scripts read it: instants in UTC (RFC 3339).
#[derive(Debug, Serialize, Tabled)]
struct QueueRow {
    #[tabled(skip)]
    section: Section,
    stringer: String,
    order: i64,
    customer: String,
    /// The racket, and the shop's tag on it in brackets.
    racket: String,
    /// The string; a hybrid's as mains / crosses.
    string: String,
    tension: String,
    due_at: String,
    /// Promised before now and not strung.
    overdue: bool,
    /// The promised day in the stringer's calendar: overdue, today, tomorrow or the date.
    due: String,
    strung_at: String,
    /// Local calendar days since it was strung.
    #[tabled(display = "output::optional")]
    days_waiting: Option<i64>,
    #[tabled(display = "output::optional")]
    notified: Option<bool>,
    /// How it was paid (cash, card, ...), `paid` without a method on record, or `unpaid`.
    paid: String,
    /// `due` as a person reads it: "today 17:00".
    #[tabled(skip)]
    #[serde(skip)]
    due_local: String,
}

fn rows_of(tenant: &Tenant, queue: &Queue, now: NaiveDateTime) -> Vec<QueueRow> {
    let zone = tenant.zone();
    let today = local_date(now, zone);
    let row = |order: &Queued, section: Section| {
        let due_at = order.due();
        let overdue = order.is_overdue(now);
        let due = match due_at.map(|due| local_date(due, zone)) {
            _ if overdue => "overdue".to_string(),
            Some(day) if day == today => "today".to_string(),
            Some(day) if Some(day) == today.succ_opt() => "tomorrow".to_string(),
            Some(day) => day.to_string(),
            None => String::new(),
        };
        let time = due_at.map(|due| format_local(due, zone)).unwrap_or_default();
        let due_local = match due.as_str() {
            "today" | "tomorrow" => format!("{due} {}", time.get(11..).unwrap_or_default()),
            "overdue" => format!("OVERDUE {time}"),
            _ => time,
        };
        let paid = match (order.paid_at, order.payment_method) {
            (Some(_), Some(method)) => method.to_string(),
            (Some(_), None) => "paid".to_string(),
            (None, _) => "unpaid".to_string(),
        };
        QueueRow {
            section,
            stringer: tenant.handle().to_string(),
            order: order.id.0,
            customer: order.customer.clone().unwrap_or_default(),
            racket: order.racket.clone().unwrap_or_default(),
            string: order.string.clone().unwrap_or_default(),
            tension: order.tension.clone().unwrap_or_default(),
            due_at: due_at.map(format_utc).unwrap_or_default(),
            overdue,
            due,
            strung_at: order.strung_at.map(format_utc).unwrap_or_default(),
            days_waiting: order.strung_at.map(|at| (today - local_date(at, zone)).num_days()),
            notified: (section == Section::Waiting).then_some(order.notified_at.is_some()),
            paid,
            due_local,
        }
    };
    let open = queue.open.iter().map(|order| row(order, Section::Open));
    open.chain(queue.waiting.iter().map(|order| row(order, Section::Waiting))).collect()
}

/// The table of what is still to be strung.
#[derive(Tabled, Serialize)]
struct OpenRow {
    stringer: String,
    order: i64,
    due: String,
    customer: String,
    racket: String,
    string: String,
    tension: String,
}

impl From<&QueueRow> for OpenRow {
    fn from(row: &QueueRow) -> OpenRow {
        OpenRow {
            stringer: row.stringer.clone(),
            order: row.order,
            due: row.due_local.clone(),
            customer: row.customer.clone(),
            racket: row.racket.clone(),
            string: row.string.clone(),
            tension: row.tension.clone(),
        }
    }
}

/// The table of the rackets waiting for their owners.
#[derive(Tabled, Serialize)]
struct WaitingRow {
    stringer: String,
    order: i64,
    days: i64,
    customer: String,
    racket: String,
    told: &'static str,
    paid: String,
}

impl From<&QueueRow> for WaitingRow {
    fn from(row: &QueueRow) -> WaitingRow {
        WaitingRow {
            stringer: row.stringer.clone(),
            order: row.order,
            days: row.days_waiting.unwrap_or_default(),
            customer: row.customer.clone(),
            racket: row.racket.clone(),
            told: if row.notified == Some(true) { "yes" } else { "no" },
            paid: row.paid.clone(),
        }
    }
}
