use super::{output, Context, Format};
use crate::db::stringers;
use crate::domain::{format_utc, machine_timezone, parse_timezone, validate_handle};
use anyhow::Context as _;
use chrono_tz::Tz;
use clap::{Args, Subcommand};
use serde::Serialize;
use tabled::Tabled;

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Add a stringer (prints the handle)
    Add(AddOpts),
    /// List the stringers
    List,
}

#[derive(Debug, Args)]
pub struct AddOpts {
    /// Short unique name used with --stringer, e.g. stefan
    #[arg(value_parser = validate_handle)]
    handle: String,
    /// Full name [default: the handle]
    #[arg(long)]
    name: Option<String>,
    /// IANA time zone that decides which year a receipt belongs to [default: this machine's zone, or UTC]
    #[arg(long, value_name = "TZ", value_parser = parse_timezone)]
    timezone: Option<Tz>,
}

#[derive(Serialize, Tabled)]
struct StringerRow {
    handle: String,
    name: String,
    timezone: String,
    #[tabled(skip)]
    created_at: String,
}

pub fn run(cmd: Command, ctx: &Context) -> anyhow::Result<()> {
    let mut db = ctx.connect()?;
    match cmd {
        Command::Add(opts) => {
            let name = opts.name.unwrap_or_else(|| opts.handle.clone());
            let timezone = opts.timezone.unwrap_or_else(machine_timezone);
            let added = stringers::add(db.conn(), &opts.handle, name.trim(), timezone)?;
            eprintln!("added stringer {} ({}, {})", added.handle, added.name, added.timezone);
            output::line(&added.handle)?;
        }
        Command::List => {
            let rows: Vec<StringerRow> = stringers::list(db.conn())
                .map_err(crate::Error::from)
                .context("cannot list the stringers")?
                .into_iter()
                .map(|s| StringerRow {
                    handle: s.handle,
                    name: s.name,
                    timezone: s.timezone,
                    created_at: format_utc(s.created_at),
                })
                .collect();
            output::rows(ctx.format, &rows)?;
            if rows.is_empty() && ctx.format == Format::Table {
                eprintln!("no stringers yet: add one with `receipts stringer add HANDLE`");
            }
        }
    }
    Ok(())
}
