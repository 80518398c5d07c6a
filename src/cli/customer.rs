//! `receipts customer`: the register's customers added, edited, found, shown, merged and
//! forgotten.

use super::output::{self, Listed, Rows, Shown};
use super::{Context, StringerOpt};
use crate::db::customers::{Customer, CustomerChanges};
use crate::db::{rackets, Access, Tenant};
use crate::domain::{check_country, check_email, format_local, CustomerId};
use crate::ops::register;
use crate::payment::{Postal, Who};
use crate::receipt::pdf::check_printable;
use crate::Error;
use clap::{Args, Subcommand};
use serde::Serialize;
use tabled::Tabled;

#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum Command {
    /// Add a customer to the register (prints the id)
    Add(AddOpts),
    /// Change a customer's name, contact, address or notes; issued documents keep theirs
    Edit(EditOpts),
    /// The register, or the customers found by part of their name, e-mail or phone number
    List(ListOpts),
    /// A customer: contact, rackets, and their orders newest first
    Show(ShowOpts),
    /// Move the orders and rackets of a customer entered twice to the other, and remove it
    Merge(MergeOpts),
    /// Forget a customer (privacy law): erase what issued documents need not keep
    Forget(ForgetOpts),
}

// A customer's details, for `add` and `edit`. (No doc comment: a flattened struct's would be the summary
// of the command it is in.)
#[derive(Debug, Args)]
pub struct Details {
    /// E-mail address, where documents and notices go
    #[arg(long, value_name = "ADDRESS")]
    email: Option<String>,
    /// Phone number, as the customer gives it (search reads its digits)
    #[arg(long)]
    phone: Option<String>,
    /// Street of the structured address (a QR-bill's "Payable by")
    #[arg(long)]
    street: Option<String>,
    /// House number of the structured address
    #[arg(long, value_name = "NUMBER")]
    house_number: Option<String>,
    /// Postcode of the structured address
    #[arg(long, value_name = "CODE")]
    postcode: Option<String>,
    /// Town of the structured address
    #[arg(long)]
    town: Option<String>,
    /// Country of the structured address (ISO 3166, e.g. CH)
    #[arg(long, value_name = "CC")]
    country: Option<String>,
    /// An address line, printed under the name (repeat for more lines, or \n between them)
    #[arg(long, value_name = "LINE")]
    address: Vec<String>,
    /// Internal notes, never printed
    #[arg(long)]
    notes: Option<String>,
    /// The customer's VAT identifier, for invoices to a business (e.g. DE123456789)
    #[arg(long, value_name = "ID")]
    vat_id: Option<String>,
    /// The reference the customer's bookkeeping routes invoices by (a German public body's
    /// Leitweg-ID)
    #[arg(long, value_name = "REF")]
    buyer_reference: Option<String>,
    /// Italy: the customer's codice fiscale
    #[arg(long, value_name = "CODE")]
    tax_code: Option<String>,
    /// Italy: the SdI recipient code (7 characters; 0000000 for PEC or a consumer)
    #[arg(long, value_name = "CODE")]
    sdi_code: Option<String>,
    /// Italy: the certified e-mail address (PEC) SdI delivers to
    #[arg(long, value_name = "ADDRESS")]
    pec: Option<String>,
}

#[derive(Debug, Args)]
pub struct AddOpts {
    /// The customer's name
    name: String,
    #[command(flatten)]
    details: Details,
    #[command(flatten)]
    stringer: StringerOpt,
}

#[derive(Debug, Args)]
pub struct EditOpts {
    /// The customer's id (`receipts customer list`)
    #[arg(value_name = "ID")]
    customer: CustomerId,
    /// The customer's name
    #[arg(long)]
    name: Option<String>,
    #[command(flatten)]
    details: Details,
    #[command(flatten)]
    stringer: StringerOpt,
}

#[derive(Debug, Args)]
pub struct ListOpts {
    /// Part of the name or e-mail (case and accents ignored), or of the phone number's digits
    #[arg(long, value_name = "TEXT")]
    search: Option<String>,
    #[command(flatten)]
    stringer: StringerOpt,
    /// A table for people, JSON for scripts, or CSV for spreadsheets
    #[arg(long, value_enum, default_value_t)]
    format: Listed,
}

