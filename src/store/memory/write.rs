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
use crate::render::time::rfc3339_of;

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
mod tests {
    //! The behaviour of changes, through [`crate::store::memory::MemoryRecords`], on
    //! every backend.

    use super::*;
    use crate::error::ErrorKind;
    use crate::store::Store;
    use crate::store::memory::record::Channel;
    use crate::store::memory::records::SessionRow;
    use crate::store::memory::testing::{
        assert_consistent, at, entry, execute, pairs, session, with_tags,
    };
    use crate::store::testing::for_each_backend;

    fn transcript(sessions: Vec<(SessionRecord, Vec<EntryRecord>)>) -> Transcript {
        Transcript { sessions }
    }

    fn first() -> Transcript {
        transcript(vec![(
            session("s1", Some("2026-11-20T09:00:00Z"), "Fix the login"),
            vec![
                at(
                    entry("a", Channel::User, "the login form fails"),
                    "2026-11-20T09:00:00Z",
                ),
                at(
                    entry("b", Channel::Assistant, "looking at auth.py"),
                    "2026-11-20T09:01:00Z",
                ),
                with_tags(
                    entry("c", Channel::ToolCall, "grep -n login auth.py"),
                    &["grep"],
                ),
            ],
        )])
    }

    fn import(store: &Store, transcript: &Transcript) -> Result<Imported> {
        store.change_memory(|m| m.import(transcript))
    }

    fn get_session(store: &Store, id: &str) -> Option<SessionRow> {
        store.memory(|m| m.session(id)).unwrap()
    }

    fn seqs_and_keys(store: &Store, id: &str) -> Vec<(i64, String)> {
        store
            .memory(|m| {
                let row = m.session(id)?.unwrap();
                Ok(m.entries(row.rowid, 0, 100)?
                    .into_iter()
                    .map(|e| (e.seq, e.record.key))
                    .collect())
            })
            .unwrap()
    }

    /// How many things match `query`.
    fn matches(store: &Store, query: &str) -> usize {
        store.memory(|m| m.search(query, 10)).unwrap().1
    }

    #[test]
    fn compacting_keeps_every_match_and_the_indexes_consistent() {
        for_each_backend(|store| {
            import(&store, &first()).unwrap();
            let before = store.memory(|m| m.search("login", 10)).unwrap();
            store.change_memory(|m| m.compact()).unwrap();
            let after = store.memory(|m| m.search("login", 10)).unwrap();
            assert_eq!(before.1, after.1, "the same matches");
            assert_eq!(before.0.len(), after.0.len());
            assert_consistent(&store);
        });
    }

    #[test]
    fn importing_twice_adds_nothing() {
        for_each_backend(|store| {
            let once = import(&store, &first()).unwrap();
            assert_eq!(
                once,
                Imported {
                    sessions: 1,
                    entries: 3,
                    skipped: 0
                }
            );
            let twice = import(&store, &first()).unwrap();
            assert_eq!(
                twice,
                Imported {
                    sessions: 0,
                    entries: 0,
                    skipped: 3
                }
            );
            let row = get_session(&store, "s1").unwrap();
            assert_eq!((row.day.as_str(), row.entries), ("2026-11-20", 3));
            assert_eq!(row.record.ended.as_deref(), Some("2026-11-20T09:01:00Z"));
            assert_eq!(
                seqs_and_keys(&store, "s1"),
                [(1, "a".into()), (2, "b".into()), (3, "c".into())]
            );
            assert_consistent(&store);
        });
    }

    #[test]
    fn a_session_is_continued_after_its_last_entry() {
        for_each_backend(|store| {
            import(&store, &first()).unwrap();
            let mut more = first();
            more.sessions[0].0.title = "Another title".into();
            // Filled in only where the stored session has nothing.
            more.sessions[0].0.model = Some("model-x".into());
            more.sessions[0].1.push(at(
                entry("d", Channel::User, "thanks"),
                "2026-11-21T10:00:00Z",
            ));
            // A key repeated inside one file is stored once.
            more.sessions[0]
                .1
                .push(entry("d", Channel::User, "thanks again"));
            // An earlier time widens the start, never the day.
            more.sessions[0].1.push(at(
                entry("z", Channel::User, "before"),
                "2026-11-19T23:00:00Z",
            ));
            let imported = import(&store, &more).unwrap();
            assert_eq!(
                imported,
                Imported {
                    sessions: 0,
                    entries: 2,
                    skipped: 4
                }
            );
            let row = get_session(&store, "s1").unwrap();
            assert_eq!(row.record.title, "Fix the login", "a title is kept");
            assert_eq!(row.record.model.as_deref(), Some("model-x"));
            assert_eq!(row.record.started.as_deref(), Some("2026-11-19T23:00:00Z"));
            assert_eq!(row.record.ended.as_deref(), Some("2026-11-21T10:00:00Z"));
            assert_eq!(row.day, "2026-11-20", "a session never moves");
            assert_eq!(
                seqs_and_keys(&store, "s1")[3..],
                [(4, "d".to_string()), (5, "z".to_string())]
            );
            assert_consistent(&store);
        });
    }

