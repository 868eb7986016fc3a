//! The large-project section (`--only large`): what a user of a big project meets first,
//! cold and warm, each beside the same work on the plain tree in the same run. Cold means
//! after a remount and with the page cache dropped (`/proc/sys/vm/drop_caches`, as root) on
//! both sides; warm is the median of repeats; "remount" is the first run after a remount
//! with the page cache kept, which shows what outlives a mount. The operations: `grep -rn`
//! over one package and over all of `source/` (beside `grep -rn` over the same folders of
//! the project), `ls -lR source/` (beside `ls -lR` of the project's code), a search of the
//! code (beside `rg -n` over the files the search reads) and mount → first view.
//!
//! Each side prints the files it read (`grep -rl` counted), so a ratio over different work
//! shows as such.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use homespace_testkit::timing::{can_drop_caches, drop_caches, ms};

use super::{Mounted, median, mount_args, search_pace};

/// Repeats of each warm figure.
const WARM_RUNS: usize = 5;

/// One operation measured on both sides: the mount's command and the plain tree's.
struct Op {
    name: String,
    mount: Vec<String>,
    plain: Vec<String>,
}

/// The large-project section for `project` (the stdlib by default), searching `word`.
pub fn bench_large(project: &Path, package: &str, word: &str) {
    println!("## large project, cold and warm ({})", project.display());
    if !can_drop_caches() {
        println!("  (cannot drop the page cache: not root? cold figures are remount-only)\n");
    }
    let scratch = tempfile::tempdir().expect("temp dir");
    let store = scratch.path().join("store.db");
    let mount = |args: &[&str]| mount_args(project, Some(store.as_os_str()), args);
    let (first, first_view) = mounted_first_view(&mount);
    let at = first.at.clone();
    let source = at.join("source");
    // What a search reads: the .py files, then the other text files.
    let files = search_pace::searched_files(project);
    // The plain side reads what source/ shows: the project's top-level entries that
    // source/ lists (its test folder under its own name), nothing it hides.
    let shown = shown_at_top(project, &source);
    let ops = [
        Op {
            name: format!("grep -rn {word} <package {package}>"),
            mount: grep(word, &[source.join(package)]),
            plain: grep(word, &[project.join(package)]),
        },
        Op {
            name: format!("grep -rn {word} source/ (all)"),
            mount: grep(word, std::slice::from_ref(&source)),
            plain: grep(word, &shown),
        },
        Op {
            name: "ls -lR source/".into(),
            mount: vec!["ls".into(), "-lR".into(), path(&source)],
            plain: vec!["ls".into(), "-lR".into(), "--ignore=__pycache__".into()]
                .into_iter()
                .chain(shown.iter().map(|p| path(p)))
                .collect(),
        },
        Op {
            name: format!("search/source:{word} vs rg -n"),
            mount: vec![
                "cat".into(),
                path(&at.join("search").join(format!("source:{word}"))),
            ],
            plain: rg(word, &files),
        },
    ];
    for op in &ops[..2] {
        let (on_mount, on_disk) = (files_read(&op.mount), files_read(&op.plain));
        println!(
            "  {}: {on_mount} files with a hit on the mount, {on_disk} on the plain tree",
            op.name
        );
    }
    drop(first);
    println!(
        "  {:<40} {:>10} {:>10} {:>7} | {:>10} {:>10} {:>7} | {:>10} {:>7}",
        "operation", "cold", "plain", "ratio", "warm", "plain", "ratio", "remount", "ratio"
    );
    for op in &ops {
        // Cold: a new mount and no page cache on either side.
        let (cold_mount, _) = fresh(&mount, true);
        let cold = run(&rebased(&op.mount, &at, &cold_mount.at));
        drop_caches();
        let cold_plain = run(&op.plain);
        // Warm: repeats on this mount.
        let mount_cmd = rebased(&op.mount, &at, &cold_mount.at);
        let warm = median((0..WARM_RUNS).map(|_| run(&mount_cmd)).collect());
        let warm_plain = median((0..WARM_RUNS).map(|_| run(&op.plain)).collect());
        drop(cold_mount);
        // Remount: what outlives the mount, the page cache kept.
        let (again, _) = fresh(&mount, false);
        let remount = run(&rebased(&op.mount, &at, &again.at));
        drop(again);
        println!(
            "  {:<40} {:>8.1}ms {:>8.1}ms {:>6.1}x | {:>8.1}ms {:>8.1}ms {:>6.1}x | {:>8.1}ms {:>6.1}x",
            op.name,
            ms(cold),
            ms(cold_plain),
            ratio(cold, cold_plain),
            ms(warm),
            ms(warm_plain),
            ratio(warm, warm_plain),
            ms(remount),
            ratio(remount, warm_plain),
        );
    }
    let (_, cold_view) = {
        drop_caches();
        mounted_first_view(&mount)
    };
    println!(
        "  {:<40} {:>8.1}ms (cold) {:>8.1}ms (first mount, page cache warm)\n",
        "mount -> first cat _entry.md",
        ms(cold_view),
        ms(first_view)
    );
}

