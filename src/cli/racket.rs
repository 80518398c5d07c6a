//! `receipts racket`: the customers' rackets added, edited, listed and shown with their
//! jobs.

use super::customer::RacketRow;
use super::output::{self, Shown};
use super::{one_of, Context, StringerOpt};
use crate::db::rackets::{Racket, RacketChanges};
use crate::db::{Access, Db, Tenant};
use crate::domain::{format_local, CustomerId, RacketId, Sport};
use crate::ops::register::{self, RacketNamed};
use crate::receipt::pdf::check_printable;
use crate::Error;
use clap::{Args, Subcommand};
use serde::Serialize;
use tabled::Tabled;

#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum Command {
    /// Add a racket to a customer (prints the id)
    Add(AddOpts),
    /// Change a racket's model, sport, pattern, tag or notes
    Edit(EditOpts),
    /// A customer's rackets
    List(ListOpts),
    /// A racket, by its id or its tag, and its jobs newest first
    Show(ShowOpts),
}

#[derive(Debug, Args)]
pub struct Details {
    /// E.g. "Babolat Pure Aero 2023"
    #[arg(long)]
    model: Option<String>,
    /// What it is played: how much string it takes when an order does not say
    #[arg(long, value_parser = one_of::<Sport>(super::names::<Sport>()))]
    sport: Option<Sport>,
    /// The string pattern, e.g. 16x19
    #[arg(long)]
    pattern: Option<String>,
    /// The shop's own mark on the frame, unique among the stringer's rackets
    #[arg(long)]
    tag: Option<String>,
    /// Internal notes, never printed
    #[arg(long)]
    notes: Option<String>,
}

impl Details {
    fn into_changes(self) -> Result<RacketChanges, Error> {
        for (field, text) in [("racket model", &self.model), ("pattern", &self.pattern), ("tag", &self.tag)] {
            if let Some(text) = text {
                check_printable(field, text)?;
            }
        }
        Ok(RacketChanges {
            model: self.model,
            sport: self.sport,
            pattern: self.pattern,
            tag: self.tag,
            notes: self.notes,
        })
    }
}

#[derive(Debug, Args)]
pub struct AddOpts {
    /// Whose racket it is
    #[arg(long, value_name = "ID")]
    customer: CustomerId,
    #[command(flatten)]
    details: Details,
    #[command(flatten)]
    stringer: StringerOpt,
}

#[derive(Debug, Args)]
pub struct EditOpts {
    /// The racket's id (`receipts racket list`)
    #[arg(value_name = "ID")]
    racket: RacketId,
    #[command(flatten)]
    details: Details,
    #[command(flatten)]
    stringer: StringerOpt,
}

#[derive(Debug, Args)]
pub struct ListOpts {
    /// Whose rackets
    #[arg(long, value_name = "ID")]
    customer: CustomerId,
    #[command(flatten)]
    stringer: StringerOpt,
    /// A table for people, JSON for scripts, or CSV for spreadsheets
    #[arg(long, value_enum, default_value_t)]
    format: output::Listed,
}

#[derive(Debug, Args)]
pub struct ShowOpts {
    /// The racket's id, or its tag
    #[arg(value_name = "ID|TAG")]
    racket: String,
    #[command(flatten)]
    stringer: StringerOpt,
    /// The racket for people, or JSON for scripts
    #[arg(long, value_enum, default_value_t)]
    format: Shown,
}

pub fn run(cmd: Command, ctx: &Context) -> anyhow::Result<()> {
    match cmd {
        Command::Add(opts) => add(opts, ctx),
        Command::Edit(opts) => edit(opts, ctx),
        Command::List(opts) => list(opts, ctx),
        Command::Show(opts) => show(opts, ctx),
    }
}

fn add(opts: AddOpts, ctx: &Context) -> anyhow::Result<()> {
    let changes = opts.details.into_changes()?;
    let mut db = ctx.open(Access::Write)?;
    let tenant = opts.stringer.whose().of_customer(&mut db, opts.customer)?;
    let id = register::add_racket(&mut db, &tenant, opts.customer, &changes)?;
    eprintln!("added racket {id} to customer {}", opts.customer);
    output::line(&id.to_string())?;
    Ok(())
}

