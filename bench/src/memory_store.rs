//! Memory's store measured in-process, with no mount and no rendering, on SQLite and on
//! PostgreSQL: what a change to the store's queries is judged by.
//!
//! 1. Import rate: generated transcripts loaded as `homespace import` loads them — 10 files
//!    of 10,000 entries in one load, then 100 files of 1,000 entries 50 to a load — into a
//!    new store, then the same again (every entry skipped), then `compact`.
//! 2. Search: a store of `--entries` generated entries (1,000,000 by default; sessions of
//!    1,000), loaded 100 sessions at a time and compacted, then the p50 over 21 runs of
//!    `search` for five and for ten hits, for words in one to every entry, phrases, filters
//!    alone and with words, patterns, and words missing from every entry; and of `related`
//!    for a session in the middle; and a session's digest against reading its entries
//!    (`memory_digest.rs`). On PostgreSQL also the plans it chose for the ranked matches of
//!    common and rare words.
//! 3. The files sessions changed (`memory_files.rs`): the `file:` filter beside the same
//!    queries without it, and the backfill of a store that held entries before them.
//!
//! Generated entries have words of known counts (`everyword` in every entry, `oneintwenty`
//! in every 20th, and so on) and `w<n>` words skewed so a few are common and most rare; the
//! generator is seeded, so every run stores the same entries.

use std::time::Instant;

use homespace::model::SessionId;
use homespace::model::time::Time;
use homespace::model::transcript::{Channel, EntryRecord, SessionRecord, Transcript};
use homespace::store::Store;

use super::backends::{Backend, Backends};
use super::memory_digest::digest_cost;
use super::memory_files;

/// Entries of one generated session in the search store.
const PER_SESSION: u64 = 1_000;
/// Sessions per load when building the search store.
const SESSIONS_PER_LOAD: u64 = 100;
/// Runs of each query; the median is reported.
const RUNS: usize = 21;

/// The queries both backends are timed on: words in 1 (`w20000`, about) to every entry,
/// phrases, filters, filters alone and patterns, and words of which only some match.
const QUERIES: &[&str] = &[
    "w20000",
    "oneintwothousand",
    "oneintwohundred",
    "oneintwenty",
    "everyword",
    "w3",
    "oneintwenty w5",
    "\"everyword oneintwenty\"",
    "oneintwenty channel:user",
    "everyword channel:system",
    "everyword tag:sampled",
    "everyword session:gen-500",
    "everyword since:2026-10-20",
    "tag:sampled",
    "channel:tool_call",
    "re:w4999\\b",
    "oneintwohundred re:w1\\d\\b",
    "w3*",
    // Words missing from every entry: the hits holding some of the words are ranked.
    "w20000 nosuchword",
    "oneintwenty nosuchword",
    "everyword nosuchword otherword",
];

/// Measures both backends (PostgreSQL when its scratch server runs).
pub fn bench_memory_store(backends: &Backends, entries: u64) {
    let dir = match tempfile::tempdir() {
        Ok(dir) => dir,
        Err(e) => {
            println!("no temp dir for the memory store section: {e}");
            return;
        }
    };
    for backend in backends.available() {
        println!("\n## memory store on {}: import rate", backend.name());
        for (shape, sessions, per_session, per_load) in [
            ("10 files of 10,000 entries, one load", 10, 10_000, 10),
            ("100 files of 1,000 entries, 50 per load", 100, 1_000, 50),
        ] {
            let files: Vec<Transcript> = (0..sessions)
                .map(|s| generated(1, per_session, s * per_session))
                .collect();
            // The bench store is kept until measured: dropping it removes the store.
            let outcome = backends.new_store(backend, dir.path()).and_then(|made| {
                let store = made.open()?;
                import_rate(backend, &store, shape, &files, per_load)
            });
            if let Err(why) = outcome {
                println!("  {shape}: {why}");
            }
        }
        println!(
            "\n## memory store on {}: search over {entries} entries",
            backend.name()
        );
        let outcome = backends.new_store(backend, dir.path()).and_then(|made| {
            let store = made.open()?;
            search_timings(&store, entries)?;
            memory_files::file_timings(&store, backend, &made.location)?;
            if backend == Backend::Postgres {
                plans(&made.location)?;
            }
            Ok(())
        });
        if let Err(why) = outcome {
            println!("  {why}");
        }
    }
}

