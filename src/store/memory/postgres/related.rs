//! What related-session scoring asks of PostgreSQL's `words` tsvector columns
//! ([`RelatedSql`]); `../related.rs` weighs the answers.
//!
//! Document frequencies come from PostgreSQL's statistics where they know the word
//! (`search_sql/estimate.rs`): one well above the cap is too common, one below is taken at
//! its estimate, as counting either would visit thousands of rows. Only words rarer than
//! every one the statistics keep are counted up to the cap (entries and sessions), in one
//! statement of one branch per word. Ranks are `ts_rank_cd` with the column weights of
//! search (`search_sql.rs`).

use std::collections::BTreeSet;

use super::read::column;
use super::search_sql::frequencies;
use crate::error::Result;
use crate::store::memory::count;
use crate::store::memory::dialect::{Held, Ranked, RelatedSql, Spread};
use crate::store::memory::likeness::TEXT_CHARS;
use crate::store::memory::related::any_of;
use crate::store::memory::{entry_id_sql, session_of_sql, session_range};
use crate::store::postgres::Tx;

/// `ts_rank_cd` weights and normalization, as search ranks (`search_sql.rs`).
const WEIGHTS: &str = "'{0.5, 1.0, 0.5, 1.0}'";
const NORMALIZATION: i32 = 1;

impl RelatedSql for Tx<'_> {
    fn recent_texts(&self, session: i64, n: usize) -> Result<Vec<String>> {
        let (first, last) = session_range(session);
        let rows = self.query(
            "SELECT left(content, $3) FROM entries WHERE id BETWEEN $1 AND $2
             ORDER BY id DESC LIMIT $4",
            &[&first, &last, &(TEXT_CHARS as i32), &(n as i64)],
        )?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }

    fn documents(&self) -> Result<usize> {
        let n: i64 = self
            .query_one(
                "SELECT coalesce(sum(n), 0)::BIGINT FROM memory_counts
                 WHERE name IN ('entries', 'sessions')",
                &[],
            )?
            .get(0);
        Ok(count(n))
    }

    fn frequencies(&self, me: i64, words: &[&str], cap: usize) -> Result<Vec<(usize, usize)>> {
        frequencies_of(self, me, words, cap)
    }

    fn session_scores(&self, terms: &[String]) -> Result<Vec<Ranked>> {
        let sql = format!(
            "SELECT rowid, ts_rank_cd({WEIGHTS}, words, to_tsquery('simple', $1), {NORMALIZATION})
             FROM sessions WHERE words @@ to_tsquery('simple', $1)"
        );
        let rows = self.query(&sql, &[&any(terms)])?;
        Ok(rows
            .iter()
            .map(|r| (i64::from(r.get::<_, i32>(0)), f64::from(r.get::<_, f32>(1))))
            .collect())
    }

    /// The most recent matches, found one of three ways, by the share of the entries the
    /// words are in together (`spread`: the frequencies that chose them, counted or the
    /// statistics' estimates). Where it is large, the primary key is walked backwards,
    /// each row tested, until the window is full (about `window / share` rows). Where it
    /// is smaller, the newest sessions that hold about twice the entries the window needs
    /// at that share are searched alone ([`newest_matches`]). Else, and when those hold
    /// too few, every match is read from the GIN index first, then the most recent kept:
    /// for words this rare, the walk would read most of the table, and the planner,
    /// unsure of words rarer than every one its statistics keep, may choose it anyway.
    fn entry_scores(&self, terms: &[String], spread: Spread, window: usize) -> Result<Vec<Ranked>> {
        let rank =
            format!("ts_rank_cd({WEIGHTS}, e.words, to_tsquery('simple', $1), {NORMALIZATION})");
        let (share, rows) = (spread.share(), spread.documents as f64);
        let sql = match share {
            share if share >= (window as f64 / rows).sqrt() => format!(
                "SELECT e.id, {rank} FROM entries e WHERE e.words @@ to_tsquery('simple', $1)
                 ORDER BY e.id DESC LIMIT {window}"
            ),
            share if share > 0.0 && 2.0 * window as f64 / share < rows => {
                let needed = (2.0 * window as f64 / share).ceil() as u64;
                let newest = newest_matches(self, terms, window, needed)?;
                if newest.len() == window {
                    let sql = format!(
                        "SELECT e.id, {rank} FROM entries e WHERE e.id = ANY($2::BIGINT[])"
                    );
                    let rows = self.query(&sql, &[&any(terms), &newest])?;
                    return Ok(ranked(&rows));
                }
                every_match(&rank, window)
            }
            _ => every_match(&rank, window),
        };
        let rows = self.query(&sql, &[&any(terms)])?;
        Ok(ranked(&rows))
    }

    /// One statement of a branch per term.
    fn holding(&self, terms: &[String], among: &BTreeSet<i64>, n: usize) -> Result<Held> {
        let chosen: Vec<i64> = among.iter().copied().collect();
        let lexemes: Vec<String> = terms.iter().map(|t| lexeme(t)).collect();
        // $1: the sessions; $2...: the terms.
        let branches: Vec<String> = (0..lexemes.len())
            .map(|i| {
                let q = format!("to_tsquery('simple', ${})", i + 2);
                let session = session_of_sql("id");
                format!(
                    "SELECT {i}, rowid::BIGINT FROM sessions WHERE words @@ {q} AND rowid::BIGINT = ANY($1::BIGINT[])
                     UNION ALL
                     SELECT {i}, {session} FROM (SELECT id FROM entries WHERE words @@ {q}
                                                ORDER BY id DESC LIMIT {n}) m
                     WHERE {session} = ANY($1::BIGINT[])"
                )
            })
            .collect();
        let mut values: Vec<&(dyn postgres::types::ToSql + Sync)> = vec![&chosen];
        values.extend(
            lexemes
                .iter()
                .map(|l| l as &(dyn postgres::types::ToSql + Sync)),
        );
        let mut held = BTreeSet::new();
        for row in self.query(&branches.join(" UNION ALL "), &values)? {
            if let Ok(term) = usize::try_from(row.get::<_, i32>(0)) {
                held.insert((term, row.get::<_, i64>(1)));
            }
        }
        Ok(held)
    }
}

