//! What every backend of memory checks and works out the same way before it stores a
//! session or an entry: which ids may name a session's directory, the day a session
//! belongs to, the time range it covers, and tags as the JSON text both keep.

use super::record::{EntryRecord, SessionRecord};
use crate::error::{Error, Result};
use crate::render::time::is_day;

/// A session id names a directory: `[A-Za-z0-9._-]`, not `.` or `..`, at most 200 bytes.
pub(super) fn check_id(id: &str) -> Result<()> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-');
    if id.is_empty() || id.len() > 200 || id == "." || id == ".." || !id.chars().all(allowed) {
        return Err(Error::invalid(format!(
            "{id:?} cannot name a memory session: use 1 to 200 of A-Z a-z 0-9 . _ -"
        )));
    }
    Ok(())
}

/// `2026-11-20` from a time that starts with a day.
pub(super) fn day_of(time: &str) -> Option<String> {
    let day = time.get(..10)?;
    is_day(day).then(|| day.to_string())
}

/// The earliest and latest known times of a session record and its entries, by bytes.
pub(super) fn span<'a>(
    record: &'a SessionRecord,
    entries: &'a [EntryRecord],
) -> (Option<&'a str>, Option<&'a str>) {
    let times = record
        .started
        .iter()
        .chain(&record.ended)
        .chain(entries.iter().filter_map(|e| e.ts.as_ref()))
        .map(String::as_str);
    (times.clone().min(), times.max())
}

/// Tags as the JSON array both backends keep.
pub(super) fn tags_json(tags: &[String]) -> Result<String> {
    serde_json::to_string(tags).map_err(|e| Error::internal(format!("cannot write tags: {e}")))
}
