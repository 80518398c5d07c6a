//! The bank's files: ISO 20022 `camt.054` credit notifications and `camt.053` account
//! statements (versions 001.04 and 001.08, as Swiss and EU banks deliver them), read as a
//! stream (a statement can hold thousands of entries) into the transactions they book.
//! Free of SQL: `db::payments` applies them.

use crate::domain::{Currency, Price};
use crate::error::Error;
use chrono::NaiveDate;
use quick_xml::events::Event;
use quick_xml::Reader;
use std::io::BufRead;

/// The messages and versions this program reads, by their namespace.
const KNOWN: [&str; 4] = ["camt.054.001.04", "camt.054.001.08", "camt.053.001.04", "camt.053.001.08"];

/// One booked transaction: an entry's own, or one of a batch entry's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transaction {
    /// Money in (CRDT) or out (DBIT).
    pub credit: bool,
    /// Booked (status BOOK), not merely pending or for information.
    pub booked: bool,
    pub amount: i64,
    pub currency: Currency,
    pub booked_on: NaiveDate,
    /// The bank's own reference of the transaction, which identifies it across files.
    pub bank_reference: Option<String>,
    /// Which entry of the file (from 1) booked it, for messages.
    pub entry: usize,
    /// A structured creditor reference (QRR or SCOR), when the payer gave one.
    pub reference: Option<String>,
}

/// What the file is: `camt.054.001.08`.
pub type Message = String;

/// The elements this reader looks at; every other is `Other`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tag {
    Ntry,
    NtryDtls,
    TxDtls,
    Amt,
    AmtDtls,
    TxAmt,
    CdtDbtInd,
    Sts,
    Cd,
    BookgDt,
    Dt,
    DtTm,
    Refs,
    AcctSvcrRef,
    CdtrRefInf,
    Ref,
    Other,
}

impl Tag {
    fn of(local_name: &str) -> Tag {
        match local_name {
            "Ntry" => Tag::Ntry,
            "NtryDtls" => Tag::NtryDtls,
            "TxDtls" => Tag::TxDtls,
            "Amt" => Tag::Amt,
            "AmtDtls" => Tag::AmtDtls,
            "TxAmt" => Tag::TxAmt,
            "CdtDbtInd" => Tag::CdtDbtInd,
            "Sts" => Tag::Sts,
            "Cd" => Tag::Cd,
            "BookgDt" => Tag::BookgDt,
            "Dt" => Tag::Dt,
            "DtTm" => Tag::DtTm,
            "Refs" => Tag::Refs,
            "AcctSvcrRef" => Tag::AcctSvcrRef,
            "CdtrRefInf" => Tag::CdtrRefInf,
            "Ref" => Tag::Ref,
            _ => Tag::Other,
        }
    }
}

/// Reads `source` (named `name` in messages), calling `visit` with each transaction as its
/// entry ends. A file that is no camt.053 or camt.054, or an entry that cannot be read, is
/// bad input naming the file and the entry.
pub fn read(
    source: impl BufRead,
    name: &str,
    mut visit: impl FnMut(Transaction) -> Result<(), Error>,
) -> Result<Message, Error> {
    let mut reader = Reader::from_reader(source);
    reader.config_mut().trim_text(true);
    let bad = |what: String| Error::BadInput(format!("{name}: {what}"));
    let mut buffer = Vec::new();
    let mut path: Vec<Tag> = Vec::new();
    let mut message: Option<Message> = None;
    let mut entry = EntryParts::default();
    let mut entries = 0usize;
    let mut text = String::new();
    loop {
        let event = reader.read_event_into(&mut buffer).map_err(|e| match e {
            quick_xml::Error::Io(io) => Error::InputFile(format!("cannot read {name}: {io}")),
            _ => bad(format!("is not well-formed XML at byte {}: {e}", reader.error_position())),
        })?;
        match event {
            Event::Start(start) => {
                if message.is_none() {
                    message = Some(namespace_of(&start).filter(|m| KNOWN.contains(&m.as_str())).ok_or_else(
                        || bad("is not a camt.053 or camt.054 file (versions 001.04 or 001.08)".into()),
                    )?);
                }
                let tag = Tag::of(start.local_name().into_inner());
                match tag {
                    Tag::Ntry => {
                        entries += 1;
                        entry = EntryParts::default();
                    }
                    Tag::TxDtls if path.last() == Some(&Tag::NtryDtls) => {
                        entry.transactions.push(TransactionParts::default())
                    }
                    Tag::Amt => entry.currency = attribute(&start, "Ccy"),
                    _ => {}
                }
                path.push(tag);
                text.clear();
            }
            Event::Text(content) => text.push_str(&content.xml10_content()),
            Event::GeneralRef(reference) => match reference.resolve_char_ref() {
                Ok(Some(c)) => text.push(c),
                _ => text.push_str(match &*reference {
                    "amp" => "&",
                    "lt" => "<",
                    "gt" => ">",
                    "quot" => "\"",
                    "apos" => "'",
                    _ => "",
                }),
            },
            Event::End(_) => {
                let within = |tail: &[Tag]| path.ends_with(tail);
                let value = std::mem::take(&mut text);
                let in_transaction = path.contains(&Tag::TxDtls);
                if path.last() == Some(&Tag::Ntry) {
                    let booked =
                        entry.finish(entries).map_err(|what| bad(format!("entry {entries}: {what}")))?;
                    booked.into_iter().try_for_each(&mut visit)?;
                } else if let (true, Some(tx)) = (in_transaction, entry.transactions.last_mut()) {
                    if within(&[Tag::TxDtls, Tag::Amt]) {
                        tx.amount = Some((value, entry.currency.clone()));
                    } else if within(&[Tag::AmtDtls, Tag::TxAmt, Tag::Amt]) {
                        // Where 001.04 files often give the amount only.
                        tx.amount_details = Some((value, entry.currency.clone()));
                    } else if within(&[Tag::TxDtls, Tag::CdtDbtInd]) {
                        tx.direction = Some(value);
                    } else if within(&[Tag::Refs, Tag::AcctSvcrRef]) {
                        tx.bank_reference = Some(value);
                    } else if within(&[Tag::CdtrRefInf, Tag::Ref]) {
                        tx.reference = Some(value);
                    }
                } else if within(&[Tag::Ntry, Tag::Amt]) {
                    entry.amount = Some((value, entry.currency.clone()));
                } else if within(&[Tag::Ntry, Tag::CdtDbtInd]) {
                    entry.direction = Some(value);
                } else if within(&[Tag::Ntry, Tag::Sts]) || within(&[Tag::Ntry, Tag::Sts, Tag::Cd]) {
                    // 001.04 says `<Sts>BOOK</Sts>`, 001.08 `<Sts><Cd>BOOK</Cd></Sts>`.
                    if !value.is_empty() {
                        entry.status = Some(value);
                    }
                } else if within(&[Tag::BookgDt, Tag::Dt]) || within(&[Tag::BookgDt, Tag::DtTm]) {
                    entry.booked = Some(value);
                } else if within(&[Tag::Ntry, Tag::AcctSvcrRef]) {
                    entry.bank_reference = Some(value);
                }
                path.pop();
            }
            Event::Eof => break,
            _ => {}
        }
        buffer.clear();
    }
    message.ok_or_else(|| bad("is not a camt.053 or camt.054 file: it holds no XML document".into()))
}

