//! A receipt number, `YYYY-NNNN`: the year and the stringer's sequence number in it.

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
        // At most 18 digits: every such sequence number, and the next one, fits in an i64.
        if year.len() != 4 || !digits(year) || !(4..=MAX_SEQ_DIGITS).contains(&seq.len()) || !digits(seq) {
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

const MAX_SEQ_DIGITS: usize = 18;

/// Consecutive numbers of one stringer's year: `2026-0008..2026-0012`, or one number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NumberRange {
    pub first: ReceiptNumber,
    pub last: ReceiptNumber,
}

impl NumberRange {
    pub fn year(&self) -> i32 {
        self.first.year
    }

    /// How many numbers the range holds.
    pub fn count(&self) -> i64 {
        self.last.seq - self.first.seq + 1
    }

    pub fn seqs(&self) -> std::ops::RangeInclusive<i64> {
        self.first.seq..=self.last.seq
    }
}

impl fmt::Display for NumberRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.first == self.last {
            write!(f, "{}", self.first)
        } else {
            write!(f, "{}..{}", self.first, self.last)
        }
    }
}

impl FromStr for NumberRange {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let Some((first, last)) = s.split_once("..") else {
            let number: ReceiptNumber = s.parse()?;
            return Ok(NumberRange { first: number, last: number });
        };
        let (first, last): (ReceiptNumber, ReceiptNumber) = (first.parse()?, last.parse()?);
        if first.year != last.year {
            return Err(format!("\"{s}\" spans two years: a range is of one year (YYYY-NNNN..YYYY-MMMM)"));
        }
        if first.seq > last.seq {
            return Err(format!("\"{s}\" runs backwards: write the lower number first"));
        }
        Ok(NumberRange { first, last })
    }
}

/// A credit note's number, `C-YYYY-NNNN`: a series of its own per stringer and year,
/// counted like receipts' (section 3's rules; the prefix is never translated).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CreditNumber(pub ReceiptNumber);

impl CreditNumber {
    pub fn new(year: i32, seq: i64) -> Self {
        CreditNumber(ReceiptNumber::new(year, seq))
    }
}

impl fmt::Display for CreditNumber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "C-{}", self.0)
    }
}

impl FromStr for CreditNumber {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let invalid = || format!("\"{s}\" is not a credit note number (expected C-YYYY-NNNN)");
        let number = s.strip_prefix("C-").ok_or_else(invalid)?;
        number.parse().map(CreditNumber).map_err(|_| invalid())
    }
}

impl Serialize for CreditNumber {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// Which series numbers belong to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Series {
    /// Receipts and invoices: `YYYY-NNNN`.
    #[default]
    Receipts,
    /// Credit notes: `C-YYYY-NNNN`.
    Credits,
}

impl Series {
    /// What a number of the series is printed with before it.
    pub fn prefix(self) -> &'static str {
        match self {
            Series::Receipts => "",
            Series::Credits => "C-",
        }
    }

    /// What the series is called in tables: receipts, credit notes.
    pub fn label(self) -> &'static str {
        match self {
            Series::Receipts => "receipts",
            Series::Credits => "credit notes",
        }
    }

    /// A number of the series as printed.
    pub fn number(self, number: ReceiptNumber) -> String {
        format!("{}{number}", self.prefix())
    }
}

/// Lost numbers that `void --number` accounts for: a range of receipt numbers, or of credit
/// note numbers (`C-2026-0004..C-2026-0005`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeriesRange {
    pub series: Series,
    pub range: NumberRange,
}

impl From<NumberRange> for SeriesRange {
    /// Receipt numbers.
    fn from(range: NumberRange) -> Self {
        SeriesRange { series: Series::Receipts, range }
    }
}

impl fmt::Display for SeriesRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let prefix = self.series.prefix();
        if self.range.first == self.range.last {
            write!(f, "{prefix}{}", self.range.first)
        } else {
            write!(f, "{prefix}{}..{prefix}{}", self.range.first, self.range.last)
        }
    }
}

impl FromStr for SeriesRange {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if !s.starts_with("C-") {
            return s.parse().map(|range| SeriesRange { series: Series::Receipts, range });
        }
        let unprefixed = |part: &str| {
            part.strip_prefix("C-").map(str::to_string).ok_or_else(|| {
                format!("\"{s}\" mixes series: a range of credit notes is C-YYYY-NNNN..C-YYYY-MMMM")
            })
        };
        let plain = match s.split_once("..") {
            Some((first, last)) => format!("{}..{}", unprefixed(first)?, unprefixed(last)?),
            None => unprefixed(s)?,
        };
        let range: NumberRange = plain.parse().map_err(|e: String| e.replace(&plain, s))?;
        Ok(SeriesRange { series: Series::Credits, range })
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
        assert_eq!("2026-999999999999999999".parse(), Ok(ReceiptNumber::new(2026, 999_999_999_999_999_999)));
        for bad in [
            "2026-042",
            "2026-00042",
            "26-0042",
            "2026-0000",
            "2026_0042",
            "2026-00a2",
            "2026-9223372036854775807",
            "2026-99999999999999999999",
        ] {
            assert!(bad.parse::<ReceiptNumber>().is_err(), "{bad} was accepted");
        }
    }

    #[test]
    fn ranges_are_one_year_and_ascending() {
        let range: NumberRange = "2026-0008..2026-0012".parse().unwrap();
        assert_eq!(
            (range.year(), range.count(), range.to_string()),
            (2026, 5, "2026-0008..2026-0012".into())
        );
        let one: NumberRange = "2026-0003".parse().unwrap();
        assert_eq!((one.count(), one.to_string()), (1, "2026-0003".into()));
        assert!("2026-0008..2027-0012".parse::<NumberRange>().unwrap_err().contains("two years"));
        assert!("2026-0012..2026-0008".parse::<NumberRange>().unwrap_err().contains("backwards"));
        assert!("2026-0008..".parse::<NumberRange>().is_err());
    }

    #[test]
    fn credit_numbers_are_their_own_series() {
        assert_eq!(CreditNumber::new(2026, 7).to_string(), "C-2026-0007");
        assert_eq!("C-2026-0007".parse(), Ok(CreditNumber::new(2026, 7)));
        assert!("2026-0007".parse::<CreditNumber>().is_err());
        assert!("C-2026-007".parse::<CreditNumber>().is_err());
        let lost: SeriesRange = "C-2026-0004..C-2026-0005".parse().unwrap();
        assert_eq!((lost.series, lost.range.count()), (Series::Credits, 2));
        assert_eq!(lost.to_string(), "C-2026-0004..C-2026-0005");
        let receipts: SeriesRange = "2026-0004".parse().unwrap();
        assert_eq!((receipts.series, receipts.to_string()), (Series::Receipts, "2026-0004".into()));
        assert!("C-2026-0004..2026-0005".parse::<SeriesRange>().unwrap_err().contains("mixes series"));
    }
}
