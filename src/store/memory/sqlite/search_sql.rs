//! What memory search asks of SQLite's FTS5 indexes ([`SearchSql`]); `../bounded_search.rs`
//! orders, bounds and notes the answers. Words go to FTS5 quoted, never as syntax (the
//! expression `query.rs` builds), and are ranked by `bm25()`, negated so that higher is
//! better, with column weights saying a word in a tag or a title says more than one in a
//! long text. Snippets are FTS5's own.

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use rusqlite::types::Value;
use rusqlite::{Connection, OptionalExtension, params, params_from_iter};

use crate::error::Result;
use crate::model::Meta;
use crate::model::transcript::Channel;
use crate::store::memory::bounded_search::{entry_conditions, has_days, session_conditions};
use crate::store::memory::dialect::{
    Filtered, Hit, Ranked, ScanRow, SearchSql, SessionText, Visit, said_sql,
};
use crate::store::memory::query::Query;
use crate::store::memory::records::MemoryHit;
use crate::store::memory::scan::excerpt;
use crate::store::memory::span::Span;
use crate::store::memory::stored::channel_of;
use crate::store::memory::{count, split_entry_id, width};

/// Tokens in a snippet.
const SNIPPET_TOKENS: usize = 12;
/// bm25 weights of the entry columns (content, tags) and session columns (title, summary).
const ENTRY_WEIGHTS: &str = "1.0, 2.0";
const SESSION_WEIGHTS: &str = "2.0, 1.0";

/// A binder of values to `?n` placeholders, for statements whose text varies.
/// The tool an entry's meta names, in SQL.
fn meta_tool() -> String {
    format!("json_extract(e.meta, '$.{}')", Meta::TOOL)
}

fn binder(values: &mut Vec<Value>) -> impl FnMut(Value) -> String + '_ {
    |value| {
        values.push(value);
        format!("?{}", values.len())
    }
}

impl SearchSql for Connection {
    fn unanswerable(&self, _query: &Query) -> Option<Option<String>> {
        None
    }

    fn expression(&self, query: &Query) -> Option<String> {
        query.fts.clone()
    }

    fn recent_matches(&self, expr: &str, span: Span, n: usize) -> Result<Vec<Ranked>> {
        let mut values: Vec<Value> = vec![expr.to_string().into()];
        let mut bind = binder(&mut values);
        let within = span.sql("rowid", |v| bind(v.into()));
        drop(bind);
        let sql = format!(
            "SELECT rowid, bm25(entries_fts, {ENTRY_WEIGHTS}) FROM entries_fts
             WHERE entries_fts MATCH ?1{within} ORDER BY rowid DESC LIMIT {n}"
        );
        let found = self
            .prepare_cached(&sql)?
            .query_map(params_from_iter(&values), |r| {
                Ok((r.get::<_, i64>(0)?, -r.get::<_, f64>(1)?))
            })?
            .collect::<rusqlite::Result<Vec<Ranked>>>()?;
        Ok(found)
    }

    /// One indexed look-up per entry: a batch is a few dozen.
    fn said(&self, ids: &[i64]) -> Result<HashSet<i64>> {
        let sql = format!("SELECT {} FROM entries WHERE id = ?1", said_sql("channel"));
        let mut statement = self.prepare_cached(&sql)?;
        let mut said = HashSet::new();
        for &id in ids {
            let is: Option<bool> = statement.query_row([id], |r| r.get(0)).optional()?;
            if is == Some(true) {
                said.insert(id);
            }
        }
        Ok(said)
    }

