//! Memory search on PostgreSQL: the query language of `query.rs`, with the bounds and notes
//! of SQLite's `search.rs` (read its header first), over the `words` tsvector columns and
//! their GIN indexes (`schema.sql`).
//!
//! The tsquery is built here from the parsed [`Phrase`]s, never from user text: each word
//! (letters and digits only, so never an operator, a quote or a backslash) becomes a quoted
//! lexeme, a phrase joins its words with `<->`, a prefix ends with `:*`, and all terms are
//! joined with `&`; `to_tsquery('simple', ...)` then cuts and lowercases the lexemes as the
//! `simple` configuration cut the stored text. Not `websearch_to_tsquery`: it has no prefix
//! match (`migrat*` must find `migration`), and it would read `or` and `-` in user text
//! as operators where every other backend reads words.
//!
//! Matches are ranked by `ts_rank_cd` with SQLite's column weights (tags twice content,
//! title twice summary), divided by the log of the length as bm25 favours shorter texts.
//! The bounds are SQLite's: the [`RANK`] most recent matches are ranked (`ORDER BY id DESC
//! LIMIT`: the planner walks the primary key backwards for a common word and reads the GIN
//! index for a rare one), counted up to [`COUNT_CAP`] — but a lone word the statistics
//! know as common is not counted: its count is their estimate, said as such
//! (`search/estimate.rs`, [`ESTIMATED`]); filters the index cannot check are
//! checked on the [`EXAMINE`] most recent matches; `re:` is Rust's regex on bounded batches
//! (`scan.rs`). Snippets are cut in Rust (`snippet.rs` says why not `ts_headline`).
//!
//! Where PostgreSQL is slower than FTS5: a GIN index holds neither order nor counts, so the
//! most recent matches of a word in a few percent of the entries are found by walking the
//! primary key backwards and testing each row (a word in 5% of them: 40,000 rows for
//! 2,000 matches), and counting visits every match. Making the planner read such a word's
//! matches from the GIN index instead was measured slower (48 ms to 360 ms for a word in
//! 50,000 entries): reading visits a table page per match, walking one per ten rows.
//!
//! Measured on a million generated entries (`bench.rs`, PostgreSQL 15 with default
//! settings, on a busy 2-core machine),
//! p50 for five hits: a word in 200 entries 11 ms, in 5,000 26 ms, in 50,000 29 ms
//! (estimated, not counted), in every entry 11 ms; but two words together in 20,000
//! entries 240 ms and a phrase in 50,000 440 ms (walked to and counted), a word in 5% of
//! the entries with a channel filter 240 ms (its 10,000 most recent matches walked to).

mod estimate;
mod scan;
mod snippet;

pub(super) use estimate::frequencies;

use std::collections::HashMap;

use postgres::types::ToSql;

use crate::error::{Error, Result};
use crate::store::fts::{self, Tier};
use crate::store::memory::query::{COUNT_CAP, EXAMINE, Phrase, Query, RANK};
use crate::store::memory::record::Channel;
use crate::store::memory::records::{Found, MemoryHit};
use crate::store::memory::scan::{excerpt, narrowed, thousands};
use crate::store::memory::tiers::{self, Tiered};
use crate::store::memory::{session_range, split_entry_id, width};
use crate::store::postgres::Tx;

/// A lone word PostgreSQL's statistics put in this many entries or more is not counted:
/// its count is the statistics' estimate, and the note says so. Counting visits each
/// match (50,000 matches take 50 ms and more), where the estimate is sampled from 30,000
/// rows (a word in 2% of them is known to within a few percent).
const ESTIMATED: usize = 10 * RANK;
/// `ts_rank_cd` weights of the D, C, B and A labels: content, tags, summary, title.
const WEIGHTS: &str = "'{0.5, 1.0, 0.5, 1.0}'";
/// `ts_rank_cd` normalization: rank / (1 + log(length)).
const NORMALIZATION: i32 = 1;
/// PostgreSQL neither indexes nor searches a word longer than this (bytes).
const LONGEST_WORD: usize = 2047;
/// Characters of an entry read for its snippet: the index stops at 1 MiB of words, so a
/// match lies within the first few MiB of characters.
const SNIPPET_CHARS: i32 = 4 << 20;

