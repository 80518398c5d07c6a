//! Instants and days as stringers write them, in their own zone: when things happened and
//! when numbers were issued.

use chrono::{DateTime, Datelike, NaiveDate, NaiveDateTime, NaiveTime, TimeZone};
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
    /// Written by hand: a V1 import reads millions of these.
    pub fn parse(text: &str) -> Result<Timestamp, String> {
        let s = text.trim().as_bytes();
        let not_a_date = || format!("\"{text}\" is not a date ({EXPECTED})");
        let not_a_time = || {
            format!(
                "\"{text}\" is not a time (expected HH:MM, HH:MM:SS or HH:MM:SS.fff after the date, \
                 then optionally Z or ±HH:MM)"
            )
        };
        let (date, rest, dotted) = match s {
            [d1, d2, b'.', m1, m2, b'.', y1, y2, y3, y4, rest @ ..] => {
                let date = ymd(&[*y1, *y2, *y3, *y4], &[*m1, *m2], &[*d1, *d2]);
                (date, rest, true)
            }
            [y1, y2, y3, y4, b'-', m1, m2, b'-', d1, d2, rest @ ..] => {
                let date = ymd(&[*y1, *y2, *y3, *y4], &[*m1, *m2], &[*d1, *d2]);
                (date, rest, false)
            }
            _ => return Err(not_a_date()),
        };
        let date = date.ok_or_else(not_a_date)?;
        let rest = match rest {
            [] => return Ok(Timestamp::Local(date.and_time(NaiveTime::MIN))),
            [b' ', rest @ ..] => rest,
            [b'T' | b't', rest @ ..] if !dotted => rest,
            _ => return Err(not_a_time()),
        };
        let (time, rest) = clock(rest).ok_or_else(not_a_time)?;
        let local = date.and_time(time);
        let offset = match rest {
            [] => return Ok(Timestamp::Local(local)),
            _ if dotted => return Err(not_a_time()),
            [b'Z' | b'z'] => 0,
            [sign @ (b'+' | b'-'), h1, h2, rest @ ..] => {
                let minutes = match rest {
                    [] => Some(0),
                    [b':', m1, m2] | [m1, m2] => two_digits(*m1, *m2).filter(|m| *m < 60),
                    _ => None,
                };
                let hours = two_digits(*h1, *h2).filter(|h| *h < 24);
                let (Some(hours), Some(minutes)) = (hours, minutes) else {
                    return Err(not_a_time());
                };
                let seconds = (hours * 60 + minutes) as i64 * 60;
                if *sign == b'-' {
                    -seconds
                } else {
                    seconds
                }
            }
            _ => return Err(not_a_time()),
        };
        Ok(Timestamp::Instant(local - chrono::Duration::seconds(offset)))
    }

    /// The UTC instant, reading wall-clock time in `zone`. A wall-clock time that happens
    /// twice (clocks going back) is the earlier one; one that never happens is an error.
    pub fn resolve(self, zone: Tz) -> Result<NaiveDateTime, String> {
        match self {
            Timestamp::Instant(utc) => Ok(utc),
            Timestamp::Local(local) => {
                zone.from_local_datetime(&local).earliest().map(|at| at.naive_utc()).ok_or_else(|| {
                    format!(
                        "{} does not exist in {zone} (the clocks skip it)",
                        local.format("%Y-%m-%d %H:%M")
                    )
                })
            }
        }
    }
}

impl std::str::FromStr for Timestamp {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Timestamp::parse(s)
    }
}

fn two_digits(a: u8, b: u8) -> Option<u32> {
    (a.is_ascii_digit() && b.is_ascii_digit()).then(|| u32::from(a - b'0') * 10 + u32::from(b - b'0'))
}

fn ymd(year: &[u8; 4], month: &[u8; 2], day: &[u8; 2]) -> Option<NaiveDate> {
    let year = two_digits(year[0], year[1])? * 100 + two_digits(year[2], year[3])?;
    NaiveDate::from_ymd_opt(year as i32, two_digits(month[0], month[1])?, two_digits(day[0], day[1])?)
}

