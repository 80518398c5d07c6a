//! `receipts order`: orders taken, listed, shown, edited, unstrung, restrung, picked up and
//! deleted.

use super::order_view::{EinvoiceView, ItemView, OrderView, PartView};
use super::output::{self, Listed, Shown};
use super::{one_of, Context, StringerOpt};
use crate::db::intake::{Details, Intake, PostalText};
use crate::db::listings::Filter;
use crate::db::order_edit::Edit;
use crate::db::orders::{self, OrderChanges};
use crate::db::part_payments::{Paid, Payment};
use crate::db::Access;
use crate::domain::{
    check_not_future, check_past, format_local, now_utc, Currency, CustomerId, Due, Item, Length, OrderId,
    OrderKind, PaymentMethod, Price, RacketId, StatusFilter, Timestamp,
};
use crate::ops;
use crate::Error;
use anyhow::Context as _;
use chrono::NaiveDate;
use chrono::NaiveDateTime;
use clap::builder::PossibleValue;
use clap::{Args, Subcommand};
use strum::VariantArray;

#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum Command {
    /// Take an order (prints its id)
    Add(AddOpts),
    /// List orders
    List(ListOpts),
    /// Show one order, by its id or its receipt number (YYYY-NNNN, with --stringer)
    Show(ShowOpts),
    /// Change an order's details; its receipt number stays as it is
    Edit(EditOpts),
    /// Clear the strung time; the order keeps its receipt number
    Unstring(OrderOpts),
    /// Copy a numbered order into a new one, to be strung and numbered anew (prints the new id)
    Restring(OrderOpts),
    /// Delete an order taken by mistake; one with a receipt number can only be voided
    Delete(OrderOpts),
    /// The customer took the strung racket, and with --paid paid for it there and then
    Pickup(PickupOpts),
    /// Take a payment of a numbered invoice: all that is left to pay, or with --amount a part
    Pay(PayOpts),
}

#[derive(Debug, Args)]
pub struct PayOpts {
    /// The order: its id, or its receipt number (YYYY-NNNN, with --stringer)
    #[arg(value_name = "ORDER")]
    order: String,
    /// How it was paid (`till`: taken through the shop's own certified till)
    #[arg(long, value_name = "METHOD",
          value_parser = one_of::<PaymentMethod>(super::names::<PaymentMethod>()))]
    method: PaymentMethod,
    /// A part of what is left to pay [default: all of it]; the invoice stays open for the rest
    #[arg(long, value_name = "PRICE", value_parser = clap::value_parser!(Price))]
    amount: Option<Price>,
    /// When it was paid [default: now]; local time unless an offset is given
    #[arg(long, value_name = "WHEN")]
    at: Option<Timestamp>,
    /// Accept an --at before last year (a payment entered late)
    #[arg(long, requires = "at")]
    backdate: bool,
    #[command(flatten)]
    stringer: StringerOpt,
}

#[derive(Debug, Args)]
pub struct PickupOpts {
    /// The order: its id, or its receipt number (YYYY-NNNN, with --stringer)
    #[arg(value_name = "ORDER")]
    order: String,
    /// Paid on the spot, and how (`till`: taken through the shop's own certified till)
    #[arg(long, value_name = "METHOD",
          value_parser = one_of::<PaymentMethod>(super::names::<PaymentMethod>()))]
    paid: Option<PaymentMethod>,
    /// When it was picked up [default: now]; local time unless an offset is given
    #[arg(long, value_name = "WHEN")]
    at: Option<Timestamp>,
    /// Accept an --at before last year (a pickup entered late)
    #[arg(long, requires = "at")]
    backdate: bool,
    #[command(flatten)]
    stringer: StringerOpt,
}