/// The hits for `text`, best first, at most `limit`; how many match in all; and a note
/// when the search was bounded or found nothing to search for. A malformed query is an
/// `Error::invalid` saying why; no query fails otherwise.
pub fn search(tx: &Tx<'_>, text: &str, limit: usize) -> Result<Found> {
    tiers::search(text, limit, |query, limit| search_query(tx, query, limit))
}

/// The sessions and the entries matching one parsed query, at most `limit` of each.
fn search_query(tx: &Tx<'_>, query: &Query, limit: usize) -> Result<Tiered> {
    let nothing = |note: Option<String>| {
        Ok(Tiered {
            notes: note.into_iter().collect(),
            ..Tiered::default()
        })
    };
    if query.fts.is_none()
        && query.regex.is_none()
        && !query.entries_only()
        && !has_days(query)
        && query.session.is_none()
    {
        return nothing(Some("the query has no words to search for".into()));
    }
    if let Some(word) = query
        .phrases
        .iter()
        .flat_map(|p| &p.words)
        .find(|w| w.len() > LONGEST_WORD)
    {
        let shown: String = word.chars().take(20).collect();
        return nothing(Some(format!(
            "{shown}… is longer than {} bytes: no word that long is indexed",
            thousands(LONGEST_WORD)
        )));
    }
    // PostgreSQL text cannot hold NUL: no tag or session named with one exists.
    if query.tags.iter().any(|t| t.contains('\0')) {
        return nothing(None);
    }
    let span = match &query.session {
        Some(id) => {
            let rowid = match id.contains('\0') {
                true => None,
                false => tx
                    .query_opt("SELECT rowid FROM sessions WHERE id = $1", &[id])?
                    .map(|r| r.get::<_, i32>(0)),
            };
            match rowid {
                Some(rowid) => Span::session(i64::from(rowid)),
                None => return nothing(Some(format!("no session is named {id}"))),
            }
        }
        None => Span::default(),
    };
    let tsquery = tsquery(&query.phrases, query.tier);
    let mut notes = Vec::new();
    let (session_hits, session_total) = if query.entries_only() {
        (Vec::new(), 0)
    } else {
        session_matches(tx, query, tsquery.as_deref(), limit, &mut notes)?
    };
    let (entry_hits, entry_total) = match &tsquery {
        Some(tsquery) => ranked_entries(tx, query, tsquery, span, limit, &mut notes)?,
        None => scanned_entries(tx, query, span, limit, &mut notes)?,
    };
    Ok(Tiered {
        sessions: session_hits,
        session_total,
        entries: entry_hits,
        entry_total,
        notes,
    })
}

/// The `to_tsquery` text of `phrases`: `('deploy') & ('parse' <-> 'amount') & ('migrat':*)`,
/// or for [`Tier::Some`] `(… | …) & !(… & …)`. `None` when there are none (or only one
/// and `tier` asks for some).
fn tsquery(phrases: &[Phrase], tier: Tier) -> Option<String> {
    let terms: Vec<String> = phrases
        .iter()
        .map(|phrase| {
            let last = phrase.words.len().saturating_sub(1);
            let lexemes: Vec<String> = phrase
                .words
                .iter()
                .enumerate()
                .map(|(i, word)| {
                    // Only letters and digits: nothing a tsquery reads as syntax.
                    let word: String = word.chars().filter(|c| c.is_alphanumeric()).collect();
                    let star = if phrase.prefix && i == last { ":*" } else { "" };
                    format!("'{word}'{star}")
                })
                .collect();
            format!("({})", lexemes.join(" <-> "))
        })
        .collect();
    fts::tiered(&terms, tier, " | ", " & ", " & !")
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

    /// ` AND column >= $n AND column <= $m` for the bounds there are.
    fn sql(self, column: &str, values: &mut Values) -> String {
        let mut sql = String::new();
        for (bound, op) in [(self.low, ">="), (self.high, "<=")] {
            if let Some(bound) = bound {
                let n = values.push(bound);
                sql.push_str(&format!(" AND {column} {op} {n}"));
            }
        }
        sql
    }

    fn bounds(self) -> (i64, i64) {
        (self.low.unwrap_or(0), self.high.unwrap_or(i64::MAX))
    }
}

