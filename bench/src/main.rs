//! The benchmark command: mounts the example project and a large real project (the
//! CPython standard library by default) and prints, for each operation, the median on the
//! mount, the median of the same operation on the plain disk, and their ratio — measured
//! in one run, in-process. Also the time from `homespace mount` to the first answered
//! `ls`, and the daemon's resident memory. It measures; it asserts nothing.
//!
//! The tasks section (`tasks.rs`) and the sessions section (`sessions.rs`) measure both
//! stores side by side — SQLite, and PostgreSQL on a private scratch server started for
//! the run (`backends.rs`) — each figure on each store beside the same work on the plain
//! disk. Tasks: stores of 100, 1,000 and 10,000 tasks; `ls tasks/open/`, `cat
//! tasks/_entry.md`, creating a task, and `search/tasks:<q>`. Sessions: 1,000,000 memory
//! entries (`--entries N` for fewer) generated as transcripts, `homespace import` timed
//! into each store, then memory search, a 20,000-entry session, its `related.md` and
//! `memory/recall` on the mount.
//!
//! The memory section (`memory.rs`) fills the mount with editors' temp files — 256 of
//! 8 MiB, the most it holds — and prints the daemon's resident memory along the way, its
//! peak, and what is left after they are removed.
//!
//! The memory store section (`memory_store.rs`) measures the store alone, in-process, on
//! both backends: import rates, and search, `related` and a session's digest over generated
//! entries (the `--entries` of the sessions section). It opens with live import
//! (`live_import.rs`): entries per second as a transcript grows, and the delay from an
//! append to the mount showing it.
//!
//! The large-project section (`large.rs`): cold and warm `grep -rn`, `ls -lR`, a search and
//! mount → first view on the stdlib (`--large DIR`; `--package`, `--word`), beside the plain tree.
//!
//! The parse index section (`parse_index.rs`) mounts the large project read-only twice
//! over one store: how long background indexing takes cold and from the parse index, what
//! it parsed and loaded, and a `cat` of a module while it runs beside one after.
//!
//! The search section (`search_pace.rs`, `--only search`) times `search/source:` beside
//! `rg -n` over the same files of the stdlib, or of `--project DIR`, cold and warm.
//!
//! The walks section (`walks/`) counts commands and bytes read instead of time: an
//! agent's common jobs scripted on the plain checkout and on the mount, side by side.
//!
//! The suspects section (`suspects/`, `--only suspects`) counts how often a failing run's
//! first suspects name the function where a one-token bug was put, in three real projects
//! fetched as sdists (`sdist.rs`), with the runner's ranking and its text heuristics alone.
//!
//! Usage: `cargo run --release --bin homespace-bench -- [--large DIR] [--runs N]
//! [--only all|source|search|tasks|memory|memory-store|live-import|sessions|walks|suspects|large|parse-index]
//! [--project DIR] [--cached-only] [--entries N] [--package NAME] [--word WORD]
//! [--project-only example|all] [--sdist DIR] [--mutants N] [--sdist-only NAME] [--verbose] [--outputs]`
//! (`--cached-only`: the source section skips its `--no-cache` mounts, minutes of the
//! stdlib's `ls -lR`; `--entries N`: the sessions and memory store sections' stores hold N entries, at
//! least 10,000, instead of 1,000,000; `--project-only example`: the walks on the example
//! project only; `--sdist DIR`: an unpacked cachetools 5.5.0 for the walks; `--verbose`:
//! every walk's commands, and each mutant of the suspects section with its suspects;
//! `--outputs`: and what each walk's command printed; `--mutants N`: killed mutants per
//! project of the suspects section, 12 by default; `--sdist-only boltons|sqlparse|cachetools`:
//! its one project).
//!
//! Every mount is unmounted when done and checked to be gone; one that cannot be is named
//! with its daemon, the daemon is ended, and the benchmark exits with status 1 at the end.
//! The scratch server is stopped, and every database on it dropped, before it exits.

