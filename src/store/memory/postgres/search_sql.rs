//! What memory search asks of PostgreSQL ([`SearchSql`]), over the `words` tsvector columns
//! and their GIN indexes (`schema.sql`); `../bounded_search.rs` orders, bounds and notes
//! the answers, with the same bounds on every backend.
//!
//! The tsquery is built here from the parsed [`Phrase`]s, never from user text: each word
//! (letters and digits only, so never an operator, a quote or a backslash) becomes a quoted
//! lexeme, a phrase joins its words with `<->`, a prefix ends with `:*`, and all terms are
//! joined with `&`; `to_tsquery('simple', ...)` then cuts and lowercases the lexemes as the
//! `simple` configuration cut the stored text. Not `websearch_to_tsquery`: it has no prefix
//! match (`migrat*` must find `migration`), and it would read `or` and `-` in user text as
//! operators where every other backend reads words.
//!
//! Matches are ranked by `ts_rank_cd` with SQLite's column weights (tags twice content,
//! title twice summary), divided by the log of the length as bm25 favours shorter texts.
//! The most recent matches are found with `ORDER BY id DESC LIMIT` (the planner walks the
//! primary key backwards for a common word and reads the GIN index for a rare one); a lone
//! word the statistics know as common is not counted: its count is their estimate
//! (`search_sql/estimate.rs`, [`ESTIMATED`]), and neither are several words, a phrase or a
//! prefix the planner expects in more than twice as many entries (`estimate::PLANNED`):
//! their count is the planner's estimate. Fewer are counted, and said as SQLite says them.
//! `re:` is Rust's regex on bounded batches (`search_sql/scan.rs`). Snippets are cut in
//! Rust (`snippet.rs` says why not `ts_headline`).
//!
//! Where PostgreSQL is slower than FTS5: a GIN index holds neither order nor counts, so the
//! most recent matches of a word in a few percent of the entries are found by walking the
//! primary key backwards and testing each row (a word in 5% of them: 40,000 rows for
//! 2,000 matches), and counting visits every match. Making the planner read such a word's
//! matches from the GIN index instead was measured several times slower: reading visits a
//! table page per match, walking one per ten rows.
//!
//! So the slowest queries here are those that must count or walk: several words together
//! in fewer entries than the planner's bound (counted), and a word in a few percent of the
//! entries with a filter (its `EXAMINE` most recent matches walked to). What the
//! statistics or the planner estimate is not counted, which spares most of what a common
//! word or phrase would cost (the README's figures, "Memory search").

mod estimate;
mod scan;
mod snippet;

pub(super) use estimate::frequencies;

use std::collections::{HashMap, HashSet};

use postgres::types::ToSql;

use crate::error::{Error, Result};
use crate::model::Meta;
use crate::model::transcript::Channel;
use crate::store::fts::{self, Tier};
use crate::store::memory::bounded_search::{entry_conditions, has_days, session_conditions};
use crate::store::memory::dialect::{
    Filtered, Hit, Ranked, SearchSql, SessionText, Visit, said_sql,
};
use crate::store::memory::query::{Phrase, Query, RANK};
use crate::store::memory::records::MemoryHit;
use crate::store::memory::scan::{excerpt, thousands};
use crate::store::memory::span::Span;
use crate::store::memory::{count, split_entry_id, width};
use crate::store::postgres::Tx;

/// The tool an entry's meta names, in SQL.
fn meta_tool() -> String {
    format!("(e.meta::json ->> '{}')", Meta::TOOL)
}

/// A lone word PostgreSQL's statistics put in this many entries or more is not counted:
/// its count is the statistics' estimate, and the note says so. Counting visits each
/// match, where the estimate is sampled from 300,000 rows (a word in 2% of them is known to
/// within a few percent).
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

