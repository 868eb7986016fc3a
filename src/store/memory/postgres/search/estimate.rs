//! How many entries hold a word, as PostgreSQL's statistics estimate it, so that counting
//! can be skipped where the answer is already known to be "too many".
//!
//! Counting matches costs a visit to each matching row (a GIN index holds no counts and no
//! order): a word in half of a million entries takes 100 ms or more to count up to
//! 100,000 (SQLite's FTS5 reads the same from its index in a few milliseconds). `ANALYZE`
//! (run by `compact` after a bulk load, and by autovacuum) keeps the frequency of each of
//! the most common lexemes of `entries.words` (`pg_stats.most_common_elems`, sampled from
//! 30,000 rows): a word estimated far above a bound is above it.

use crate::error::Result;
use crate::store::postgres::Tx;

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
