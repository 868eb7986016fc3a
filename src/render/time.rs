//! Times as views show them: RFC 3339 in UTC, to the second. Views never show relative
//! times ("3 minutes ago"): a view's bytes must not change unless its content does, or
//! `stat` sizes and mtimes would drift on every read.

use std::time::{SystemTime, UNIX_EPOCH};

/// `2026-11-22T02:15:04Z` for `secs` after the Unix epoch.
pub fn rfc3339(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60
    )
}

/// RFC 3339 of a `SystemTime` (times before the epoch show as the epoch).
pub fn rfc3339_of(at: SystemTime) -> String {
    rfc3339(
        at.duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0),
    )
}

/// Whether `text` is a day as `2026-11-22` (a real calendar day).
pub fn is_day(text: &str) -> bool {
    let b = text.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let num = |r: std::ops::Range<usize>| text.get(r).and_then(|t| t.parse::<u32>().ok());
    match (num(0..4), num(5..7), num(8..10)) {
        (Some(_), Some(m), Some(d)) => (1..=12).contains(&m) && (1..=31).contains(&d),
        _ => false,
    }
}

/// Whether `text` is an RFC 3339 time: `2026-11-22T02:15:04Z`, with optional fractions
/// of a second and a `Z` or `±hh:mm` offset.
pub fn is_rfc3339(text: &str) -> bool {
    let (Some(day), Some(rest)) = (text.get(..10), text.get(10..)) else {
        return false;
    };
    let Some(clock) = rest.strip_prefix('T').or_else(|| rest.strip_prefix('t')) else {
        return false;
    };
    let two = |t: &str, max: u32| t.len() == 2 && t.parse::<u32>().is_ok_and(|n| n <= max);
    let (Some(h), Some(m), Some(s)) = (clock.get(..2), clock.get(3..5), clock.get(6..8)) else {
        return false;
    };
    if !is_day(day) || clock.get(2..3) != Some(":") || clock.get(5..6) != Some(":") {
        return false;
    }
    if !(two(h, 23) && two(m, 59) && two(s, 60)) {
        return false;
    }
    let mut zone = &clock[8..];
    if let Some(fraction) = zone.strip_prefix('.') {
        let digits = fraction.chars().take_while(char::is_ascii_digit).count();
        if digits == 0 {
            return false;
        }
        zone = &fraction[digits..];
    }
    match zone {
        "Z" | "z" => true,
        _ => {
            let (sign, offset) = zone.split_at(zone.len().min(1));
            matches!(sign, "+" | "-")
                && offset.len() == 5
                && offset.get(2..3) == Some(":")
                && two(&offset[..2], 23)
                && two(&offset[3..], 59)
        }
    }
}

/// Proleptic Gregorian date of a day count since 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
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
