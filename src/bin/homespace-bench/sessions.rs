//! `memory/` with a store of 1,000,000 entries.
//!
//! 1. Generates, seeded and so the same every run, transcripts as generic JSONL files (one
//!    file per session, a header line with the session's title, then one line per entry):
//!    2,000 sessions of 980,000 entries in all (session lengths skewed, about 50 to 1,900
//!    entries) plus ONE session of exactly 20,000 entries, in the middle of the timeline.
//!    An entry has 20 to 400 words (log-uniform: most are short, a few long) drawn from
//!    about 2,600 English and programming words (base words and their -s, -ed, -ing forms)
//!    with a Zipf distribution (s = 1: "the" is about one word in nine and in nearly every
//!    entry; the rarest word is in a few thousand entries), plus each session's subject
//!    words; and identifiers (`parseAmount`, one token each): [`PROJECTS`] projects' own,
//!    shared by their sessions, and those of the task a session is on (4, drawn from a pool
//!    of [`TASK_POOL`], new every [`TASK_SPAN`] entries; so each is in two or three
//!    sessions). Without the identifiers every word is in more than 2,000 entries, and
//!    `related.md` (which ignores such words) finds nothing. Tool calls start with a tool
//!    and a path, tool results have line breaks and the odd commit hash. Channels follow a
//!    conversation: user, thinking, assistant, tool_call, tool_result. Planted marker words
//!    are in exactly 10, 1,000, 10,000 and 50,000 entries.
//! 2. Times `homespace import --store DB DIR` (the release CLI; wall and CPU time) three
//!    times, each into a new store, and reports the median run, and the store's size.
//! 3. Mounts the example project with that store and measures: `search/memory:<marker>` for
//!    each marker and the most common word (p50 and p95 over [`SEARCH_RUNS`] runs, beside
//!    `grep -rwc` over the JSONL files), `ls` of the 20,000-entry session and `cat` of one
//!    of its entries (beside a plain directory of the same files, same bytes), `cat` of its
//!    `_entry.md` and `related.md` and of `memory/recall` (beside plain copies), and the
//!    daemon's resident memory. The searches and `related` are also timed in-process on the
//!    store (no FUSE, no rendering), to tell the query from the rest. Prints a markdown
//!    table at the end.
//!
//! A search that fails or finds nothing is reported as it came; the section still runs.

use homespace::render::thousands;
use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use super::{daemon_status, homespace_bin, ls, median, mount_args, read_all, row};

/// Entries of the regular sessions, and how many sessions share them.
const REGULAR_ENTRIES: u64 = 980_000;
const REGULAR_SESSIONS: usize = 2_000;
/// The one long session.
const BIG_ENTRIES: u64 = 20_000;
/// Where the long session sits in the timeline (not the latest: `recall` starts there).
const BIG_AT: usize = REGULAR_SESSIONS / 2;
/// The planted words and in how many entries each is.
const MARKERS: [(&str, usize); 4] = [
    ("plantedten", 10),
    ("plantedthousand", 1_000),
    ("plantedtenthousand", 10_000),
    ("plantedfiftythousand", 50_000),
];
const SEED: u64 = 0x5e55_1075;
/// Runs of each search and view (p50 and p95 over these), and of each grep.
const SEARCH_RUNS: usize = 30;
/// Runs of `homespace import` (the median is reported).
const IMPORT_RUNS: usize = 3;
const GREP_RUNS: usize = 5;
/// The first session starts on this day (2025-01-06); sessions spread over this many days.
const FIRST_DAY: (i64, u32, u32) = (2025, 1, 6);
const SPAN_DAYS: i64 = 400;
/// Projects the sessions belong to, and identifiers of each project.
const PROJECTS: usize = 12;
const PROJECT_IDENTIFIERS: usize = 25;
/// Task identifiers sessions draw theirs (4 at a time) from, and how many entries a task
/// lasts (a long session moves from task to task).
const TASK_POOL: usize = 4_000;
const TASK_SPAN: u64 = 500;
/// Hits `search/memory:` asks the store for: the in-process timing does the same work.
const SCOPED_HITS: usize = homespace::resources::search::SCOPED;

