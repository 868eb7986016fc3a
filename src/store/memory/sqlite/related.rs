//! What related-session scoring asks of SQLite's full-text indexes ([`RelatedSql`]);
//! `../related.rs` weighs the answers. Document frequencies are capped counts: FTS5's
//! `fts5vocab` table would count every match of a common word, however many entries hold
//! it, where a capped count stops early. Ranks are `bm25()`, negated so that higher is
//! better.

use std::collections::BTreeSet;

use rusqlite::{Connection, params};

use crate::error::Result;
use crate::store::memory::dialect::{Held, Ranked, RelatedSql, Spread};
use crate::store::memory::likeness::TEXT_CHARS;
use crate::store::memory::related::any_of;
use crate::store::memory::{count, session_range, split_entry_id};

impl RelatedSql for Connection {
    fn recent_texts(&self, session: i64, n: usize) -> Result<Vec<String>> {
        let (first, last) = session_range(session);
        let sql = format!(
            "SELECT substr(content, 1, {TEXT_CHARS}) FROM entries WHERE id BETWEEN ?1 AND ?2
             ORDER BY id DESC LIMIT {n}"
        );
        let mut statement = self.prepare_cached(&sql)?;
        let rows = statement.query_map(params![first, last], |r| r.get(0))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    fn documents(&self) -> Result<usize> {
        let n: i64 = self
            .prepare_cached(
                "SELECT sum(n) FROM memory_counts WHERE name IN ('entries', 'sessions')",
            )?
            .query_row([], |r| r.get(0))?;
        Ok(count(n).max(1))
    }

    /// Two capped counts per word, entries and sessions.
    fn frequencies(&self, me: i64, words: &[&str], cap: usize) -> Result<Vec<(usize, usize)>> {
        let (first, last) = session_range(me);
        let entries_sql = format!(
            "SELECT count(*), coalesce(sum(rowid BETWEEN ?2 AND ?3), 0) FROM (
                SELECT rowid FROM entries_fts WHERE entries_fts MATCH ?1 LIMIT {cap})"
        );
        let sessions_sql = format!(
            "SELECT count(*), coalesce(sum(rowid = ?2), 0) FROM (
                SELECT rowid FROM sessions_fts WHERE sessions_fts MATCH ?1 LIMIT {cap})"
        );
        let mut found = Vec::new();
        for word in words {
            let phrase = quote(word);
            let (entries, own): (i64, i64) = self
                .prepare_cached(&entries_sql)?
                .query_row(params![phrase, first, last], |r| Ok((r.get(0)?, r.get(1)?)))?;
            let (sessions, own_session): (i64, i64) = self
                .prepare_cached(&sessions_sql)?
                .query_row(params![phrase, me], |r| Ok((r.get(0)?, r.get(1)?)))?;
            found.push((
                count(entries + sessions),
                count(entries - own + sessions - own_session),
            ));
        }
        Ok(found)
    }

    fn session_scores(&self, terms: &[String]) -> Result<Vec<Ranked>> {
        let mut statement = self.prepare_cached(
            "SELECT rowid, bm25(sessions_fts, 2.0, 1.0) FROM sessions_fts WHERE sessions_fts MATCH ?1",
        )?;
        let rows = statement.query_map([any(terms)], |r| {
            Ok((r.get::<_, i64>(0)?, -r.get::<_, f64>(1)?))
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// FTS5 walks its lists newest first: how widely the terms are spread changes nothing.
    fn entry_scores(&self, terms: &[String], _: Spread, window: usize) -> Result<Vec<Ranked>> {
        let sql = format!(
            "SELECT rowid, bm25(entries_fts, 1.0, 2.0) FROM entries_fts WHERE entries_fts MATCH ?1
             ORDER BY rowid DESC LIMIT {window}"
        );
        let mut statement = self.prepare_cached(&sql)?;
        let rows = statement.query_map([any(terms)], |r| {
            Ok((r.get::<_, i64>(0)?, -r.get::<_, f64>(1)?))
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Two statements per term.
    fn holding(&self, terms: &[String], among: &BTreeSet<i64>, n: usize) -> Result<Held> {
        let sql = format!(
            "SELECT rowid FROM entries_fts WHERE entries_fts MATCH ?1 ORDER BY rowid DESC LIMIT {n}"
        );
        let mut held = BTreeSet::new();
        for (i, term) in terms.iter().enumerate() {
            let phrase = quote(term);
            let mut found = BTreeSet::new();
            let mut statement =
                self.prepare_cached("SELECT rowid FROM sessions_fts WHERE sessions_fts MATCH ?1")?;
            for rowid in statement.query_map([&phrase], |r| r.get::<_, i64>(0))? {
                found.insert(rowid?);
            }
            let mut statement = self.prepare_cached(&sql)?;
            for id in statement.query_map([&phrase], |r| r.get::<_, i64>(0))? {
                found.insert(split_entry_id(id?).0);
            }
            held.extend(found.intersection(among).map(|&s| (i, s)));
        }
        Ok(held)
    }
}

/// Any of `terms`, as an FTS5 expression.
fn any(terms: &[String]) -> String {
    any_of(terms, quote, " OR ")
}

/// A word as an FTS5 string (words hold only letters and digits, never a quote).
fn quote(term: &str) -> String {
    format!("\"{term}\"")
}