#[derive(Debug, Args)]
pub struct ShowOpts {
    /// The customer's id (`receipts customer list`)
    #[arg(value_name = "ID")]
    customer: CustomerId,
    #[command(flatten)]
    stringer: StringerOpt,
    /// The customer for people, or JSON for scripts
    #[arg(long, value_enum, default_value_t)]
    format: Shown,
}

#[derive(Debug, Args)]
pub struct MergeOpts {
    /// The customer entered twice
    #[arg(value_name = "ID")]
    customer: CustomerId,
    /// The customer that stays
    #[arg(long, value_name = "ID")]
    into: CustomerId,
    #[command(flatten)]
    stringer: StringerOpt,
}

#[derive(Debug, Args)]
pub struct ForgetOpts {
    /// The customer's id (`receipts customer list`)
    #[arg(value_name = "ID")]
    customer: CustomerId,
    /// Why, for the journal (e.g. "asked to be forgotten on 2026-11-25")
    #[arg(long)]
    reason: String,
    #[command(flatten)]
    stringer: StringerOpt,
}

pub fn run(cmd: Command, ctx: &Context) -> anyhow::Result<()> {
    match cmd {
        Command::Add(opts) => add(opts, ctx),
        Command::Edit(opts) => edit(opts, ctx),
        Command::List(opts) => list(opts, ctx),
        Command::Show(opts) => show(opts, ctx),
        Command::Merge(opts) => merge(opts, ctx),
        Command::Forget(opts) => forget(opts, ctx),
    }
}

impl Details {
    /// The details checked where they are typed: an e-mail address, a complete structured
    /// address a QR-bill takes, printable text.
    fn into_changes(self, name: Option<String>) -> Result<CustomerChanges, Error> {
        let email = self.email.map(|e| if e.trim().is_empty() { Ok(String::new()) } else { check_email(&e) });
        let email = email.transpose().map_err(|e| Error::BadInput(format!("--email: {e}")))?;
        let address = (!self.address.is_empty()).then(|| self.address.join("\n").replace("\\n", "\n"));
        let given = [&self.street, &self.house_number, &self.postcode, &self.town, &self.country];
        let postal = if given.iter().all(|f| f.is_none()) {
            None
        } else {
            let required = |value: Option<String>, flag: &str| {
                value.map(|v| v.trim().to_string()).filter(|v| !v.is_empty()).ok_or_else(|| {
                    Error::BadInput(format!(
                        "a structured address needs --postcode, --town and --country: {flag} is missing"
                    ))
                })
            };
            let optional =
                |value: Option<String>| value.map(|v| v.trim().to_string()).filter(|v| !v.is_empty());
            let postal = Postal {
                street: optional(self.street),
                house_number: optional(self.house_number),
                postcode: required(self.postcode, "--postcode")?,
                town: required(self.town, "--town")?,
                country: check_country(&required(self.country, "--country")?)
                    .map_err(|e| Error::BadInput(format!("--country: {e}")))?,
            };
            postal.check(Who::Customer)?;
            Some(postal.stored())
        };
        for (field, text) in [("name", &name), ("address", &address), ("phone", &self.phone)] {
            if let Some(text) = text {
                check_printable(field, text)?;
            }
        }
        if let Some(postal) = postal.as_deref().and_then(Postal::from_stored) {
            for line in postal.lines() {
                check_printable("address", &line)?;
            }
        }
        let mut changes = CustomerChanges {
            name,
            email,
            phone: self.phone,
            address,
            postal,
            notes: self.notes,
            vat_id: self.vat_id,
            buyer_reference: self.buyer_reference,
            tax_code: self.tax_code,
            sdi_code: self.sdi_code,
            pec: self.pec,
        };
        register::check_business(&mut changes)?;
        Ok(changes)
    }
}

fn add(opts: AddOpts, ctx: &Context) -> anyhow::Result<()> {
    let changes = opts.details.into_changes(Some(opts.name))?;
    let mut db = ctx.open(Access::Write)?;
    let tenant = opts.stringer.whose().required(&mut db)?;
    let id = register::add_customer(&mut db, &tenant, &changes)?;
    eprintln!("added customer {id} for {}", tenant.handle());
    output::line(&id.to_string())?;
    Ok(())
}