    #[test]
    fn a_resumed_session_joins_the_one_it_repeats() {
        for_each_backend(|store| {
            import(&store, &first()).unwrap();
            let mut resumed = first();
            resumed.sessions[0].0.id = "s2".into();
            resumed.sessions[0]
                .1
                .push(entry("e", Channel::User, "now the signup form"));
            let imported = import(&store, &resumed).unwrap();
            assert_eq!(
                imported,
                Imported {
                    sessions: 0,
                    entries: 1,
                    skipped: 3
                }
            );
            assert!(get_session(&store, "s2").is_none());
            assert_eq!(seqs_and_keys(&store, "s1").len(), 4);
            // Later imports under the new id go to the same session, even without repeats.
            let later = transcript(vec![(
                session("s2", None, ""),
                vec![entry("f", Channel::Assistant, "done")],
            )]);
            let imported = import(&store, &later).unwrap();
            assert_eq!(
                imported,
                Imported {
                    sessions: 0,
                    entries: 1,
                    skipped: 0
                }
            );
            assert_eq!(
                seqs_and_keys(&store, "s1").last().unwrap(),
                &(5, "f".to_string())
            );
            assert_consistent(&store);
        });
    }

    /// A session of `n` entries keyed `k1` ... `kn`.
    fn numbered(id: &str, keys: impl Iterator<Item = usize>) -> Transcript {
        let entries = keys
            .map(|i| entry(&format!("k{i}"), Channel::User, &format!("step {i}")))
            .collect();
        transcript(vec![(
            session(id, Some("2026-11-20T09:00:00Z"), ""),
            entries,
        )])
    }

    #[test]
    fn a_resumed_session_is_found_by_its_opening_even_after_new_entries() {
        for_each_backend(|store| {
            import(&store, &numbered("long", 1..=100)).unwrap();
            // Claude Code may put records of its own (a summary) before the copied history.
            let mut resumed = numbered("resumed", 1..=100);
            let copied = &mut resumed.sessions[0].1;
            copied.insert(0, entry("summary", Channel::Summary, "the story so far"));
            copied.push(entry("new", Channel::User, "and now"));
            let imported = import(&store, &resumed).unwrap();
            assert_eq!(
                imported,
                Imported {
                    sessions: 0,
                    entries: 2,
                    skipped: 100
                }
            );
            assert_eq!(
                seqs_and_keys(&store, "long").len(),
                100,
                "the first 100 only"
            );
            assert!(get_session(&store, "resumed").is_none());
            assert_consistent(&store);
        });
    }

    #[test]
    fn repeating_the_middle_of_a_session_and_not_its_opening_makes_a_new_one() {
        for_each_backend(|store| {
            import(&store, &numbered("long", 1..=100)).unwrap();
            // Only the first 32 entries of a session are looked up by key.
            let imported = import(&store, &numbered("tail", 33..=100)).unwrap();
            assert_eq!(imported.sessions, 1);
            assert_eq!(imported.entries, 68);
            // A file repeating any of them joins, and the session with most of them wins.
            let imported = import(&store, &numbered("overlap", 30..=40)).unwrap();
            assert_eq!(
                imported,
                Imported {
                    sessions: 0,
                    entries: 3,
                    skipped: 8
                },
                "k30..k32 open `long`, k33..k40 open `tail`: it joins `tail`"
            );
            assert_eq!(seqs_and_keys(&store, "tail").len(), 71);
            let aliases = pairs(
                &store,
                "SELECT a.alias, s.id FROM session_aliases a JOIN sessions s ON s.rowid = a.session",
            );
            assert_eq!(aliases, [("overlap".to_string(), "tail".to_string())]);
            assert_consistent(&store);
        });
    }