#[derive(Debug, Args)]
pub struct AddOpts {
    #[command(flatten)]
    stringer: StringerOpt,
    /// A client's racket or the stringer's own
    #[arg(long, default_value = OrderKind::Client.as_str(),
          value_parser = one_of::<OrderKind>([OrderKind::Client, OrderKind::Own].map(|k| k.as_str().into())))]
    kind: OrderKind,
    #[command(flatten)]
    details: DetailOpts,
    /// When the order was taken [default: now]; local time unless an offset is given
    #[arg(long, value_name = "TIMESTAMP")]
    ordered_at: Option<Timestamp>,
    /// The customer of the register it is for: their name, e-mail and address fill the order
    /// [default: the one customer called --customer, a new one when there is none]
    #[arg(long, value_name = "ID", conflicts_with = "customer")]
    customer_id: Option<CustomerId>,
    /// The racket of the register: its model (and tag) become the order's racket
    /// [default: the customer's racket called --racket, a new one when there is none]
    #[arg(long, value_name = "ID", conflicts_with_all = ["racket_tag", "racket"])]
    racket_id: Option<RacketId>,
    /// The racket of the register by the shop's tag on its frame
    #[arg(long, value_name = "TAG", conflicts_with = "racket")]
    racket_tag: Option<String>,
    /// The same as last time: string, tension and price from the racket's last strung order,
    /// where not given
    #[arg(long)]
    same: bool,
}

// What an order is about, for `order add` and `order edit`. (No doc comment: a flattened struct's would be the summary
// of the command it is in.)
#[derive(Debug, Args)]
pub struct DetailOpts {
    /// The customer's name, printed on the receipt
    #[arg(long)]
    customer: Option<String>,
    /// The racket, e.g. "Babolat Pure Aero"
    #[arg(long)]
    racket: Option<String>,
    /// The string used, e.g. "RPM Blast 1.25"
    #[arg(long)]
    string: Option<String>,
    /// The tension, e.g. "24/23 kg"
    #[arg(long)]
    tension: Option<String>,
    /// The price, e.g. 35.00
    #[arg(long, value_parser = clap::value_parser!(Price), allow_hyphen_values = true)]
    price: Option<Price>,
    /// Currency of the price (ISO 4217) [default for a new order: the stringer's, see
    /// `stringer edit --currency`]
    #[arg(long, value_parser = clap::value_parser!(Currency))]
    currency: Option<Currency>,
    /// A note for the customer, printed on the receipt
    #[arg(long, value_name = "TEXT")]
    customer_note: Option<String>,
    /// The customer's address, printed under the name: once per line, or one value with \n
    /// between the lines
    #[arg(long, value_name = "LINE")]
    customer_address: Vec<String>,
    #[command(flatten)]
    customer_postal: CustomerPostal,
    /// Internal notes, never printed
    #[arg(long)]
    notes: Option<String>,
    /// The customer's e-mail address, where `receipts send` delivers documents
    #[arg(long, value_name = "ADDRESS")]
    email: Option<String>,
    /// When the racket is promised: a local time, or a span after the order was taken (+24h,
    /// +2d) [default for a new order: the stringer's turnaround, see `stringer edit
    /// --turnaround`]
    #[arg(long, value_name = "WHEN", value_parser = clap::value_parser!(Due))]
    due: Option<Due>,
    /// A line after the stringing line, printed with its price: "Overgrip=3.00" (repeat for
    /// more; on `order edit` the items given replace all of them)
    #[arg(long = "item", value_name = "TEXT=PRICE", value_parser = clap::value_parser!(Item))]
    items: Vec<Item>,
    /// The string it takes in metres [default: 12 for tennis, 10 for badminton and squash]
    #[arg(long, value_name = "METRES", value_parser = clap::value_parser!(Length))]
    string_length: Option<Length>,
    /// The customer brought the string (yes or no): none comes from stock
    #[arg(long, value_name = "yes|no", num_args = 0..=1, default_missing_value = "yes", value_parser = parse_yes_no)]
    own_string: Option<bool>,
    /// A hybrid's cross string (--string is then the mains): half the length from each
    #[arg(long, value_name = "STRING")]
    cross_string: Option<String>,
}

fn parse_yes_no(text: &str) -> Result<bool, String> {
    match text.trim().to_ascii_lowercase().as_str() {
        "yes" | "true" => Ok(true),
        "no" | "false" => Ok(false),
        _ => Err(format!("\"{text}\" is neither yes nor no")),
    }
}

