//! Test data for memory: records made short; and what tests need of either backend beyond
//! [`super::MemoryRecords`]: a recount of every counter against the rows
//! ([`assert_consistent`]) and plain SQL both backends take.

use crate::model::SessionId;
use crate::model::time::Time;
use crate::model::transcript::{Channel, EntryRecord, SessionRecord};
use crate::store::{Backend, Store};

/// The time written `text`, as a record holds it.
pub(crate) fn time(text: &str) -> Option<Time> {
    Some(Time::parse(text).unwrap())
}

pub(crate) fn session(id: &str, started: Option<&str>, title: &str) -> SessionRecord {
    SessionRecord {
        // As given: the store checks ids itself, and tests of that hand it bad ones.
        id: SessionId::stored(id.to_string()),
        source: "jsonl".into(),
        started: started.and_then(time),
        ended: None,
        title: title.into(),
        cwd: None,
        model: None,
        continuation_of: None,
        resumes_by_copy: true,
        lesser_titles: Vec::new(),
    }
}

pub(crate) fn entry(key: &str, channel: Channel, content: &str) -> EntryRecord {
    EntryRecord {
        key: key.into(),
        ts: None,
        channel,
        content: content.into(),
        tags: Vec::new(),
        meta: crate::model::Meta::default(),
    }
}

/// A Claude Code `Edit` call of `path`: an entry that changes a file.
pub(crate) fn edit(key: &str, path: &str) -> EntryRecord {
    let mut call = entry(
        key,
        Channel::ToolCall,
        &format!(r#"Edit {{"file_path":"{path}"}}"#),
    );
    call.meta = serde_json::json!({"tool": "Edit"}).try_into().unwrap();
    call
}

pub(crate) fn at(mut entry: EntryRecord, ts: &str) -> EntryRecord {
    entry.ts = time(ts);
    entry
}

pub(crate) fn with_tags(mut entry: EntryRecord, tags: &[&str]) -> EntryRecord {
    entry.tags = tags.iter().map(|t| t.to_string()).collect();
    entry
}

/// Asserts that everything the triggers keep agrees with the rows, on either backend: the
/// tag index and every counter, recounted from the rows; on SQLite also both full-text
/// indexes (FTS5's own integrity check compares an external-content index with its
/// table). PostgreSQL's words are generated columns: nothing can put them out of step.
pub(super) fn assert_consistent(store: &Store) {
    match &store.backend {
        Backend::Sqlite(_) => store
            .read(|conn| {
                check_sqlite(conn);
                Ok(())
            })
            .unwrap(),
        Backend::Postgres(pg) => pg
            .read(|tx| {
                check_postgres(tx);
                Ok(())
            })
            .unwrap(),
    }
}

/// Runs `sql` (which both backends take) in a write transaction of `store`.
pub(super) fn execute(store: &Store, sql: &str) -> crate::error::Result<u64> {
    match &store.backend {
        Backend::Sqlite(_) => store.write(|c| Ok(c.execute(sql, [])? as u64)),
        Backend::Postgres(pg) => pg.write(|tx| tx.execute(sql, &[])),
    }
}

/// The rows of `sql` (which both backends take), two text columns each.
pub(super) fn pairs(store: &Store, sql: &str) -> Vec<(String, String)> {
    match &store.backend {
        Backend::Sqlite(_) => store
            .read(|c| {
                let mut rows = c.prepare(sql)?;
                let found = rows
                    .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
                    .collect::<rusqlite::Result<_>>()?;
                Ok(found)
            })
            .unwrap(),
        Backend::Postgres(pg) => pg
            .read(|tx| tx.query(sql, &[]))
            .unwrap()
            .iter()
            .map(|r| (r.get(0), r.get(1)))
            .collect(),
    }
}

fn check_sqlite(conn: &rusqlite::Connection) {
    conn.execute_batch(
        "INSERT INTO entries_fts (entries_fts, rank) VALUES ('integrity-check', 1);
         INSERT INTO sessions_fts (sessions_fts, rank) VALUES ('integrity-check', 1);",
    )
    .unwrap();
    let same = |label: &str, stored: &str, recounted: &str| {
        let sql = format!("SELECT ({stored}) IS ({recounted})");
        let ok: bool = conn.query_row(&sql, [], |r| r.get(0)).unwrap();
        assert!(ok, "{label}: {stored} differs from {recounted}");
    };
    same(
        "entries",
        "SELECT n FROM memory_counts WHERE name = 'entries'",
        "SELECT count(*) FROM entries",
    );
    same(
        "sessions",
        "SELECT n FROM memory_counts WHERE name = 'sessions'",
        "SELECT count(*) FROM sessions",
    );
    same(
        "entry counts",
        "SELECT group_concat(rowid || ':' || entry_count) FROM (SELECT * FROM sessions ORDER BY rowid)",
        "SELECT group_concat(rowid || ':' || n) FROM (SELECT s.rowid, count(e.id) AS n
         FROM sessions s LEFT JOIN entries e ON e.session = s.rowid GROUP BY s.rowid ORDER BY s.rowid)",
    );
    same(
        "sources",
        "SELECT group_concat(source || ':' || n) FROM (SELECT * FROM memory_sources ORDER BY source)",
        "SELECT group_concat(source || ':' || n) FROM (SELECT source, count(*) AS n FROM sessions
         GROUP BY source ORDER BY source)",
    );
    same(
        "channels",
        "SELECT group_concat(session || channel || n) FROM (SELECT * FROM session_channels
         WHERE n > 0 ORDER BY session, channel)",
        "SELECT group_concat(session || channel || n) FROM (SELECT session, channel, count(*) AS n
         FROM entries GROUP BY session, channel ORDER BY session, channel)",
    );
    same(
        "tag index",
        "SELECT group_concat(tag || entry) FROM (SELECT * FROM entry_tags ORDER BY tag, entry)",
        "SELECT group_concat(tag || entry) FROM (SELECT DISTINCT j.value AS tag, e.id AS entry
         FROM entries e, json_each(e.tags) j ORDER BY tag, entry)",
    );
    same(
        "tag counts",
        "SELECT group_concat(tag || n) FROM (SELECT * FROM memory_tags ORDER BY tag)",
        "SELECT group_concat(tag || n) FROM (SELECT tag, count(*) AS n FROM entry_tags
         GROUP BY tag ORDER BY tag)",
    );
}