    #[test]
    fn sessions_of_tools_that_do_not_resume_by_copying_never_join() {
        for_each_backend(|store| {
            let chat = |id: &str, question: &str| {
                let mut t = transcript(vec![(
                    session(id, None, ""),
                    vec![
                        entry(
                            "system-prompt",
                            Channel::System,
                            "You are a helpful assistant.",
                        ),
                        entry(question, Channel::User, question),
                    ],
                )]);
                t.sessions[0].0.resumes_by_copy = false;
                t
            };
            import(&store, &chat("one", "2+2?")).unwrap();
            let imported = import(&store, &chat("two", "a colour?")).unwrap();
            assert_eq!(
                imported,
                Imported {
                    sessions: 1,
                    entries: 2,
                    skipped: 0
                },
                "the same opening line is a coincidence, not a resumed session"
            );
            assert_consistent(&store);
        });
    }

    #[test]
    fn a_session_without_times_lands_on_the_import_day() {
        for_each_backend(|store| {
            let t = transcript(vec![(
                session("x", None, "t"),
                vec![entry("k", Channel::User, "hi")],
            )]);
            import(&store, &t).unwrap();
            let today = rfc3339_of(SystemTime::now())[..10].to_string();
            let row = get_session(&store, "x").unwrap();
            assert_eq!((row.day, row.record.started), (today, None));
        });
    }

    #[test]
    fn a_bad_entry_rolls_the_whole_file_back() {
        for_each_backend(|store| {
            let mut bad = first();
            bad.sessions[0].1[2].meta = serde_json::json!([1, 2]);
            let err = import(&store, &bad).unwrap_err();
            assert_eq!(err.kind, ErrorKind::Invalid);
            assert!(err.message.contains("JSON object"), "{}", err.message);
            assert_eq!(store.memory(|m| m.stats()).unwrap().sessions, 0);
            let bad_id = transcript(vec![(session("../x", None, ""), vec![])]);
            let err = import(&store, &bad_id).unwrap_err();
            assert_eq!(err.kind, ErrorKind::Invalid);
            // A refused file leaves the store able to take the next.
            import(&store, &first()).unwrap();
            assert_consistent(&store);
        });
    }

    /// A NUL in text is refused by every store (PostgreSQL's text cannot keep one, and a
    /// SQLite store must stay copyable there), plainly — the rest of the file with it; a
    /// NUL escaped inside JSON meta is kept.
    #[test]
    fn a_nul_in_text_is_refused_plainly_by_every_store() {
        for_each_backend(|store| {
            let mut file = first();
            file.sessions[0].1[1].content = "a\0b".into();
            file.sessions[0].1[2].meta = serde_json::json!({"output": "x\0y"});
            let err = import(&store, &file).unwrap_err();
            assert_eq!(err.kind, ErrorKind::Invalid);
            assert!(
                err.message.contains("NUL") && err.message.contains("entry \"b\""),
                "{}",
                err.message
            );
            assert_eq!(store.memory(|m| m.stats()).unwrap().entries, 0);
            let mut titled = first();
            titled.sessions[0].0.title = "Fix\0it".into();
            let err = import(&store, &titled).unwrap_err();
            assert!(err.message.contains("session s1"), "{}", err.message);
            let mut tagged = first();
            tagged.sessions[0].1[0].tags = vec!["a\0".into()];
            assert!(
                import(&store, &tagged)
                    .unwrap_err()
                    .message
                    .contains("a tag")
            );

            file.sessions[0].1[1].content = "ab".into();
            import(&store, &file).unwrap();
            let row = get_session(&store, "s1").unwrap();
            let meta = store.memory(|m| m.entry(row.rowid, 3)).unwrap().unwrap();
            assert_eq!(meta.record.meta, serde_json::json!({"output": "x\0y"}));
            let refused = store
                .change_memory(|m| m.set_summary(row.rowid, Some("a\0")))
                .unwrap_err();
            assert!(
                refused.message.contains("the summary"),
                "{}",
                refused.message
            );
            assert_consistent(&store);
        });
    }