/// The parameters of a statement whose text depends on the query.
#[derive(Default)]
struct Values(Vec<Box<dyn ToSql + Sync>>);

impl Values {
    /// Adds `value`; its placeholder (`$3`).
    fn push(&mut self, value: impl ToSql + Sync + 'static) -> String {
        self.0.push(Box::new(value));
        format!("${}", self.0.len())
    }

    fn refs(&self) -> Vec<&(dyn ToSql + Sync)> {
        self.0.iter().map(|v| v.as_ref()).collect()
    }
}

fn has_days(query: &Query) -> bool {
    query.since.is_some() || query.until.is_some()
}

/// Sessions whose title or summary match, best first, at most `keep`, and how many match.
fn session_matches(
    tx: &Tx<'_>,
    query: &Query,
    tsquery: Option<&str>,
    keep: usize,
    notes: &mut Vec<String>,
) -> Result<(Vec<MemoryHit>, usize)> {
    let mut values = Values::default();
    let mut conditions = String::new();
    if let Some(id) = &query.session {
        let n = values.push(id.clone());
        conditions.push_str(&format!(" AND id = {n}"));
    }
    for (day, op) in [(&query.since, ">="), (&query.until, "<=")] {
        if let Some(day) = day {
            let n = values.push(day.clone());
            conditions.push_str(&format!(" AND day COLLATE \"C\" {op} {n}"));
        }
    }
    let Some(tsquery) = tsquery else {
        // No words: only a pattern can match a title or summary, most recent first.
        let Some(regex) = &query.regex else {
            return Ok((Vec::new(), 0));
        };
        let sql = format!(
            "SELECT rowid FROM sessions WHERE true{conditions}
             ORDER BY day COLLATE \"C\" DESC, started COLLATE \"C\" DESC NULLS LAST, rowid DESC"
        );
        let rowids: Vec<i32> = tx
            .query(&sql, &values.refs())?
            .iter()
            .map(|r| r.get(0))
            .collect();
        let (found, total, cut) = scan::sessions(tx, &rowids, regex, keep)?;
        if let Some(reason) = cut {
            notes.push(format!(
                "the re: scan of session titles and summaries {reason}"
            ));
        }
        let mut hits = Vec::new();
        for ((rowid, text), range) in found {
            let (session_id, day, width) = session_of(tx, rowid)?;
            hits.push(MemoryHit {
                session_id,
                day,
                seq: None,
                channel: None,
                snippet: excerpt(&text, Some(range)),
                width,
            });
        }
        return Ok((hits, total));
    };
    let n = values.push(tsquery.to_string());
    let sql = format!(
        "SELECT rowid FROM sessions WHERE words @@ to_tsquery('simple', {n}){conditions}
         ORDER BY ts_rank_cd({WEIGHTS}, words, to_tsquery('simple', {n}), {NORMALIZATION}) DESC,
                  rowid DESC"
    );
    let mut rowids: Vec<i32> = tx
        .query(&sql, &values.refs())?
        .iter()
        .map(|r| r.get(0))
        .collect();
    if let Some(regex) = &query.regex {
        // Best first: the pattern is checked on the best matches first.
        let (found, _, cut) = scan::sessions(tx, &rowids, regex, usize::MAX)?;
        if let Some(reason) = cut {
            notes.push(format!(
                "the re: check of session titles and summaries {reason}"
            ));
        }
        rowids = found.into_iter().map(|((r, _), _)| r as i32).collect();
    }
    let total = rowids.len();
    rowids.truncate(keep);
    let rows = tx.query(
        "SELECT rowid, id, day, entry_count, title, coalesce(summary, '') FROM sessions
         WHERE rowid = ANY($1)",
        &[&rowids],
    )?;
    let mut by_rowid: HashMap<i32, postgres::Row> =
        rows.into_iter().map(|r| (r.get(0), r)).collect();
    let mut hits = Vec::new();
    for rowid in rowids {
        let Some(row) = by_rowid.remove(&rowid) else {
            continue;
        };
        let (title, summary): (String, String) = (row.get(4), row.get(5));
        let best = [&title, &summary]
            .into_iter()
            .filter_map(|text| snippet::snippet(text, &query.phrases))
            .fold(None, |best: Option<(usize, String)>, next| match best {
                Some(b) if b.0 >= next.0 => Some(b),
                _ => Some(next),
            });
        let snippet = best.map_or_else(|| excerpt(&title, None), |(_, s)| s);
        hits.push(MemoryHit {
            session_id: row.get(1),
            day: row.get(2),
            seq: None,
            channel: None,
            snippet,
            width: width(count(i64::from(row.get::<_, i32>(3)))),
        });
    }
    Ok((hits, total))
}