/// `HH:MM[:SS[.fraction]]`, and what follows it.
fn clock(s: &[u8]) -> Option<(NaiveTime, &[u8])> {
    let [h1, h2, b':', m1, m2, rest @ ..] = s else {
        return None;
    };
    let (hour, minute) = (two_digits(*h1, *h2)?, two_digits(*m1, *m2)?);
    let (second, nanos, rest) = match rest {
        [b':', s1, s2, rest @ ..] => {
            let second = two_digits(*s1, *s2)?;
            match rest {
                [b'.', fraction @ ..] => {
                    let digits = fraction.iter().take_while(|b| b.is_ascii_digit()).count();
                    if digits == 0 {
                        return None;
                    }
                    let nanos =
                        fraction[..digits.min(9)].iter().fold(0u32, |n, b| n * 10 + u32::from(b - b'0'))
                            * 10u32.pow(9 - digits.min(9) as u32);
                    (second, nanos, &fraction[digits..])
                }
                _ => (second, 0, rest),
            }
        }
        _ => (0, 0, rest),
    };
    Some((NaiveTime::from_hms_nano_opt(hour, minute, second, nanos)?, rest))
}

/// The current UTC instant at the precision both databases keep (microseconds).
pub fn now_utc() -> NaiveDateTime {
    use chrono::SubsecRound;
    chrono::Utc::now().naive_utc().trunc_subsecs(6)
}

/// The calendar year of a UTC instant in a zone: the year of a receipt.
/// The first instant of a local day (UTC); a day whose midnight the clocks skip starts an
/// hour later.
/// Noon of a local day, as UTC: when something known only by its date happened.
pub fn local_noon(day: NaiveDate, zone: Tz) -> NaiveDateTime {
    let noon = day.and_time(NaiveTime::from_hms_opt(12, 0, 0).expect("noon is a time"));
    // No zone skips or repeats noon.
    zone.from_local_datetime(&noon).earliest().map_or(noon, |at| at.naive_utc())
}

pub fn day_start(day: NaiveDate, zone: Tz) -> NaiveDateTime {
    let midnight = day.and_time(NaiveTime::MIN);
    match zone.from_local_datetime(&midnight).earliest() {
        Some(at) => at.naive_utc(),
        None => zone
            .from_local_datetime(&(midnight + chrono::Duration::hours(1)))
            .earliest()
            .map_or(midnight, |at| at.naive_utc()),
    }
}

/// The calendar day an instant falls on in a zone.
pub fn local_date(utc: NaiveDateTime, zone: Tz) -> chrono::NaiveDate {
    zone.from_utc_datetime(&utc).date_naive()
}

pub fn local_year(utc: NaiveDateTime, zone: Tz) -> i32 {
    zone.from_utc_datetime(&utc).year()
}