/// Every match read from the GIN index, then the most recent `window` kept, ranked by
/// `rank`.
fn every_match(rank: &str, window: usize) -> String {
    format!(
        "WITH m AS MATERIALIZED (SELECT id FROM entries WHERE words @@ to_tsquery('simple', $1))
         SELECT e.id, {rank}
         FROM (SELECT id FROM m ORDER BY id DESC LIMIT {window}) r JOIN entries e ON e.id = r.id"
    )
}

/// The newest `window` matches of `terms` among the entries of the newest sessions that
/// hold `needed` entries (fewer when those sessions hold fewer matches): the GIN index's
/// matches and the primary key's range of those sessions combined before any row is
/// read, so that only matches in the range are (a plan the planner must be told to take,
/// see [`Tx::select_by_bitmaps`]).
fn newest_matches(tx: &Tx<'_>, terms: &[String], window: usize, needed: u64) -> Result<Vec<i64>> {
    // The lexemes hold letters and digits and the quotes `lexeme` puts around them: no
    // dollar sign ends the quoted text early.
    let query = any(terms);
    // Entry 0 of the oldest of those sessions: below its first entry.
    let first = entry_id_sql("coalesce(min(rowid), 0)::BIGINT", "0");
    let rows = tx.select_by_bitmaps(&format!(
        "SELECT id FROM entries
         WHERE words @@ to_tsquery('simple', $q${query}$q$)
           AND id >= (SELECT {first}
                      FROM (SELECT rowid, entry_count,
                                   sum(entry_count) OVER (ORDER BY rowid DESC) AS upto
                            FROM sessions) s
                      WHERE upto - entry_count < {needed})
         ORDER BY id DESC LIMIT {window}"
    ))?;
    Ok(rows
        .iter()
        .filter_map(|row| row.first()?.as_deref()?.parse().ok())
        .collect())
}

