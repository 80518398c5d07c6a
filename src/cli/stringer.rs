//! `receipts stringer`: stringers added, listed, shown, and their profiles edited.

use super::output::{self, Shown};
use super::{one_of, Context};
use crate::db::reminders::SettingsEdit;
use crate::db::stringers::ProfileEdit;
use crate::db::Access;
use crate::domain::{
    check_country, check_email, check_siret, check_tax_code, check_vat_number, default_timezone, format_utc,
    local_date, now_utc, parse_timezone, siret_grouped, validate_handle, Currency, EinvoiceDefault, Language,
    Level, Price, ReceiptNumber, VatRate, MAX_TURNAROUND_HOURS,
};
use crate::ops;
use crate::payment::{check_bic, check_qr_text, Iban, QR_LIMITS};
use crate::receipt::pdf::check_printable;
use crate::Error;
use anyhow::Context as _;
use chrono::NaiveDate;
use chrono_tz::Tz;
use clap::{Args, Subcommand};
use serde::Serialize;
use tabled::Tabled;

#[expect(clippy::large_enum_variant, reason = "parsed once per process")]
#[derive(Debug, Subcommand)]
#[command(defer = true)]
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

/// An Italian tax regime, as FatturaPA names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Regime {
    /// Ordinary: VAT charged.
    #[value(name = "RF01")]
    Rf01,
    /// Forfettario: no VAT (art. 1, commi 54-89, L. 190/2014).
    #[value(name = "RF19")]
    Rf19,
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
    #[arg(long, value_parser = one_of::<Language>(super::names::<Language>()))]
    language: Option<Language>,
    /// National tax number (e.g. a German Steuernummer), printed when there is no VAT number
    #[arg(long)]
    tax_number: Option<String>,
    /// Italy: the stringer's codice fiscale, its tax number (checked by its check character)
    #[arg(long, value_name = "CODE", conflicts_with = "tax_number")]
    tax_code: Option<String>,
    /// Italy: the tax regime of FatturaPA, RF01 (ordinary, with VAT) or RF19 (forfettario: no
    /// VAT, the same as --small-business yes)
    #[arg(long, value_enum, conflicts_with = "small_business")]
    regime: Option<Regime>,
    /// A French business's SIRET (14 digits, spaces allowed), printed as SIRET
    #[arg(long)]
    siret: Option<String>,
    /// Exempt under the country's small-business rule (yes or no): documents then carry the
    /// country's note (Germany: § 19 UStG) and no VAT
    #[arg(long, value_name = "yes|no", value_parser = parse_yes_no)]
    small_business: Option<bool>,
    /// The VAT rate in percent (e.g. 8.1), in force from --vat-from on
    #[arg(long, value_name = "PERCENT", value_parser = clap::value_parser!(VatRate))]
    vat_rate: Option<VatRate>,
    /// The day the --vat-rate applies from [default: today]
    #[arg(long, value_name = "DATE", requires = "vat_rate", value_parser = super::parse_day)]
    vat_from: Option<NaiveDate>,
    /// The currency of new orders (ISO 4217, e.g. EUR) [default: CHF]
    #[arg(long, value_parser = clap::value_parser!(Currency))]
    currency: Option<Currency>,
    #[command(flatten)]
    bank: BankOpts,
    /// Hours from drop-off to the time a racket is promised, unless an order says (`order add
    /// --due`) [default: 24]
    #[arg(long, value_name = "HOURS", value_parser = clap::value_parser!(i32).range(1..=MAX_TURNAROUND_HOURS))]
    turnaround: Option<i32>,
    /// What a ready notice says of pickup: opening hours, where (empty to remove)
    #[arg(long, value_name = "TEXT")]
    pickup_note: Option<String>,
    /// Which documents are e-invoices (a PDF with its Factur-X XML) unless a command says:
    /// every one, none, or those of buyers with a VAT id [default: business]
    #[arg(long, value_enum)]
    einvoice: Option<EinvoiceDefault>,
    #[command(flatten)]
    reminders: RemindOpts,
}

// When unpaid invoices are reminded, and the fees. (No doc comment: see `BankOpts`.)
#[derive(Debug, Args)]
pub struct RemindOpts {
    /// Days after an invoice's due date that its first reminder is due (`remind --due`)
    /// [default: 7]
    #[arg(long, value_name = "DAYS", value_parser = clap::value_parser!(i32).range(0..=365))]
    remind_after: Option<i32>,
    /// Days after a reminder that the next level is due [default: 14]
    #[arg(long, value_name = "DAYS", value_parser = clap::value_parser!(i32).range(1..=365))]
    remind_every: Option<i32>,
    /// Never remind invoices numbered before this day (those chased by hand); empty to remove
    #[arg(long, value_name = "DATE")]
    remind_from: Option<String>,
    /// The fee a reminder level asks besides the open amount, e.g. 2=5.00 (LEVEL=, empty, for
    /// none) [default: none]; refused where the country's law allows none
    #[arg(long, value_name = "LEVEL=PRICE")]
    reminder_fee: Vec<String>,
}

