//! Changing memory on PostgreSQL: storing a transcript (for `load.rs`), making a session,
//! appending an entry, setting tags or a summary, forgetting a session — with the behaviour
//! and the errors of SQLite's `../write.rs`, whose documentation is the contract: sessions
//! are continued by id or alias, joined when a resumed transcript repeats their opening, or
//! made; an entry is identified by its key within its session, so importing again adds
//! nothing. Each runs in the caller's transaction; the tag index and every counter follow
//! the rows by the triggers of `schema.sql`, and the words of each row are generated
//! columns, so nothing here keeps an index by hand.
//!
//! Entries are inserted many per statement (arrays unnested into rows), so the schema's
//! per-statement triggers update each counter once per batch, not once per entry.

use std::collections::HashSet;
use std::time::SystemTime;

use super::read::column;
use crate::error::{Error, Result};
use crate::model::time::rfc3339_of;
use crate::store::memory::record::{EntryRecord, SessionRecord, Transcript};
use crate::store::memory::records::Imported;
use crate::store::memory::rules::{
    check_entry, check_id, check_session, check_text, day_of, span, tags_json,
};
use crate::store::memory::{MAX_SEQ, entry_id, session_range};
use crate::store::postgres::Tx;

/// Stores `transcript`, session by session, as SQLite's `store_transcript` does (see
/// `../write.rs`): continue a session by id or alias, join the stored session whose
/// opening a `resumes_by_copy` transcript repeats, or make one; widen its time range, fill
/// in what it lacks; add the entries whose keys it does not hold.
pub(super) fn store_transcript(tx: &Tx<'_>, transcript: &Transcript) -> Result<Imported> {
    let mut imported = Imported::default();
    for (record, entries) in &transcript.sessions {
        let (rowid, created) = target(tx, record, entries)?;
        imported.sessions += usize::from(created);
        merge(tx, rowid, record, entries)?;
        let before = last_seq(tx, rowid)?;
        let (added, skipped) = insert_all(tx, rowid, before, !created, entries)?;
        imported.entries += added;
        imported.skipped += skipped;
    }
    Ok(imported)
}

/// Makes an empty session (`mkdir sessions/<day>/<id>`); returns its number. Its day is
/// that of `record.started`, or today.
pub fn create_session(tx: &Tx<'_>, record: &SessionRecord) -> Result<i64> {
    if rowid_of(tx, &record.id)?.is_some() {
        return Err(Error::exists(format!(
            "a memory session named {} exists already",
            record.id
        )));
    }
    create(tx, record, &[])
}

/// Appends `entry` to session `session` as its next seq, which it returns. Refused if the
/// session holds an entry with the same key.
pub fn append(tx: &Tx<'_>, session: i64, entry: &EntryRecord) -> Result<i64> {
    let found = match i32::try_from(session) {
        Ok(rowid) => tx.query_opt("SELECT id FROM sessions WHERE rowid = $1", &[&rowid])?,
        Err(_) => None,
    };
    let Some(found) = found else {
        return Err(Error::not_found("the memory session is gone (forgotten?)"));
    };
    let id: String = column(&found, 0)?;
    let seq = last_seq(tx, session)? + 1;
    if insert_batch(tx, session, seq - 1, true, &[entry])? == 0 {
        return Err(Error::exists(format!(
            "session {id} already holds an entry with key {:?}",
            entry.key
        )));
    }
    merge(
        tx,
        session,
        &SessionRecord::default(),
        std::slice::from_ref(entry),
    )?;
    Ok(seq)
}

/// Sets (or with `None`, removes) the summary of `session`.
pub fn set_summary(tx: &Tx<'_>, session: i64, text: Option<&str>) -> Result<()> {
    if let Some(text) = text {
        check_text("the summary", text)?;
    }
    let changed = match i32::try_from(session) {
        Ok(rowid) => tx.execute(
            "UPDATE sessions SET summary = $2 WHERE rowid = $1",
            &[&rowid, &text],
        )?,
        Err(_) => 0,
    };
    if changed == 0 {
        return Err(Error::not_found("the memory session is gone (forgotten?)"));
    }
    Ok(())
}

