//! `memory/` with a store of 1,000,000 entries (`--entries N` for fewer), on SQLite and on
//! PostgreSQL side by side.
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
//!    of 4,000, new every [`TASK_SPAN`] entries; so each is in two or three sessions).
//!    Without the identifiers every word is in more than 2,000 entries, and `related.md`
//!    (which ignores such words) finds nothing. Tool calls start with a tool and a path,
//!    tool results have line breaks and the odd commit hash. Channels follow a
//!    conversation: user, thinking, assistant, tool_call, tool_result. Planted marker words
//!    are in exactly 10, 1,000, 10,000 and 50,000 entries. With fewer entries ([`Scale`]),
//!    sessions keep their lengths and there are fewer of them, the long session has at most
//!    a fifth of the entries, and the task pool and markers shrink in proportion (a marker
//!    in at least 10 entries).
//! 2. For each backend (`backends.rs`), times `homespace import --store STORE DIR` (the
//!    release CLI; wall and CPU time) up to three times, each into a new store, and reports
//!    the median run, its rate and the store's size (the SQLite file and its WAL;
//!    PostgreSQL's `pg_database_size`).
//! 3. Mounts the example project with that store and measures (`sessions/measure.rs`):
//!    `search/memory:<marker>` for each marker and the most common word (p50 and p95 over
//!    [`SEARCH_RUNS`] runs, beside `grep -rwc` over the JSONL files), `ls` of the long
//!    session and `cat` of one of its entries (beside a plain directory of the same files,
//!    same bytes), `cat` of its `_entry.md` and `related.md` and of `memory/recall` (beside
//!    plain copies), and the daemon's resident memory. The searches and `related` are also
//!    timed in-process on the store (no FUSE, no rendering), to tell the query from the
//!    rest. Prints each figure of both backends side by side, and a markdown table.
//!
//! A search that fails or finds nothing is reported as it came; the section still runs.

use homespace::render::thousands;
use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use homespace_testkit::timing::fmt_ms;

use super::backends::{self, BOTH, Backends, mib, ratio};
use super::search_total::heading_count;
use super::{homespace_bin, median};
use measure::{BackendFigures, Figure, Plains, Shared};

/// Entries in the store unless `--entries` says otherwise, and the fewest it takes.
pub const ENTRIES: u64 = 1_000_000;
pub const MIN_ENTRIES: u64 = 10_000;
const SEED: u64 = 0x5e55_1075;
/// Runs of each search and view (p50 and p95 over these), and of each grep.
const SEARCH_RUNS: usize = 30;
/// Runs of `homespace import` (the median is reported), while the runs so far took less
/// than the budget.
const IMPORT_RUNS: usize = 3;
const IMPORT_BUDGET: Duration = Duration::from_secs(240);
const GREP_RUNS: usize = 5;
/// Sampling of one measure stops once it has taken this long and has this many runs.
const SAMPLE_BUDGET: Duration = Duration::from_secs(20);
const MIN_SAMPLES: usize = 5;
/// The first session starts on this day (2025-01-06); sessions spread over this many days.
const FIRST_DAY: (i64, u32, u32) = (2025, 1, 6);
const SPAN_DAYS: i64 = 400;
/// Projects the sessions belong to, and identifiers of each project.
const PROJECTS: usize = 12;
const PROJECT_IDENTIFIERS: usize = 25;
/// How many entries a task lasts (a long session moves from task to task).
const TASK_SPAN: u64 = 500;
/// Hits `search/memory:` asks the store for: the in-process timing does the same work.
const SCOPED_HITS: usize = homespace::resources::search_results::SCOPED;

