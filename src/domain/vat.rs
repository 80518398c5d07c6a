//! VAT rates and the VAT a gross price includes.

use std::fmt;
use std::str::FromStr;

/// The small-amount limit above which a VAT-registered business's invoice in `currency`
/// names the customer's address, when `gross_minor` is above it: CHF 400 (Swiss MWSTV
/// art. 57), EUR 250 (German UStDV § 33). (`receipts_mint` on PostgreSQL applies the same.)
pub fn address_limit_passed(currency: &str, gross_minor: i64) -> Option<&'static str> {
    let (limit, shown) = match currency {
        "CHF" => (40_000, "CHF 400"),
        "EUR" => (25_000, "EUR 250"),
        _ => return None,
    };
    (gross_minor > limit).then_some(shown)
}

/// A VAT rate in hundredths of a percent: 8.1 % is 810, 19 % is 1900.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VatRate(pub i32);

impl VatRate {
    /// The VAT a gross price includes, `price × rate / (100 + rate)`, rounded half away
    /// from zero to the minor unit (computed per document).
    pub fn included_in(self, gross_minor: i64) -> i64 {
        let numerator = i128::from(gross_minor) * i128::from(self.0);
        let denominator = 10_000 + i128::from(self.0);
        let rounded = (2 * numerator.abs() + denominator) / (2 * denominator);
        (rounded * numerator.signum()) as i64
    }

    /// The rate with `decimal` as its decimal separator: `8.1`, `19`, `7,7`.
    pub fn text(self, decimal: char) -> String {
        let whole = self.0 / 100;
        match self.0 % 100 {
            0 => whole.to_string(),
            fraction if fraction % 10 == 0 => format!("{whole}{decimal}{}", fraction / 10),
            fraction => format!("{whole}{decimal}{fraction:02}"),
        }
    }
}

impl fmt::Display for VatRate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text('.'))
    }
}

impl FromStr for VatRate {
    type Err = String;

    /// `8.1`, `8,1`, `19`, `7.7 %`: a percentage from 0 to 100 with at most two decimals.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let invalid =
            || format!("\"{s}\" is not a VAT rate (a percentage like 8.1 or 19, at most two decimals)");
        let text = s.trim().trim_end_matches('%').trim().replace(',', ".");
        let (whole, fraction) = text.split_once('.').unwrap_or((&text, ""));
        let digits = |p: &str| p.bytes().all(|b| b.is_ascii_digit());
        if whole.is_empty() || !digits(whole) || !digits(fraction) || fraction.len() > 2 || whole.len() > 3 {
            return Err(invalid());
        }
        let bp = whole.parse::<i32>().map_err(|_| invalid())? * 100
            + format!("{fraction:0<2}").parse::<i32>().map_err(|_| invalid())?;
        if bp > 10_000 {
            return Err(invalid());
        }
        Ok(VatRate(bp))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_are_read_as_people_write_them() {
        assert_eq!("8.1".parse(), Ok(VatRate(810)));
        assert_eq!("7,7 %".parse(), Ok(VatRate(770)));
        assert_eq!("19".parse(), Ok(VatRate(1900)));
        assert_eq!("2.55".parse(), Ok(VatRate(255)));
        for bad in ["", "-1", "101", "8.123", "eight", "8.1.1"] {
            assert!(bad.parse::<VatRate>().is_err(), "{bad}");
        }
        assert_eq!(
            (VatRate(810).text('.'), VatRate(1900).text(','), VatRate(255).text(',')),
            ("8.1".into(), "19".into(), "2,55".into())
        );
    }

    #[test]
    fn the_vat_included_rounds_half_away_from_zero() {
        // 35.50 at 8.1 %: 2.6623... -> 2.66
        assert_eq!(VatRate(810).included_in(3550), 266);
        // 1.07 at 7 %: 0.07 exactly.
        assert_eq!(VatRate(700).included_in(107), 7);
        // 0.05 at 19 %: 0.00798... -> 0.01.
        assert_eq!(VatRate(1900).included_in(5), 1);
        assert_eq!(VatRate(0).included_in(3550), 0);
    }
}