/// The same recounts as [`check_sqlite`], in PostgreSQL's words, each list joined into one
/// text in a fixed (byte) order so that any difference shows.
fn check_postgres(tx: &crate::store::postgres::Tx<'_>) {
    let same = |label: &str, stored: &str, recounted: &str| {
        let sql = format!("SELECT ({stored})::TEXT, ({recounted})::TEXT");
        let row = tx.query_one(&sql, &[]).unwrap();
        let (stored, recounted): (Option<String>, Option<String>) = (row.get(0), row.get(1));
        assert_eq!(
            stored, recounted,
            "{label}: the counters differ from a recount"
        );
    };
    same(
        "entries",
        "SELECT n FROM memory_counts WHERE name = 'entries'",
        "SELECT count(*) FROM entries",
    );
    same(
        "sessions",
        "SELECT n FROM memory_counts WHERE name = 'sessions'",
        "SELECT count(*) FROM sessions",
    );
    same(
        "entry counts",
        "SELECT string_agg(rowid || ':' || entry_count, ',' ORDER BY rowid) FROM sessions",
        "SELECT string_agg(s.rowid || ':' || (SELECT count(*) FROM entries e
                                               WHERE e.session = s.rowid), ',' ORDER BY s.rowid)
         FROM sessions s",
    );
    same(
        "sources",
        "SELECT string_agg(source || ':' || n, ',' ORDER BY source COLLATE \"C\")
         FROM memory_sources",
        "SELECT string_agg(source || ':' || n, ',' ORDER BY source COLLATE \"C\")
         FROM (SELECT source, count(*) AS n FROM sessions GROUP BY source) c",
    );
    same(
        "channels",
        "SELECT string_agg(session || channel || n, ',' ORDER BY session, channel COLLATE \"C\")
         FROM session_channels WHERE n > 0",
        "SELECT string_agg(session || channel || n, ',' ORDER BY session, channel COLLATE \"C\")
         FROM (SELECT session, channel, count(*) AS n FROM entries GROUP BY session, channel) c",
    );
    same(
        "tag index",
        "SELECT string_agg(tag || ':' || entry, ',' ORDER BY tag COLLATE \"C\", entry)
         FROM entry_tags",
        "SELECT string_agg(tag || ':' || entry, ',' ORDER BY tag COLLATE \"C\", entry)
         FROM (SELECT DISTINCT t.value #>> '{}' AS tag, e.id AS entry
               FROM entries e, jsonb_array_elements(e.tags::JSONB) t
               WHERE jsonb_typeof(t.value) = 'string') c",
    );
    same(
        "tag counts",
        "SELECT string_agg(tag || ':' || n, ',' ORDER BY tag COLLATE \"C\") FROM memory_tags",
        "SELECT string_agg(tag || ':' || n, ',' ORDER BY tag COLLATE \"C\")
         FROM (SELECT tag, count(*) AS n FROM entry_tags GROUP BY tag) c",
    );
}
