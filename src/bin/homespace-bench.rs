//! The benchmark command: mounts the example project and a large real project (the
//! CPython standard library by default) and prints, for each operation, the median on the
//! mount, the median of the same operation on the plain disk, and their ratio — measured
//! in one run, in-process. Also the time from `homespace mount` to the first answered
//! `ls`, and the daemon's resident memory. It measures; it asserts nothing.
//!
//! Usage: `cargo run --release --bin homespace-bench -- [--large DIR] [--runs N]`

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::Command;
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
    let large = value("--large").map(PathBuf::from).unwrap_or_else(stdlib);
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/ledger");
    println!("homespace benchmark — medians over {runs} runs; ratio = mount / plain disk\n");
    bench_project("example project (examples/ledger)", &example, runs, "debit");
    bench_project(
        &format!("large project ({})", large.display()),
        &large,
        runs.min(50),
        "def register",
    );
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

/// A mounted project, unmounted on drop.
struct Mounted {
    at: PathBuf,
    _dir: tempfile::TempDir,
}

impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = Command::new("fusermount3").arg("-u").arg(&self.at).status();
        let _ = Command::new("fusermount3")
            .arg("-uz")
            .arg(&self.at)
            .output();
    }
}

fn homespace_bin() -> PathBuf {
    let exe = std::env::current_exe().expect("own path");
    exe.with_file_name("homespace")
}

/// Mount `project` in the background; returns the mount and the time to the first `ls`.
fn mount(project: &Path) -> (Mounted, Duration) {
    let dir = tempfile::tempdir().expect("temp dir");
    let at = dir.path().join("mnt");
    std::fs::create_dir_all(&at).expect("mountpoint");
    let before = std::fs::metadata(&at).expect("stat").dev();
    let started = Instant::now();
    let status = Command::new(homespace_bin())
        .args(["mount", "--project"])
        .arg(project)
        .arg("--store")
        .arg(dir.path().join("store.db"))
        .arg(&at)
        .status()
        .expect("homespace runs");
    assert!(status.success(), "mount failed");
    while std::fs::metadata(&at).map(|m| m.dev()).unwrap_or(before) == before {
        std::thread::sleep(Duration::from_micros(100));
    }
    let _ = std::fs::read_dir(at.join("source")).map(|d| d.count());
    let first = started.elapsed();
    (Mounted { at, _dir: dir }, first)
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
    let at = at.to_string_lossy().into_owned();
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let args: Vec<String> = cmdline
            .split(|&b| b == 0)
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect();
        if args.iter().any(|a| a == "--foreground") && args.iter().any(|a| *a == at) {
            let status = std::fs::read_to_string(entry.path().join("status")).ok()?;
            let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
            return line.split_whitespace().nth(1)?.parse().ok();
        }
    }
    None
}

/// The first package (with a module) and module of a mounted project's source tree.
fn sample(at: &Path) -> (PathBuf, PathBuf, String) {
    let source = at.join("source");
    let mut names: Vec<String> = std::fs::read_dir(&source)
        .expect("ls source")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    for name in names {
        let dir = source.join(&name);
        if name.starts_with('_')
            || name == "tests"
            || !dir.is_dir()
            || dir.join("__init__.py").metadata().is_err()
        {
            continue;
        }
        let mut modules: Vec<String> = std::fs::read_dir(&dir)
            .expect("ls package")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".py") && n != "__init__.py")
            .collect();
        modules.sort();
        if let Some(module) = modules.first() {
            return (
                dir.clone(),
                dir.join(module),
                format!("{name}.{}", module.trim_end_matches(".py")),
            );
        }
    }
    panic!("no package with a module under {}", source.display());
}

fn bench_project(title: &str, project: &Path, runs: usize, query: &str) {
    println!("## {title}");
    let (mounted, first_ls) = mount(project);
    let at = &mounted.at;
    println!(
        "  {:<44} {:>13} {:>13} {:>9}",
        "operation", "mount", "plain disk", "ratio"
    );
    row("mount -> first ls of source/", first_ls, None);
    let scratch = tempfile::tempdir().expect("temp");
    let (package, module, dotted) = sample(at);
    let rel = module
        .strip_prefix(at.join("source"))
        .expect("under source")
        .to_path_buf();
    let disk_module = find_on_disk(project, &rel);
    let disk_package = disk_module.parent().expect("parent").to_path_buf();

    // A view against a plain file of the same bytes.
    let view = at.join("_entry.md");
    let copy = scratch.path().join("entry.md");
    std::fs::write(&copy, std::fs::read(&view).expect("read view")).expect("write");
    row(
        "open+read+close /_entry.md",
        time(runs, || read_all(&view)),
        Some(time(runs, || read_all(&copy))),
    );
    let module_entry = module.with_extension("").join("_entry.md");
    let copy = scratch.path().join("module_entry.md");
    std::fs::write(&copy, std::fs::read(&module_entry).expect("read")).expect("write");
    row(
        "cat module _entry.md",
        time(runs, || read_all(&module_entry)),
        Some(time(runs, || read_all(&copy))),
    );
    row(
        "cat module .py",
        time(runs, || read_all(&module)),
        Some(time(runs, || read_all(&disk_module))),
    );
    row(
        "stat module .py",
        time(runs, || drop(std::fs::metadata(&module))),
        Some(time(runs, || drop(std::fs::metadata(&disk_module)))),
    );
    row(
        "ls package dir",
        time(runs, || ls(&package)),
        Some(time(runs, || ls(&disk_package))),
    );
    let members = module.with_extension("");
    row(
        "ls module symbols dir (vs ls package on disk)",
        time(runs, || ls(&members)),
        Some(time(runs, || ls(&disk_package))),
    );
    let dotted_path = at.join("source").join(format!("{dotted}.py"));
    row(
        "dotted lookup + read (source/pkg.mod.py)",
        time(runs, || read_all(&dotted_path)),
        Some(time(runs, || read_all(&disk_module))),
    );
    let search = at.join("search").join(format!("source:{query}"));
    let search_runs = runs.clamp(3, 20);
    let grep = || {
        let _ = Command::new("grep")
            .args(["-rn", "--include=*.py", query])
            .arg(project)
            .output();
    };
    row(
        &format!("search/source:{query} vs grep -rn"),
        time(search_runs, || read_all(&search)),
        Some(time(search_runs, grep)),
    );
    match daemon_rss(at) {
        Some(kb) => println!(
            "  {:<44} {:>10.1} MiB",
            "daemon RSS after the runs",
            kb as f64 / 1024.0
        ),
        None => println!("  daemon RSS: daemon not found"),
    }
    println!();
}

/// The disk file behind a `source/` path: under `src/`, the project root, or a test folder.
fn find_on_disk(project: &Path, rel: &Path) -> PathBuf {
    for base in [project.join("src"), project.to_path_buf()] {
        let candidate = base.join(rel);
        if candidate.is_file() {
            return candidate;
        }
    }
    panic!(
        "{} not found on disk under {}",
        rel.display(),
        project.display()
    );
}
