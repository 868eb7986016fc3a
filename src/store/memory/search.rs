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
mod tests {
    //! Through [`crate::store::memory::MemoryRecords`], on both backends: each must find,
    //! order, bound and refuse as these say, though ranks and snippets may differ.
    use super::*;
    use crate::error::ErrorKind;
    use crate::store::Store;
    use crate::store::memory::Found;
    use crate::store::memory::record::{EntryRecord, Transcript};
    use crate::store::memory::testing::{at, entry, session, with_tags};
    use crate::store::testing::for_each_backend;

    fn sample(store: &Store) {
        let transcript = Transcript {
            sessions: vec![
                (
                    session(
                        "deploy",
                        Some("2026-11-10T09:00:00Z"),
                        "Deploy the billing service",
                    ),
                    vec![
                        entry("d1", Channel::User, "please deploy billing to staging"),
                        entry(
                            "d2",
                            Channel::ToolCall,
                            "kubectl rollout status deploy/billing",
                        ),
                        at(
                            entry(
                                "d3",
                                Channel::ToolResult,
                                "error: rollout failed, image pull backoff",
                            ),
                            "2026-11-11T10:00:00Z",
                        ),
                        with_tags(
                            entry("d4", Channel::Assistant, "the registry token expired"),
                            &["incident"],
                        ),
                    ],
                ),
                (
                    session("login", Some("2026-11-20T09:00:00Z"), "Fix the login form"),
                    vec![
                        entry(
                            "l1",
                            Channel::User,
                            "the login form rejects valid passwords",
                        ),
                        entry("l2", Channel::ToolCall, "grep -rn check_password src/"),
                        with_tags(
                            entry(
                                "l3",
                                Channel::Assistant,
                                "check_password compares bytes to str: a failed comparison",
                            ),
                            &["incident", "auth"],
                        ),
                    ],
                ),
            ],
        };
        store.change_memory(|m| m.import(&transcript)).unwrap();
    }

    fn search(store: &Store, query: &str, limit: usize) -> Result<Found> {
        store.memory(|m| m.search(query, limit))
    }

    fn found(store: &Store, query: &str) -> (Vec<String>, usize, Option<String>) {
        let (hits, total, note) = search(store, query, 10).unwrap();
        let names = hits
            .iter()
            .map(|h| match h.seq {
                Some(seq) => format!("{}/{seq}", h.session_id),
                None => h.session_id.clone(),
            })
            .collect();
        (names, total, note)
    }

    fn names(store: &Store, query: &str) -> Vec<String> {
        found(store, query).0
    }

    #[test]
    fn words_match_entries_and_sessions_with_snippets() {
        for_each_backend(|store| {
            sample(&store);
            let (hits, total, note) = search(&store, "billing", 10).unwrap();
            assert_eq!((total, note), (3, None));
            assert_eq!(hits[0].seq, None, "the session about it comes first");
            assert_eq!(hits[0].snippet, "Deploy the **billing** service");
            assert_eq!((hits[0].day.as_str(), hits[0].width), ("2026-11-10", 4));
            // Equal scores: the newest first.
            assert_eq!(hits[1].channel, Some(Channel::ToolCall));
            assert_eq!(hits[1].snippet, "kubectl rollout status deploy/**billing**");
            // Entries with every word come first; case and punctuation do not matter.
            assert_eq!(names(&store, "FAILED rollout")[0], "deploy/3");
            assert_eq!(names(&store, "check_password bytes")[0], "login/3");
            assert_eq!(names(&store, "\"failed comparison\""), ["login/3"]);
            assert!(names(&store, "\"comparison failed\"").is_empty());
            assert_eq!(names(&store, "regist*"), ["deploy/4"]);
            assert_eq!(names(&store, "status/deploy/bill*"), ["deploy/2"]);
            // Tags are searched as words too.
            assert_eq!(names(&store, "auth"), ["login/3"]);
        });
    }