/// A UTC instant as wall-clock time in `zone`, for tables people read.
pub fn format_local(utc: NaiveDateTime, zone: Tz) -> String {
    zone.from_utc_datetime(&utc).format("%Y-%m-%d %H:%M").to_string()
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

/// The zone of a new stringer when none is given: the `TZ` environment variable, then the
/// machine's zone, then UTC. A `TZ` that names no IANA zone is refused rather than guessed
/// around: the zone decides which year every receipt belongs to.
pub fn default_timezone() -> Result<Tz, String> {
    match std::env::var("TZ") {
        Ok(tz) if !tz.trim().is_empty() => timezone_from_tz_variable(&tz),
        _ => Ok(machine_timezone()),
    }
}

/// `TZ` as the C library reads it: `Europe/Zurich`, `:Europe/Zurich`, or a path into the
/// zone database such as `/usr/share/zoneinfo/Europe/Zurich`.
fn timezone_from_tz_variable(tz: &str) -> Result<Tz, String> {
    let name = tz.trim().trim_start_matches(':');
    let name = name.rsplit_once("zoneinfo/").map_or(name, |(_, zone)| zone);
    name.parse::<Tz>().map_err(|_| {
        format!("the TZ environment variable (\"{tz}\") names no IANA time zone: pass --timezone, e.g. Europe/Zurich")
    })
}

/// The machine's zone, or UTC when it cannot be told.
fn machine_timezone() -> Tz {
    iana_time_zone::get_timezone().ok().and_then(|name| name.parse().ok()).unwrap_or(Tz::UTC)
}

/// The first UTC instant of a local calendar year in `zone`. Found by bisection on
/// `local_year`, so a zone whose clocks jump at New Year is handled like any other.
pub fn year_start(year: i32, zone: Tz) -> NaiveDateTime {
    let midnight = NaiveDate::from_ymd_opt(year, 1, 1).unwrap_or(NaiveDate::MIN).and_time(NaiveTime::MIN);
    let instant = |seconds: i64| DateTime::from_timestamp(seconds, 0).unwrap_or_default().naive_utc();
    // No zone is a day or more away from UTC, and clocks change on whole seconds.
    let (mut before, mut from) =
        (midnight.and_utc().timestamp() - 86_400, midnight.and_utc().timestamp() + 86_400);
    while from - before > 1 {
        let middle = before + (from - before) / 2;
        if local_year(instant(middle), zone) >= year {
            from = middle;
        } else {
            before = middle;
        }
    }
    instant(from)
}

/// Receipt years the program accepts: clocks and typos outside them are refused.
pub const YEARS: std::ops::RangeInclusive<i32> = 1970..=9998;

/// A mint's `--at`, checked against the clock: never in the future (beyond a few minutes of
/// clock skew), never outside `YEARS`, and, unless `backdate`, in this year or the last
/// one (local to `zone`). A typo in a year would otherwise issue a number forever.
pub fn check_strung_at(
    at: NaiveDateTime,
    now: NaiveDateTime,
    zone: Tz,
    backdate: bool,
) -> Result<Dated, Unlikely> {
    let year = local_year(at, zone);
    if !YEARS.contains(&year) {
        return Err(Unlikely::Wrong(format!(
            "{} is in the year {year}: receipts are numbered in the years {} to {}",
            format_local(at, zone),
            YEARS.start(),
            YEARS.end()
        )));
    }
    check_past(at, now, zone, backdate, "strung")
}

/// How a time given by hand stands to the calendar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dated {
    /// This year or last year.
    Recent,
    /// Before 1 January of last year: accepted with `--backdate` only, and said so.
    BeforeLastYear { year: i32 },
}

/// Why a time given by hand for something that happened is not taken.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unlikely {
    /// In the future, or outside the years numbers are given in: the parser's words.
    Wrong(String),
    /// Before last year without being said to be (`at` as local time): the doors say how.
    LongAgo { at: String, year: i32, this_year: i32, done: &'static str },
}

/// A time given by hand for something that happened (`done`: "strung", "paid", "picked
/// up"): never in the future beyond a few minutes of clock skew, and this year or last year
/// unless `backdate` (typo protection: `2062` for `2026`).
pub fn check_past(
    at: NaiveDateTime,
    now: NaiveDateTime,
    zone: Tz,
    backdate: bool,
    done: &'static str,
) -> Result<Dated, Unlikely> {
    check_not_future(at, now, zone, &format!("nothing is {done} before it happens"))
        .map_err(Unlikely::Wrong)?;
    let (year, this_year) = (local_year(at, zone), local_year(now, zone));
    if year >= this_year - 1 {
        return Ok(Dated::Recent);
    }
    if !backdate {
        return Err(Unlikely::LongAgo { at: format_local(at, zone), year, this_year, done });
    }
    Ok(Dated::BeforeLastYear { year })
}

/// An instant as a local time of `zone` in ISO 8601 with its offset:
/// `2026-11-21T14:30:00+01:00`.
pub fn format_iso_local(utc: NaiveDateTime, zone: Tz) -> String {
    use chrono::TimeZone;
    zone.from_utc_datetime(&utc).format("%Y-%m-%dT%H:%M:%S%:z").to_string()
}

/// An instant that must have happened already (beyond a few minutes of clock skew): `why`
/// says what would be wrong with a future one.
pub fn check_not_future(at: NaiveDateTime, now: NaiveDateTime, zone: Tz, why: &str) -> Result<(), String> {
    if at > now + chrono::Duration::minutes(10) {
        return Err(format!(
            "{} {zone} is in the future (it is now {}): {why}",
            format_local(at, zone),
            format_local(now, zone)
        ));
    }
    Ok(())
}

