//! Memory search: entries and sessions matching a query (see `query.rs` for the language),
//! best first, with snippets, within a bounded time — decided once for every backend over
//! the questions each index answers ([`SearchSql`]).
//!
//! Words go to the full-text index (never as syntax) and are ranked by it. Ranking costs
//! time for every match ranked, and counting visits every match counted, so very common
//! terms are bounded: only the [`RANK`] most recent matches are ranked, matches are counted
//! up to [`COUNT_CAP`] (or estimated, where a backend's statistics know the word as
//! common), and filters the index cannot check (channel, tag, days) are checked on the
//! [`EXAMINE`] most recent matches — each time the note says so. Queries without words
//! (filters only, `re:` only) are bounded scans (`scan.rs`), newest first. So a word in
//! every entry costs a bounded time, not one that grows with its matches (the README's
//! figures, "Memory search").
//!
//! A `file:` keeps the entries of the sessions that changed the file (`session_files.rs`):
//! with words, each of those sessions is searched in its own range (up to 64; past that the
//! words' most recent matches are filtered by the store's table of changed files, in SQL),
//! and a query of filters only scans those sessions alone rather than all of memory: a
//! `file:` beside words costs about what the words cost alone.
//!
//! Session titles and summaries match too (`seq: None` hits). Which tier of words comes
//! first and where sessions go among entries is decided in `tiers.rs`; this file answers
//! one parsed query.

use std::collections::HashMap;

use super::dialect::{FilesSql, Ranked, SearchSql, SessionText, WriteSql};
use super::query::{COUNT_CAP, EXAMINE, Query, RANK};
use super::records::{Found, MemoryHit};
use super::scan::{self, Scanned, excerpt, narrowed, thousands};
use super::span::Span;
use super::tiers::{self, Tiered};
use super::{split_entry_id, width};
use crate::error::Result;
use crate::model::transcript::Channel;

/// The hits for `text`, best first, at most `limit`; how many match in all; and a note
/// when the search was bounded (very common words, a cut scan) or found nothing to search
/// for. A malformed query is an `Error::invalid` saying why. The order is `tiers.rs`'s.
pub fn search<D: SearchSql + WriteSql + FilesSql>(
    index: &D,
    text: &str,
    limit: usize,
) -> Result<Found> {
    tiers::search(text, limit, |query, limit| {
        search_query(index, query, limit)
    })
}

/// The sessions and the entries matching one parsed query, at most `limit` of each.
fn search_query<D: SearchSql + WriteSql + FilesSql>(
    index: &D,
    query: &Query,
    limit: usize,
) -> Result<Tiered> {
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
        && query.file.is_none()
    {
        return nothing(Some("the query has no words to search for".into()));
    }
    if let Some(note) = index.unanswerable(query) {
        return nothing(note);
    }
    let span = match &query.session {
        Some(id) => match index.session_number(id)? {
            Some(rowid) => Span::session(rowid),
            None => return nothing(Some(format!("no session is named {id}"))),
        },
        None => Span::default(),
    };
    // The sessions that changed the file, newest first: a scan reads only theirs.
    let changers = match &query.file {
        Some(file) => {
            let (rows, _) = index.sessions_changing(file, usize::MAX)?;
            let mut rowids: Vec<i64> = rows.iter().map(|(row, _)| row.rowid).collect();
            rowids.sort_unstable_by(|a, b| b.cmp(a));
            if let Some(low) = span.low {
                rowids.retain(|&rowid| rowid == split_entry_id(low).0);
            }
            if rowids.is_empty() {
                return nothing(Some(format!("no session changed {}", file.path)));
            }
            Some(rowids)
        }
        None => None,
    };
    let expression = index.expression(query);
    let mut notes = Vec::new();
    let (session_hits, session_total) = if query.entries_only() {
        (Vec::new(), 0)
    } else {
        session_matches(index, query, expression.as_deref(), limit, &mut notes)?
    };
    let (entry_hits, entry_total) = match &expression {
        Some(expression) => ranked_entries(
            index,
            query,
            expression,
            span,
            changers.as_deref(),
            limit,
            &mut notes,
        )?,
        None => match &changers {
            Some(rowids) => changers_entries(index, query, rowids, limit, &mut notes)?,
            None => scanned_entries(index, query, span, limit, &mut notes)?,
        },
    };
    Ok(Tiered {
        sessions: session_hits,
        session_total,
        entries: entry_hits,
        entry_total,
        notes,
    })
}

