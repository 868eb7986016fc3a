//! Reading memory: sessions by day and by id, a session's entries in seq order, its
//! channels and tags, the tag index, and the store's counts. Each read is one indexed
//! statement (a range of a session's entry numbers, an index on day or tag) or a counter the
//! schema's triggers keep, so no read grows with the number of entries stored.

use rusqlite::{Connection, OptionalExtension, params};

use crate::error::Result;
use crate::model::transcript::Channel;
use crate::store::memory::records::{EntryRow, MemoryReads, SessionRow, Stats};
use crate::store::memory::stored::{SESSION_WIDTH, channel_of, entry_at, session_at};
use crate::store::memory::{MAX_SEQ, count, entry_id, session_range};
use crate::store::row::sqlite_rows;

/// The columns of a [`SessionRow`], in the order `stored.rs` reads them.
pub(super) const SESSION_COLUMNS: &str = "s.rowid, s.id, s.source, s.started, s.ended, s.title,
    s.cwd, s.model, s.continuation_of, s.day, s.entry_count, s.summary";

/// The columns of an [`EntryRow`], in the order `stored.rs` reads them.
pub(super) const ENTRY_COLUMNS: &str = "e.seq, e.key, e.ts, e.channel, e.content, e.tags, e.meta";

/// Every session row `rows` holds.
fn sessions_from(rows: rusqlite::Rows<'_>) -> Result<Vec<SessionRow>> {
    sqlite_rows(rows, |r| session_at(r, 0))
}

/// A limit as SQL text: written into statements, not bound, because with SQLite's STAT4 a
/// bound limit re-prepares the statement on every run. Limits come from our own code (a few
/// values), so the statement cache holds them all.
pub(super) fn sql_limit(limit: usize) -> i64 {
    i64::try_from(limit).unwrap_or(i64::MAX)
}

