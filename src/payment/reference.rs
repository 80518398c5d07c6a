//! The payment reference of a receipt, and back.
//!
//! Derived from the receipt so that it is unique among all stringers of the database and
//! maps back to exactly one order: fixed-width fields of the stringer's id, the receipt's
//! year and its sequence number (docs/PAYMENTS.md).
//! - QRR (a QR-IBAN's reference, CHF only): 27 digits, `SSSSSSSS YYYY NNNNNNNNNNNNNN` and a
//!   mod-10 recursive check digit.
//! - SCOR (ISO 11649, every other account): `RF`, two check digits (mod 97), then
//!   `SSSSSSS YYYY NNNNNNNNNN`, 21 digits.

use crate::domain::{ReceiptNumber, StringerId};
use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reference {
    /// A QR reference: 27 digits.
    Qrr(String),
    /// A creditor reference: `RF` + 2 check digits + up to 21 characters.
    Scor(String),
}

/// Field widths: (stringer, year, sequence).
const QRR_FIELDS: (usize, usize, usize) = (8, 4, 14);
const SCOR_FIELDS: (usize, usize, usize) = (7, 4, 10);

impl Reference {
    /// The QRR of a receipt; None when its stringer id or sequence outgrow the fields.
    pub fn qrr(stringer: StringerId, number: ReceiptNumber) -> Option<Reference> {
        let body = fields(QRR_FIELDS, stringer, number)?;
        let check = mod10_recursive(&body);
        Some(Reference::Qrr(format!("{body}{check}")))
    }

    /// The SCOR of a receipt; None when its stringer id or sequence outgrow the fields.
    pub fn scor(stringer: StringerId, number: ReceiptNumber) -> Option<Reference> {
        let body = fields(SCOR_FIELDS, stringer, number)?;
        Some(Reference::Scor(format!("RF{:02}{body}", iso11649_check(&body))))
    }

    /// As the code carries it.
    pub fn as_str(&self) -> &str {
        match self {
            Reference::Qrr(text) | Reference::Scor(text) => text,
        }
    }

    /// `QRR` or `SCOR`, the QR-bill's reference type.
    pub fn kind(&self) -> &'static str {
        match self {
            Reference::Qrr(_) => "QRR",
            Reference::Scor(_) => "SCOR",
        }
    }

    /// As printed: a QRR in groups 2 + 5 × 5, a SCOR in groups of 4.
    pub fn printed(&self) -> String {
        match self {
            Reference::Qrr(text) => {
                let mut groups = vec![text[..2].to_string()];
                groups
                    .extend(text.as_bytes()[2..].chunks(5).map(|c| String::from_utf8_lossy(c).into_owned()));
                groups.join(" ")
            }
            Reference::Scor(text) => super::groups_of_four(text),
        }
    }

    /// The receipt a reference of this database names (spaces ignored), if its check digits
    /// hold: a bank's file names it so.
    pub fn receipt_of(text: &str) -> Option<(StringerId, ReceiptNumber)> {
        let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect::<String>().to_uppercase();
        if let Some(rest) = compact.strip_prefix("RF") {
            let (check, body) = rest.split_at_checked(2)?;
            if body.len() != field_width(SCOR_FIELDS) || check.parse::<u32>().ok()? != iso11649_check(body) {
                return None;
            }
            return split(SCOR_FIELDS, body);
        }
        if compact.len() != 27 || !compact.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let (body, check) = compact.split_at(26);
        if check != mod10_recursive(body).to_string() {
            return None;
        }
        split(QRR_FIELDS, body)
    }
}

impl fmt::Display for Reference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

fn field_width((stringer, year, seq): (usize, usize, usize)) -> usize {
    stringer + year + seq
}

fn fields((s, y, n): (usize, usize, usize), stringer: StringerId, number: ReceiptNumber) -> Option<String> {
    let text = format!("{:0s$}{:0y$}{:0n$}", stringer.0, number.year, number.seq);
    (text.len() == s + y + n).then_some(text)
}

fn split((s, y, _): (usize, usize, usize), body: &str) -> Option<(StringerId, ReceiptNumber)> {
    if !body.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let stringer: i64 = body[..s].parse().ok()?;
    let year: i32 = body[s..s + y].parse().ok()?;
    let seq: i64 = body[s + y..].parse().ok()?;
    // Receipts are numbered in YEARS: a reference outside them is another creditor's.
    (stringer > 0 && crate::domain::YEARS.contains(&year) && seq > 0)
        .then_some((StringerId(stringer), ReceiptNumber::new(year, seq)))
}

/// The check digit of a QR reference (modulo 10, recursive).
fn mod10_recursive(digits: &str) -> u32 {
    const TABLE: [u32; 10] = [0, 9, 4, 6, 8, 2, 7, 1, 3, 5];
    let carry = digits.bytes().fold(0, |carry, d| TABLE[((carry + u32::from(d - b'0')) % 10) as usize]);
    (10 - carry) % 10
}

/// ISO 11649's check digits: the body, then `RF00`, letters as 10..35, modulo 97.
fn iso11649_check(body: &str) -> u32 {
    let rearranged = format!("{body}RF00");
    let remainder = rearranged.chars().fold(0u32, |rest, c| {
        let value = c.to_digit(36).unwrap_or(0);
        if value >= 10 {
            (rest * 100 + value) % 97
        } else {
            (rest * 10 + value) % 97
        }
    });
    98 - remainder
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_digits_match_the_published_examples() {
        // SIX: 21000000000313947143000901 takes check digit 7.
        assert_eq!(mod10_recursive("21000000000313947143000901"), 7);
        // ISO 11649: RF88 2026 0042 (PAYMENT-NOTES); RF18 5390 0754 7034 (the standard's own).
        assert_eq!(iso11649_check("20260042"), 88);
        assert_eq!(iso11649_check("539007547034"), 18);
    }

    #[test]
    fn a_receipt_gives_one_reference_and_comes_back_from_it() {
        let number = ReceiptNumber::new(2026, 42);
        let qrr = Reference::qrr(StringerId(3), number).unwrap();
        assert_eq!(qrr.as_str().len(), 27);
        assert_eq!(&qrr.as_str()[..26], "00000003202600000000000042");
        assert_eq!(qrr.printed().split(' ').map(str::len).collect::<Vec<_>>(), [2, 5, 5, 5, 5, 5]);
        assert_eq!(Reference::receipt_of(&qrr.printed()), Some((StringerId(3), number)));
        let scor = Reference::scor(StringerId(3), number).unwrap();
        assert!(scor.as_str().starts_with("RF") && scor.as_str().len() == 25, "{scor}");
        assert_eq!(Reference::receipt_of(&scor.printed().to_lowercase()), Some((StringerId(3), number)));
        // Different stringers, same number: different references.
        assert_ne!(Reference::scor(StringerId(4), number), Some(scor.clone()));
        // A typo is caught by the check digits.
        let mut typo = scor.as_str().to_string();
        typo.replace_range(24..25, if typo.ends_with('1') { "2" } else { "1" });
        assert_eq!(Reference::receipt_of(&typo), None);
        assert_eq!(Reference::receipt_of("RF18539007547034"), None, "not one of ours");
    }

    #[test]
    fn numbers_beyond_the_fields_have_no_reference() {
        assert_eq!(Reference::scor(StringerId(10_000_000), ReceiptNumber::new(2026, 1)), None);
        assert!(Reference::qrr(StringerId(1), ReceiptNumber::new(2026, 99_999_999_999_999)).is_some());
    }
}
