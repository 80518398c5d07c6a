//! The vocabulary of the product, free of SQL: receipt numbers, ids, order kinds, money
//! and the instants whose local calendar year decides a receipt's year.

mod day;
mod iso;
mod language;
mod money;
mod profile;
mod receipt_number;
mod tension;
mod text;
mod time;
mod vat;

pub use day::{strings_line, Due, Item, Length, MAX_TURNAROUND_HOURS};
pub use iso::check_country;
pub use language::Language;
pub use money::{Currency, Price};
pub use profile::{check_email, check_siret, check_vat_number, siret_grouped};
pub use receipt_number::{NumberRange, ReceiptNumber};
pub use tension::check_tension;
pub use text::{count, fold, folded_letters};
pub use time::{
    check_not_future, check_past, check_strung_at, day_start, default_timezone, format_iso_local,
    format_local, format_utc, local_date, local_noon, local_year, now_utc, parse_day, parse_timezone,
    year_start, Dated, Timestamp, YEARS,
};
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Sport {
    #[default]
    Tennis,
    Badminton,
    Squash,
}

impl Sport {
    pub const ALL: [Sport; 3] = [Sport::Tennis, Sport::Badminton, Sport::Squash];

    pub fn as_str(self) -> &'static str {
        match self {
            Sport::Tennis => "tennis",
            Sport::Badminton => "badminton",
            Sport::Squash => "squash",
        }
    }
}

impl fmt::Display for Sport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Sport {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Sport::ALL
            .into_iter()
            .find(|sport| sport.as_str() == s.trim().to_ascii_lowercase())
            .ok_or_else(|| format!("\"{s}\" is not a sport (expected tennis, badminton or squash)"))
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
        }
    }
}

impl fmt::Display for OrderStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which orders `order list --status` shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatusFilter {
    /// Taken, not strung: no number yet.
    Open,
    /// Strung and numbered, not void.
    Strung,
    /// Paid, not void.
    Paid,
    /// Numbered, not paid, not void: money still to come.
    Unpaid,
    /// Unpaid past the invoice's due date.
    Overdue,
    /// Void.
    Void,
    /// A client's racket strung, not picked up yet.
    Waiting,
}

impl StatusFilter {
    pub const ALL: [StatusFilter; 7] = [
        StatusFilter::Open,
        StatusFilter::Strung,
        StatusFilter::Waiting,
        StatusFilter::Paid,
        StatusFilter::Unpaid,
        StatusFilter::Overdue,
        StatusFilter::Void,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            StatusFilter::Open => "open",
            StatusFilter::Strung => "strung",
            StatusFilter::Paid => "paid",
            StatusFilter::Unpaid => "unpaid",
            StatusFilter::Overdue => "overdue",
            StatusFilter::Void => "void",
            StatusFilter::Waiting => "waiting",
        }
    }

    /// What `--help` says of it.
    pub fn meaning(self) -> &'static str {
        match self {
            StatusFilter::Open => "taken, not strung: no number yet",
            StatusFilter::Strung => "strung and numbered, not void",
            StatusFilter::Paid => "paid, not void",
            StatusFilter::Unpaid => "numbered, not paid, not void: money still to come",
            StatusFilter::Overdue => "unpaid past the invoice's due date (issue date and payment days)",
            StatusFilter::Void => "void",
            StatusFilter::Waiting => "a client's racket strung and not picked up yet",
        }
    }
}

impl FromStr for StatusFilter {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        StatusFilter::ALL
            .into_iter()
            .find(|status| status.as_str() == s.trim().to_ascii_lowercase())
            .ok_or_else(|| {
                format!(
                    "\"{s}\" is not an order status (expected open, strung, waiting, paid, unpaid, overdue or void)"
                )
            })
    }
}

/// What a journal entry records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
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
}

impl EventKind {
    pub const ALL: [EventKind; 12] = [
        EventKind::Mint,
        EventKind::Void,
        EventKind::Resync,
        EventKind::V1Import,
        EventKind::Edit,
        EventKind::Send,
        EventKind::Payment,
        EventKind::Settle,
        EventKind::CustomerMerge,
        EventKind::CustomerForget,
        EventKind::Notify,
        EventKind::Pickup,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::Mint => "mint",
            EventKind::Void => "void",
            EventKind::Resync => "resync",
            EventKind::V1Import => "v1_import",
            EventKind::Edit => "edit",
            EventKind::Send => "send",
            EventKind::Payment => "payment",
            EventKind::Settle => "settle",
            EventKind::CustomerMerge => "customer_merge",
            EventKind::CustomerForget => "customer_forget",
            EventKind::Notify => "notify",
            EventKind::Pickup => "pickup",
        }
    }
}

impl fmt::Display for EventKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl TryFrom<String> for EventKind {
    type Error = String;

    fn try_from(stored: String) -> Result<Self, Self::Error> {
        EventKind::ALL
            .into_iter()
            .find(|kind| kind.as_str() == stored)
            .ok_or_else(|| format!("\"{stored}\" is not a journal entry kind"))
    }
}

/// How a payment came in: at the counter (cash, card, TWINT, other) or by the bank.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PaymentMethod {
    Cash,
    Card,
    Twint,
    /// A bank transfer: what a bank file's payment is.
    Transfer,
    Other,
}

impl PaymentMethod {
    pub const ALL: [PaymentMethod; 5] = [
        PaymentMethod::Cash,
        PaymentMethod::Card,
        PaymentMethod::Twint,
        PaymentMethod::Transfer,
        PaymentMethod::Other,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            PaymentMethod::Cash => "cash",
            PaymentMethod::Card => "card",
            PaymentMethod::Twint => "twint",
            PaymentMethod::Transfer => "transfer",
            PaymentMethod::Other => "other",
        }
    }
}

impl fmt::Display for PaymentMethod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for PaymentMethod {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        PaymentMethod::ALL.into_iter().find(|m| m.as_str() == s.trim().to_ascii_lowercase()).ok_or_else(
            || format!("\"{s}\" is not a payment method (expected cash, card, twint, transfer or other)"),
        )
    }
}

impl TryFrom<String> for PaymentMethod {
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