pub fn bench_sessions(project: &Path, runs: usize) {
    println!(
        "\n## memory sessions: a store of 1,000,000 entries (generated generic JSONL, seeded)"
    );
    let data = tempfile::tempdir().expect("temp dir for the transcripts and the store");
    let transcripts = data.path().join("transcripts");
    std::fs::create_dir_all(&transcripts).expect("transcripts dir");

    let started = Instant::now();
    let corpus = generate(&transcripts);
    let generated = started.elapsed();
    println!(
        "  generated {} files, {} entries, {} words, {:.1} MiB in {:.1} s \
         (vocabulary {} words; \"{}\" in {} entries)",
        thousands(corpus.sessions.len() as u64),
        thousands(corpus.entries),
        thousands(corpus.words),
        mib(corpus.bytes),
        generated.as_secs_f64(),
        thousands(corpus.vocabulary as u64),
        corpus.common,
        thousands(corpus.common_entries),
    );

    let db = data.path().join("store.db");
    // The import is timed IMPORT_RUNS times, each into a new store, and the median is
    // reported: one run of a minute on a shared machine varies by a sixth either way.
    let mut imports = Vec::new();
    for _ in 0..IMPORT_RUNS {
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", db.display()));
        }
        match import_once(&db, &transcripts) {
            Ok(run) => imports.push(run),
            Err(why) => {
                println!("  import failed: {why}");
                println!("  (nothing more to measure without the store)");
                return;
            }
        }
    }
    imports.sort_by_key(|run| run.wall);
    let times: Vec<String> = imports
        .iter()
        .map(|run| format!("{:.1} s", run.wall.as_secs_f64()))
        .collect();
    let median = imports.swap_remove(imports.len() / 2);
    let (imported, user, sys) = (median.wall, median.user, median.sys);
    println!("  homespace import: {}", median.said);
    println!(
        "  import runs (each into a new store): {}",
        times.join(", ")
    );
    let rate = corpus.entries as f64 / imported.as_secs_f64();
    let size = store_size(&db);
    println!(
        "  import: {} entries in {:.1} s = {} entries/s (goal ≥ 20,000/s); \
         CPU user {user:.1} s + sys {sys:.1} s; store on disk {:.1} MiB ({})",
        thousands(corpus.entries),
        imported.as_secs_f64(),
        thousands(rate as u64),
        mib(size.0 + size.1),
        size.2
    );
    // grep over the transcripts (just written, so in the page cache), before the mount.
    let greps: Vec<(String, Duration, u64)> = MARKERS
        .iter()
        .map(|(word, _)| *word)
        .chain([corpus.common])
        .map(|word| {
            let (time, lines) = grep(&transcripts, word);
            (word.to_string(), time, lines)
        })
        .collect();

    let words: Vec<String> = greps.iter().map(|(w, _, _)| w.clone()).collect();
    let store_only = in_process(&db, &words, &corpus.sessions[BIG_AT].id);

    // Uncached: each search is timed doing its work, as grep does; a repeated identical
    // search served by the kernel's cache is the source section's subject.
    let (mounted, first_ls) = mount_args(project, Some(&db), &["--no-cache"]);
    let at = &mounted.at;
    let mut table: Vec<String> = Vec::new();
    println!("  mount -> first ls: {:.1} ms", ms(first_ls));
    if let Ok(entry) = std::fs::read_to_string(at.join("_entry.md"))
        && let Some(line) = entry.lines().find(|l| l.contains("/memory/`"))
    {
        println!("  {}", line.trim_start_matches("- "));
    }
    println!(
        "  {:<44} {:>13} {:>13} {:>9}",
        "operation", "mount", "plain disk", "ratio"
    );

    // Searches.
    let mut expected: Vec<(String, u64)> = MARKERS
        .iter()
        .map(|(w, n)| (w.to_string(), *n as u64))
        .collect();
    expected.push((corpus.common.to_string(), corpus.common_entries));
    for ((word, want), (_, grep_time, grep_lines)) in expected.iter().zip(&greps) {
        let path = at.join("search").join(format!("memory:{word}"));
        let t = Instant::now();
        let first = std::fs::read_to_string(&path);
        let first_time = t.elapsed();
        let (hits, note) = match &first {
            Ok(text) => heading(text),
            Err(e) => (format!("error: {e}"), None),
        };
        let samples = sample(SEARCH_RUNS, || {
            let _ = std::fs::read(&path);
        });
        let (p50, p95) = (percentile(&samples, 50), percentile(&samples, 95));
        row(&format!("search/memory:{word} p50"), p50, Some(*grep_time));
        row("  p95", p95, None);
        row("  first (after the mount)", first_time, None);
        let alone = store_only.get(&format!("search:{word}")).copied();
        if let Some((a50, a95)) = alone {
            row("  store only, in-process: p50", a50, None);
            row("  store only, in-process: p95", a95, None);
        }
        println!(
            "    got: {hits}; planted in {} entries; grep -rwc: {} lines",
            thousands(*want),
            thousands(*grep_lines)
        );
        if let Some(note) = note {
            println!("    note: {note}");
        }
        if let Ok(text) = &first
            && (text.contains("No match.") || !text.contains("## memory — "))
        {
            println!("    (the search found nothing or failed; its result began)");
            for line in text.lines().take(8) {
                println!("      {line}");
            }
        }
        let goal = if *word == corpus.common {
            "< 100 ms"
        } else {
            "p50 ≤ 10 ms"
        };
        table.push(format!(
            "| `search/memory:{word}` ({} entries; got {hits}) | {} | {} | {} | {} (grep -rwc) | {} | {goal} |",
            thousands(*want),
            fmt_ms(p50),
            fmt_ms(p95),
            alone.map_or(String::new(), |(a, _)| fmt_ms(a)),
            fmt_ms(*grep_time),
            ratio(p50, *grep_time),
        ));
    }

    // The long session.
    let big = &corpus.sessions[BIG_AT];
    let session = at.join("memory/sessions").join(&big.day).join(&big.id);
    let mut names: Vec<String> = match std::fs::read_dir(&session) {
        Ok(dir) => dir
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect(),
        Err(e) => {
            println!(
                "  ls {}: {e}; the session measures are skipped",
                session.display()
            );
            Vec::new()
        }
    };
    names.sort();
    let entries: Vec<&String> = names.iter().filter(|n| n.ends_with(".json")).collect();
    if !entries.is_empty() {
        let plain = data.path().join("plain-session");
        std::fs::create_dir_all(&plain).expect("plain session dir");
        let t = Instant::now();
        let mut copied = 0u64;
        for name in &names {
            // summary.md may not exist until written; copy what reads.
            if let Ok(bytes) = std::fs::read(session.join(name)) {
                copied += bytes.len() as u64;
                std::fs::write(plain.join(name), &bytes).expect("write a plain copy");
            }
        }
        println!(
            "  read the session's {} files through the mount ({:.1} MiB) in {:.1} s; \
             wrote them to a plain directory",
            thousands(names.len() as u64),
            mib(copied),
            t.elapsed().as_secs_f64()
        );
        let on_mount = sample(SEARCH_RUNS, || ls(&session));
        let on_disk = sample(SEARCH_RUNS, || ls(&plain));
        let label = format!(
            "ls session dir ({} entries)",
            thousands(entries.len() as u64)
        );
        compare(&label, &on_mount, &on_disk, None, &mut table);

        let one = entries[entries.len() / 2];
        let (file, copy) = (session.join(one), plain.join(one));
        let on_mount = sample(runs, || read_all(&file));
        let on_disk = sample(runs, || read_all(&copy));
        compare(
            &format!("cat one entry ({one})"),
            &on_mount,
            &on_disk,
            None,
            &mut table,
        );

        for view in ["_entry.md", "related.md"] {
            let (file, copy) = (session.join(view), plain.join(view));
            if !copy.exists() {
                println!("  cat {view} of the session: could not be read");
                continue;
            }
            let on_mount = sample(SEARCH_RUNS, || {
                let _ = std::fs::read(&file);
            });
            let on_disk = sample(SEARCH_RUNS, || read_all(&copy));
            let alone = (view == "related.md")
                .then(|| store_only.get("related").copied())
                .flatten();
            compare(
                &format!("cat session {view}"),
                &on_mount,
                &on_disk,
                alone,
                &mut table,
            );
            if view == "related.md" {
                let text = std::fs::read_to_string(&copy).unwrap_or_default();
                println!("    lists {} sessions", listed(&text));
            }
        }
    }
    let recall = at.join("memory/recall");
    match std::fs::read(&recall) {
        Ok(bytes) => {
            let copy = data.path().join("recall");
            std::fs::write(&copy, &bytes).expect("write a plain copy of recall");
            let on_mount = sample(SEARCH_RUNS, || {
                let _ = std::fs::read(&recall);
            });
            let on_disk = sample(SEARCH_RUNS, || read_all(&copy));
            let alone = store_only.get("recall").copied();
            compare("cat memory/recall", &on_mount, &on_disk, alone, &mut table);
            println!(
                "    lists {} sessions",
                listed(&String::from_utf8_lossy(&bytes))
            );
        }
        Err(e) => println!("  cat memory/recall: {e}"),
    }

    let kib = |field| daemon_status(at, field).map_or(0.0, |k| k as f64 / 1024.0);
    let (rss, peak) = (kib("VmRSS:"), kib("VmHWM:"));
    println!(
        "  {:<44} {:>10.1} MiB (peak {:.1} MiB)",
        "daemon RSS after the runs", rss, peak
    );
    drop(mounted);

    println!(
        "\n### memory/ with {} entries in {} sessions (p50/p95 over {SEARCH_RUNS} runs; \
         cat entry over {runs})",
        thousands(corpus.entries),
        thousands(corpus.sessions.len() as u64)
    );
    println!(
        "| measure | mount p50 | mount p95 | store only p50 | plain disk p50 | ratio | goal |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: | --- |");
    println!(
        "| generate the JSONL files ({:.0} MiB) | {:.1} s | | | | | |",
        mib(corpus.bytes),
        generated.as_secs_f64()
    );
    println!(
        "| `homespace import` (median of {IMPORT_RUNS}) | {} entries/s ({:.1} s; CPU {:.1} s) | | | | | ≥ 20,000/s |",
        thousands(rate as u64),
        imported.as_secs_f64(),
        user + sys
    );
    println!(
        "| store on disk (db + wal) | {:.0} MiB | | | {:.0} MiB (JSONL) | {:.1}x | |",
        mib(size.0 + size.1),
        mib(corpus.bytes),
        (size.0 + size.1) as f64 / corpus.bytes.max(1) as f64
    );
    for line in table {
        println!("{line}");
    }
    println!("| daemon RSS after the runs (peak) | {rss:.1} MiB ({peak:.1}) | | | | | bounded |");
    println!();
}