mod backends;
mod large;
mod live_import;
mod memory;
mod memory_digest;
mod memory_files;
mod memory_store;
mod parse_index;
mod sdist;
mod search_baseline;
mod search_pace;
mod search_total;
mod sessions;
mod source;
mod suspects;
mod symbol_index;
mod tasks;
mod walks;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use homespace_testkit::copy::copy_dir;
use homespace_testkit::mount::{self as mountpoint, MountPoint};
use homespace_testkit::poll::poll_true;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let runs: usize = value("--runs").and_then(|r| r.parse().ok()).unwrap_or(200);
    let entries = match value("--entries").map(|n| n.replace(['_', ','], "").parse::<u64>()) {
        None => sessions::ENTRIES,
        Some(Ok(n)) if n >= sessions::MIN_ENTRIES => n,
        Some(_) => {
            eprintln!(
                "homespace-bench: --entries takes a number of at least {}",
                sessions::MIN_ENTRIES
            );
            std::process::exit(2);
        }
    };
    let only = value("--only").unwrap_or_else(|| "all".to_string());
    let uncached = !args.iter().any(|a| a == "--cached-only");
    let all = only == "all";
    let (source, tasks, memory, sessions, walks) = match only.as_str() {
        "all" => (true, true, true, true, true),
        "source" => (true, false, false, false, false),
        "tasks" => (false, true, false, false, false),
        "memory" => (false, false, true, false, false),
        "sessions" => (false, false, false, true, false),
        "walks" => (false, false, false, false, true),
        "memory-store" | "live-import" | "large" | "parse-index" | "search" | "suspects" => {
            (false, false, false, false, false)
        }
        other => {
            eprintln!(
                "homespace-bench: --only takes all, source, search, tasks, memory, memory-store, \
                 live-import, sessions, walks, suspects, large or parse-index, not {other:?}"
            );
            std::process::exit(2);
        }
    };
    let memory_store = all || only == "memory-store";
    let live_import = memory_store || only == "live-import";
    let walk_options = match value("--project-only").as_deref() {
        None | Some("all") => Some(false),
        Some("example") => Some(true),
        Some(_) => None,
    }
    .map(|example_only| walks::Options {
        verbose: args.iter().any(|a| a == "--verbose"),
        outputs: args.iter().any(|a| a == "--outputs"),
        example_only,
        sdist: value("--sdist").map(PathBuf::from),
    });
    let Some(walk_options) = walk_options else {
        eprintln!("homespace-bench: --project-only takes example or all");
        std::process::exit(2);
    };
    let suspect_options = suspects::Options {
        mutants: match value("--mutants").map(|n| n.parse::<usize>()) {
            None => suspects::MUTANTS,
            Some(Ok(n)) if n > 0 => n,
            Some(_) => {
                eprintln!("homespace-bench: --mutants takes a number of at least 1");
                std::process::exit(2);
            }
        },
        only: value("--sdist-only"),
        verbose: args.iter().any(|a| a == "--verbose"),
    };
    let example = example_project();
    println!("homespace benchmark — medians over {runs} runs; ratio = mount / plain disk\n");
    if source {
        let large = value("--large").map(PathBuf::from).unwrap_or_else(stdlib);
        source::bench_project(
            "example project (examples/ledger)",
            &example,
            runs,
            "debit",
            uncached,
        );
        source::bench_project(
            &format!("large project ({})", large.display()),
            &large,
            runs.min(50),
            "def register",
            uncached,
        );
    }
    if all || only == "large" {
        let large = value("--large").map(PathBuf::from).unwrap_or_else(stdlib);
        let package = value("--package").unwrap_or_else(|| "email".into());
        let word = value("--word").unwrap_or_else(|| "urlopen".into());
        large::bench_large(&large, &package, &word);
    }
    if all || only == "parse-index" {
        parse_index::bench_parse_index(&value("--large").map(PathBuf::from).unwrap_or_else(stdlib));
    }
    if all || only == "search" {
        let project = value("--project").map(PathBuf::from).unwrap_or_else(stdlib);
        search_pace::bench_search(&project, runs.min(20));
    }
    if tasks || sessions || live_import {
        // One scratch server for both sections, stopped when `backends` is dropped, before
        // the exit below (which would skip it).
        let backends = backends::Backends::start();
        // A copy: with a database for a store, the mount keeps its log and temp files in
        // <project>/.homespace/, which must not be the source tree's. Both stores mount it.
        match copy_project(&example) {
            Ok((_dir, copy)) => {
                if tasks {
                    tasks::bench_tasks(&copy, &backends, runs.min(100));
                }
                if sessions {
                    sessions::bench_sessions(&copy, &backends, runs.min(200), entries);
                }
            }
            Err(why) => println!("no copy of {}: {why}", example.display()),
        }
        if live_import {
            live_import::bench_live_import(&backends);
            live_import::bench_live_delay(&example);
        }
        if memory_store {
            memory_store::bench_memory_store(&backends, entries);
        }
    }
    if memory {
        memory::bench_temp_files(&example);
    }
    let walks_reached_their_ends = !walks || walks::bench_walks(&walk_options);
    let suspects_measured =
        !(all || only == "suspects") || suspects::bench_suspects(&suspect_options);
    exit_if_left_behind();
    if !walks_reached_their_ends {
        eprintln!("homespace-bench: some walk did not reach its end (see above)");
        std::process::exit(1);
    }
    if !suspects_measured {
        eprintln!(
            "homespace-bench: some project of the suspects section was not measured (see above)"
        );
        std::process::exit(1);
    }
}

