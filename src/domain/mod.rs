//! The vocabulary of the product, free of SQL: receipt numbers, ids, order kinds, money
//! and the instants whose local calendar year decides a receipt's year.

mod business;
mod buyer;
mod credit;
mod day;
mod day_money;
mod iso;
pub mod journal;
mod language;
mod money;
pub mod nouns;
mod profile;
mod receipt_number;
mod reminder;
mod tension;
mod text;
mod time;
mod token;
mod vat;

pub use business::{till_law, Business, TillLaw};
pub use buyer::{
    check_buyer_reference, check_buyer_vat_id, check_sdi_code, check_tax_code, BuyerIds, EinvoiceDefault,
};
pub use credit::NoCredit;
pub use day::{strings_line, Due, Item, Length, MAX_TURNAROUND_HOURS};
pub use day_money::{owed_when_paid, DayMoney, MoneyLine, Movement, Sums};
pub use iso::check_country;
pub use language::Language;
pub use money::{Currency, Price};
pub use profile::{check_email, check_siret, check_vat_number, siret_grouped};
pub use receipt_number::{CreditNumber, NumberRange, ReceiptNumber, Series, SeriesRange};
pub use reminder::{fee_forbidden, reminder_due, LastReminder, Level, NoReminder};
pub use tension::check_tension;
pub use text::{count, fold, folded_letters};
pub use time::{
    check_not_future, check_past, check_strung_at, day_start, default_timezone, format_iso_local,
    format_local, format_utc, local_date, local_noon, local_year, now_utc, parse_day, parse_timezone,
    year_start, Dated, Timestamp, Unlikely, YEARS,
};
pub use token::random_token;
pub use vat::{address_limit_passed, VatRate};

use serde::Serialize;
use std::fmt;
use std::str::FromStr;

/// Row id of a stringer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct StringerId(pub i64);

/// Row id of an order; what `order add` prints and `mint --order` takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct OrderId(pub i64);

impl From<i64> for OrderId {
    fn from(id: i64) -> Self {
        OrderId(id)
    }
}

impl From<i64> for StringerId {
    fn from(id: i64) -> Self {
        StringerId(id)
    }
}

impl fmt::Display for OrderId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl FromStr for OrderId {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().parse::<i64>() {
            Ok(id) if id > 0 => Ok(OrderId(id)),
            _ => Err(format!("\"{s}\" is not an order id (a positive integer)")),
        }
    }
}

/// Row id of a customer in the register.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct CustomerId(pub i64);

/// Row id of a customer's racket.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct RacketId(pub i64);

macro_rules! row_id {
    ($type:ident, $what:literal) => {
        impl fmt::Display for $type {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.fmt(f)
            }
        }

        impl FromStr for $type {
            type Err = String;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                match s.trim().parse::<i64>() {
                    Ok(id) if id > 0 => Ok($type(id)),
                    _ => Err(format!(concat!("\"{}\" is not a ", $what, " id (a positive integer)"), s)),
                }
            }
        }
    };
}
row_id!(CustomerId, "customer");
row_id!(RacketId, "racket");

/// The sport a racket is strung for.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Default,
    Serialize,
    strum::VariantArray,
    strum::IntoStaticStr,
    strum::Display,
)]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
pub enum Sport {
    #[default]
    Tennis,
    Badminton,
    Squash,
}

impl Sport {
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

impl FromStr for Sport {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        named(s, "a sport")
    }
}

/// Whose racket it is: a paying client's, or the stringer's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum OrderKind {
    Client,
    #[serde(rename = "self")]
    Own,
}

impl OrderKind {
    pub fn as_str(self) -> &'static str {
        match self {
            OrderKind::Client => "client",
            OrderKind::Own => "self",
        }
    }
}

impl fmt::Display for OrderKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl TryFrom<String> for OrderKind {
    type Error = String;

    fn try_from(stored: String) -> Result<Self, Self::Error> {
        stored.parse()
    }
}