    #[test]
    fn several_words_rank_entries_by_how_many_match_instead_of_answering_nothing() {
        for_each_backend(|store| {
            sample(&store);
            // No entry or session holds all three words; "rollout" is in two entries.
            let (hits, total, note) = found(&store, "rollout money rounding");
            assert_eq!(hits, ["deploy/2", "deploy/3"]);
            assert_eq!(total, 2);
            assert_eq!(
                note.as_deref(),
                Some("0 hold every term, 2 more hold some of them and follow")
            );
            // Every word first, then those with some: the entry with "failed" and
            // "rollout" before the one with "failed" alone.
            let (hits, total, _) = found(&store, "failed rollout");
            assert_eq!(hits, ["deploy/3", "deploy/2", "login/3"]);
            assert_eq!(total, 3);
            // When every-word hits fill the page, nothing more is searched.
            let (hits, total, note) = search(&store, "failed rollout", 1).unwrap();
            assert_eq!((hits.len(), total, note), (1, 1, None));
            // A phrase stays one term, exact.
            assert_eq!(
                names(&store, "\"failed rollout\" zzz"),
                Vec::<String>::new()
            );
            assert_eq!(
                names(&store, "\"failed rollout\" zzz registry"),
                ["deploy/4"]
            );
            // Filters hold for every tier.
            assert_eq!(names(&store, "failed zzz channel:assistant"), ["login/3"]);
        });
    }

    #[test]
    fn pages_cut_from_one_ranking_never_repeat_a_hit() {
        for_each_backend(|store| {
            sample(&store);
            for query in ["the deploy login", "billing", "form failed the"] {
                let all = names(&store, query);
                for size in 1..=all.len() {
                    let first = search(&store, query, size).unwrap().0.len();
                    assert_eq!(
                        found_n(&store, query, size),
                        all[..first],
                        "{query} with {size}"
                    );
                }
            }
        });
    }

    fn found_n(store: &Store, query: &str, limit: usize) -> Vec<String> {
        let (hits, _, _) = search(store, query, limit).unwrap();
        hits.iter()
            .map(|h| match h.seq {
                Some(seq) => format!("{}/{seq}", h.session_id),
                None => h.session_id.clone(),
            })
            .collect()
    }

    #[test]
    fn filters_narrow_entries() {
        for_each_backend(|store| {
            let store = &*store;
            sample(store);
            assert_eq!(names(store, "failed channel:tool_result"), ["deploy/3"]);
            assert_eq!(
                names(store, "failed channel:assistant channel:user"),
                ["login/3"]
            );
            assert_eq!(names(store, "failed tag:incident"), ["login/3"]);
            assert_eq!(found(store, "tag:incident").0, ["login/3", "deploy/4"]);
            assert_eq!(found(store, "tag:incident").1, 2);
            assert_eq!(names(store, "tag:incident tag:auth"), ["login/3"]);
            assert_eq!(names(store, "form session:login"), ["login", "login/1"]);
            assert_eq!(
                names(store, "session:deploy channel:tool_call"),
                ["deploy/2"]
            );
            // An entry's own time counts, else its session's day.
            assert_eq!(
                names(store, "failed since:2026-11-11"),
                ["deploy/3", "login/3"]
            );
            assert_eq!(
                names(store, "failed until:2026-11-10"),
                Vec::<String>::new()
            );
            assert_eq!(names(store, "the until:2026-11-10"), ["deploy", "deploy/4"]);
            let (hits, total, note) = found(store, "x session:nope");
            assert_eq!((hits.len(), total), (0, 0));
            assert_eq!(note.as_deref(), Some("no session is named nope"));
        });
    }

    #[test]
    fn patterns_scan_or_narrow() {
        for_each_backend(|store| {
            let store = &*store;
            sample(store);
            let (hits, _, _) = search(store, r"re:check_\w+\(?", 10).unwrap();
            assert_eq!(hits.len(), 2);
            assert_eq!(
                hits[0].snippet,
                "**check_password** compares bytes to str: a failed …"
            );
            assert_eq!(hits[1].snippet, "grep -rn **check_password** src/");
            assert_eq!(names(store, "failed re:roll\\w+"), ["deploy/3"]);
            assert_eq!(names(store, "re:(?i)^fix"), ["login"]);
            assert_eq!(names(store, "re:zzz"), Vec::<String>::new());
            // Rust's regex syntax, whichever backend: `\d`, `(?i)`, `\b`.
            assert_eq!(names(store, r"re:(?i)\bKUBECTL\b"), ["deploy/2"]);
            assert_eq!(names(store, r"registry re:\btoken\b"), ["deploy/4"]);
            // Filters alone list entries, newest first.
            assert_eq!(names(store, "channel:tool_call"), ["login/2", "deploy/2"]);
            assert_eq!(found(store, "channel:tool_call channel:user").1, 4);
            let (hits, total, _) = search(store, "channel:user", 1).unwrap();
            assert_eq!((hits.len(), total), (1, 2));
        });
    }

