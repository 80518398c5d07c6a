use chrono::{DateTime, Datelike, FixedOffset, NaiveDate, NaiveDateTime, NaiveTime, TimeZone};
use chrono_tz::Tz;

/// An instant as written by a person: either with an offset (an instant already) or as a
/// wall-clock time that means local time in the stringer's zone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Timestamp {
    /// A UTC instant.
    Instant(NaiveDateTime),
    /// Wall-clock time in a zone still to be chosen.
    Local(NaiveDateTime),
}

const EXPECTED: &str = "expected YYYY-MM-DD or DD.MM.YYYY";

impl Timestamp {
    /// Reads `YYYY-MM-DD`, `YYYY-MM-DD HH:MM[:SS]`, `YYYY-MM-DDTHH:MM[:SS][.frac]` with an
    /// optional `Z` or `±HH:MM`, and `DD.MM.YYYY[ HH:MM]`. A date alone is local midnight.
    pub fn parse(text: &str) -> Result<Timestamp, String> {
        let s = text.trim();
        let not_a_date = || format!("\"{text}\" is not a date ({EXPECTED})");
        let not_a_time = || {
            format!("\"{text}\" is not a time (expected HH:MM, HH:MM:SS or HH:MM:SS.fff after the date, then optionally Z or ±HH:MM)")
        };

        if s.len() >= 10 && s.as_bytes()[2] == b'.' {
            let (date, time) = s.split_at(10);
            let date = NaiveDate::parse_from_str(date, "%d.%m.%Y").map_err(|_| not_a_date())?;
            let time = match time {
                "" => NaiveTime::MIN,
                t => t
                    .strip_prefix(' ')
                    .and_then(|t| NaiveTime::parse_from_str(t, "%H:%M").ok())
                    .ok_or_else(not_a_time)?,
            };
            return Ok(Timestamp::Local(date.and_time(time)));
        }

        if s.len() < 10
            || !s.is_char_boundary(10)
            || !s.as_bytes()[..4].iter().all(u8::is_ascii_digit)
        {
            return Err(not_a_date());
        }
        let (date, rest) = s.split_at(10);
        let date = NaiveDate::parse_from_str(date, "%Y-%m-%d").map_err(|_| not_a_date())?;
        if rest.is_empty() {
            return Ok(Timestamp::Local(date.and_time(NaiveTime::MIN)));
        }
        let rest = rest.strip_prefix(['T', 't', ' ']).ok_or_else(not_a_time)?;
        let (clock, offset) = split_offset(rest).ok_or_else(not_a_time)?;
        let time = NaiveTime::parse_from_str(clock, "%H:%M:%S%.f")
            .or_else(|_| NaiveTime::parse_from_str(clock, "%H:%M"))
            .map_err(|_| not_a_time())?;
        let local = date.and_time(time);
        Ok(match offset {
            None => Timestamp::Local(local),
            Some(offset) => Timestamp::Instant(
                offset
                    .from_local_datetime(&local)
                    .single()
                    .ok_or_else(not_a_time)?
                    .naive_utc(),
            ),
        })
    }

    /// The UTC instant, reading wall-clock time in `zone`. A wall-clock time that happens
    /// twice (clocks going back) is the earlier one; one that never happens is an error.
    pub fn resolve(self, zone: Tz) -> Result<NaiveDateTime, String> {
        match self {
            Timestamp::Instant(utc) => Ok(utc),
            Timestamp::Local(local) => zone
                .from_local_datetime(&local)
                .earliest()
                .map(|at| at.naive_utc())
                .ok_or_else(|| {
                    format!(
                        "{} does not exist in {zone} (the clocks skip it)",
                        local.format("%Y-%m-%d %H:%M")
                    )
                }),
        }
    }
}

impl std::str::FromStr for Timestamp {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Timestamp::parse(s)
    }
}

/// Splits `HH:MM[:SS][.frac]` from a trailing `Z` or `±HH:MM` / `±HHMM` / `±HH`.
fn split_offset(rest: &str) -> Option<(&str, Option<FixedOffset>)> {
    if let Some(clock) = rest.strip_suffix(['Z', 'z']) {
        return Some((clock, FixedOffset::east_opt(0)));
    }
    let Some(sign_at) = rest.rfind(['+', '-']) else {
        return Some((rest, None));
    };
    let (clock, offset) = rest.split_at(sign_at);
    let sign = if offset.starts_with('-') { -1 } else { 1 };
    let digits: String = offset[1..].chars().filter(|c| *c != ':').collect();
    if !(digits.len() == 2 || digits.len() == 4) || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let hours: i32 = digits[..2].parse().ok()?;
    let minutes: i32 = digits
        .get(2..)
        .filter(|m| !m.is_empty())
        .map_or(Some(0), |m| m.parse().ok())?;
    if hours > 23 || minutes > 59 {
        return None;
    }
    Some((
        clock,
        Some(FixedOffset::east_opt(sign * (hours * 3600 + minutes * 60))?),
    ))
}

