//! The files sessions changed, measured on the memory store section's generated store
//! (`memory_store.rs`): each generated session holds one edit call, of `src/mod<k>.py`
//! ([`edit_call`]; a file is edited by one session in [`FILES`]), so that:
//! - `file:` is timed (p50 over 21 runs, 5 hits) beside the same query without it, the
//!   baseline: filters alone, a common word, and a folder holding every edited file;
//! - the backfill that migration 13 asks of a store already holding entries is timed on
//!   the whole store: its table emptied and the backfill asked for again, as an upgraded
//!   store has it.

use std::time::Instant;

use homespace::store::Store;

use super::backends::Backend;

/// Entry `i` of every [`EDITED_EVERY`] (at `i % EDITED_EVERY == 3`, a tool call) is an edit.
const EDITED_EVERY: u64 = 1_000;
/// Distinct files edited: a file is edited by one generated session in this many.
const FILES: u64 = 200;
/// Runs of each query; the median is reported.
const RUNS: usize = 21;

/// (with `file:`, the baseline without it).
const PAIRS: &[(&str, &str)] = &[
    ("file:src/mod7.py", "session:gen-7"),
    ("file:src/mod7.py channel:user", "channel:user"),
    ("oneintwenty file:src/mod7.py", "oneintwenty"),
    ("everyword file:src/mod7.py", "everyword"),
    ("everyword file:src/", "everyword"),
    ("file:src/ channel:user", "channel:user"),
];

/// The edit call generated entry `i` of session `session` is, with its meta; `None` for
/// every other entry. Its text keeps `everyword`, as every generated entry has it.
pub fn edit_call(i: u64, session: u64) -> Option<(String, serde_json::Value)> {
    (i % EDITED_EVERY == 3).then(|| {
        let arguments = serde_json::json!({
            "file_path": format!("src/mod{}.py", session % FILES),
            "new_string": "everyword",
        });
        (
            format!("Edit {arguments}"),
            serde_json::json!({"tool": "Edit"}),
        )
    })
}

/// Prints the `file:` timings beside their baselines, then the backfill's cost.
pub fn file_timings(store: &Store, backend: Backend, location: &str) -> Result<(), String> {
    let p50 = |query: &str| -> Result<(f64, usize), String> {
        let mut times = Vec::new();
        let mut total = 0;
        for _ in 0..RUNS {
            let start = Instant::now();
            total = store
                .memory(|m| m.search(query, 5))
                .map_err(|e| e.message)?
                .1;
            times.push(start.elapsed().as_secs_f64() * 1000.0);
        }
        times.sort_by(f64::total_cmp);
        Ok((times[RUNS / 2], total))
    };
    println!("  file: filter, p50 for 5 hits, beside the same query without it:");
    for (with, without) in PAIRS {
        let ((filtered, found), (baseline, all)) = (p50(with)?, p50(without)?);
        println!(
            "    {with:34} {filtered:7.2} ms  total {found:7}  | {without:16} {baseline:7.2} ms  total {all:7}"
        );
    }
    reset(store, backend, location)?;
    let start = Instant::now();
    let read = store
        .change_memory(|m| m.fill_changed_files())
        .map_err(|e| e.message)?
        .unwrap_or(0);
    let files = store
        .memory(|m| m.changed_files(homespace::store::memory::changed::FileOrder::Often, 1_000))
        .map_err(|e| e.message)?
        .len();
    println!(
        "  backfill of changed files (migration 13) over the whole store: {read} tool calls read, \
         {files} files noted, in {:.2}s",
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Empties the table of changed files and asks for the backfill again.
fn reset(store: &Store, backend: Backend, location: &str) -> Result<(), String> {
    let sql = "DELETE FROM session_files;
               INSERT INTO memory_backfills (name) VALUES ('session_files');";
    match backend {
        Backend::Sqlite => store
            .write(|conn| Ok(conn.execute_batch(sql)?))
            .map_err(|e| e.message),
        Backend::Postgres => postgres::Client::connect(location, postgres::NoTls)
            .and_then(|mut client| client.batch_execute(sql))
            .map_err(|e| format!("cannot reset the changed files: {e}")),
    }
}
