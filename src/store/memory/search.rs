//! Memory search: entries and sessions matching a query (see `query.rs` for the language),
//! best first, with snippets, within a bounded time.
//!
//! Words go to the FTS5 indexes (quoted, never as syntax) and are ranked by `bm25()`.
//! Ranking costs about a microsecond per match, and FTS5 counts every match of each term once
//! per query, so very common terms are bounded: only the [`RANK`] most recent matches are
//! ranked, matches are counted up to [`COUNT_CAP`], and filters the index cannot check
//! (channel, tag, days) are checked on the [`EXAMINE`] most recent matches — each time the
//! note says so. Queries without words (filters only, `re:` only) are bounded scans
//! (`scan.rs`), newest first. Measured on a million generated entries (`bench.rs`), p50 for
//! five hits: a term in 5,000 entries 5 ms, in 50,000 entries 7 ms, in every entry 37 ms.
//!
//! Session titles and summaries match too (`seq: None` hits). Which tier of words comes
//! first and where sessions go among entries is decided once for every backend, in
//! `tiers.rs`; this file answers one parsed query.

use std::collections::HashMap;

use rusqlite::types::Value;
use rusqlite::{Connection, OptionalExtension, params, params_from_iter};

use super::query::{COUNT_CAP, EXAMINE, Query, RANK};
use super::read::{count, parse_channel};
use super::record::Channel;
use super::records::MemoryHit;
use super::scan::{self, Scanned, excerpt, thousands};
use super::tiers::{self, Tiered};
use super::{session_range, split_entry_id, width};
use crate::error::Result;

/// Tokens in a snippet.
const SNIPPET_TOKENS: usize = 12;
/// bm25 weights of the entry columns (content, tags) and session columns (title, summary):
/// a word in a tag or a title says more than one in a long text.
const ENTRY_WEIGHTS: &str = "1.0, 2.0";
const SESSION_WEIGHTS: &str = "2.0, 1.0";

/// The hits for `query`, best first, at most `limit`; how many match in all; and a note
/// when the search was bounded (very common words, a cut scan) or found nothing to search
/// for. A malformed query is an `Error::invalid` saying why. The order is `tiers.rs`'s.
pub fn search(
    conn: &Connection,
    query: &str,
    limit: usize,
) -> Result<(Vec<MemoryHit>, usize, Option<String>)> {
    tiers::search(query, limit, |query, limit| {
        search_query(conn, query, limit)
    })
}

/// The sessions and the entries matching one parsed query, at most `limit` of each.
fn search_query(conn: &Connection, query: &Query, limit: usize) -> Result<Tiered> {
    let nothing = |note: String| {
        Ok(Tiered {
            notes: vec![note],
            ..Tiered::default()
        })
    };
    if query.fts.is_none()
        && query.regex.is_none()
        && !query.entries_only()
        && !has_days(query)
        && query.session.is_none()
    {
        return nothing("the query has no words to search for".into());
    }
    let span = match &query.session {
        Some(id) => match session_rowid(conn, id)? {
            Some(rowid) => Span::session(rowid),
            None => return nothing(format!("no session is named {id}")),
        },
        None => Span::default(),
    };
    let mut notes = Vec::new();
    let mut sessions = Sessions::default();

    let (session_hits, session_total) = if query.entries_only() {
        (Vec::new(), 0)
    } else {
        session_matches(conn, query, limit, &mut sessions, &mut notes)?
    };
    let (entry_hits, entry_total) = match &query.fts {
        Some(fts) => ranked_entries(conn, query, fts, span, limit, &mut sessions, &mut notes)?,
        None => scanned_entries(conn, query, span, limit, &mut sessions, &mut notes)?,
    };
    Ok(Tiered {
        sessions: session_hits,
        session_total,
        entries: entry_hits,
        entry_total,
        notes,
    })
}

/// The entry numbers a search covers: all, or from `low` and up to `high`.
#[derive(Debug, Clone, Copy, Default)]
struct Span {
    low: Option<i64>,
    high: Option<i64>,
}

impl Span {
    fn session(rowid: i64) -> Span {
        let (low, high) = session_range(rowid);
        Span {
            low: Some(low),
            high: Some(high),
        }
    }

    /// The same span starting at `low` at the earliest.
    fn from(self, low: Option<i64>) -> Span {
        Span {
            low: self.low.max(low),
            high: self.high,
        }
    }

    /// ` AND column >= ?n AND column <= ?m` for the bounds there are (nothing when searching
    /// everything), their values appended to `values`.
    fn sql(self, column: &str, values: &mut Vec<Value>) -> String {
        let mut sql = String::new();
        for (bound, op) in [(self.low, ">="), (self.high, "<=")] {
            if let Some(bound) = bound {
                values.push(bound.into());
                sql.push_str(&format!(" AND {column} {op} ?{}", values.len()));
            }
        }
        sql
    }

