//! Changes to memory: importing a transcript, making a session, appending an entry, setting
//! an entry's tags or a session's summary, forgetting a session. Each runs inside the
//! caller's transaction ([`crate::store::Store::write`]), so a failure anywhere (one bad
//! entry of a file) leaves the store as it was; the full-text indexes, the tag index and
//! the counters follow by the triggers of `schema.sql`.
//!
//! Importing is idempotent: an entry is identified by its `key` within its session, and a
//! key already stored is skipped, so importing a file twice, or a file that repeats the
//! entries of a session it resumes, adds nothing twice.

use std::collections::HashSet;
use std::time::SystemTime;

use rusqlite::{Connection, OptionalExtension, params};

use super::record::{EntryRecord, SessionRecord, Transcript};
use super::records::Imported;
use super::rules::{check_entry, check_id, check_session, check_text, day_of, span, tags_json};
use super::{MAX_SEQ, entry_id, session_range};
use crate::error::{Error, Result};
use crate::model::time::rfc3339_of;

/// Stores `transcript`, session by session, telling `touched` each session it appends to
/// and the last seq that session had before (a bulk load indexes what lies above it). Only
/// inside a bulk load ([`super::import`], [`super::bulk_load`]):
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
pub(super) fn store_transcript(
    conn: &Connection,
    transcript: &Transcript,
    touched: &mut dyn FnMut(i64, i64),
) -> Result<Imported> {
    let mut imported = Imported::default();
    for (record, entries) in &transcript.sessions {
        let (rowid, created) = target(conn, record, entries)?;
        imported.sessions += usize::from(created);
        merge(conn, rowid, record, entries)?;
        let before = last_seq(conn, rowid)?;
        touched(rowid, before);
        let (added, skipped) = insert_all(conn, rowid, before, !created, entries)?;
        imported.entries += added;
        imported.skipped += skipped;
    }
    Ok(imported)
}

/// Makes an empty session (`mkdir sessions/<day>/<id>`); returns its number. Its day is
/// that of `record.started`, or today.
pub fn create_session(conn: &Connection, record: &SessionRecord) -> Result<i64> {
    if rowid_of(conn, &record.id)?.is_some() {
        return Err(Error::exists(format!(
            "a memory session named {} exists already",
            record.id
        )));
    }
    create(conn, record, &[])
}

/// Appends `entry` to session `session_rowid` as its next seq, which it returns. Refused if
/// the session holds an entry with the same key.
pub fn append(conn: &Connection, session_rowid: i64, entry: &EntryRecord) -> Result<i64> {
    let id: Option<String> = conn
        .prepare_cached("SELECT id FROM sessions WHERE rowid = ?1")?
        .query_row([session_rowid], |r| r.get(0))
        .optional()?;
    let Some(id) = id else {
        return Err(Error::not_found("the memory session is gone (forgotten?)"));
    };
    let seq = last_seq(conn, session_rowid)? + 1;
    if insert_batch(conn, session_rowid, seq - 1, true, &[entry])? == 0 {
        return Err(Error::exists(format!(
            "session {id} already holds an entry with key {:?}",
            entry.key
        )));
    }
    let record = SessionRecord::default();
    merge(conn, session_rowid, &record, std::slice::from_ref(entry))?;
    Ok(seq)
}

/// Sets (or with `None`, removes) the summary of session `session_rowid`.
pub fn set_summary(conn: &Connection, session_rowid: i64, text: Option<&str>) -> Result<()> {
    if let Some(text) = text {
        check_text("the summary", text)?;
    }
    let changed = conn
        .prepare_cached("UPDATE sessions SET summary = ?2 WHERE rowid = ?1")?
        .execute(params![session_rowid, text])?;
    if changed == 0 {
        return Err(Error::not_found("the memory session is gone (forgotten?)"));
    }
    Ok(())
}

/// Sets the tags of entry `seq` of session `session_rowid` (the tag index and the
/// full-text index follow).
pub fn set_tags(conn: &Connection, session_rowid: i64, seq: i64, tags: &[String]) -> Result<()> {
    if !(1..=MAX_SEQ).contains(&seq) {
        return Err(Error::not_found(format!("the session has no entry {seq}")));
    }
    let id = entry_id(session_rowid, seq);
    let tags = tags_json(tags)?;
    let changed = conn
        .prepare_cached("UPDATE entries SET tags = ?2 WHERE id = ?1 AND tags IS NOT ?2")?
        .execute(params![id, tags])?;
    if changed == 0 {
        let exists = conn
            .prepare_cached("SELECT 1 FROM entries WHERE id = ?1")?
            .exists([id])?;
        if !exists {
            return Err(Error::not_found(format!("the session has no entry {seq}")));
        }
    }
    Ok(())
}