/// The corpus's shape for a number of entries; at 1,000,000, the one described above.
pub(super) struct Scale {
    /// Entries of the regular sessions, and how many sessions share them.
    pub(super) regular_entries: u64,
    pub(super) regular_sessions: usize,
    /// The one long session, and where it sits in the timeline (not the latest: `recall`
    /// starts there).
    pub(super) big_entries: u64,
    pub(super) big_at: usize,
    /// Task identifiers sessions draw theirs (4 at a time) from.
    pub(super) task_pool: usize,
    /// The planted words and in how many entries each is.
    pub(super) markers: Vec<(&'static str, usize)>,
}

impl Scale {
    pub(super) fn new(entries: u64) -> Scale {
        let share = |n: u64| ((n as u128 * entries as u128) / ENTRIES as u128) as u64;
        let big_entries = 20_000.min(entries / 5);
        let regular_entries = entries - big_entries;
        // 980,000 entries in 2,000 sessions: the same mean length at any size.
        let regular_sessions = ((regular_entries * 2_000).div_ceil(980_000)).max(2) as usize;
        Scale {
            regular_entries,
            regular_sessions,
            big_entries,
            big_at: regular_sessions / 2,
            task_pool: share(4_000).max(40) as usize,
            markers: [
                ("plantedten", 10),
                ("plantedthousand", 1_000),
                ("plantedtenthousand", 10_000),
                ("plantedfiftythousand", 50_000),
            ]
            .into_iter()
            .map(|(word, n)| (word, share(n).max(10) as usize))
            .collect(),
        }
    }
}

pub fn bench_sessions(project: &Path, backends: &Backends, runs: usize, entries: u64) {
    let scale = Scale::new(entries);
    println!(
        "\n## memory sessions: a store of {} entries{} (generated generic JSONL, seeded), \
         SQLite and PostgreSQL side by side",
        thousands(entries),
        if entries == ENTRIES {
            String::new()
        } else {
            format!(" (--entries; the full run has {})", thousands(ENTRIES))
        }
    );
    let data = match tempfile::tempdir() {
        Ok(dir) => dir,
        Err(e) => {
            println!("  no temp dir for the transcripts and the stores: {e}");
            return;
        }
    };
    let transcripts = data.path().join("transcripts");
    if let Err(e) = std::fs::create_dir_all(&transcripts) {
        println!("  no transcripts dir: {e}");
        return;
    }

    let started = Instant::now();
    let corpus = generate(&transcripts, &scale);
    let generated = started.elapsed();
    println!(
        "  generated {} files, {} entries, {} words, {:.1} MiB in {:.1} s \
         (vocabulary {} words; \"{}\" in {} entries; the long session has {} entries)",
        thousands(corpus.sessions.len() as u64),
        thousands(corpus.entries),
        thousands(corpus.words),
        mib(corpus.bytes),
        generated.as_secs_f64(),
        thousands(corpus.vocabulary as u64),
        corpus.common,
        thousands(corpus.common_entries),
        thousands(scale.big_entries),
    );

    // grep over the transcripts (just written, so in the page cache): the baseline of
    // every search, on both backends.
    let greps: Vec<(String, u64, Duration, u64)> = scale
        .markers
        .iter()
        .map(|(word, n)| (*word, *n as u64))
        .chain([(corpus.common, corpus.common_entries)])
        .map(|(word, want)| {
            let (time, lines) = grep(&transcripts, word);
            (word.to_string(), want, time, lines)
        })
        .collect();

    let shared = Shared {
        project,
        transcripts: &transcripts,
        corpus: &corpus,
        scale: &scale,
        greps: &greps,
        runs,
        data: data.path(),
    };
    let mut plains = Plains::default();
    let mut measured: [Option<BackendFigures>; 2] = [None, None];
    for backend in backends.available() {
        match measure::measure_backend(backends, backend, &shared, &mut plains) {
            Ok(figures) => measured[backend.index()] = Some(figures),
            Err(why) => println!(
                "  {}: {why}\n  (nothing more to measure on it)",
                backend.name()
            ),
        }
    }
    report(&measured, &corpus, generated, runs);
}

/// Prints both backends' figures side by side, then the markdown table.
fn report(
    measured: &[Option<BackendFigures>; 2],
    corpus: &Corpus,
    generated: Duration,
    runs: usize,
) {
    let each = |f: &dyn Fn(&BackendFigures) -> Option<String>| {
        measured.each_ref().map(|m| m.as_ref().and_then(f))
    };
    println!();
    backends::header("import and mount");
    backends::text_row(
        "homespace import, median run",
        each(&|m| Some(format!("{:.1} s", m.import.wall.as_secs_f64()))),
        None,
    );
    backends::text_row(
        "  entries/s",
        each(&|m| Some(thousands(m.rate as u64))),
        None,
    );
    backends::text_row(
        "  CPU of homespace import (user + sys)",
        each(&|m| Some(format!("{:.1} s", m.import.user + m.import.sys))),
        None,
    );
    backends::text_row(
        "  CPU of the database server meanwhile",
        each(&|m| m.import.server.map(|s| format!("{s:.1} s"))),
        None,
    );
    backends::text_row(
        "  runs (each into a new store)",
        each(&|m| {
            Some(
                m.import_runs
                    .iter()
                    .map(|d| format!("{:.0}", d.as_secs_f64()))
                    .collect::<Vec<_>>()
                    .join(", ")
                    + " s",
            )
        }),
        None,
    );
    backends::text_row(
        "store size (plain disk: the JSONL files)",
        each(&|m| Some(format!("{:.0} MiB", mib(m.size.0)))),
        Some(format!("{:.0} MiB", mib(corpus.bytes))),
    );
    for backend in BOTH {
        if let Some(m) = &measured[backend.index()] {
            println!("    {}: {}", backend.name(), m.size.1);
        }
    }
    backends::row(
        "mount -> first ls",
        measured.each_ref().map(|m| m.as_ref().map(|m| m.first_ls)),
        None,
    );
    for backend in BOTH {
        if let Some(line) = measured[backend.index()]
            .as_ref()
            .and_then(|m| m.memory_line.as_ref())
        {
            println!("    {}: {line}", backend.name());
        }
    }
    for backend in BOTH {
        if let Some((files, bytes, took)) = measured[backend.index()]
            .as_ref()
            .and_then(|m| m.session_read)
        {
            println!(
                "    {}: read the long session's {} files through the mount ({:.1} MiB) in {:.1} s",
                backend.name(),
                thousands(files as u64),
                mib(bytes),
                took.as_secs_f64()
            );
        }
    }

    println!();
    backends::header("operation");
    let labels = labels(measured);
    for label in &labels {
        let figure = |m| find(m, label);
        let pick = |f: &dyn Fn(&Figure) -> Option<Duration>| {
            measured
                .each_ref()
                .map(|m| m.as_ref().and_then(figure).and_then(f))
        };
        let plains = pick(&|f| f.plain.map(|p| p.0));
        let plain = plains[0].or(plains[1]);
        backends::row(&format!("{label} p50"), pick(&|f| Some(f.mount.0)), plain);
        let plain95 = measured
            .iter()
            .flatten()
            .filter_map(|m| figure(m)?.plain?.1)
            .next();
        backends::row("  p95", pick(&|f| Some(f.mount.1)), plain95);
        if pick(&|f| f.first).iter().any(Option::is_some) {
            backends::row("  first (after the mount)", pick(&|f| f.first), None);
        }
        if pick(&|f| f.alone.map(|a| a.0)).iter().any(Option::is_some) {
            backends::row(
                "  store only, in-process: p50",
                pick(&|f| f.alone.map(|a| a.0)),
                None,
            );
            backends::row(
                "  store only, in-process: p95",
                pick(&|f| f.alone.map(|a| a.1)),
                None,
            );
        }
        if plains[0].is_some() && plains[1].is_some() && plains[0] != plains[1] {
            println!(
                "    plain disk for PostgreSQL's own copy: {}",
                plains[1].map_or(String::new(), backends::fmt)
            );
        }
        let got: Vec<String> = BOTH
            .iter()
            .filter_map(|b| {
                let f = measured[b.index()].as_ref().and_then(figure)?;
                Some(format!("{} {}", b.name(), f.got.as_ref()?))
            })
            .collect();
        if !got.is_empty() {
            println!("    got: {}", got.join("; "));
        }
        for backend in BOTH {
            let Some(f) = measured[backend.index()].as_ref().and_then(figure) else {
                continue;
            };
            for note in &f.notes {
                // The planted count and grep's are the same for both: said once.
                if note.starts_with("planted in") && backend != BOTH[0] {
                    continue;
                }
                let who = if note.starts_with("planted in") {
                    String::new()
                } else {
                    format!("{}: ", backend.name())
                };
                println!("    {who}{note}");
            }
        }
    }
    let kib = |k: u64| format!("{:.1} MiB", k as f64 / 1024.0);
    backends::text_row(
        "daemon RSS after the runs",
        each(&|m| m.rss.map(|(now, _)| kib(now))),
        None,
    );
    backends::text_row(
        "daemon peak RSS (VmHWM)",
        each(&|m| m.rss.map(|(_, peak)| kib(peak))),
        None,
    );

    markdown(measured, &labels, corpus, generated, runs);
}

/// The figure of measure `label` on one backend.
fn find<'a>(m: &'a BackendFigures, label: &str) -> Option<&'a Figure> {
    m.figures.iter().find(|f| f.label == label)
}

