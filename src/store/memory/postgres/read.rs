//! Reading memory on PostgreSQL ([`MemoryReads`]): SQLite's reads (`../sqlite/read.rs`) in PostgreSQL's words, each
//! one indexed statement or a counter the schema's triggers keep, so no read grows with the
//! number of entries stored. Text is ordered by bytes (`COLLATE "C"`) and missing start
//! times sort as SQLite sorts them (first going up, last going down), so both backends list
//! the same things in the same order.

use postgres::Row;
use postgres::types::FromSql;

use crate::error::{Error, Result};
use crate::model::transcript::Channel;
use crate::store::memory::records::{EntryRow, MemoryReads, SessionRow, Stats};
use crate::store::memory::stored::{SESSION_WIDTH, channel_of, entry_at, session_at};
use crate::store::memory::{MAX_SEQ, count, entry_id, entry_id_sql, session_range};
use crate::store::postgres::Tx;

/// The columns of a [`SessionRow`], in the order `stored.rs` reads them.
pub(super) const SESSION_COLUMNS: &str = "s.rowid::BIGINT, s.id, s.source, s.started, s.ended,
    s.title, s.cwd, s.model, s.continuation_of, s.day, s.entry_count::BIGINT, s.summary";

/// The columns of an [`EntryRow`], in the order `stored.rs` reads them.
pub(super) const ENTRY_COLUMNS: &str = "e.seq, e.key, e.ts, e.channel, e.content, e.tags, e.meta";

/// Column `at` of `row`. A column of an unexpected type is a fault of these statements, and
/// is reported as one rather than a panic in the middle of a request.
pub(super) fn column<'r, T: FromSql<'r>>(row: &'r Row, at: usize) -> Result<T> {
    row.try_get(at)
        .map_err(|e| Error::internal(format!("reading memory from PostgreSQL: column {at}: {e}")))
}

/// A limit as a bound parameter.
fn limit_of(limit: usize) -> i64 {
    i64::try_from(limit).unwrap_or(i64::MAX)
}

fn sessions_from(rows: &[Row]) -> Result<Vec<SessionRow>> {
    rows.iter().map(|r| session_at(r, 0)).collect()
}

/// `(name, n)` pairs from two columns, text and count.
fn counted(rows: &[Row]) -> Result<Vec<(String, usize)>> {
    rows.iter()
        .map(|r| Ok((column(r, 0)?, count(column(r, 1)?))))
        .collect()
}

