//! Sessions most like a given one (`related.md`), by the words that make it distinctive —
//! decided once for every backend, over the counts and ranks each index gives
//! ([`RelatedSql`]):
//!
//! 1. Its text: title, summary and last [`RECENT_ENTRIES`] entries, cut into lowercase words
//!    (`likeness.rs`: letters and digits, 3 to 32 long, not a number, not a common word).
//! 2. Each of the most frequent words gets a document frequency from the full-text
//!    indexes, counted up to [`DF_CAP`]: a word in that many entries or more is too common
//!    to tell sessions apart, and one found only in this session shares nothing.
//! 3. The words with the highest tf-idf weight are OR-ed and ranked: over session titles
//!    and summaries, and over the [`WINDOW`] most recent matching entries, grouped by
//!    session (each session's best [`BEST_ROWS`] entries count).
//! 4. Sessions that changed a file this session changed (`session_files.rs`; its
//!    [`SHARED_FILES`] most recently changed files) weigh more: each such file adds
//!    [`FILE_WEIGHT`] times the best score any session got from words (or 1 when no
//!    session shares a word), so a session that edited the same code ranks with the best
//!    of those that only talk alike, above them once it shares a word too; among sessions
//!    sharing files the words still decide.
//! 5. Each session found is listed with the words it shares, then the files. Ties go to
//!    the newer session, so the answer is the same every time.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::changed::FilePattern;
use super::dialect::{FilesSql, RelatedSql, Spread};
use super::likeness::{BEST_ROWS, DF_CAP, RECENT_ENTRIES, WINDOW, Words, distinctive};
use super::records::{MemoryReads, SessionRow};
use super::split_entry_id;
use crate::error::Result;

/// What a file both sessions changed weighs, in units of the best score from words.
pub const FILE_WEIGHT: f64 = 1.0;
/// The files of a session that relate it to others: its most recently changed ones.
const SHARED_FILES: usize = 20;
/// Sessions read per shared file.
const PER_FILE: usize = 50;

/// Up to `limit` sessions most like session `session_rowid`, best first, each with the
/// words it shares with it (most distinctive first), then the files both changed. Empty
/// when the session is gone or shares neither words nor files.
pub fn related<D: MemoryReads + RelatedSql + FilesSql>(
    index: &D,
    session_rowid: i64,
    limit: usize,
) -> Result<Vec<(SessionRow, Vec<String>)>> {
    let Some(me) = index.session_by_rowid(session_rowid)? else {
        return Ok(Vec::new());
    };
    let (terms, spread) = distinctive_terms(index, &me)?;
    let files = shared_files(index, session_rowid)?;
    if (terms.is_empty() && files.is_empty()) || limit == 0 {
        return Ok(Vec::new());
    }
    let mut scores = match terms.is_empty() {
        true => HashMap::new(),
        false => scores(index, session_rowid, &terms, spread)?,
    };
    let best = scores.values().copied().fold(0.0, f64::max);
    let unit = if best > 0.0 { best } else { 1.0 };
    for sessions in files.values() {
        for session in sessions {
            *scores.entry(*session).or_default() += FILE_WEIGHT * unit;
        }
    }
    let mut ranked: Vec<(i64, f64)> = scores.into_iter().collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(b.0.cmp(&a.0)));
    ranked.truncate(limit);
    let chosen: BTreeSet<i64> = ranked.iter().map(|&(s, _)| s).collect();
    let mut shared: HashMap<i64, Vec<String>> = HashMap::new();
    let held = match terms.is_empty() {
        true => Default::default(),
        false => index.holding(&terms, &chosen, WINDOW)?,
    };
    for (term, session) in held {
        if let Some(term) = terms.get(term) {
            shared.entry(session).or_default().push(term.clone());
        }
    }
    for (path, sessions) in &files {
        for session in sessions.iter().filter(|s| chosen.contains(s)) {
            shared.entry(*session).or_default().push(path.clone());
        }
    }
    let mut related = Vec::new();
    for (rowid, _) in ranked {
        if let Some(row) = index.session_by_rowid(rowid)? {
            let words = shared.remove(&rowid).unwrap_or_default();
            related.push((row, words));
        }
    }
    Ok(related)
}