    fn count_matches(&self, expr: &str, span: Span, cap: usize) -> Result<usize> {
        let mut values: Vec<Value> = vec![expr.to_string().into()];
        let mut bind = binder(&mut values);
        let within = span.sql("rowid", |v| bind(v.into()));
        drop(bind);
        let sql = format!(
            "SELECT count(*) FROM (SELECT rowid FROM entries_fts
             WHERE entries_fts MATCH ?1{within} LIMIT {cap})"
        );
        Ok(count(
            self.prepare_cached(&sql)?
                .query_row(params_from_iter(&values), |r| r.get(0))?,
        ))
    }

    /// FTS5 counts from its index: always counted.
    fn estimated_matches(&self, _query: &Query, _span: Span) -> Result<Option<usize>> {
        Ok(None)
    }

    /// Two statements: the oldest match examined (the `examine`-th most recent, if there
    /// are more), then the matches from there on that pass the filters.
    fn filtered(&self, expr: &str, query: &Query, span: Span, examine: usize) -> Result<Filtered> {
        let mut values: Vec<Value> = vec![expr.to_string().into()];
        let mut bind = binder(&mut values);
        let within = span.sql("rowid", |v| bind(v.into()));
        drop(bind);
        let sql = format!(
            "SELECT rowid FROM entries_fts WHERE entries_fts MATCH ?1{within}
             ORDER BY rowid DESC LIMIT 1 OFFSET {}",
            examine - 1
        );
        let floor: Option<i64> = self
            .prepare_cached(&sql)?
            .query_row(params_from_iter(&values), |r| r.get(0))
            .optional()?;
        let mut values: Vec<Value> = vec![expr.to_string().into()];
        let mut bind = binder(&mut values);
        let within = span.from(floor).sql("f.rowid", |v| bind(v.into()));
        let conditions = entry_conditions(
            query,
            "coalesce(substr(e.ts, 1, 10), s.day)",
            &meta_tool(),
            |v| bind(v.into()),
        );
        // The session's day is needed only for entries without a time of their own.
        let sessions = if has_days(query) {
            "JOIN sessions s ON s.rowid = e.session"
        } else {
            ""
        };
        drop(bind);
        let sql = format!(
            "SELECT f.rowid, bm25(entries_fts, {ENTRY_WEIGHTS}) FROM entries_fts f
             JOIN entries e ON e.id = f.rowid {sessions}
             WHERE entries_fts MATCH ?1{within}{conditions}
             ORDER BY f.rowid DESC"
        );
        // Prepared, not cached: the text varies with the filters.
        let found = self
            .prepare(&sql)?
            .query_map(params_from_iter(values), |r| {
                Ok((r.get::<_, i64>(0)?, -r.get::<_, f64>(1)?))
            })?
            .collect::<rusqlite::Result<Vec<Ranked>>>()?;
        Ok((found, floor.is_some()))
    }

    /// One statement, its rows read as the scan asks for them.
    fn scan(&self, query: &Query, span: Span, visit: Visit<'_>) -> Result<()> {
        let (low, high) = span.bounds();
        // The content is read only to match a pattern.
        let content = if query.regex.is_some() {
            "e.content"
        } else {
            "NULL"
        };
        let tool = if query.tools.is_empty() {
            "NULL".to_string()
        } else {
            meta_tool()
        };
        let sql = match query.tags.first() {
            Some(_) => format!(
                "SELECT e.id, e.channel, e.ts, e.tags, s.day, {content}, {tool} FROM entry_tags t
                 JOIN entries e ON e.id = t.entry JOIN sessions s ON s.rowid = e.session
                 WHERE t.entry BETWEEN ?1 AND ?2 AND t.tag = ?3 ORDER BY t.entry DESC"
            ),
            None => format!(
                "SELECT e.id, e.channel, e.ts, e.tags, s.day, {content}, {tool} FROM entries e
                 JOIN sessions s ON s.rowid = e.session
                 WHERE e.id BETWEEN ?1 AND ?2 ORDER BY e.id DESC"
            ),
        };
        let mut statement = self.prepare_cached(&sql)?;
        let mut rows = match query.tags.first() {
            Some(tag) => statement.query(params![low, high, tag])?,
            None => statement.query(params![low, high])?,
        };
        while let Some(row) = rows.next()? {
            let read = ScanRow {
                id: row.get(0)?,
                channel: row.get(1)?,
                tool: row.get(6)?,
                ts: row.get(2)?,
                tags: row.get(3)?,
                day: row.get(4)?,
                text: Some(row.get::<_, Option<String>>(5)?.unwrap_or_default()),
            };
            if !visit(read)? {
                break;
            }
        }
        Ok(())
    }

    fn content(&self, id: i64) -> Result<String> {
        Ok(self
            .prepare_cached("SELECT content FROM entries WHERE id = ?1")?
            .query_row([id], |r| r.get(0))
            .optional()?
            .unwrap_or_default())
    }

    /// One indexed look-up per entry, as the caller reads them.
    fn contents(&self, ids: &[i64], visit: &mut dyn FnMut(i64, &str) -> bool) -> Result<()> {
        let mut content = self.prepare_cached("SELECT content FROM entries WHERE id = ?1")?;
        for &id in ids {
            let text: Option<String> = content.query_row([id], |r| r.get(0)).optional()?;
            if let Some(text) = text
                && !visit(id, &text)
            {
                break;
            }
        }
        Ok(())
    }

    fn entry_hits(&self, query: &Query, ids: &[Hit]) -> Result<Vec<MemoryHit>> {
        let mut sessions: HashMap<i64, SessionText> = HashMap::new();
        let mut hits = Vec::new();
        for (id, found) in ids {
            let words = query.fts.as_deref();
            hits.push(entry_hit(self, &mut sessions, *id, words, found.clone())?);
        }
        Ok(hits)
    }

    fn tag_count(&self, tag: &str) -> Result<usize> {
        let sql = "SELECT coalesce(sum(n), 0) FROM memory_tags WHERE tag = ?1";
        Ok(count(
            self.prepare_cached(sql)?.query_row([tag], |r| r.get(0))?,
        ))
    }

    fn tag_count_within(&self, tag: &str, low: i64, high: i64) -> Result<usize> {
        let sql = "SELECT count(*) FROM entry_tags WHERE tag = ?1 AND entry BETWEEN ?2 AND ?3";
        let n = self
            .prepare_cached(sql)?
            .query_row(params![tag, low, high], |r| r.get(0))?;
        Ok(count(n))
    }

    fn channel_count(&self, channels: &[Channel], session: Option<i64>) -> Result<usize> {
        let names: Vec<&str> = channels.iter().map(|c| c.as_str()).collect();
        let names = serde_json::to_string(&names)
            .map_err(|e| crate::error::Error::internal(format!("channels: {e}")))?;
        let n: i64 = self
            .prepare_cached(
                "SELECT coalesce(sum(n), 0) FROM session_channels
                 WHERE channel IN (SELECT value FROM json_each(?1))
                   AND (?2 IS NULL OR session = ?2)",
            )?
            .query_row(params![names, session], |r| r.get(0))?;
        Ok(count(n))
    }

    fn stored_entries(&self) -> Result<usize> {
        let n: i64 = self
            .prepare_cached("SELECT n FROM memory_counts WHERE name = 'entries'")?
            .query_row([], |r| r.get(0))?;
        Ok(count(n))
    }

    fn ranked_sessions(&self, expr: &str, query: &Query) -> Result<Vec<(i64, Option<String>)>> {
        let mut values: Vec<Value> = vec![expr.to_string().into()];
        let mut bind = binder(&mut values);
        let conditions = session_conditions(query, "s.id", "s.day", |v| bind(v.into()));
        drop(bind);
        let sql = format!(
            "SELECT s.rowid, snippet(sessions_fts, -1, '**', '**', '…', {SNIPPET_TOKENS}),
                    bm25(sessions_fts, {SESSION_WEIGHTS}) AS score
             FROM sessions_fts f JOIN sessions s ON s.rowid = f.rowid
             WHERE sessions_fts MATCH ?1{conditions}
             ORDER BY score, s.rowid DESC"
        );
        let found = self
            .prepare_cached(&sql)?
            .query_map(params_from_iter(values), |r| {
                Ok((r.get::<_, i64>(0)?, Some(r.get::<_, String>(1)?)))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(found)
    }

    fn recent_session_numbers(&self, query: &Query) -> Result<Vec<i64>> {
        let mut values: Vec<Value> = Vec::new();
        let mut bind = binder(&mut values);
        let conditions = session_conditions(query, "id", "day", |v| bind(v.into()));
        drop(bind);
        let sql = format!(
            "SELECT rowid FROM sessions WHERE true{conditions}
             ORDER BY day DESC, started DESC, rowid DESC"
        );
        let found = self
            .prepare_cached(&sql)?
            .query_map(params_from_iter(values), |r| r.get(0))?
            .collect::<rusqlite::Result<Vec<i64>>>()?;
        Ok(found)
    }

    fn session_texts(&self, rowids: &[i64]) -> Result<Vec<SessionText>> {
        let mut statement = self.prepare_cached(
            "SELECT id, day, entry_count, title, coalesce(summary, '') FROM sessions
             WHERE rowid = ?1",
        )?;
        let mut found = Vec::new();
        for &rowid in rowids {
            let text = statement
                .query_row([rowid], |r| {
                    Ok(SessionText {
                        rowid,
                        id: r.get(0)?,
                        day: r.get(1)?,
                        entries: count(r.get(2)?),
                        title: r.get(3)?,
                        summary: r.get(4)?,
                    })
                })
                .optional()?;
            found.extend(text);
        }
        Ok(found)
    }

    /// FTS5 cuts every session snippet ([`SearchSql::ranked_sessions`]): only a title's
    /// first words are left to give.
    fn session_snippet(&self, _query: &Query, session: &SessionText) -> String {
        excerpt(&session.title, None)
    }
}

/// The hit for entry `id`: its snippet from FTS5 when words matched (`expr`), else around
/// the pattern's match (`found`), else its first words.
fn entry_hit(
    conn: &Connection,
    sessions: &mut HashMap<i64, SessionText>,
    id: i64,
    expr: Option<&str>,
    found: Option<Range<usize>>,
) -> Result<MemoryHit> {
    let channel: String = conn
        .prepare_cached("SELECT channel FROM entries WHERE id = ?1")?
        .query_row([id], |r| r.get(0))?;
    let snippet = match (expr, found) {
        (Some(expr), None) => {
            let sql = format!(
                // Column 0, the content: a hit on a tag shows what was said, never the
                // tags' JSON.
                "SELECT snippet(entries_fts, 0, '**', '**', '…', {SNIPPET_TOKENS})
                 FROM entries_fts WHERE entries_fts MATCH ?1 AND rowid = ?2"
            );
            conn.prepare_cached(&sql)?
                .query_row(params![expr, id], |r| r.get(0))?
        }
        (_, found) => {
            let content: String = conn
                .prepare_cached("SELECT content FROM entries WHERE id = ?1")?
                .query_row([id], |r| r.get(0))?;
            excerpt(&content, found)
        }
    };
    let (session, seq) = split_entry_id(id);
    if !sessions.contains_key(&session) {
        let texts = conn.session_texts(&[session])?;
        sessions.extend(texts.into_iter().map(|s| (s.rowid, s)));
    }
    let (session_id, day, entries) = match sessions.get(&session) {
        Some(s) => (s.id.clone(), s.day.clone(), s.entries),
        None => {
            return Err(crate::error::Error::internal(format!(
                "entry {id} has no session"
            )));
        }
    };
    Ok(MemoryHit {
        session_id,
        day,
        seq: Some(seq),
        channel: Some(channel_of(&channel)?),
        snippet,
        width: width(entries),
        all_terms: true,
    })
}
