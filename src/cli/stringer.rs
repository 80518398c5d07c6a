use super::{output, Context, Format};
use crate::db::stringers::{self, Profile};
use crate::db::{counters, Access};
use crate::domain::{
    default_timezone, format_utc, parse_timezone, validate_handle, Language, ReceiptNumber, StringerId,
};
use crate::Error;
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
    /// Show a stringer's profile and, per year, the counter and the next number
    Show(ShowOpts),
    /// Change a stringer's profile; a new time zone applies to future mints, and is refused if
    /// it would move an issued receipt into another year
    Edit(EditOpts),
}

#[derive(Debug, Args)]
pub struct AddOpts {
    /// Short unique name used with --stringer, e.g. stefan (case is ignored)
    #[arg(value_parser = validate_handle)]
    handle: String,
    /// Full name [default: the handle]
    #[arg(long)]
    name: Option<String>,
    /// IANA time zone that decides which year a receipt belongs to [default: the TZ
    /// environment variable, else this machine's zone, else UTC]
    #[arg(long, value_name = "TZ", value_parser = parse_timezone)]
    timezone: Option<Tz>,
}

#[derive(Debug, Args)]
pub struct ShowOpts {
    /// The stringer's handle
    #[arg(value_parser = validate_handle)]
    handle: String,
}

#[derive(Debug, Args)]
pub struct EditOpts {
    /// The stringer's handle
    #[arg(value_parser = validate_handle)]
    handle: String,
    /// Full (business) name
    #[arg(long)]
    name: Option<String>,
    /// IANA time zone for future mints
    #[arg(long, value_name = "TZ", value_parser = parse_timezone)]
    timezone: Option<Tz>,
    /// Postal address, printed on receipts: give it once per line (--address "Bahnhofstrasse 1"
    /// --address "8001 Zürich"), or in one value with \n between the lines
    #[arg(long, value_name = "LINE")]
    address: Vec<String>,
    /// Contact e-mail, printed on receipts
    #[arg(long)]
    email: Option<String>,
    /// Contact phone, printed on receipts
    #[arg(long)]
    phone: Option<String>,
    /// VAT number (e.g. CHE-123.456.789 MWST), only for a VAT-registered business: receipts then
    /// show it and "incl. VAT"
    #[arg(long)]
    vat_number: Option<String>,
    /// Language of receipts
    #[arg(long, value_enum)]
    language: Option<Language>,
}

#[derive(Serialize, Tabled)]
struct StringerRow {
    handle: String,
    name: String,
    timezone: String,
    #[tabled(skip)]
    created_at: String,
}

/// `stringer show`, as scripts read it.
#[derive(Serialize)]
struct StringerView {
    handle: String,
    name: String,
    timezone: String,
    address: Option<String>,
    email: Option<String>,
    phone: Option<String>,
    vat_number: Option<String>,
    language: Option<String>,
    created_at: String,
    years: Vec<YearRow>,
}

#[derive(Serialize, Tabled)]
struct YearRow {
    year: i32,
    /// The last number issued.
    counter: i64,
    next: ReceiptNumber,
}

pub fn run(cmd: Command, ctx: &Context) -> anyhow::Result<()> {
    let access = match cmd {
        Command::List | Command::Show(_) => Access::Read,
        Command::Add(_) | Command::Edit(_) => Access::Write,
    };
    let mut db = ctx.open(access)?;
    match cmd {
        Command::Add(opts) => {
            let name = opts.name.unwrap_or_else(|| opts.handle.clone());
            let timezone = match opts.timezone {
                Some(zone) => zone,
                None => default_timezone().map_err(Error::Usage)?,
            };
            let added = db.write(|conn| stringers::add(conn, &opts.handle, name.trim(), timezone))?;
            eprintln!("added stringer {} ({}, time zone {})", added.handle, added.name, added.timezone);
            output::line(&added.handle)?;
        }
        Command::List => {
            let rows: Vec<StringerRow> = db
                .read(|conn| Ok(stringers::list(conn)?))
                .context("cannot list the stringers")?
                .into_iter()
                .map(|s| StringerRow {
                    handle: s.handle,
                    name: s.name,
                    timezone: s.timezone,
                    created_at: format_utc(s.created_at),
                })
                .collect();
            output::rows(ctx.listing()?, &rows)?;
            if rows.is_empty() && ctx.listing()? == Format::Table {
                eprintln!("no stringers yet: add one with `receipts stringer add HANDLE`");
            }
        }
        Command::Show(opts) => {
            let (stringer, counters) = db.read(|conn| {
                let stringer = stringers::find(conn, &opts.handle)?;
                let counters = counters::of_stringer(conn, StringerId(stringer.id))?;
                Ok((stringer, counters))
            })?;
            let years: Vec<YearRow> = counters
                .into_iter()
                .map(|(year, counter)| YearRow { year, counter, next: ReceiptNumber::new(year, counter + 1) })
                .collect();
            let view = StringerView {
                handle: stringer.handle,
                name: stringer.name,
                timezone: stringer.timezone,
                address: stringer.address,
                email: stringer.email,
                phone: stringer.phone,
                vat_number: stringer.vat_number,
                language: stringer.language,
                created_at: format_utc(stringer.created_at),
                years,
            };
            match ctx.listing()? {
                Format::Json => output::json(&view)?,
                _ => {
                    let address = view.address.as_ref().map(|a| a.replace('\n', "\n             "));
                    let profile = [
                        ("handle", Some(&view.handle)),
                        ("name", Some(&view.name)),
                        ("time zone", Some(&view.timezone)),
                        ("address", address.as_ref()),
                        ("email", view.email.as_ref()),
                        ("phone", view.phone.as_ref()),
                        ("VAT number", view.vat_number.as_ref()),
                        ("language", view.language.as_ref()),
                    ];
                    let text: Vec<String> = profile
                        .iter()
                        .filter_map(|(field, value)| value.map(|v| format!("{field:<12} {v}")))
                        .collect();
                    output::line(&text.join("\n"))?;
                    if view.years.is_empty() {
                        output::line("no receipts yet")?;
                    } else {
                        output::rows(Format::Table, &view.years)?;
                    }
                }
            }
        }
        Command::Edit(opts) => {
            // Lines come as repeated flags, or in one value split by line breaks or by `\n`
            // as typed in a shell.
            let address = (!opts.address.is_empty()).then(|| opts.address.join("\n").replace("\\n", "\n"));
            let profile = Profile {
                name: opts.name.map(|n| n.trim().to_string()),
                timezone: opts.timezone,
                address,
                email: opts.email,
                phone: opts.phone,
                vat_number: opts.vat_number,
                language: opts.language,
            };
            let edited = db.write(|conn| stringers::edit(conn, &opts.handle, &profile))?;
            eprintln!("stringer {} updated ({}, time zone {})", edited.handle, edited.name, edited.timezone);
        }
    }
    Ok(())
}