impl RemindOpts {
    /// The settings to change, each value checked (65 naming the flag).
    fn edit(&self) -> Result<SettingsEdit, Error> {
        let from = match self.remind_from.as_deref().map(str::trim) {
            None => None,
            Some("") => Some(None),
            Some(day) => Some(Some(
                super::parse_day(day).map_err(|e| Error::Invalid { field: "remind-from", problem: e })?,
            )),
        };
        let mut fees = Vec::new();
        for text in &self.reminder_fee {
            let invalid = |problem: String| Error::Invalid { field: "reminder-fee", problem };
            let (level, price) = text
                .split_once('=')
                .ok_or_else(|| invalid(format!("is {text}: write LEVEL=PRICE, e.g. 2=5.00")))?;
            let level: Level = level.parse().map_err(invalid)?;
            let price = match price.trim() {
                "" => None,
                price => Some(price.parse::<Price>().map_err(|e| invalid(format!("{text}: {e}")))?),
            };
            fees.push((level, price));
        }
        Ok(SettingsEdit { after_days: self.remind_after, every_days: self.remind_every, from, fees })
    }
}

// Where invoices are paid to, and the structured address a QR-bill needs. (No doc comment: a flattened struct's would be the summary
// of the command it is in.)
#[derive(Debug, Args)]
pub struct BankOpts {
    /// The account invoices are paid to (spaces allowed; empty to remove): a Swiss or
    /// Liechtenstein IBAN puts a QR-bill on invoices, another an EPC QR code on EUR invoices
    #[arg(long)]
    iban: Option<String>,
    /// The bank's BIC, for the EPC QR code (optional)
    #[arg(long)]
    bic: Option<String>,
    /// The name the bank holds the account in, on the QR-bill and the EPC code, when it is
    /// not the business name (empty to go back to it)
    #[arg(long, value_name = "NAME")]
    account_holder: Option<String>,
    /// Days until an invoice is due [default: 30]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(i32).range(0..=365))]
    payment_days: Option<i32>,
    /// Street of the business's structured address (printed on documents and QR-bills)
    #[arg(long)]
    street: Option<String>,
    /// House number of the structured address
    #[arg(long)]
    house_number: Option<String>,
    /// Postcode of the structured address
    #[arg(long)]
    postcode: Option<String>,
    /// Town of the structured address
    #[arg(long)]
    town: Option<String>,
    /// Country of the structured address (ISO 3166, e.g. CH): it decides how documents write
    /// amounts and name the tax
    #[arg(long, value_name = "CC")]
    country: Option<String>,
}

fn parse_yes_no(text: &str) -> Result<bool, String> {
    match text.trim().to_ascii_lowercase().as_str() {
        "yes" | "true" => Ok(true),
        "no" | "false" => Ok(false),
        _ => Err(format!("\"{text}\" is neither yes nor no")),
    }
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
    tax_number: Option<String>,
    siret: Option<String>,
    small_business: bool,
    street: Option<String>,
    house_number: Option<String>,
    postcode: Option<String>,
    town: Option<String>,
    country: Option<String>,
    iban: Option<String>,
    bic: Option<String>,
    account_holder: Option<String>,
    payment_days: i32,
    currency: String,
    /// Which documents are e-invoices by default: yes, no, business.
    einvoice: &'static str,
    turnaround_hours: i32,
    pickup_note: Option<String>,
    /// The VAT rates, each from its date on.
    vat_rates: Vec<RateRow>,
    remind_after_days: i32,
    remind_every_days: i32,
    remind_from: Option<String>,
    /// The fee of reminder levels 1, 2 and 3 (none: null).
    reminder_fees: [Option<String>; 3],
    created_at: String,
    years: Vec<YearRow>,
}

#[derive(Serialize, Tabled)]
struct RateRow {
    from: String,
    /// In percent.
    rate: String,
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
    let added = ops::stringers::add(&mut db, &opts.handle, &name, zone)?;
    eprintln!("added stringer {} ({}, time zone {})", added.handle, added.business.name, added.zone);
    output::line(&added.handle)?;
    Ok(())
}