impl SearchSql for Tx<'_> {
    fn unanswerable(&self, query: &Query) -> Option<Option<String>> {
        if let Some(word) = query
            .phrases
            .iter()
            .flat_map(|p| &p.words)
            .find(|w| w.len() > LONGEST_WORD)
        {
            let shown: String = word.chars().take(20).collect();
            return Some(Some(format!(
                "{shown}… is longer than {} bytes: no word that long is indexed",
                thousands(LONGEST_WORD)
            )));
        }
        // PostgreSQL text cannot hold NUL: no tag named with one exists.
        query.tags.iter().any(|t| t.contains('\0')).then_some(None)
    }

    fn expression(&self, query: &Query) -> Option<String> {
        tsquery(&query.phrases, query.tier)
    }

    /// Ranked once chosen: a rare word's matches are sorted by number first, and ranking
    /// (or carrying the words through that sort) every match would cost more than the rest.
    fn recent_matches(&self, expr: &str, span: Span, n: usize) -> Result<Vec<Ranked>> {
        let mut values = Values::default();
        let q = values.push(expr.to_string());
        let within = span.sql("id", |v| values.push(v));
        let sql = format!(
            "SELECT m.id, ts_rank_cd({WEIGHTS}, e.words, to_tsquery('simple', {q}), {NORMALIZATION})
             FROM (SELECT id FROM entries WHERE words @@ to_tsquery('simple', {q}){within}
                   ORDER BY id DESC LIMIT {n}) m
             JOIN entries e ON e.id = m.id
             ORDER BY m.id DESC"
        );
        Ok(self
            .query(&sql, &values.refs())?
            .iter()
            .map(|r| (r.get::<_, i64>(0), f64::from(r.get::<_, f32>(1))))
            .collect())
    }

    /// One statement for the batch.
    fn said(&self, ids: &[i64]) -> Result<HashSet<i64>> {
        let sql = format!(
            "SELECT id FROM entries WHERE id = ANY($1) AND {}",
            said_sql("channel")
        );
        let ids = ids.to_vec();
        Ok(self
            .query(&sql, &[&ids])?
            .iter()
            .map(|r| r.get::<_, i64>(0))
            .collect())
    }

    fn count_matches(&self, expr: &str, span: Span, cap: usize) -> Result<usize> {
        let mut values = Values::default();
        let q = values.push(expr.to_string());
        let within = span.sql("id", |v| values.push(v));
        let sql = format!(
            "SELECT count(*) FROM (SELECT 1 FROM entries
             WHERE words @@ to_tsquery('simple', {q}){within} LIMIT {cap}) m"
        );
        Ok(count(self.query_one(&sql, &values.refs())?.get(0)))
    }

    /// A lone word by the statistics of its frequency; any other query by the planner's
    /// estimate, when that is far past what counting can afford.
    fn estimated_matches(&self, query: &Query, span: Span) -> Result<Option<usize>> {
        if lone_word(&query.phrases, span).is_some() {
            return common_word(self, &query.phrases, span);
        }
        match self.expression(query) {
            Some(expr) => estimate::planned(self, &expr, span),
            None => Ok(None),
        }
    }

    /// One statement: the `examine` most recent matches (numbers only), how many there
    /// are (the first row, id NULL), and those passing the filters with their rank.
    fn filtered(&self, expr: &str, query: &Query, span: Span, examine: usize) -> Result<Filtered> {
        let mut values = Values::default();
        let q = values.push(expr.to_string());
        let within = span.sql("id", |v| values.push(v));
        // Days order by bytes, as SQLite compares them.
        let conditions = entry_conditions(
            query,
            "coalesce(left(e.ts, 10), s.day) COLLATE \"C\"",
            &meta_tool(),
            |v| values.push(v),
        );
        // The session's day is needed only for entries without a time of their own.
        let sessions = if has_days(query) {
            "JOIN sessions s ON s.rowid = e.session"
        } else {
            ""
        };
        let sql = format!(
            "WITH m AS MATERIALIZED (
                 SELECT id FROM entries WHERE words @@ to_tsquery('simple', {q}){within}
                 ORDER BY id DESC LIMIT {examine})
             SELECT NULL::BIGINT, count(*)::REAL FROM m
             UNION ALL
             SELECT e.id, ts_rank_cd({WEIGHTS}, e.words, to_tsquery('simple', {q}), {NORMALIZATION})
             FROM m JOIN entries e ON e.id = m.id {sessions}
             WHERE true{conditions}"
        );
        let mut examined = 0;
        let mut found: Vec<Ranked> = Vec::new();
        for row in self.query(&sql, &values.refs())? {
            match row.get::<_, Option<i64>>(0) {
                Some(id) => found.push((id, f64::from(row.get::<_, f32>(1)))),
                None => examined = row.get::<_, f32>(1) as usize,
            }
        }
        found.sort_by_key(|&(id, _)| std::cmp::Reverse(id));
        Ok((found, examined >= examine))
    }

    fn scan(&self, query: &Query, span: Span, visit: Visit<'_>) -> Result<()> {
        scan::entries(self, query, span, visit)
    }

    fn content(&self, id: i64) -> Result<String> {
        scan::content(self, id)
    }

    fn contents(&self, ids: &[i64], visit: &mut dyn FnMut(i64, &str) -> bool) -> Result<()> {
        scan::contents(self, ids, visit)
    }

    /// One statement for all of them; snippets cut in Rust around the query's phrases.
    fn entry_hits(&self, query: &Query, ids: &[Hit]) -> Result<Vec<MemoryHit>> {
        let numbers: Vec<i64> = ids.iter().map(|(id, _)| *id).collect();
        let rows = self.query(
            "SELECT e.id, e.channel, s.id, s.day, s.entry_count, left(e.content, $2)
             FROM entries e JOIN sessions s ON s.rowid = e.session WHERE e.id = ANY($1)",
            &[&numbers, &SNIPPET_CHARS],
        )?;
        let mut by_id: HashMap<i64, postgres::Row> =
            rows.into_iter().map(|r| (r.get(0), r)).collect();
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
                all_terms: true,
            });
        }
        Ok(hits)
    }

    fn tag_count(&self, tag: &str) -> Result<usize> {
        let sql = "SELECT coalesce(sum(n), 0)::BIGINT FROM memory_tags WHERE tag = $1";
        Ok(count(self.query_one(sql, &[&tag])?.get(0)))
    }

    fn tag_count_within(&self, tag: &str, low: i64, high: i64) -> Result<usize> {
        let sql = "SELECT count(*) FROM entry_tags WHERE tag = $1 AND entry BETWEEN $2 AND $3";
        Ok(count(self.query_one(sql, &[&tag, &low, &high])?.get(0)))
    }

    fn channel_count(&self, channels: &[Channel], session: Option<i64>) -> Result<usize> {
        let names: Vec<&str> = channels.iter().map(|c| c.as_str()).collect();
        let session = session.and_then(|s| i32::try_from(s).ok());
        let n: i64 = self
            .query_one(
                "SELECT coalesce(sum(n), 0)::BIGINT FROM session_channels
                 WHERE channel = ANY($1) AND ($2::INTEGER IS NULL OR session = $2)",
                &[&names, &session],
            )?
            .get(0);
        Ok(count(n))
    }

    fn stored_entries(&self) -> Result<usize> {
        let n: i64 = self
            .query_one("SELECT n FROM memory_counts WHERE name = 'entries'", &[])?
            .get(0);
        Ok(count(n))
    }

    fn ranked_sessions(&self, expr: &str, query: &Query) -> Result<Vec<(i64, Option<String>)>> {
        let mut values = Values::default();
        let conditions = session_conditions(query, "id", "day COLLATE \"C\"", |v| values.push(v));
        let n = values.push(expr.to_string());
        let sql = format!(
            "SELECT rowid FROM sessions WHERE words @@ to_tsquery('simple', {n}){conditions}
             ORDER BY ts_rank_cd({WEIGHTS}, words, to_tsquery('simple', {n}), {NORMALIZATION}) DESC,
                      rowid DESC"
        );
        Ok(self
            .query(&sql, &values.refs())?
            .iter()
            .map(|r| (i64::from(r.get::<_, i32>(0)), None))
            .collect())
    }

    fn recent_session_numbers(&self, query: &Query) -> Result<Vec<i64>> {
        let mut values = Values::default();
        let conditions = session_conditions(query, "id", "day COLLATE \"C\"", |v| values.push(v));
        let sql = format!(
            "SELECT rowid FROM sessions WHERE true{conditions}
             ORDER BY day COLLATE \"C\" DESC, started COLLATE \"C\" DESC NULLS LAST, rowid DESC"
        );
        Ok(self
            .query(&sql, &values.refs())?
            .iter()
            .map(|r| i64::from(r.get::<_, i32>(0)))
            .collect())
    }

    /// One statement for all of them.
    fn session_texts(&self, rowids: &[i64]) -> Result<Vec<SessionText>> {
        let numbers: Vec<i32> = rowids
            .iter()
            .filter_map(|&r| i32::try_from(r).ok())
            .collect();
        let rows = self.query(
            "SELECT rowid, id, day, entry_count, title, coalesce(summary, '') FROM sessions
             WHERE rowid = ANY($1)",
            &[&numbers],
        )?;
        let mut by_rowid: HashMap<i32, postgres::Row> =
            rows.into_iter().map(|r| (r.get(0), r)).collect();
        Ok(numbers
            .iter()
            .filter_map(|rowid| by_rowid.remove(rowid))
            .map(|row| SessionText {
                rowid: i64::from(row.get::<_, i32>(0)),
                id: row.get(1),
                day: row.get(2),
                entries: count(i64::from(row.get::<_, i32>(3))),
                title: row.get(4),
                summary: row.get(5),
            })
            .collect())
    }

    /// Around the query's phrases in the title or the summary, whichever shows more of
    /// them; else the title's first words.
    fn session_snippet(&self, query: &Query, session: &SessionText) -> String {
        let best = [&session.title, &session.summary]
            .into_iter()
            .filter_map(|text| snippet::snippet(text, &query.phrases))
            .fold(None, |best: Option<(usize, String)>, next| match best {
                Some(b) if b.0 >= next.0 => Some(b),
                _ => Some(next),
            });
        best.map_or_else(|| excerpt(&session.title, None), |(_, s)| s)
    }
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

