//! Benchmarks of memory, as ignored tests that print what they measure (a test never
//! asserts a wall-clock time): `cargo test --release --lib store::memory::bench --
//! --ignored --nocapture`.
//!
//! - `import_rate`: 100,000 generated entries (10 sessions) into a fresh store on disk;
//! - `search_timings`: p50 of `search` for words matching 200 to 1,000,000 entries, with
//!   and without filters, and of `related`, over 1,000,000 generated entries;
//! - `search_timings_postgres`: the same queries on PostgreSQL (a scratch server, or the
//!   database at `$HOMESPACE_BENCH_PG`, loaded once), with the plans PostgreSQL chose for
//!   the ranked matches of a common and a rare word.

use std::time::Instant;

use super::testing::generated;
use super::*;
use crate::store::Store;

/// A store of `sessions` x `per_session` generated entries at `path`, made once and
/// reused by later runs (it takes a while at a million entries).
fn generated_store(path: &std::path::Path, sessions: u64, per_session: u64) -> Store {
    let fresh = !path.exists();
    let store = Store::open(path).unwrap();
    if fresh {
        let start = Instant::now();
        for first in (0..sessions).step_by(100) {
            let n = (sessions - first).min(100);
            let transcript = generated(n, per_session, first * per_session);
            store.write(|c| import(c, &transcript)).unwrap();
        }
        let entries = sessions * per_session;
        let secs = start.elapsed().as_secs_f64();
        println!(
            "built {entries} entries in {secs:.1}s ({:.0}/s)",
            entries as f64 / secs
        );
    }
    store
}

fn temp_store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("store.db")).unwrap();
    (dir, store)
}

#[test]
#[ignore]
fn import_rate() {
    let (_dir, store) = temp_store();
    let transcript = generated(10, 10_000, 0);
    let start = Instant::now();
    let imported = store.write(|c| import(c, &transcript)).unwrap();
    let secs = start.elapsed().as_secs_f64();
    println!(
        "imported {} entries in {secs:.2}s: {:.0} entries/s",
        imported.entries,
        imported.entries as f64 / secs
    );
    let start = Instant::now();
    let again = store.write(|c| import(c, &transcript)).unwrap();
    println!("again: {again:?} in {:.2}s", start.elapsed().as_secs_f64());
}

/// Search timings over a generated store of a million entries (1,000 sessions of 1,000),
/// made at `$HOMESPACE_BENCH_STORE` (default `/tmp/homespace-memory-bench.db`) on the first
/// run and reused after. `cargo test --release --lib memory::bench -- --ignored --nocapture`
#[test]
#[ignore]
fn search_timings() {
    let path = std::env::var("HOMESPACE_BENCH_STORE")
        .unwrap_or_else(|_| "/tmp/homespace-memory-bench.db".into());
    let store = generated_store(std::path::Path::new(&path), 1000, 1000);
    let stats = store.read(stats).unwrap();
    println!(
        "store: {} sessions, {} entries",
        stats.sessions, stats.entries
    );
    for query in QUERIES {
        let p50 = |limit: usize| {
            let mut times = Vec::new();
            for _ in 0..21 {
                let start = Instant::now();
                store.read(|c| search(c, query, limit)).unwrap();
                times.push(start.elapsed().as_secs_f64() * 1000.0);
            }
            times.sort_by(f64::total_cmp);
            times[10]
        };
        let (five, ten) = (p50(5), p50(10));
        let (hits, total, note) = store.read(|c| search(c, query, 10)).unwrap();
        println!(
            "{query:28} p50 {five:6.2} ms (5 hits) {ten:6.2} ms (10)  hits {:2}  total {total:7}  {}",
            hits.len(),
            note.unwrap_or_default()
        );
    }
    let rowid = store
        .read(|c| session(c, "gen-500"))
        .unwrap()
        .unwrap()
        .rowid;
    let mut times = Vec::new();
    let mut found = Vec::new();
    for _ in 0..11 {
        let start = Instant::now();
        found = store.read(|c| related(c, rowid, 5)).unwrap();
        times.push(start.elapsed().as_secs_f64() * 1000.0);
    }
    times.sort_by(f64::total_cmp);
    println!(
        "related(gen-500)                 p50 {:7.2} ms  found {}",
        times[5],
        found.len()
    );
}

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

