//! The receipt document the customer keeps: a `Receipt` value, built from the database by
//! `db::receipts`, and renderers that are pure functions of it (no clock, no database), so
//! the same order state always gives the same document, byte for byte.

mod labels;
pub mod pdf;
pub mod text;

use crate::domain::{Language, ReceiptNumber};
use chrono::NaiveDate;

pub use labels::Labels;

/// Everything a receipt shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Receipt {
    pub number: ReceiptNumber,
    pub language: Language,
    /// A re-issue the customer asked for.
    pub copy: bool,
    /// The reason, when the order is void.
    pub void_reason: Option<String>,
    pub business: Business,
    /// The paid date for a receipt, else the strung date (local dates of the stringer).
    pub issued_on: NaiveDate,
    /// When the work was done; unknown for an order that is no longer strung.
    pub service_date: Option<NaiveDate>,
    pub paid_on: Option<NaiveDate>,
    pub customer: Option<String>,
    pub racket: Option<String>,
    pub string: Option<String>,
    pub tension: Option<String>,
    pub amount: Option<Amount>,
    pub notes: Option<String>,
}

/// The stringer's business, as the receipt names it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Business {
    pub name: String,
    pub address: Vec<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
    /// Only a VAT-registered business has one, and only then does the receipt show VAT.
    pub vat_number: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Amount {
    /// Minor units (centimes).
    pub minor: i64,
    /// ISO 4217 code, e.g. CHF.
    pub currency: String,
}

/// What the document is, by the order's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Title {
    /// Paid: a receipt (Quittung).
    Receipt,
    /// Not paid yet: an invoice (Rechnung).
    Invoice,
}

impl Receipt {
    pub fn title(&self) -> Title {
        if self.paid_on.is_some() {
            Title::Receipt
        } else {
            Title::Invoice
        }
    }

    pub fn labels(&self) -> &'static Labels {
        Labels::of(self.language)
    }

    /// The lines of the document, top to bottom, as both renderers lay them out.
    pub fn lines(&self) -> Vec<Line> {
        let words = self.labels();
        let mut lines = Vec::new();
        if let Some(reason) = &self.void_reason {
            lines.push(Line::Alert(format!("{}: {reason}", words.void)));
        }
        lines.push(Line::Heading(self.business.name.clone()));
        for address in &self.business.address {
            lines.push(Line::Plain(address.clone()));
        }
        let contact: Vec<&str> =
            [self.business.email.as_deref(), self.business.phone.as_deref()].into_iter().flatten().collect();
        if !contact.is_empty() {
            lines.push(Line::Plain(contact.join(" · ")));
        }
        if let Some(vat) = &self.business.vat_number {
            lines.push(Line::Plain(format!("{} {vat}", words.vat_number)));
        }
        lines.push(Line::Gap);
        let title = match self.title() {
            Title::Receipt => words.receipt,
            Title::Invoice => words.invoice,
        };
        let title = if self.copy { format!("{title} ({})", words.copy) } else { title.to_string() };
        lines.push(Line::Title { title, number: format!("{} {}", words.number, self.number) });
        lines.push(Line::Gap);
        lines.push(Line::Field(words.date.into(), words.date_text(self.issued_on)));
        if let Some(date) = self.service_date {
            lines.push(Line::Field(words.service_date.into(), words.date_text(date)));
        }
        if let Some(customer) = &self.customer {
            lines.push(Line::Field(words.customer.into(), customer.clone()));
        }
        lines.push(Line::Gap);
        lines.push(Line::Section(words.work.into()));
        if let Some(racket) = &self.racket {
            lines.push(Line::Field(words.racket.into(), racket.clone()));
        }
        if let Some(string) = &self.string {
            lines.push(Line::Field(words.string.into(), string.clone()));
        }
        if let Some(tension) = &self.tension {
            lines.push(Line::Field(words.tension.into(), tension.clone()));
        }
        lines.push(Line::Gap);
        if let Some(amount) = &self.amount {
            let vat = self.business.vat_number.as_ref().map(|_| words.incl_vat.to_string());
            lines.push(Line::Total { label: words.amount.into(), amount: words.amount_text(amount), vat });
        }
        if let Some(paid) = self.paid_on {
            lines.push(Line::Plain(format!("{} {}", words.paid_on, words.date_text(paid))));
        }
        if let Some(notes) = &self.notes {
            lines.push(Line::Gap);
            lines.push(Line::Field(words.notes.into(), notes.clone()));
        }
        lines
    }
}

/// One piece of the layout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line {
    /// VOID and its reason, across the top.
    Alert(String),
    /// The business name.
    Heading(String),
    /// What a group of fields is about (the work done).
    Section(String),
    Plain(String),
    /// The document's title and its number.
    Title {
        title: String,
        number: String,
    },
    /// A label and its value.
    Field(String, String),
    /// The amount, and "incl. VAT" for a VAT-registered business.
    Total {
        label: String,
        amount: String,
        vat: Option<String>,
    },
    /// Vertical space.
    Gap,
}