/// How many entries hold the query's one word, when PostgreSQL's statistics know it as
/// common (in [`ESTIMATED`] entries or more), so that counting them, a visit to each, can
/// be skipped. Only a lone word over the whole store: the statistics know single words of
/// the whole table, not phrases, prefixes, several words together or one session.
fn common_word(tx: &Tx<'_>, phrases: &[Phrase], span: Span) -> Result<Option<usize>> {
    let Some(word) = lone_word(phrases, span) else {
        return Ok(None);
    };
    let known = frequencies(tx, &[word.as_str()])?.and_then(|f| f.entries(0));
    Ok(known
        .filter(|&n| n >= ESTIMATED as f64)
        .map(|n| n.round() as usize))
}

/// The query's one word over the whole store, when it is that.
fn lone_word(phrases: &[Phrase], span: Span) -> Option<&String> {
    let [phrase] = phrases else {
        return None;
    };
    let [word] = phrase.words.as_slice() else {
        return None;
    };
    (!phrase.prefix && span.low.is_none() && span.high.is_none()).then_some(word)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::transcript::Transcript;
    use crate::store::Store;
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

    /// A phrase in more entries than counting can afford is estimated by the planner and
    /// said to be "about" so many; one in fewer is counted, and said as SQLite says it.
    #[test]
    fn a_common_phrase_is_estimated_and_a_rarer_one_counted() {
        let server = ScratchServer::start().unwrap();
        let store = Store::connect(&server.database("planned").unwrap()).unwrap();
        let n = estimate::PLANNED + 2_000;
        let entries = (0..n)
            .map(|i| {
                let rare = if i % 10 == 0 { " rare pair" } else { "" };
                let text = format!("common phrase {i}{rare}");
                entry(&format!("k{i}"), Channel::User, &text)
            })
            .collect();
        let transcript = Transcript {
            sessions: vec![(session("big", None, "big"), entries)],
        };
        store.change_memory(|m| m.import(&transcript)).unwrap();
        store.change_memory(|m| m.compact()).unwrap();
        let (hits, total, note) = store.memory(|m| m.search("\"common phrase\"", 5)).unwrap();
        let note = note.unwrap();
        assert_eq!(hits.len(), 5);
        assert!(
            note.starts_with("about ") && note.contains("by PostgreSQL's statistics"),
            "{note}"
        );
        assert!(total.abs_diff(n) < n / 10, "{total} is about {n}");
        let (_, total, note) = store.memory(|m| m.search("\"rare pair\"", 5)).unwrap();
        assert_eq!(total, n / 10);
        assert_eq!(
            note.as_deref(),
            Some("4,200 matches: ranked the 2,000 most recent by relevance")
        );
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
