//! One store of the sessions section, measured: `homespace import` of the transcripts into
//! new stores of one backend (timed, sized), the store alone in this process, then the
//! mount (searches, the long session, its views, `memory/recall`, the daemon's memory).
//! Plain-disk copies of what the mount served are shared between the backends when the
//! bytes are the same, and timed apart when they differ (see [`Plains`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::super::backends::{Backend, Backends, BenchStore, first_difference};
use super::super::{daemon_status, ls, mount_in, read_all};
use super::*;

/// p50 and p95.
pub(super) type Stats = (Duration, Duration);

/// One measure on one backend's mount.
pub(super) struct Figure {
    pub(super) label: String,
    pub(super) mount: Stats,
    /// The same work on the plain disk.
    pub(super) plain: Option<PlainStats>,
    /// The first run after the mount (searches).
    pub(super) first: Option<Duration>,
    /// The store alone, in this process.
    pub(super) alone: Option<Stats>,
    /// What it found (`N hits`, sessions listed).
    pub(super) got: Option<String>,
    pub(super) notes: Vec<String>,
}

/// A note when `sample` stopped early: `samples` of `asked` runs.
fn fewer(samples: &[Duration], asked: usize) -> Option<String> {
    (samples.len() < asked).then(|| {
        format!(
            "timed over {} runs, not {asked}: sampling stops after {} s",
            samples.len(),
            SAMPLE_BUDGET.as_secs()
        )
    })
}

/// One backend's import and mount figures.
pub(super) struct BackendFigures {
    /// Each import run's wall time, in the order run.
    pub(super) import_runs: Vec<Duration>,
    pub(super) import: ImportRun,
    pub(super) rate: f64,
    /// Bytes, and how they were measured.
    pub(super) size: (u64, String),
    pub(super) first_ls: Duration,
    /// The memory area's line of the root `_entry.md`.
    pub(super) memory_line: Option<String>,
    /// Reading every file of the long session through the mount: files, bytes, time.
    pub(super) session_read: Option<(usize, u64, Duration)>,
    pub(super) figures: Vec<Figure>,
    /// Resident memory now and at its peak, KiB.
    pub(super) rss: Option<(u64, u64)>,
}

/// Plain copies of what the mounts served, by measure: the bytes and their timing. The
/// first backend's copy is timed; another backend serving the same bytes shares it, one
/// serving other bytes gets its own copy timed (a baseline is always the same file).
#[derive(Default)]
pub(super) struct Plains(HashMap<String, (Vec<u8>, PlainStats)>);

/// A plain-disk p50, and its p95 when timed as often as the mount.
pub(super) type PlainStats = (Duration, Option<Duration>);

impl Plains {
    /// The plain timing for `label`, whose mount served `content`; `time` times a plain
    /// copy, written by `copy`, when none of these bytes was timed yet.
    fn get(
        &mut self,
        label: &str,
        content: &[u8],
        notes: &mut Vec<String>,
        copy: impl FnOnce() -> Result<Box<dyn FnMut()>, String>,
        runs: usize,
    ) -> Option<PlainStats> {
        if let Some((bytes, stats)) = self.0.get(label) {
            if bytes == content {
                return Some(*stats);
            }
            notes.push(format!(
                "differs from the first store's ({} vs {} bytes{}); its own plain copy is timed",
                content.len(),
                bytes.len(),
                first_difference(bytes, content)
            ));
        }
        let mut op = match copy() {
            Ok(op) => op,
            Err(why) => {
                notes.push(format!("no plain copy: {why}"));
                return None;
            }
        };
        let samples = sample(runs, &mut *op);
        let stats = (percentile(&samples, 50), Some(percentile(&samples, 95)));
        self.0
            .entry(label.to_string())
            .or_insert_with(|| (content.to_vec(), stats));
        Some(stats)
    }
}

/// What every backend measures against.
pub(super) struct Shared<'a> {
    pub(super) project: &'a Path,
    pub(super) transcripts: &'a Path,
    pub(super) corpus: &'a Corpus,
    pub(super) scale: &'a Scale,
    /// Each searched word, what was planted, and grep's median and line count.
    pub(super) greps: &'a [(String, u64, Duration, u64)],
    pub(super) runs: usize,
    pub(super) data: &'a Path,
}