/// Rows of (entry id, rank) as ranks.
fn ranked(rows: &[postgres::Row]) -> Vec<Ranked> {
    rows.iter()
        .map(|r| (r.get::<_, i64>(0), f64::from(r.get::<_, f32>(1))))
        .collect()
}

/// Any of `terms`, as a tsquery.
fn any(terms: &[String]) -> String {
    any_of(terms, lexeme, " | ")
}

/// `word` as a tsquery lexeme: it holds letters and digits only, never a quote.
fn lexeme(word: &str) -> String {
    let word: String = word.chars().filter(|c| c.is_alphanumeric()).collect();
    format!("'{word}'")
}

/// For each of `words`: how many entries and sessions contain it (entries counted up to
/// `cap`), and how many of those are not session `me` or its entries.
fn frequencies_of(tx: &Tx<'_>, me: i64, words: &[&str], cap: usize) -> Result<Vec<(usize, usize)>> {
    let mut found = vec![(0, 0); words.len()];
    // Words the statistics put well above the cap are too common, uncounted: counting a
    // common word's first cap entries walks many rows (a margin for the sample's error).
    // Those they know below it are taken at their estimate, all of them outside this
    // session (a word among the statistics' most common is in a few hundred entries at
    // least, rarely all one session's): counting one the planner expects often reads the
    // table in order up to the cap, all of it when the word is in fewer entries, and
    // counting this session's alone costs a plan and a visit per match. Only words rarer
    // than every one they know are counted, from the index.
    let common = frequencies(tx, words)?;
    let (mut counted, mut estimated) = (Vec::new(), Vec::new());
    for (i, slot) in found.iter_mut().enumerate() {
        match common.as_ref().and_then(|f| f.entries(i)) {
            Some(n) if n >= 1.5 * cap as f64 => *slot = (cap, cap),
            Some(n) => estimated.push((i, (n.round() as usize).min(cap))),
            None => counted.push(i),
        }
    }
    if !estimated.is_empty() {
        let asked: Vec<&str> = estimated.iter().map(|&(i, _)| words[i]).collect();
        let held = held_by_sessions(tx, me, &asked)?;
        for ((i, entries), (sessions, own_session)) in estimated.into_iter().zip(held) {
            found[i] = (
                entries + sessions,
                entries + sessions.saturating_sub(own_session),
            );
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
                  FROM (SELECT id FROM entries WHERE words @@ {q} LIMIT {cap}) m) e,
                 (SELECT count(*) AS n, count(*) FILTER (WHERE rowid = $3) AS own
                  FROM (SELECT rowid FROM sessions WHERE words @@ {q} LIMIT {cap}) m) s"
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

/// For each of `words` (lexemes as stored): how many sessions' titles and summaries hold
/// it, and whether `me`'s own do (0 or 1). One statement: `ts_stat` reads the sessions'
/// words once (a few thousand short texts), where asking the index word by word plans and
/// visits a branch per word.
fn held_by_sessions(tx: &Tx<'_>, me: i64, words: &[&str]) -> Result<Vec<(usize, usize)>> {
    // A number only: ts_stat takes the statement it reads as text.
    let own_session = format!("SELECT words FROM sessions WHERE rowid = {me}");
    let rows = tx.query(
        "WITH sessions AS (SELECT word, ndoc FROM ts_stat('SELECT words FROM sessions')),
              mine AS (SELECT word, ndoc FROM ts_stat($1))
         SELECT coalesce(s.ndoc, 0)::BIGINT, coalesce(mine.ndoc, 0)::BIGINT
         FROM unnest($2::TEXT[]) WITH ORDINALITY AS w(word, i)
         LEFT JOIN sessions s ON s.word = w.word
         LEFT JOIN mine ON mine.word = w.word
         ORDER BY w.i",
        &[&own_session, &words],
    )?;
    rows.iter()
        .map(|row| Ok((count(column(row, 0)?), count(column(row, 1)?))))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::memory::likeness::DF_CAP;

    /// A word in one entry of sixteen, among 4,000 entries: the newest sessions alone are
    /// searched for a window of 50, and what they give is exactly the 50 newest matches of
    /// the whole store, each ranked.
    #[test]
    fn the_newest_matches_of_a_middling_word_come_from_the_newest_sessions_alone() {
        use crate::model::transcript::{Channel, Transcript};
        use crate::store::memory::testing::{entry, session};
        let server = crate::store::postgres::scratch::ScratchServer::start().unwrap();
        let url = server.database("homespace").unwrap();
        let store = crate::store::Store::connect(&url).unwrap();
        let sessions = (0..40)
            .map(|s| {
                let entries = (0..100)
                    .map(|e| {
                        let text = match (s * 100 + e) % 16 {
                            0 => format!("the marker of entry {e}"),
                            _ => format!("plain words of entry {e}"),
                        };
                        entry(&format!("k{s}-{e}"), Channel::User, &text)
                    })
                    .collect();
                (
                    session(&format!("s{s}"), Some("2026-11-20T09:00:00Z"), "t"),
                    entries,
                )
            })
            .collect();
        store
            .change_memory(|m| m.import(&Transcript { sessions }))
            .unwrap();
        let mut client = ::postgres::Client::connect(&url, ::postgres::NoTls).unwrap();
        client.batch_execute("ANALYZE entries, sessions").unwrap();
        let expected: Vec<i64> = client
            .query(
                "SELECT id FROM entries WHERE words @@ to_tsquery('simple', 'marker')
                 ORDER BY id DESC LIMIT 50",
                &[],
            )
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect();

        let pg =
            crate::store::postgres::Postgres::connect(&url, crate::store::PG_MIGRATIONS).unwrap();
        let terms = ["marker".to_string()];
        // As related sessions weigh it: the word's frequency, of the documents.
        let spread = pg
            .read(|tx| {
                let frequencies = tx.frequencies(1, &["marker"], DF_CAP)?;
                Ok(Spread {
                    matches: frequencies[0].0,
                    documents: tx.documents()?,
                })
            })
            .unwrap();
        assert_eq!(spread.matches, 250, "one entry in sixteen of 4,000");
        let (share, rows) = (spread.share(), spread.documents as f64);
        assert!(
            share < (50.0 / rows).sqrt() && 2.0 * 50.0 / share < rows,
            "the middle way: a share of {share} of {rows}"
        );
        let needed = (2.0 * 50.0 / share).ceil() as u64;
        let newest = pg
            .read(|tx| newest_matches(tx, &terms, 50, needed))
            .unwrap();
        assert_eq!(newest, expected);
        let mut scored = pg.read(|tx| tx.entry_scores(&terms, spread, 50)).unwrap();
        scored.sort_by_key(|s| std::cmp::Reverse(s.0));
        let ids: Vec<i64> = scored.iter().map(|(id, _)| *id).collect();
        assert_eq!(ids, expected);
        assert!(scored.iter().all(|(_, rank)| *rank > 0.0), "{scored:?}");
        // A window larger than the newest sessions hold reads every match.
        let all = pg.read(|tx| tx.entry_scores(&terms, spread, 400)).unwrap();
        assert_eq!(all.len(), 250);
    }

    #[test]
    fn lexemes_are_quoted_words() {
        assert_eq!(lexeme("token"), "'token'");
        assert_eq!(lexeme("a'b\\c"), "'abc'");
    }
}