/// Prints p50 (with the plain disk's p50 and the ratio) and p95 rows, and the store's own
/// p50 and p95 when given; adds a table line.
fn compare(
    label: &str,
    on_mount: &[Duration],
    on_disk: &[Duration],
    store_only: Option<(Duration, Duration)>,
    table: &mut Vec<String>,
) {
    let (p50, p95) = (percentile(on_mount, 50), percentile(on_mount, 95));
    let plain = percentile(on_disk, 50);
    row(&format!("{label} p50"), p50, Some(plain));
    row("  p95", p95, Some(percentile(on_disk, 95)));
    if let Some((a50, a95)) = store_only {
        row("  store only, in-process: p50", a50, None);
        row("  store only, in-process: p95", a95, None);
    }
    table.push(format!(
        "| `{label}` | {} | {} | {} | {} | {} | |",
        fmt_ms(p50),
        fmt_ms(p95),
        store_only.map_or(String::new(), |(a, _)| fmt_ms(a)),
        fmt_ms(plain),
        ratio(p50, plain)
    ));
}

/// The store alone, in this process (no FUSE, no rendering): p50 and p95 of each search as
/// `search/memory:` asks it (`search:<word>`), of `related` for the session `big`
/// (`related`) and for the latest session (`recall`). A failure is printed and left out.
fn in_process(db: &Path, words: &[String], big: &str) -> HashMap<String, (Duration, Duration)> {
    use homespace::store::Store;
    use homespace::store::memory;

    let mut out = HashMap::new();
    let store = match Store::open(db) {
        Ok(store) => store,
        Err(e) => {
            println!("  store only: cannot open {}: {}", db.display(), e.message);
            return out;
        }
    };
    let mut measure = |key: String, op: &mut dyn FnMut() -> Result<(), String>| {
        if let Err(e) = op() {
            println!("  store only: {key} failed: {e}");
            return;
        }
        let samples = sample(SEARCH_RUNS, || {
            let _ = op();
        });
        out.insert(key, (percentile(&samples, 50), percentile(&samples, 95)));
    };
    for word in words {
        measure(format!("search:{word}"), &mut || {
            store
                .memory(|m| m.search(word, SCOPED_HITS))
                .map(drop)
                .map_err(|e| e.message)
        });
    }
    let rowid = |found: Option<memory::SessionRow>| found.map(|row| row.rowid);
    let big = store.memory(|m| m.session(big)).map(rowid);
    let latest = store
        .memory(|m| m.recent_sessions(1))
        .map(|rows| rowid(rows.into_iter().next()));
    for (key, session) in [("related", big), ("recall", latest)] {
        match session {
            Ok(Some(rowid)) => measure(key.to_string(), &mut || {
                store
                    .memory(|m| m.related(rowid, 5))
                    .map(drop)
                    .map_err(|e| e.message)
            }),
            Ok(None) => println!("  store only: {key}: no such session in the store"),
            Err(e) => println!("  store only: {key}: {}", e.message),
        }
    }
    out
}

