//! Sessions most like a given one (`related.md`) on PostgreSQL: the method of SQLite's
//! `related.rs` (read its header), over the `words` tsvector columns.
//!
//! 1. The session's distinctive words are cut from its title, summary and last
//!    [`RECENT_ENTRIES`] entries as SQLite cuts them (the same lengths, stop words and
//!    tf-idf weight).
//! 2. Document frequencies, counted up to [`DF_CAP`] (entries and sessions), come from one
//!    statement of one branch per word: each branch is planned for its own word (a custom
//!    plan sees the values), and the [`CANDIDATES`] lookups cost one round trip. A word
//!    PostgreSQL's statistics put well above the cap is too common without being counted
//!    (`search/estimate.rs`): counting it would visit thousands of rows.
//! 3. The chosen words are OR-ed and ranked by `ts_rank_cd` with the column weights of
//!    search (`search.rs`): over session titles and summaries, and over the [`WINDOW`] most
//!    recent matching entries, grouped by session (each session's best [`BEST_ROWS`]
//!    entries count).
//! 4. Each session found is listed with the words it shares. Ties go to the newer session.

use std::collections::{BTreeSet, HashMap};

use super::read::session_by_rowid;
use super::search::frequencies;
use crate::error::Result;
use crate::store::memory::likeness::{
    BEST_ROWS, DF_CAP, RECENT_ENTRIES, TEXT_CHARS, WINDOW, Words, distinctive,
};
use crate::store::memory::records::SessionRow;
use crate::store::memory::{session_range, split_entry_id};
use crate::store::postgres::Tx;

/// `ts_rank_cd` weights and normalization, as search ranks (`search.rs`).
const WEIGHTS: &str = "'{0.5, 1.0, 0.5, 1.0}'";
const NORMALIZATION: i32 = 1;

/// Up to `limit` sessions most like session `rowid`, best first, each with the words it
/// shares with it (most distinctive first). Empty when the session is gone or has no
/// distinctive words.
pub fn related(tx: &Tx<'_>, rowid: i64, limit: usize) -> Result<Vec<(SessionRow, Vec<String>)>> {
    let Some(me) = session_by_rowid(tx, rowid)? else {
        return Ok(Vec::new());
    };
    let terms = distinctive_terms(tx, &me)?;
    if terms.is_empty() || limit == 0 {
        return Ok(Vec::new());
    }
    let mut ranked: Vec<(i64, f64)> = scores(tx, rowid, &terms)?.into_iter().collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(b.0.cmp(&a.0)));
    ranked.truncate(limit);
    let chosen: BTreeSet<i64> = ranked.iter().map(|&(s, _)| s).collect();
    let shared = shared_terms(tx, &terms, &chosen)?;
    let mut related = Vec::new();
    for (session, _) in ranked {
        if let Some(row) = session_by_rowid(tx, session)? {
            let words = shared.get(&session).cloned().unwrap_or_default();
            related.push((row, words));
        }
    }
    Ok(related)
}

/// `word` as a tsquery lexeme: it holds letters and digits only, never a quote.
fn lexeme(word: &str) -> String {
    let word: String = word.chars().filter(|c| c.is_alphanumeric()).collect();
    format!("'{word}'")
}

