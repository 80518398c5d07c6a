//! Bank files as Swiss and EU banks write them (ISO 20022 camt.053 statements and camt.054
//! credit notifications, versions 001.01 to 001.12), made from a list of entries, so tests
//! import real-looking files without keeping any; and the shapes real files come in (inside
//! an envelope, with namespace prefixes, the Austrian banks' namespace, other line endings,
//! amounts with more fraction digits, cut off).

use std::fmt::Write;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Message {
    /// camt.053: an account statement.
    Statement,
    /// camt.054: a debit/credit notification.
    Notification,
}

/// The message's version, 001.NN: up to 001.05 an entry's status is a code of its own
/// (`<Sts>BOOK</Sts>`), from 001.06 on a choice (`<Sts><Cd>BOOK</Cd></Sts>`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Version(pub u8);

impl Version {
    pub const V04: Version = Version(4);
    pub const V08: Version = Version(8);
    /// Every published version.
    pub const ALL: std::ops::RangeInclusive<u8> = 1..=12;

    fn status_is_a_choice(self) -> bool {
        self.0 >= 6
    }
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

/// Which dates an entry carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dated {
    /// Booking date and value date.
    Both,
    /// The value date only, as some banks write it.
    ValueOnly,
    Neither,
}

/// One entry: a single transaction, or a batch booking of several.
#[derive(Debug, Clone)]
pub struct Entry {
    pub booked_on: String,
    pub dated: Dated,
    /// BOOK, PDNG or INFO.
    pub status: &'static str,
    pub bank_reference: Option<String>,
    pub transactions: Vec<Tx>,
    /// Without transaction details (`NtryDtls`): the entry alone books its one transaction.
    pub details: bool,
    /// How many of the last transactions carry no amount of their own: the entry's says it.
    pub untold_amounts: usize,
}

impl Entry {
    pub fn booked(booked_on: &str, bank_reference: &str, transactions: Vec<Tx>) -> Entry {
        Entry {
            booked_on: booked_on.to_string(),
            dated: Dated::Both,
            status: "BOOK",
            bank_reference: Some(bank_reference.to_string()),
            transactions,
            details: true,
            untold_amounts: 0,
        }
    }
}

pub fn amount(minor: i64) -> String {
    format!("{}.{:02}", minor / 100, minor % 100)
}