pub(super) fn has_days(query: &Query) -> bool {
    query.since.is_some() || query.until.is_some()
}

/// ` AND ...` conditions on `e` (entries) for the query's channel, tag and day filters:
/// `day` is the expression of an entry's day (its own time's, else its session's), and
/// `bind` binds a value and gives its placeholder.
pub(super) fn entry_conditions(
    query: &Query,
    day: &str,
    tool: &str,
    mut bind: impl FnMut(String) -> String,
) -> String {
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
    if !query.tools.is_empty() {
        let names: Vec<String> = query.tools.iter().map(|t| bind(t.clone())).collect();
        sql.push_str(&format!(" AND lower({tool}) IN ({})", names.join(", ")));
    }
    for tag in &query.tags {
        let n = bind(tag.clone());
        sql.push_str(&format!(
            " AND e.id IN (SELECT entry FROM entry_tags WHERE tag = {n})"
        ));
    }
    if let Some(file) = &query.file {
        let changed = file.condition("path", &mut bind);
        sql.push_str(&format!(
            " AND e.session IN (SELECT session FROM session_files WHERE {changed})"
        ));
    }
    for (since, op) in [(&query.since, ">="), (&query.until, "<=")] {
        if let Some(since) = since {
            let n = bind(since.clone());
            sql.push_str(&format!(" AND {day} {op} {n}"));
        }
    }
    sql
}

/// ` AND ...` conditions on sessions for the query's `session:` and days: `id` and `day`
/// are the expressions of a session's name and day.
pub(super) fn session_conditions(
    query: &Query,
    id: &str,
    day: &str,
    mut bind: impl FnMut(String) -> String,
) -> String {
    let mut sql = String::new();
    if let Some(name) = &query.session {
        let n = bind(name.clone());
        sql.push_str(&format!(" AND {id} = {n}"));
    }
    if let Some(file) = &query.file {
        let changed = file.condition("f.path", &mut bind);
        sql.push_str(&format!(
            " AND {id} IN (SELECT c.id FROM session_files f JOIN sessions c \
             ON c.rowid = f.session WHERE {changed})"
        ));
    }
    for (since, op) in [(&query.since, ">="), (&query.until, "<=")] {
        if let Some(since) = since {
            let n = bind(since.clone());
            sql.push_str(&format!(" AND {day} {op} {n}"));
        }
    }
    sql
}

/// Sessions whose title or summary match, best first, at most `keep`, and how many match.
fn session_matches<D: SearchSql>(
    index: &D,
    query: &Query,
    expression: Option<&str>,
    keep: usize,
    notes: &mut Vec<String>,
) -> Result<(Vec<MemoryHit>, usize)> {
    let Some(expression) = expression else {
        // No words: only a pattern can match a title or summary, most recent first.
        let Some(regex) = &query.regex else {
            return Ok((Vec::new(), 0));
        };
        let rowids = index.recent_session_numbers(query)?;
        let (found, total, cut) = scan::sessions(index, &rowids, regex, keep)?;
        if let Some(reason) = cut {
            notes.push(format!(
                "the re: scan of session titles and summaries {reason}"
            ));
        }
        let hits = found
            .into_iter()
            .map(|((session, text), range)| session_hit(session, excerpt(&text, Some(range))))
            .collect();
        return Ok((hits, total));
    };
    let mut ranked = index.ranked_sessions(expression, query)?;
    if let Some(regex) = &query.regex {
        // Best first: the pattern is checked on the best matches first.
        let rowids: Vec<i64> = ranked.iter().map(|&(rowid, _)| rowid).collect();
        let (found, _, cut) = scan::sessions(index, &rowids, regex, usize::MAX)?;
        if let Some(reason) = cut {
            notes.push(format!(
                "the re: check of session titles and summaries {reason}"
            ));
        }
        let kept: std::collections::HashSet<i64> =
            found.iter().map(|((s, _), _)| s.rowid).collect();
        ranked.retain(|(rowid, _)| kept.contains(rowid));
    }
    let total = ranked.len();
    ranked.truncate(keep);
    let rowids: Vec<i64> = ranked.iter().map(|&(rowid, _)| rowid).collect();
    let mut texts: HashMap<i64, SessionText> = index
        .session_texts(&rowids)?
        .into_iter()
        .map(|s| (s.rowid, s))
        .collect();
    let mut hits = Vec::new();
    for (rowid, snippet) in ranked {
        let Some(session) = texts.remove(&rowid) else {
            continue;
        };
        let snippet = snippet.unwrap_or_else(|| index.session_snippet(query, &session));
        hits.push(session_hit(session, snippet));
    }
    Ok((hits, total))
}

