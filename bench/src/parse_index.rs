//! The parse index section (`--only parse-index`): a project mounted read-only twice over
//! one store — cold, with no parse index, then again, warm from it — with, for each, how
//! long the background indexing took and how many modules it parsed or loaded (the daemon
//! log's "indexed N modules: M parsed, K from the parse index" line); and whether a `cat`
//! of a module waits for it: first reads of the same modules during the cold indexing and
//! after the warm one, as whole processes; and the daemon's resident memory once indexed.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use homespace_testkit::poll::poll_until;
use homespace_testkit::timing::ms;

use super::{daemon_rss, median, mount_args};

/// How many modules the `cat`s read.
const CATS: usize = 60;

/// How long indexing may take before the section gives up on it.
const PATIENCE: Duration = Duration::from_secs(1800);

pub fn bench_parse_index(project: &Path) {
    println!("## parse index ({})", project.display());
    let Ok(dir) = tempfile::tempdir() else {
        println!("  no temp dir");
        return;
    };
    let store = dir.path().join("store.db");
    let log = dir.path().join("homespace.log");
    let modules = some_modules(project);
    // The same bytes in the page cache for both mounts: the cats time the mount, not the disk.
    for module in &modules {
        let _ = std::fs::read(project.join(module));
    }
    let mut during = None;
    for (round, name) in [
        (1, "cold (no parse index)"),
        (2, "remount (from the index)"),
    ] {
        let started = Instant::now();
        let (mounted, _) = mount_args(project, Some(store.as_os_str()), &["--read-only"]);
        if round == 1 {
            during = cats(&mounted.at, &modules);
        }
        let Some(line) = indexed_line(&log, round, started) else {
            println!(
                "  {name}: no indexing line in {} within {PATIENCE:?}",
                log.display()
            );
            return;
        };
        println!(
            "  {name:<26} {:>7.2} s from mount to indexed, daemon RSS {} MiB: {line}",
            started.elapsed().as_secs_f64(),
            daemon_rss(&mounted.at).map_or("?".into(), |kib| (kib / 1024).to_string()),
        );
        if round == 2
            && let (Some(during), Some(after)) = (&during, cats(&mounted.at, &modules))
        {
            print_cats(during, &after);
        }
        drop(mounted);
    }
    let kept: u64 = ["store.parses.db", "store.parses.db-wal"]
        .iter()
        .map(|name| std::fs::metadata(dir.path().join(name)).map_or(0, |m| m.len()))
        .sum();
    println!("  parse index on disk: {} MiB", kept / (1024 * 1024));
}

/// Up to [`CATS`] modules of the project, as paths from its root, spread over it.
fn some_modules(project: &Path) -> Vec<std::path::PathBuf> {
    let Ok(out) = Command::new("find")
        .arg(project)
        .args(["-name", "*.py", "-size", "+1k", "-not", "-path", "*/test*"])
        .output()
    else {
        return Vec::new();
    };
    let all: Vec<std::path::PathBuf> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            Path::new(l)
                .strip_prefix(project)
                .ok()
                .map(Path::to_path_buf)
        })
        .filter(|p| p.to_str().is_some_and(|s| !s.contains(['-', ' '])))
        .collect();
    let step = (all.len() / CATS).max(1);
    all.into_iter().step_by(step).take(CATS).collect()
}

/// One `cat` per module of `source/` on the mount at `at`, timed each as a whole process;
/// `None` when a module is not where its path says (a layout this section does not know).
fn cats(at: &Path, modules: &[std::path::PathBuf]) -> Option<Vec<Duration>> {
    let mut times = Vec::new();
    for module in modules {
        let path = at.join("source").join(module);
        let started = Instant::now();
        let out = Command::new("cat").arg(&path).output().ok()?;
        if !out.status.success() {
            return None;
        }
        times.push(started.elapsed());
    }
    Some(times)
}

fn print_cats(during: &[Duration], after: &[Duration]) {
    let (during, after) = (median(during.to_vec()), median(after.to_vec()));
    println!(
        "  first cat of a module, median over {CATS}: {:.2} ms while indexing, {:.2} ms after ({:.2}x)",
        ms(during),
        ms(after),
        ms(during) / ms(after).max(0.001)
    );
}

/// The `round`-th indexing line of the daemon log at `log`, waited for.
fn indexed_line(log: &Path, round: usize, started: Instant) -> Option<String> {
    let left = PATIENCE.saturating_sub(started.elapsed());
    poll_until(left, Duration::from_millis(50), || {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        let line = text
            .lines()
            .filter(|l| l.contains(" indexed ") && l.contains("from the parse index"))
            .nth(round - 1)?;
        let at = line.find("indexed").unwrap_or(0);
        Some(line[at..].to_string())
    })
}
