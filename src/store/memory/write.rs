//! Changes to memory, decided once for every backend over the rows each writes
//! ([`WriteSql`]): importing a transcript, making a session, appending an entry, setting
//! an entry's tags or a session's summary, forgetting a session. Each runs inside the
//! caller's transaction ([`crate::store::Store::change_memory`]), so a failure anywhere (one
//! bad entry of a file) leaves the store as it was; the full-text indexes, the tag index
//! and the counters follow the rows by each backend's triggers.
//!
//! Every batch of entries written also notes the files its tool calls changed
//! (`session_files.rs`), whichever way it came.
//!
//! Importing is idempotent: an entry is identified by its `key` within its session, and a
//! key already stored is skipped, so importing a file twice, or a file that repeats the
//! entries of a session it resumes, adds nothing twice.

use std::collections::HashSet;

use super::dialect::WriteSql;
use super::records::Imported;
use super::rules::{check_entry, check_id, check_session, check_text, day_of, span, tags_json};
use super::{MAX_SEQ, entry_id, session_range};
use crate::error::{Error, Result};
use crate::model::SessionId;
use crate::model::time::Time;
use crate::model::transcript::{EntryRecord, SessionRecord, Transcript};

/// Stores `transcript`, session by session, telling `touched` each session it appends to
/// and the last seq that session had before (a bulk load may index what lies above it).
/// Only inside a bulk load ([`super::MemoryRecords::bulk_load`]):
/// - a session whose id is stored already is continued: its new entries are appended after
///   its last seq, and entries whose key it holds are skipped;
/// - a new id whose entries repeat the opening entries of a stored session joins that
///   session the same way, when its tool resumes sessions by copying them (Claude Code
///   copies from the first entry, under a new id: `SessionRecord::resumes_by_copy`), and
///   its id is remembered so later imports of it go there directly;
/// - otherwise a new session is made, in the directory of the day it started (or of today
///   when no time is known).
///
/// The session's start and end widen to cover the new record and entries; its title is set
/// only if it has none; cwd, model and continuation are filled in if missing.
pub(super) fn store_transcript<D: WriteSql + ?Sized>(
    rows: &D,
    transcript: &Transcript,
    touched: &mut dyn FnMut(i64, i64),
) -> Result<Imported> {
    let mut imported = Imported::default();
    for (record, entries) in &transcript.sessions {
        let (rowid, created) = target(rows, record, entries)?;
        imported.sessions += usize::from(created);
        merge(rows, rowid, record, entries)?;
        let before = last_seq(rows, rowid)?;
        touched(rowid, before);
        let (added, skipped) = insert_all(rows, rowid, before, !created, entries)?;
        imported.entries += added;
        imported.skipped += skipped;
    }
    Ok(imported)
}

/// Makes an empty session (`mkdir sessions/<day>/<id>`); returns its number. Its day is
/// that of `record.started`, or today.
pub fn create_session<D: WriteSql>(rows: &D, record: &SessionRecord) -> Result<i64> {
    if rows.session_number(record.id.as_str())?.is_some() {
        return Err(Error::exists(format!(
            "a memory session named {} exists already",
            record.id
        )));
    }
    create(rows, record, &[])
}

/// Appends `entry` to session `session` as its next seq, which it returns. Refused if the
/// session holds an entry with the same key.
pub fn append<D: WriteSql>(rows: &D, session: i64, entry: &EntryRecord) -> Result<i64> {
    let Some(id) = rows.session_name(session)? else {
        return Err(Error::not_found("the memory session is gone (forgotten?)"));
    };
    let seq = last_seq(rows, session)? + 1;
    if insert_batch(rows, session, seq - 1, true, &[entry])? == 0 {
        return Err(Error::exists(format!(
            "session {id} already holds an entry with key {:?}",
            entry.key
        )));
    }
    let record = SessionRecord::new(SessionId::stored(id));
    merge(rows, session, &record, std::slice::from_ref(entry))?;
    Ok(seq)
}

/// Sets (or with `None`, removes) the summary of session `session`.
pub fn set_summary<D: WriteSql>(rows: &D, session: i64, text: Option<&str>) -> Result<()> {
    if let Some(text) = text {
        check_text("the summary", text)?;
    }
    if rows.write_summary(session, text)? == 0 {
        return Err(Error::not_found("the memory session is gone (forgotten?)"));
    }
    Ok(())
}

/// Sets the tags of entry `seq` of session `session` (the tag index and the full-text
/// index follow).
pub fn set_tags<D: WriteSql>(rows: &D, session: i64, seq: i64, tags: &[String]) -> Result<()> {
    if !(1..=MAX_SEQ).contains(&seq) {
        return Err(Error::not_found(format!("the session has no entry {seq}")));
    }
    let id = entry_id(session, seq);
    let tags = tags_json(tags)?;
    if rows.write_tags(id, &tags)? == 0 && !rows.entry_exists(id)? {
        return Err(Error::not_found(format!("the session has no entry {seq}")));
    }
    Ok(())
}

