//! The Swiss QR-bill's payload (SIX implementation guidelines 2.3/2.4, version 0200, coding
//! 1 = UTF-8): one field per line, LF between lines, nothing after the last.

use super::{plain_amount, Address, Iban, Reference};
use crate::domain::Currency;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QrBill {
    pub account: Iban,
    pub creditor: Address,
    /// Minor units; None leaves the amount for the payer to fill in.
    pub amount: Option<i64>,
    pub currency: Currency,
    /// None: the "Payable by" box is left blank for the payer.
    pub debtor: Option<Address>,
    pub reference: Reference,
    /// Additional information: the document's title and number.
    pub message: String,
}

impl QrBill {
    pub fn payload(&self) -> String {
        let mut lines: Vec<String> =
            vec!["SPC".into(), "0200".into(), "1".into(), self.account.as_str().into()];
        lines.extend(address_lines(Some(&self.creditor)));
        // The ultimate creditor: reserved, always empty.
        lines.extend(std::iter::repeat_n(String::new(), 7));
        lines.push(self.amount.map(plain_amount).unwrap_or_default());
        lines.push(self.currency.to_string());
        lines.extend(address_lines(self.debtor.as_ref()));
        lines.push(self.reference.kind().into());
        lines.push(self.reference.as_str().into());
        lines.push(self.message.clone());
        lines.push("EPD".into());
        lines.join("\n")
    }
}

/// An address as the seven lines of a structured (`S`) address, or seven empty ones.
fn address_lines(address: Option<&Address>) -> Vec<String> {
    match address {
        None => vec![String::new(); 7],
        Some(a) => vec![
            "S".into(),
            a.name.clone(),
            a.postal.street.clone().unwrap_or_default(),
            a.postal.house_number.clone().unwrap_or_default(),
            a.postal.postcode.clone(),
            a.postal.town.clone(),
            a.postal.country.clone(),
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{ReceiptNumber, StringerId};

    #[test]
    fn the_payload_has_the_guidelines_31_lines() {
        let bill = QrBill {
            account: Iban::parse("CH4431999123000889012").unwrap(),
            creditor: Address {
                name: "Stefan Muster Bespannungen".into(),
                postal: super::super::Postal {
                    street: Some("Bahnhofstrasse".into()),
                    house_number: Some("1".into()),
                    postcode: "8001".into(),
                    town: "Zürich".into(),
                    country: "CH".into(),
                },
            },
            amount: Some(3550),
            currency: Currency::chf(),
            debtor: None,
            reference: Reference::qrr(StringerId(1), ReceiptNumber::new(2026, 42)).unwrap(),
            message: "Rechnung 2026-0042".into(),
        };
        let payload = bill.payload();
        let lines: Vec<&str> = payload.split('\n').collect();
        assert_eq!(lines.len(), 31);
        assert_eq!(&lines[..5], ["SPC", "0200", "1", "CH4431999123000889012", "S"]);
        assert_eq!(&lines[18..20], ["35.50", "CHF"]);
        assert_eq!(lines[27], "QRR");
        assert_eq!(lines[30], "EPD");
        assert!(!payload.ends_with('\n'));
    }
}