// The customer's structured address, which fills a QR-bill's "Payable by". (No doc comment: a flattened struct's would be the summary
// of the command it is in.)
#[derive(Debug, Args)]
pub struct CustomerPostal {
    /// The customer's street, for the QR-bill (with --customer-postcode, --customer-town and
    /// --customer-country)
    #[arg(long, value_name = "STREET")]
    customer_street: Option<String>,
    /// The customer's house number, for the QR-bill
    #[arg(long, value_name = "NUMBER")]
    customer_house_number: Option<String>,
    /// The customer's postcode, for the QR-bill
    #[arg(long, value_name = "CODE")]
    customer_postcode: Option<String>,
    /// The customer's town, for the QR-bill
    #[arg(long, value_name = "TOWN")]
    customer_town: Option<String>,
    /// The customer's country (ISO 3166, e.g. CH), for the QR-bill
    #[arg(long, value_name = "CC")]
    customer_country: Option<String>,
}

impl DetailOpts {
    /// The details, checked by the library.
    fn into_changes(self) -> Result<(OrderChanges, Option<Due>, Vec<Item>), Error> {
        self.into_details().check()
    }

    /// The details as given, for the library to check (`intake::Details::check`).
    fn into_details(self) -> Details {
        let postal = self.customer_postal;
        Details {
            customer: self.customer,
            racket: self.racket,
            string: self.string,
            tension: self.tension,
            price: self.price,
            currency: self.currency,
            customer_note: self.customer_note,
            customer_address: (!self.customer_address.is_empty())
                .then(|| self.customer_address.join("\n").replace("\\n", "\n")),
            postal: PostalText {
                street: postal.customer_street,
                house_number: postal.customer_house_number,
                postcode: postal.customer_postcode,
                town: postal.customer_town,
                country: postal.customer_country,
            },
            notes: self.notes,
            email: self.email,
            due: self.due,
            items: self.items,
            string_length: self.string_length,
            own_string: self.own_string,
            cross_string: self.cross_string,
        }
    }
}

/// `--paid-at`: when the order was paid, or `none` to clear a payment recorded by mistake.
#[derive(Debug, Clone, Copy)]
enum PaidAt {
    On(Timestamp),
    Cleared,
}

fn parse_paid_at(text: &str) -> Result<PaidAt, String> {
    if text.trim().eq_ignore_ascii_case("none") {
        return Ok(PaidAt::Cleared);
    }
    Timestamp::parse(text).map(PaidAt::On)
}

#[derive(Debug, Args)]
pub struct ListOpts {
    /// Only this stringer's orders
    #[command(flatten)]
    stringer: StringerOpt,
    /// Only orders numbered in this year, in number order
    #[arg(long)]
    year: Option<i32>,
    /// Only orders in this state
    #[arg(long, value_parser = one_of::<StatusFilter>(
        StatusFilter::VARIANTS.iter().map(|s| PossibleValue::new(s.as_str()).help(s.meaning()))))]
    status: Option<StatusFilter>,
    /// Only customers whose name contains this (ignoring case)
    #[arg(long, value_name = "TEXT")]
    customer: Option<String>,
    /// Only orders of this day or later (strung, else taken; the stringer's local day)
    #[arg(long, value_name = "DATE", value_parser = super::parse_day)]
    since: Option<NaiveDate>,
    /// Only orders of this day or earlier
    #[arg(long, value_name = "DATE", value_parser = super::parse_day)]
    until: Option<NaiveDate>,
    /// Only orders for this customer of the register
    #[arg(long, value_name = "ID")]
    customer_id: Option<CustomerId>,
    /// Only orders for this racket of the register
    #[arg(long, value_name = "ID")]
    racket_id: Option<RacketId>,
    /// Only orders whose string contains this (case and accents ignored)
    #[arg(long, value_name = "TEXT")]
    string: Option<String>,
    /// Newest first
    #[arg(long)]
    newest: bool,
    /// At most this many orders
    #[arg(long, value_name = "N")]
    limit: Option<u64>,
    /// A table for people, JSON for scripts, or CSV for spreadsheets
    #[arg(long, value_enum, default_value_t)]
    format: Listed,
}

