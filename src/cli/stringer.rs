use super::output::{self, Shown};
use super::{one_of, Context};
use crate::db::stringers::{self, Profile};
use crate::db::{counters, Access, Tenant};
use crate::domain::{
    check_email, check_vat_number, default_timezone, format_utc, parse_timezone, validate_handle, Language,
    ReceiptNumber,
};
use crate::receipt::pdf::check_printable;
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
    List(ListOpts),
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
pub struct ListOpts {
    /// A table for people, or JSON for scripts
    #[arg(long, value_enum, default_value_t)]
    format: Shown,
}

#[derive(Debug, Args)]
pub struct ShowOpts {
    /// The stringer's handle
    #[arg(value_parser = validate_handle)]
    handle: String,
    /// The profile and counters for people, or JSON for scripts
    #[arg(long, value_enum, default_value_t)]
    format: Shown,
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
    /// VAT number (a Swiss UID like CHE-123.456.788 MWST, or an EU VAT number like
    /// DE123456789), only for a VAT-registered business: receipts then show it and the VAT
    #[arg(long)]
    vat_number: Option<String>,
    /// Language of receipts
    #[arg(long, value_parser = one_of::<Language>(Language::ALL.map(|l| l.code().into())))]
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
    match cmd {
        Command::Add(opts) => add(opts, ctx),
        Command::List(opts) => list(opts, ctx),
        Command::Show(opts) => show(opts, ctx),
        Command::Edit(opts) => edit(opts, ctx),
    }
}

fn add(opts: AddOpts, ctx: &Context) -> anyhow::Result<()> {
    let mut db = ctx.open(Access::Write)?;
    let name = opts.name.unwrap_or_else(|| opts.handle.clone());
    let zone = match opts.timezone {
        Some(zone) => zone,
        None => default_timezone().map_err(Error::Usage)?,
    };
    let added = db.write(|conn| stringers::add(conn, &opts.handle, name.trim(), zone))?;
    eprintln!("added stringer {} ({}, time zone {})", added.handle, added.name, added.zone);
    output::line(&added.handle)?;
    Ok(())
}

fn list(opts: ListOpts, ctx: &Context) -> anyhow::Result<()> {
    let mut db = ctx.open(Access::Read)?;
    let rows: Vec<StringerRow> = db
        .read(stringers::list)
        .context("cannot list the stringers")?
        .into_iter()
        .map(|s| StringerRow {
            handle: s.handle,
            name: s.name,
            timezone: s.zone.name().to_string(),
            created_at: format_utc(s.created_at),
        })
        .collect();
    output::rows(opts.format, &rows)?;
    if rows.is_empty() && opts.format == Shown::Table {
        eprintln!("no stringers yet: add one with `receipts stringer add HANDLE`");
    }
    Ok(())
}

fn show(opts: ShowOpts, ctx: &Context) -> anyhow::Result<()> {
    let mut db = ctx.open(Access::Read)?;
    let (stringer, counters) = db.read(|conn| {
        let tenant = Tenant::load(conn, &opts.handle)?;
        let stringer = stringers::profile(conn, &tenant)?;
        let counters = counters::of_stringer(conn, &tenant)?;
        Ok((stringer, counters))
    })?;
    let years: Vec<YearRow> = counters
        .into_iter()
        .map(|(year, counter)| YearRow { year, counter, next: ReceiptNumber::new(year, counter + 1) })
        .collect();
    let view = StringerView {
        handle: stringer.handle,
        name: stringer.name,
        timezone: stringer.zone.name().to_string(),
        address: stringer.address,
        email: stringer.email,
        phone: stringer.phone,
        vat_number: stringer.vat_number,
        language: stringer.language.map(|l| l.code().to_string()),
        created_at: format_utc(stringer.created_at),
        years,
    };
    if opts.format == Shown::Json {
        output::json(&view)?;
        return Ok(());
    }
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
    let text: Vec<String> =
        profile.iter().filter_map(|(field, value)| value.map(|v| format!("{field:<12} {v}"))).collect();
    output::line(&text.join("\n"))?;
    if view.years.is_empty() {
        output::line("no receipts yet")?;
    } else {
        output::rows(Shown::Table, &view.years)?;
    }
    Ok(())
}

fn edit(opts: EditOpts, ctx: &Context) -> anyhow::Result<()> {
    // Lines come as repeated flags, or in one value split by line breaks or by `\n` as typed
    // in a shell.
    let address = (!opts.address.is_empty()).then(|| opts.address.join("\n").replace("\\n", "\n"));
    let name = opts.name.map(|n| n.trim().to_string());
    // Everything a document prints is checked here, where it is entered: a profile that was
    // accepted never makes a document fail later.
    let email = opts.email.map(|e| cleared_or(e, check_email)).transpose().map_err(Error::BadInput)?;
    let vat_number =
        opts.vat_number.map(|v| cleared_or(v, check_vat_number)).transpose().map_err(Error::BadInput)?;
    for (field, text) in [
        ("name", &name),
        ("address", &address),
        ("email", &email),
        ("phone", &opts.phone),
        ("VAT number", &vat_number),
    ] {
        if let Some(text) = text {
            check_printable(field, text)?;
        }
    }
    let profile = Profile {
        name,
        zone: opts.timezone,
        address,
        email,
        phone: opts.phone,
        vat_number,
        language: opts.language,
    };
    let mut db = ctx.open(Access::Write)?;
    let edited = db.write(|conn| {
        let tenant = Tenant::load(conn, &opts.handle)?;
        stringers::edit(conn, &tenant, &profile)
    })?;
    match edited {
        Some(edited) => {
            eprintln!("stringer {} updated ({}, time zone {})", edited.handle, edited.name, edited.zone);
            eprintln!("receipts issued before keep what they show; the change applies from the next one");
        }
        None => eprintln!("stringer {} already has these values: nothing changed", opts.handle),
    }
    Ok(())
}

/// A profile value checked by `check`, or an empty one (which clears the field) as it is.
fn cleared_or(text: String, check: fn(&str) -> Result<String, String>) -> Result<String, String> {
    if text.trim().is_empty() {
        Ok(String::new())
    } else {
        check(&text)
    }
}