    fn bounds(self) -> (i64, i64) {
        (self.low.unwrap_or(0), self.high.unwrap_or(i64::MAX))
    }
}

fn has_days(query: &Query) -> bool {
    query.since.is_some() || query.until.is_some()
}

fn session_rowid(conn: &Connection, id: &str) -> Result<Option<i64>> {
    Ok(conn
        .prepare_cached("SELECT rowid FROM sessions WHERE id = ?1")?
        .query_row([id], |r| r.get(0))
        .optional()?)
}

/// Sessions met while building hits: (id, day, entry file width) by number.
#[derive(Default)]
struct Sessions(HashMap<i64, (String, String, usize)>);

impl Sessions {
    fn get(&mut self, conn: &Connection, rowid: i64) -> Result<(String, String, usize)> {
        if let Some(found) = self.0.get(&rowid) {
            return Ok(found.clone());
        }
        let found: (String, String, usize) = conn
            .prepare_cached("SELECT id, day, entry_count FROM sessions WHERE rowid = ?1")?
            .query_row([rowid], |r| {
                Ok((r.get(0)?, r.get(1)?, width(count(r.get(2)?))))
            })?;
        self.0.insert(rowid, found.clone());
        Ok(found)
    }
}

/// Sessions whose title or summary match, best first, at most `keep`, and how many match.
fn session_matches(
    conn: &Connection,
    query: &Query,
    keep: usize,
    sessions: &mut Sessions,
    notes: &mut Vec<String>,
) -> Result<(Vec<MemoryHit>, usize)> {
    let Some(fts) = &query.fts else {
        // No words: only a pattern can match a title or summary.
        let Some(regex) = &query.regex else {
            return Ok((Vec::new(), 0));
        };
        let scan::SessionsFound { found, total, cut } = scan::sessions(conn, query, regex, keep)?;
        if let Some(reason) = cut {
            notes.push(format!(
                "the re: scan of session titles and summaries {reason}"
            ));
        }
        let mut hits = Vec::new();
        for ((rowid, text), range) in found {
            hits.push(session_hit(
                conn,
                sessions,
                rowid,
                excerpt(&text, Some(range)),
            )?);
        }
        return Ok((hits, total));
    };
    let mut conditions = String::new();
    let mut values: Vec<Value> = vec![fts.clone().into()];
    if let Some(id) = &query.session {
        values.push(id.clone().into());
        conditions.push_str(&format!(" AND s.id = ?{}", values.len()));
    }
    for (day, op) in [(&query.since, ">="), (&query.until, "<=")] {
        if let Some(day) = day {
            values.push(day.clone().into());
            conditions.push_str(&format!(" AND s.day {op} ?{}", values.len()));
        }
    }
    let sql = format!(
        "SELECT s.rowid, snippet(sessions_fts, -1, '**', '**', '…', {SNIPPET_TOKENS}),
                bm25(sessions_fts, {SESSION_WEIGHTS}) AS score, s.title, s.summary
         FROM sessions_fts f JOIN sessions s ON s.rowid = f.rowid
         WHERE sessions_fts MATCH ?1{conditions}
         ORDER BY score, s.rowid DESC"
    );
    let mut statement = conn.prepare_cached(&sql)?;
    let mut rows = statement.query(params_from_iter(values))?;
    let (mut hits, mut total) = (Vec::new(), 0);
    while let Some(row) = rows.next()? {
        if let Some(regex) = &query.regex {
            let title: String = row.get(3)?;
            let summary: Option<String> = row.get(4)?;
            if !regex.is_match(&title) && !summary.is_some_and(|s| regex.is_match(&s)) {
                continue;
            }
        }
        total += 1;
        if hits.len() < keep {
            let (rowid, snippet): (i64, String) = (row.get(0)?, row.get(1)?);
            hits.push(session_hit(conn, sessions, rowid, snippet)?);
        }
    }
    Ok((hits, total))
}

fn session_hit(
    conn: &Connection,
    sessions: &mut Sessions,
    rowid: i64,
    snippet: String,
) -> Result<MemoryHit> {
    let (session_id, day, width) = sessions.get(conn, rowid)?;
    Ok(MemoryHit {
        session_id,
        day,
        seq: None,
        channel: None,
        snippet,
        width,
    })
}

