//! The receipt document the customer keeps: a `Receipt` value, built from the database by
//! `db::receipts` from what was frozen when the order was numbered, and renderers that are
//! pure functions of it (no clock, no database), so the same order state always gives the
//! same document, byte for byte.

mod canvas;
mod conventions;
mod credit;
pub mod label;
pub mod pdf;
pub mod reminder;
mod slip;
pub mod text;
mod words;

use crate::domain::{Business, Language, ReceiptNumber, VatRate};
use crate::payment::Slip;
use chrono::NaiveDate;

pub use conventions::Conventions;
pub use credit::CreditOf;
pub use reminder::ReminderOf;
pub use words::{SlipWords, Words};

/// Everything a receipt shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Receipt {
    /// The order it is the document of (a credit note's: the order it takes back).
    pub order: crate::domain::OrderId,
    pub number: ReceiptNumber,
    /// The stringer's own racket: a record of the work, asking for no money.
    pub own: bool,
    pub language: Language,
    /// A re-issue the customer asked for.
    pub copy: bool,
    /// The reason, when the order is void.
    pub void_reason: Option<String>,
    /// The business as the document's issuer version froze it.
    pub business: Business,
    /// Its country's conventions: how amounts are written, what its tax is called.
    pub conventions: Conventions,
    /// The paid date for a receipt, else the strung date (local dates of the stringer).
    pub issued_on: NaiveDate,
    /// When the work was done; unknown for an order that is no longer strung.
    pub service_date: Option<NaiveDate>,
    pub paid_on: Option<NaiveDate>,
    /// What an open invoice's part payments paid; its slip asks for the rest.
    pub part_paid: Option<Amount>,
    /// An invoice's due date: the issue date and the stringer's payment days.
    pub due_on: Option<NaiveDate>,
    pub customer: Option<String>,
    /// Printed under the customer's name.
    pub customer_address: Vec<String>,
    /// The customer's structured address, when the order has one (an e-invoice's buyer).
    pub customer_postal: Option<crate::payment::Postal>,
    /// The buyer's identifiers as a business (VAT id, reference), printed under the address.
    pub buyer: crate::domain::BuyerIds,
    pub racket: Option<String>,
    pub string: Option<String>,
    pub tension: Option<String>,
    /// A hybrid's cross string (`string` is then the mains).
    pub cross_string: Option<String>,
    /// The stringing's price, listed on its own line when items follow.
    pub stringing: Option<Amount>,
    /// Lines after the stringing: a grip, an overgrip, a rush surcharge.
    pub items: Vec<(String, Amount)>,
    /// The total: the stringing and the items.
    pub amount: Option<Amount>,
    /// The VAT rate the price includes, for a business that charges VAT.
    pub vat: Option<VatRate>,
    /// The note for the customer.
    pub notes: Option<String>,
    /// How the customer pays an invoice: a QR-bill or an EPC QR code.
    pub slip: Option<Slip>,
    /// Set for a credit note: the original it takes back, and how.
    pub credit: Option<CreditOf>,
    /// Set for a reminder: the invoice it chases, at which level, and what it asks.
    pub reminder: Option<ReminderOf>,
    /// The check value of the journal's event that issued it (`7F3A-91C2-0B5E`): a witness
    /// of the chain in the customer's hands. None for a document issued before the chain.
    pub check: Option<String>,
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
        if self.paid_on.is_some() || self.own {
            Title::Receipt
        } else {
            Title::Invoice
        }
    }

    /// The title in the document's language: "Rechnung"; a credit note's by its country.
    pub fn title_text(&self) -> &'static str {
        if self.credit.is_some() {
            return credit::title(self.language, self.conventions.country.as_deref());
        }
        if let Some(reminder) = &self.reminder {
            return reminder::title(self.language, reminder.level);
        }
        match self.title() {
            Title::Receipt => self.words().receipt,
            Title::Invoice => self.words().invoice,
        }
    }

    /// The document's number: the credit note's, a reminder's invoice's and level
    /// (`2026-0042/2`: a reminder takes no number of its own), else the receipt's.
    pub fn shown_number(&self) -> String {
        match (&self.credit, &self.reminder) {
            (Some(credit), _) => credit.number.to_string(),
            (None, Some(reminder)) => format!("{}/{}", reminder.invoice, reminder.level),
            (None, None) => self.number.to_string(),
        }
    }

    /// The business's address as the document prints it: the structured one, else the free
    /// lines.
    pub fn business_address(&self) -> Vec<String> {
        crate::payment::Postal::lines_of(&self.business)
    }

    pub fn words(&self) -> &'static Words {
        Words::of(self.language)
    }

    /// An amount as the business's country writes it.
    pub fn amount_text(&self, amount: &Amount) -> String {
        self.conventions.amount(self.language, amount)
    }

    /// The lines of the document, top to bottom, as both renderers lay them out. The
    /// payment part is not among them: each renderer draws it its own way.
    pub fn lines(&self) -> Vec<Line> {
        if let Some(credit) = &self.credit {
            return credit::lines(self, credit);
        }
        if let Some(reminder) = &self.reminder {
            return reminder::lines(self, reminder);
        }
        let words = self.words();
        let mut lines = Vec::new();
        if let Some(reason) = &self.void_reason {
            lines.push(Line::Alert(format!("{}: {reason}", words.void)));
        }
        lines.extend(self.seller_lines());
        let title = if self.copy {
            format!("{} ({})", self.title_text(), words.copy)
        } else {
            self.title_text().into()
        };
        lines.push(Line::Title { title, number: format!("{} {}", words.number, self.number) });
        lines.push(Line::Gap);
        lines.push(Line::Field(words.date.into(), words.date_text(self.issued_on)));
        lines.extend(self.customer_and_work());
        let conventions = &self.conventions;
        if !self.items.is_empty() {
            if let Some(stringing) = &self.stringing {
                lines.push(Line::Item { text: words.stringing.into(), amount: self.amount_text(stringing) });
            }
            for (text, amount) in &self.items {
                lines.push(Line::Item { text: text.clone(), amount: self.amount_text(amount) });
            }
        }
        if let Some(amount) = &self.amount {
            let vat = self.vat.map(|rate| {
                let included =
                    Amount { minor: rate.included_in(amount.minor), currency: amount.currency.clone() };
                format!("{}  {}", conventions.vat_included(self.language, rate), self.amount_text(&included))
            });
            lines.push(Line::Total { label: words.amount.into(), amount: self.amount_text(amount), vat });
        }
        if self.business.small_business {
            if let Some(note) = conventions.small_business_note() {
                lines.push(Line::Plain(note.into()));
            }
        }
        if let (Some(part), Some(amount)) = (&self.part_paid, &self.amount) {
            let left = Amount { minor: amount.minor - part.minor, currency: amount.currency.clone() };
            lines.push(Line::Item { text: words.paid_so_far.into(), amount: self.amount_text(part) });
            lines.push(Line::Item { text: words.left_to_pay.into(), amount: self.amount_text(&left) });
        }
        if let Some(paid) = self.paid_on {
            lines.push(Line::Plain(format!("{} {}", words.paid_on, words.date_text(paid))));
        }
        if let Some(due) = self.due_on {
            lines.push(Line::Plain(format!("{} {}", words.payable_until, words.date_text(due))));
        }
        if let Some(notes) = &self.notes {
            lines.push(Line::Gap);
            lines.push(Line::Field(words.notes.into(), notes.clone()));
        }
        lines.extend(self.check_line());
        lines
    }

    /// The check value's line, when the document has one.
    fn check_line(&self) -> Option<Line> {
        self.check.as_ref().map(|check| Line::Plain(format!("{} {check}", self.words().check)))
    }

    /// The business as the document's head shows it: name, address, contact, tax numbers.
    fn seller_lines(&self) -> Vec<Line> {
        let words = self.words();
        let mut lines = vec![Line::Heading(self.business.name.clone())];
        for address in self.business_address() {
            lines.push(Line::Plain(address));
        }
        let contact: Vec<&str> =
            [self.business.email.as_deref(), self.business.phone.as_deref()].into_iter().flatten().collect();
        if !contact.is_empty() {
            lines.push(Line::Plain(contact.join(" · ")));
        }
        match (&self.business.vat_number, &self.business.tax_number) {
            (Some(vat), _) => {
                lines.push(Line::Plain(format!("{} {vat}", self.conventions.vat_number(self.language))))
            }
            (None, Some(tax)) => lines.push(Line::Plain(format!("{} {tax}", words.tax_number))),
            (None, None) => {}
        }
        if let Some(siret) = &self.business.siret {
            lines.push(Line::Plain(format!("SIRET {}", crate::domain::siret_grouped(siret))));
        }
        lines.push(Line::Gap);
        lines
    }

    /// The service date, the customer and the work done, as the original froze them.
    fn customer_and_work(&self) -> Vec<Line> {
        let words = self.words();
        let mut lines = Vec::new();
        if let Some(date) = self.service_date {
            lines.push(Line::Field(words.service_date.into(), words.date_text(date)));
        }
        if let Some(customer) = &self.customer {
            let mut value = customer.clone();
            for line in &self.customer_address {
                value.push('\n');
                value.push_str(line);
            }
            if let Some(vat_id) = &self.buyer.vat_id {
                value.push_str(&format!("\n{} {vat_id}", self.conventions.vat_number(self.language)));
            }
            if let Some(reference) = &self.buyer.reference {
                value.push_str(&format!("\n{} {reference}", words.buyer_reference));
            }
            lines.push(Line::Field(words.customer.into(), value));
        }
        lines.push(Line::Gap);
        lines.push(Line::Section(words.work.into()));
        if let Some(racket) = &self.racket {
            lines.push(Line::Field(words.racket.into(), racket.clone()));
        }
        match (&self.string, &self.cross_string) {
            (Some(mains), Some(crosses)) => lines.push(Line::Field(
                words.string.into(),
                format!("{mains} ({})\n{crosses} ({})", words.mains, words.crosses),
            )),
            (Some(string), None) => lines.push(Line::Field(words.string.into(), string.clone())),
            (None, _) => {}
        }
        if let Some(tension) = &self.tension {
            lines.push(Line::Field(words.tension.into(), tension.clone()));
        }
        lines.push(Line::Gap);
        lines
    }

    /// The payment details as label and value, for the text document and beside an EPC
    /// QR code: account holder, IBAN, BIC, amount, reference, due date.
    pub fn payment_details(&self) -> Vec<(&'static str, String)> {
        let Some(slip) = &self.slip else { return Vec::new() };
        let words = self.words();
        let (holder, iban, bic, reference) = match slip {
            Slip::QrBill(bill) => (&bill.creditor.name, &bill.account, None, &bill.reference),
            Slip::Epc(epc) => (&epc.name, &epc.account, epc.bic.as_ref(), &epc.reference),
        };
        let mut details = vec![(words.account_holder, holder.clone()), ("IBAN", iban.grouped())];
        if let Some(bic) = bic {
            details.push((words.bic, bic.clone()));
        }
        if let Some(amount) = &self.amount {
            details.push((words.amount, self.amount_text(amount)));
        }
        details.push((words.reference, reference.printed()));
        if let Some(due) = self.due_on {
            details.push((words.payable_until, words.date_text(due)));
        }
        details
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
    /// A line of what is charged (the stringing, an item) and its amount.
    Item {
        text: String,
        amount: String,
    },
    /// The amount, and for a business that charges VAT the rate and the VAT included.
    Total {
        label: String,
        amount: String,
        vat: Option<String>,
    },
    /// Vertical space.
    Gap,
}

/// The name a receipt's PDF is saved and attached under, the same from every door:
/// `anna-2026-0001.pdf`.
pub fn file_name(handle: &str, number: &dyn std::fmt::Display) -> String {
    format!("{handle}-{number}.pdf")
}
