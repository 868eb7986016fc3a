//! Times in transcripts, made RFC 3339 UTC as the store keeps them.
//!
//! Accepted: RFC 3339 with a `Z` or `±hh:mm` offset (`T`, `t` or a space between day and
//! clock; fractions of a second kept as written), and Unix times as numbers (seconds, or
//! milliseconds when larger than 10^11). Refused, with the reason: no offset (a local time
//! we cannot place), impossible dates and clocks, times before 1970.

use serde_json::Value;

/// A time as the store keeps it (`2025-05-26T07:27:40.079Z`) and as it sorts.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Stamp {
    /// Seconds and nanoseconds since the Unix epoch: what `started`/`ended` compare.
    pub at: (u64, u32),
    pub text: String,
}

/// The time in `value` (a string or a number), or why it is not one.
pub fn stamp(value: &Value) -> Result<Stamp, String> {
    match value {
        Value::String(text) => parse(text),
        Value::Number(n) => match (n.as_u64(), n.as_f64()) {
            (Some(whole), _) => Ok(from_unix(whole, 0)),
            (None, Some(f)) if f >= 0.0 && f.is_finite() => {
                let millis = (f * 1000.0).round() as u64;
                Ok(from_unix(millis / 1000, (millis % 1000) as u32 * 1_000_000))
            }
            _ => Err(format!("time {n} is before 1970")),
        },
        other => Err(format!(
            "a time is an RFC 3339 string or a Unix time, not a JSON {}",
            super::lines::kind(other)
        )),
    }
}

/// Unix seconds (or milliseconds, past 10^11 — the year 5138 in seconds) as a stamp.
fn from_unix(whole: u64, nanos: u32) -> Stamp {
    let (secs, nanos) = if whole > 100_000_000_000 {
        (whole / 1000, (whole % 1000) as u32 * 1_000_000 + nanos)
    } else {
        (whole, nanos)
    };
    let fraction = if nanos == 0 {
        String::new()
    } else {
        format!(".{:03}", nanos / 1_000_000)
    };
    Stamp {
        at: (secs, nanos),
        text: with_fraction(secs, &fraction),
    }
}

/// `2026-11-22T02:15:04` + `.079` + `Z`.
fn with_fraction(secs: u64, fraction: &str) -> String {
    let plain = crate::render::time::rfc3339(secs);
    match plain.strip_suffix('Z') {
        Some(clock) => format!("{clock}{fraction}Z"),
        None => plain,
    }
}

fn parse(text: &str) -> Result<Stamp, String> {
    let why = |reason: &str| format!("time {text:?} is not RFC 3339 ({reason})");
    let number = |range: std::ops::Range<usize>| -> Option<u32> {
        let part = text.get(range)?;
        part.bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| part.parse().ok())?
    };
    let shape_ok = text.len() >= 19
        && text.get(4..5) == Some("-")
        && text.get(7..8) == Some("-")
        && matches!(text.get(10..11), Some("T" | "t" | " "))
        && text.get(13..14) == Some(":")
        && text.get(16..17) == Some(":");
    let fields = (
        number(0..4),
        number(5..7),
        number(8..10),
        number(11..13),
        number(14..16),
        number(17..19),
    );
    let (Some(year), Some(month), Some(day), Some(hour), Some(minute), Some(second)) = fields
    else {
        return Err(why("expected YYYY-MM-DDThh:mm:ss"));
    };
    if !shape_ok {
        return Err(why("expected YYYY-MM-DDThh:mm:ss"));
    }
    if !(1..=12).contains(&month) || day == 0 || day > days_in_month(year, month) {
        return Err(why("no such day"));
    }
    if hour > 23 || minute > 59 || second > 60 {
        return Err(why("no such time of day"));
    }
    let mut zone = &text[19..];
    let mut nanos = 0u32;
    let mut fraction = "";
    if let Some(rest) = zone.strip_prefix('.') {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return Err(why("a '.' without digits"));
        }
        fraction = &rest[..digits.min(9)];
        nanos = format!("{fraction:0<9}").parse().unwrap_or(0);
        zone = &rest[digits..];
    }
    let offset: i64 = match zone {
        "Z" | "z" => 0,
        "" => return Err(why("no time zone: add Z or an offset like +02:00")),
        _ => {
            let sign = match zone.as_bytes()[0] {
                b'+' => 1,
                b'-' => -1,
                _ => return Err(why("expected Z or an offset like +02:00")),
            };
            let digits: String = zone[1..].chars().filter(|c| *c != ':').collect();
            let (h, m) = match (digits.len(), digits.get(..2), digits.get(2..)) {
                (4, Some(h), Some(m)) => (h.parse::<i64>(), m.parse::<i64>()),
                _ => return Err(why("expected Z or an offset like +02:00")),
            };
            match (h, m) {
                (Ok(h), Ok(m)) if h <= 23 && m <= 59 => sign * (h * 3600 + m * 60),
                _ => return Err(why("expected Z or an offset like +02:00")),
            }
        }
    };
    let days = days_from_civil(i64::from(year), month, day);
    let local = days * 86_400 + i64::from(hour * 3600 + minute * 60 + second);
    let secs =
        u64::try_from(local - offset).map_err(|_| format!("time {text:?} is before 1970"))?;
    let fraction = if fraction.is_empty() {
        String::new()
    } else {
        format!(".{fraction}")
    };
    Ok(Stamp {
        at: (secs, nanos),
        text: with_fraction(secs, &fraction),
    })
}

fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        2 if year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400)) => {
            29
        }
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let yoe = year.rem_euclid(400);
    let mp = i64::from((month + 9) % 12);
    let doy = (153 * mp + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn text(value: Value) -> String {
        stamp(&value).map(|s| s.text).unwrap_or_else(|e| e)
    }

    #[test]
    fn keeps_utc_times_and_their_fractions() {
        assert_eq!(
            text(json!("2025-05-26T07:27:40.079Z")),
            "2025-05-26T07:27:40.079Z"
        );
        assert_eq!(text(json!("2025-05-26T07:27:40Z")), "2025-05-26T07:27:40Z");
        assert_eq!(text(json!("2000-02-29 00:00:00z")), "2000-02-29T00:00:00Z");
    }

    #[test]
    fn moves_offsets_to_utc() {
        assert_eq!(
            text(json!("2025-01-01T01:30:00+02:00")),
            "2024-12-31T23:30:00Z"
        );
        assert_eq!(
            text(json!("2025-01-01T23:30:00.5-0100")),
            "2025-01-02T00:30:00.5Z"
        );
    }

    #[test]
    fn reads_unix_seconds_and_milliseconds() {
        assert_eq!(text(json!(1_795_313_704)), "2026-11-22T02:15:04Z");
        assert_eq!(
            text(json!(1_795_313_704_250u64)),
            "2026-11-22T02:15:04.250Z"
        );
        assert_eq!(text(json!(1_795_313_704.5)), "2026-11-22T02:15:04.500Z");
    }

    #[test]
    fn orders_by_instant_not_by_text() {
        let whole = stamp(&json!("2025-05-26T07:27:40Z")).unwrap();
        let later = stamp(&json!("2025-05-26T07:27:40.079Z")).unwrap();
        assert!(whole < later);
    }

    #[test]
    fn refuses_what_is_not_a_time_and_says_why() {
        for (bad, why) in [
            (json!("2025-05-26T07:27:40"), "no time zone"),
            (json!("2025-02-30T00:00:00Z"), "no such day"),
            (json!("2025-01-01T24:00:00Z"), "no such time"),
            (json!("yesterday"), "expected YYYY"),
            (json!("1969-12-31T23:59:59Z"), "before 1970"),
            (json!(-5), "before 1970"),
            (json!(true), "not a JSON boolean"),
        ] {
            let message = stamp(&bad).unwrap_err();
            assert!(message.contains(why), "{bad}: {message}");
        }
    }
}
