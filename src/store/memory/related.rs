//! Sessions most like a given one (`related.md`), by the words that make it distinctive.
//!
//! 1. Its text: title, summary and last [`RECENT_ENTRIES`] entries, cut into lowercase words
//!    (letters and digits, 3 to 32 long, not a number, not a common English word).
//! 2. Each of the [`CANDIDATES`] most frequent words gets a document frequency from the
//!    full-text indexes, counted up to [`DF_CAP`]: a word in that many entries or more is too
//!    common to tell sessions apart, and one found only in this session shares nothing.
//!    (FTS5's `fts5vocab` table would count every match of a common word — 25 ms for a word
//!    in a million entries — where a capped count stops early.)
//! 3. The [`TERMS`] words with the highest tf-idf weight are OR-ed and ranked by `bm25()`:
//!    over session titles and summaries, and over the [`WINDOW`] most recent matching
//!    entries, grouped by session (each session's best [`BEST_ROWS`] entries count).
//! 4. Each session found is listed with the words it shares. Ties go to the newer session,
//!    so the answer is the same every time.

use std::collections::{BTreeSet, HashMap};

use rusqlite::{Connection, params};

use super::likeness::{BEST_ROWS, DF_CAP, RECENT_ENTRIES, WINDOW, Words, distinctive};
use super::read::{count, session_by_rowid};
use super::records::SessionRow;
use super::{session_range, split_entry_id};
use crate::error::Result;

/// Up to `limit` sessions most like session `session_rowid`, best first, each with the
/// words it shares with it (most distinctive first). Empty when the session is gone or has
/// no distinctive words.
pub fn related(
    conn: &Connection,
    session_rowid: i64,
    limit: usize,
) -> Result<Vec<(SessionRow, Vec<String>)>> {
    let Some(me) = session_by_rowid(conn, session_rowid)? else {
        return Ok(Vec::new());
    };
    let terms = distinctive_terms(conn, &me)?;
    if terms.is_empty() || limit == 0 {
        return Ok(Vec::new());
    }
    let scores = scores(conn, session_rowid, &terms)?;
    let mut ranked: Vec<(i64, f64)> = scores.into_iter().collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(b.0.cmp(&a.0)));
    ranked.truncate(limit);
    let chosen: BTreeSet<i64> = ranked.iter().map(|&(s, _)| s).collect();
    let shared = shared_terms(conn, &terms, &chosen)?;
    let mut related = Vec::new();
    for (rowid, _) in ranked {
        if let Some(row) = session_by_rowid(conn, rowid)? {
            let words = shared.get(&rowid).cloned().unwrap_or_default();
            related.push((row, words));
        }
    }
    Ok(related)
}

/// The [`TERMS`] most distinctive words of session `me`, most distinctive first.
fn distinctive_terms(conn: &Connection, me: &SessionRow) -> Result<Vec<String>> {
    let mut words = Words::default();
    let mut add = |text: &str| words.add(text);
    add(&me.record.title);
    add(me.summary.as_deref().unwrap_or(""));
    let (first, last) = session_range(me.rowid);
    let sql = format!(
        "SELECT content FROM entries WHERE id BETWEEN ?1 AND ?2 ORDER BY id DESC LIMIT {RECENT_ENTRIES}"
    );
    let mut statement = conn.prepare_cached(&sql)?;
    let mut rows = statement.query(params![first, last])?;
    while let Some(row) = rows.next()? {
        add(&row.get::<_, String>(0)?);
    }
    let documents = documents(conn)?;
    let mut counted = Vec::new();
    for (term, tf) in words.candidates() {
        let (df, elsewhere) = frequency(conn, me.rowid, &term)?;
        counted.push((term, tf, df, elsewhere));
    }
    Ok(distinctive(counted, documents))
}

/// Entries and sessions stored: the documents of the two indexes.
fn documents(conn: &Connection) -> Result<usize> {
    let n: i64 = conn
        .prepare_cached("SELECT sum(n) FROM memory_counts WHERE name IN ('entries', 'sessions')")?
        .query_row([], |r| r.get(0))?;
    Ok(count(n).max(1))
}

/// How many entries and sessions contain `term` (counted up to [`DF_CAP`] entries), and
/// how many of those are not session `me` or its entries.
fn frequency(conn: &Connection, me: i64, term: &str) -> Result<(usize, usize)> {
    let phrase = quote(term);
    let (first, last) = session_range(me);
    let sql = format!(
        "SELECT count(*), coalesce(sum(rowid BETWEEN ?2 AND ?3), 0) FROM (
            SELECT rowid FROM entries_fts WHERE entries_fts MATCH ?1 LIMIT {DF_CAP})"
    );
    let (entries, own): (i64, i64) = conn
        .prepare_cached(&sql)?
        .query_row(params![phrase, first, last], |r| Ok((r.get(0)?, r.get(1)?)))?;
    let sql = format!(
        "SELECT count(*), coalesce(sum(rowid = ?2), 0) FROM (
            SELECT rowid FROM sessions_fts WHERE sessions_fts MATCH ?1 LIMIT {DF_CAP})"
    );
    let (sessions, own_session): (i64, i64) = conn
        .prepare_cached(&sql)?
        .query_row(params![phrase, me], |r| Ok((r.get(0)?, r.get(1)?)))?;
    let df = count(entries + sessions);
    Ok((df, count(entries - own + sessions - own_session)))
}