/// The files session `me` changed (its most recent [`SHARED_FILES`]), each with the other
/// sessions that changed it.
fn shared_files<D: FilesSql>(index: &D, me: i64) -> Result<BTreeMap<String, Vec<i64>>> {
    let mut shared = BTreeMap::new();
    for (path, _) in index.files_of(me)?.into_iter().take(SHARED_FILES) {
        let (rows, _) = index.sessions_changing(&FilePattern::parse(&path)?, PER_FILE)?;
        let others: Vec<i64> = rows
            .iter()
            .map(|(row, _)| row.rowid)
            .filter(|&rowid| rowid != me)
            .collect();
        if !others.is_empty() {
            shared.insert(path, others);
        }
    }
    Ok(shared)
}

/// The most distinctive words of session `me`, most distinctive first, and how widely
/// they are spread (from the frequencies that chose them).
fn distinctive_terms<D: RelatedSql>(index: &D, me: &SessionRow) -> Result<(Vec<String>, Spread)> {
    let mut words = Words::default();
    words.add(&me.record.title);
    words.add(me.summary.as_deref().unwrap_or(""));
    for text in index.recent_texts(me.rowid, RECENT_ENTRIES)? {
        words.add(&text);
    }
    let candidates = words.candidates();
    let documents = index.documents()?;
    let mut spread = Spread {
        matches: 0,
        documents,
    };
    if candidates.is_empty() {
        return Ok((Vec::new(), spread));
    }
    let terms: Vec<&str> = candidates.iter().map(|(w, _)| w.as_str()).collect();
    let frequencies = index.frequencies(me.rowid, &terms, DF_CAP)?;
    let counted: Vec<(String, usize, usize, usize)> = candidates
        .into_iter()
        .zip(frequencies)
        .map(|((term, tf), (df, elsewhere))| (term, tf, df, elsewhere))
        .collect();
    let df: HashMap<&str, usize> = counted.iter().map(|c| (c.0.as_str(), c.2)).collect();
    let terms = distinctive(counted.iter().cloned(), documents);
    spread.matches = terms.iter().filter_map(|t| df.get(t.as_str())).sum();
    Ok((terms, spread))
}

/// Any of `terms`, each as `word` writes it, joined by `or`: the OR of an index's query.
pub(super) fn any_of(terms: &[String], word: fn(&str) -> String, or: &str) -> String {
    terms.iter().map(|t| word(t)).collect::<Vec<_>>().join(or)
}

/// Scores (higher is better) of the sessions matching any of `terms`, except `me`: a
/// session's own rank plus those of its best [`BEST_ROWS`] recent entries.
fn scores<D: RelatedSql>(
    index: &D,
    me: i64,
    terms: &[String],
    spread: Spread,
) -> Result<HashMap<i64, f64>> {
    let mut scores: HashMap<i64, f64> = HashMap::new();
    for (session, score) in index.session_scores(terms)? {
        if session != me {
            *scores.entry(session).or_default() += score;
        }
    }
    let mut by_session: HashMap<i64, Vec<f64>> = HashMap::new();
    for (id, score) in index.entry_scores(terms, spread, WINDOW)? {
        let (session, _) = split_entry_id(id);
        if session != me {
            by_session.entry(session).or_default().push(score);
        }
    }
    for (session, mut rows) in by_session {
        rows.sort_by(|a, b| b.total_cmp(a));
        *scores.entry(session).or_default() += rows.iter().take(BEST_ROWS).sum::<f64>();
    }
    Ok(scores)
}