/// One timed `homespace import`.
struct ImportRun {
    wall: Duration,
    /// CPU user and system seconds.
    user: f64,
    sys: f64,
    /// Its summary line.
    said: String,
}

/// One `homespace import --store DB DIR` into a new store; or why it failed.
fn import_once(db: &Path, transcripts: &Path) -> Result<ImportRun, String> {
    let cpu_before = children_cpu();
    let started = Instant::now();
    let out = Command::new(homespace_bin())
        .args(["import", "--store"])
        .arg(db)
        .arg(transcripts)
        .output()
        .map_err(|e| format!("cannot run homespace import: {e}"))?;
    let took = started.elapsed();
    let after = children_cpu();
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let first: Vec<&str> = err.lines().take(20).collect();
        return Err(format!("{}:\n    {}", out.status, first.join("\n    ")));
    }
    Ok(ImportRun {
        wall: took,
        user: after.0 - cpu_before.0,
        sys: after.1 - cpu_before.1,
        said: String::from_utf8_lossy(&out.stdout).trim().to_string(),
    })
}

/// User and system CPU seconds of the children waited for so far.
fn children_cpu() -> (f64, f64) {
    // SAFETY: getrusage only writes into the struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) } != 0 {
        return (0.0, 0.0);
    }
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    (secs(usage.ru_utime), secs(usage.ru_stime))
}

