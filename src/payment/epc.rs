//! The EPC QR code (EPC069-12, "SEPA credit transfer"): a euro payment a banking app reads.

use super::{Iban, Reference};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Epc {
    pub bic: Option<String>,
    /// The account holder (at most 70 characters).
    pub name: String,
    pub account: Iban,
    /// Euro cents.
    pub amount: i64,
    pub reference: Reference,
}

/// The most bytes an EPC QR code's payload may have.
pub const MAX_BYTES: usize = 331;

impl Epc {
    /// `BCD`, version 002, UTF-8, `SCT`, BIC, name, IBAN, amount (no trailing zeros), no
    /// purpose, the creditor reference; trailing empty lines dropped.
    pub fn payload(&self) -> String {
        let lines = [
            "BCD".to_string(),
            "002".into(),
            "1".into(),
            "SCT".into(),
            self.bic.clone().unwrap_or_default(),
            self.name.clone(),
            self.account.as_str().into(),
            format!("EUR{}", euro(self.amount)),
            String::new(),
            self.reference.as_str().into(),
        ];
        lines.join("\n")
    }
}

/// `35.5`, `35`, `0.05`: the EPC writes amounts without trailing zeros.
fn euro(cents: i64) -> String {
    let text = format!("{}.{:02}", cents / 100, cents % 100);
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{ReceiptNumber, StringerId};

    #[test]
    fn amounts_lose_trailing_zeros_and_the_payload_its_empty_tail() {
        assert_eq!(
            (euro(3550), euro(3500), euro(5), euro(123_456)),
            ("35.5".into(), "35".into(), "0.05".into(), "1234.56".into())
        );
        let epc = Epc {
            bic: Some("COBADEFFXXX".into()),
            name: "Stefan Muster".into(),
            account: Iban::parse("DE89370400440532013000").unwrap(),
            amount: 3550,
            reference: Reference::scor(StringerId(1), ReceiptNumber::new(2026, 42)).unwrap(),
        };
        let payload = epc.payload();
        assert!(payload.starts_with(
            "BCD\n002\n1\nSCT\nCOBADEFFXXX\nStefan Muster\nDE89370400440532013000\nEUR35.5\n\nRF"
        ));
        assert!(!payload.ends_with('\n') && payload.len() <= MAX_BYTES);
    }
}