/// The file's XML.
pub fn file(message: Message, version: Version, entries: &[Entry]) -> String {
    let (root, body, message_number) = match message {
        Message::Statement => ("BkToCstmrStmt", "Stmt", "053"),
        Message::Notification => ("BkToCstmrDbtCdtNtfctn", "Ntfctn", "054"),
    };
    let number = format!("{message_number}.001.{:02}", version.0);
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
    if version.status_is_a_choice() {
        write!(xml, "<Sts><Cd>{}</Cd></Sts>", entry.status).unwrap();
    } else {
        write!(xml, "<Sts>{}</Sts>", entry.status).unwrap();
    }
    if entry.dated == Dated::Both {
        write!(xml, "<BookgDt><Dt>{}</Dt></BookgDt>", entry.booked_on).unwrap();
    }
    if entry.dated != Dated::Neither {
        write!(xml, "<ValDt><Dt>{}</Dt></ValDt>", entry.booked_on).unwrap();
    }
    if let Some(reference) = &entry.bank_reference {
        write!(xml, "<AcctSvcrRef>{reference}</AcctSvcrRef>").unwrap();
    }
    xml.push_str(
        "<BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>RCDT</Cd><SubFmlyCd>VCOM</SubFmlyCd></Fmly></Domn></BkTxCd>",
    );
    if !entry.details {
        xml.push_str("</Ntry>\n");
        return;
    }
    xml.push_str("<NtryDtls>");
    if entry.transactions.len() > 1 {
        write!(xml, "<Btch><NbOfTxs>{}</NbOfTxs></Btch>", entry.transactions.len()).unwrap();
    }
    let told = entry.transactions.len() - entry.untold_amounts;
    for (i, tx) in entry.transactions.iter().enumerate() {
        xml.push_str("<TxDtls><Refs>");
        if let Some(reference) = &tx.bank_reference {
            write!(xml, "<AcctSvcrRef>{reference}</AcctSvcrRef>").unwrap();
        }
        xml.push_str("<EndToEndId>NOTPROVIDED</EndToEndId></Refs>");
        let amount = format!(r#"<Amt Ccy="{}">{}</Amt>"#, tx.currency, amount(tx.minor));
        if i >= told {
            write!(xml, "<CdtDbtInd>{}</CdtDbtInd>", if tx.credit { "CRDT" } else { "DBIT" }).unwrap();
        } else if version.status_is_a_choice() {
            write!(
                xml,
                "{amount}<CdtDbtInd>{}</CdtDbtInd><AmtDtls><InstdAmt>{amount}</InstdAmt><TxAmt>{amount}</TxAmt></AmtDtls>",
                if tx.credit { "CRDT" } else { "DBIT" }
            )
            .unwrap();
        } else {
            // As many banks wrote the early versions: the amount in the amount details only.
            write!(xml, "<AmtDtls><TxAmt>{amount}</TxAmt></AmtDtls>").unwrap();
        }
        xml.push_str("<RltdPties><Dbtr><Nm>Roger Federer</Nm></Dbtr></RltdPties>");
        match (&tx.reference, &tx.unstructured) {
            // 001.01 names the reference `CdtrRef`.
            (Some(reference), _) if version.0 == 1 => write!(
                xml,
                "<RmtInf><Strd><CdtrRefInf><CdtrRefTp><Cd>SCOR</Cd></CdtrRefTp><CdtrRef>{reference}</CdtrRef></CdtrRefInf></Strd></RmtInf>"
            )
            .unwrap(),
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

/// The file as an ISO/SWIFT message: the Document inside an envelope, after its business
/// application header.
pub fn enveloped(xml: &str) -> String {
    let document = xml.split_once("?>").map_or(xml, |(_, rest)| rest).trim_start();
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Envelope xmlns=\"urn:swift:xsd:envelope\">\n\
         <AppHdr xmlns=\"urn:iso:std:iso:20022:tech:xsd:head.001.001.02\"><Fr><FIId><FinInstnId><BICFI>UBSWCHZH80A</BICFI></FinInstnId></FIId></Fr>\
         <To><FIId><FinInstnId><BICFI>RECEIPTS</BICFI></FinInstnId></FIId></To><BizMsgIdr>MSG-1</BizMsgIdr>\
         <MsgDefIdr>camt.054.001.08</MsgDefIdr><CreDt>2026-11-20T18:00:00Z</CreDt></AppHdr>\n{document}</Envelope>\n"
    )
}

/// The file with every element of the Document in a prefixed namespace (`<ns2:Ntry>`), as
/// Java-based bank systems write it.
pub fn prefixed(xml: &str, prefix: &str) -> String {
    let start = xml.find("<Document").expect("a Document");
    let (head, document) = xml.split_at(start);
    let document = document.replacen(" xmlns=\"", &format!(" xmlns:{prefix}=\""), 1);
    let mut out = String::from(head);
    let mut rest = document.as_str();
    while let Some(open) = rest.find('<') {
        out.push_str(&rest[..=open]);
        rest = &rest[open + 1..];
        if let Some(name) = rest.strip_prefix('/') {
            out.push('/');
            rest = name;
        }
        out.push_str(prefix);
        out.push(':');
    }
    out.push_str(rest);
    out
}

/// The file with the namespace Austrian banks write: `ISO:camt.053.001.02:APC:STUZZA:payments:003`.
pub fn austrian(xml: &str) -> String {
    let start = xml.find("urn:iso:std:iso:20022:tech:xsd:camt.").expect("a camt namespace");
    let end = start + xml[start..].find('"').unwrap();
    let message = &xml[start + "urn:iso:std:iso:20022:tech:xsd:".len()..end];
    format!("{}ISO:{message}:APC:STUZZA:payments:003{}", &xml[..start], &xml[end..])
}

/// The file with every amount written with five fraction digits (`30.00000`), as ISO 20022
/// allows.
pub fn five_fraction_digits(xml: &str) -> String {
    let mut out = String::new();
    let mut rest = xml;
    while let Some(end) = rest.find("</Amt>") {
        out.push_str(&rest[..end]);
        out.push_str("000</Amt>");
        rest = &rest[end + "</Amt>".len()..];
    }
    out.push_str(rest);
    out
}
