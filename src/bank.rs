//! The bank's files: ISO 20022 `camt.054` credit notifications and `camt.053` account
//! statements (every published version from 001.01 to 001.12: the elements read here barely
//! changed between them), as Swiss, Austrian and other EU banks deliver them: a bare Document
//! or one inside an envelope with its application header, the ISO namespace or the Austrian
//! banks' variant of it, any namespace prefixes, any line endings. Amounts are ISO 20022
//! decimals (`105.750`, `.13`). Read as a stream (a statement can hold thousands of entries)
//! into the transactions they book; a file that is not well-formed to its last closing tag
//! (cut off in a download) is refused. Free of SQL: `db::payments` applies them.

use crate::domain::Currency;
use crate::error::Error;
use chrono::NaiveDate;
use quick_xml::events::Event;
use quick_xml::name::ResolveResult;
use quick_xml::NsReader;
use std::io::BufRead;

/// The namespace of ISO 20022 messages: `urn:iso:std:iso:20022:tech:xsd:camt.054.001.08`.
const ISO_NAMESPACE: &str = "urn:iso:std:iso:20022:tech:xsd:";
/// The variant Austrian banks write: `ISO:camt.053.001.02:APC:STUZZA:payments:003`.
const AUSTRIAN_NAMESPACE: &str = "ISO:";
/// The versions read: 001.01 to 001.12.
const VERSIONS: std::ops::RangeInclusive<u32> = 1..=12;

/// One transaction of an entry: an entry's own, or one of a batch entry's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transaction {
    /// Money in (CRDT) or out (DBIT).
    pub credit: bool,
    /// When it was booked (status BOOK, on its booking date, else its value date); None when
    /// it is not booked: pending, for information only, or dated neither way.
    pub booked_on: Option<NaiveDate>,
    pub amount: i64,
    pub currency: Currency,
    /// The bank's own reference of the transaction, which identifies it across files.
    pub bank_reference: Option<String>,
    /// Which entry of the file (from 1) booked it, for messages.
    pub entry: usize,
    /// A structured creditor reference (QRR, SCOR or another creditor's), as the bank
    /// carries it, when the payer gave one.
    pub reference: Option<String>,
    /// Booked in a batch whose entry gives only the total: `amount` is what the batch holds
    /// beyond the transactions that name their own, not this one's.
    pub batch_total_only: bool,
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
    ValDt,
    Dt,
    DtTm,
    Refs,
    AcctSvcrRef,
    CdtrRefInf,
    Ref,
    /// 001.01's name for `Ref`.
    CdtrRef,
    InstdAmt,
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
            "ValDt" => Tag::ValDt,
            "Dt" => Tag::Dt,
            "DtTm" => Tag::DtTm,
            "Refs" => Tag::Refs,
            "AcctSvcrRef" => Tag::AcctSvcrRef,
            "CdtrRefInf" => Tag::CdtrRefInf,
            "Ref" => Tag::Ref,
            "CdtrRef" => Tag::CdtrRef,
            "InstdAmt" => Tag::InstdAmt,
            _ => Tag::Other,
        }
    }
}

impl EntryParts {
    /// Notes what the element at the end of `path` says, where it belongs: to the entry's
    /// last transaction, or to the entry.
    fn note(&mut self, path: &[Tag], value: String) {
        let within = |tail: &[Tag]| path.ends_with(tail);
        let in_transaction = path.contains(&Tag::TxDtls);
        let currency = self.currency.clone();
        if let (true, Some(tx)) = (in_transaction, self.transactions.last_mut()) {
            if within(&[Tag::TxDtls, Tag::Amt]) {
                tx.amount = Some((value, currency.clone()));
            } else if within(&[Tag::AmtDtls, Tag::TxAmt, Tag::Amt]) {
                // Where 001.04 files often give the amount only.
                tx.amount_details = Some((value, currency.clone()));
            } else if within(&[Tag::AmtDtls, Tag::InstdAmt, Tag::Amt]) {
                // What the payer instructed: the amount when nothing else says.
                tx.amount_instructed = Some((value, currency.clone()));
            } else if within(&[Tag::TxDtls, Tag::CdtDbtInd]) {
                tx.direction = Some(value);
            } else if within(&[Tag::Refs, Tag::AcctSvcrRef]) {
                tx.bank_reference = Some(value);
            } else if within(&[Tag::CdtrRefInf, Tag::Ref]) || within(&[Tag::CdtrRefInf, Tag::CdtrRef]) {
                tx.reference = Some(value);
            }
        } else if within(&[Tag::Ntry, Tag::Amt]) {
            self.amount = Some((value, currency.clone()));
        } else if within(&[Tag::Ntry, Tag::CdtDbtInd]) {
            self.direction = Some(value);
        } else if within(&[Tag::Ntry, Tag::Sts]) || within(&[Tag::Ntry, Tag::Sts, Tag::Cd]) {
            // 001.04 says `<Sts>BOOK</Sts>`, 001.08 `<Sts><Cd>BOOK</Cd></Sts>`.
            if !value.is_empty() {
                self.status = Some(value);
            }
        } else if within(&[Tag::BookgDt, Tag::Dt]) || within(&[Tag::BookgDt, Tag::DtTm]) {
            self.booked = Some(value);
        } else if within(&[Tag::Ntry, Tag::ValDt, Tag::Dt]) || within(&[Tag::Ntry, Tag::ValDt, Tag::DtTm]) {
            self.valued = Some(value);
        } else if within(&[Tag::Ntry, Tag::AcctSvcrRef]) {
            self.bank_reference = Some(value);
        }
    }
}