/// Sets the tags of entry `seq` of `session` (the tag index and the entry's words follow).
pub fn set_tags(tx: &Tx<'_>, session: i64, seq: i64, tags: &[String]) -> Result<()> {
    if !(1..=MAX_SEQ).contains(&seq) {
        return Err(Error::not_found(format!("the session has no entry {seq}")));
    }
    let id = entry_id(session, seq);
    let tags = tags_json(tags)?;
    let changed = tx.execute(
        "UPDATE entries SET tags = $2 WHERE id = $1 AND tags IS DISTINCT FROM $2",
        &[&id, &tags],
    )?;
    if changed == 0
        && tx
            .query_opt("SELECT 1 FROM entries WHERE id = $1", &[&id])?
            .is_none()
    {
        return Err(Error::not_found(format!("the session has no entry {seq}")));
    }
    Ok(())
}

/// Deletes session `id` and its entries, with their index rows. `false` if there was none.
pub fn forget(tx: &Tx<'_>, id: &str) -> Result<bool> {
    let Some(rowid) = rowid_of(tx, id)? else {
        return Ok(false);
    };
    let (first, last) = session_range(rowid);
    tx.execute(
        "DELETE FROM entries WHERE id BETWEEN $1 AND $2",
        &[&first, &last],
    )?;
    let rowid = to_rowid(rowid)?;
    tx.execute("DELETE FROM sessions WHERE rowid = $1", &[&rowid])?;
    Ok(true)
}

/// After a large load: moves the words the GIN indexes gathered in their pending lists into
/// the indexes proper (a search reads a pending list whole, so a long one makes every
/// search slower until autovacuum gets to it), and refreshes the planner's statistics of
/// the memory tables, which a load of many rows leaves stale. This is what FTS5's
/// `optimize` is to SQLite. VACUUM would do both but cannot run inside a transaction, and
/// every change of the store is one; these two can. An index another role owns is left to
/// autovacuum (cleaning it would be refused, and fail the transaction); ANALYZE passes over
/// such tables with a warning by itself.
pub fn compact(tx: &Tx<'_>) -> Result<()> {
    tx.query(
        "SELECT gin_clean_pending_list(c.oid)
         FROM pg_class c
         WHERE c.oid IN ('entries_words'::REGCLASS, 'sessions_words'::REGCLASS)
           AND pg_has_role(c.relowner, 'USAGE')",
        &[],
    )?;
    tx.execute("ANALYZE sessions, entries, entry_tags", &[])?;
    Ok(())
}

/// The session `record` goes to, and whether it was made now.
fn target(tx: &Tx<'_>, record: &SessionRecord, entries: &[EntryRecord]) -> Result<(i64, bool)> {
    if let Some(rowid) = rowid_of(tx, &record.id)? {
        return Ok((rowid, false));
    }
    let alias = tx.query_opt(
        "SELECT session::BIGINT FROM session_aliases WHERE alias = $1",
        &[&record.id],
    )?;
    if let Some(alias) = alias {
        return Ok((column(&alias, 0)?, false));
    }
    let joined = match record.resumes_by_copy {
        true => repeated(tx, entries)?,
        false => None,
    };
    if let Some(rowid) = joined {
        tx.execute(
            "INSERT INTO session_aliases (alias, session) VALUES ($1, $2)",
            &[&record.id, &to_rowid(rowid)?],
        )?;
        return Ok((rowid, false));
    }
    Ok((create(tx, record, entries)?, true))
}

/// The stored session whose opening entries (its first 32, those the partial index
/// `entries_opening_keys` holds) `entries` repeat the most of, if any: one statement for
/// the whole transcript, as SQLite's `repeated` explains.
fn repeated(tx: &Tx<'_>, entries: &[EntryRecord]) -> Result<Option<i64>> {
    if entries.is_empty() {
        return Ok(None);
    }
    let keys: Vec<&str> = entries.iter().map(|e| e.key.as_str()).collect();
    let found = tx.query_opt(
        "SELECT session::BIGINT FROM entries
         WHERE seq <= 32 AND key = ANY($1)
         GROUP BY session ORDER BY count(*) DESC, session LIMIT 1",
        &[&keys],
    )?;
    found.map(|row| column(&row, 0)).transpose()
}

