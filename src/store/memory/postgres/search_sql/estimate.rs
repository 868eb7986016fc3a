//! How many entries hold a word, as PostgreSQL's statistics estimate it, or match a query,
//! as its planner estimates it, so that counting can be skipped where the answer is already
//! known to be "too many".
//!
//! Counting matches costs a visit to each matching row (a GIN index holds no counts and no
//! order), so a word in half of the entries is slow to count, where SQLite's FTS5 reads the
//! same from its index. `ANALYZE` (run by `compact` after a bulk load, and by autovacuum)
//! keeps the frequency of each of the most common lexemes of `entries.words`
//! (`pg_stats.most_common_elems`: 10,000 of them, sampled from 300,000 rows, by migration
//! 17): a word estimated far above a bound is above it.

use super::{ESTIMATED, Values};
use crate::error::{Error, Result};
use crate::store::memory::span::Span;
use crate::store::postgres::Tx;

/// Past this many matches by the planner's estimate, several words, a phrase, a prefix or a
/// word within one session are not counted: counting visits every match, where the
/// planner's estimate costs a plan. Twice the lone word's bound, as the planner's estimate
/// for several words (each word's frequency, taken as independent) is coarser than the
/// statistics' frequency of one.
pub(in crate::store::memory::postgres) const PLANNED: usize = 2 * ESTIMATED;

/// What the statistics say about some words.
#[derive(Debug, Clone, PartialEq)]
pub(in crate::store::memory::postgres) struct Frequencies {
    /// Entries in the table (estimated).
    pub rows: f64,
    /// For each word asked about, the share of entries holding it, when it is one of the
    /// most common lexemes; `None` when it is not (then it is rarer than all of them).
    pub shares: Vec<Option<f64>>,
}

impl Frequencies {
    /// How many entries hold word `i`, at least, when the statistics know.
    pub fn entries(&self, i: usize) -> Option<f64> {
        self.shares.get(i).copied().flatten().map(|s| s * self.rows)
    }
}

/// The statistics' frequencies of `words` (lowercase, as lexemes are stored); `None` when
/// the table was never analyzed.
pub(in crate::store::memory::postgres) fn frequencies(
    tx: &Tx<'_>,
    words: &[&str],
) -> Result<Option<Frequencies>> {
    let row = tx.query_opt(
        "SELECT c.reltuples::FLOAT8,
                ARRAY(SELECT (SELECT u.f FROM unnest(s.most_common_elems::TEXT::TEXT[],
                                                     s.most_common_elem_freqs) u(e, f)
                              WHERE u.e = x.w LIMIT 1)::FLOAT8
                      FROM unnest($1::TEXT[]) WITH ORDINALITY AS x(w, i) ORDER BY x.i)
         FROM pg_class c
         JOIN pg_stats s ON s.schemaname = current_schema() AND s.tablename = 'entries'
                        AND s.attname = 'words'
         WHERE c.oid = 'entries'::REGCLASS AND s.most_common_elems IS NOT NULL",
        &[&words],
    )?;
    Ok(row.and_then(|row| {
        let rows: f64 = row.get(0);
        // -1: never analyzed or vacuumed.
        (rows > 0.0).then(|| Frequencies {
            rows,
            shares: row.get(1),
        })
    }))
}

/// How many entries match the tsquery `expr` within `span`, as PostgreSQL's planner
/// estimates it (`EXPLAIN`: from the statistics of the words and of the span's numbers),
/// when it is [`PLANNED`] or more; `None` below, and when the table was never analyzed.
pub(in crate::store::memory::postgres) fn planned(
    tx: &Tx<'_>,
    expr: &str,
    span: Span,
) -> Result<Option<usize>> {
    // Without statistics of the words, the planner's figure is a fixed share of the rows.
    let analyzed = tx.query_one(
        "SELECT EXISTS (SELECT 1 FROM pg_stats WHERE schemaname = current_schema()
                        AND tablename = 'entries' AND attname = 'words')",
        &[],
    )?;
    if !analyzed.try_get::<_, bool>(0).unwrap_or(false) {
        return Ok(None);
    }
    let mut values = Values::default();
    let q = values.push(expr.to_string());
    let within = span.sql("id", |v| values.push(v));
    let sql =
        format!("EXPLAIN SELECT 1 FROM entries WHERE words @@ to_tsquery('simple', {q}){within}");
    let plan = tx.query(&sql, &values.refs())?;
    let lines = plan
        .iter()
        .map(|row| row.try_get::<_, String>(0))
        .collect::<Result<Vec<String>, _>>()
        .map_err(|e| Error::internal(format!("reading a plan of memory search: {e}")))?;
    // The scan's estimate is on the first line that names the table (the top one).
    let rows = lines
        .iter()
        .find(|line| line.contains(" on entries"))
        .and_then(|line| line.split_once(" rows="))
        .and_then(|(_, rest)| rest.split(' ').next())
        .and_then(|n| n.parse::<usize>().ok());
    Ok(rows.filter(|&n| n >= PLANNED))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::transcript::{Channel, Transcript};
    use crate::store::memory::testing::{entry, session};
    use crate::store::postgres::Postgres;
    use crate::store::postgres::scratch::ScratchServer;

    /// Migration 17: the statistics know every word of a vocabulary three times larger
    /// than PostgreSQL's default keeps (1,000 lexemes): 3,000 words, each in 5 of 5,000
    /// entries. With the default, two words in three would be counted entry by entry.
    #[test]
    fn the_statistics_know_the_words_of_a_large_vocabulary() {
        let server = ScratchServer::start().unwrap();
        let url = server.database("homespace").unwrap();
        let store = crate::store::Store::connect(&url).unwrap();
        let words: Vec<String> = (0..3_000).map(|i| format!("word{i}")).collect();
        let entries = (0..5_000)
            .map(|e| {
                let text = (0..3).map(|k| words[(3 * e + k) % 3_000].as_str());
                let text: Vec<&str> = text.collect();
                entry(&format!("k{e}"), Channel::User, &text.join(" "))
            })
            .collect();
        let sessions = vec![(session("s", Some("2026-11-20T09:00:00Z"), "t"), entries)];
        store
            .change_memory(|m| m.import(&Transcript { sessions }))
            .unwrap();
        let mut client = ::postgres::Client::connect(&url, ::postgres::NoTls).unwrap();
        client.batch_execute("ANALYZE entries").unwrap();

        let pg = Postgres::connect(&url, crate::store::PG_MIGRATIONS).unwrap();
        let asked: Vec<&str> = words.iter().map(String::as_str).collect();
        let known = pg.read(|tx| frequencies(tx, &asked)).unwrap().unwrap();
        let kept = known.shares.iter().flatten().count();
        assert_eq!(kept, 3_000, "words the statistics know");
        let five = known.entries(0).unwrap();
        assert!((4.0..=6.0).contains(&five), "word0 in {five} entries");
    }
}
