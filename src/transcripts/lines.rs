//! A transcript file as numbered JSON records, the bad lines found on the way, and the keys
//! of entries that have no id of their own.
//!
//! Guarantees: line numbers are 1-based as an editor shows them; blank lines are not
//! records and never bad; a UTF-8 byte order mark and `\r` line ends change nothing (not
//! the records, not the keys); bad lines are listed in line order, at most
//! [`MAX_LISTED`], with the count of the rest.

use std::collections::{BTreeMap, HashMap};

use serde_json::{Map, Value};

use super::reading::{MAX_LISTED, ReadError};

/// One record of a transcript: a line that holds a JSON object.
#[derive(Debug)]
pub struct Line<'a> {
    /// 1-based line number in the file.
    pub number: usize,
    /// The line as written, without its line end and surrounding blanks.
    pub raw: &'a str,
    pub object: Map<String, Value>,
}

/// Splits `bytes` into records. Lines that are not UTF-8, not JSON or not a JSON object are
/// noted in `bad`; blank lines are skipped.
pub fn records<'a>(bytes: &'a [u8], bad: &mut BadLines) -> Vec<Line<'a>> {
    records_from(bytes, 1, bad)
}

/// [`records`] of a part of a file that starts at line `first` (a file read as it grows):
/// numbers count on from there, and only the file's first line may open with a byte order
/// mark.
pub fn records_from<'a>(bytes: &'a [u8], first: usize, bad: &mut BadLines) -> Vec<Line<'a>> {
    let bytes = match first {
        1 => bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes),
        _ => bytes,
    };
    let mut lines = Vec::new();
    for (index, line) in bytes.split(|&b| b == b'\n').enumerate() {
        let number = first + index;
        let raw = match std::str::from_utf8(line) {
            Ok(text) => text.trim(),
            Err(e) => {
                bad.add(
                    number,
                    format!(
                        "not UTF-8 text (invalid byte at column {})",
                        e.valid_up_to() + 1
                    ),
                );
                continue;
            }
        };
        if raw.is_empty() {
            continue;
        }
        match serde_json::from_str::<Value>(raw) {
            Ok(Value::Object(object)) => lines.push(Line {
                number,
                raw,
                object,
            }),
            Ok(other) => bad.add(
                number,
                format!(
                    "a JSON {} where a record (a JSON object) belongs",
                    kind(&other)
                ),
            ),
            Err(e) => bad.add(number, json_error(&e)),
        }
    }
    lines
}

/// `invalid JSON at column 83: EOF while parsing a value` — serde's own text says
/// "line 1", which reads wrong next to the file's line number.
fn json_error(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let reason = text
        .rsplit_once(" at line ")
        .map_or(text.as_str(), |(reason, _)| reason);
    format!("invalid JSON at column {}: {reason}", e.column())
}

/// The kind of a JSON value, as messages name it.
pub fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// The bad lines of one file: the first [`MAX_LISTED`] by line number, and how many more.
#[derive(Debug, Default)]
pub struct BadLines {
    listed: BTreeMap<usize, String>,
    more: usize,
}

impl BadLines {
    /// Notes that line `number` is bad because of `reason`. A line noted twice keeps its
    /// first reason.
    pub fn add(&mut self, number: usize, reason: impl Into<String>) {
        if self.listed.contains_key(&number) {
            return;
        }
        self.listed.insert(number, reason.into());
        if self.listed.len() > MAX_LISTED {
            self.listed.pop_last();
            self.more += 1;
        }
    }

    pub fn is_empty(&self) -> bool {
        self.listed.is_empty()
    }

    pub fn into_error(self) -> ReadError {
        ReadError {
            bad_lines: self.listed.into_iter().collect(),
            more: self.more,
        }
    }
}

