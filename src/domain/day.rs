//! What the day at the counter is written in: promised times, items beside the stringing,
//! lengths of string, the strings of an order.

use super::{Price, Sport, Timestamp};
use chrono::{Duration, NaiveDateTime};
use chrono_tz::Tz;
use std::fmt;
use std::str::FromStr;

/// `order add --due`: a time (local unless it has an offset), or `+24h` / `+2d` after the
/// order was taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Due {
    At(Timestamp),
    After(Duration),
}

impl FromStr for Due {
    type Err = String;

    fn from_str(text: &str) -> Result<Due, String> {
        let trimmed = text.trim();
        let Some(span) = trimmed.strip_prefix('+') else {
            return Timestamp::parse(trimmed)
                .map(Due::At)
                .map_err(|e| format!("{e}; or a span after the order was taken, like +24h or +2d"));
        };
        let invalid = || format!("\"{text}\" is not a span (expected hours like +24h or days like +2d)");
        let (count, unit) = span.split_at(span.find(|c: char| !c.is_ascii_digit()).ok_or_else(invalid)?);
        let count: i64 = count.parse().map_err(|_| invalid())?;
        let hours = match unit {
            "h" => count,
            "d" => count.checked_mul(24).ok_or_else(invalid)?,
            _ => return Err(invalid()),
        };
        if !(1..=MAX_TURNAROUND_HOURS).contains(&hours) {
            return Err(format!("\"{text}\" is not a span from 1 hour to a year"));
        }
        Ok(Due::After(Duration::hours(hours)))
    }
}

impl Due {
    /// The promised instant of an order taken at `ordered_at`.
    pub fn resolve(self, ordered_at: NaiveDateTime, zone: Tz) -> Result<NaiveDateTime, String> {
        match self {
            Due::At(at) => at.resolve(zone),
            Due::After(span) => Ok(ordered_at + span),
        }
    }
}

/// The longest promise: a year.
pub const MAX_TURNAROUND_HOURS: i64 = 8760;

/// A line after the stringing line: `--item "Overgrip=3.00"`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    pub text: String,
    pub price: Price,
}

impl FromStr for Item {
    type Err = String;

    fn from_str(given: &str) -> Result<Item, String> {
        // The price follows the last `=`: a text may hold one ("Grip = Tourna").
        let Some((text, price)) = given.rsplit_once('=') else {
            return Err(format!("\"{given}\" is not an item (expected TEXT=PRICE, e.g. \"Overgrip=3.00\")"));
        };
        let text = text.trim();
        if text.is_empty() {
            return Err(format!("\"{given}\" names no item before the '=' (expected TEXT=PRICE)"));
        }
        if price.trim().is_empty() {
            return Err(format!(
                "the item \"{text}\" has no price (expected TEXT=PRICE, e.g. \"{text}=3.00\")"
            ));
        }
        let price = price.parse::<Price>().map_err(|e| format!("the item \"{text}\": {e}"))?;
        Ok(Item { text: text.to_string(), price })
    }
}

/// A length of string in centimetres, written in metres: `12`, `11.5`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Length(pub i32);

impl Length {
    /// What one racket of a sport takes when the order does not say.
    pub fn racket_of(sport: Sport) -> Length {
        match sport {
            Sport::Tennis => Length(1200),
            Sport::Badminton | Sport::Squash => Length(1000),
        }
    }
}

impl FromStr for Length {
    type Err = String;

    fn from_str(text: &str) -> Result<Length, String> {
        let invalid = || format!("\"{text}\" is not a length in metres (like 12 or 11.5)");
        // Metres with up to two decimals: the same reading as a price's, in centimetres.
        let cm = text.trim().parse::<Price>().map_err(|_| invalid())?.0;
        match i32::try_from(cm) {
            Ok(0) => Err(format!("\"{text}\" metres is no length: give more than 0")),
            Ok(cm) if cm <= 100_000 => Ok(Length(cm)),
            _ => Err(format!("\"{text}\" metres is more than 1000 m")),
        }
    }
}

impl fmt::Display for Length {
    /// `12.0 m`, `11.5 m`, `-0.25 m`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.0 < 0 { "-" } else { "" };
        let cm = self.0.unsigned_abs();
        match cm % 100 {
            0 => write!(f, "{sign}{}.0 m", cm / 100),
            rest if rest % 10 == 0 => write!(f, "{sign}{}.{} m", cm / 100, rest / 10),
            rest => write!(f, "{sign}{}.{rest:02} m", cm / 100),
        }
    }
}

/// The strings of an order as one line shows them: a hybrid's as "mains / crosses".
pub fn strings_line(mains: Option<&str>, crosses: Option<&str>) -> Option<String> {
    match (mains, crosses) {
        (Some(mains), Some(crosses)) => Some(format!("{mains} / {crosses}")),
        (mains, _) => mains.map(str::to_string),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_promise_is_a_time_or_a_span_after_the_order() {
        let taken = chrono::NaiveDate::from_ymd_opt(2026, 11, 25).unwrap().and_hms_opt(9, 0, 0).unwrap();
        let zone: Tz = "Europe/Zurich".parse().unwrap();
        assert_eq!("+24h".parse::<Due>().unwrap().resolve(taken, zone).unwrap(), taken + Duration::hours(24));
        assert_eq!("+2d".parse::<Due>().unwrap().resolve(taken, zone).unwrap(), taken + Duration::hours(48));
        let at = "2026-11-26 17:00".parse::<Due>().unwrap().resolve(taken, zone).unwrap();
        assert_eq!(at.to_string(), "2026-11-26 16:00:00", "local time in the stringer's zone");
        for bad in ["+", "+0h", "+3w", "+-2d", "tomorrow", "+99999d"] {
            assert!(bad.parse::<Due>().is_err(), "{bad}");
        }
    }

    #[test]
    fn an_item_is_a_text_and_a_price() {
        assert_eq!(
            "Overgrip=3.00".parse::<Item>().unwrap(),
            Item { text: "Overgrip".into(), price: Price(300) }
        );
        assert_eq!("Grip = Tourna = 12".parse::<Item>().unwrap().text, "Grip = Tourna");
        let no_price = "Grip=".parse::<Item>().unwrap_err();
        assert!(no_price.contains("has no price"), "{no_price}");
        assert!("Grip=-3".parse::<Item>().unwrap_err().contains("is not a price"));
        assert!("Grip".parse::<Item>().unwrap_err().contains("TEXT=PRICE"));
        assert!("=3".parse::<Item>().unwrap_err().contains("names no item"));
    }

    #[test]
    fn lengths_are_metres_kept_in_centimetres() {
        assert_eq!("12".parse::<Length>(), Ok(Length(1200)));
        assert_eq!("11.5".parse::<Length>(), Ok(Length(1150)));
        assert!("0".parse::<Length>().unwrap_err().contains("more than 0"));
        assert!("-3".parse::<Length>().is_err());
        assert_eq!(Length(1150).to_string(), "11.5 m");
        assert_eq!(Length(-600).to_string(), "-6.0 m");
        assert_eq!(Length(20025).to_string(), "200.25 m");
    }
}