fn edit(opts: EditOpts, ctx: &Context) -> anyhow::Result<()> {
    let changes = opts.details.into_changes(opts.name)?;
    let mut db = ctx.open(Access::Write)?;
    let tenant = opts.stringer.whose().of_customer(&mut db, opts.customer)?;
    match register::edit_customer(&mut db, &tenant, opts.customer, &changes)? {
        Some(_) => eprintln!(
            "customer {} updated; issued receipts keep what they show, and new orders take it",
            opts.customer
        ),
        None => eprintln!("customer {} already has these values: nothing changed", opts.customer),
    }
    Ok(())
}

/// One customer of a listing.
#[derive(Serialize, Tabled)]
struct Row {
    id: i64,
    stringer: String,
    name: String,
    #[tabled(display = "output::optional")]
    email: Option<String>,
    #[tabled(display = "output::optional")]
    phone: Option<String>,
    #[tabled(display = "output::optional")]
    town: Option<String>,
}

impl Row {
    fn of(customer: &Customer, tenant: &Tenant) -> Row {
        Row {
            id: customer.id.0,
            stringer: tenant.handle().to_string(),
            name: customer.name.clone(),
            email: customer.email.clone(),
            phone: customer.phone.clone(),
            town: customer.town(),
        }
    }
}

fn list(opts: ListOpts, ctx: &Context) -> anyhow::Result<()> {
    let mut db = ctx.open(Access::Read)?;
    let tenants = opts.stringer.whose().or_all(&mut db)?;
    let mut rows = Rows::<Row>::new(opts.format.into()).within_terminal();
    for (tenant, found) in register::search_customers(&mut db, &tenants, opts.search.as_deref())? {
        for customer in found {
            rows.push(&Row::of(&customer, &tenant))?;
        }
    }
    if rows.finish()? == 0 && opts.format == Listed::Table {
        eprintln!("no customer found");
    }
    Ok(())
}

/// A customer, as `customer show` gives it.
#[derive(Serialize)]
struct View {
    id: i64,
    stringer: String,
    name: String,
    email: Option<String>,
    phone: Option<String>,
    address: Vec<String>,
    notes: Option<String>,
    /// As a business names it on an invoice (SPEC 24).
    vat_id: Option<String>,
    buyer_reference: Option<String>,
    tax_code: Option<String>,
    sdi_code: Option<String>,
    pec: Option<String>,
    forgotten: bool,
    rackets: Vec<RacketRow>,
    history: Vec<HistoryRow>,
}

#[derive(Serialize, Tabled)]
pub(super) struct RacketRow {
    id: i64,
    #[tabled(display = "output::optional")]
    model: Option<String>,
    sport: String,
    #[tabled(display = "output::optional")]
    pattern: Option<String>,
    #[tabled(display = "output::optional")]
    tag: Option<String>,
    #[tabled(display = "output::optional")]
    notes: Option<String>,
}

impl From<&rackets::Racket> for RacketRow {
    fn from(racket: &rackets::Racket) -> RacketRow {
        RacketRow {
            id: racket.id.0,
            model: racket.model.clone(),
            sport: racket.sport.to_string(),
            pattern: racket.pattern.clone(),
            tag: racket.tag.clone(),
            notes: racket.notes.clone(),
        }
    }
}

/// One order of a customer's history.
#[derive(Serialize, Tabled)]
struct HistoryRow {
    order: i64,
    /// When it was taken (the stringer's local time).
    #[tabled(display = "output::optional")]
    date: Option<String>,
    #[tabled(display = "output::optional")]
    receipt: Option<String>,
    #[tabled(display = "output::optional")]
    racket: Option<String>,
    #[tabled(display = "output::optional")]
    string: Option<String>,
    #[tabled(display = "output::optional")]
    tension: Option<String>,
    #[tabled(display = "output::optional")]
    price: Option<String>,
    paid: bool,
}

