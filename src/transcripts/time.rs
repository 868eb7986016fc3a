//! Times in transcripts, read into a [`Time`] (an instant in UTC), as records and the store
//! keep them.
//!
//! Accepted: RFC 3339 with a `Z` or `±hh:mm` offset (`T`, `t` or a space between day and
//! clock; fractions of a second kept as written), and Unix times as numbers (seconds, or
//! milliseconds when larger than 10^11). Refused, with the reason: no offset (a local time
//! we cannot place), impossible dates and clocks, times before 1970.

use serde_json::Value;

pub use crate::model::time::Time as Stamp;

/// The time in `value` (a string or a number), or why it is not one.
pub fn stamp(value: &Value) -> Result<Stamp, String> {
    let stamp = match value {
        Value::String(text) => Stamp::parse_loosely(text).map_err(|e| e.0)?,
        Value::Number(n) => match (n.as_u64(), n.as_f64()) {
            (Some(whole), _) => from_unix(whole, 0),
            (None, Some(f)) if f >= 0.0 && f.is_finite() => {
                let millis = (f * 1000.0).round() as u64;
                from_unix(millis / 1000, (millis % 1000) as u32 * 1_000_000)
            }
            _ => return Err(format!("time {n} is before 1970")),
        }
        .ok_or_else(|| format!("time {n} is past the year 9999"))?,
        other => {
            return Err(format!(
                "a time is an RFC 3339 string or a Unix time, not a JSON {}",
                super::lines::kind(other)
            ));
        }
    };
    if stamp.unix().0 < 0 {
        return Err(format!("time {value} is before 1970"));
    }
    Ok(stamp)
}

/// Unix seconds (or milliseconds, past 10^11 — the year 5138 in seconds) as a stamp, its
/// milliseconds shown when it has any.
fn from_unix(whole: u64, nanos: u32) -> Option<Stamp> {
    let (secs, nanos) = if whole > 100_000_000_000 {
        (whole / 1000, (whole % 1000) as u32 * 1_000_000 + nanos)
    } else {
        (whole, nanos)
    };
    Stamp::from_unix_parts(secs, nanos, if nanos == 0 { 0 } else { 3 })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn text(value: Value) -> String {
        stamp(&value).map(|s| s.to_string()).unwrap_or_else(|e| e)
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