/// The example project of the repository (this crate sits in its `bench/`).
fn example_project() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/ledger")
}

/// A copy of the project `from` in a new temp dir (its files and folders, without a
/// `.homespace/` left by an earlier mount): the dir, and the project in it.
fn copy_project(from: &Path) -> Result<(tempfile::TempDir, PathBuf), String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    // Inside, under the original's name: views name the project by its folder.
    let name = from.file_name().unwrap_or(OsStr::new("project"));
    let project = dir.path().join(name);
    copy_dir(from, &project).map_err(|e| e.to_string())?;
    Ok((dir, project))
}

fn stdlib() -> PathBuf {
    let out = Command::new("python3")
        .args([
            "-c",
            "import sysconfig; print(sysconfig.get_paths()['stdlib'])",
        ])
        .output()
        .expect("python3 runs");
    PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
}

/// The mounts that could not be removed, as said when dropped. A drop cannot return an
/// error and must not panic (it may run while a panic unwinds), so it records here and
/// `main` checks before exiting.
static LEFT_BEHIND: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// How long a daemon may take to exit once its mount is gone.
const DAEMON_EXIT: Duration = Duration::from_secs(10);

/// A mounted project, unmounted on drop (see [`Mounted::unmount`]).
struct Mounted {
    at: PathBuf,
    /// The FUSE mount, known by its device, which the mountpoint no longer has once gone.
    point: MountPoint,
    /// The daemon serving the mount, if it was found.
    daemon: Option<i32>,
    /// The directory holding the mountpoint and the store. `None` once kept: deleting it
    /// with the mount still there would delete files of the project through the mount.
    dir: Option<tempfile::TempDir>,
}

impl Drop for Mounted {
    fn drop(&mut self) {
        if let Err(why) = self.unmount() {
            let kept = self.dir.take().map(tempfile::TempDir::keep);
            let daemon = self.daemon.map_or("no daemon found".to_string(), |pid| {
                format!("daemon pid {pid}")
            });
            let message = format!(
                "{} ({daemon}): {why}{}",
                self.at.display(),
                kept.map_or(String::new(), |dir| format!(
                    "; {} was kept, not deleted",
                    dir.display()
                ))
            );
            eprintln!("homespace-bench: ERROR: mount left behind at {message}");
            if let Ok(mut left) = LEFT_BEHIND.lock() {
                left.push(message);
            }
        }
    }
}

impl Mounted {
    /// Unmount: normally, else lazily, each checked by the mountpoint's device; then wait
    /// for the daemon to exit. What fails is said, and a daemon left serving is ended.
    fn unmount(&self) -> Result<(), String> {
        match self.point.unmount(&homespace_bin()) {
            Ok(()) => self.daemon_exits(),
            Err(why) => Err(format!("{why}{}", self.end_daemon())),
        }
    }