/// Every measure's label, in the order first measured.
fn labels(measured: &[Option<BackendFigures>; 2]) -> Vec<String> {
    let mut labels: Vec<String> = Vec::new();
    for m in measured.iter().flatten() {
        for f in &m.figures {
            if !labels.contains(&f.label) {
                labels.push(f.label.clone());
            }
        }
    }
    labels
}

/// The markdown table: each measure's p50 and p95 on both mounts, the store alone, the
/// plain disk, and each ratio.
fn markdown(
    measured: &[Option<BackendFigures>; 2],
    labels: &[String],
    corpus: &Corpus,
    generated: Duration,
    runs: usize,
) {
    let cell = |b: usize, f: &dyn Fn(&BackendFigures) -> String| {
        measured[b].as_ref().map_or("—".to_string(), f)
    };
    println!(
        "\n### memory/ with {} entries in {} sessions, SQLite and PostgreSQL (p50/p95 over \
         {SEARCH_RUNS} runs; cat entry over {runs})",
        thousands(corpus.entries),
        thousands(corpus.sessions.len() as u64)
    );
    println!(
        "| measure | SQLite p50 | SQLite p95 | PostgreSQL p50 | PostgreSQL p95 | \
         PostgreSQL ÷ SQLite | store only p50 (SQLite / PostgreSQL) | plain disk p50 | \
         SQLite ÷ plain | PostgreSQL ÷ plain | goal |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |");
    println!(
        "| generate the JSONL files ({:.0} MiB) | {:.1} s | | | | | | | | | |",
        mib(corpus.bytes),
        generated.as_secs_f64()
    );
    let import = |m: &BackendFigures| {
        format!(
            "{} entries/s ({:.1} s, median of {}; CPU {:.1} s{})",
            thousands(m.rate as u64),
            m.import.wall.as_secs_f64(),
            m.import_runs.len(),
            m.import.user + m.import.sys,
            m.import
                .server
                .map_or(String::new(), |s| format!(" + server {s:.1} s"))
        )
    };
    // As a slowdown, as every other ratio of the column: SQLite's rate over PostgreSQL's.
    let import_ratio = match (&measured[0], &measured[1]) {
        (Some(sqlite), Some(postgres)) => format!("{:.1}x", sqlite.rate / postgres.rate.max(1e-9)),
        _ => String::new(),
    };
    println!(
        "| `homespace import` | {} | | {} | | {import_ratio} | | | | | ≥ 20,000/s |",
        cell(0, &import),
        cell(1, &import)
    );
    let size = |m: &BackendFigures| format!("{:.0} MiB", mib(m.size.0));
    let size_ratio =
        |m: &BackendFigures| format!("{:.1}x", m.size.0 as f64 / corpus.bytes.max(1) as f64);
    println!(
        "| store size (SQLite: file + WAL; PostgreSQL: pg_database_size) | {} | | {} | | | | \
         {:.0} MiB (JSONL) | {} | {} | |",
        cell(0, &size),
        cell(1, &size),
        mib(corpus.bytes),
        cell(0, &size_ratio),
        cell(1, &size_ratio)
    );
    for label in labels {
        let figure = |b: usize| {
            measured[b]
                .as_ref()
                .and_then(|m| m.figures.iter().find(|f| &f.label == label))
        };
        let stat = |b: usize, f: &dyn Fn(&Figure) -> Option<Duration>| {
            figure(b).and_then(f).map_or("—".to_string(), fmt_ms)
        };
        let got: Vec<String> = (0..2).filter_map(|b| figure(b)?.got.clone()).collect();
        let got = match got.as_slice() {
            [] => String::new(),
            [a, b] if a != b => format!(" (got {a} / {b})"),
            [a, ..] => format!(" (got {a})"),
        };
        let plain = |b: usize| figure(b).and_then(|f| f.plain).map(|p| p.0);
        let ratio_of = |b: usize| match (figure(b), plain(b)) {
            (Some(f), Some(p)) => ratio(f.mount.0, p),
            _ => String::new(),
        };
        let backends = match (figure(0), figure(1)) {
            (Some(sqlite), Some(postgres)) => ratio(postgres.mount.0, sqlite.mount.0),
            _ => String::new(),
        };
        let plains = match (plain(0), plain(1)) {
            (Some(a), Some(b)) if a != b => format!("{} / {}", fmt_ms(a), fmt_ms(b)),
            (a, b) => a.or(b).map_or(String::new(), fmt_ms),
        };
        let grep = if label.starts_with("search/") {
            " (grep -rwc)"
        } else {
            ""
        };
        let goal = if label == &format!("search/memory:{}", corpus.common) {
            "< 100 ms"
        } else if label.starts_with("search/") {
            "p50 ≤ 10 ms"
        } else {
            ""
        };
        let alone = if (0..2).any(|b| figure(b).is_some_and(|f| f.alone.is_some())) {
            format!(
                "{} / {}",
                stat(0, &|f| f.alone.map(|a| a.0)),
                stat(1, &|f| f.alone.map(|a| a.0))
            )
        } else {
            String::new()
        };
        println!(
            "| `{label}`{got} | {} | {} | {} | {} | {backends} | {alone} | {plains}{grep} | {} | \
             {} | {goal} |",
            stat(0, &|f| Some(f.mount.0)),
            stat(0, &|f| Some(f.mount.1)),
            stat(1, &|f| Some(f.mount.0)),
            stat(1, &|f| Some(f.mount.1)),
            ratio_of(0),
            ratio_of(1),
        );
    }
    let rss = |m: &BackendFigures| {
        m.rss.map_or("?".to_string(), |(now, peak)| {
            format!(
                "{:.1} MiB ({:.1})",
                now as f64 / 1024.0,
                peak as f64 / 1024.0
            )
        })
    };
    println!(
        "| daemon RSS after the runs (peak) | {} | | {} | | | | | | | bounded |",
        cell(0, &rss),
        cell(1, &rss)
    );
    println!();
}