/// Merges the full-text indexes into one segment each (FTS5 `optimize`). Every import
/// adds segments; reading a snippet walks them all, so after a bulk load searches are
/// several times cheaper once merged. It rewrites the whole index (seconds at a million
/// entries): for bulk loads, not for every write.
pub fn compact(conn: &Connection) -> Result<()> {
    conn.execute_batch(
        "INSERT INTO entries_fts (entries_fts) VALUES ('optimize');
         INSERT INTO sessions_fts (sessions_fts) VALUES ('optimize');",
    )?;
    Ok(())
}

/// Deletes session `id` and its entries, with their index rows. `false` if there was none.
pub fn forget(conn: &Connection, id: &str) -> Result<bool> {
    let Some(rowid) = rowid_of(conn, id)? else {
        return Ok(false);
    };
    let (first, last) = session_range(rowid);
    conn.prepare_cached("DELETE FROM entries WHERE id BETWEEN ?1 AND ?2")?
        .execute(params![first, last])?;
    conn.prepare_cached("DELETE FROM sessions WHERE rowid = ?1")?
        .execute([rowid])?;
    Ok(true)
}

/// The session `record` goes to, and whether it was made now.
fn target(
    conn: &Connection,
    record: &SessionRecord,
    entries: &[EntryRecord],
) -> Result<(i64, bool)> {
    if let Some(rowid) = rowid_of(conn, &record.id)? {
        return Ok((rowid, false));
    }
    let alias: Option<i64> = conn
        .prepare_cached("SELECT session FROM session_aliases WHERE alias = ?1")?
        .query_row([&record.id], |r| r.get(0))
        .optional()?;
    if let Some(rowid) = alias {
        return Ok((rowid, false));
    }
    let joined = match record.resumes_by_copy {
        true => repeated(conn, entries)?,
        false => None,
    };
    if let Some(rowid) = joined {
        conn.prepare_cached("INSERT INTO session_aliases (alias, session) VALUES (?1, ?2)")?
            .execute(params![record.id, rowid])?;
        return Ok((rowid, false));
    }
    Ok((create(conn, record, entries)?, true))
}

/// The stored session whose opening entries (its first 32, those the partial index
/// `entries_opening_keys` of `keys.sql` holds) `entries` repeat
/// the most of, if any: one statement over the opening keys' index for the whole batch. A
/// resumed Claude Code session copies the session it resumes from its first entry, so its
/// opening is enough to find it, and an index of openings stays small and cheap to keep.
fn repeated(conn: &Connection, entries: &[EntryRecord]) -> Result<Option<i64>> {
    if entries.is_empty() {
        return Ok(None);
    }
    let keys: Vec<&str> = entries.iter().map(|e| e.key.as_str()).collect();
    let keys = serde_json::to_string(&keys)
        .map_err(|e| Error::internal(format!("cannot list entry keys: {e}")))?;
    Ok(conn
        .prepare_cached(
            "SELECT session FROM entries
             WHERE seq <= 32 AND key IN (SELECT value FROM json_each(?1))
             GROUP BY session ORDER BY count(*) DESC, session LIMIT 1",
        )?
        .query_row([keys], |r| r.get(0))
        .optional()?)
}

fn rowid_of(conn: &Connection, id: &str) -> Result<Option<i64>> {
    Ok(conn
        .prepare_cached("SELECT rowid FROM sessions WHERE id = ?1")?
        .query_row([id], |r| r.get(0))
        .optional()?)
}

