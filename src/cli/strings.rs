//! `receipts strings`: reels recorded and the stock on the shelf.

use super::output::{self, Listed};
use super::{Context, StringerOpt};
use crate::db::stock::Stocked;
use crate::db::Access;
use crate::domain::{Length, Price};
use crate::ops;
use clap::{Args, Subcommand};
use serde::Serialize;
use tabled::Tabled;

#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum Command {
    /// Record a reel bought: the string is stocked, and every racket strung with it uses its
    /// length (prints the metres left)
    Add(AddOpts),
    /// Each stocked string: metres and rackets left, and whether it is low
    List(ListOpts),
}

#[derive(Debug, Args)]
pub struct AddOpts {
    /// The string as orders name it (case and accents ignored), e.g. "RPM Blast 1.25"
    name: String,
    /// The reel's length in metres, e.g. 200
    #[arg(long, value_name = "METRES", value_parser = clap::value_parser!(Length))]
    length: Length,
    /// What the reel cost, in the stringer's currency
    #[arg(long, value_name = "PRICE", value_parser = clap::value_parser!(Price))]
    cost: Option<Price>,
    /// Warn below this many metres [default: two rackets' worth]
    #[arg(long, value_name = "METRES", value_parser = clap::value_parser!(Length))]
    low: Option<Length>,
    #[command(flatten)]
    stringer: StringerOpt,
}

#[derive(Debug, Args)]
pub struct ListOpts {
    #[command(flatten)]
    stringer: StringerOpt,
    /// A table for people, JSON for scripts, or CSV for spreadsheets
    #[arg(long, value_enum, default_value_t)]
    format: Listed,
}

pub fn run(cmd: Command, ctx: &Context) -> anyhow::Result<()> {
    match cmd {
        Command::Add(opts) => add(opts, ctx),
        Command::List(opts) => list(opts, ctx),
    }
}

fn add(opts: AddOpts, ctx: &Context) -> anyhow::Result<()> {
    let mut db = ctx.open(Access::Write)?;
    let tenant = opts.stringer.whose().required(&mut db)?;
    let stocked = ops::strings::add_reel(&mut db, &tenant, &opts.name, opts.length, opts.cost, opts.low)?;
    eprintln!("{} of {} added: {} left", opts.length, stocked.name, stocked.left);
    output::line(&metres(stocked.left))?;
    Ok(())
}

fn list(opts: ListOpts, ctx: &Context) -> anyhow::Result<()> {
    let mut db = ctx.open(Access::Read)?;
    let tenant = opts.stringer.whose().required(&mut db)?;
    let stock = ops::strings::list(&mut db, &tenant)?;
    let rows: Vec<StockRow> = stock.iter().map(StockRow::from).collect();
    output::rows(opts.format, &rows)?;
    if rows.is_empty() && opts.format == Listed::Table {
        eprintln!("no strings in stock yet: record a reel with `receipts strings add NAME --length METRES`");
    }
    Ok(())
}

/// Metres as scripts read them: `188.5`.
fn metres(length: Length) -> String {
    format!("{}", f64::from(length.0) / 100.0)
}

#[derive(Serialize, Tabled)]
struct StockRow {
    string: String,
    /// Metres left.
    metres: String,
    rackets: i32,
    /// Metres below which it is low.
    low_below: String,
    low: bool,
}

impl From<&Stocked> for StockRow {
    fn from(stocked: &Stocked) -> StockRow {
        StockRow {
            string: stocked.name.clone(),
            metres: metres(stocked.left),
            rackets: stocked.rackets_left(),
            low_below: metres(stocked.low),
            low: stocked.is_low(),
        }
    }
}

/// The warning after a mint, and under the queue: one line per low string.
pub fn low_warning(stocked: &Stocked) -> String {
    format!(
        "{} is low: {} left, {} (record a reel with `receipts strings add \"{}\" --length METRES`)",
        stocked.name,
        stocked.left,
        match stocked.rackets_left() {
            1 => "1 racket".to_string(),
            n => format!("{n} rackets"),
        },
        stocked.name
    )
}