    #[test]
    fn malformed_queries_are_refused_and_hostile_ones_are_text() {
        for_each_backend(|store| {
            let store = &*store;
            sample(store);
            for query in [
                "foo:bar",
                "channel:nope",
                "since:2026-02-30x",
                "re:(",
                "\"open",
            ] {
                let err = search(store, query, 5).unwrap_err();
                assert_eq!(err.kind, ErrorKind::Invalid, "{query}");
            }
            let long = "a".repeat(3_000);
            for query in [
                "\"\"",
                "*",
                "NEAR(a b)",
                "(",
                "-login",
                "a AND OR",
                "",
                "  ",
                "\"\"*",
                "^x",
                "x:",
                "{content}: x",
                "login:",
                "'; DROP TABLE entries; --",
                "é",
                "\u{301}",
                "a\"b",
                "**",
                "re:.*",
                "channel:user",
                "since:2026-11-01",
                // tsquery's syntax is text too.
                "'a' & !b | c <-> d :* \\ (e)",
                "login :* & !form",
                "x\u{0}y",
                "tag:a\u{0}b",
                "session:\"a\u{0}\" b",
                "x²",
                long.as_str(),
            ] {
                assert!(search(store, query, 5).is_ok(), "{query:?}");
            }
            assert_eq!(names(store, "login :* & !form"), ["login", "login/1"]);
            let (hits, total, note) = search(store, "  ", 5).unwrap();
            assert_eq!((hits.len(), total), (0, 0));
            assert_eq!(
                note.as_deref(),
                Some("the query has no words to search for")
            );
        });
    }

    #[test]
    fn words_in_any_script_are_found() {
        for_each_backend(|store| {
            let transcript = Transcript {
                sessions: vec![(
                    session("intl", None, "Été à Paris"),
                    vec![entry("i1", Channel::User, "Überprüfung der Straße, 東京")],
                )],
            };
            store.change_memory(|m| m.import(&transcript)).unwrap();
            assert_eq!(names(&store, "été"), ["intl"]);
            assert_eq!(names(&store, "überprüfung"), ["intl/1"]);
            assert_eq!(names(&store, "STRASSE"), Vec::<String>::new());
            assert_eq!(names(&store, "straße"), ["intl/1"]);
        });
    }

    #[test]
    fn very_common_words_rank_the_most_recent_matches() {
        for_each_backend(|store| {
            let entries: Vec<EntryRecord> = (0..RANK + 100)
                .map(|i| entry(&format!("k{i}"), Channel::User, &format!("common word {i}")))
                .collect();
            let transcript = Transcript {
                sessions: vec![(session("big", None, "big"), entries)],
            };
            store.change_memory(|m| m.import(&transcript)).unwrap();
            let (hits, total, note) = search(&store, "common", 3).unwrap();
            assert_eq!((hits.len(), total), (3, RANK + 100));
            assert_eq!(
                note.as_deref(),
                Some("2,100 matches: ranked the 2,000 most recent by relevance")
            );
            let (_, total, note) = search(&store, "common channel:user", 3).unwrap();
            assert_eq!((total, note), (RANK + 100, None));
            let (hits, total, note) = search(&store, "common re:\"word 2050$\"", 3).unwrap();
            assert_eq!(total, 1);
            assert_eq!(hits[0].snippet, "common **word 2050**");
            assert_eq!(
                note.as_deref(),
                Some("re: was checked on the 2,000 most recent matches of the words only")
            );
            // The oldest matches were not checked.
            assert_eq!(search(&store, "common re:\"word 7$\"", 3).unwrap().1, 0);
            // A scan reads every page, newest first, down to the oldest entry.
            let (hits, total, note) = search(&store, "re:\"word 5$\"", 3).unwrap();
            assert_eq!((total, note), (1, None));
            assert_eq!(hits[0].seq, Some(6));
            let (_, total, _) = search(&store, "channel:user re:word", 3).unwrap();
            assert_eq!(total, RANK + 100);
        });
    }
}
