//! The rows PostgreSQL writes for memory's changes ([`WriteSql`]); which to write, and when,
//! is `../write.rs`'s. The tag index and every counter follow the rows by the triggers of
//! `schema.sql`; an entry's words are cut here (`words.rs`) and written with it.
//!
//! Entries are added by one binary `COPY` per batch, so the schema's per-statement triggers
//! update each counter once per batch, not once per entry, and the server neither parses nor
//! plans each entry.

use std::collections::HashSet;

use postgres::types::Type;

use super::load;
use super::read::column;
use super::words::{ASCII_LOWERED, indexed_text, words_of, words_sql};
use crate::error::{Error, Result};
use crate::model::time::Time;
use crate::model::transcript::{EntryRecord, SessionRecord};
use crate::store::memory::dialect::{Batch, Times, WriteSql};
use crate::store::memory::records::Loader;
use crate::store::memory::rules::tags_json;
use crate::store::memory::stored::time_text;
use crate::store::memory::{entry_id, session_range};
use crate::store::postgres::{CopyRow, Tx};

impl WriteSql for Tx<'_> {
    /// Enough that the per-statement triggers and the round trip cost little per entry.
    const BATCH: usize = 5_000;
    /// Tool results can be hundreds of KiB each, and PostgreSQL refuses a message or an
    /// array past 1 GiB; the server also holds a statement's new rows in memory for its
    /// triggers. Past this, a batch ends early.
    const BATCH_BYTES: usize = 32 << 20;

    fn session_number(&self, id: &str) -> Result<Option<i64>> {
        // PostgreSQL text cannot hold NUL: no session is named with one.
        if id.contains('\0') {
            return Ok(None);
        }
        self.query_opt("SELECT rowid::BIGINT FROM sessions WHERE id = $1", &[&id])?
            .map(|row| column(&row, 0))
            .transpose()
    }

    fn session_name(&self, rowid: i64) -> Result<Option<String>> {
        let Ok(rowid) = i32::try_from(rowid) else {
            return Ok(None);
        };
        self.query_opt("SELECT id FROM sessions WHERE rowid = $1", &[&rowid])?
            .map(|row| column(&row, 0))
            .transpose()
    }

    fn alias_of(&self, alias: &str) -> Result<Option<i64>> {
        self.query_opt(
            "SELECT session::BIGINT FROM session_aliases WHERE alias = $1",
            &[&alias],
        )?
        .map(|row| column(&row, 0))
        .transpose()
    }

    fn add_alias(&self, alias: &str, session: i64) -> Result<()> {
        self.execute(
            "INSERT INTO session_aliases (alias, session) VALUES ($1, $2)",
            &[&alias, &to_rowid(session)?],
        )?;
        Ok(())
    }

    /// One statement over the partial index `entries_opening_keys` for the whole batch.
    fn opening_match(&self, keys: &[&str]) -> Result<Option<i64>> {
        self.query_opt(
            "SELECT session::BIGINT FROM entries
             WHERE seq <= 32 AND key = ANY($1)
             GROUP BY session ORDER BY count(*) DESC, session LIMIT 1",
            &[&keys],
        )?
        .map(|row| column(&row, 0))
        .transpose()
    }

    fn insert_session(&self, record: &SessionRecord, times: Times, day: &str) -> Result<i64> {
        let (first, last) = (time_text(times.0), time_text(times.1));
        let row = self.query_one(
            "INSERT INTO sessions (id, source, started, ended, title, cwd, model, continuation_of, day)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
             RETURNING rowid::BIGINT",
            &[
                &record.id.as_str(),
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

    /// Times compare by bytes, as SQLite compares them (a locale's collation may ignore
    /// their punctuation).
    fn widen(&self, rowid: i64, record: &SessionRecord, times: Times) -> Result<()> {
        let (first, last) = (time_text(times.0), time_text(times.1));
        self.execute(
            "UPDATE sessions SET
                started = CASE WHEN $2::TEXT IS NOT NULL
                                AND (started IS NULL OR $2 < started COLLATE \"C\")
                          THEN $2 ELSE started END,
                ended = CASE WHEN $3::TEXT IS NOT NULL
                              AND (ended IS NULL OR $3 > ended COLLATE \"C\")
                        THEN $3 ELSE ended END,
                title = CASE WHEN title = '' OR title = ANY($8::TEXT[]) THEN $4 ELSE title END,
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
                &record.lesser_titles,
            ],
        )?;
        Ok(())
    }

    fn top_entry(&self, low: i64, high: i64) -> Result<Option<i64>> {
        let row = self.query_one(
            "SELECT max(id) FROM entries WHERE id BETWEEN $1 AND $2",
            &[&low, &high],
        )?;
        column(&row, 0)
    }

    /// One binary `COPY` of the batch, with each entry's words cut here (`words.rs`); the
    /// keys the session holds are asked first, when it may hold any.
    fn add_entries(&self, rowid: i64, last: i64, held: bool, batch: Batch<'_>) -> Result<usize> {
        let session = to_rowid(rowid)?;
        let known: HashSet<String> = match held {
            true => {
                let keys: Vec<&str> = batch.iter().map(|e| e.key.as_str()).collect();
                self.query(
                    "SELECT key FROM entries WHERE session = $1 AND key = ANY($2)",
                    &[&session, &keys],
                )?
                .iter()
                .map(|row| column(row, 0))
                .collect::<Result<_>>()?
            }
            false => HashSet::new(),
        };
        let fresh: Vec<&EntryRecord> = batch
            .iter()
            .copied()
            .filter(|e| !known.contains(&e.key))
            .collect();
        if fresh.is_empty() {
            return Ok(0);
        }
        let mut columns = Columns::with_capacity(fresh.len());
        for (n, entry) in (1..).zip(&fresh) {
            columns.push(rowid, last + n, entry)?;
        }
        let texts: Vec<(&str, &str)> = fresh
            .iter()
            .zip(&columns.tags)
            .map(|(e, tags)| (e.content.as_str(), tags.as_str()))
            .collect();
        let ascii_here = before_batch(self, fresh.len() >= BULK)?;
        let words = words_of(self, &texts, ascii_here)?;
        let rows: Vec<CopyRow<'_>> = (0..fresh.len())
            .map(|i| -> CopyRow<'_> {
                vec![
                    &columns.ids[i],
                    &session,
                    &columns.seqs[i],
                    &fresh[i].key,
                    &columns.times[i],
                    &columns.channels[i],
                    &columns.tags[i],
                    &columns.metas[i],
                    &fresh[i].content,
                    &words[i],
                ]
            })
            .collect();
        let added = self.copy_in(
            "COPY entries (id, session, seq, key, ts, channel, tags, meta, content, words)
             FROM STDIN (FORMAT binary)",
            // The words are a tsvector's own binary form: a binary COPY names no types, and
            // the column reads the bytes as its type.
            &[
                Type::INT8,
                Type::INT4,
                Type::INT8,
                Type::TEXT,
                Type::TEXT,
                Type::TEXT,
                Type::TEXT,
                Type::TEXT,
                Type::TEXT,
                Type::BYTEA,
            ],
            &rows,
        )?;
        usize::try_from(added).map_err(|_| Error::internal("more entries added than given"))
    }

    fn write_summary(&self, rowid: i64, text: Option<&str>) -> Result<usize> {
        let Ok(rowid) = i32::try_from(rowid) else {
            return Ok(0);
        };
        let changed = self.execute(
            "UPDATE sessions SET summary = $2 WHERE rowid = $1",
            &[&rowid, &text],
        )?;
        Ok(usize::try_from(changed).unwrap_or(usize::MAX))
    }

    /// The words follow the tags (they are the entry's words with its content's).
    fn write_tags(&self, id: i64, tags: &str) -> Result<usize> {
        let Some(row) = self.query_opt(
            "SELECT content FROM entries WHERE id = $1 AND tags IS DISTINCT FROM $2",
            &[&id, &tags],
        )?
        else {
            return Ok(0);
        };
        let content: String = column(&row, 0)?;
        let changed = self.execute(
            &format!(
                "UPDATE entries SET tags = $2, words = {} WHERE id = $1",
                words_sql("$3", "$4")
            ),
            &[&id, &tags, &indexed_text(&content), &indexed_text(tags)],
        )?;
        Ok(usize::try_from(changed).unwrap_or(usize::MAX))
    }

    fn entry_exists(&self, id: i64) -> Result<bool> {
        Ok(self
            .query_opt("SELECT 1 FROM entries WHERE id = $1", &[&id])?
            .is_some())
    }

    fn delete_session(&self, rowid: i64) -> Result<()> {
        let (first, last) = session_range(rowid);
        self.execute(
            "DELETE FROM entries WHERE id BETWEEN $1 AND $2",
            &[&first, &last],
        )?;
        self.execute(
            "DELETE FROM sessions WHERE rowid = $1",
            &[&to_rowid(rowid)?],
        )?;
        Ok(())
    }

    /// After a large load: moves the words the GIN indexes gathered in their pending lists
    /// into the indexes proper (a search reads a pending list whole, so a long one makes
    /// every search slower until autovacuum gets to it), and refreshes the planner's
    /// statistics of the memory tables, which a load of many rows leaves stale. This is what
    /// FTS5's `optimize` is to SQLite. VACUUM would do both but cannot run inside a
    /// transaction, and every change of the store is one; these two can. An index another
    /// role owns is left to autovacuum (cleaning it would be refused, and fail the
    /// transaction); ANALYZE passes over such tables with a warning by itself.
    fn compact_indexes(&self) -> Result<()> {
        self.query(
            "SELECT gin_clean_pending_list(c.oid)
             FROM pg_class c
             WHERE c.oid IN ('entries_words'::REGCLASS, 'sessions_words'::REGCLASS)
               AND pg_has_role(c.relowner, 'USAGE')",
            &[],
        )?;
        self.execute("ANALYZE sessions, entries, entry_tags", &[])?;
        Ok(())
    }

    fn load_in_bulk(&self, load: &mut dyn FnMut(&mut dyn Loader) -> Result<()>) -> Result<()> {
        load::bulk_load(self, load)
    }

    fn session_cwd(&self, rowid: i64) -> Result<Option<String>> {
        let Ok(rowid) = i32::try_from(rowid) else {
            return Ok(None);
        };
        match self.query_opt("SELECT cwd FROM sessions WHERE rowid = $1", &[&rowid])? {
            Some(row) => column(&row, 0),
            None => Ok(None),
        }
    }

    fn note_files(&self, rowid: i64, files: &[(String, Option<Time>)]) -> Result<()> {
        let rowid = to_rowid(rowid)?;
        let paths: Vec<&str> = files.iter().map(|(path, _)| path.as_str()).collect();
        let times: Vec<Option<String>> = files.iter().map(|(_, t)| time_text(*t)).collect();
        self.execute(
            "INSERT INTO session_files (session, path, changed)
             SELECT $1, f.path, f.changed FROM unnest($2::TEXT[], $3::TEXT[]) AS f (path, changed)
             ON CONFLICT (session, path) DO UPDATE SET changed = CASE
                 WHEN excluded.changed IS NOT NULL AND (session_files.changed IS NULL
                      OR excluded.changed COLLATE \"C\" > session_files.changed COLLATE \"C\")
                 THEN excluded.changed ELSE session_files.changed END",
            &[&rowid, &paths, &times],
        )?;
        Ok(())
    }
}

/// A session number as the `sessions.rowid` column holds it (the identity never hands out
/// one past 2^31 - 1: the next insert fails first).
fn to_rowid(rowid: i64) -> Result<i32> {
    i32::try_from(rowid)
        .map_err(|_| Error::internal(format!("{rowid} is not a memory session's number")))
}

/// Entries of a batch that make it part of a bulk load (a live mount adds a few at a time).
const BULK: usize = 100;

/// Before a batch, in one round trip: whether ASCII words may be cut here
/// ([`ASCII_LOWERED`]), and for a `bulk` batch, `work_mem` raised to 64 MiB and the GIN
/// pending list's limit to 32 MiB for the rest of the transaction (`work_mem` never
/// lowered). An insert moves the GIN index's pending list (4 MiB by default) into the index
/// in steps of `work_mem` (4 MiB by default): fewer, larger steps cost less per entry, and
/// a longer list moved at once less again (each word's postings are merged once per move).
/// A search meanwhile reads at most 32 MiB of pending words, and the load's end moves what
/// is left (`compact_indexes`).
fn before_batch(tx: &Tx<'_>, bulk: bool) -> Result<bool> {
    let row = tx.query_one(
        &format!(
            "SELECT {ASCII_LOWERED},
                    CASE WHEN $1 AND pg_size_bytes(current_setting('work_mem')) < pg_size_bytes('64MB')
                    THEN set_config('work_mem', '64MB', true) END,
                    CASE WHEN $1 THEN set_config('gin_pending_list_limit', '32768', true) END"
        ),
        &[&bulk],
    )?;
    column(&row, 0)
}

/// The values of a batch's entries that are not the entries' own strings, by column.
struct Columns {
    ids: Vec<i64>,
    seqs: Vec<i64>,
    times: Vec<Option<String>>,
    channels: Vec<&'static str>,
    tags: Vec<String>,
    metas: Vec<String>,
}

impl Columns {
    fn with_capacity(n: usize) -> Columns {
        Columns {
            ids: Vec::with_capacity(n),
            seqs: Vec::with_capacity(n),
            times: Vec::with_capacity(n),
            channels: Vec::with_capacity(n),
            tags: Vec::with_capacity(n),
            metas: Vec::with_capacity(n),
        }
    }

    /// Adds `entry` (checked by `../write.rs`) as seq `seq` of session `rowid`.
    fn push(&mut self, rowid: i64, seq: i64, entry: &EntryRecord) -> Result<()> {
        let meta = entry.meta.to_string();
        self.ids.push(entry_id(rowid, seq));
        self.seqs.push(seq);
        self.times.push(time_text(entry.ts));
        self.channels.push(entry.channel.as_str());
        self.tags.push(tags_json(&entry.tags)?);
        self.metas.push(meta);
        Ok(())
    }
}