/// Entries matching the words of `query` (an FTS5 expression `fts`) within `range` of entry
/// numbers, ranked; at most `keep` as hits; and how many match.
fn ranked_entries(
    conn: &Connection,
    query: &Query,
    fts: &str,
    span: Span,
    keep: usize,
    sessions: &mut Sessions,
    notes: &mut Vec<String>,
) -> Result<(Vec<MemoryHit>, usize)> {
    let (mut found, mut total, bound) = if query.entries_only() || has_days(query) {
        filtered_matches(conn, query, fts, span)?
    } else {
        recent_matches(conn, fts, span)?
    };
    let mut ranges = scan::narrowed(
        &mut found,
        &mut total,
        bound,
        query.regex.as_ref(),
        notes,
        |ids, regex| scan::matching(conn, ids, regex),
    )?;
    // Best first (bm25 is lower for better), then newest.
    found.sort_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)));
    found.truncate(keep);
    let mut hits = Vec::new();
    for (id, _) in found {
        hits.push(entry_hit(
            conn,
            sessions,
            id,
            Some(fts),
            ranges.remove(&id),
        )?);
    }
    Ok((hits, total))
}

/// Matches found by the index (newest first, with their bm25 score), how many match, and
/// a note when not all of them were looked at.
type Matches = (Vec<(i64, f64)>, usize, Option<String>);

/// Matches of `fts` within `span` with no other filter: the [`RANK`] most recent, and how
/// many match (counted up to [`COUNT_CAP`]).
fn recent_matches(conn: &Connection, fts: &str, span: Span) -> Result<Matches> {
    let mut values: Vec<Value> = vec![fts.to_string().into()];
    let within = span.sql("rowid", &mut values);
    let sql = format!(
        "SELECT rowid, bm25(entries_fts, {ENTRY_WEIGHTS}) FROM entries_fts
         WHERE entries_fts MATCH ?1{within} ORDER BY rowid DESC LIMIT {RANK}"
    );
    let found = conn
        .prepare_cached(&sql)?
        .query_map(params_from_iter(&values), |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<Vec<(i64, f64)>>>()?;
    if found.len() < RANK {
        let total = found.len();
        return Ok((found, total, None));
    }
    let sql = format!(
        "SELECT count(*) FROM (SELECT rowid FROM entries_fts
         WHERE entries_fts MATCH ?1{within} LIMIT {})",
        COUNT_CAP + 1
    );
    let total = count(
        conn.prepare_cached(&sql)?
            .query_row(params_from_iter(&values), |r| r.get(0))?,
    );
    let ranked = format!("ranked the {} most recent by relevance", thousands(RANK));
    let note = if total > COUNT_CAP {
        format!("more than {} matches: {ranked}", thousands(COUNT_CAP))
    } else {
        format!("{} matches: {ranked}", thousands(total))
    };
    Ok((found, total.min(COUNT_CAP), Some(note)))
}