impl MemoryReads for Tx<'_> {
    /// Days that have sessions, newest first, with how many each has.
    fn days(&self) -> Result<Vec<(String, usize)>> {
        let rows = self.query(
            "SELECT day, count(*) FROM sessions GROUP BY day ORDER BY day COLLATE \"C\" DESC",
            &[],
        )?;
        counted(&rows)
    }

    /// The sessions of `day`, in start order (sessions without a start first).
    fn sessions_on(&self, day: &str) -> Result<Vec<SessionRow>> {
        let sql = format!(
            "SELECT {SESSION_COLUMNS} FROM sessions s WHERE s.day = $1
         ORDER BY s.started COLLATE \"C\" NULLS FIRST, s.rowid"
        );
        sessions_from(&self.query(&sql, &[&day])?)
    }

    /// The session whose directory is named `id`.
    fn session(&self, id: &str) -> Result<Option<SessionRow>> {
        let sql = format!("SELECT {SESSION_COLUMNS} FROM sessions s WHERE s.id = $1");
        self.query_opt(&sql, &[&id])?
            .map(|r| session_at(&r, 0))
            .transpose()
    }

    /// The session numbered `rowid`.
    fn session_by_rowid(&self, rowid: i64) -> Result<Option<SessionRow>> {
        // A number past the column's range names no session (and must not fail the cast).
        let Ok(rowid) = i32::try_from(rowid) else {
            return Ok(None);
        };
        let sql = format!("SELECT {SESSION_COLUMNS} FROM sessions s WHERE s.rowid = $1");
        self.query_opt(&sql, &[&rowid])?
            .map(|r| session_at(&r, 0))
            .transpose()
    }

    /// The `limit` most recent sessions, newest first (by day, then start).
    fn recent_sessions(&self, limit: usize) -> Result<Vec<SessionRow>> {
        let sql = format!(
            "SELECT {SESSION_COLUMNS} FROM sessions s
         ORDER BY s.day COLLATE \"C\" DESC, s.started COLLATE \"C\" DESC NULLS LAST,
                  s.rowid DESC
         LIMIT $1"
        );
        sessions_from(&self.query(&sql, &[&limit_of(limit)])?)
    }

    /// Up to `limit` entries of session `session` with a seq above `after_seq`, in seq order
    /// (a range of entry numbers), each handed to `each` as its row arrives.
    fn each_entry(
        &self,
        session: i64,
        after_seq: i64,
        limit: usize,
        each: &mut dyn FnMut(EntryRow) -> Result<()>,
    ) -> Result<()> {
        let (_, last) = session_range(session);
        let first = entry_id(session, after_seq.clamp(0, MAX_SEQ)) + 1;
        let sql = format!(
            "SELECT {ENTRY_COLUMNS} FROM entries e WHERE e.id BETWEEN $1 AND $2
         ORDER BY e.id LIMIT $3"
        );
        self.for_each_row(&sql, &[&first, &last, &limit_of(limit)], &mut |row| {
            each(entry_at(row, 0)?)
        })
    }

    /// Entry `seq` of session `session`.
    fn entry(&self, session: i64, seq: i64) -> Result<Option<EntryRow>> {
        if !(1..=MAX_SEQ).contains(&seq) {
            return Ok(None);
        }
        let sql = format!("SELECT {ENTRY_COLUMNS} FROM entries e WHERE e.id = $1");
        self.query_opt(&sql, &[&entry_id(session, seq)])?
            .map(|r| entry_at(&r, 0))
            .transpose()
    }

    /// The session named `id` and its entry `seq`, in one statement: reading an entry's
    /// file is one round trip, not one for the session and another for the entry.
    fn session_entry(&self, id: &str, seq: i64) -> Result<Option<(SessionRow, Option<EntryRow>)>> {
        if !(1..=MAX_SEQ).contains(&seq) {
            return Ok(self.session(id)?.map(|row| (row, None)));
        }
        let sql = format!(
            "SELECT {SESSION_COLUMNS}, {ENTRY_COLUMNS} FROM sessions s
         LEFT JOIN entries e ON e.id = {}
         WHERE s.id = $1",
            entry_id_sql("s.rowid::BIGINT", "$2")
        );
        let Some(found) = self.query_opt(&sql, &[&id, &seq])? else {
            return Ok(None);
        };
        let session = session_at(&found, 0)?;
        let seq: Option<i64> = column(&found, SESSION_WIDTH)?;
        let entry = seq.map(|_| entry_at(&found, SESSION_WIDTH)).transpose()?;
        Ok(Some((session, entry)))
    }

    /// How many entries of `session` each channel has, in [`Channel::ALL`] order; channels
    /// without entries are left out (a forgotten count stays at 0 until its session goes).
    fn channel_counts(&self, session: i64) -> Result<Vec<(Channel, usize)>> {
        let Ok(session) = i32::try_from(session) else {
            return Ok(Vec::new());
        };
        let rows = self.query(
            "SELECT channel, n FROM session_channels WHERE session = $1 AND n > 0",
            &[&session],
        )?;
        let mut counts = rows
            .iter()
            .map(|r| {
                let name: String = column(r, 0)?;
                Ok((channel_of(&name)?, count(column(r, 1)?)))
            })
            .collect::<Result<Vec<_>>>()?;
        counts.sort();
        Ok(counts)
    }

    /// The tags of `session`'s entries with how many entries have each; most used first, then
    /// by name.
    fn session_tags(&self, session: i64) -> Result<Vec<(String, usize)>> {
        let (first, last) = session_range(session);
        let rows = self.query(
            "SELECT tag, count(*) FROM entry_tags WHERE entry BETWEEN $1 AND $2
         GROUP BY tag ORDER BY count(*) DESC, tag COLLATE \"C\"",
            &[&first, &last],
        )?;
        counted(&rows)
    }

    /// Every tag in use, by name, with how many entries have it.
    fn tags(&self) -> Result<Vec<(String, usize)>> {
        let rows = self.query(
            "SELECT tag, n FROM memory_tags ORDER BY tag COLLATE \"C\"",
            &[],
        )?;
        counted(&rows)
    }

    /// The `limit` most recently stored entries tagged `tag`, newest first, each with its
    /// session, and how many entries have the tag in all.
    fn tagged(&self, tag: &str, limit: usize) -> Result<(Vec<(SessionRow, EntryRow)>, usize)> {
        let total: i64 =
            match self.query_opt("SELECT n FROM memory_tags WHERE tag = $1", &[&tag])? {
                Some(row) => column(&row, 0)?,
                None => 0,
            };
        let sql = format!(
            "SELECT {SESSION_COLUMNS}, {ENTRY_COLUMNS}
         FROM entry_tags t JOIN entries e ON e.id = t.entry JOIN sessions s ON s.rowid = e.session
         WHERE t.tag = $1 ORDER BY t.entry DESC LIMIT $2"
        );
        let rows = self
            .query(&sql, &[&tag, &limit_of(limit)])?
            .iter()
            .map(|r| Ok((session_at(r, 0)?, entry_at(r, SESSION_WIDTH)?)))
            .collect::<Result<_>>()?;
        Ok((rows, count(total)))
    }

    /// The store's counts, from the counters the triggers keep and the ends of the day index.
    fn stats(&self) -> Result<Stats> {
        let mut stats = Stats::default();
        for row in self.query("SELECT name, n FROM memory_counts", &[])? {
            let (name, n): (String, i64) = (column(&row, 0)?, column(&row, 1)?);
            match name.as_str() {
                "sessions" => stats.sessions = count(n),
                "entries" => stats.entries = count(n),
                _ => {}
            }
        }
        let ends = self.query_one(
            "SELECT min(day COLLATE \"C\"), max(day COLLATE \"C\") FROM sessions",
            &[],
        )?;
        (stats.first_day, stats.last_day) = (column(&ends, 0)?, column(&ends, 1)?);
        let rows = self.query(
            "SELECT source, n FROM memory_sources ORDER BY n DESC, source COLLATE \"C\"",
            &[],
        )?;
        stats.sources = counted(&rows)?;
        Ok(stats)
    }
}
