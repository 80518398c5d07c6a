//! Bank files as Swiss and EU banks write them (ISO 20022 camt.053 statements and camt.054
//! credit notifications, versions 001.04 and 001.08), made from a list of entries, so tests
//! import real-looking files without keeping any.

use std::fmt::Write;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Message {
    /// camt.053: an account statement.
    Statement,
    /// camt.054: a debit/credit notification.
    Notification,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    V04,
    V08,
}

/// One transaction of an entry.
#[derive(Debug, Clone)]
pub struct Tx {
    pub credit: bool,
    /// In minor units.
    pub minor: i64,
    pub currency: &'static str,
    /// A structured creditor reference (QRR or SCOR).
    pub reference: Option<String>,
    /// Free text instead of a reference.
    pub unstructured: Option<String>,
    /// The bank's reference of the transaction.
    pub bank_reference: Option<String>,
}

impl Tx {
    /// Money in with a structured reference.
    pub fn paying(reference: &str, minor: i64, currency: &'static str, bank_reference: &str) -> Tx {
        Tx {
            credit: true,
            minor,
            currency,
            reference: Some(reference.to_string()),
            unstructured: None,
            bank_reference: Some(bank_reference.to_string()),
        }
    }

    /// Money in with only a free-text message.
    pub fn unstructured(text: &str, minor: i64, bank_reference: &str) -> Tx {
        Tx {
            credit: true,
            minor,
            currency: "CHF",
            reference: None,
            unstructured: Some(text.to_string()),
            bank_reference: Some(bank_reference.to_string()),
        }
    }

    /// Money out.
    pub fn debit(minor: i64, bank_reference: &str) -> Tx {
        Tx {
            credit: false,
            minor,
            currency: "CHF",
            reference: None,
            unstructured: Some("Stringing machine service".into()),
            bank_reference: Some(bank_reference.to_string()),
        }
    }
}

/// One entry: a single transaction, or a batch booking of several.
#[derive(Debug, Clone)]
pub struct Entry {
    pub booked_on: &'static str,
    /// BOOK, PDNG or INFO.
    pub status: &'static str,
    pub bank_reference: Option<String>,
    pub transactions: Vec<Tx>,
}

impl Entry {
    pub fn booked(booked_on: &'static str, bank_reference: &str, transactions: Vec<Tx>) -> Entry {
        Entry { booked_on, status: "BOOK", bank_reference: Some(bank_reference.to_string()), transactions }
    }
}

pub fn amount(minor: i64) -> String {
    format!("{}.{:02}", minor / 100, minor % 100)
}

