//! The rows SQLite writes for memory's changes ([`WriteSql`]); which to write, and when, is
//! `../write.rs`'s. The full-text indexes, the tag index and the counters follow by the
//! triggers of `schema.sql`.

use rusqlite::{Connection, OptionalExtension, params};

use super::bulk;
use crate::error::{Error, Result};
use crate::model::time::Time;
use crate::model::transcript::SessionRecord;
use crate::store::memory::dialect::{Batch, Times, WriteSql};
use crate::store::memory::records::Loader;
use crate::store::memory::stored::time_text;
use crate::store::memory::{entry_id_sql, session_range};

impl WriteSql for Connection {
    /// Every statement that writes opens a savepoint, and FTS5 flushes its pending terms to
    /// a new index segment at each savepoint: inserting entry by entry writes (and then
    /// merges) one segment per entry, where a batch writes one.
    const BATCH: usize = 2_000;
    /// SQLite holds a statement's rows as it reads them: no bound on their bytes.
    const BATCH_BYTES: usize = usize::MAX;

    fn session_number(&self, id: &str) -> Result<Option<i64>> {
        Ok(self
            .prepare_cached("SELECT rowid FROM sessions WHERE id = ?1")?
            .query_row([id], |r| r.get(0))
            .optional()?)
    }

    fn session_name(&self, rowid: i64) -> Result<Option<String>> {
        Ok(self
            .prepare_cached("SELECT id FROM sessions WHERE rowid = ?1")?
            .query_row([rowid], |r| r.get(0))
            .optional()?)
    }

    fn alias_of(&self, alias: &str) -> Result<Option<i64>> {
        Ok(self
            .prepare_cached("SELECT session FROM session_aliases WHERE alias = ?1")?
            .query_row([alias], |r| r.get(0))
            .optional()?)
    }

    fn add_alias(&self, alias: &str, session: i64) -> Result<()> {
        self.prepare_cached("INSERT INTO session_aliases (alias, session) VALUES (?1, ?2)")?
            .execute(params![alias, session])?;
        Ok(())
    }

    /// One statement over the partial index `entries_opening_keys` of `keys.sql` for the
    /// whole batch.
    fn opening_match(&self, keys: &[&str]) -> Result<Option<i64>> {
        let keys = serde_json::to_string(keys)
            .map_err(|e| Error::internal(format!("cannot list entry keys: {e}")))?;
        Ok(self
            .prepare_cached(
                "SELECT session FROM entries
                 WHERE seq <= 32 AND key IN (SELECT value FROM json_each(?1))
                 GROUP BY session ORDER BY count(*) DESC, session LIMIT 1",
            )?
            .query_row([keys], |r| r.get(0))
            .optional()?)
    }

    fn insert_session(&self, record: &SessionRecord, times: Times, day: &str) -> Result<i64> {
        let (first, last) = (time_text(times.0), time_text(times.1));
        self.prepare_cached(
            "INSERT INTO sessions (id, source, started, ended, title, cwd, model, continuation_of, day)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        )?
        .execute(params![
            record.id.as_str(),
            record.source,
            first,
            last,
            record.title,
            record.cwd,
            record.model,
            record.continuation_of,
            day
        ])?;
        Ok(self.last_insert_rowid())
    }

    fn widen(&self, rowid: i64, record: &SessionRecord, times: Times) -> Result<()> {
        let (first, last) = (time_text(times.0), time_text(times.1));
        self.prepare_cached(
            "UPDATE sessions SET
                started = CASE WHEN ?2 IS NOT NULL AND (started IS NULL OR ?2 < started)
                          THEN ?2 ELSE started END,
                ended = CASE WHEN ?3 IS NOT NULL AND (ended IS NULL OR ?3 > ended)
                        THEN ?3 ELSE ended END,
                title = CASE WHEN title = '' OR title IN (SELECT value FROM json_each(?8))
                        THEN ?4 ELSE title END,
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
            record.continuation_of,
            serde_json::Value::from(record.lesser_titles.clone()).to_string()
        ])?;
        Ok(())
    }

    fn top_entry(&self, low: i64, high: i64) -> Result<Option<i64>> {
        Ok(self
            .prepare_cached("SELECT max(id) FROM entries WHERE id BETWEEN ?1 AND ?2")?
            .query_row(params![low, high], |r| r.get(0))?)
    }