/// A day as people write it: `YYYY-MM-DD` or `DD.MM.YYYY`.
pub fn parse_day(text: &str) -> Result<chrono::NaiveDate, String> {
    match Timestamp::parse(text)? {
        Timestamp::Local(at) if at.time() == chrono::NaiveTime::MIN && text.trim().len() == 10 => {
            Ok(at.date())
        }
        _ => Err(format!("\"{text}\" is not a day (expected YYYY-MM-DD or DD.MM.YYYY)")),
    }
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
            assert_eq!(at.format("%Y-%m-%d %H:%M:%S").to_string(), expected, "{text}");
        }
    }

    #[test]
    fn names_what_is_wrong() {
        assert_eq!(
            Timestamp::parse("31/12/2025").unwrap_err(),
            "\"31/12/2025\" is not a date (expected YYYY-MM-DD or DD.MM.YYYY)"
        );
        assert!(Timestamp::parse("2026-02-30").unwrap_err().contains("is not a date"));
        assert!(Timestamp::parse("2026-02-03 25:00").unwrap_err().contains("is not a time"));
        assert!(Timestamp::parse("2026-02-03T10:00+2:00").is_err());
    }

    #[test]
    fn new_year_in_zurich_is_still_the_old_year_in_utc() {
        let at = Timestamp::parse("2027-01-01 00:30").unwrap().resolve(Zurich).unwrap();
        assert_eq!(at, utc("2026-12-31 23:30:00"));
        assert_eq!(local_year(at, Zurich), 2027);
        assert_eq!(local_year(at, Tz::UTC), 2026);
    }

    #[test]
    fn a_year_starts_at_local_midnight() {
        assert_eq!(year_start(2027, Zurich), utc("2026-12-31 23:00:00"));
        assert_eq!(year_start(2027, Tz::UTC), utc("2027-01-01 00:00:00"));
        assert_eq!(year_start(2027, chrono_tz::Pacific::Kiritimati), utc("2026-12-31 10:00:00"));
        // Samoa skipped 30 December 2011 entirely; New Year's midnight still began 2012.
        assert_eq!(year_start(2012, chrono_tz::Pacific::Apia), utc("2011-12-31 10:00:00"));
    }

    #[test]
    fn a_strung_time_must_be_plausible() {
        let now = utc("2026-11-23 15:00:00");
        let check = |at: &str, backdate: bool| {
            check_strung_at(utc(at), now, Zurich, backdate).map_err(|e| match e {
                Unlikely::Wrong(text) => text,
                Unlikely::LongAgo { .. } => format!("{e:?}"),
            })
        };
        assert_eq!(check("2026-11-23 15:09:00", false), Ok(Dated::Recent));
        assert_eq!(check("2025-01-01 10:00:00", false), Ok(Dated::Recent));
        assert!(check("2026-11-23 15:11:00", false).unwrap_err().contains("in the future"));
        assert!(check("2062-01-01 10:00:00", true).unwrap_err().contains("in the future"));
        assert!(check("2024-12-31 10:00:00", false).unwrap_err().contains("LongAgo"));
        assert_eq!(check("2024-12-31 10:00:00", true), Ok(Dated::BeforeLastYear { year: 2024 }));
        assert!(check("1969-06-01 10:00:00", true).unwrap_err().contains("1970 to 9998"));
        let tokyo = chrono_tz::Asia::Tokyo;
        let far = format!("{:?}", check_strung_at(utc("9999-12-31 23:59:00"), now, tokyo, true).unwrap_err());
        assert!(far.contains("in the year 10000"), "{far}");
    }

    #[test]
    fn tz_names_a_zone_as_the_c_library_reads_it() {
        assert_eq!(timezone_from_tz_variable("Europe/Zurich"), Ok(Zurich));
        assert_eq!(timezone_from_tz_variable(":Europe/Zurich"), Ok(Zurich));
        assert_eq!(timezone_from_tz_variable("/usr/share/zoneinfo/Europe/Zurich"), Ok(Zurich));
        assert!(timezone_from_tz_variable("CET-1CEST").unwrap_err().contains("pass --timezone"));
    }

    #[test]
    fn wall_clock_times_skipped_by_daylight_saving_are_refused() {
        let skipped = Timestamp::parse("2026-03-29 02:30").unwrap();
        assert!(skipped.resolve(Zurich).unwrap_err().contains("does not exist in Europe/Zurich"));
        let repeated = Timestamp::parse("2026-10-25 02:30").unwrap();
        assert_eq!(repeated.resolve(Zurich).unwrap(), utc("2026-10-25 00:30:00"));
    }
}