/// Where an order stands, as people ask: what is still to be strung, and for a numbered
/// client order, whether its money came in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum OrderStatus {
    /// Taken, not numbered yet.
    Open,
    /// A client's invoice, not paid, not due yet.
    Unpaid,
    /// A client's invoice past its due date.
    Overdue,
    Paid,
    /// The stringer's own racket, numbered: no money is asked.
    Own,
    /// Numbered and void: final.
    Void,
    /// Taken back in full by credit notes: nothing is owed.
    Credited,
}

impl OrderStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            OrderStatus::Open => "open",
            OrderStatus::Unpaid => "unpaid",
            OrderStatus::Overdue => "overdue",
            OrderStatus::Paid => "paid",
            OrderStatus::Own => "own",
            OrderStatus::Void => "void",
            OrderStatus::Credited => "credited",
        }
    }
}

impl fmt::Display for OrderStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One of `T`'s names, in any case, trimmed; else a refusal that says what the text is not
/// and lists what it could be: `"golf" is not a sport (expected tennis, badminton or squash)`.
pub fn named<T>(text: &str, what: &str) -> Result<T, String>
where
    T: strum::VariantArray + Copy + Into<&'static str>,
{
    let wanted = text.trim();
    let name = |value: &T| -> &'static str { (*value).into() };
    T::VARIANTS.iter().find(|value| name(value).eq_ignore_ascii_case(wanted)).copied().ok_or_else(|| {
        let names: Vec<&str> = T::VARIANTS.iter().map(name).collect();
        let expected = match names.split_last() {
            Some((last, [])) => last.to_string(),
            Some((last, others)) => format!("{} or {last}", others.join(", ")),
            None => String::new(),
        };
        format!("\"{text}\" is not {what} (expected {expected})")
    })
}

/// Which orders `order list --status` shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::VariantArray, strum::IntoStaticStr)]
#[strum(serialize_all = "lowercase")]
pub enum StatusFilter {
    /// Taken, not strung: no number yet.
    Open,
    /// Strung and numbered, not void.
    Strung,
    /// A client's racket strung, not picked up yet.
    Waiting,
    /// Paid, not void.
    Paid,
    /// Numbered, not paid, not void: money still to come.
    Unpaid,
    /// Unpaid past the invoice's due date.
    Overdue,
    /// Void.
    Void,
    /// Taken back in full by credit notes.
    Credited,
}

impl StatusFilter {
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// What `--help` says of it.
    pub fn meaning(self) -> &'static str {
        match self {
            StatusFilter::Open => "taken, not strung: no number yet",
            StatusFilter::Strung => "strung and numbered, not void",
            StatusFilter::Paid => "paid, not void",
            StatusFilter::Unpaid => "numbered, not paid, not void, not credited in full: money still to come",
            StatusFilter::Overdue => "unpaid past the invoice's due date (issue date and payment days)",
            StatusFilter::Void => "void",
            StatusFilter::Credited => "taken back in full by credit notes: nothing is owed",
            StatusFilter::Waiting => "a client's racket strung and not picked up yet",
        }
    }
}

impl FromStr for StatusFilter {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        named(s, "an order status")
    }
}

/// What a journal entry records.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, strum::VariantArray, strum::IntoStaticStr, strum::Display,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum EventKind {
    Mint,
    Void,
    Resync,
    V1Import,
    /// A change of a numbered order that its document does not print (payment, notes).
    Edit,
    /// A document e-mailed, accepted by the mail server.
    Send,
    /// A payment from the bank's file applied to an order.
    Payment,
    /// A bank transaction that needed attention, marked handled (`payments settle`).
    Settle,
    /// A customer entered twice, merged into the other.
    CustomerMerge,
    /// A customer forgotten (privacy law).
    CustomerForget,
    /// A ready notice, accepted by the mail server.
    Notify,
    /// The racket picked up by its owner.
    Pickup,
    /// A credit note issued: its number (in the credit series), the original, the amount.
    Credit,
    /// A restore declared by `resync-counters`: the chain's head it found.
    Restore,
    /// A day's closure: its number and digest (the closure itself is in `closures`).
    Closure,
    /// A signing key recorded (`key init`), or replaced (`key rotate`, signed by the old).
    Key,
    /// The documents issued before their events carried content hashes, sealed by a digest
    /// of their hashes (written once, by the migration).
    Seal,
    /// A reminder of an unpaid invoice issued: its level, what it asks and until when.
    Reminder,
    /// A field of the stringer's profile changed (what the next documents print), or a VAT
    /// rate recorded: from what to what.
    Profile,
    /// An e-invoice written: which form and file, and its SHA-256.
    Einvoice,
}