/// Matches of `fts` within `span` that pass the filters the index cannot check (channel,
/// tag, days), among the [`EXAMINE`] most recent matches of the words, with their bm25
/// score; and how many passed.
fn filtered_matches(conn: &Connection, query: &Query, fts: &str, span: Span) -> Result<Matches> {
    // The oldest match examined: the EXAMINE-th most recent, if there are more.
    let mut values: Vec<Value> = vec![fts.to_string().into()];
    let within = span.sql("rowid", &mut values);
    let sql = format!(
        "SELECT rowid FROM entries_fts WHERE entries_fts MATCH ?1{within}
         ORDER BY rowid DESC LIMIT 1 OFFSET {}",
        EXAMINE - 1
    );
    let floor: Option<i64> = conn
        .prepare_cached(&sql)?
        .query_row(params_from_iter(&values), |r| r.get(0))
        .optional()?;
    let mut values: Vec<Value> = vec![fts.to_string().into()];
    let within = span.from(floor).sql("f.rowid", &mut values);
    let conditions = entry_conditions(query, &mut values);
    // The session's day is needed only for entries without a time of their own.
    let sessions = if has_days(query) {
        "JOIN sessions s ON s.rowid = e.session"
    } else {
        ""
    };
    let sql = format!(
        "SELECT f.rowid, bm25(entries_fts, {ENTRY_WEIGHTS}) FROM entries_fts f
         JOIN entries e ON e.id = f.rowid {sessions}
         WHERE entries_fts MATCH ?1{within}{conditions}
         ORDER BY f.rowid DESC"
    );
    // Prepared, not cached: the text varies with the filters.
    let found = conn
        .prepare(&sql)?
        .query_map(params_from_iter(values), |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<Vec<(i64, f64)>>>()?;
    let note = floor.map(|_| {
        format!(
            "the filters were checked on the {} most recent matches of the words only",
            thousands(EXAMINE)
        )
    });
    let total = found.len();
    Ok((found, total, note))
}

/// ` AND ...` conditions on `e` (entries) and `s` (sessions) for the query's channel, tag and
/// day filters, their values appended to `values`.
fn entry_conditions(query: &Query, values: &mut Vec<Value>) -> String {
    let mut sql = String::new();
    if !query.channels.is_empty() {
        // Channel names are our own constants, written as literals.
        let names: Vec<String> = query
            .channels
            .iter()
            .map(|c| format!("'{}'", c.as_str()))
            .collect();
        sql.push_str(&format!(" AND e.channel IN ({})", names.join(", ")));
    }
    for tag in &query.tags {
        values.push(tag.clone().into());
        sql.push_str(&format!(
            " AND e.id IN (SELECT entry FROM entry_tags WHERE tag = ?{})",
            values.len()
        ));
    }
    for (day, op) in [(&query.since, ">="), (&query.until, "<=")] {
        if let Some(day) = day {
            values.push(day.clone().into());
            sql.push_str(&format!(
                " AND coalesce(substr(e.ts, 1, 10), s.day) {op} ?{}",
                values.len()
            ));
        }
    }
    sql
}

/// Entries for a query without words: a bounded scan, newest first.
fn scanned_entries(
    conn: &Connection,
    query: &Query,
    span: Span,
    keep: usize,
    sessions: &mut Sessions,
    notes: &mut Vec<String>,
) -> Result<(Vec<MemoryHit>, usize)> {
    let counted = counted(conn, query, span)?;
    let (Scanned { hits, read, cut }, scanned) =
        scan::entries(conn, query, span.bounds(), keep, counted.is_none())?;
    if let Some(reason) = cut {
        let of = scan::stored_entries(conn)?;
        notes.push(format!(
            "the scan {reason}, newest first: {} of {} entries were searched",
            thousands(read),
            thousands(of)
        ));
    }
    let mut out = Vec::new();
    for (id, found) in hits {
        out.push(entry_hit(conn, sessions, id, None, found)?);
    }
    Ok((out, counted.unwrap_or(scanned)))
}

/// How many entries a query of filters only selects, from the counters, when they can
/// tell: a session, channels, or one tag (each alone, or within a session).
fn counted(conn: &Connection, query: &Query, span: Span) -> Result<Option<usize>> {
    if query.regex.is_some() || has_days(query) || query.tags.len() > 1 {
        return Ok(None);
    }
    let session = span.low.map(|low| split_entry_id(low).0);
    let n: i64 = match (query.tags.first(), query.channels.is_empty()) {
        (Some(_), false) => return Ok(None),
        (Some(tag), true) => match span.low.zip(span.high) {
            Some((low, high)) => conn
                .prepare_cached(
                    "SELECT count(*) FROM entry_tags WHERE tag = ?1 AND entry BETWEEN ?2 AND ?3",
                )?
                .query_row(params![tag, low, high], |r| r.get(0))?,
            None => conn
                .prepare_cached("SELECT coalesce(sum(n), 0) FROM memory_tags WHERE tag = ?1")?
                .query_row([tag], |r| r.get(0))?,
        },
        (None, _) => {
            let channels: Vec<&str> = match query.channels.is_empty() {
                true => Channel::ALL.iter().map(|c| c.as_str()).collect(),
                false => query.channels.iter().map(|c| c.as_str()).collect(),
            };
            let channels = serde_json::to_string(&channels)
                .map_err(|e| crate::error::Error::internal(format!("channels: {e}")))?;
            conn.prepare_cached(
                "SELECT coalesce(sum(n), 0) FROM session_channels
                 WHERE channel IN (SELECT value FROM json_each(?1))
                   AND (?2 IS NULL OR session = ?2)",
            )?
            .query_row(params![channels, session], |r| r.get(0))?
        }
    };
    Ok(Some(count(n)))
}

/// The hit for entry `id`: its snippet from FTS5 when words matched (`fts`), else around
/// the pattern's match (`found`), else its first words.
fn entry_hit(
    conn: &Connection,
    sessions: &mut Sessions,
    id: i64,
    fts: Option<&str>,
    found: Option<std::ops::Range<usize>>,
) -> Result<MemoryHit> {
    let channel: String = conn
        .prepare_cached("SELECT channel FROM entries WHERE id = ?1")?
        .query_row([id], |r| r.get(0))?;
    let snippet = match (fts, found) {
        (Some(fts), None) => {
            let sql = format!(
                "SELECT snippet(entries_fts, -1, '**', '**', '…', {SNIPPET_TOKENS})
                 FROM entries_fts WHERE entries_fts MATCH ?1 AND rowid = ?2"
            );
            conn.prepare_cached(&sql)?
                .query_row(params![fts, id], |r| r.get(0))?
        }
        (_, found) => {
            let content: String = conn
                .prepare_cached("SELECT content FROM entries WHERE id = ?1")?
                .query_row([id], |r| r.get(0))?;
            excerpt(&content, found)
        }
    };
    let (session, seq) = split_entry_id(id);
    let (session_id, day, width) = sessions.get(conn, session)?;
    Ok(MemoryHit {
        session_id,
        day,
        seq: Some(seq),
        channel: Some(parse_channel(0, &channel)?),
        snippet,
        width,
    })
}

#[cfg(test)]
mod tests;