/// The project's top-level files and folders that `source/` shows; its test folder too,
/// which source/ shows as `tests/`. Hidden ones (virtualenvs, site-packages, build output)
/// are left out, as the mount leaves them out.
fn shown_at_top(project: &Path, source: &Path) -> Vec<PathBuf> {
    let mut shown: Vec<PathBuf> = std::fs::read_dir(project)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|name| {
                    std::fs::symlink_metadata(source.join(name)).is_ok()
                        || (["test", "tests", "testing"].contains(&name.as_str())
                            && source.join("tests").is_dir())
                })
                .map(|name| project.join(name))
                .collect()
        })
        .unwrap_or_default();
    shown.sort();
    let hidden = std::fs::read_dir(project).map_or(0, |e| e.count()) - shown.len();
    println!(
        "  the plain side reads the {} top-level entries source/ shows ({hidden} hidden)",
        shown.len()
    );
    shown
}

/// A mount, and the time from `homespace mount` to its dashboard read.
fn mounted_first_view(mount: &dyn Fn(&[&str]) -> (Mounted, Duration)) -> (Mounted, Duration) {
    let started = Instant::now();
    let (mounted, _) = mount(&["--read-only"]);
    let _ = std::fs::read(mounted.at.join("_entry.md"));
    let took = started.elapsed();
    (mounted, took)
}

/// A new read-only mount of the same project and store, the page cache dropped first
/// when `cold`.
fn fresh(mount: &dyn Fn(&[&str]) -> (Mounted, Duration), cold: bool) -> (Mounted, Duration) {
    if cold {
        drop_caches();
    }
    mount(&["--read-only"])
}

/// `grep -rn`, skipping the compiled-bytecode folders `source/` does not show.
fn grep(word: &str, dirs: &[PathBuf]) -> Vec<String> {
    let mut command = vec![
        "grep".to_string(),
        "-rn".into(),
        "--exclude-dir=__pycache__".into(),
        word.into(),
    ];
    command.extend(dirs.iter().map(|d| path(d)));
    command
}

fn rg(word: &str, files: &[PathBuf]) -> Vec<String> {
    let mut command = vec!["rg".to_string(), "-n".into(), word.into()];
    command.extend(files.iter().map(|f| path(f)));
    command
}

/// How many files `command` (a `grep -rn`) finds a hit in.
fn files_read(command: &[String]) -> usize {
    let mut listing: Vec<String> = command.to_vec();
    listing[1] = "-rl".into();
    // Generated views are read too, but count apart: they are the mount's own.
    Command::new(&listing[0])
        .args(&listing[1..])
        .output()
        .map(|out| {
            out.stdout
                .split(|&b| b == b'\n')
                .filter(|l| !l.is_empty())
                .count()
        })
        .unwrap_or(0)
}

/// `command` with the mountpoint `from` replaced by `to` (each mount has its own).
fn rebased(command: &[String], from: &Path, to: &Path) -> Vec<String> {
    let (from, to) = (path(from), path(to));
    command.iter().map(|a| a.replacen(&from, &to, 1)).collect()
}

/// How long `command` takes as a whole process, its output read and thrown away.
fn run(command: &[String]) -> Duration {
    let started = Instant::now();
    let status = Command::new(&command[0])
        .args(&command[1..])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    if status.is_err() {
        println!("  ({} did not run)", command[0]);
    }
    started.elapsed()
}

fn path(p: &Path) -> String {
    p.as_os_str().to_string_lossy().into_owned()
}

fn ratio(mount: Duration, plain: Duration) -> f64 {
    mount.as_secs_f64() / plain.as_secs_f64().max(1e-9)
}