fn edit(opts: EditOpts, ctx: &Context) -> anyhow::Result<()> {
    let changes = opts.details.into_changes()?;
    let mut db = ctx.open(Access::Write)?;
    let tenant = opts.stringer.whose().of_racket(&mut db, opts.racket)?;
    match register::edit_racket(&mut db, &tenant, opts.racket, &changes)? {
        Some(_) => eprintln!("racket {} updated", opts.racket),
        None => eprintln!("racket {} already has these values: nothing changed", opts.racket),
    }
    Ok(())
}

fn list(opts: ListOpts, ctx: &Context) -> anyhow::Result<()> {
    let mut db = ctx.open(Access::Read)?;
    let tenant = opts.stringer.whose().of_customer(&mut db, opts.customer)?;
    let rows: Vec<RacketRow> =
        register::rackets_of(&mut db, &tenant, opts.customer)?.iter().map(RacketRow::from).collect();
    if rows.is_empty() && opts.format == output::Listed::Table {
        eprintln!("customer {} has no racket in the register", opts.customer);
        return Ok(());
    }
    output::rows(opts.format, &rows)?;
    Ok(())
}

/// The racket named by id, or by tag (which needs its stringer: the one named, or the only
/// one).
fn named(db: &mut Db, stringer: &StringerOpt, named: &str) -> Result<(Tenant, Racket), Error> {
    match named.parse::<RacketId>() {
        Ok(id) => {
            let tenant = stringer.whose().of_racket(db, id)?;
            let racket = register::racket(db, &tenant, RacketNamed::Id(id))?;
            Ok((tenant, racket))
        }
        Err(_) => {
            let tenant = stringer.whose().required(db)?;
            let racket = register::racket(db, &tenant, RacketNamed::Tag(named))?;
            Ok((tenant, racket))
        }
    }
}

/// One job of a racket.
#[derive(Serialize, Tabled)]
struct Job {
    order: i64,
    /// When it was strung (the stringer's local time).
    #[tabled(display = "output::optional")]
    strung: Option<String>,
    #[tabled(display = "output::optional")]
    receipt: Option<String>,
    #[tabled(display = "output::optional")]
    string: Option<String>,
    #[tabled(display = "output::optional")]
    tension: Option<String>,
    /// Who strung it.
    stringer: String,
}

#[derive(Serialize)]
struct View {
    #[serde(flatten)]
    racket: RacketRow,
    customer: i64,
    customer_name: String,
    jobs: Vec<Job>,
}

fn show(opts: ShowOpts, ctx: &Context) -> anyhow::Result<()> {
    let mut db = ctx.open(Access::Read)?;
    let (tenant, racket) = named(&mut db, &opts.stringer, opts.racket.trim())?;
    let (customer, jobs) = register::racket_jobs(&mut db, &tenant, &racket)?;
    let zone = tenant.zone();
    let view = View {
        racket: RacketRow::from(&racket),
        customer: customer.id.0,
        customer_name: customer.name,
        jobs: jobs
            .iter()
            .map(|order| Job {
                order: order.id.0,
                strung: order.strung_at.map(|at| format_local(at, zone)),
                receipt: order.number.map(|n| n.to_string()),
                string: order.string.clone(),
                tension: order.tension.clone(),
                stringer: tenant.handle().to_string(),
            })
            .collect(),
    };
    if opts.format == Shown::Json {
        output::json(&view)?;
        return Ok(());
    }
    let title = racket.order_text().unwrap_or_else(|| format!("racket {}", racket.id));
    output::line(&format!(
        "racket {}: {title}, {}{} of customer {} ({})",
        racket.id,
        racket.sport,
        racket.pattern.as_ref().map(|p| format!(" {p}")).unwrap_or_default(),
        view.customer,
        view.customer_name
    ))?;
    if let Some(notes) = &racket.notes {
        output::line(&format!("notes: {notes}"))?;
    }
    if view.jobs.is_empty() {
        output::line("no job yet")?;
    } else {
        output::line("\njobs, newest first")?;
        output::rows(Shown::Table, &view.jobs)?;
    }
    Ok(())
}
