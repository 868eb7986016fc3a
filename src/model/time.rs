//! Times as homespace keeps and shows them: an instant in UTC, written RFC 3339
//! (`2026-11-22T02:15:04Z`), with as many digits of a second as it was given — none from
//! the clock, so views change only when their content does, and a transcript's
//! `07:27:40.079Z` kept as written. The calendar is jiff's.
//!
//! Views never show relative times ("3 minutes ago"): a view's bytes must not change
//! unless its content does, or `stat` sizes and mtimes would drift on every read.

use std::fmt;
use std::time::{SystemTime, UNIX_EPOCH};

use jiff::Timestamp;
use jiff::fmt::temporal::DateTimePrinter;

/// An instant in UTC and the digits of a second it is written with.
///
/// Two times are equal when both the instant and the digits are: `…:40Z` and `…:40.000Z`
/// are written differently, so they are kept apart; they order by instant first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Time {
    at: Timestamp,
    /// Digits after the second's point, 0 to 9.
    digits: u8,
}

/// Why a text or number is not a [`Time`], for a person to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotATime(pub String);

impl fmt::Display for NotATime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Time {
    /// `secs` after the Unix epoch, to the second (past jiff's year 9999: that year's end).
    pub fn from_unix(secs: u64) -> Time {
        let at = i64::try_from(secs)
            .ok()
            .and_then(|secs| Timestamp::from_second(secs).ok())
            .unwrap_or(Timestamp::MAX);
        Time {
            at: whole_second(at),
            digits: 0,
        }
    }

    /// `at`, to the second; times before the epoch are the epoch.
    pub fn of(at: SystemTime) -> Time {
        Time::from_unix(
            at.duration_since(UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or(0),
        )
    }

    /// The clock's time now, to the second (a test may step it: [`super::clock`]).
    pub fn now() -> Time {
        Time::of(super::clock::Clock::now())
    }

    /// `secs` and `nanos` after the Unix epoch, written with `digits` digits of a second
    /// (at most 9); `None` past what a calendar of years 1 to 9999 holds.
    pub fn from_unix_parts(secs: u64, nanos: u32, digits: u8) -> Option<Time> {
        let at = Timestamp::new(i64::try_from(secs).ok()?, i32::try_from(nanos).ok()?).ok()?;
        Some(Time {
            at,
            digits: digits.min(9),
        })
    }

    /// The time written in `text`: RFC 3339 with a `T` (or `t`) between day and clock, a
    /// `Z` or `±hh:mm` offset, and any digits of a second, which are kept (up to 9).
    pub fn parse(text: &str) -> Result<Time, NotATime> {
        if !is_rfc3339(text) {
            return Err(NotATime(format!("time {text:?} is not RFC 3339")));
        }
        Time::parse_loosely(text)
    }

    /// As [`Time::parse`], but also with a space between day and clock and an offset
    /// without its colon (`-0100`), as transcripts write them; the reason it is not a
    /// time says what is wrong.
    pub fn parse_loosely(text: &str) -> Result<Time, NotATime> {
        let why = |reason: &str| NotATime(format!("time {text:?} is not RFC 3339 ({reason})"));
        let shape = "expected YYYY-MM-DDThh:mm:ss";
        let (Some(day), Some(clock)) = (text.get(..10), text.get(11..19)) else {
            return Err(why(shape));
        };
        let digits_at = |part: &str, at: &[usize]| {
            part.bytes()
                .enumerate()
                .all(|(i, b)| at.contains(&i) || b.is_ascii_digit())
        };
        let separators = day.get(4..5) == Some("-")
            && day.get(7..8) == Some("-")
            && matches!(text.get(10..11), Some("T" | "t" | " "))
            && clock.get(2..3) == Some(":")
            && clock.get(5..6) == Some(":");
        if !separators || !digits_at(day, &[4, 7]) || !digits_at(clock, &[2, 5]) {
            return Err(why(shape));
        }
        if day.parse::<jiff::civil::Date>().is_err() {
            return Err(why("no such day"));
        }
        // A leap second (`:60`) is no civil time; jiff reads it as the second before, where
        // refusing it would lose a transcript's line.
        if clock.get(6..) != Some("60") && clock.parse::<jiff::civil::Time>().is_err() {
            return Err(why("no such time of day"));
        }
        let mut zone = &text[19..];
        let mut digits = 0;
        if let Some(rest) = zone.strip_prefix('.') {
            let written = rest.bytes().take_while(u8::is_ascii_digit).count();
            if written == 0 {
                return Err(why("a '.' without digits"));
            }
            digits = written.min(9);
            zone = &rest[written..];
        }
        // Digits past the nanosecond are dropped, not refused as jiff would.
        let kept = match digits {
            0 => format!("{}{zone}", &text[..19]),
            _ => format!("{}{zone}", &text[..20 + digits]),
        };
        if zone.is_empty() {
            return Err(why("no time zone: add Z or an offset like +02:00"));
        }
        if !is_zone(zone) {
            return Err(why("expected Z or an offset like +02:00"));
        }
        let at: Timestamp = kept.parse().map_err(|e| why(&format!("not a time: {e}")))?;
        Ok(Time {
            at,
            digits: digits as u8,
        })
    }

    /// The day in UTC `days` days before this time (`2026-11-22`): what `since:7d` means
    /// when asked now. `None` before the calendar's first day.
    pub fn day_before(&self, days: u32) -> Option<String> {
        let back = jiff::Span::new().try_days(i64::from(days)).ok()?;
        let day = jiff::tz::Offset::UTC
            .to_datetime(self.at)
            .date()
            .checked_sub(back)
            .ok()?;
        Some(day.to_string())
    }

    /// Seconds and nanoseconds since the Unix epoch (negative before it).
    pub fn unix(&self) -> (i64, u32) {
        (
            self.at.as_second(),
            u32::try_from(self.at.subsec_nanosecond()).unwrap_or(0),
        )
    }
}

impl fmt::Display for Time {
    /// `2026-11-22T02:15:04Z`, with the digits of a second it was given.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let printer = DateTimePrinter::new().precision(Some(self.digits));
        f.write_str(&printer.timestamp_to_string(&self.at))
    }
}