fn rowid_of(tx: &Tx<'_>, id: &str) -> Result<Option<i64>> {
    tx.query_opt("SELECT rowid::BIGINT FROM sessions WHERE id = $1", &[&id])?
        .map(|row| column(&row, 0))
        .transpose()
}

/// A session number as the `sessions.rowid` column holds it (the identity never hands out
/// one past 2^31 - 1: the next insert fails first).
fn to_rowid(rowid: i64) -> Result<i32> {
    i32::try_from(rowid)
        .map_err(|_| Error::internal(format!("{rowid} is not a memory session's number")))
}

/// Inserts a new session for `record` (whose entries are `entries`); returns its number.
fn create(tx: &Tx<'_>, record: &SessionRecord, entries: &[EntryRecord]) -> Result<i64> {
    check_id(&record.id)?;
    let (first, last) = span(record, entries);
    let day = first
        .and_then(day_of)
        .unwrap_or_else(|| rfc3339_of(SystemTime::now())[..10].to_string());
    check_session(record)?;
    let row = tx.query_one(
        "INSERT INTO sessions (id, source, started, ended, title, cwd, model, continuation_of, day)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
         RETURNING rowid::BIGINT",
        &[
            &record.id,
            &record.source,
            &first,
            &last,
            &record.title,
            &record.cwd,
            &record.model,
            &record.continuation_of,
            &day,
        ],
    )?;
    column(&row, 0)
}

/// Widens session `rowid`'s time range to cover `record` and `entries`, and fills in what
/// it lacks (title, cwd, model, continuation). Times compare by bytes, as SQLite compares
/// them (a locale's collation may ignore their punctuation).
fn merge(tx: &Tx<'_>, rowid: i64, record: &SessionRecord, entries: &[EntryRecord]) -> Result<()> {
    check_session(record)?;
    let (first, last) = span(record, entries);
    tx.execute(
        "UPDATE sessions SET
            started = CASE WHEN $2::TEXT IS NOT NULL
                            AND (started IS NULL OR $2 < started COLLATE \"C\")
                      THEN $2 ELSE started END,
            ended = CASE WHEN $3::TEXT IS NOT NULL
                          AND (ended IS NULL OR $3 > ended COLLATE \"C\")
                    THEN $3 ELSE ended END,
            title = CASE WHEN title = '' THEN $4 ELSE title END,
            cwd = coalesce(cwd, $5),
            model = coalesce(model, $6),
            continuation_of = coalesce(continuation_of, $7)
         WHERE rowid = $1",
        &[
            &to_rowid(rowid)?,
            &first,
            &last,
            &record.title,
            &record.cwd,
            &record.model,
            &record.continuation_of,
        ],
    )?;
    Ok(())
}

/// The last seq of session `rowid` (0 when it has none): the top of its number range.
fn last_seq(tx: &Tx<'_>, rowid: i64) -> Result<i64> {
    let (first, last) = session_range(rowid);
    let row = tx.query_one(
        "SELECT max(id) FROM entries WHERE id BETWEEN $1 AND $2",
        &[&first, &last],
    )?;
    let top: Option<i64> = column(&row, 0)?;
    Ok(top.map_or(0, |id| id - entry_id(rowid, 0)))
}

/// How many entries one statement inserts at most: enough that the per-statement triggers
/// and the round trip cost little per entry.
const BATCH: usize = 5_000;

/// How many bytes of text one statement carries at most. Tool results can be hundreds of
/// KiB each, and PostgreSQL refuses a message or an array past 1 GiB; the server also holds
/// a statement's new rows in memory for its triggers. Past this, a batch ends early.
const BATCH_BYTES: usize = 32 << 20;

/// Appends `entries` to session `rowid` after seq `last`, skipping those whose key the
/// session holds (or that repeat a key earlier in `entries`). Returns how many were added
/// and how many skipped.
fn insert_all(
    tx: &Tx<'_>,
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
        let (batch, after) = rest.split_at(batch_end(rest));
        let n = insert_batch(tx, rowid, last, held, batch)?;
        added += n;
        last += i64::try_from(n).unwrap_or(i64::MAX);
        rest = after;
    }
    Ok((added, entries.len() - added))
}

/// How many of `entries` the next statement takes: up to [`BATCH`] entries and
/// [`BATCH_BYTES`] of text, and always at least one.
fn batch_end(entries: &[&EntryRecord]) -> usize {
    let mut bytes = 0;
    let within = entries.iter().take(BATCH).position(|e| {
        bytes += e.content.len() + e.key.len() + 64;
        bytes > BATCH_BYTES
    });
    match within {
        Some(0) => 1,
        Some(n) => n,
        None => entries.len().min(BATCH),
    }
}

/// Inserts the entries of `batch` whose key session `rowid` does not hold yet, as seq
/// `last + 1` on in their order, in one statement; returns how many. A session made by this
/// import holds nothing yet, so `held` false skips asking the key index about every key.
fn insert_batch(
    tx: &Tx<'_>,
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
    let mut columns = Columns::with_capacity(batch.len());
    for entry in batch {
        columns.push(entry)?;
    }
    let added = tx.execute(
        "INSERT INTO entries (id, session, seq, key, ts, channel, tags, meta, content)
         SELECT ($1::BIGINT << 32) + $2::BIGINT + n, $1::BIGINT, $2::BIGINT + n,
                key, ts, channel, tags, meta, content
         FROM (
            SELECT row_number() OVER (ORDER BY u.place) AS n, u.*
            FROM unnest($3::TEXT[], $4::TEXT[], $5::TEXT[], $6::TEXT[], $7::TEXT[], $8::TEXT[])
                WITH ORDINALITY AS u (key, ts, channel, tags, meta, content, place)
            WHERE NOT $9 OR NOT EXISTS (
                SELECT 1 FROM entries e WHERE e.session = $1::BIGINT AND e.key = u.key)
         ) fresh",
        &[
            &rowid,
            &last,
            &columns.keys,
            &columns.times,
            &columns.channels,
            &columns.tags,
            &columns.metas,
            &columns.contents,
            &held,
        ],
    )?;
    usize::try_from(added).map_err(|_| Error::internal("more entries added than given"))
}

/// A batch of entries as one array per column, as [`insert_batch`] binds them.
struct Columns<'e> {
    keys: Vec<&'e str>,
    times: Vec<Option<&'e str>>,
    channels: Vec<&'static str>,
    tags: Vec<String>,
    metas: Vec<String>,
    contents: Vec<&'e str>,
}