/// Imports into `backend`'s stores, then measures the kept one alone and on the mount.
pub(super) fn measure_backend(
    backends: &Backends,
    backend: Backend,
    shared: &Shared,
    plains: &mut Plains,
) -> Result<BackendFigures, String> {
    let name = backend.name();
    // Each run into a new store, the median reported: one run of a minute on a shared
    // machine varies by a sixth either way. Runs stop early once they have taken
    // IMPORT_BUDGET: a run of many minutes varies less, and three would take too long.
    let mut imports: Vec<ImportRun> = Vec::new();
    let mut kept: Option<BenchStore> = None;
    let started = Instant::now();
    while imports.len() < IMPORT_RUNS && (imports.is_empty() || started.elapsed() < IMPORT_BUDGET) {
        // The store of the run before goes first: one store of a backend at a time.
        drop(kept.take());
        let store = backends.new_store(backend, shared.data)?;
        let server_before = backends
            .server_cpu()
            .filter(|_| backend == Backend::Postgres);
        let mut run = import_once(&store.location, shared.transcripts)?;
        if let Some(before) = server_before {
            // The import's connection ends as it exits; its backend is reaped a moment later.
            std::thread::sleep(Duration::from_millis(300));
            run.server = backends.server_cpu().map(|after| after - before);
        }
        println!(
            "  {name}: import run {}: {:.1} s — {}",
            imports.len() + 1,
            run.wall.as_secs_f64(),
            run.said
        );
        imports.push(run);
        kept = Some(store);
    }
    let store = kept.ok_or("no import ran")?;
    let import_runs: Vec<Duration> = imports.iter().map(|run| run.wall).collect();
    imports.sort_by_key(|run| run.wall);
    let import = imports.swap_remove(imports.len() / 2);
    let rate = shared.corpus.entries as f64 / import.wall.as_secs_f64();
    let size = store
        .size()
        .unwrap_or_else(|why| (0, format!("unknown: {why}")));

    let words: Vec<String> = shared.greps.iter().map(|(w, ..)| w.clone()).collect();
    let big = &shared.corpus.sessions[shared.scale.big_at];
    let alone = in_process(&store, &words, &big.id);

    // Uncached: each search is timed doing its work, as grep does; a repeated identical
    // search served by the kernel's cache is the source section's subject.
    let (mounted, first_ls) = mount_in(
        shared.project,
        Some(store.location.as_ref()),
        &["--no-cache"],
        Some(shared.data),
    );
    let at = &mounted.at;
    let memory_line = std::fs::read_to_string(at.join("_entry.md"))
        .ok()
        .and_then(|entry| {
            let line = entry.lines().find(|l| l.contains("/memory/`"))?;
            Some(line.trim_start_matches("- ").to_string())
        });
    let mut figures = Vec::new();
    for (word, want, grep_time, grep_lines) in shared.greps {
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
        let mut notes = vec![format!(
            "planted in {}; grep -rwc: {} lines",
            thousands(*want),
            thousands(*grep_lines)
        )];
        notes.extend(note.map(|n| format!("note: {n}")));
        notes.extend(fewer(&samples, SEARCH_RUNS));
        if let Ok(text) = &first
            && (text.contains("No match.") || !text.contains("## memory — "))
        {
            notes.push("the search found nothing or failed; its result began:".to_string());
            notes.extend(text.lines().take(8).map(|l| format!("  {l}")));
        }
        figures.push(Figure {
            label: format!("search/memory:{word}"),
            mount: (percentile(&samples, 50), percentile(&samples, 95)),
            plain: Some((*grep_time, None)),
            first: Some(first_time),
            alone: alone.get(&format!("search:{word}")).copied(),
            got: Some(hits),
            notes,
        });
    }

    let session = at.join("memory/sessions").join(&big.day).join(&big.id);
    let session_read = measure_session(&session, backend, shared, plains, &alone, &mut figures);

    let recall = at.join("memory/recall");
    match std::fs::read(&recall) {
        Ok(bytes) => {
            let mut notes = Vec::new();
            let copy = shared.data.join(format!("recall-{}", backend.name()));
            let plain = plains.get(
                "cat memory/recall",
                &bytes,
                &mut notes,
                || copy_file(&copy, &bytes),
                SEARCH_RUNS,
            );
            let samples = sample(SEARCH_RUNS, || {
                let _ = std::fs::read(&recall);
            });
            notes.extend(fewer(&samples, SEARCH_RUNS));
            figures.push(Figure {
                label: "cat memory/recall".to_string(),
                mount: (percentile(&samples, 50), percentile(&samples, 95)),
                plain,
                first: None,
                alone: alone.get("recall").copied(),
                got: Some(format!(
                    "{} sessions",
                    listed(&String::from_utf8_lossy(&bytes))
                )),
                notes,
            });
        }
        Err(e) => println!("  {name}: cat memory/recall: {e}"),
    }

    let kib = |field| daemon_status(at, field);
    let rss = kib("VmRSS:").zip(kib("VmHWM:"));
    drop(mounted);
    drop(store);
    Ok(BackendFigures {
        import_runs,
        import,
        rate,
        size,
        first_ls,
        memory_line,
        session_read,
        figures,
        rss,
    })
}

