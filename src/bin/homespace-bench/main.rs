//! The benchmark command: mounts the example project and a large real project (the
//! CPython standard library by default) and prints, for each operation, the median on the
//! mount, the median of the same operation on the plain disk, and their ratio — measured
//! in one run, in-process. Also the time from `homespace mount` to the first answered
//! `ls`, and the daemon's resident memory. It measures; it asserts nothing.
//!
//! The tasks section seeds stores of 100, 1,000 and 10,000 tasks through the library (the
//! same validated write a mount does), mounts each, and measures on the mount: `ls
//! tasks/open/`, `cat tasks/_entry.md`, creating a task, and `search/tasks:<q>`, beside the
//! same operations on plain files (a directory of the same task files, `grep -rl`).
//!
//! The memory section (`memory.rs`) fills the mount with editors' temp files — 256 of
//! 8 MiB, the most it holds — and prints the daemon's resident memory along the way, its
//! peak, and what is left after they are removed.
//!
//! Usage: `cargo run --release --bin homespace-bench -- [--large DIR] [--runs N]
//! [--only all|source|tasks|memory|sessions] [--cached-only]` (`--cached-only`: the source
//! section skips its `--no-cache` mounts, minutes of the stdlib's `ls -lR`).
//!
//! Every mount is unmounted when done and checked to be gone; one that cannot be is named
//! with its daemon, the daemon is ended, and the benchmark exits with status 1 at the end.
//!
//! The sessions section (`sessions.rs`) generates 1,000,000 memory entries as transcripts,
//! times `homespace import`, and measures memory search, a 20,000-entry session, its
//! `related.md` and `memory/recall` on the mount.