    /// Wait for the daemon to exit now that its mount is gone; end it if it does not.
    fn daemon_exits(&self) -> Result<(), String> {
        let Some(pid) = self.daemon else {
            return Ok(());
        };
        if poll_true(DAEMON_EXIT, Duration::from_millis(20), || {
            !serves(pid, &self.at)
        }) {
            return Ok(());
        }
        Err(format!(
            "unmounted, but the daemon still runs after {} s{}",
            DAEMON_EXIT.as_secs(),
            self.end_daemon()
        ))
    }

    /// End the daemon, if it is known and still the one serving this mountpoint; says
    /// what was done, for the error message.
    fn end_daemon(&self) -> String {
        let Some(pid) = self.daemon.filter(|&pid| serves(pid, &self.at)) else {
            return String::new();
        };
        // SAFETY: kill(2) takes no pointers; `serves` just checked that `pid` is the daemon
        // of this mount, not a process that took its number since.
        unsafe { libc::kill(pid, libc::SIGTERM) };
        if poll_true(Duration::from_secs(2), Duration::from_millis(20), || {
            !serves(pid, &self.at)
        }) {
            return format!("; daemon {pid} ended (SIGTERM)");
        }
        // SAFETY: as above.
        unsafe { libc::kill(pid, libc::SIGKILL) };
        format!("; daemon {pid} killed (SIGKILL)")
    }
}

/// Whether process `pid` is the daemon serving `at` (a zombie has no command line).
fn serves(pid: i32, at: &Path) -> bool {
    let Ok(cmdline) = std::fs::read(format!("/proc/{pid}/cmdline")) else {
        return false;
    };
    let at = at.as_os_str().as_encoded_bytes();
    let mut args = cmdline.split(|&b| b == 0);
    args.clone().any(|a| a == b"--foreground") && args.any(|a| a == at)
}

/// Exit with status 1 if any mount could not be removed, naming them again at the end.
fn exit_if_left_behind() {
    let left = LEFT_BEHIND.lock().map(|l| l.clone()).unwrap_or_default();
    if left.is_empty() {
        return;
    }
    eprintln!(
        "homespace-bench: ERROR: {} mount(s) could not be removed:",
        left.len()
    );
    for message in left {
        eprintln!("  {message}");
    }
    std::process::exit(1);
}

fn homespace_bin() -> PathBuf {
    let exe = std::env::current_exe().expect("own path");
    exe.with_file_name("homespace")
}

/// Mount `project` in the background; returns the mount and the time to the first `ls`.
fn mount(project: &Path) -> (Mounted, Duration) {
    mount_args(project, None, &[])
}

/// Mount `project` with the store `store` (a SQLite file or a PostgreSQL URL; a fresh file
/// when `None`) and more `mount` arguments (`--no-cache`).
fn mount_args(project: &Path, store: Option<&OsStr>, args: &[&str]) -> (Mounted, Duration) {
    mount_in(project, store, args, None)
}

/// As [`mount_args`]; with `parent`, the mountpoint is `<parent>/mount/mnt`, the same path
/// for each mount made there one after another: views name their own path, and so read
/// the same, byte for byte, on either store (one plain copy is then the baseline of both).
fn mount_in(
    project: &Path,
    store: Option<&OsStr>,
    args: &[&str],
    parent: Option<&Path>,
) -> (Mounted, Duration) {
    let fixed = parent.and_then(|parent| {
        tempfile::Builder::new()
            .prefix("mount")
            .rand_bytes(0)
            .tempdir_in(parent)
            .ok()
    });
    // A mount left behind keeps that path: the next one then gets a path of its own.
    let dir = fixed.map_or_else(tempfile::tempdir, Ok).expect("temp dir");
    let at = dir.path().join("mnt");
    std::fs::create_dir_all(&at).expect("mountpoint");
    let store = store.map_or_else(
        || dir.path().join("store.db").into_os_string(),
        OsStr::to_os_string,
    );
    mount_at(project, &store, args, at, dir)
}