/// The directory name, day and entry file width of session `rowid`.
fn session_of(tx: &Tx<'_>, rowid: i64) -> Result<(String, String, usize)> {
    let rowid = i32::try_from(rowid)
        .map_err(|_| Error::internal(format!("session number {rowid} is out of range")))?;
    let row = tx.query_one(
        "SELECT id, day, entry_count FROM sessions WHERE rowid = $1",
        &[&rowid],
    )?;
    Ok((
        row.get(0),
        row.get(1),
        width(count(i64::from(row.get::<_, i32>(2)))),
    ))
}

/// A count from the database as a size (never negative).
fn count(n: i64) -> usize {
    usize::try_from(n).unwrap_or(0)
}

/// Matches found by the index (newest first, with their rank), how many match, and a note
/// when not all of them were looked at.
type Matches = (Vec<(i64, f32)>, usize, Option<String>);

/// Entries matching `tsquery` within `span`, ranked; at most `keep` as hits; and how many
/// match.
fn ranked_entries(
    tx: &Tx<'_>,
    query: &Query,
    tsquery: &str,
    span: Span,
    keep: usize,
    notes: &mut Vec<String>,
) -> Result<(Vec<MemoryHit>, usize)> {
    let (mut found, mut total, bound) = if query.entries_only() || has_days(query) {
        filtered_matches(tx, query, tsquery, span)?
    } else {
        recent_matches(tx, &query.phrases, tsquery, span)?
    };
    let mut ranges = narrowed(
        &mut found,
        &mut total,
        bound,
        query.regex.as_ref(),
        notes,
        |ids, regex| scan::matching(tx, ids, regex),
    )?;
    // Best first (a higher rank is better), then newest.
    found.sort_by(|a, b| b.1.total_cmp(&a.1).then(b.0.cmp(&a.0)));
    found.truncate(keep);
    let ids: Vec<(i64, Option<std::ops::Range<usize>>)> = found
        .into_iter()
        .map(|(id, _)| (id, ranges.remove(&id)))
        .collect();
    Ok((entry_hits(tx, query, &ids)?, total))
}