/// Keys for entries without an id of their own: a hash of the line's content and which
/// occurrence of that content it is (`<hash>-1`, `<hash>-2`, ... for identical lines), so
/// the same file always gives the same keys, and a line that repeats keeps both entries.
///
/// The hash is 128-bit FNV-1a, written out here because `std`'s hashers may change
/// between Rust releases and these keys live in the store for good.
#[derive(Debug, Default)]
pub struct LineKeys {
    seen: HashMap<u128, usize>,
}

impl LineKeys {
    pub fn key(&mut self, raw: &str) -> String {
        let hash = fnv1a_128(raw.as_bytes());
        let occurrence = self.seen.entry(hash).or_insert(0);
        *occurrence += 1;
        format!("{hash:032x}-{occurrence}")
    }
}

fn fnv1a_128(bytes: &[u8]) -> u128 {
    const OFFSET: u128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d;
    const PRIME: u128 = 0x0000_0000_0100_0000_0000_0000_0000_013b;
    bytes.iter().fold(OFFSET, |hash, &b| {
        (hash ^ u128::from(b)).wrapping_mul(PRIME)
    })
}

/// The string field `name` of a record, if it is one.
pub(crate) fn str_of<'a>(o: &'a Map<String, Value>, name: &str) -> Option<&'a str> {
    o.get(name).and_then(Value::as_str)
}

/// The string field `name` a record must have, or what is wrong with it.
pub(crate) fn required<'a>(o: &'a Map<String, Value>, name: &str) -> Result<&'a str, String> {
    match o.get(name) {
        Some(Value::String(text)) => Ok(text),
        None | Some(Value::Null) => Err(format!("no `{name}`")),
        Some(other) => Err(format!("`{name}` must be a string, not a {}", kind(other))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_lines_skips_blanks_and_notes_bad_ones() {
        let mut bad = BadLines::default();
        let bytes = b"\xEF\xBB\xBF{\"a\":1}\r\n\n  \n[1]\n{oops\n\xFF\n{\"b\":2}";
        let lines = records(bytes, &mut bad);
        let numbers: Vec<usize> = lines.iter().map(|l| l.number).collect();
        assert_eq!(numbers, [1, 7]);
        assert_eq!(lines[0].raw, "{\"a\":1}");
        let error = bad.into_error();
        let bad_numbers: Vec<usize> = error.bad_lines.iter().map(|(n, _)| *n).collect();
        assert_eq!(bad_numbers, [4, 5, 6]);
        assert!(error.bad_lines[0].1.contains("JSON array"), "{error:?}");
        assert!(
            error.bad_lines[1].1.starts_with("invalid JSON"),
            "{error:?}"
        );
        assert!(error.bad_lines[2].1.contains("UTF-8"), "{error:?}");
    }

    #[test]
    fn lists_the_first_twenty_bad_lines_in_order_and_counts_the_rest() {
        let mut bad = BadLines::default();
        for number in (1..=30).rev() {
            bad.add(number, "bad");
        }
        let error = bad.into_error();
        assert_eq!(error.bad_lines.len(), MAX_LISTED);
        assert_eq!(error.bad_lines.first().map(|b| b.0), Some(1));
        assert_eq!(error.bad_lines.last().map(|b| b.0), Some(20));
        assert_eq!(error.more, 10);
    }

    #[test]
    fn keys_are_stable_and_count_repeated_lines() {
        let mut first = LineKeys::default();
        let mut second = LineKeys::default();
        let a1 = first.key("{\"x\":1}");
        let b = first.key("{\"x\":2}");
        let a2 = first.key("{\"x\":1}");
        assert_ne!(a1, a2);
        assert!(a1.ends_with("-1") && a2.ends_with("-2"));
        assert_ne!(a1, b);
        assert_eq!(second.key("{\"x\":1}"), a1);
        // Pinned: a change of hash would orphan every key already in a store.
        assert_eq!(fnv1a_128(b""), 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d);
        assert_eq!(fnv1a_128(b"a"), 0xd228_cb69_6f1a_8caf_7891_2b70_4e4a_8964);
    }
}