/// Search timings on PostgreSQL over the same million generated entries, stored through
/// [`MemoryRecords`] (`import`, then `compact`, which analyzes the tables), in the database
/// at `$HOMESPACE_BENCH_PG` (loaded on the first run, reused after) or, without it, on a
/// scratch server loaded for this run. Prints the plans of the ranked matches of a common
/// and a rare word: the common one should walk the primary key backwards, the rare one
/// read the GIN index. `cargo test --release --lib memory::bench::search_timings_postgres
/// -- --ignored --nocapture`
#[test]
#[ignore]
fn search_timings_postgres() {
    use crate::store::postgres::scratch::ScratchServer;

    let (_server, url) = match std::env::var("HOMESPACE_BENCH_PG") {
        Ok(url) => (None, url),
        Err(_) => {
            let server = ScratchServer::start().unwrap();
            let url = server.database("bench").unwrap();
            (Some(server), url)
        }
    };
    let store = Store::connect(&url).unwrap();
    if store.memory(|m| m.stats()).unwrap().entries == 0 {
        let start = Instant::now();
        for first in (0..1000u64).step_by(100) {
            let transcript = generated(100, 1000, first * 1000);
            store.change_memory(|m| m.import(&transcript)).unwrap();
        }
        let secs = start.elapsed().as_secs_f64();
        store.change_memory(|m| m.compact()).unwrap();
        println!(
            "built 1000000 entries in {secs:.1}s ({:.0}/s), compacted in {:.1}s",
            1e6 / secs,
            start.elapsed().as_secs_f64() - secs
        );
    }
    let stats = store.memory(|m| m.stats()).unwrap();
    println!(
        "store: {} sessions, {} entries",
        stats.sessions, stats.entries
    );
    for query in QUERIES {
        let p50 = |limit: usize| {
            let mut times = Vec::new();
            for _ in 0..21 {
                let start = Instant::now();
                store.memory(|m| m.search(query, limit)).unwrap();
                times.push(start.elapsed().as_secs_f64() * 1000.0);
            }
            times.sort_by(f64::total_cmp);
            times[10]
        };
        let (five, ten) = (p50(5), p50(10));
        let (hits, total, note) = store.memory(|m| m.search(query, 10)).unwrap();
        println!(
            "{query:28} p50 {five:6.2} ms (5 hits) {ten:6.2} ms (10)  hits {:2}  total {total:7}  {}",
            hits.len(),
            note.unwrap_or_default()
        );
    }
    let rowid = store
        .memory(|m| m.session("gen-500"))
        .unwrap()
        .unwrap()
        .rowid;
    let mut times = Vec::new();
    let mut found = Vec::new();
    for _ in 0..11 {
        let start = Instant::now();
        found = store.memory(|m| m.related(rowid, 5)).unwrap();
        times.push(start.elapsed().as_secs_f64() * 1000.0);
    }
    times.sort_by(f64::total_cmp);
    println!(
        "related(gen-500)                 p50 {:7.2} ms  found {}",
        times[5],
        found.len()
    );
    let mut client = ::postgres::Client::connect(&url, ::postgres::NoTls).unwrap();
    for word in ["everyword", "oneintwenty", "oneintwothousand", "w20000"] {
        // The statement of postgres/search.rs's recent_matches, with the word as a value.
        let sql = format!(
            "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
             SELECT id, ts_rank_cd('{{0.5, 1.0, 0.5, 1.0}}', words, to_tsquery('simple', '({word})'), 1)
             FROM entries WHERE words @@ to_tsquery('simple', '({word})')
             ORDER BY id DESC LIMIT 2000"
        );
        println!("\nplan for {word}:");
        for row in client.query(&sql, &[]).unwrap() {
            println!("  {}", row.get::<_, String>(0));
        }
    }
}