impl std::str::FromStr for Time {
    type Err = NotATime;

    /// As [`Time::parse`].
    fn from_str(text: &str) -> Result<Time, NotATime> {
        Time::parse(text)
    }
}

/// `2026-11-22T02:15:04Z` for `secs` after the Unix epoch.
pub fn rfc3339(secs: u64) -> String {
    Time::from_unix(secs).to_string()
}

/// RFC 3339 of a `SystemTime`, to the second (times before the epoch show as the epoch).
pub fn rfc3339_of(at: SystemTime) -> String {
    Time::of(at).to_string()
}

/// Whether `text` is a day as `2026-11-22` (a real calendar day).
pub fn is_day(text: &str) -> bool {
    let b = text.as_bytes();
    b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && text
            .bytes()
            .enumerate()
            .all(|(i, b)| i == 4 || i == 7 || b.is_ascii_digit())
        && text.parse::<jiff::civil::Date>().is_ok()
}

/// Whether `text` is an RFC 3339 time: `2026-11-22T02:15:04Z`, with optional fractions
/// of a second and a `Z` or `±hh:mm` offset.
pub fn is_rfc3339(text: &str) -> bool {
    let strict = matches!(text.get(10..11), Some("T" | "t"))
        && text.get(19..).is_some_and(|rest| {
            let zone = rest
                .strip_prefix('.')
                .map(|f| f.trim_start_matches(|c: char| c.is_ascii_digit()));
            match zone {
                // A point without digits.
                Some(zone) if zone.len() == rest.len() - 1 => false,
                Some(zone) => is_colon_zone(zone),
                None => is_colon_zone(rest),
            }
        });
    strict && Time::parse_loosely(text).is_ok()
}

/// `Z`, or an offset of at most 23:59 as `+hh:mm` or `+hhmm`.
fn is_zone(zone: &str) -> bool {
    if matches!(zone, "Z" | "z") {
        return true;
    }
    let (sign, offset) = zone.split_at(zone.len().min(1));
    let digits: String = offset.chars().filter(|c| *c != ':').collect();
    let colon_right = match offset.len() {
        5 => offset.get(2..3) == Some(":"),
        4 => true,
        _ => false,
    };
    let two = |t: Option<&str>, max: u32| {
        t.is_some_and(|t| {
            t.bytes().all(|b| b.is_ascii_digit()) && t.parse::<u32>().is_ok_and(|n| n <= max)
        })
    };
    matches!(sign, "+" | "-")
        && colon_right
        && digits.len() == 4
        && two(digits.get(..2), 23)
        && two(digits.get(2..), 59)
}

/// As [`is_zone`], with the colon RFC 3339 asks for.
fn is_colon_zone(zone: &str) -> bool {
    is_zone(zone) && (zone.len() == 1 || zone.get(3..4) == Some(":"))
}

/// `at` without its fraction of a second.
fn whole_second(at: Timestamp) -> Timestamp {
    Timestamp::from_second(at.as_second()).unwrap_or(at)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_known_instants() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(1_795_313_704), "2026-11-22T02:15:04Z");
    }

    #[test]
    fn a_time_is_written_with_the_digits_of_a_second_it_was_given() {
        let shown = |text: &str| Time::parse(text).map(|t| t.to_string());
        assert_eq!(
            shown("2025-05-26T07:27:40.500Z").as_deref(),
            Ok("2025-05-26T07:27:40.500Z")
        );
        assert_eq!(
            shown("2025-05-26T07:27:40.0791234567Z").as_deref(),
            Ok("2025-05-26T07:27:40.079123456Z"),
            "past the nanosecond, dropped"
        );
        assert_eq!(
            shown("2025-01-01T01:30:00+02:00").as_deref(),
            Ok("2024-12-31T23:30:00Z")
        );
        assert!(Time::parse("2025-05-26T07:27:40.5Z").unwrap() > Time::from_unix(1_748_244_460));
    }

    #[test]
    fn recognises_days_and_times() {
        assert!(is_day("2026-11-22"));
        assert!(!is_day("2026-13-01") && !is_day("26-11-22") && !is_day("2026-11-2x"));
        for good in [
            "2026-11-22T02:15:04Z",
            "2026-11-22T02:15:04.123Z",
            "2026-11-22T02:15:04+01:00",
        ] {
            assert!(is_rfc3339(good), "{good}");
        }
        for bad in [
            "2026-11-22",
            "2026-11-22T25:00:00Z",
            "2026-11-22T02:15:04",
            "yesterday",
            "2026-11-22T02:15:04.Z",
        ] {
            assert!(!is_rfc3339(bad), "{bad}");
        }
    }
}