#[derive(Debug, Args)]
pub struct EditOpts {
    #[command(flatten)]
    target: OrderOpts,
    #[command(flatten)]
    details: DetailOpts,
    /// When the racket went back to its owner
    #[arg(long, value_name = "TIMESTAMP")]
    returned_at: Option<Timestamp>,
    /// When the order was paid; `none` clears a payment recorded by mistake (with --reason)
    #[arg(long, value_name = "TIMESTAMP|none", value_parser = parse_paid_at)]
    paid_at: Option<PaidAt>,
    /// How it was paid, with --paid-at (`till`: through the shop's own certified till)
    #[arg(long, value_name = "METHOD", requires = "paid_at",
          value_parser = one_of::<PaymentMethod>(super::names::<PaymentMethod>()))]
    method: Option<PaymentMethod>,
    /// Why, for the journal (needed to clear a payment)
    #[arg(long, value_name = "TEXT")]
    reason: Option<String>,
    /// Accept a --paid-at or --returned-at before last year (an old payment entered late)
    #[arg(long)]
    backdate: bool,
    /// Remove the items
    #[arg(long, conflicts_with = "items")]
    no_items: bool,
}

#[derive(Debug, Args)]
pub struct ShowOpts {
    /// The order id, or its receipt number (with --stringer)
    #[arg(value_name = "ID|NUMBER")]
    order: String,
    #[command(flatten)]
    stringer: StringerOpt,
    /// The order for people, or JSON for scripts
    #[arg(long, value_enum, default_value_t)]
    format: Shown,
}

#[derive(Debug, Args)]
pub struct OrderOpts {
    /// The order id
    #[arg(value_name = "ID")]
    order: OrderId,
    #[command(flatten)]
    stringer: StringerOpt,
}

pub fn run(cmd: Command, ctx: &Context) -> anyhow::Result<()> {
    match cmd {
        Command::Add(opts) => add(opts, ctx),
        Command::List(opts) => list(opts, ctx),
        Command::Show(opts) => show(opts, ctx),
        Command::Edit(opts) => edit(opts, ctx),
        Command::Unstring(opts) => unstring(opts, ctx),
        Command::Restring(opts) => restring(opts, ctx),
        Command::Delete(opts) => delete(opts, ctx),
        Command::Pickup(opts) => pickup(opts, ctx),
        Command::Pay(opts) => pay(opts, ctx),
    }
}

fn add(opts: AddOpts, ctx: &Context) -> anyhow::Result<()> {
    let mut db = ctx.open(Access::Write)?;
    let tenant = opts.stringer.whose().required(&mut db)?;
    let now = now_utc();
    let ordered_at = match opts.ordered_at {
        Some(at) => {
            let at = at.resolve(tenant.zone()).map_err(Error::Usage)?;
            check_not_future(at, now, tenant.zone(), "an order is taken once it is")
                .map_err(Error::BadInput)?;
            at
        }
        None => now,
    };
    let intake = Intake {
        customer: opts.customer_id,
        racket: opts.racket_id,
        racket_tag: opts.racket_tag,
        same: opts.same,
        ask_if_similar: false,
    };
    let details = opts.details.into_details();
    let (taken, address) = ops::orders::take(&mut db, &tenant, opts.kind, ordered_at, &intake, details)?;
    let id = taken.order;
    eprintln!("added order {id} for {}", tenant.handle());
    if let Some((customer, new)) = taken.customer {
        eprintln!("{} customer {customer}", if new { "the register gains" } else { "for" });
    }
    if let Some((racket, new)) = taken.racket {
        eprintln!("{} racket {racket}", if new { "the register gains" } else { "for" });
    }
    if let Some(last) = taken.copied_from {
        eprintln!("the same as last time: string, tension and price as order {last}");
    }
    warn_address(id, address);
    output::line(&id.to_string())?;
    Ok(())
}