/// Reads `source` (named `name` in messages), calling `visit` with each transaction as its
/// entry ends. A file that is no camt.053 or camt.054, that is cut off before its last
/// closing tag, or an entry that cannot be read, is bad input naming the file (and the
/// entry): the caller's transaction, which `visit` wrote into, is then rolled back whole.
pub fn read(
    source: impl BufRead,
    name: &str,
    mut visit: impl FnMut(Transaction) -> Result<(), Error>,
) -> Result<Message, Error> {
    let mut reader = NsReader::from_reader(source);
    reader.config_mut().trim_text(true);
    let bad = |what: String| Error::BadInput(format!("{name}: {what}"));
    let mut buffer = Vec::new();
    let mut path: Vec<Tag> = Vec::new();
    // The message, once its Document began; and how deep the Document lies (an envelope
    // may hold it).
    let mut message: Option<Message> = None;
    let mut document: Option<usize> = None;
    let mut entry = EntryParts::default();
    let mut entries = 0usize;
    let mut text = String::new();
    loop {
        let (namespace, event) = match reader.read_resolved_event_into(&mut buffer) {
            Ok(read) => read,
            Err(quick_xml::Error::Io(io)) => {
                return Err(Error::InputFile(format!("cannot read {name}: {io}")))
            }
            Err(e) => {
                return Err(bad(format!("is not well-formed XML at byte {}: {e}", reader.error_position())))
            }
        };
        match event {
            Event::Start(start) => {
                let local = start.local_name().into_inner();
                if document.is_none() && message.is_none() && local == "Document" {
                    message = Some(camt_message(&namespace).map_err(bad)?);
                    document = Some(path.len());
                }
                let tag = if document.is_some() { Tag::of(local) } else { Tag::Other };
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
                let value = std::mem::take(&mut text);
                if document.is_some_and(|depth| path.len() == depth + 1) {
                    document = None;
                } else if path.last() == Some(&Tag::Ntry) {
                    let booked =
                        entry.finish(entries).map_err(|what| bad(format!("entry {entries}: {what}")))?;
                    booked.into_iter().try_for_each(&mut visit)?;
                } else {
                    entry.note(&path, value);
                }
                path.pop();
            }
            // The end of the stream: every element opened must have been closed, or the
            // file was cut off (whatever whitespace its last line ends in).
            Event::Eof if !path.is_empty() => {
                return Err(bad(format!(
                    "is cut off: it ends after byte {} inside an element, before its closing tags \
                     (an incomplete download?); nothing of it was applied",
                    reader.buffer_position()
                )))
            }
            Event::Eof => break,
            _ => {}
        }
        buffer.clear();
    }
    message.ok_or_else(|| bad("is not a camt.053 or camt.054 file: it holds no ISO 20022 Document".into()))
}

/// `camt.054.001.08`, from the namespace of a Document element: a camt.053 or camt.054 of
/// a version read here, or what it is instead.
fn camt_message(namespace: &ResolveResult<'_>) -> Result<Message, String> {
    let not_read =
        |what: &str| format!("is {what}, not a camt.053 or camt.054 file (versions 001.01 to 001.12)");
    let ResolveResult::Bound(namespace) = namespace else {
        return Err(not_read("a Document without a namespace"));
    };
    let namespace = namespace.into_inner();
    let message = match namespace.strip_prefix(ISO_NAMESPACE) {
        Some(message) => message,
        None => match namespace.strip_prefix(AUSTRIAN_NAMESPACE).and_then(|rest| rest.split_once(":APC:")) {
            Some((message, _)) => message,
            None => return Err(not_read(&format!("a Document of {namespace}"))),
        },
    };
    let read = match message.split('.').collect::<Vec<_>>().as_slice() {
        ["camt", "053" | "054", "001", version] => {
            version.len() == 2 && version.parse::<u32>().is_ok_and(|v| VERSIONS.contains(&v))
        }
        _ => false,
    };
    if read {
        Ok(message.to_string())
    } else {
        Err(not_read(message))
    }
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
    /// The value date: when a bank gives no booking date, the day the money counts from.
    valued: Option<String>,
    bank_reference: Option<String>,
    transactions: Vec<TransactionParts>,
}