impl MemoryReads for Connection {
    /// Days that have sessions, newest first, with how many each has.
    fn days(&self) -> Result<Vec<(String, usize)>> {
        let mut statement = self
            .prepare_cached("SELECT day, count(*) FROM sessions GROUP BY day ORDER BY day DESC")?;
        let rows = statement.query_map([], |r| Ok((r.get(0)?, count(r.get(1)?))))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The sessions of `day`, in start order (sessions without a start first).
    fn sessions_on(&self, day: &str) -> Result<Vec<SessionRow>> {
        let sql = format!(
            "SELECT {SESSION_COLUMNS} FROM sessions s WHERE s.day = ?1 ORDER BY s.started, s.rowid"
        );
        sessions_from(self.prepare_cached(&sql)?.query([day])?)
    }

    /// The session whose directory is named `id`.
    fn session(&self, id: &str) -> Result<Option<SessionRow>> {
        let sql = format!("SELECT {SESSION_COLUMNS} FROM sessions s WHERE s.id = ?1");
        let mut statement = self.prepare_cached(&sql)?;
        let mut rows = statement.query([id])?;
        rows.next()?.map(|r| session_at(r, 0)).transpose()
    }

    /// The session numbered `rowid`.
    fn session_by_rowid(&self, rowid: i64) -> Result<Option<SessionRow>> {
        let sql = format!("SELECT {SESSION_COLUMNS} FROM sessions s WHERE s.rowid = ?1");
        let mut statement = self.prepare_cached(&sql)?;
        let mut rows = statement.query([rowid])?;
        rows.next()?.map(|r| session_at(r, 0)).transpose()
    }

    /// The `limit` most recent sessions, newest first (by day, then start).
    fn recent_sessions(&self, limit: usize) -> Result<Vec<SessionRow>> {
        let sql = format!(
            "SELECT {SESSION_COLUMNS} FROM sessions s
         ORDER BY s.day DESC, s.started DESC, s.rowid DESC LIMIT {}",
            sql_limit(limit)
        );
        sessions_from(self.prepare_cached(&sql)?.query([])?)
    }

    /// Up to `limit` entries of session `session_rowid` with a seq above `after_seq`, in seq
    /// order (page through a session with the last seq seen), each handed to `each` as it
    /// is read.
    fn each_entry(
        &self,
        session_rowid: i64,
        after_seq: i64,
        limit: usize,
        each: &mut dyn FnMut(EntryRow) -> Result<()>,
    ) -> Result<()> {
        let (_, last) = session_range(session_rowid);
        let first = entry_id(session_rowid, after_seq.clamp(0, MAX_SEQ)) + 1;
        let sql = format!(
            "SELECT {ENTRY_COLUMNS} FROM entries e WHERE e.id BETWEEN ?1 AND ?2 ORDER BY e.id LIMIT {}",
            sql_limit(limit)
        );
        let mut statement = self.prepare_cached(&sql)?;
        let mut rows = statement.query(params![first, last])?;
        while let Some(row) = rows.next()? {
            each(entry_at(row, 0)?)?;
        }
        Ok(())
    }

    /// Entry `seq` of session `session_rowid`.
    fn entry(&self, session_rowid: i64, seq: i64) -> Result<Option<EntryRow>> {
        if !(1..=MAX_SEQ).contains(&seq) {
            return Ok(None);
        }
        let sql = format!("SELECT {ENTRY_COLUMNS} FROM entries e WHERE e.id = ?1");
        let mut statement = self.prepare_cached(&sql)?;
        let mut rows = statement.query([entry_id(session_rowid, seq)])?;
        rows.next()?.map(|r| entry_at(r, 0)).transpose()
    }

    /// How many entries of session `session_rowid` each channel has, in [`Channel::ALL`]
    /// order; channels without entries are left out.
    fn channel_counts(&self, session_rowid: i64) -> Result<Vec<(Channel, usize)>> {
        let mut statement = self.prepare_cached(
            "SELECT channel, n FROM session_channels WHERE session = ?1 AND n > 0",
        )?;
        let mut counts = sqlite_rows(statement.query([session_rowid])?, |r| {
            let name: String = r.get(0)?;
            Ok((channel_of(&name)?, count(r.get(1)?)))
        })?;
        counts.sort();
        Ok(counts)
    }

    /// The tags of session `session_rowid`'s entries, with how many entries have each; most
    /// used first, then by name.
    fn session_tags(&self, session_rowid: i64) -> Result<Vec<(String, usize)>> {
        let (first, last) = session_range(session_rowid);
        let mut statement = self.prepare_cached(
            "SELECT tag, count(*) FROM entry_tags WHERE entry BETWEEN ?1 AND ?2
         GROUP BY tag ORDER BY count(*) DESC, tag",
        )?;
        let rows =
            statement.query_map(params![first, last], |r| Ok((r.get(0)?, count(r.get(1)?))))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Every tag in use, by name, with how many entries have it.
    fn tags(&self) -> Result<Vec<(String, usize)>> {
        let mut statement = self.prepare_cached("SELECT tag, n FROM memory_tags ORDER BY tag")?;
        let rows = statement.query_map([], |r| Ok((r.get(0)?, count(r.get(1)?))))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The `limit` most recently stored entries tagged `tag`, newest first, each with its
    /// session, and how many entries have the tag in all.
    fn tagged(&self, tag: &str, limit: usize) -> Result<(Vec<(SessionRow, EntryRow)>, usize)> {
        let total: Option<i64> = self
            .prepare_cached("SELECT n FROM memory_tags WHERE tag = ?1")?
            .query_row([tag], |r| r.get(0))
            .optional()?;
        let sql = format!(
            "SELECT {SESSION_COLUMNS}, {ENTRY_COLUMNS}
         FROM entry_tags t JOIN entries e ON e.id = t.entry JOIN sessions s ON s.rowid = e.session
         WHERE t.tag = ?1 ORDER BY t.entry DESC LIMIT {}",
            sql_limit(limit)
        );
        let mut statement = self.prepare_cached(&sql)?;
        let rows = sqlite_rows(statement.query([tag])?, |r| {
            Ok((session_at(r, 0)?, entry_at(r, SESSION_WIDTH)?))
        })?;
        Ok((rows, count(total.unwrap_or(0))))
    }

    /// The store's counts, from the counters the triggers keep and the ends of the day index.
    fn stats(&self) -> Result<Stats> {
        let mut stats = Stats::default();
        let mut statement = self.prepare_cached("SELECT name, n FROM memory_counts")?;
        let rows = statement.query_map([], |r| Ok((r.get::<_, String>(0)?, count(r.get(1)?))))?;
        for row in rows {
            match row? {
                (name, n) if name == "sessions" => stats.sessions = n,
                (name, n) if name == "entries" => stats.entries = n,
                _ => {}
            }
        }
        (stats.first_day, stats.last_day) = self
            .prepare_cached("SELECT min(day), max(day) FROM sessions")?
            .query_row([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        let mut statement =
            self.prepare_cached("SELECT source, n FROM memory_sources ORDER BY n DESC, source")?;
        let rows = statement.query_map([], |r| Ok((r.get(0)?, count(r.get(1)?))))?;
        stats.sources = rows.collect::<rusqlite::Result<_>>()?;
        Ok(stats)
    }
}

#[cfg(test)]
mod tests {
    //! The behaviour of reads, through [`crate::store::memory::MemoryRecords`], on every
    //! backend.

    use std::time::SystemTime;

    use super::*;
    use crate::error::Error;
    use crate::model::time::rfc3339_of;
    use crate::model::transcript::Transcript;
    use crate::store::Store;
    use crate::store::memory::testing::{self as t, assert_consistent, at, time, with_tags};
    use crate::store::testing::for_each_backend;

    /// Three sessions over two days; `b` has tagged entries of several channels.
    fn sample(store: &Store) {
        let mut b = t::session("b", Some("2026-11-20T15:00:00Z"), "Second");
        b.source = "claude-code".into();
        let transcript = Transcript {
            sessions: vec![
                (
                    t::session("a", Some("2026-11-20T09:00:00Z"), "First"),
                    vec![t::entry("a1", Channel::User, "hello")],
                ),
                (
                    b,
                    vec![
                        with_tags(t::entry("b1", Channel::User, "one"), &["x", "y"]),
                        with_tags(t::entry("b2", Channel::ToolCall, "two"), &["x"]),
                        at(
                            t::entry("b3", Channel::User, "three"),
                            "2026-11-20T15:30:00Z",
                        ),
                    ],
                ),
                (
                    t::session("c", Some("2026-11-21T08:00:00Z"), "Third"),
                    vec![with_tags(
                        t::entry("c1", Channel::Assistant, "four"),
                        &["x"],
                    )],
                ),
            ],
        };
        store.change_memory(|m| m.import(&transcript)).unwrap();
    }

    fn ids(rows: &[SessionRow]) -> Vec<&str> {
        rows.iter().map(|r| r.record.id.as_str()).collect()
    }

    #[test]
    fn sessions_by_day_and_recency() {
        for_each_backend(|store| {
            sample(&store);
            store
                .memory(|m| {
                    assert_eq!(
                        m.days()?,
                        [("2026-11-21".into(), 1), ("2026-11-20".into(), 2)]
                    );
                    assert_eq!(ids(&m.sessions_on("2026-11-20")?), ["a", "b"]);
                    assert!(m.sessions_on("2026-01-01")?.is_empty());
                    assert_eq!(ids(&m.recent_sessions(2)?), ["c", "b"]);
                    assert_eq!(ids(&m.recent_sessions(0)?), Vec::<&str>::new());
                    let b = m.session("b")?.unwrap();
                    assert_eq!((b.entries, b.width(), b.summary.as_deref()), (3, 4, None));
                    assert_eq!(b.record.source, "claude-code");
                    assert_eq!(
                        (b.record.started, b.record.ended),
                        (time("2026-11-20T15:00:00Z"), time("2026-11-20T15:30:00Z"))
                    );
                    assert_eq!(m.session_by_rowid(b.rowid)?.unwrap(), b);
                    assert!(m.session_by_rowid(i64::MAX)?.is_none());
                    assert!(m.session("zzz")?.is_none());
                    Ok(())
                })
                .unwrap();
        });
    }

    /// A session without a start sorts first in its day and last among the most recent,
    /// as SQLite sorts a missing value (PostgreSQL's own default is the other way round).
    #[test]
    fn sessions_without_a_start_sort_as_sqlite_sorts_them() {
        for_each_backend(|store| {
            let today = rfc3339_of(SystemTime::now())[..10].to_string();
            let timed = t::session("timed", Some(&format!("{today}T00:00:01Z")), "");
            let untimed = t::session("untimed", None, "");
            store
                .change_memory(|m| {
                    m.create_session(&timed)?;
                    m.create_session(&untimed)
                })
                .unwrap();
            store
                .memory(|m| {
                    assert_eq!(ids(&m.sessions_on(&today)?), ["untimed", "timed"]);
                    assert_eq!(ids(&m.recent_sessions(5)?), ["timed", "untimed"]);
                    Ok(())
                })
                .unwrap();
        });
    }

    #[test]
    fn entries_page_in_seq_order() {
        for_each_backend(|store| {
            sample(&store);
            store
                .memory(|m| {
                    let b = m.session("b")?.unwrap();
                    let seqs = |rows: Vec<EntryRow>| rows.iter().map(|e| e.seq).collect::<Vec<_>>();
                    assert_eq!(seqs(m.entries(b.rowid, 0, 10)?), [1, 2, 3]);
                    assert_eq!(seqs(m.entries(b.rowid, 1, 1)?), [2]);
                    assert_eq!(seqs(m.entries(b.rowid, 3, 10)?), Vec::<i64>::new());
                    assert_eq!(seqs(m.entries(b.rowid, -5, 1)?), [1]);
                    assert_eq!(seqs(m.entries(b.rowid, i64::MAX, 1)?), Vec::<i64>::new());
                    let two = m.entry(b.rowid, 2)?.unwrap();
                    assert_eq!(
                        (two.record.key.as_str(), two.record.channel),
                        ("b2", Channel::ToolCall)
                    );
                    assert_eq!(two.record.tags, ["x"]);
                    assert_eq!(two.record.meta, serde_json::json!({}));
                    assert_eq!(two.record.content, "two");
                    let three = m.entry(b.rowid, 3)?.unwrap();
                    assert_eq!(three.record.ts, time("2026-11-20T15:30:00Z"));
                    assert!(m.entry(b.rowid, 4)?.is_none());
                    assert!(m.entry(b.rowid, 0)?.is_none());
                    assert!(m.entry(b.rowid, i64::MAX)?.is_none());
                    Ok(())
                })
                .unwrap();
        });
    }

    /// A reader of a session's entries one by one (a digest) stops at its first failure,
    /// which is the read's; the rest of the answer is passed over and the store reads on.
    #[test]
    fn entries_read_one_by_one_stop_at_the_readers_failure() {
        for_each_backend(|store| {
            sample(&store);
            let b = store.memory(|m| m.session("b")).unwrap().unwrap();
            let mut seen = Vec::new();
            let stopped = store.memory(|m| {
                m.each_entry(b.rowid, 0, 10, &mut |entry| {
                    seen.push(entry.seq);
                    match entry.seq {
                        2 => Err(Error::invalid("enough")),
                        _ => Ok(()),
                    }
                })
            });
            assert_eq!(stopped.unwrap_err().message, "enough");
            assert_eq!(seen, [1, 2], "nothing handed over after the failure");
            let again = store.memory(|m| m.entries(b.rowid, 0, 10)).unwrap();
            assert_eq!(again.len(), 3, "the next read is answered whole");
            assert_eq!(again[2].record.content, "three");
        });
    }

    /// What reading an entry's file asks for: its session, and the entry if there is one.
    #[test]
    fn an_entry_comes_with_its_session() {
        for_each_backend(|store| {
            sample(&store);
            store
                .memory(|m| {
                    let b = m.session("b")?.unwrap();
                    let (session, two) = m.session_entry("b", 2)?.unwrap();
                    assert_eq!(session, b);
                    assert_eq!(two, m.entry(b.rowid, 2)?);
                    for missing in [0, 4, -1, i64::MAX] {
                        assert_eq!(m.session_entry("b", missing)?, Some((b.clone(), None)));
                    }
                    assert_eq!(m.session_entry("zzz", 1)?, None);
                    Ok(())
                })
                .unwrap();
        });
    }

    #[test]
    fn channels_tags_and_stats_come_from_counters() {
        for_each_backend(|store| {
            sample(&store);
            store
                .memory(|m| {
                    let b = m.session("b")?.unwrap();
                    assert_eq!(
                        m.channel_counts(b.rowid)?,
                        [(Channel::User, 2), (Channel::ToolCall, 1)]
                    );
                    assert_eq!(m.session_tags(b.rowid)?, [("x".into(), 2), ("y".into(), 1)]);
                    assert_eq!(m.tags()?, [("x".into(), 3), ("y".into(), 1)]);
                    let (rows, total) = m.tagged("x", 2)?;
                    assert_eq!(total, 3);
                    let found: Vec<(&str, i64)> = rows
                        .iter()
                        .map(|(s, e)| (s.record.id.as_str(), e.seq))
                        .collect();
                    assert_eq!(found, [("c", 1), ("b", 2)]);
                    assert_eq!(m.tagged("nope", 5)?, (Vec::new(), 0));
                    let s = m.stats()?;
                    assert_eq!((s.sessions, s.entries), (3, 5));
                    assert_eq!(s.first_day.as_deref(), Some("2026-11-20"));
                    assert_eq!(s.last_day.as_deref(), Some("2026-11-21"));
                    assert_eq!(s.sources, [("jsonl".into(), 2), ("claude-code".into(), 1)]);
                    Ok(())
                })
                .unwrap();
            assert_eq!(store.memory(|m| m.stats()).unwrap().sources.len(), 2);
            let b = store.memory(|m| m.session("b")).unwrap().unwrap();
            store
                .change_memory(|m| m.set_summary(b.rowid, Some("# Summary")))
                .unwrap();
            let b = store.memory(|m| m.session("b")).unwrap().unwrap();
            assert_eq!(b.summary.as_deref(), Some("# Summary"));
            assert_consistent(&store);
        });
    }

    #[test]
    fn an_empty_store_has_nothing_to_count() {
        for_each_backend(|store| {
            store
                .memory(|m| {
                    assert_eq!(m.stats()?, Stats::default());
                    assert!(m.days()?.is_empty() && m.tags()?.is_empty());
                    assert!(m.recent_sessions(5)?.is_empty());
                    assert!(m.channel_counts(1)?.is_empty() && m.session_tags(1)?.is_empty());
                    Ok(())
                })
                .unwrap();
        });
    }

    /// Text is ordered by its bytes on every backend: upper case before lower.
    #[test]
    fn tags_are_listed_in_byte_order() {
        for_each_backend(|store| {
            let transcript = Transcript {
                sessions: vec![(
                    t::session("a", Some("2026-11-20T09:00:00Z"), "First"),
                    vec![with_tags(
                        t::entry("a1", Channel::User, "hello"),
                        &["beta", "Zeta", "alpha", "_x"],
                    )],
                )],
            };
            store.change_memory(|m| m.import(&transcript)).unwrap();
            let names =
                |tags: Vec<(String, usize)>| tags.into_iter().map(|(t, _)| t).collect::<Vec<_>>();
            let rowid = store.memory(|m| m.session("a")).unwrap().unwrap().rowid;
            let order = ["Zeta", "_x", "alpha", "beta"];
            assert_eq!(names(store.memory(|m| m.tags()).unwrap()), order);
            assert_eq!(
                names(store.memory(|m| m.session_tags(rowid)).unwrap()),
                order
            );
        });
    }
}