/// Matches of `tsquery` within `span` with no other filter: the [`RANK`] most recent, and
/// how many match (counted up to [`COUNT_CAP`]).
fn recent_matches(tx: &Tx<'_>, phrases: &[Phrase], tsquery: &str, span: Span) -> Result<Matches> {
    let mut values = Values::default();
    let q = values.push(tsquery.to_string());
    let within = span.sql("id", &mut values);
    // Ranked once chosen: a rare word's matches are sorted by number first, and ranking
    // (or carrying the words through that sort) every match would cost more than the rest.
    let sql = format!(
        "SELECT m.id, ts_rank_cd({WEIGHTS}, e.words, to_tsquery('simple', {q}), {NORMALIZATION})
         FROM (SELECT id FROM entries WHERE words @@ to_tsquery('simple', {q}){within}
               ORDER BY id DESC LIMIT {RANK}) m
         JOIN entries e ON e.id = m.id
         ORDER BY m.id DESC"
    );
    let found: Vec<(i64, f32)> = tx
        .query(&sql, &values.refs())?
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    if found.len() < RANK {
        let total = found.len();
        return Ok((found, total, None));
    }
    let ranked = format!("ranked the {} most recent by relevance", thousands(RANK));
    if let Some(estimate) = common_word(tx, phrases, span)? {
        let by = "by PostgreSQL's statistics";
        let note = if estimate > COUNT_CAP {
            format!(
                "more than {} matches (about {} {by}): {ranked}",
                thousands(COUNT_CAP),
                thousands(estimate)
            )
        } else {
            format!("about {} matches {by}: {ranked}", thousands(estimate))
        };
        return Ok((found, estimate.min(COUNT_CAP), Some(note)));
    }
    let sql = format!(
        "SELECT count(*) FROM (SELECT 1 FROM entries
         WHERE words @@ to_tsquery('simple', {q}){within} LIMIT {}) m",
        COUNT_CAP + 1
    );
    let total = count(tx.query_one(&sql, &values.refs())?.get(0));
    let note = if total > COUNT_CAP {
        format!("more than {} matches: {ranked}", thousands(COUNT_CAP))
    } else {
        format!("{} matches: {ranked}", thousands(total))
    };
    Ok((found, total.min(COUNT_CAP), Some(note)))
}

/// How many entries hold the query's one word, when PostgreSQL's statistics know it as
/// common (in [`ESTIMATED`] entries or more), so that counting them, a visit to each, can
/// be skipped. Only a lone word over the whole store: the statistics know single words of
/// the whole table, not phrases, prefixes, several words together or one session.
fn common_word(tx: &Tx<'_>, phrases: &[Phrase], span: Span) -> Result<Option<usize>> {
    let [phrase] = phrases else {
        return Ok(None);
    };
    let [word] = phrase.words.as_slice() else {
        return Ok(None);
    };
    if phrase.prefix || span.low.is_some() || span.high.is_some() {
        return Ok(None);
    }
    let known = frequencies(tx, &[word.as_str()])?.and_then(|f| f.entries(0));
    Ok(known
        .filter(|&n| n >= ESTIMATED as f64)
        .map(|n| n.round() as usize))
}