/// `runs` timings of `op`, after one run that is not counted.
fn sample(runs: usize, mut op: impl FnMut()) -> Vec<Duration> {
    op();
    (0..runs.max(1))
        .map(|_| {
            let t = Instant::now();
            op();
            t.elapsed()
        })
        .collect()
}

/// The `p`th percentile (nearest rank) of `samples`.
fn percentile(samples: &[Duration], p: usize) -> Duration {
    let mut sorted = samples.to_vec();
    sorted.sort();
    let rank = (sorted.len() * p).div_ceil(100).max(1);
    sorted[rank.min(sorted.len()) - 1]
}

/// `grep -rwc WORD` over the transcripts: its median time, and the matching lines it counted.
fn grep(dir: &Path, word: &str) -> (Duration, u64) {
    let run = || {
        Command::new("grep")
            .args(["-rwcF", "--include=*.jsonl", "-e", word])
            .arg(dir)
            .output()
            .expect("grep runs")
    };
    let out = run();
    let lines = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.rsplit(':').next()?.parse::<u64>().ok())
        .sum();
    let times = (0..GREP_RUNS)
        .map(|_| {
            let t = Instant::now();
            run();
            t.elapsed()
        })
        .collect();
    (median(times), lines)
}

/// From a search result: `N hits` of its heading and the memory area's note, if any.
fn heading(text: &str) -> (String, Option<String>) {
    let hits = text
        .lines()
        .nth(1)
        .and_then(|l| l.rsplit(" — ").next())
        .unwrap_or("no heading")
        .to_string();
    let note = text
        .lines()
        .skip_while(|l| !l.starts_with("## memory"))
        .nth(1)
        .filter(|l| l.starts_with('('))
        .map(|l| l.trim_matches(['(', ')']).to_string());
    (hits, note)
}

/// Sessions a `related.md` or `recall` lists.
fn listed(text: &str) -> usize {
    text.lines().filter(|l| l.starts_with("- `")).count()
}

/// Bytes of the store file and its write-ahead log, and the sizes as text.
fn store_size(db: &Path) -> (u64, u64, String) {
    let len = |p: PathBuf| std::fs::metadata(p).map_or(0, |m| m.len());
    let wal_path = PathBuf::from(format!("{}-wal", db.display()));
    let (main, wal) = (len(db.to_path_buf()), len(wal_path));
    (
        main,
        wal,
        format!("db {:.1} MiB + wal {:.1} MiB", mib(main), mib(wal)),
    )
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn fmt_ms(d: Duration) -> String {
    if d < Duration::from_millis(1) {
        format!("{:.0} µs", d.as_secs_f64() * 1e6)
    } else {
        format!("{:.1} ms", ms(d))
    }
}

fn ratio(mount: Duration, plain: Duration) -> String {
    format!(
        "{:.2}x",
        mount.as_secs_f64() / plain.as_secs_f64().max(1e-9)
    )
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

// ---------------------------------------------------------------------------------------
// The generator.

mod corpus;
use corpus::*;