#[cfg(test)]
mod tests {
    //! Through [`crate::store::memory::MemoryRecords`], on both backends.
    use super::*;
    use crate::model::transcript::{Channel, Transcript};
    use crate::store::Store;
    use crate::store::memory::dialect::{Held, Ranked};
    use crate::store::memory::testing::{edit, entry, session};
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
            .map(|(row, terms)| (row.record.id.into_string(), terms))
            .collect()
    }

    /// A store that answers the questions of choosing terms from fixed frequencies.
    struct Frequencies(Vec<(&'static str, usize)>);

    impl RelatedSql for Frequencies {
        fn recent_texts(&self, _: i64, _: usize) -> Result<Vec<String>> {
            Ok(vec![
                self.0.iter().map(|(w, _)| *w).collect::<Vec<_>>().join(" "),
            ])
        }
        fn documents(&self) -> Result<usize> {
            Ok(10_000)
        }
        fn frequencies(&self, _: i64, words: &[&str], _: usize) -> Result<Vec<(usize, usize)>> {
            Ok(words
                .iter()
                .map(|w| {
                    let df = self.0.iter().find(|(f, _)| f == w).map_or(0, |f| f.1);
                    (df, df)
                })
                .collect())
        }
        fn session_scores(&self, _: &[String]) -> Result<Vec<Ranked>> {
            Ok(Vec::new())
        }
        fn entry_scores(&self, _: &[String], _: Spread, _: usize) -> Result<Vec<Ranked>> {
            Ok(Vec::new())
        }
        fn holding(&self, _: &[String], _: &BTreeSet<i64>, _: usize) -> Result<Held> {
            Ok(Held::new())
        }
    }

    /// How widely the chosen terms are spread is what their frequencies add up to, of the
    /// store's documents: a word too common to be chosen adds nothing.
    #[test]
    fn the_spread_of_the_chosen_terms_is_their_frequencies_added() {
        let store = Frequencies(vec![("ledger", 40), ("rounding", 300), ("kubernetes", 5)]);
        let common = Frequencies(vec![("ledger", 40), ("everywhere", DF_CAP)]);
        let me = SessionRow {
            rowid: 1,
            record: session("a", None, "t"),
            day: "2026-11-20".into(),
            entries: 1,
            summary: None,
        };
        let (terms, spread) = distinctive_terms(&store, &me).unwrap();
        assert_eq!(terms.len(), 3, "{terms:?}");
        assert_eq!(
            spread,
            Spread {
                matches: 345,
                documents: 10_000
            }
        );
        let (terms, spread) = distinctive_terms(&common, &me).unwrap();
        assert_eq!(terms, ["ledger"]);
        assert_eq!(spread.matches, 40);
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
    fn a_session_that_changed_the_same_file_outranks_one_that_only_talks_alike() {
        for_each_backend(|store| {
            sample(&store);
            // "b" shares every word "c" does (the edit calls' too: "b" edited a file named
            // alike) and more; "c" changed the very file "a" changed, so it comes first.
            let (a, b, c) = (rowid(&store, "a"), rowid(&store, "b"), rowid(&store, "c"));
            for (session, key, path) in [
                (a, "a-edit", "deploy/billing.yaml"),
                (b, "b-edit", "deploy/billing.yaml.old"),
                (c, "c-edit", "deploy/billing.yaml"),
            ] {
                store
                    .change_memory(|m| m.append(session, &edit(key, path)))
                    .unwrap();
            }
            let found = related_ids(&store, "a");
            let ids: Vec<&str> = found.iter().map(|(id, _)| id.as_str()).collect();
            assert_eq!(ids, ["c", "b"]);
            assert!(
                found[1].1.len() > found[0].1.len() - 1,
                "b shares more words"
            );
            assert_eq!(
                found[0].1.last().map(String::as_str),
                Some("deploy/billing.yaml"),
                "the file is named after the words"
            );
            assert!(!found[1].1.iter().any(|t| t.contains('/')));
            // A session sharing only the edit's words with b finds first those that changed its
            // file.
            let d = rowid(&store, "d");
            store
                .change_memory(|m| m.append(d, &edit("d-edit", "deploy/billing.yaml")))
                .unwrap();
            let from_d: Vec<String> = related_ids(&store, "d")
                .into_iter()
                .map(|(id, _)| id)
                .collect();
            let mut first_two = from_d[..2].to_vec();
            first_two.sort();
            assert_eq!(first_two, ["a", "c"], "{from_d:?}");
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