/// The [`TERMS`] most distinctive words of session `me`, most distinctive first.
fn distinctive_terms(tx: &Tx<'_>, me: &SessionRow) -> Result<Vec<String>> {
    let mut words = Words::default();
    let mut add = |text: &str| words.add(text);
    add(&me.record.title);
    add(me.summary.as_deref().unwrap_or(""));
    let (first, last) = session_range(me.rowid);
    let rows = tx.query(
        "SELECT left(content, $3) FROM entries WHERE id BETWEEN $1 AND $2
         ORDER BY id DESC LIMIT $4",
        &[
            &first,
            &last,
            &(TEXT_CHARS as i32),
            &(RECENT_ENTRIES as i64),
        ],
    )?;
    for row in rows {
        add(&row.get::<_, String>(0));
    }
    let candidates = words.candidates();
    if candidates.is_empty() {
        return Ok(Vec::new());
    }
    let documents: i64 = tx
        .query_one(
            "SELECT coalesce(sum(n), 0)::BIGINT FROM memory_counts
             WHERE name IN ('entries', 'sessions')",
            &[],
        )?
        .get(0);
    let terms: Vec<&str> = candidates.iter().map(|(w, _)| w.as_str()).collect();
    let frequencies = frequencies_of(tx, me.rowid, &terms)?;
    let counted = candidates
        .into_iter()
        .zip(frequencies)
        .map(|((term, tf), (df, elsewhere))| (term, tf, df, elsewhere));
    Ok(distinctive(
        counted,
        usize::try_from(documents).unwrap_or(0),
    ))
}

/// For each of `words`: how many entries and sessions contain it (entries counted up to
/// [`DF_CAP`]), and how many of those are not session `me` or its entries.
fn frequencies_of(tx: &Tx<'_>, me: i64, words: &[&str]) -> Result<Vec<(usize, usize)>> {
    let mut found = vec![(0, 0); words.len()];
    // Words the statistics put well above the cap are too common, uncounted: counting a
    // common word's first DF_CAP entries walks many rows (a margin for the sample's error).
    let common = frequencies(tx, words)?;
    let mut counted = Vec::new();
    for (i, slot) in found.iter_mut().enumerate() {
        match common.as_ref().and_then(|f| f.entries(i)) {
            Some(n) if n >= 1.5 * DF_CAP as f64 => *slot = (DF_CAP, DF_CAP),
            _ => counted.push(i),
        }
    }
    if counted.is_empty() {
        return Ok(found);
    }
    let (first, last) = session_range(me);
    let me = i32::try_from(me).unwrap_or(-1);
    let lexemes: Vec<String> = counted.iter().map(|&i| lexeme(words[i])).collect();
    // $1, $2: the session's entries; $3: the session; $4...: the words.
    let branches: Vec<String> = (0..lexemes.len())
        .map(|i| {
            let q = format!("to_tsquery('simple', ${})", i + 4);
            format!(
                "SELECT {i}, e.n, e.own, s.n, s.own FROM
                 (SELECT count(*) AS n, count(*) FILTER (WHERE id BETWEEN $1 AND $2) AS own
                  FROM (SELECT id FROM entries WHERE words @@ {q} LIMIT {DF_CAP}) m) e,
                 (SELECT count(*) AS n, count(*) FILTER (WHERE rowid = $3) AS own
                  FROM (SELECT rowid FROM sessions WHERE words @@ {q} LIMIT {DF_CAP}) m) s"
            )
        })
        .collect();
    let mut values: Vec<&(dyn postgres::types::ToSql + Sync)> = vec![&first, &last, &me];
    values.extend(
        lexemes
            .iter()
            .map(|l| l as &(dyn postgres::types::ToSql + Sync)),
    );
    for row in tx.query(&branches.join(" UNION ALL "), &values)? {
        let i: i32 = row.get(0);
        let (entries, own, sessions, own_session): (i64, i64, i64, i64) =
            (row.get(1), row.get(2), row.get(3), row.get(4));
        let df = count(entries + sessions);
        let word = usize::try_from(i).ok().and_then(|i| counted.get(i));
        if let Some(slot) = word.and_then(|&w| found.get_mut(w)) {
            *slot = (df, count(entries - own + sessions - own_session));
        }
    }
    Ok(found)
}

fn count(n: i64) -> usize {
    usize::try_from(n).unwrap_or(0)
}