fn list(opts: ListOpts, ctx: &Context) -> anyhow::Result<()> {
    let mut db = ctx.open(Access::Read)?;
    let tenant = opts.stringer.whose().optional(&mut db)?;
    let filter = Filter {
        year: opts.year,
        status: opts.status,
        customer: opts.customer,
        since: opts.since,
        until: opts.until,
        customer_id: opts.customer_id,
        racket_id: opts.racket_id,
        string: opts.string,
        newest: opts.newest,
    };
    // What an order's status says (its credit notes, its reminder) is never cut: the work
    // done is shortened, then left out, in a narrow terminal.
    let mut rows = output::Rows::<OrderView>::new(opts.format.into()).fitted(output::Fit {
        when_filled: &["credit notes", "reminder"],
        shorten_first: &["racket", "string", "customer"],
        leave_out: &["tension", "string", "stringer", "racket", "due"],
        whole: &["id", "receipt", "status", "credit notes", "reminder", "price"],
    });
    ops::orders::list(&mut db, tenant.as_ref(), &filter, opts.limit, |listed, billing| {
        Ok(rows.push(&OrderView::new(listed.order, listed.stringer, billing))?)
    })
    .context("cannot list the orders")?;
    rows.finish()?;
    Ok(())
}

fn show(opts: ShowOpts, ctx: &Context) -> anyhow::Result<()> {
    let mut db = ctx.open(Access::Read)?;
    let (tenant, order) = opts.stringer.whose().order_named(&mut db, &opts.order)?;
    let ops::views::OrderSeen { order, billing, items, einvoices, parts, .. } =
        ops::orders::show(&mut db, &tenant, order)?;
    let mut view = OrderView::new(order, &tenant, billing);
    view.part_payments = Some(parts.iter().map(|part| PartView::of(part, &tenant)).collect());
    view.einvoices = Some(einvoices.iter().map(|written| EinvoiceView::of(written, &tenant)).collect());
    view.items = Some(
        items
            .into_iter()
            .map(|item| ItemView {
                text: item.text,
                price: item.price.to_string(),
                price_minor: item.price.0,
            })
            .collect(),
    );
    match opts.format {
        Shown::Json => output::json(&view)?,
        Shown::Table => output::line(&view.details())?,
    }
    Ok(())
}

fn edit(opts: EditOpts, ctx: &Context) -> anyhow::Result<()> {
    let mut db = ctx.open(Access::Write)?;
    let order = opts.target.order;
    let tenant = opts.target.stringer.whose().of_order(&mut db, order)?;
    // Times of what happened: never in the future, this year or last unless --backdate.
    let happened = |at: Option<Timestamp>, done: &'static str| -> Result<Option<NaiveDateTime>, Error> {
        let Some(at) = at else { return Ok(None) };
        let at = at.resolve(tenant.zone()).map_err(Error::Usage)?;
        check_past(at, now_utc(), tenant.zone(), opts.backdate, done)?;
        Ok(Some(at))
    };
    let (details, due, items) = opts.details.into_changes()?;
    let edit = Edit {
        details,
        due,
        items: match (opts.no_items, items.is_empty()) {
            (true, _) => Some(Vec::new()),
            (false, true) => None,
            (false, false) => Some(items),
        },
        returned_at: happened(opts.returned_at, "picked up")?,
        paid_at: match opts.paid_at {
            None => None,
            Some(PaidAt::Cleared) => Some(None),
            Some(PaidAt::On(at)) => Some(happened(Some(at), "paid")?),
        },
        method: opts.method,
        reason: opts.reason.map(|r| r.trim().to_string()).filter(|r| !r.is_empty()),
    };
    let edited = ops::orders::edit(&mut db, &tenant, order, &edit)?;
    let Some((edited, address)) = edited else {
        eprintln!("order {order} already has these values: nothing changed");
        return Ok(());
    };
    match edited.number {
        Some(number) => eprintln!("order {order} updated; it keeps receipt {number}"),
        None => eprintln!("order {order} updated"),
    }
    warn_address(order, address);
    Ok(())
}