/// The long session on the mount: `ls` of it, `cat` of one entry, of `_entry.md` and of
/// `related.md`, each beside a plain copy. Returns what reading every file took.
fn measure_session(
    session: &Path,
    backend: Backend,
    shared: &Shared,
    plains: &mut Plains,
    alone: &HashMap<String, Stats>,
    figures: &mut Vec<Figure>,
) -> Option<(usize, u64, Duration)> {
    let mut names: Vec<String> = match std::fs::read_dir(session) {
        Ok(dir) => dir
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect(),
        Err(e) => {
            println!(
                "  {}: ls {}: {e}; the session measures are skipped",
                backend.name(),
                session.display()
            );
            return None;
        }
    };
    names.sort();
    let entries: Vec<&String> = names.iter().filter(|n| n.ends_with(".json")).collect();
    if entries.is_empty() {
        return None;
    }
    // Every file, read through the mount (timed); summary.md may not exist until written.
    let t = Instant::now();
    let files: Vec<(String, Vec<u8>)> = names
        .iter()
        .filter_map(|name| Some((name.clone(), std::fs::read(session.join(name)).ok()?)))
        .collect();
    let read = t.elapsed();
    let bytes = files.iter().map(|(_, b)| b.len() as u64).sum();

    // The plain directory: this backend's files, written once per different listing.
    let plain = shared
        .data
        .join(format!("plain-session-{}", backend.name()));
    let write_plain = || -> Result<(), String> {
        std::fs::create_dir_all(&plain).map_err(|e| e.to_string())?;
        for (name, bytes) in &files {
            std::fs::write(plain.join(name), bytes).map_err(|e| e.to_string())?;
        }
        Ok(())
    };
    let mut written = false;
    let mut ensure_plain = || -> Result<(), String> {
        if !written {
            write_plain()?;
            written = true;
        }
        Ok(())
    };

    let label = format!(
        "ls session dir ({} entries)",
        thousands(entries.len() as u64)
    );
    let mut notes = Vec::new();
    let listing = names.join("\n");
    let plain_ls = plains.get(
        &label,
        listing.as_bytes(),
        &mut notes,
        || {
            ensure_plain()?;
            let dir = plain.clone();
            Ok(Box::new(move || ls(&dir)))
        },
        SEARCH_RUNS,
    );
    let samples = sample(SEARCH_RUNS, || ls(session));
    notes.extend(fewer(&samples, SEARCH_RUNS));
    figures.push(Figure {
        label,
        mount: (percentile(&samples, 50), percentile(&samples, 95)),
        plain: plain_ls,
        first: None,
        alone: None,
        got: None,
        notes,
    });

    let one = entries[entries.len() / 2].clone();
    let mut views = vec![(format!("cat one entry ({one})"), one, shared.runs)];
    for view in ["_entry.md", "related.md"] {
        views.push((format!("cat session {view}"), view.to_string(), SEARCH_RUNS));
    }
    for (label, name, runs) in views {
        let Some((_, content)) = files.iter().find(|(n, _)| *n == name) else {
            println!(
                "  {}: cat {name} of the session: could not be read",
                backend.name()
            );
            continue;
        };
        let mut notes = Vec::new();
        let copy = plain.join(&name);
        let plain_figure = plains.get(
            &label,
            content,
            &mut notes,
            || {
                ensure_plain()?;
                Ok(Box::new(move || read_all(&copy)))
            },
            runs,
        );
        let file = session.join(&name);
        let samples = sample(runs, || {
            let _ = std::fs::read(&file);
        });
        notes.extend(fewer(&samples, runs));
        let related = name == "related.md";
        figures.push(Figure {
            label,
            mount: (percentile(&samples, 50), percentile(&samples, 95)),
            plain: plain_figure,
            first: None,
            alone: related.then(|| alone.get("related").copied()).flatten(),
            got: related.then(|| format!("{} sessions", listed(&String::from_utf8_lossy(content)))),
            notes,
        });
    }
    Some((files.len(), bytes, read))
}

/// Writes `bytes` to `copy`; the op reads it back whole.
fn copy_file(copy: &Path, bytes: &[u8]) -> Result<Box<dyn FnMut()>, String> {
    std::fs::write(copy, bytes).map_err(|e| format!("{}: {e}", copy.display()))?;
    let copy: PathBuf = copy.to_path_buf();
    Ok(Box::new(move || read_all(&copy)))
}

/// The store alone, in this process (no FUSE, no rendering): p50 and p95 of each search as
/// `search/memory:` asks it (`search:<word>`), of `related` for the session `big`
/// (`related`) and for the latest session (`recall`). A failure is printed and left out.
fn in_process(store: &BenchStore, words: &[String], big: &str) -> HashMap<String, Stats> {
    use homespace::store::memory;

    let mut out = HashMap::new();
    let name = store.backend.name();
    let store = match store.open() {
        Ok(store) => store,
        Err(why) => {
            println!(
                "  {name}: store only: cannot open {}: {why}",
                store.location
            );
            return out;
        }
    };
    let mut measure = |key: String, op: &mut dyn FnMut() -> Result<(), String>| {
        if let Err(e) = op() {
            println!("  {name}: store only: {key} failed: {e}");
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
            Ok(None) => println!("  {name}: store only: {key}: no such session in the store"),
            Err(e) => println!("  {name}: store only: {key}: {}", e.message),
        }
    }
    out
}