#[derive(Default)]
struct TransactionParts {
    amount: Option<(String, Option<String>)>,
    amount_details: Option<(String, Option<String>)>,
    amount_instructed: Option<(String, Option<String>)>,
    direction: Option<String>,
    bank_reference: Option<String>,
    reference: Option<String>,
}

/// An ISO 20022 decimal amount (`105.75`, `105.750`, `.13`, up to five fraction digits) in
/// cents; one with a fraction of a cent is not an amount an invoice can be paid with.
fn amount_minor(text: &str) -> Result<i64, String> {
    let not_amount = || format!("\"{text}\" is not an amount");
    let (units, fraction) = text.split_once('.').unwrap_or((text, ""));
    let digits = |part: &str| part.bytes().all(|b| b.is_ascii_digit());
    if units.len() + fraction.len() == 0 || !digits(units) || !digits(fraction) || fraction.len() > 5 {
        return Err(not_amount());
    }
    let (cents, below) = fraction.split_at(fraction.len().min(2));
    if below.bytes().any(|b| b != b'0') {
        return Err(format!("\"{text}\" holds a fraction of a cent"));
    }
    let units: i64 = if units.is_empty() { 0 } else { units.parse().map_err(|_| not_amount())? };
    let cents: i64 = format!("{cents:0<2}").parse().map_err(|_| not_amount())?;
    units.checked_mul(100).and_then(|minor| minor.checked_add(cents)).ok_or_else(not_amount)
}

impl EntryParts {
    /// The entry's transactions: its details, or the entry itself when it has none.
    fn finish(&mut self, index: usize) -> Result<Vec<Transaction>, String> {
        // Booked on its booking date, else on its value date; with neither, not booked.
        let dated = match (self.booked.as_deref(), self.valued.as_deref()) {
            (Some(date), _) => Some(("booking", date)),
            (None, Some(date)) => Some(("value", date)),
            (None, None) => None,
        };
        let date = dated
            .map(|(which, date)| {
                NaiveDate::parse_from_str(date.get(..10).unwrap_or(date), "%Y-%m-%d")
                    .map_err(|_| format!("\"{date}\" is not a {which} date"))
            })
            .transpose()?;
        let booked = self.status.as_deref().is_none_or(|status| status == "BOOK");
        let booked_on = date.filter(|_| booked);
        let transactions = std::mem::take(&mut self.transactions);
        let single = transactions.len() <= 1;
        let parts = if transactions.is_empty() { vec![TransactionParts::default()] } else { transactions };
        // A batch's transactions name their own amounts; what the entry holds beyond those is
        // the one that does not (the batch's total only, when several do not).
        let own = |tx: &TransactionParts| {
            tx.amount.clone().or(tx.amount_details.clone()).or(tx.amount_instructed.clone())
        };
        let unnamed = parts.iter().filter(|tx| own(tx).is_none()).count();
        let rest = match unnamed {
            0 => None,
            _ => {
                let (total, currency) = self.amount.clone().ok_or("it has no amount (Amt)")?;
                let mut rest = amount_minor(&total)?;
                for (amount, _) in parts.iter().filter_map(own) {
                    rest -= amount_minor(&amount)?;
                }
                if rest <= 0 && !single {
                    return Err(format!(
                        "its transactions name more than the entry's amount {total}, and {unnamed} name none"
                    ));
                }
                Some((rest, currency))
            }
        };
        let mut booked = Vec::with_capacity(parts.len());
        for (index_in_entry, tx) in parts.into_iter().enumerate() {
            let named = own(&tx);
            let batch_total_only = named.is_none() && unnamed > 1;
            let (amount, currency) = match named {
                Some((amount, currency)) => (amount_minor(&amount)?, currency),
                None => rest.clone().ok_or("it has no amount (Amt)")?,
            };
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
                (None, Some(entry)) => Some(format!("{entry}/{}", index_in_entry + 1)),
                (None, None) => None,
            };
            booked.push(Transaction {
                credit,
                booked_on,
                amount,
                batch_total_only,
                currency,
                bank_reference,
                entry: index,
                reference: tx.reference.map(|r| r.trim().to_string()).filter(|r| !r.is_empty()),
            });
        }
        Ok(booked)
    }
}

#[cfg(test)]
mod tests {
    use super::amount_minor;

    #[test]
    fn amounts_are_iso_20022_decimals_in_cents() {
        assert_eq!(amount_minor("105.75"), Ok(10575));
        assert_eq!(amount_minor("105.750"), Ok(10575));
        assert_eq!(amount_minor("105.75000"), Ok(10575));
        assert_eq!(amount_minor(".13"), Ok(13));
        assert_eq!(amount_minor("42"), Ok(4200));
        assert_eq!(amount_minor("42."), Ok(4200));
        assert_eq!(amount_minor("105.755"), Err("\"105.755\" holds a fraction of a cent".into()));
        for bad in ["", ".", "42,00", "1.000000", "-5.00", "1e3"] {
            assert_eq!(amount_minor(bad), Err(format!("\"{bad}\" is not an amount")), "{bad}");
        }
    }
}