fn list(opts: ListOpts, ctx: &Context) -> anyhow::Result<()> {
    let mut db = ctx.open(Access::Read)?;
    let rows: Vec<StringerRow> = ops::stringers::list(&mut db)
        .context("cannot list the stringers")?
        .into_iter()
        .map(|s| StringerRow {
            handle: s.handle,
            name: s.business.name,
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
    let ops::stringers::Shown { stringer, counters, rates, reminders } =
        ops::stringers::show(&mut db, &opts.handle)?;
    let reminders_line = reminders_line(&reminders);
    let years: Vec<YearRow> = counters
        .into_iter()
        .map(|(year, counter)| YearRow { year, counter, next: ReceiptNumber::new(year, counter + 1) })
        .collect();
    let view = StringerView {
        handle: stringer.handle,
        name: stringer.business.name,
        timezone: stringer.zone.name().to_string(),
        address: (!stringer.business.address.is_empty()).then(|| stringer.business.address.join("\n")),
        email: stringer.business.email,
        phone: stringer.business.phone,
        vat_number: stringer.business.vat_number,
        language: stringer.language.map(|l| l.code().to_string()),
        tax_number: stringer.business.tax_number,
        siret: stringer.business.siret,
        small_business: stringer.business.small_business,
        street: stringer.business.street,
        house_number: stringer.business.house_number,
        postcode: stringer.business.postcode,
        town: stringer.business.town,
        country: stringer.business.country,
        iban: stringer.business.iban,
        bic: stringer.business.bic,
        account_holder: stringer.business.account_holder,
        payment_days: stringer.business.payment_days,
        currency: stringer.currency.to_string(),
        einvoice: stringer.einvoice.as_str(),
        turnaround_hours: stringer.turnaround_hours,
        pickup_note: stringer.pickup_note,
        vat_rates: rates
            .rates
            .iter()
            .map(|(from, rate)| RateRow { from: from.to_string(), rate: rate.to_string() })
            .collect(),
        remind_after_days: reminders.after_days,
        remind_every_days: reminders.every_days,
        remind_from: reminders.from.map(|day| day.to_string()),
        reminder_fees: reminders.fees.map(|fee| fee.map(|f| f.to_string())),
        created_at: format_utc(stringer.created_at),
        years,
    };
    if opts.format == Shown::Json {
        output::json(&view)?;
        return Ok(());
    }
    let address = view.address.as_ref().map(|a| a.replace('\n', "\n             "));
    let street = match (&view.street, &view.house_number) {
        (Some(street), Some(number)) => Some(format!("{street} {number}")),
        (street, _) => street.clone(),
    };
    let place = match (&view.country, &view.postcode, &view.town) {
        (Some(country), Some(postcode), Some(town)) => Some(format!("{country}-{postcode} {town}")),
        _ => None,
    };
    let iban = view.iban.as_ref().map(|iban| crate::payment::groups_of_four(iban));
    let siret = view.siret.as_deref().map(siret_grouped);
    let payment = format!("{} days, new orders in {}", view.payment_days, view.currency);
    let turnaround = format!("{} hours", view.turnaround_hours);
    let einvoices = match view.einvoice {
        "yes" => "every document that can be one".to_string(),
        "no" => "none: plain PDFs".to_string(),
        _ => "those of buyers with a VAT id".to_string(),
    };
    let small = view.small_business.then(|| "yes (no VAT, the country's note)".to_string());
    let rates = (!view.vat_rates.is_empty()).then(|| {
        view.vat_rates.iter().map(|r| format!("{} % from {}", r.rate, r.from)).collect::<Vec<_>>().join(", ")
    });
    let profile = [
        ("handle", Some(&view.handle)),
        ("name", Some(&view.name)),
        ("time zone", Some(&view.timezone)),
        ("street", street.as_ref()),
        ("place", place.as_ref()),
        ("address", address.as_ref()),
        ("email", view.email.as_ref()),
        ("phone", view.phone.as_ref()),
        ("VAT number", view.vat_number.as_ref()),
        ("VAT rates", rates.as_ref()),
        ("tax number", view.tax_number.as_ref()),
        ("SIRET", siret.as_ref()),
        ("small firm", small.as_ref()),
        ("IBAN", iban.as_ref()),
        ("BIC", view.bic.as_ref()),
        ("holder", view.account_holder.as_ref()),
        ("invoices", Some(&payment)),
        ("e-invoices", Some(&einvoices)),
        ("turnaround", Some(&turnaround)),
        ("pickup", view.pickup_note.as_ref()),
        ("reminders", Some(&reminders_line)),
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
    let bank = opts.bank;
    // Everything a document prints is checked here, where it is entered: a profile that was
    // accepted never makes a document fail later.
    let checked = |value: Option<String>, flag: &str, check: fn(&str) -> Result<String, String>| {
        value.map(|v| cleared_or(v, check)).transpose().map_err(|e| Error::BadInput(format!("{flag}: {e}")))
    };
    let email = checked(opts.email, "--email", check_email)?;
    let vat_number = checked(opts.vat_number, "--vat-number", check_vat_number)?;
    let iban = checked(bank.iban, "--iban", |v| Iban::parse(v).map(|iban| iban.as_str().to_string()))?;
    let bic = checked(bank.bic, "--bic", check_bic)?;
    let siret = checked(opts.siret, "--siret", check_siret)?;
    let account_holder = bank.account_holder.map(|holder| holder.trim().to_string());
    let country = checked(bank.country, "--country", check_country)?;
    for (field, text, limit) in [
        ("street", &bank.street, QR_LIMITS.street),
        ("house number", &bank.house_number, QR_LIMITS.house_number),
        ("postcode", &bank.postcode, QR_LIMITS.postcode),
        ("town", &bank.town, QR_LIMITS.town),
    ] {
        if let Some(text) = text {
            check_qr_text(field, text.trim(), limit)?;
        }
    }
    for (field, text) in [
        ("name", &name),
        ("address", &address),
        ("email", &email),
        ("phone", &opts.phone),
        ("VAT number", &vat_number),
        ("tax number", &opts.tax_number),
        ("account holder", &account_holder),
        ("street", &bank.street),
        ("house number", &bank.house_number),
        ("postcode", &bank.postcode),
        ("town", &bank.town),
    ] {
        if let Some(text) = text {
            check_printable(field, text)?;
        }
    }
    let reminders = opts.reminders.edit()?;
    let tax_number = match opts.tax_code.as_deref().map(str::trim) {
        Some("") => Some(String::new()),
        Some(code) => {
            Some(check_tax_code(code).map_err(|problem| Error::Invalid { field: "tax_code", problem })?)
        }
        None => opts.tax_number,
    };
    let small_business = opts.regime.map(|regime| regime == Regime::Rf19).or(opts.small_business);
    let mut db = ctx.open(Access::Write)?;
    let (edited, settings) = ops::stringers::edit(
        &mut db,
        &opts.handle,
        |tenant| {
            let vat_rate =
                opts.vat_rate.map(|rate| (rate, opts.vat_from.unwrap_or_else(|| today(tenant.zone()))));
            ProfileEdit {
                name,
                zone: opts.timezone,
                address,
                email,
                phone: opts.phone,
                vat_number,
                language: opts.language,
                tax_number,
                small_business,
                street: bank.street,
                house_number: bank.house_number,
                postcode: bank.postcode,
                town: bank.town,
                country,
                iban,
                bic,
                payment_days: bank.payment_days,
                currency: opts.currency,
                siret,
                account_holder,
                turnaround_hours: opts.turnaround,
                pickup_note: opts.pickup_note,
                vat_rate,
                einvoice: opts.einvoice,
            }
        },
        &reminders,
    )?;
    if let Some(settings) = settings {
        eprintln!("reminders of {}: {}", opts.handle, reminders_line(&settings));
        if edited.is_none() {
            return Ok(());
        }
    }
    match edited {
        Some(edited) => {
            eprintln!(
                "stringer {} updated ({}, time zone {})",
                edited.handle, edited.business.name, edited.zone
            );
            eprintln!("receipts issued before keep what they show; the change applies from the next one");
        }
        None => eprintln!("stringer {} already has these values: nothing changed", opts.handle),
    }
    Ok(())
}

/// The reminder settings in a line: "7 days after the due date, then every 14 days; fees
/// 1: none, 2: 5.00, 3: 10.00".
fn reminders_line(settings: &crate::db::reminders::Settings) -> String {
    let fees: Vec<String> = Level::ALL
        .iter()
        .map(|&level| match settings.fee(level) {
            Some(fee) => format!("{level}: {fee}"),
            None => format!("{level}: none"),
        })
        .collect();
    format!(
        "{} days after the due date, then every {} days; fees {}{}",
        settings.after_days,
        settings.every_days,
        fees.join(", "),
        settings.from.map(|from| format!("; invoices numbered from {from} on")).unwrap_or_default()
    )
}

/// Today, in a zone.
fn today(zone: Tz) -> NaiveDate {
    local_date(now_utc(), zone)
}

/// A profile value checked by `check`, or an empty one (which clears the field) as it is.
fn cleared_or(text: String, check: fn(&str) -> Result<String, String>) -> Result<String, String> {
    if text.trim().is_empty() {
        Ok(String::new())
    } else {
        check(&text)
    }
}