/// Loads `files` in loads of `per_load` files, as `homespace import` does, and prints the
/// rate; then again (everything skipped) and the compaction after.
fn import_rate(
    backend: Backend,
    store: &Store,
    shape: &str,
    files: &[Transcript],
    per_load: usize,
) -> Result<(), String> {
    if backend == Backend::Sqlite {
        store.for_bulk_load().map_err(|e| e.message)?;
    }
    let entries: usize = files
        .iter()
        .flat_map(|t| &t.sessions)
        .map(|(_, e)| e.len())
        .sum();
    println!("  {shape}:");
    for pass in ["first", "again"] {
        let start = Instant::now();
        for load in files.chunks(per_load) {
            store
                .change_memory(|m| {
                    m.bulk_load(&mut |loader| {
                        for file in load {
                            loader.import(file)?;
                        }
                        Ok(())
                    })
                })
                .map_err(|e| e.message)?;
        }
        let secs = start.elapsed().as_secs_f64();
        println!(
            "    {pass:7} {entries} entries in {secs:.2}s: {:.0} entries/s",
            entries as f64 / secs
        );
    }
    let start = Instant::now();
    store
        .change_memory(|m| m.compact())
        .map_err(|e| e.message)?;
    println!("    compact {:.2}s", start.elapsed().as_secs_f64());
    Ok(())
}

/// Builds a store of `entries` generated entries and times every query of [`QUERIES`] and
/// `related` on it.
fn search_timings(store: &Store, entries: u64) -> Result<(), String> {
    let sessions = (entries / PER_SESSION).max(1);
    let start = Instant::now();
    for first in (0..sessions).step_by(SESSIONS_PER_LOAD as usize) {
        let n = (sessions - first).min(SESSIONS_PER_LOAD);
        let transcript = generated(n, PER_SESSION, first * PER_SESSION);
        store
            .change_memory(|m| m.import(&transcript))
            .map_err(|e| e.message)?;
    }
    let built = start.elapsed().as_secs_f64();
    store
        .change_memory(|m| m.compact())
        .map_err(|e| e.message)?;
    let stats = store.memory(|m| m.stats()).map_err(|e| e.message)?;
    println!(
        "  built {} sessions, {} entries in {built:.1}s ({:.0}/s), compacted in {:.1}s",
        stats.sessions,
        stats.entries,
        stats.entries as f64 / built,
        start.elapsed().as_secs_f64() - built
    );
    for query in QUERIES {
        let p50 = |limit: usize| -> Result<f64, String> {
            let mut times = Vec::new();
            for _ in 0..RUNS {
                let start = Instant::now();
                store
                    .memory(|m| m.search(query, limit))
                    .map_err(|e| e.message)?;
                times.push(start.elapsed().as_secs_f64() * 1000.0);
            }
            times.sort_by(f64::total_cmp);
            Ok(times[RUNS / 2])
        };
        let (five, ten) = (p50(5)?, p50(10)?);
        let (hits, total, note) = store
            .memory(|m| m.search(query, 10))
            .map_err(|e| e.message)?;
        println!(
            "  {query:28} p50 {five:7.2} ms (5 hits) {ten:7.2} ms (10)  hits {:2}  total {total:7}  {}",
            hits.len(),
            note.unwrap_or_default()
        );
    }
    let middle = format!("gen-{}", sessions / 2);
    let Some(session) = store
        .memory(|m| m.session(&middle))
        .map_err(|e| e.message)?
    else {
        return Err(format!("no session {middle} was stored"));
    };
    let mut times = Vec::new();
    let mut found = 0;
    for _ in 0..RUNS {
        let start = Instant::now();
        found = store
            .memory(|m| m.related(session.rowid, 5))
            .map_err(|e| e.message)?
            .len();
        times.push(start.elapsed().as_secs_f64() * 1000.0);
    }
    times.sort_by(f64::total_cmp);
    println!(
        "  {:28} p50 {:7.2} ms  found {found}",
        format!("related({middle})"),
        times[RUNS / 2]
    );
    digest_cost(store, sessions)
}