fn show(opts: ShowOpts, ctx: &Context) -> anyhow::Result<()> {
    let mut db = ctx.open(Access::Read)?;
    let tenant = opts.stringer.whose().of_customer(&mut db, opts.customer)?;
    let register::CustomerSeen { customer, rackets, history } =
        register::customer(&mut db, &tenant, opts.customer)?;
    let zone = tenant.zone();
    let view = View {
        id: customer.id.0,
        stringer: tenant.handle().to_string(),
        name: customer.name.clone(),
        email: customer.email.clone(),
        phone: customer.phone.clone(),
        address: customer.address_lines(),
        notes: customer.notes.clone(),
        vat_id: customer.business.vat_id.clone(),
        buyer_reference: customer.business.reference.clone(),
        tax_code: customer.business.tax_code.clone(),
        sdi_code: customer.business.sdi_code.clone(),
        pec: customer.business.pec.clone(),
        forgotten: customer.forgotten_at.is_some(),
        rackets: rackets.iter().map(|(racket, _)| RacketRow::from(racket)).collect(),
        history: history
            .iter()
            .map(|order| HistoryRow {
                order: order.id.0,
                date: order.ordered_at.map(|at| format_local(at, zone)),
                receipt: order.number.map(|n| n.to_string()),
                racket: order.racket.clone(),
                string: order.string.clone(),
                tension: order.tension.clone(),
                price: order.price.map(|p| format!("{p} {}", order.currency)),
                paid: order.paid_at.is_some(),
            })
            .collect(),
    };
    if opts.format == Shown::Json {
        output::json(&view)?;
        return Ok(());
    }
    let mut lines = vec![format!("{:<9} {}", "customer", view.id), format!("{:<9} {}", "name", view.name)];
    for (field, value) in [("email", &view.email), ("phone", &view.phone), ("notes", &view.notes)] {
        if let Some(value) = value {
            lines.push(format!("{field:<9} {value}"));
        }
    }
    if !view.address.is_empty() {
        lines.push(format!("{:<9} {}", "address", view.address.join(", ")));
    }
    let business = [
        ("VAT id", &view.vat_id),
        ("reference", &view.buyer_reference),
        ("tax code", &view.tax_code),
        ("SdI code", &view.sdi_code),
        ("PEC", &view.pec),
    ];
    for (field, value) in business {
        if let Some(value) = value {
            lines.push(format!("{field:<9} {value}"));
        }
    }
    output::line(&lines.join("\n"))?;
    if !view.rackets.is_empty() {
        output::line("\nrackets")?;
        output::rows(Shown::Table, &view.rackets)?;
    }
    if !view.history.is_empty() {
        output::line("\norders, newest first")?;
        output::rows(Shown::Table, &view.history)?;
    }
    Ok(())
}

fn merge(opts: MergeOpts, ctx: &Context) -> anyhow::Result<()> {
    let mut db = ctx.open(Access::Write)?;
    let tenant = opts.stringer.whose().of_customer(&mut db, opts.customer)?;
    let merged = register::merge_customers(&mut db, &tenant, opts.customer, opts.into)?;
    eprintln!(
        "customer {} merged into customer {} ({}): {} and {} moved; journaled",
        opts.customer,
        merged.into.id,
        merged.into.name,
        output::count(merged.orders, "order"),
        output::count(merged.rackets, "racket")
    );
    Ok(())
}

fn forget(opts: ForgetOpts, ctx: &Context) -> anyhow::Result<()> {
    let mut db = ctx.open(Access::Write)?;
    let tenant = opts.stringer.whose().of_customer(&mut db, opts.customer)?;
    let forgotten = register::forget_customer(&mut db, &tenant, opts.customer, &opts.reason)?;
    eprintln!(
        "customer {} forgotten: e-mail, phone, addresses and notes erased, and the personal data of {} \
         without a number; journaled",
        opts.customer,
        output::count(forgotten.erased_orders, "order")
    );
    if !forgotten.kept.is_empty() {
        let kept: Vec<String> = forgotten.kept.iter().map(ToString::to_string).collect();
        eprintln!(
            "kept, as the law requires of issued documents for 10 years: the name and address printed on {} \
             ({})",
            output::count(kept.len(), "receipt"),
            kept.join(", ")
        );
    }
    Ok(())
}