/// One timed `homespace import`.
struct ImportRun {
    wall: Duration,
    /// CPU user and system seconds of `homespace import`.
    user: f64,
    sys: f64,
    /// CPU seconds of the database server meanwhile (PostgreSQL), when known.
    server: Option<f64>,
    /// Its summary line.
    said: String,
}

/// One `homespace import --store STORE DIR` into a new store (a file or a URL); or why
/// it failed.
fn import_once(store: &str, transcripts: &Path) -> Result<ImportRun, String> {
    let cpu_before = children_cpu();
    let started = Instant::now();
    let out = Command::new(homespace_bin())
        .args(["import", "--store", store])
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
        server: None,
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

/// `runs` timings of `op`, after one run that is not counted; fewer (at least
/// [`MIN_SAMPLES`]) when they have taken [`SAMPLE_BUDGET`], so that a view of seconds does
/// not hold the run for an hour. Callers say how many there were when fewer.
fn sample(runs: usize, mut op: impl FnMut()) -> Vec<Duration> {
    op();
    let started = Instant::now();
    let mut samples = Vec::with_capacity(runs);
    while samples.len() < runs.max(1)
        && (samples.len() < MIN_SAMPLES || started.elapsed() < SAMPLE_BUDGET)
    {
        let t = Instant::now();
        op();
        samples.push(t.elapsed());
    }
    samples
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
    let hits = heading_count(text).unwrap_or("no heading").to_string();
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

// ---------------------------------------------------------------------------------------
// The generator.

mod corpus;
mod measure;
use corpus::*;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_full_scale_is_the_corpus_described_and_smaller_ones_keep_its_shape() {
        let full = Scale::new(ENTRIES);
        assert_eq!(
            (
                full.regular_entries,
                full.regular_sessions,
                full.big_entries
            ),
            (980_000, 2_000, 20_000)
        );
        assert_eq!((full.big_at, full.task_pool), (1_000, 4_000));
        let counts: Vec<usize> = full.markers.iter().map(|(_, n)| *n).collect();
        assert_eq!(counts, [10, 1_000, 10_000, 50_000]);

        let small = Scale::new(100_000);
        assert_eq!(small.regular_entries + small.big_entries, 100_000);
        assert_eq!(small.big_entries, 20_000);
        assert_eq!(small.regular_sessions, 164, "the same mean session length");
        let counts: Vec<usize> = small.markers.iter().map(|(_, n)| *n).collect();
        assert_eq!(counts, [10, 100, 1_000, 5_000]);

        let least = Scale::new(MIN_ENTRIES);
        assert_eq!(least.big_entries, 2_000, "a fifth at most");
        assert!(least.markers.iter().all(|(_, n)| *n >= 10));
    }
}