/// The plans PostgreSQL chose for the ranked matches of common and rare words: the common
/// ones should walk the primary key backwards, the rare ones read the GIN index.
fn plans(url: &str) -> Result<(), String> {
    let mut client = postgres::Client::connect(url, postgres::NoTls)
        .map_err(|e| format!("cannot reach the store's database: {e}"))?;
    for word in ["everyword", "oneintwenty", "oneintwothousand", "w20000"] {
        // The statement of the ranked matches (postgres/search_sql.rs), with the word as a
        // value.
        let sql = format!(
            "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
             SELECT id, ts_rank_cd('{{0.5, 1.0, 0.5, 1.0}}', words, to_tsquery('simple', '({word})'), 1)
             FROM entries WHERE words @@ to_tsquery('simple', '({word})')
             ORDER BY id DESC LIMIT 2000"
        );
        println!("\n  plan for {word}:");
        let rows = client
            .query(&sql, &[])
            .map_err(|e| format!("EXPLAIN: {e}"))?;
        for row in rows {
            println!("    {}", row.get::<_, String>(0));
        }
    }
    Ok(())
}

/// A small deterministic generator (xorshift), so generated stores are the same each run.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number in `0..n`, small numbers far more often (roughly Zipf).
    fn skewed(&mut self, n: u64) -> u64 {
        let x = (self.next() % 1_000_000) as f64 / 1_000_000.0;
        ((n as f64).powf(x) - 1.0) as u64 % n
    }
}

/// Words with known counts in a generated store of `n` entries numbered from 0:
/// `everyword` in every entry, `oneintwenty` in every 20th, `oneintwohundred` in every
/// 200th, `oneintwothousand` in every 2,000th; the rest are `w<number>`, skewed so a few are
/// common and most are rare.
fn content(rng: &mut Rng, i: u64) -> String {
    let mut text = String::from("everyword");
    for (every, word) in [
        (20, "oneintwenty"),
        (200, "oneintwohundred"),
        (2_000, "oneintwothousand"),
    ] {
        if i.is_multiple_of(every) {
            text.push(' ');
            text.push_str(word);
        }
    }
    let words = 10 + rng.next() % 60;
    for _ in 0..words {
        text.push_str(&format!(" w{}", rng.skewed(50_000)));
    }
    text
}

/// `sessions` sessions of `per_session` entries each, entry `i` (counted over the whole
/// transcript from `first`) made by [`content`].
fn generated(sessions: u64, per_session: u64, first: u64) -> Transcript {
    let mut rng = Rng::new(first + 7);
    let channels = Channel::ALL;
    let mut transcript = Transcript::default();
    for s in 0..sessions {
        let n = first + s * per_session;
        let day = 1 + (n / per_session) % 28;
        let record = SessionRecord {
            id: SessionId::derived(&format!("gen-{}", n / per_session)),
            source: "jsonl".into(),
            started: Time::parse(&format!("2026-10-{day:02}T10:00:00Z")).ok(),
            ended: None,
            title: format!(
                "generated session {} w{}",
                n / per_session,
                rng.skewed(50_000)
            ),
            cwd: None,
            model: None,
            continuation_of: None,
            resumes_by_copy: true,
            lesser_titles: Vec::new(),
        };
        let entries = (n..n + per_session)
            .map(|i| {
                let channel = channels[(i % 5) as usize];
                if let Some((content, meta)) = memory_files::edit_call(i, n / per_session) {
                    return EntryRecord {
                        key: format!("k{i}"),
                        ts: None,
                        channel,
                        content,
                        tags: Vec::new(),
                        meta: meta.try_into().unwrap_or_default(),
                    };
                }
                EntryRecord {
                    key: format!("k{i}"),
                    ts: Time::parse(&format!(
                        "2026-10-{day:02}T10:{:02}:{:02}Z",
                        (i / 60) % 60,
                        i % 60
                    ))
                    .ok(),
                    channel,
                    content: content(&mut rng, i),
                    tags: match i.is_multiple_of(100) {
                        true => vec!["sampled".into()],
                        false => Vec::new(),
                    },
                    meta: homespace::model::Meta::default(),
                }
            })
            .collect();
        transcript.sessions.push((record, entries));
    }
    transcript
}