/// `camt.054.001.08` from the `xmlns` of the document's root element.
fn namespace_of(start: &quick_xml::events::BytesStart<'_>) -> Option<String> {
    let namespace = attribute(start, "xmlns")?;
    namespace.strip_prefix("urn:iso:std:iso:20022:tech:xsd:").map(str::to_string)
}

fn attribute(start: &quick_xml::events::BytesStart<'_>, key: &str) -> Option<String> {
    start
        .attributes()
        .flatten()
        .find(|a| a.key.as_ref() == key)
        .and_then(|a| a.normalized_value(quick_xml::XmlVersion::Implicit1_0).ok().map(|v| v.into_owned()))
}

#[derive(Default)]
struct EntryParts {
    amount: Option<(String, Option<String>)>,
    /// The currency of the `Amt` being read.
    currency: Option<String>,
    direction: Option<String>,
    status: Option<String>,
    booked: Option<String>,
    bank_reference: Option<String>,
    transactions: Vec<TransactionParts>,
}

#[derive(Default)]
struct TransactionParts {
    amount: Option<(String, Option<String>)>,
    amount_details: Option<(String, Option<String>)>,
    direction: Option<String>,
    bank_reference: Option<String>,
    reference: Option<String>,
}

impl EntryParts {
    /// The entry's transactions: its details, or the entry itself when it has none.
    fn finish(&mut self, index: usize) -> Result<Vec<Transaction>, String> {
        let booked = self.booked.as_deref().ok_or("it has no booking date (BookgDt)")?;
        let booked_on = NaiveDate::parse_from_str(booked.get(..10).unwrap_or(booked), "%Y-%m-%d")
            .map_err(|_| format!("\"{booked}\" is not a booking date"))?;
        let transactions = std::mem::take(&mut self.transactions);
        let single = transactions.len() <= 1;
        let parts = if transactions.is_empty() { vec![TransactionParts::default()] } else { transactions };
        let mut booked = Vec::with_capacity(parts.len());
        for (i, tx) in parts.into_iter().enumerate() {
            // A batch's transactions name their own amounts; a single one may leave it to
            // the entry.
            let (amount, currency) = match (tx.amount.or(tx.amount_details), single) {
                (Some(amount), _) => amount,
                (None, true) => self.amount.clone().ok_or("it has no amount (Amt)")?,
                (None, false) => return Err(format!("transaction {} of the batch has no amount", i + 1)),
            };
            let amount = amount.parse::<Price>().map_err(|_| format!("\"{amount}\" is not an amount"))?;
            let currency = currency.ok_or("an amount has no currency (Ccy)")?.parse::<Currency>()?;
            let direction = tx.direction.or(self.direction.clone()).ok_or("it says neither CRDT nor DBIT")?;
            let credit = match direction.as_str() {
                "CRDT" => true,
                "DBIT" => false,
                other => return Err(format!("\"{other}\" is neither CRDT nor DBIT")),
            };
            // A batch transaction without its own reference is known by its place in the
            // entry, which the bank books the same way in every file.
            let bank_reference = match (tx.bank_reference, &self.bank_reference) {
                (Some(reference), _) => Some(reference),
                (None, Some(entry)) if single => Some(entry.clone()),
                (None, Some(entry)) => Some(format!("{entry}/{}", i + 1)),
                (None, None) => None,
            };
            booked.push(Transaction {
                credit,
                booked: self.status.as_deref().is_none_or(|status| status == "BOOK"),
                amount: amount.0,
                currency,
                booked_on,
                bank_reference,
                entry: index,
                reference: tx.reference.map(|r| r.trim().to_string()),
            });
        }
        Ok(booked)
    }
}