    /// One statement over the batch as a JSON array of rows.
    fn add_entries(&self, rowid: i64, last: i64, held: bool, batch: Batch<'_>) -> Result<usize> {
        let rows: Vec<serde_json::Value> = batch
            .iter()
            .map(|e| {
                serde_json::json!([
                    e.key,
                    time_text(e.ts),
                    e.channel.as_str(),
                    e.tags,
                    e.meta,
                    e.content
                ])
            })
            .collect();
        let rows = serde_json::Value::Array(rows).to_string();
        let added = self
            .prepare_cached(&format!(
                "INSERT INTO entries (id, session, seq, key, ts, channel, tags, meta, content)
                 SELECT {}, ?1, ?2 + n, key, ts, channel, tags, meta, content
                 FROM (
                    SELECT row_number() OVER (ORDER BY j.key) AS n,
                           j.value ->> 0 AS key, j.value ->> 1 AS ts, j.value ->> 2 AS channel,
                           j.value -> 3 AS tags, j.value -> 4 AS meta, j.value ->> 5 AS content
                    FROM json_each(?3) j
                    WHERE NOT ?4 OR NOT EXISTS (
                        SELECT 1 FROM entries e WHERE e.key = j.value ->> 0 AND e.session = ?1)
                 )",
                entry_id_sql("?1", "?2 + n")
            ))?
            .execute(params![rowid, last, rows, held])?;
        Ok(added)
    }

    fn write_summary(&self, rowid: i64, text: Option<&str>) -> Result<usize> {
        Ok(self
            .prepare_cached("UPDATE sessions SET summary = ?2 WHERE rowid = ?1")?
            .execute(params![rowid, text])?)
    }

    fn write_tags(&self, id: i64, tags: &str) -> Result<usize> {
        Ok(self
            .prepare_cached("UPDATE entries SET tags = ?2 WHERE id = ?1 AND tags IS NOT ?2")?
            .execute(params![id, tags])?)
    }

    fn entry_exists(&self, id: i64) -> Result<bool> {
        Ok(self
            .prepare_cached("SELECT 1 FROM entries WHERE id = ?1")?
            .exists([id])?)
    }

    fn delete_session(&self, rowid: i64) -> Result<()> {
        let (first, last) = session_range(rowid);
        self.prepare_cached("DELETE FROM entries WHERE id BETWEEN ?1 AND ?2")?
            .execute(params![first, last])?;
        self.prepare_cached("DELETE FROM sessions WHERE rowid = ?1")?
            .execute([rowid])?;
        Ok(())
    }

    /// Merges the full-text indexes into one segment each (FTS5 `optimize`). Every import
    /// adds segments; reading a snippet walks them all, so after a bulk load searches are
    /// several times cheaper once merged. It rewrites the whole index (seconds at a million
    /// entries): for bulk loads, not for every write.
    fn compact_indexes(&self) -> Result<()> {
        self.execute_batch(
            "INSERT INTO entries_fts (entries_fts) VALUES ('optimize');
             INSERT INTO sessions_fts (sessions_fts) VALUES ('optimize');",
        )?;
        Ok(())
    }

    fn load_in_bulk(&self, load: &mut dyn FnMut(&mut dyn Loader) -> Result<()>) -> Result<()> {
        bulk::bulk_load(self, |bulk| load(bulk))
    }

    fn session_cwd(&self, rowid: i64) -> Result<Option<String>> {
        Ok(self
            .prepare_cached("SELECT cwd FROM sessions WHERE rowid = ?1")?
            .query_row([rowid], |r| r.get(0))
            .optional()?
            .flatten())
    }

    fn note_files(&self, rowid: i64, files: &[(String, Option<Time>)]) -> Result<()> {
        let mut statement = self.prepare_cached(
            "INSERT INTO session_files (session, path, changed) VALUES (?1, ?2, ?3)
             ON CONFLICT (session, path) DO UPDATE SET changed = CASE
                 WHEN excluded.changed IS NOT NULL
                      AND (changed IS NULL OR excluded.changed > changed)
                 THEN excluded.changed ELSE changed END",
        )?;
        for (path, changed) in files {
            statement.execute(params![rowid, path, time_text(*changed)])?;
        }
        Ok(())
    }
}
