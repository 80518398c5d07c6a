//! E-invoices (SPEC 24): the same document as data. `cii` writes the EN 16931 XML that
//! Factur-X and ZUGFeRD carry, `hybrid` embeds it in the PDF/A-3 document. Both read only
//! the `Receipt`, as the PDF does, after `check` has refused what EN 16931 cannot carry.

pub mod cii;
pub mod fatturapa;
pub mod hybrid;
mod xml;

use crate::domain::VatRate;
use crate::error::Error;
use crate::payment::Postal;
use crate::receipt::Receipt;

/// The name the XML has inside a hybrid, and that Factur-X readers look for.
pub const XML_NAME: &str = "factur-x.xml";

/// Whether the document can be an e-invoice: an invoice, receipt or credit note with an
/// amount, a seller with a structured address and a VAT id or tax number, a buyer with a
/// name and a structured address with its country, and texts EN 16931 can carry. Refused
/// naming the field, before anything is written.
pub fn check(receipt: &Receipt) -> Result<(), Error> {
    let refuse = |field: &'static str, problem: &str| {
        Err(Error::NotForEinvoice { number: receipt.shown_number(), field, problem: problem.to_string() })
    };
    if receipt.reminder.is_some() {
        return refuse("document", "is a reminder, which is no invoice");
    }
    if receipt.void_reason.is_some() {
        return refuse("document", "is void");
    }
    if receipt.own || receipt.amount.is_none() {
        return refuse("price", "is missing: the stringer's own racket asks for no money");
    }
    let business = &receipt.business;
    if Postal::of(business).is_none() {
        return refuse(
            "stringer address",
            "is not structured: set --postcode, --town and --country (receipts stringer edit)",
        );
    }
    if business.vat_number.is_none() && business.tax_number.is_none() {
        return refuse("stringer VAT number", "is missing, and so is a tax number (receipts stringer edit)");
    }
    if receipt.customer.as_deref().is_none_or(|name| name.trim().is_empty()) {
        return refuse("customer", "is missing: an e-invoice names its buyer");
    }
    if receipt.customer_postal.is_none() {
        return refuse(
            "customer address",
            "is not structured: the order needs the customer's postcode, town and country",
        );
    }
    check_texts(receipt, texts(receipt), "an e-invoice", |c| !c.is_control() || c == '\n')
}

/// Each text (field, value, the most characters it may have) within its length and of the
/// characters `carries` takes; else refused naming the field, and saying what `format`
/// cannot carry.
fn check_texts(
    receipt: &Receipt,
    texts: Vec<(&'static str, String, usize)>,
    format: &str,
    carries: fn(char) -> bool,
) -> Result<(), Error> {
    let refuse =
        |field, problem| Err(Error::NotForEinvoice { number: receipt.shown_number(), field, problem });
    for (field, value, most) in texts {
        if value.chars().count() > most {
            return refuse(field, format!("is longer than the {most} characters {format} carries"));
        }
        if let Some(c) = value.chars().find(|&c| !carries(c)) {
            return refuse(field, format!("holds {c:?}, which {format} cannot carry"));
        }
    }
    Ok(())
}

/// The texts an e-invoice carries, with the most characters each may have (the lengths the
/// receivers' systems take: FatturaPA's, which are the tighter).
fn texts(receipt: &Receipt) -> Vec<(&'static str, String, usize)> {
    let mut texts = vec![
        ("stringer name", receipt.business.name.clone(), 80),
        ("customer", receipt.customer.clone().unwrap_or_default(), 80),
    ];
    if let Some(reference) = &receipt.buyer.reference {
        texts.push(("buyer reference", reference.clone(), 100));
    }
    for line in Einvoice::of(receipt).lines {
        texts.push(("item", line.name, 1000));
    }
    texts
}

/// The VAT category of every line (a stringer's documents have one rate).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Category {
    /// VAT charged at this rate (S).
    Standard(VatRate),
    /// Exempt under a small-business rule, with its legal text (E).
    Exempt(&'static str),
    /// Not subject to VAT: a business not registered for it (O).
    NotSubject(&'static str),
}

/// One line of the e-invoice: what is charged, before VAT.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvoiceLine {
    pub name: String,
    pub description: Option<String>,
    /// Minor units, net of VAT.
    pub net: i64,
}

/// The numbers of an e-invoice, derived from the document's so that they are its own: the
/// total and its VAT as printed, lines whose net amounts add up to the total's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Einvoice {
    pub number: String,
    pub currency: String,
    pub category: Category,
    pub lines: Vec<InvoiceLine>,
    /// The total before VAT (BT-109), the VAT (BT-110) and the total with it (BT-112).
    pub net: i64,
    pub vat: i64,
    pub gross: i64,
    /// What is still to pay (BT-115): what an open invoice's part payments left, nothing of
    /// a receipt or a credit note (settled by a refund or against the invoice).
    pub due: i64,
    /// The small-business exemption's text, as the document prints it.
    pub note: Option<String>,
}

