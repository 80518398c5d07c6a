use serde::{Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

/// A receipt number `YYYY-NNNN`: the calendar year and the stringer's sequence within it.
/// The sequence has at least four digits and no upper bound: after `2026-9999` comes
/// `2026-10000`. The database stores the text beside both parts and checks they agree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ReceiptNumber {
    pub year: i32,
    pub seq: i64,
}

impl ReceiptNumber {
    pub fn new(year: i32, seq: i64) -> Self {
        ReceiptNumber { year, seq }
    }
}

impl fmt::Display for ReceiptNumber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:04}", self.year, self.seq)
    }
}

impl FromStr for ReceiptNumber {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let invalid = || format!("\"{s}\" is not a receipt number (expected YYYY-NNNN)");
        let (year, seq) = s.split_once('-').ok_or_else(invalid)?;
        let digits = |part: &str| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit());
        if year.len() != 4 || !digits(year) || seq.len() < 4 || !digits(seq) {
            return Err(invalid());
        }
        let year: i32 = year.parse().map_err(|_| invalid())?;
        let seq: i64 = seq.parse().map_err(|_| invalid())?;
        let number = ReceiptNumber { year, seq };
        // Only the canonical rendering is a number: "2026-00001" is not "2026-0001".
        if year == 0 || seq == 0 || number.to_string() != s {
            return Err(invalid());
        }
        Ok(number)
    }
}

impl Serialize for ReceiptNumber {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_at_least_four_digits_and_never_truncates() {
        assert_eq!(ReceiptNumber::new(2026, 1).to_string(), "2026-0001");
        assert_eq!(ReceiptNumber::new(2026, 42).to_string(), "2026-0042");
        assert_eq!(ReceiptNumber::new(2026, 9999).to_string(), "2026-9999");
        assert_eq!(ReceiptNumber::new(2026, 10000).to_string(), "2026-10000");
        assert_eq!(ReceiptNumber::new(2026, 100000).to_string(), "2026-100000");
    }

    #[test]
    fn parses_only_canonical_renderings() {
        assert_eq!("2026-0042".parse(), Ok(ReceiptNumber::new(2026, 42)));
        assert_eq!("2026-10000".parse(), Ok(ReceiptNumber::new(2026, 10000)));
        for bad in ["2026-042", "2026-00042", "26-0042", "2026-0000", "2026_0042", "2026-00a2"] {
            assert!(bad.parse::<ReceiptNumber>().is_err(), "{bad} was accepted");
        }
    }
}