impl EventKind {
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

impl TryFrom<String> for EventKind {
    type Error = String;

    fn try_from(stored: String) -> Result<Self, Self::Error> {
        named(&stored, "a journal entry kind")
    }
}

/// How a payment came in: at the counter (cash, card, TWINT, other) or by the bank.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    strum::VariantArray,
    strum::IntoStaticStr,
    strum::Display,
)]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
pub enum PaymentMethod {
    Cash,
    Card,
    Twint,
    /// A bank transfer: what a bank file's payment is.
    Transfer,
    Other,
    /// Taken through the shop's own certified till (where the law wants one at the
    /// counter): the invoice is paid, but the till counts it, not this program.
    Till,
}

impl PaymentMethod {
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

impl FromStr for PaymentMethod {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        named(s, "a payment method")
    }
}

impl TryFrom<String> for PaymentMethod {
    type Error = String;

    fn try_from(stored: String) -> Result<Self, Self::Error> {
        stored.parse()
    }
}

/// How a credit note's money went back: a way of paying, or `none` (an unpaid invoice is
/// simply no longer owed).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, strum::VariantArray, strum::IntoStaticStr, strum::Display,
)]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
pub enum Refund {
    Cash,
    Card,
    Twint,
    Transfer,
    Other,
    Till,
    None,
}

impl Refund {
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// The way of paying the money went back by; None when none went back.
    pub fn method(self) -> Option<PaymentMethod> {
        match self {
            Refund::Cash => Some(PaymentMethod::Cash),
            Refund::Card => Some(PaymentMethod::Card),
            Refund::Twint => Some(PaymentMethod::Twint),
            Refund::Transfer => Some(PaymentMethod::Transfer),
            Refund::Other => Some(PaymentMethod::Other),
            Refund::Till => Some(PaymentMethod::Till),
            Refund::None => None,
        }
    }

    /// Paid back at the counter: the day's takings show it.
    pub fn at_the_counter(self) -> bool {
        matches!(self, Refund::Cash | Refund::Card | Refund::Twint)
    }
}

impl FromStr for Refund {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        named(s, "a refund method")
    }
}

impl TryFrom<String> for Refund {
    type Error = String;

    fn try_from(stored: String) -> Result<Self, Self::Error> {
        stored.parse()
    }
}

impl FromStr for OrderKind {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "client" => Ok(OrderKind::Client),
            "self" => Ok(OrderKind::Own),
            _ => Err(format!("\"{s}\" is not an order kind (expected client or self)")),
        }
    }
}

/// A stringer's handle: what people type after `--stringer`. Handles ignore case: they
/// are kept in lowercase, so `Stefan` and `stefan` are one stringer.
pub fn validate_handle(handle: &str) -> Result<String, String> {
    let valid = !handle.is_empty()
        && handle.len() <= 64
        && handle.chars().next().is_some_and(|c| c.is_ascii_alphanumeric())
        && handle.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if valid {
        Ok(handle.to_ascii_lowercase())
    } else {
        Err(format!(
            "\"{handle}\" is not a stringer handle (a-z without accents, digits, '.', '_' or '-', starting \
             with a letter or digit, at most 64 characters)"
        ))
    }
}