/// Deletes session `id` and its entries, with their index rows. `false` if there was none.
pub fn forget<D: WriteSql>(rows: &D, id: &str) -> Result<bool> {
    let Some(rowid) = rows.session_number(id)? else {
        return Ok(false);
    };
    rows.delete_session(rowid)?;
    Ok(true)
}

/// The session `record` goes to, and whether it was made now.
fn target<D: WriteSql + ?Sized>(
    rows: &D,
    record: &SessionRecord,
    entries: &[EntryRecord],
) -> Result<(i64, bool)> {
    if let Some(rowid) = rows.session_number(record.id.as_str())? {
        return Ok((rowid, false));
    }
    if let Some(rowid) = rows.alias_of(record.id.as_str())? {
        return Ok((rowid, false));
    }
    // A resumed Claude Code session copies the session it resumes from its first entry, so
    // its opening is enough to find it, and an index of openings stays small and cheap.
    let joined = match record.resumes_by_copy && !entries.is_empty() {
        true => {
            let keys: Vec<&str> = entries.iter().map(|e| e.key.as_str()).collect();
            rows.opening_match(&keys)?
        }
        false => None,
    };
    if let Some(rowid) = joined {
        rows.add_alias(record.id.as_str(), rowid)?;
        return Ok((rowid, false));
    }
    Ok((create(rows, record, entries)?, true))
}

/// Inserts a new session for `record` (whose entries are `entries`); returns its number.
fn create<D: WriteSql + ?Sized>(
    rows: &D,
    record: &SessionRecord,
    entries: &[EntryRecord],
) -> Result<i64> {
    check_id(record.id.as_str())?;
    check_session(record)?;
    let (first, last) = span(record, entries);
    let day = day_of(first.unwrap_or_else(Time::now));
    rows.insert_session(record, (first, last), &day)
}

/// Widens session `rowid`'s time range to cover `record` and `entries`, and fills in what
/// it lacks (title, cwd, model, continuation).
fn merge<D: WriteSql + ?Sized>(
    rows: &D,
    rowid: i64,
    record: &SessionRecord,
    entries: &[EntryRecord],
) -> Result<()> {
    check_session(record)?;
    rows.widen(rowid, record, span(record, entries))
}

/// The last seq of session `rowid` (0 when it has none): the top of its number range.
fn last_seq<D: WriteSql + ?Sized>(rows: &D, rowid: i64) -> Result<i64> {
    let (first, last) = session_range(rowid);
    let top = rows.top_entry(first, last)?;
    Ok(top.map_or(0, |id| id - entry_id(rowid, 0)))
}

/// Appends `entries` to session `rowid` after seq `last`, skipping those whose key the
/// session holds (or that repeat a key earlier in `entries`). Returns how many were added
/// and how many skipped.
fn insert_all<D: WriteSql + ?Sized>(
    rows: &D,
    rowid: i64,
    mut last: i64,
    held: bool,
    entries: &[EntryRecord],
) -> Result<(usize, usize)> {
    let mut seen = HashSet::new();
    let fresh: Vec<&EntryRecord> = entries
        .iter()
        .filter(|e| seen.insert(e.key.as_str()))
        .collect();
    let mut added = 0;
    let mut rest = fresh.as_slice();
    while !rest.is_empty() {
        let (batch, after) = rest.split_at(batch_end(rest, D::BATCH, D::BATCH_BYTES));
        let n = insert_batch(rows, rowid, last, held, batch)?;
        added += n;
        last += i64::try_from(n).unwrap_or(i64::MAX);
        rest = after;
    }
    Ok((added, entries.len() - added))
}

/// How many of `entries` the next statement takes: up to `most` entries and `bytes` of
/// text, and always at least one.
fn batch_end(entries: &[&EntryRecord], most: usize, bytes: usize) -> usize {
    let mut taken = 0usize;
    let within = entries.iter().take(most).position(|e| {
        taken = taken.saturating_add(e.content.len() + e.key.len() + 64);
        taken > bytes
    });
    match within {
        Some(0) => 1,
        Some(n) => n,
        None => entries.len().min(most),
    }
}

/// Inserts the entries of `batch` whose key session `rowid` does not hold yet, as seq
/// `last + 1` on, in one statement; returns how many. A session made by this import holds
/// nothing yet, so `held` false skips asking the key index about every key.
fn insert_batch<D: WriteSql + ?Sized>(
    rows: &D,
    rowid: i64,
    last: i64,
    held: bool,
    batch: &[&EntryRecord],
) -> Result<usize> {
    let fits = i64::try_from(batch.len()).is_ok_and(|n| last.saturating_add(n) <= MAX_SEQ);
    if !fits {
        return Err(Error::invalid(
            "a memory session holds at most 4,294,967,295 entries",
        ));
    }
    for entry in batch {
        check_entry(entry)?;
    }
    let added = rows.add_entries(rowid, last, held, batch)?;
    super::session_files::note(rows, rowid, batch)?;
    Ok(added)
}

#[cfg(test)]
mod tests;