fn session_hit(session: SessionText, snippet: String) -> MemoryHit {
    MemoryHit {
        session_id: session.id,
        day: session.day,
        seq: None,
        channel: None,
        snippet,
        width: width(session.entries),
        all_terms: true,
    }
}

/// Sessions a `file:` selects that are searched one by one, each within its own range;
/// past this many, the words' most recent matches over all memory are filtered instead.
const CHANGERS_ONE_BY_ONE: usize = 64;

/// Matches found by the index (newest first, ranked), how many match, and a note when not
/// all of them were looked at.
type Matches = (Vec<Ranked>, usize, Option<String>);

/// Entries matching the words of `query` (the index's `expression`) within `span`, ranked;
/// at most `keep` as hits; and how many match.
fn ranked_entries<D: SearchSql>(
    index: &D,
    query: &Query,
    expression: &str,
    span: Span,
    changers: Option<&[i64]>,
    keep: usize,
    notes: &mut Vec<String>,
) -> Result<(Vec<MemoryHit>, usize)> {
    let (mut found, mut total, bound) = match changers {
        Some(rowids) if rowids.len() <= CHANGERS_ONE_BY_ONE => {
            changers_matches(index, query, expression, rowids)?
        }
        _ if query.entries_only() || has_days(query) || query.file.is_some() => {
            filtered_matches(index, query, expression, span)?
        }
        _ => recent_matches(index, query, expression, span)?,
    };
    let mut ranges = narrowed(
        &mut found,
        &mut total,
        bound,
        query.regex.as_ref(),
        notes,
        |ids, regex| scan::matching(index, ids, regex),
    )?;
    // Best first, then newest; what was said before tools (`tiers.rs`).
    found.sort_by(|a, b| b.1.total_cmp(&a.1).then(b.0.cmp(&a.0)));
    let ids: Vec<(i64, Option<std::ops::Range<usize>>)> = said_first(index, &found, keep)?
        .into_iter()
        .map(|id| (id, ranges.remove(&id)))
        .collect();
    Ok((index.entry_hits(query, &ids)?, total))
}

/// Entries whose channel is asked at once, best first, while fewer said ones are known than
/// are kept.
const SAID_BATCH: usize = 64;

/// The first `keep` of `ranked` (best first) with what was said before tools' calls and
/// output, each part in its order. Only as many channels are asked as it takes to find
/// `keep` said entries (all of them when fewer are said): joining every match ranked to
/// its entry for its channel doubled the time of a word in 5,000 entries.
fn said_first<D: SearchSql>(index: &D, ranked: &[Ranked], keep: usize) -> Result<Vec<i64>> {
    let (mut said, mut tools) = (Vec::new(), Vec::new());
    for batch in ranked.chunks(SAID_BATCH) {
        if said.len() >= keep {
            break;
        }
        let ids: Vec<i64> = batch.iter().map(|&(id, _)| id).collect();
        let which = index.said(&ids)?;
        for id in ids {
            match which.contains(&id) {
                true => said.push(id),
                false => tools.push(id),
            }
        }
    }
    said.extend(tools);
    said.truncate(keep);
    Ok(said)
}