/// Mount `project` with the store `store` at `at`, an existing empty folder in `dir`
/// (or `dir` itself), which is deleted once the mount is gone.
fn mount_at(
    project: &Path,
    store: &OsStr,
    args: &[&str],
    at: PathBuf,
    dir: tempfile::TempDir,
) -> (Mounted, Duration) {
    let before = mountpoint::device(&at).expect("stat the mountpoint");
    let started = Instant::now();
    let status = Command::new(homespace_bin())
        .args(["mount", "--project"])
        .arg(project)
        .arg("--store")
        .arg(store)
        .args(args)
        .arg(&at)
        .status()
        .expect("homespace runs");
    assert!(status.success(), "mount failed");
    // `homespace mount` returns once the mount answers; this only guards against a mount
    // that vanished right after, which must end the run rather than hang it.
    let point = mountpoint::wait_mounted(
        &at,
        before,
        Duration::from_secs(30),
        Duration::from_micros(100),
        || Ok(()),
    )
    .unwrap_or_else(|why| panic!("{why}"));
    let _ = std::fs::read_dir(at.join("source")).map(|d| d.count());
    let first = started.elapsed();
    let daemon = homespace::daemon::mount::daemon_pid(&at);
    let mounted = Mounted {
        at,
        point,
        daemon,
        dir: Some(dir),
    };
    (mounted, first)
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn time(runs: usize, mut op: impl FnMut()) -> Duration {
    op();
    median(
        (0..runs)
            .map(|_| {
                let t = Instant::now();
                op();
                t.elapsed()
            })
            .collect(),
    )
}

fn row(name: &str, mount: Duration, plain: Option<Duration>) {
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    match plain {
        Some(plain) => println!(
            "  {name:<44} {:>10.1} µs {:>10.1} µs {:>8.1}x",
            us(mount),
            us(plain),
            us(mount) / us(plain).max(0.001)
        ),
        None => println!("  {name:<44} {:>10.1} µs", us(mount)),
    }
}

fn read_all(path: &Path) {
    let _ = std::fs::read(path).expect("read");
}

fn ls(path: &Path) {
    let _ = std::fs::read_dir(path).expect("ls").count();
}

fn daemon_rss(at: &Path) -> Option<u64> {
    daemon_status(at, "VmRSS:")
}

/// A figure in KiB from the `/proc/<pid>/status` of the daemon serving `at` (`VmRSS:`,
/// `VmHWM:` — the peak resident memory).
fn daemon_status(at: &Path, field: &str) -> Option<u64> {
    let pid = homespace::daemon::mount::daemon_pid(at)?;
    homespace_testkit::daemon::status_kib(u32::try_from(pid).ok()?, field)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stand-in daemon "serving" `at`: a shell whose command line names it as the real
    /// one's does, and which does not exit on its own.
    fn fake_daemon(at: &Path) -> std::process::Child {
        // Its `sleep` outlives the SIGTERM by up to a second: without our pipes, so the
        // test harness does not wait for it.
        let child = Command::new("sh")
            .args(["-c", "while :; do sleep 1; done", "--foreground"])
            .arg(at)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let pid = child.id() as i32;
        let started = poll_true(Duration::from_secs(5), Duration::from_millis(10), || {
            serves(pid, at)
        });
        assert!(started, "sh did not start");
        child
    }

    #[test]
    fn a_mount_that_cannot_be_removed_is_named_kept_and_its_daemon_ended() {
        let dir = tempfile::tempdir().unwrap();
        let holder = dir.path().to_path_buf();
        let at = holder.join("mnt");
        std::fs::create_dir(&at).unwrap();
        // Not mounted, and "still on the mount's device": both unmounts fail.
        let dev = mountpoint::device(&at).unwrap();
        let mut daemon = fake_daemon(&at);
        let pid = daemon.id() as i32;
        drop(Mounted {
            at: at.clone(),
            point: MountPoint::on(at.clone(), dev),
            daemon: Some(pid),
            dir: Some(dir),
        });
        assert!(!daemon.wait().unwrap().success(), "the daemon was ended");
        let left = LEFT_BEHIND.lock().unwrap().clone();
        let message = left
            .iter()
            .find(|m| m.contains(&*at.to_string_lossy()))
            .expect("the failure is recorded");
        assert!(message.contains(&format!("daemon pid {pid}")), "{message}");
        assert!(message.contains("could not unmount"), "{message}");
        assert!(message.contains("ended (SIGTERM)"), "{message}");
        assert!(holder.exists(), "the directory is kept, not deleted");
        std::fs::remove_dir_all(&holder).unwrap();
    }
}
