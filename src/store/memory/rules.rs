//! What every backend of memory checks and works out the same way before it stores a
//! session or an entry: which ids may name a session's directory, text every store can
//! keep (no NUL), the day a session belongs to, the time range it covers, and tags as the
//! JSON text both keep.

use std::cmp::Ordering;

use super::dialect::Times;
use crate::error::{Error, Result};
use crate::model::SessionId;
use crate::model::time::Time;
use crate::model::transcript::{EntryRecord, SessionRecord};

/// A session id names a directory: the one rule of [`SessionId`].
pub(super) fn check_id(id: &str) -> Result<()> {
    SessionId::parse(id).map(|_| ())
}

/// Text every store can keep. PostgreSQL's text cannot hold the character NUL, so no store
/// takes one: a SQLite store stays copyable to PostgreSQL (`homespace store copy`), and a
/// transcript imports the same into either. `what` names the text in the message.
pub(super) fn check_text(what: &str, text: &str) -> Result<()> {
    if text.contains('\0') {
        return Err(Error::invalid(format!(
            "{what} holds the character NUL (\\u0000), which a store cannot keep (PostgreSQL's \
             text cannot): remove it and import again"
        )));
    }
    Ok(())
}

/// The text of a session record, checked as [`check_text`] does.
pub(super) fn check_session(record: &SessionRecord) -> Result<()> {
    let texts = [
        Some(record.title.as_str()),
        Some(record.source.as_str()),
        record.cwd.as_deref(),
        record.model.as_deref(),
        record.continuation_of.as_deref(),
    ];
    for text in texts.into_iter().flatten() {
        check_text(
            &format!(
                "session {}: its title, source, cwd, model or continuation",
                record.id
            ),
            text,
        )?;
    }
    Ok(())
}

/// The text of an entry and its tags (its meta is JSON, which keeps a NUL escaped), as
/// [`check_text`] checks it.
pub(super) fn check_entry(entry: &EntryRecord) -> Result<()> {
    let what = format!("entry {:?}: its key or content", entry.key);
    check_text(&what, &entry.key)?;
    check_text(&what, &entry.content)?;
    for tag in &entry.tags {
        check_text(&format!("entry {:?}: a tag", entry.key), tag)?;
    }
    Ok(())
}

/// `2026-11-20`: the day, in UTC, of `time`.
pub(super) fn day_of(time: Time) -> String {
    let mut day = time.to_string();
    day.truncate(10);
    day
}

/// The earliest and latest known times of a session record and its entries, in the order
/// of their text, as the backends compare the stored ones when a session widens.
pub(super) fn span(record: &SessionRecord, entries: &[EntryRecord]) -> Times {
    let times = record
        .started
        .iter()
        .chain(&record.ended)
        .chain(entries.iter().filter_map(|e| e.ts.as_ref()));
    let first = times.clone().min_by(|a, b| as_written(a, b)).copied();
    let last = times.max_by(|a, b| as_written(a, b)).copied();
    (first, last)
}

/// The order of two times' text. Within a second it is not the instants' (`…:40.5Z` is
/// before `…:40Z`); across seconds it is, so only those are written out to compare.
fn as_written(a: &Time, b: &Time) -> Ordering {
    a.unix().0.cmp(&b.unix().0).then_with(|| match a == b {
        true => Ordering::Equal,
        false => a.to_string().cmp(&b.to_string()),
    })
}

/// Tags as the JSON array both backends keep; a tag is text as [`check_text`] checks it
/// (the tag index keeps each as text).
pub(super) fn tags_json(tags: &[String]) -> Result<String> {
    for tag in tags {
        check_text("a tag", tag)?;
    }
    serde_json::to_string(tags).map_err(|e| Error::internal(format!("cannot write tags: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_span_runs_from_the_first_to_the_last_time_as_written() {
        let written = [
            "2026-11-20T09:00:00Z",
            "2026-11-20T08:59:59.9Z",
            "2026-11-20T09:00:00.5Z",
            "2026-11-20T09:00:00.50Z",
        ];
        let record = SessionRecord {
            started: Time::parse(written[0]).ok(),
            ended: Time::parse(written[1]).ok(),
            ..SessionRecord::new(SessionId::parse("s").unwrap())
        };
        let entries: Vec<EntryRecord> = written[2..]
            .iter()
            .map(|text| EntryRecord {
                key: text.to_string(),
                ts: Time::parse(text).ok(),
                channel: crate::model::transcript::Channel::User,
                content: String::new(),
                tags: Vec::new(),
                meta: crate::model::Meta::default(),
            })
            .collect();
        let (first, last) = span(&record, &entries);
        let shown = |t: Option<Time>| t.map(|t| t.to_string());
        // As SQLite and PostgreSQL (`COLLATE "C"`) order the stored text.
        assert_eq!(shown(first).as_deref(), Some("2026-11-20T08:59:59.9Z"));
        assert_eq!(shown(last).as_deref(), Some("2026-11-20T09:00:00Z"));
    }

    #[test]
    fn session_ids_that_ls_hides_or_shells_misread_are_refused() {
        for fine in ["s1", "2026-11-20_a", "_x", "a.b-c", "9"] {
            assert!(check_id(fine).is_ok(), "{fine}");
        }
        for bad in [".hidden", ".", "..", "...", "-rf", "a/b", "", "sp ace", "é"] {
            let err = check_id(bad).unwrap_err();
            assert!(
                err.message.contains("cannot name a memory session"),
                "{bad}"
            );
        }
        assert!(check_id(&"a".repeat(201)).is_err());
    }
}