    #[test]
    fn sessions_are_made_and_appended_to() {
        for_each_backend(|store| {
            let live = session("live", Some("2026-11-22T08:00:00Z"), "");
            let rowid = store.change_memory(|m| m.create_session(&live)).unwrap();
            let err = store
                .change_memory(|m| m.create_session(&session("live", None, "")))
                .unwrap_err();
            assert_eq!(err.kind, ErrorKind::Exists);
            let err = store
                .change_memory(|m| m.create_session(&session("a/b", None, "")))
                .unwrap_err();
            assert_eq!(err.kind, ErrorKind::Invalid);
            let e = at(entry("k1", Channel::User, "first"), "2026-11-22T08:05:00Z");
            assert_eq!(store.change_memory(|m| m.append(rowid, &e)).unwrap(), 1);
            let e2 = entry("k2", Channel::Assistant, "second");
            assert_eq!(store.change_memory(|m| m.append(rowid, &e2)).unwrap(), 2);
            let err = store.change_memory(|m| m.append(rowid, &e)).unwrap_err();
            assert_eq!(err.kind, ErrorKind::Exists);
            let err = store
                .change_memory(|m| m.append(rowid + 1, &e))
                .unwrap_err();
            assert_eq!(err.kind, ErrorKind::NotFound);
            let row = get_session(&store, "live").unwrap();
            assert_eq!(row.entries, 2);
            assert_eq!(row.record.ended.as_deref(), Some("2026-11-22T08:05:00Z"));
            assert_consistent(&store);
        });
    }

    #[test]
    fn tags_and_summaries_keep_the_indexes_in_step() {
        for_each_backend(|store| {
            import(&store, &first()).unwrap();
            let rowid = get_session(&store, "s1").unwrap().rowid;
            let tags = vec!["urgent".to_string(), "auth".to_string()];
            let set =
                |seq: i64, tags: &[String]| store.change_memory(|m| m.set_tags(rowid, seq, tags));
            set(2, &tags).unwrap();
            set(2, &tags).unwrap();
            set(3, &[]).unwrap();
            assert_eq!(set(9, &tags).unwrap_err().kind, ErrorKind::NotFound);
            assert_eq!(set(0, &tags).unwrap_err().kind, ErrorKind::NotFound);
            assert_eq!(
                store.memory(|m| m.tags()).unwrap(),
                [("auth".to_string(), 1), ("urgent".to_string(), 1)]
            );
            assert_eq!(
                store
                    .memory(|m| m.entry(rowid, 2))
                    .unwrap()
                    .unwrap()
                    .record
                    .tags,
                tags
            );
            let (hits, total, _) = store.memory(|m| m.search("urgent", 10)).unwrap();
            assert_eq!((total, hits[0].seq), (1, Some(2)));
            assert_eq!(matches(&store, "tag:grep"), 0);

            let summary = |text: Option<&str>| store.change_memory(|m| m.set_summary(rowid, text));
            summary(Some("Completed Work: rotated keys")).unwrap();
            let (hits, _, _) = store.memory(|m| m.search("rotated", 10)).unwrap();
            assert_eq!((hits.len(), hits[0].seq), (1, None));
            summary(None).unwrap();
            assert_eq!(matches(&store, "rotated"), 0);
            let err = store
                .change_memory(|m| m.set_summary(999, None))
                .unwrap_err();
            assert_eq!(err.kind, ErrorKind::NotFound);
            assert_consistent(&store);
        });
    }

    #[test]
    fn entries_cannot_change_except_their_tags() {
        for_each_backend(|store| {
            import(&store, &first()).unwrap();
            let err = execute(&store, "UPDATE entries SET content = 'x'").unwrap_err();
            assert!(err.message.contains("cannot change"), "{}", err.message);
            execute(
                &store,
                "UPDATE entries SET tags = '[\"kept\"]' WHERE seq = 1",
            )
            .unwrap();
            assert_consistent(&store);
        });
    }

    #[test]
    fn forgetting_removes_every_trace() {
        for_each_backend(|store| {
            import(&store, &first()).unwrap();
            let mut other = first();
            other.sessions[0].0.id = "s2".into();
            for e in &mut other.sessions[0].1 {
                e.key.push('2');
            }
            import(&store, &other).unwrap();
            // An alias of s1 goes with it.
            let mut resumed = first();
            resumed.sessions[0].0.id = "s1-resumed".into();
            import(&store, &resumed).unwrap();
            let forget = |id: &str| store.change_memory(|m| m.forget(id)).unwrap();
            assert!(forget("s1"));
            assert!(!forget("s1"));
            let s = store.memory(|m| m.stats()).unwrap();
            assert_eq!((s.sessions, s.entries), (1, 3));
            assert!(pairs(&store, "SELECT alias, alias FROM session_aliases").is_empty());
            // Two entries and the title of the session left.
            assert_eq!(matches(&store, "login"), 3);
            assert_consistent(&store);
            assert!(forget("s2"));
            assert_eq!(
                store.memory(|m| m.stats()).unwrap(),
                crate::store::memory::Stats::default()
            );
            assert_eq!(store.memory(|m| m.tags()).unwrap(), []);
            assert_consistent(&store);
        });
    }
}