/// Scores (higher is better) of the sessions matching any of `terms`, except `me`.
fn scores(tx: &Tx<'_>, me: i64, terms: &[String]) -> Result<HashMap<i64, f64>> {
    let any = terms
        .iter()
        .map(|t| lexeme(t))
        .collect::<Vec<_>>()
        .join(" | ");
    let mut scores: HashMap<i64, f64> = HashMap::new();
    let sql = format!(
        "SELECT rowid, ts_rank_cd({WEIGHTS}, words, to_tsquery('simple', $1), {NORMALIZATION})
         FROM sessions WHERE words @@ to_tsquery('simple', $1)"
    );
    for row in tx.query(&sql, &[&any])? {
        let (session, score): (i32, f32) = (row.get(0), row.get(1));
        if i64::from(session) != me {
            *scores.entry(i64::from(session)).or_default() += f64::from(score);
        }
    }
    // Every match first, then the most recent: each word is in fewer than DF_CAP entries,
    // so there are at most TERMS x DF_CAP matches, read from the GIN index. Asked for the
    // most recent directly, the planner walks the primary key backwards expecting the OR
    // of the words to be common, and for words this rare reads the whole table.
    let sql = format!(
        "WITH m AS MATERIALIZED (SELECT id FROM entries WHERE words @@ to_tsquery('simple', $1))
         SELECT e.id, ts_rank_cd({WEIGHTS}, e.words, to_tsquery('simple', $1), {NORMALIZATION})
         FROM (SELECT id FROM m ORDER BY id DESC LIMIT {WINDOW}) r JOIN entries e ON e.id = r.id"
    );
    let mut by_session: HashMap<i64, Vec<f64>> = HashMap::new();
    for row in tx.query(&sql, &[&any])? {
        let (id, score): (i64, f32) = (row.get(0), row.get(1));
        let (session, _) = split_entry_id(id);
        if session != me {
            by_session
                .entry(session)
                .or_default()
                .push(f64::from(score));
        }
    }
    for (session, mut rows) in by_session {
        rows.sort_by(|a, b| b.total_cmp(a));
        *scores.entry(session).or_default() += rows.iter().take(BEST_ROWS).sum::<f64>();
    }
    Ok(scores)
}

/// For each of `sessions`, which of `terms` it contains (in the title, the summary or one of
/// the term's [`WINDOW`] most recent entries), in the order of `terms`: one statement of a
/// branch per term.
fn shared_terms(
    tx: &Tx<'_>,
    terms: &[String],
    sessions: &BTreeSet<i64>,
) -> Result<HashMap<i64, Vec<String>>> {
    let chosen: Vec<i64> = sessions.iter().copied().collect();
    let lexemes: Vec<String> = terms.iter().map(|t| lexeme(t)).collect();
    // $1: the sessions; $2...: the terms.
    let branches: Vec<String> = (0..lexemes.len())
        .map(|i| {
            let q = format!("to_tsquery('simple', ${})", i + 2);
            format!(
                "SELECT {i}, rowid::BIGINT FROM sessions WHERE words @@ {q} AND rowid::BIGINT = ANY($1::BIGINT[])
                 UNION ALL
                 SELECT {i}, id >> 32 FROM (SELECT id FROM entries WHERE words @@ {q}
                                            ORDER BY id DESC LIMIT {WINDOW}) m
                 WHERE (id >> 32) = ANY($1::BIGINT[])"
            )
        })
        .collect();
    let mut values: Vec<&(dyn postgres::types::ToSql + Sync)> = vec![&chosen];
    values.extend(
        lexemes
            .iter()
            .map(|l| l as &(dyn postgres::types::ToSql + Sync)),
    );
    let mut found: BTreeSet<(i32, i64)> = BTreeSet::new();
    for row in tx.query(&branches.join(" UNION ALL "), &values)? {
        found.insert((row.get(0), row.get(1)));
    }
    let mut shared: HashMap<i64, Vec<String>> = HashMap::new();
    for (i, session) in found {
        if let Some(term) = usize::try_from(i).ok().and_then(|i| terms.get(i)) {
            shared.entry(session).or_default().push(term.clone());
        }
    }
    Ok(shared)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexemes_are_quoted_words() {
        assert_eq!(lexeme("token"), "'token'");
        assert_eq!(lexeme("a'b\\c"), "'abc'");
    }
}