/// Said before the freeze: the mint will refuse an invoice above the small-amount limit
/// without the customer's address.
fn warn_address(order: OrderId, limit: Option<&str>) {
    if let Some(limit) = limit {
        eprintln!(
            "warning: order {order} is above {limit}, so its invoice must name the customer's address: \
             add it with `receipts order edit {order} --customer-address ...` before it is minted"
        );
    }
}

fn unstring(opts: OrderOpts, ctx: &Context) -> anyhow::Result<()> {
    let mut db = ctx.open(Access::Write)?;
    let tenant = opts.stringer.whose().of_order(&mut db, opts.order)?;
    let order = ops::orders::unstring(&mut db, &tenant, opts.order)?;
    match order.number {
        Some(number) => eprintln!("order {} is no longer strung; it keeps receipt {number}", opts.order),
        None => eprintln!("order {} is not strung", opts.order),
    }
    Ok(())
}

fn restring(opts: OrderOpts, ctx: &Context) -> anyhow::Result<()> {
    let mut db = ctx.open(Access::Write)?;
    let tenant = opts.stringer.whose().of_order(&mut db, opts.order)?;
    let id = ops::orders::restring(&mut db, &tenant, opts.order)?;
    eprintln!("order {id} restrings order {}; mint it when it is strung", opts.order);
    output::line(&id.to_string())?;
    Ok(())
}

/// When something at the counter happened: `--at` (not in the future, nor before last year
/// without `--backdate`), else now.
fn happened_at(
    at: Option<Timestamp>,
    tenant: &crate::db::Tenant,
    backdate: bool,
    done: &'static str,
) -> Result<NaiveDateTime, Error> {
    let now = now_utc();
    let Some(at) = at else { return Ok(now) };
    let at = at.resolve(tenant.zone()).map_err(Error::Usage)?;
    check_past(at, now, tenant.zone(), backdate, done)?;
    Ok(at)
}

fn pickup(opts: PickupOpts, ctx: &Context) -> anyhow::Result<()> {
    let mut db = ctx.open(Access::Write)?;
    let (tenant, order) = opts.stringer.whose().order_named(&mut db, &opts.order)?;
    let at = happened_at(opts.at, &tenant, opts.backdate, "picked up")?;
    let pickup = orders::Pickup { at, paid: opts.paid };
    let picked = ops::orders::pickup(&mut db, &tenant, order, pickup)?;
    let when = format_local(at, tenant.zone());
    match (opts.paid, picked.total()) {
        (Some(method), Some(total)) => {
            eprintln!("order {order} picked up {when}, paid {total} {} by {method}", picked.currency)
        }
        (Some(method), None) => eprintln!("order {order} picked up {when}, paid by {method}"),
        (None, _) if picked.paid_at.is_none() => {
            eprintln!("order {order} picked up {when}; not paid yet (its invoice stands)")
        }
        (None, _) => eprintln!("order {order} picked up {when}"),
    }
    Ok(())
}

fn pay(opts: PayOpts, ctx: &Context) -> anyhow::Result<()> {
    let mut db = ctx.open(Access::Write)?;
    let (tenant, order) = opts.stringer.whose().order_named(&mut db, &opts.order)?;
    let at = happened_at(opts.at, &tenant, opts.backdate, "paid")?;
    let payment = Payment { amount: opts.amount, method: opts.method, at };
    let Paid { order: paid, amount, settled } = ops::orders::pay(&mut db, &tenant, order, payment)?;
    let currency = &paid.currency;
    let number = paid.number.map(|n| format!(" ({n})")).unwrap_or_default();
    match paid.still_due() {
        Some(left) if !settled => eprintln!(
            "order {order}{number}: {amount} {currency} paid in part by {}; {left} {currency} left to pay",
            opts.method
        ),
        _ => eprintln!("order {order}{number}: {amount} {currency} paid by {}; paid in full", opts.method),
    }
    Ok(())
}

fn delete(opts: OrderOpts, ctx: &Context) -> anyhow::Result<()> {
    let mut db = ctx.open(Access::Write)?;
    let tenant = opts.stringer.whose().of_order(&mut db, opts.order)?;
    ops::orders::delete(&mut db, &tenant, opts.order)?;
    eprintln!("order {} deleted", opts.order);
    Ok(())
}