mod memory;
mod search_baseline;
mod sessions;
mod source;
mod symbol_index;

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::time::{Duration, Instant};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let runs: usize = value("--runs").and_then(|r| r.parse().ok()).unwrap_or(200);
    let only = value("--only").unwrap_or_else(|| "all".to_string());
    let uncached = !args.iter().any(|a| a == "--cached-only");
    let (source, tasks, memory) = match only.as_str() {
        "all" => (true, true, true),
        "source" => (true, false, false),
        "tasks" => (false, true, false),
        "memory" => (false, false, true),
        "sessions" => (false, false, false),
        other => {
            eprintln!(
                "homespace-bench: --only takes all, source, tasks, memory or sessions, not {other:?}"
            );
            std::process::exit(2);
        }
    };
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/ledger");
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
    if tasks {
        bench_tasks(&example, runs.min(100));
    }
    if memory {
        memory::bench_temp_files(&example);
    }
    if matches!(only.as_str(), "all" | "sessions") {
        sessions::bench_sessions(&example, runs.min(200));
    }
    exit_if_left_behind();
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
    /// The device of the FUSE mount, which the mountpoint no longer has once it is gone.
    dev: u64,
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
        let mut tried = Vec::new();
        for (how, lazy) in [("normal", false), ("lazy", true)] {
            match homespace::mount::unmount(&self.at, lazy) {
                Ok(()) if self.gone() => return self.daemon_exits(),
                Ok(()) => tried.push(format!(
                    "{how}: said it worked, but the FUSE mount is still there"
                )),
                Err(why) => tried.push(format!("{how}: {why}")),
            }
        }
        Err(format!(
            "could not unmount ({}){}",
            tried.join("; "),
            self.end_daemon()
        ))
    }

    /// Whether the mountpoint is back on the file system below it (a stale mount cannot
    /// even be stat'ed).
    fn gone(&self) -> bool {
        std::fs::metadata(&self.at).is_ok_and(|m| m.dev() != self.dev)
    }

    /// Wait for the daemon to exit now that its mount is gone; end it if it does not.
    fn daemon_exits(&self) -> Result<(), String> {
        let Some(pid) = self.daemon else {
            return Ok(());
        };
        let started = Instant::now();
        while serves(pid, &self.at) {
            if started.elapsed() > DAEMON_EXIT {
                return Err(format!(
                    "unmounted, but the daemon still runs after {} s{}",
                    DAEMON_EXIT.as_secs(),
                    self.end_daemon()
                ));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(())
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
        let started = Instant::now();
        while serves(pid, &self.at) && started.elapsed() < Duration::from_secs(2) {
            std::thread::sleep(Duration::from_millis(20));
        }
        if !serves(pid, &self.at) {
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

/// Mount `project` with the store `store` (a fresh one when `None`) and more `mount`
/// arguments (`--no-cache`).
fn mount_args(project: &Path, store: Option<&Path>, args: &[&str]) -> (Mounted, Duration) {
    let dir = tempfile::tempdir().expect("temp dir");
    let at = dir.path().join("mnt");
    std::fs::create_dir_all(&at).expect("mountpoint");
    let before = std::fs::metadata(&at).expect("stat").dev();
    let store = store.map_or_else(|| dir.path().join("store.db"), Path::to_path_buf);
    let started = Instant::now();
    let status = Command::new(homespace_bin())
        .args(["mount", "--project"])
        .arg(project)
        .arg("--store")
        .arg(&store)
        .args(args)
        .arg(&at)
        .status()
        .expect("homespace runs");
    assert!(status.success(), "mount failed");
    // `homespace mount` returns once the mount answers; this only guards against a mount
    // that vanished right after, which must end the run rather than hang it.
    while std::fs::metadata(&at).map(|m| m.dev()).unwrap_or(before) == before {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the mount at {} did not appear within 30 s",
            at.display()
        );
        std::thread::sleep(Duration::from_micros(100));
    }
    let _ = std::fs::read_dir(at.join("source")).map(|d| d.count());
    let first = started.elapsed();
    let dev = std::fs::metadata(&at).expect("stat the mount").dev();
    let daemon = homespace::mount::daemon_pid(&at);
    let mounted = Mounted {
        at,
        dev,
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
    let pid = homespace::mount::daemon_pid(at)?;
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Words the seeded tasks are made of.
const TASK_WORDS: [&str; 12] = [
    "login", "form", "schema", "deploy", "cache", "parser", "index", "docs", "retry", "token",
    "queue", "report",
];
/// Searches of a store of `size` tasks: two words a third of the tasks have, and a word
/// every title has with the number of the last task, which only that task matches (the
/// search matches prefixes, and no other number starts with it).
fn task_queries(size: usize) -> [String; 2] {
    ["login deploy".to_string(), format!("fix {}", size - 1)]
}

/// Task `i` of a seeded store: statuses in turn (a quarter open), priorities 0–4, a tag,
/// and every fifth task depending on the one before it.
fn task_json(i: usize) -> String {
    let word = |k: usize| TASK_WORDS[(i * 7 + k * 3) % TASK_WORDS.len()];
    let depends = if i > 0 && i.is_multiple_of(5) {
        format!(r#", "depends_on": ["task-{}"]"#, i - 1)
    } else {
        String::new()
    };
    format!(
        r#"{{"title": "Fix the {} {} ({i})", "status": "{}", "priority": {}, "tags": ["{}"], "description": "The {} breaks when the {} is empty."{depends}}}"#,
        word(0),
        word(1),
        ["open", "in_progress", "blocked", "done"][i % 4],
        i % 5,
        word(2),
        word(3),
        word(4)
    )
}

/// A store of `size` tasks at `path`, written through the tasks resource (validated and
/// stored one by one, as a mount does), and the same tasks as plain files under `plain`:
/// `all/` holds every task file, `open/` the open ones.
fn seed_tasks(path: &Path, plain: &Path, size: usize) -> Duration {
    use homespace::model::links::Links;
    use homespace::resources::tasks::Tasks;
    use homespace::store::Store;
    use homespace::tree::resource::Resource;

    let started = Instant::now();
    let store = std::sync::Arc::new(Store::open(path).expect("open the store"));
    let tasks = Tasks::new(store, Links::new("/"));
    for i in 0..size {
        let name = format!("task-{i}.json");
        tasks
            .write(&[&name], task_json(i).as_bytes(), None)
            .unwrap_or_else(|e| panic!("seed {name}: {}", e.message));
    }
    let seeded = started.elapsed();
    for dir in ["all", "open"] {
        std::fs::create_dir_all(plain.join(dir)).expect("plain dir");
    }
    for i in 0..size {
        let name = format!("task-{i}.json");
        let bytes = tasks.read(&[&name]).expect("read a seeded task");
        std::fs::write(plain.join("all").join(&name), &bytes).expect("plain file");
        if i % 4 == 0 {
            std::fs::write(plain.join("open").join(&name), &bytes).expect("plain file");
        }
    }
    seeded
}

/// `N hits` from the heading of a search result.
fn hit_count(result: &Path) -> String {
    std::fs::read_to_string(result)
        .unwrap_or_default()
        .lines()
        .nth(1)
        .and_then(|l| l.rsplit(" — ").next())
        .unwrap_or("?")
        .to_string()
}

/// Medians of one store size.
struct TaskFigures {
    size: usize,
    open: usize,
    list: Duration,
    entry: Duration,
    create: Duration,
    searches: Vec<Duration>,
}

/// `tasks/` as the store grows: the four operations of the issue at 100, 1,000 and 10,000
/// tasks, each beside the same operation on plain files.
fn bench_tasks(project: &Path, runs: usize) {
    println!("## tasks (examples/ledger with a seeded store; medians over {runs} runs)");
    println!(
        "  plain disk: ls of a directory of the same open task files; cat of a copy of the \
         view;\n  writing a new file; `grep -rliw A | xargs grep -liw B` over all the task \
         files\n"
    );
    let mut table = Vec::new();
    for size in [100usize, 1_000, 10_000] {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = dir.path().join("store.db");
        let plain = dir.path().join("plain");
        let seeded = seed_tasks(&store, &plain, size);
        // Uncached: what is timed is the work of each view and query, as grep does its
        // own; a repeated read served by the kernel's cache is the source section's subject.
        let (mounted, _) = mount_args(project, Some(&store), &["--no-cache"]);
        let tasks = mounted.at.join("tasks");
        let open_dir = tasks.join("open");
        let open = std::fs::read_dir(&open_dir)
            .expect("ls tasks/open")
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().ends_with(".json"))
            .count();
        println!(
            "### {size} tasks ({open} open; seeded in {:.2} s)",
            seeded.as_secs_f64()
        );
        println!(
            "  {:<44} {:>13} {:>13} {:>9}",
            "operation", "mount", "plain disk", "ratio"
        );

        let list = time(runs, || ls(&open_dir));
        row(
            "ls tasks/open/",
            list,
            Some(time(runs, || ls(&plain.join("open")))),
        );
        let entry_view = tasks.join("_entry.md");
        let entry_copy = dir.path().join("entry.md");
        std::fs::write(&entry_copy, std::fs::read(&entry_view).expect("read")).expect("write");
        let entry = time(runs, || read_all(&entry_view));
        row(
            "cat tasks/_entry.md",
            entry,
            Some(time(runs, || read_all(&entry_copy))),
        );
        let new_task = br#"{"title": "Add a CSV export", "tags": ["report"]}"#;
        let mut n = 0;
        let create = time(runs, || {
            n += 1;
            std::fs::write(open_dir.join(format!("new-{n}.json")), new_task).expect("create");
        });
        let mut n = 0;
        let create_plain = time(runs, || {
            n += 1;
            std::fs::write(plain.join(format!("new-{n}.json")), new_task).expect("write");
        });
        row(
            "create a task (write a new file)",
            create,
            Some(create_plain),
        );
        let search_runs = runs.clamp(3, 50);
        let mut searches = Vec::new();
        for query in task_queries(size) {
            let result = mounted.at.join("search").join(format!("tasks:{query}"));
            let search = time(search_runs, || read_all(&result));
            let (a, b) = query.split_once(' ').expect("two words");
            let grep = time(search_runs, || {
                let _ = Command::new("sh")
                    .arg("-c")
                    .arg("grep -rliw \"$2\" \"$1\" | xargs -r grep -liw \"$3\"")
                    .args(["sh".as_ref(), plain.join("all").as_os_str()])
                    .args([a, b])
                    .output();
            });
            row(
                &format!("search/tasks:{query} ({})", hit_count(&result)),
                search,
                Some(grep),
            );
            searches.push(search);
        }
        if let Some(kb) = daemon_rss(&mounted.at) {
            println!(
                "  {:<44} {:>10.1} MiB",
                "daemon RSS after the runs",
                kb as f64 / 1024.0
            );
        }
        println!();
        table.push(TaskFigures {
            size,
            open,
            list,
            entry,
            create,
            searches,
        });
    }
    let ms = |d: Duration| format!("{:.2} ms", d.as_secs_f64() * 1e3);
    println!("### tasks/ on the mount, medians");
    println!(
        "| tasks | open | ls tasks/open/ | cat tasks/_entry.md | create a task | \
         search/tasks:login deploy | search/tasks:fix <last> |"
    );
    println!("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for f in table {
        println!(
            "| {} | {} | {} | {} | {} | {} |",
            f.size,
            f.open,
            ms(f.list),
            ms(f.entry),
            ms(f.create),
            f.searches
                .iter()
                .map(|d| ms(*d))
                .collect::<Vec<_>>()
                .join(" | ")
        );
    }
    println!();
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
        let started = Instant::now();
        while !serves(pid, at) {
            assert!(
                started.elapsed() < Duration::from_secs(5),
                "sh did not start"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
        child
    }

    #[test]
    fn a_mount_that_cannot_be_removed_is_named_kept_and_its_daemon_ended() {
        let dir = tempfile::tempdir().unwrap();
        let holder = dir.path().to_path_buf();
        let at = holder.join("mnt");
        std::fs::create_dir(&at).unwrap();
        // Not mounted, and "still on the mount's device": both unmounts fail.
        let dev = std::fs::metadata(&at).unwrap().dev();
        let mut daemon = fake_daemon(&at);
        let pid = daemon.id() as i32;
        drop(Mounted {
            at: at.clone(),
            dev,
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