/// The file's XML.
pub fn file(message: Message, version: Version, entries: &[Entry]) -> String {
    let (root, body, number) = match (message, version) {
        (Message::Statement, Version::V04) => ("BkToCstmrStmt", "Stmt", "053.001.04"),
        (Message::Statement, Version::V08) => ("BkToCstmrStmt", "Stmt", "053.001.08"),
        (Message::Notification, Version::V04) => ("BkToCstmrDbtCdtNtfctn", "Ntfctn", "054.001.04"),
        (Message::Notification, Version::V08) => ("BkToCstmrDbtCdtNtfctn", "Ntfctn", "054.001.08"),
    };
    let mut xml = String::new();
    writeln!(xml, r#"<?xml version="1.0" encoding="UTF-8"?>"#).unwrap();
    writeln!(xml, r#"<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.{number}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">"#).unwrap();
    writeln!(
        xml,
        "<{root}><GrpHdr><MsgId>MSG-{number}</MsgId><CreDtTm>2026-11-20T18:00:00</CreDtTm></GrpHdr>"
    )
    .unwrap();
    writeln!(xml, "<{body}><Id>{body}-1</Id><CreDtTm>2026-11-20T18:00:00</CreDtTm>").unwrap();
    writeln!(xml, "<Acct><Id><IBAN>CH4431999123000889012</IBAN></Id><Ccy>CHF</Ccy></Acct>").unwrap();
    if message == Message::Statement {
        // A statement opens with its balance, an amount outside any entry.
        writeln!(xml, r#"<Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="CHF">10000.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-11-01</Dt></Dt></Bal>"#).unwrap();
    }
    for entry in entries {
        write_entry(&mut xml, version, entry);
    }
    writeln!(xml, "</{body}></{root}></Document>").unwrap();
    xml
}

fn write_entry(xml: &mut String, version: Version, entry: &Entry) {
    let first = &entry.transactions[0];
    let total: i64 =
        entry.transactions.iter().map(|t| if t.credit == first.credit { t.minor } else { -t.minor }).sum();
    xml.push_str("<Ntry>");
    if let Some(reference) = &entry.bank_reference {
        write!(xml, "<NtryRef>{reference}</NtryRef>").unwrap();
    }
    write!(xml, r#"<Amt Ccy="{}">{}</Amt>"#, first.currency, amount(total)).unwrap();
    write!(xml, "<CdtDbtInd>{}</CdtDbtInd>", if first.credit { "CRDT" } else { "DBIT" }).unwrap();
    match version {
        Version::V04 => write!(xml, "<Sts>{}</Sts>", entry.status).unwrap(),
        Version::V08 => write!(xml, "<Sts><Cd>{}</Cd></Sts>", entry.status).unwrap(),
    }
    write!(xml, "<BookgDt><Dt>{}</Dt></BookgDt><ValDt><Dt>{}</Dt></ValDt>", entry.booked_on, entry.booked_on)
        .unwrap();
    if let Some(reference) = &entry.bank_reference {
        write!(xml, "<AcctSvcrRef>{reference}</AcctSvcrRef>").unwrap();
    }
    xml.push_str(
        "<BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>RCDT</Cd><SubFmlyCd>VCOM</SubFmlyCd></Fmly></Domn></BkTxCd>",
    );
    xml.push_str("<NtryDtls>");
    if entry.transactions.len() > 1 {
        write!(xml, "<Btch><NbOfTxs>{}</NbOfTxs></Btch>", entry.transactions.len()).unwrap();
    }
    for tx in &entry.transactions {
        xml.push_str("<TxDtls><Refs>");
        if let Some(reference) = &tx.bank_reference {
            write!(xml, "<AcctSvcrRef>{reference}</AcctSvcrRef>").unwrap();
        }
        xml.push_str("<EndToEndId>NOTPROVIDED</EndToEndId></Refs>");
        let amount = format!(r#"<Amt Ccy="{}">{}</Amt>"#, tx.currency, amount(tx.minor));
        match version {
            // 001.04 as many banks wrote it: the amount in the amount details only.
            Version::V04 => write!(xml, "<AmtDtls><TxAmt>{amount}</TxAmt></AmtDtls>").unwrap(),
            Version::V08 => write!(
                xml,
                "{amount}<CdtDbtInd>{}</CdtDbtInd><AmtDtls><InstdAmt>{amount}</InstdAmt><TxAmt>{amount}</TxAmt></AmtDtls>",
                if tx.credit { "CRDT" } else { "DBIT" }
            )
            .unwrap(),
        }
        xml.push_str("<RltdPties><Dbtr><Nm>Roger Federer</Nm></Dbtr></RltdPties>");
        match (&tx.reference, &tx.unstructured) {
            (Some(reference), _) => write!(
                xml,
                "<RmtInf><Strd><CdtrRefInf><Tp><CdOrPrtry><Prtry>{}</Prtry></CdOrPrtry></Tp><Ref>{reference}</Ref></CdtrRefInf></Strd></RmtInf>",
                if reference.starts_with("RF") { "SCOR" } else { "QRR" }
            )
            .unwrap(),
            (None, Some(text)) => write!(xml, "<RmtInf><Ustrd>{text}</Ustrd></RmtInf>").unwrap(),
            (None, None) => {}
        }
        xml.push_str("</TxDtls>");
    }
    xml.push_str("</NtryDtls></Ntry>\n");
}