impl<'e> Columns<'e> {
    fn with_capacity(n: usize) -> Columns<'e> {
        Columns {
            keys: Vec::with_capacity(n),
            times: Vec::with_capacity(n),
            channels: Vec::with_capacity(n),
            tags: Vec::with_capacity(n),
            metas: Vec::with_capacity(n),
            contents: Vec::with_capacity(n),
        }
    }

    /// Adds `entry`, refusing what SQLite's backend refuses (a meta that is not an object,
    /// a NUL in its text).
    fn push(&mut self, entry: &'e EntryRecord) -> Result<()> {
        let meta = match &entry.meta {
            serde_json::Value::Null => "{}".to_string(),
            serde_json::Value::Object(_) => entry.meta.to_string(),
            other => {
                return Err(Error::invalid(format!(
                    "an entry's meta must be a JSON object, not {other}"
                )));
            }
        };
        check_entry(entry)?;
        self.keys.push(&entry.key);
        self.times.push(entry.ts.as_deref());
        self.channels.push(entry.channel.as_str());
        self.tags.push(tags_json(&entry.tags)?);
        self.metas.push(meta);
        self.contents.push(&entry.content);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::memory::record::Channel;

    #[test]
    fn a_batch_is_bounded_by_entries_and_by_bytes() {
        let entry = |size: usize| EntryRecord {
            key: "k".into(),
            ts: None,
            channel: Channel::User,
            content: "x".repeat(size),
            tags: Vec::new(),
            meta: serde_json::json!({}),
        };
        let small = entry(10);
        let big = entry(BATCH_BYTES / 3);
        let huge = entry(BATCH_BYTES * 2);
        assert_eq!(batch_end(&vec![&small; BATCH + 7]), BATCH);
        assert_eq!(batch_end(&[&small; 3]), 3);
        assert_eq!(batch_end(&[&big; 10]), 2);
        assert_eq!(batch_end(&[&huge, &small]), 1, "one entry, however large");
        assert_eq!(batch_end(&[&small, &huge]), 1);
    }
}