/// bm25 scores (higher is better) of the sessions matching any of `terms`, except `me`.
fn scores(conn: &Connection, me: i64, terms: &[String]) -> Result<HashMap<i64, f64>> {
    let any = terms
        .iter()
        .map(|t| quote(t))
        .collect::<Vec<_>>()
        .join(" OR ");
    let mut scores: HashMap<i64, f64> = HashMap::new();
    let mut statement = conn.prepare_cached(
        "SELECT rowid, bm25(sessions_fts, 2.0, 1.0) FROM sessions_fts WHERE sessions_fts MATCH ?1",
    )?;
    let rows = statement.query_map([&any], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, f64>(1)?)))?;
    for row in rows {
        let (session, score) = row?;
        if session != me {
            *scores.entry(session).or_default() -= score;
        }
    }
    let sql = format!(
        "SELECT rowid, bm25(entries_fts, 1.0, 2.0) FROM entries_fts WHERE entries_fts MATCH ?1
         ORDER BY rowid DESC LIMIT {WINDOW}"
    );
    let mut statement = conn.prepare_cached(&sql)?;
    let rows = statement.query_map([&any], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, f64>(1)?)))?;
    let mut by_session: HashMap<i64, Vec<f64>> = HashMap::new();
    for row in rows {
        let (id, score) = row?;
        let (session, _) = split_entry_id(id);
        if session != me {
            by_session.entry(session).or_default().push(-score);
        }
    }
    for (session, mut rows) in by_session {
        rows.sort_by(|a, b| b.total_cmp(a));
        *scores.entry(session).or_default() += rows.iter().take(BEST_ROWS).sum::<f64>();
    }
    Ok(scores)
}

/// For each of `sessions`, which of `terms` it contains (in the title, the summary or one of
/// the term's [`WINDOW`] most recent entries), in the order of `terms`.
fn shared_terms(
    conn: &Connection,
    terms: &[String],
    sessions: &BTreeSet<i64>,
) -> Result<HashMap<i64, Vec<String>>> {
    let mut shared: HashMap<i64, Vec<String>> = HashMap::new();
    let sql = format!(
        "SELECT rowid FROM entries_fts WHERE entries_fts MATCH ?1 ORDER BY rowid DESC LIMIT {WINDOW}"
    );
    for term in terms {
        let phrase = quote(term);
        let mut found = BTreeSet::new();
        let mut statement =
            conn.prepare_cached("SELECT rowid FROM sessions_fts WHERE sessions_fts MATCH ?1")?;
        for rowid in statement.query_map([&phrase], |r| r.get::<_, i64>(0))? {
            found.insert(rowid?);
        }
        let mut statement = conn.prepare_cached(&sql)?;
        for id in statement.query_map([&phrase], |r| r.get::<_, i64>(0))? {
            found.insert(split_entry_id(id?).0);
        }
        for session in found.intersection(sessions) {
            shared.entry(*session).or_default().push(term.clone());
        }
    }
    Ok(shared)
}

/// A word as an FTS5 string (words hold only letters and digits, never a quote).
fn quote(term: &str) -> String {
    format!("\"{term}\"")
}

#[cfg(test)]
mod tests {
    //! Through [`crate::store::memory::MemoryRecords`], on both backends.
    use crate::store::Store;
    use crate::store::memory::record::{Channel, Transcript};
    use crate::store::memory::testing::{entry, session};
    use crate::store::testing::for_each_backend;

    fn sample(store: &Store) {
        let one = |id: &str, title: &str, texts: &[&str]| {
            let entries = texts
                .iter()
                .enumerate()
                .map(|(i, t)| entry(&format!("{id}{i}"), Channel::User, t))
                .collect();
            (session(id, Some("2026-11-20T09:00:00Z"), title), entries)
        };
        let transcript = Transcript {
            sessions: vec![
                one(
                    "a",
                    "Roll out billing",
                    &[
                        "kubernetes rollout of billing stuck",
                        "the registry token expired during the kubernetes rollout",
                    ],
                ),
                one(
                    "b",
                    "Cluster upgrade",
                    &[
                        "kubernetes upgrade: the registry token rotated",
                        "rollout done",
                    ],
                ),
                one("c", "Invoices", &["billing totals are off by a cent"]),
                one("d", "Login", &["the password check compares bytes"]),
            ],
        };
        store.change_memory(|m| m.import(&transcript)).unwrap();
    }

    fn rowid(store: &Store, id: &str) -> i64 {
        store.memory(|m| m.session(id)).unwrap().unwrap().rowid
    }

    fn related_ids(store: &Store, id: &str) -> Vec<(String, Vec<String>)> {
        let me = rowid(store, id);
        store
            .memory(|m| m.related(me, 5))
            .unwrap()
            .into_iter()
            .map(|(row, terms)| (row.record.id, terms))
            .collect()
    }

    #[test]
    fn sessions_sharing_distinctive_words_come_first() {
        for_each_backend(|store| {
            sample(&store);
            let found = related_ids(&store, "a");
            let ids: Vec<&str> = found.iter().map(|(id, _)| id.as_str()).collect();
            assert_eq!(ids, ["b", "c"]);
            let mut b_terms = found[0].1.clone();
            b_terms.sort();
            assert_eq!(b_terms, ["kubernetes", "registry", "rollout", "token"]);
            assert_eq!(found[1].1, ["billing"]);
            assert_eq!(related_ids(&store, "a"), found, "the same every time");
            assert!(
                related_ids(&store, "d").is_empty(),
                "nothing shared, nothing related"
            );
        });
    }

    #[test]
    fn summaries_relate_sessions_too() {
        for_each_backend(|store| {
            sample(&store);
            let d = rowid(&store, "d");
            store
                .change_memory(|m| {
                    m.set_summary(
                        d,
                        Some("Key decisions: bytes compared after decoding invoices"),
                    )
                })
                .unwrap();
            let found = related_ids(&store, "d");
            assert_eq!(found, [("c".to_string(), vec!["invoices".to_string()])]);
            assert!(store.memory(|m| m.related(999, 5)).unwrap().is_empty());
        });
    }
}