impl Einvoice {
    pub fn of(receipt: &Receipt) -> Einvoice {
        let words = receipt.words();
        let category = match (receipt.vat, receipt.conventions.small_business_note()) {
            (Some(rate), _) => Category::Standard(rate),
            (None, Some(note)) if receipt.business.small_business => Category::Exempt(note),
            (None, _) => Category::NotSubject(NOT_SUBJECT),
        };
        let work =
            [receipt.string.as_deref(), receipt.tension.as_deref()].into_iter().flatten().collect::<Vec<_>>();
        let description = (!work.is_empty()).then(|| work.join(", "));
        let whole = |receipt: &Receipt| -> Vec<(String, Option<String>, i64)> {
            if receipt.items.is_empty() {
                let total = receipt.amount.as_ref().map_or(0, |a| a.minor);
                return vec![(words.stringing.to_string(), description.clone(), total)];
            }
            let stringing =
                receipt.stringing.iter().map(|s| (words.stringing.to_string(), description.clone(), s.minor));
            stringing.chain(receipt.items.iter().map(|(text, a)| (text.clone(), None, a.minor))).collect()
        };
        let (number, gross, gross_lines, vat) = match &receipt.credit {
            Some(credit) => {
                let lines = if credit.whole {
                    whole(receipt)
                } else {
                    let name = format!("{} {}", credit.original_title, credit.original);
                    vec![(name, Some(credit.reason.clone()), credit.amount.minor)]
                };
                let vat = credit.vat.as_ref().map_or(0, |v| v.minor);
                (credit.number.to_string(), credit.amount.minor, lines, vat)
            }
            None => {
                let gross = receipt.amount.as_ref().map_or(0, |a| a.minor);
                let vat = receipt.vat.map_or(0, |rate| rate.included_in(gross));
                (receipt.number.to_string(), gross, whole(receipt), vat)
            }
        };
        let net = gross - vat;
        let mut lines: Vec<InvoiceLine> = gross_lines
            .into_iter()
            .map(|(name, description, gross)| {
                let vat = receipt.vat.map_or(0, |rate| rate.included_in(gross));
                InvoiceLine { name, description, net: gross - vat }
            })
            .collect();
        // The lines' VAT, each rounded, may differ from the total's by a cent or two: the
        // last line takes the difference, so that the lines add up to what is printed.
        let lines_net: i64 = lines.iter().map(|line| line.net).sum();
        if let Some(last) = lines.last_mut() {
            last.net += net - lines_net;
        }
        // An open invoice asks for what its part payments left; BT-113 says what they paid.
        let due = match (&receipt.credit, receipt.paid_on) {
            (None, None) if !receipt.own => gross - receipt.part_paid.as_ref().map_or(0, |part| part.minor),
            _ => 0,
        };
        let note = match category {
            Category::Exempt(text) => Some(text.to_string()),
            _ => None,
        };
        let currency = receipt.amount.as_ref().map(|a| a.currency.clone()).unwrap_or_default();
        Einvoice { number, currency, category, lines, net, vat, gross, due, note }
    }
}

/// The exemption text of a seller not registered for VAT.
const NOT_SUBJECT: &str = "Not subject to VAT";