/// Inserts a new session for `record` (whose entries are `entries`); returns its number.
fn create(conn: &Connection, record: &SessionRecord, entries: &[EntryRecord]) -> Result<i64> {
    check_id(&record.id)?;
    check_session(record)?;
    let (first, last) = span(record, entries);
    let day = first
        .and_then(day_of)
        .unwrap_or_else(|| rfc3339_of(SystemTime::now())[..10].to_string());
    conn.prepare_cached(
        "INSERT INTO sessions (id, source, started, ended, title, cwd, model, continuation_of, day)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )?
    .execute(params![
        record.id,
        record.source,
        first,
        last,
        record.title,
        record.cwd,
        record.model,
        record.continuation_of,
        day
    ])?;
    Ok(conn.last_insert_rowid())
}

/// Widens session `rowid`'s time range to cover `record` and `entries`, and fills in what
/// it lacks (title, cwd, model, continuation).
fn merge(
    conn: &Connection,
    rowid: i64,
    record: &SessionRecord,
    entries: &[EntryRecord],
) -> Result<()> {
    check_session(record)?;
    let (first, last) = span(record, entries);
    conn.prepare_cached(
        "UPDATE sessions SET
            started = CASE WHEN ?2 IS NOT NULL AND (started IS NULL OR ?2 < started)
                      THEN ?2 ELSE started END,
            ended = CASE WHEN ?3 IS NOT NULL AND (ended IS NULL OR ?3 > ended)
                    THEN ?3 ELSE ended END,
            title = CASE WHEN title = '' THEN ?4 ELSE title END,
            cwd = coalesce(cwd, ?5),
            model = coalesce(model, ?6),
            continuation_of = coalesce(continuation_of, ?7)
         WHERE rowid = ?1",
    )?
    .execute(params![
        rowid,
        first,
        last,
        record.title,
        record.cwd,
        record.model,
        record.continuation_of
    ])?;
    Ok(())
}

/// The last seq of session `rowid` (0 when it has none): the top of its number range.
fn last_seq(conn: &Connection, rowid: i64) -> Result<i64> {
    let (first, last) = session_range(rowid);
    let top: Option<i64> = conn
        .prepare_cached("SELECT max(id) FROM entries WHERE id BETWEEN ?1 AND ?2")?
        .query_row(params![first, last], |r| r.get(0))?;
    Ok(top.map_or(0, |id| id - entry_id(rowid, 0)))
}

/// How many entries one statement inserts. Every statement that writes opens a savepoint,
/// and FTS5 flushes its pending terms to a new index segment at each savepoint: inserting
/// entry by entry writes (and then merges) one segment per entry, half the speed of batches.
const BATCH: usize = 2_000;

/// Appends `entries` to session `rowid` after its last seq, skipping those whose key the
/// session holds (or that repeat a key earlier in `entries`). Returns how many were added and
/// how many skipped.
fn insert_all(
    conn: &Connection,
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
    for batch in fresh.chunks(BATCH) {
        let n = insert_batch(conn, rowid, last, held, batch)?;
        added += n;
        last += i64::try_from(n).unwrap_or(i64::MAX);
    }
    Ok((added, entries.len() - added))
}

/// Inserts the entries of `batch` whose key session `rowid` does not hold yet, as seq
/// `last + 1` on, in one statement; returns how many. A session made by this import holds
/// nothing yet, so `held` false skips asking the key index about every key.
fn insert_batch(
    conn: &Connection,
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
    let rows = batch
        .iter()
        .map(|e| {
            let meta = match &e.meta {
                serde_json::Value::Null => serde_json::json!({}),
                serde_json::Value::Object(_) => e.meta.clone(),
                other => {
                    return Err(Error::invalid(format!(
                        "an entry's meta must be a JSON object, not {other}"
                    )));
                }
            };
            Ok(serde_json::json!([
                e.key,
                e.ts,
                e.channel.as_str(),
                e.tags,
                meta,
                e.content
            ]))
        })
        .collect::<Result<Vec<_>>>()?;
    let rows = serde_json::Value::Array(rows).to_string();
    let added = conn
        .prepare_cached(
            "INSERT INTO entries (id, session, seq, key, ts, channel, tags, meta, content)
             SELECT (?1 << 32) + ?2 + n, ?1, ?2 + n, key, ts, channel, tags, meta, content
             FROM (
                SELECT row_number() OVER (ORDER BY j.key) AS n,
                       j.value ->> 0 AS key, j.value ->> 1 AS ts, j.value ->> 2 AS channel,
                       j.value -> 3 AS tags, j.value -> 4 AS meta, j.value ->> 5 AS content
                FROM json_each(?3) j
                WHERE NOT ?4 OR NOT EXISTS (
                    SELECT 1 FROM entries e WHERE e.key = j.value ->> 0 AND e.session = ?1)
             )",
        )?
        .execute(params![rowid, last, rows, held])?;
    Ok(added)
}

#[cfg(test)]
mod tests;