/// Matches of `expression` within `span` with no other filter: the [`RANK`] most recent,
/// and how many match (counted up to [`COUNT_CAP`], or estimated).
fn recent_matches<D: SearchSql>(
    index: &D,
    query: &Query,
    expression: &str,
    span: Span,
) -> Result<Matches> {
    let found = index.recent_matches(expression, span, RANK)?;
    if found.len() < RANK {
        let total = found.len();
        return Ok((found, total, None));
    }
    let ranked = format!("ranked the {} most recent by relevance", thousands(RANK));
    if let Some(estimate) = index.estimated_matches(query, span)? {
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
    let total = index.count_matches(expression, span, COUNT_CAP + 1)?;
    let note = if total > COUNT_CAP {
        format!("more than {} matches: {ranked}", thousands(COUNT_CAP))
    } else {
        format!("{} matches: {ranked}", thousands(total))
    };
    Ok((found, total.min(COUNT_CAP), Some(note)))
}

/// Matches of `expression` within `span` that pass the filters the index cannot check
/// (channel, tag, days), among the [`EXAMINE`] most recent matches of the words, ranked;
/// and how many passed.
fn filtered_matches<D: SearchSql>(
    index: &D,
    query: &Query,
    expression: &str,
    span: Span,
) -> Result<Matches> {
    let (found, bounded) = index.filtered(expression, query, span, EXAMINE)?;
    let note = bounded.then(|| {
        format!(
            "the filters were checked on the {} most recent matches of the words only",
            thousands(EXAMINE)
        )
    });
    let total = found.len();
    Ok((found, total, note))
}

/// Matches of `expression` within the sessions a `file:` selected (`rowids`, newest first),
/// each session's range asked in turn: the sessions that changed a file are few and may be
/// old, where the [`EXAMINE`] most recent matches of a common word over all memory never
/// reach.
fn changers_matches<D: SearchSql>(
    index: &D,
    query: &Query,
    expression: &str,
    rowids: &[i64],
) -> Result<Matches> {
    let mut found = Vec::new();
    let mut bounded = false;
    for &rowid in rowids {
        let (mut matches, cut) =
            index.filtered(expression, query, Span::session(rowid), EXAMINE)?;
        bounded |= cut;
        found.append(&mut matches);
    }
    let note = bounded.then(|| {
        format!(
            "the filters were checked on the {} most recent matches of the words in each \
             session only",
            thousands(EXAMINE)
        )
    });
    let total = found.len();
    Ok((found, total, note))
}

/// Entries for a query without words: a bounded scan, newest first.
fn scanned_entries<D: SearchSql>(
    index: &D,
    query: &Query,
    span: Span,
    keep: usize,
    notes: &mut Vec<String>,
) -> Result<(Vec<MemoryHit>, usize)> {
    let counted = counted(index, query, span)?;
    let (Scanned { hits, read, cut }, scanned) =
        scan::entries(index, query, span, keep, counted.is_none())?;
    if let Some(reason) = cut {
        notes.push(format!(
            "the scan {reason}, newest first: {} of {} entries were searched",
            thousands(read),
            thousands(index.stored_entries()?)
        ));
    }
    let hits = index.entry_hits(query, &hits)?;
    Ok((hits, counted.unwrap_or(scanned)))
}

/// Entries for a query without words but with a `file:`: the entries of the sessions that
/// changed the file (`rowids`, newest first), each session scanned in turn, newest first.
/// A session holds few entries next to the store, so each is read whole and counted, until
/// the hits are in: then sessions are counted from the counters where they can tell.
fn changers_entries<D: SearchSql>(
    index: &D,
    query: &Query,
    rowids: &[i64],
    keep: usize,
    notes: &mut Vec<String>,
) -> Result<(Vec<MemoryHit>, usize)> {
    let mut hits = Vec::new();
    let mut total = 0;
    for &rowid in rowids {
        let span = Span::session(rowid);
        let want = keep.saturating_sub(hits.len());
        // Once the hits are in, a session the counters can count is not read.
        if want == 0
            && let Some(n) = counted(index, query, span)?
        {
            total += n;
            continue;
        }
        let (
            Scanned {
                hits: found,
                read,
                cut,
            },
            passed,
        ) = scan::entries(index, query, span, want, true)?;
        if let Some(reason) = cut {
            notes.push(format!(
                "the scan of a session {reason}: {} of its entries were searched",
                thousands(read)
            ));
        }
        hits.extend(found);
        total += passed;
    }
    Ok((index.entry_hits(query, &hits)?, total))
}

/// How many entries a query of filters only selects, from the counters, when they can
/// tell: a session, channels, or one tag (each alone, or within a session).
fn counted<D: SearchSql>(index: &D, query: &Query, span: Span) -> Result<Option<usize>> {
    if query.regex.is_some() || has_days(query) || query.tags.len() > 1 || !query.tools.is_empty() {
        return Ok(None);
    }
    let session = span.low.map(|low| split_entry_id(low).0);
    match (query.tags.first(), query.channels.is_empty()) {
        (Some(_), false) => Ok(None),
        (Some(tag), true) => Ok(Some(match span.low.zip(span.high) {
            Some((low, high)) => index.tag_count_within(tag, low, high)?,
            None => index.tag_count(tag)?,
        })),
        (None, _) => {
            let channels = match query.channels.is_empty() {
                true => Channel::ALL.to_vec(),
                false => query.channels.clone(),
            };
            Ok(Some(index.channel_count(&channels, session)?))
        }
    }
}

#[cfg(test)]
mod tests;