/// The current UTC instant at the precision both databases keep (microseconds).
pub fn now_utc() -> NaiveDateTime {
    use chrono::SubsecRound;
    chrono::Utc::now().naive_utc().trunc_subsecs(6)
}

/// The calendar year of a UTC instant in a zone: the year of a receipt.
pub fn local_year(utc: NaiveDateTime, zone: Tz) -> i32 {
    zone.from_utc_datetime(&utc).year()
}

/// A UTC instant as wall-clock time in `zone`, for tables people read.
pub fn format_local(utc: NaiveDateTime, zone: Tz) -> String {
    zone.from_utc_datetime(&utc)
        .format("%Y-%m-%d %H:%M")
        .to_string()
}

/// A UTC instant as RFC 3339, for JSON.
pub fn format_utc(utc: NaiveDateTime) -> String {
    DateTime::<chrono::Utc>::from_naive_utc_and_offset(utc, chrono::Utc)
        .to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)
}

/// An IANA zone name, such as `Europe/Zurich`.
pub fn parse_timezone(name: &str) -> Result<Tz, String> {
    name.trim()
        .parse::<Tz>()
        .map_err(|_| format!("\"{name}\" is not an IANA time zone (like Europe/Zurich or UTC)"))
}

/// The machine's zone, or UTC when it cannot be told.
pub fn machine_timezone() -> Tz {
    iana_time_zone::get_timezone()
        .ok()
        .and_then(|name| name.parse().ok())
        .unwrap_or(Tz::UTC)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono_tz::Europe::Zurich;

    fn utc(s: &str) -> NaiveDateTime {
        NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S").unwrap()
    }

    #[test]
    fn reads_every_accepted_form() {
        let cases = [
            ("2026-03-14", "2026-03-13 23:00:00"),
            ("2026-03-14 09:30", "2026-03-14 08:30:00"),
            ("2026-03-14 09:30:15", "2026-03-14 08:30:15"),
            ("2026-03-14T09:30", "2026-03-14 08:30:00"),
            ("2026-03-14T09:30:15.250", "2026-03-14 08:30:15"),
            ("2026-03-14T09:30:15Z", "2026-03-14 09:30:15"),
            ("2026-03-14T09:30:15+02:00", "2026-03-14 07:30:15"),
            ("2026-03-14T09:30-05:00", "2026-03-14 14:30:00"),
            ("14.03.2026", "2026-03-13 23:00:00"),
            ("14.03.2026 09:30", "2026-03-14 08:30:00"),
        ];
        for (text, expected) in cases {
            let at = Timestamp::parse(text).unwrap().resolve(Zurich).unwrap();
            assert_eq!(
                at.format("%Y-%m-%d %H:%M:%S").to_string(),
                expected,
                "{text}"
            );
        }
    }

    #[test]
    fn names_what_is_wrong() {
        assert_eq!(
            Timestamp::parse("31/12/2025").unwrap_err(),
            "\"31/12/2025\" is not a date (expected YYYY-MM-DD or DD.MM.YYYY)"
        );
        assert!(Timestamp::parse("2026-02-30")
            .unwrap_err()
            .contains("is not a date"));
        assert!(Timestamp::parse("2026-02-03 25:00")
            .unwrap_err()
            .contains("is not a time"));
        assert!(Timestamp::parse("2026-02-03T10:00+2:00").is_err());
    }

    #[test]
    fn new_year_in_zurich_is_still_the_old_year_in_utc() {
        let at = Timestamp::parse("2027-01-01 00:30")
            .unwrap()
            .resolve(Zurich)
            .unwrap();
        assert_eq!(at, utc("2026-12-31 23:30:00"));
        assert_eq!(local_year(at, Zurich), 2027);
        assert_eq!(local_year(at, Tz::UTC), 2026);
    }

    #[test]
    fn wall_clock_times_skipped_by_daylight_saving_are_refused() {
        let skipped = Timestamp::parse("2026-03-29 02:30").unwrap();
        assert!(skipped
            .resolve(Zurich)
            .unwrap_err()
            .contains("does not exist in Europe/Zurich"));
        let repeated = Timestamp::parse("2026-10-25 02:30").unwrap();
        assert_eq!(
            repeated.resolve(Zurich).unwrap(),
            utc("2026-10-25 00:30:00")
        );
    }
}