/// Matches of `tsquery` within `span` that pass the filters the index cannot check
/// (channel, tag, days), among the [`EXAMINE`] most recent matches, with their rank; and
/// how many passed.
fn filtered_matches(tx: &Tx<'_>, query: &Query, tsquery: &str, span: Span) -> Result<Matches> {
    let mut values = Values::default();
    let q = values.push(tsquery.to_string());
    let within = span.sql("id", &mut values);
    let conditions = entry_conditions(query, &mut values);
    // The session's day is needed only for entries without a time of their own.
    let sessions = if has_days(query) {
        "JOIN sessions s ON s.rowid = e.session"
    } else {
        ""
    };
    // One statement: the EXAMINE most recent matches (numbers only), how many there are
    // (the first row, id NULL), and those passing the filters with their rank.
    let sql = format!(
        "WITH m AS MATERIALIZED (
             SELECT id FROM entries WHERE words @@ to_tsquery('simple', {q}){within}
             ORDER BY id DESC LIMIT {EXAMINE})
         SELECT NULL::BIGINT, count(*)::REAL FROM m
         UNION ALL
         SELECT e.id, ts_rank_cd({WEIGHTS}, e.words, to_tsquery('simple', {q}), {NORMALIZATION})
         FROM m JOIN entries e ON e.id = m.id {sessions}
         WHERE true{conditions}"
    );
    let mut examined = 0;
    let mut found: Vec<(i64, f32)> = Vec::new();
    for row in tx.query(&sql, &values.refs())? {
        match row.get::<_, Option<i64>>(0) {
            Some(id) => found.push((id, row.get(1))),
            None => examined = row.get::<_, f32>(1) as usize,
        }
    }
    found.sort_by_key(|&(id, _)| std::cmp::Reverse(id));
    let note = (examined >= EXAMINE).then(|| {
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
fn entry_conditions(query: &Query, values: &mut Values) -> String {
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
        let n = values.push(tag.clone());
        sql.push_str(&format!(
            " AND e.id IN (SELECT entry FROM entry_tags WHERE tag = {n})"
        ));
    }
    for (day, op) in [(&query.since, ">="), (&query.until, "<=")] {
        if let Some(day) = day {
            let n = values.push(day.clone());
            // Days order by bytes, as SQLite compares them.
            sql.push_str(&format!(
                " AND coalesce(left(e.ts, 10), s.day) COLLATE \"C\" {op} {n}"
            ));
        }
    }
    sql
}

/// Entries for a query without words: a bounded scan, newest first.
fn scanned_entries(
    tx: &Tx<'_>,
    query: &Query,
    span: Span,
    keep: usize,
    notes: &mut Vec<String>,
) -> Result<(Vec<MemoryHit>, usize)> {
    let counted = counted(tx, query, span)?;
    let (scanned, found) = scan::entries(tx, query, span, keep, counted.is_none())?;
    if let Some(reason) = scanned.cut {
        let of: i64 = tx
            .query_one("SELECT n FROM memory_counts WHERE name = 'entries'", &[])?
            .get(0);
        notes.push(format!(
            "the scan {reason}, newest first: {} of {} entries were searched",
            thousands(scanned.read),
            thousands(count(of))
        ));
    }
    let hits = entry_hits(tx, query, &scanned.hits)?;
    Ok((hits, counted.unwrap_or(found)))
}

/// How many entries a query of filters only selects, from the counters, when they can
/// tell: a session, channels, or one tag (each alone, or within a session).
fn counted(tx: &Tx<'_>, query: &Query, span: Span) -> Result<Option<usize>> {
    if query.regex.is_some() || has_days(query) || query.tags.len() > 1 {
        return Ok(None);
    }
    let session = span
        .low
        .map(|low| split_entry_id(low).0)
        .and_then(|s| i32::try_from(s).ok());
    let n: i64 = match (query.tags.first(), query.channels.is_empty()) {
        (Some(_), false) => return Ok(None),
        (Some(tag), true) => match span.low.zip(span.high) {
            Some((low, high)) => tx
                .query_one(
                    "SELECT count(*) FROM entry_tags WHERE tag = $1 AND entry BETWEEN $2 AND $3",
                    &[tag, &low, &high],
                )?
                .get(0),
            None => tx
                .query_one(
                    "SELECT coalesce(sum(n), 0)::BIGINT FROM memory_tags WHERE tag = $1",
                    &[tag],
                )?
                .get(0),
        },
        (None, _) => {
            let channels: Vec<&str> = match query.channels.is_empty() {
                true => Channel::ALL.iter().map(|c| c.as_str()).collect(),
                false => query.channels.iter().map(|c| c.as_str()).collect(),
            };
            tx.query_one(
                "SELECT coalesce(sum(n), 0)::BIGINT FROM session_channels
                 WHERE channel = ANY($1) AND ($2::INTEGER IS NULL OR session = $2)",
                &[&channels, &session],
            )?
            .get(0)
        }
    };
    Ok(Some(count(n)))
}

/// The hits for entries `ids` (in that order), each with its snippet: around the query's
/// words when it has words and no pattern range is given, else around the pattern's match
/// (the range), else the entry's first words.
fn entry_hits(
    tx: &Tx<'_>,
    query: &Query,
    ids: &[(i64, Option<std::ops::Range<usize>>)],
) -> Result<Vec<MemoryHit>> {
    let numbers: Vec<i64> = ids.iter().map(|(id, _)| *id).collect();
    let rows = tx.query(
        "SELECT e.id, e.channel, s.id, s.day, s.entry_count, left(e.content, $2)
         FROM entries e JOIN sessions s ON s.rowid = e.session WHERE e.id = ANY($1)",
        &[&numbers, &SNIPPET_CHARS],
    )?;
    let mut by_id: HashMap<i64, postgres::Row> = rows.into_iter().map(|r| (r.get(0), r)).collect();
    let mut hits = Vec::new();
    for (id, found) in ids {
        let Some(row) = by_id.remove(id) else {
            continue;
        };
        let channel: String = row.get(1);
        let channel = Channel::parse(&channel).ok_or_else(|| {
            Error::internal(format!("entry {id} has an unknown channel {channel:?}"))
        })?;
        let content: String = row.get(5);
        let snippet = match found {
            Some(range) => excerpt(&content, Some(range.clone())),
            None => snippet::snippet(&content, &query.phrases)
                .map_or_else(|| excerpt(&content, None), |(_, s)| s),
        };
        hits.push(MemoryHit {
            session_id: row.get(2),
            day: row.get(3),
            seq: Some(split_entry_id(*id).1),
            channel: Some(channel),
            snippet,
            width: width(count(i64::from(row.get::<_, i32>(4)))),
        });
    }
    Ok(hits)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;
    use crate::store::memory::record::Transcript;
    use crate::store::memory::testing::{entry, session};
    use crate::store::postgres::scratch::ScratchServer;

    #[test]
    fn a_common_word_is_estimated_not_counted() {
        let server = ScratchServer::start().unwrap();
        let store = Store::connect(&server.database("estimate").unwrap()).unwrap();
        let n = ESTIMATED + 1_000;
        let entries = (0..n)
            .map(|i| entry(&format!("k{i}"), Channel::User, &format!("common word {i}")))
            .collect();
        let transcript = Transcript {
            sessions: vec![(session("big", None, "big"), entries)],
        };
        store.change_memory(|m| m.import(&transcript)).unwrap();
        // Before ANALYZE there are no statistics: counted.
        let (_, total, note) = store.memory(|m| m.search("common", 5)).unwrap();
        assert_eq!(total, n);
        assert_eq!(
            note.as_deref(),
            Some("21,000 matches: ranked the 2,000 most recent by relevance")
        );
        store.change_memory(|m| m.compact()).unwrap();
        let (hits, total, note) = store.memory(|m| m.search("common", 5)).unwrap();
        assert_eq!((hits.len(), total), (5, n), "every row was sampled");
        assert_eq!(
            note.as_deref(),
            Some(
                "about 21,000 matches by PostgreSQL's statistics: ranked the 2,000 most recent \
                 by relevance"
            )
        );
        // Several words, a phrase, a prefix: counted, as the statistics cannot tell.
        for query in ["common word", "\"common word\"", "comm*"] {
            let (_, total, note) = store.memory(|m| m.search(query, 5)).unwrap();
            assert_eq!(total, n, "{query}");
            assert!(note.unwrap().starts_with("21,000 matches"), "{query}");
        }
    }

    fn built(text: &str) -> Option<String> {
        tsquery(&Query::parse(text).unwrap().phrases, Tier::Every)
    }

    #[test]
    fn tsqueries_are_built_from_words_never_from_syntax() {
        assert_eq!(
            built("Deploy parse_amount migrat* \"a b\" c_d*").as_deref(),
            Some(
                "('deploy') & ('parse' <-> 'amount') & ('migrat':*) & ('a' <-> 'b') & ('c' <-> 'd':*)"
            )
        );
        assert_eq!(
            built("'x' & y | !z <-> (w) :* \\").as_deref(),
            Some("('x') & ('y') & ('z') & ('w')")
        );
        assert_eq!(built("&|!()<->:*'\\"), None);
    }
}
