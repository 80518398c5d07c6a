//! Prices in minor units, and the currencies they are in.

use std::fmt;
use std::str::FromStr;

/// A price in integer minor units (centimes): `35.50` is 3550.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Price(pub i64);

impl FromStr for Price {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let invalid =
            || format!("\"{s}\" is not a price (a non-negative amount like 35 or 35.50, '.' for decimals)");
        let (units, fraction) = s.trim().split_once('.').unwrap_or((s.trim(), ""));
        let digits = |part: &str| part.bytes().all(|b| b.is_ascii_digit());
        if units.is_empty() || !digits(units) || !digits(fraction) || fraction.len() > 2 {
            return Err(invalid());
        }
        if s.contains('.') && fraction.is_empty() {
            return Err(invalid());
        }
        let units: i64 = units.parse().map_err(|_| invalid())?;
        let cents: i64 = format!("{fraction:0<2}").parse().map_err(|_| invalid())?;
        // The most a payment code carries (999,999,999.99): far above any racket.
        units
            .checked_mul(100)
            .and_then(|minor| minor.checked_add(cents))
            .filter(|&minor| minor <= 99_999_999_999)
            .map(Price)
            .ok_or_else(invalid)
    }
}

impl fmt::Display for Price {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.0 < 0 { "-" } else { "" };
        let minor = self.0.unsigned_abs();
        write!(f, "{sign}{}.{:02}", minor / 100, minor % 100)
    }
}

/// An ISO 4217 style currency code: three capital letters.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(transparent)]
pub struct Currency(String);

impl Currency {
    /// A new order's currency when neither it nor its stringer names one.
    pub fn chf() -> Currency {
        Currency("CHF".into())
    }

    pub fn eur() -> Currency {
        Currency("EUR".into())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Default for Currency {
    fn default() -> Self {
        Currency::chf()
    }
}

impl fmt::Display for Currency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl TryFrom<String> for Currency {
    type Error = String;

    fn try_from(stored: String) -> Result<Self, Self::Error> {
        stored.parse()
    }
}

impl FromStr for Currency {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let code = s.trim().to_ascii_uppercase();
        if super::iso::is_currency(&code) {
            Ok(Currency(code))
        } else {
            Err(format!("\"{s}\" is not a currency code (ISO 4217, three letters like CHF or EUR)"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prices_become_minor_units() {
        assert_eq!("35".parse(), Ok(Price(3500)));
        assert_eq!("35.5".parse(), Ok(Price(3550)));
        assert_eq!("35.05".parse(), Ok(Price(3505)));
        assert_eq!("0.00".parse(), Ok(Price(0)));
        assert_eq!(Price(3505).to_string(), "35.05");
        assert_eq!(Price(-3505).to_string(), "-35.05");
        assert_eq!(Price(-5).to_string(), "-0.05");
    }

    #[test]
    fn rejects_what_is_not_a_plain_price() {
        for bad in ["", "-1", "35,50", "35.505", "35.", ".5", "1e3", "35 CHF", "99999999999999999999"] {
            assert!(bad.parse::<Price>().is_err(), "{bad:?} was accepted");
        }
    }
}
