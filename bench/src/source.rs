//! The source section of the benchmark: for one project, mounted three times — with the
//! kernel keeping what it is given (the default), read-only (`--read-only`: the kernel
//! answers opens too) and with `--no-cache` — warm reads of a
//! view, a module and a symbol file, `stat`, `ls` of a package, a module's and a class's
//! directory, each beside the same operation on plain files holding the same bytes or the
//! same names; the first `ls`, `ls -lR` of `source/` beside `ls -lR` of the project, a
//! dotted lookup and a search (beside grep and ripgrep over the same files:
//! `search_baseline.rs`); then, once per project, the cost of indexing its modules
//! (`symbol_index.rs`).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use super::{daemon_rss, ls, mount_args, read_all, row, search_baseline, symbol_index, time};

/// A plain directory holding empty files and folders named as `dir`'s members: the
/// baseline of listing a generated directory.
fn same_names(dir: &Path, into: &Path) -> PathBuf {
    std::fs::create_dir_all(into).expect("mirror dir");
    for entry in std::fs::read_dir(dir).expect("ls").flatten() {
        let target = into.join(entry.file_name());
        if entry.path().is_dir() {
            std::fs::create_dir_all(&target).expect("mirror");
        } else {
            std::fs::write(&target, b"").expect("mirror");
        }
    }
    into.to_path_buf()
}

/// A plain file holding the same bytes as `file`.
fn same_bytes(file: &Path, into: &Path) -> PathBuf {
    std::fs::write(into, std::fs::read(file).expect("read")).expect("copy");
    into.to_path_buf()
}

/// The first symbol file and the first class directory of a module's members.
fn symbols(members: &Path) -> (Option<PathBuf>, Option<PathBuf>) {
    let mut names: Vec<PathBuf> = std::fs::read_dir(members)
        .expect("ls members")
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            !p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with('_'))
        })
        .collect();
    names.sort();
    let file = names
        .iter()
        .find(|p| p.extension().is_some_and(|e| e == "py"))
        .cloned();
    let class = names.iter().find(|p| p.is_dir()).cloned();
    (file, class)
}

/// `ls -lR` of `dir`, as a command.
fn ls_lr(dir: &Path) {
    let _ = Command::new("ls")
        .arg("-lR")
        .arg(dir)
        .output()
        .expect("ls -lR");
}

/// One timing of `op`.
fn once(op: impl FnOnce()) -> Duration {
    let started = Instant::now();
    op();
    started.elapsed()
}

/// The source section for `project`; `uncached`: also mounted with `--no-cache` (minutes
/// more on the stdlib).
pub fn bench_project(title: &str, project: &Path, runs: usize, query: &str, uncached: bool) {
    println!("## {title}");
    let files = search_baseline::searched_files(project);
    let modes = [
        ("kernel cache (default)", &[][..]),
        (
            "read-only (--read-only): the kernel answers opens and closes too",
            &["--read-only"][..],
        ),
        ("no cache (--no-cache)", &["--no-cache"][..]),
    ];
    for (mode, args) in &modes[..if uncached { 3 } else { 2 }] {
        bench_mode(mode, args, project, runs, query, &files);
    }
    symbol_index::figure(&files);
}

fn bench_mode(
    mode: &str,
    args: &[&str],
    project: &Path,
    runs: usize,
    query: &str,
    files: &[PathBuf],
) {
    println!("### {mode}");
    let (mounted, first_ls) = mount_args(project, None, args);
    let at = &mounted.at;
    println!(
        "  {:<44} {:>13} {:>13} {:>9}",
        "operation", "mount", "plain disk", "ratio"
    );
    row("mount -> first ls of source/", first_ls, None);
    let scratch = tempfile::tempdir().expect("temp");
    let plain = |name: &str| scratch.path().join(name);
    let (package, module, dotted) = sample(at);
    let rel = module
        .strip_prefix(at.join("source"))
        .expect("under source")
        .to_path_buf();
    let disk_module = find_on_disk(project, &rel);
    let disk_package = disk_module.parent().expect("parent").to_path_buf();
    let members = module.with_extension("");

    let view = at.join("_entry.md");
    let copy = same_bytes(&view, &plain("entry.md"));
    row(
        "cat /_entry.md (the dashboard)",
        time(runs, || read_all(&view)),
        Some(time(runs, || read_all(&copy))),
    );
    let module_entry = members.join("_entry.md");
    let copy = same_bytes(&module_entry, &plain("module_entry.md"));
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
    let (symbol, class) = symbols(&members);
    if let Some(symbol) = symbol {
        let copy = same_bytes(&symbol, &plain("symbol.py"));
        row(
            "cat symbol file",
            time(runs, || read_all(&symbol)),
            Some(time(runs, || read_all(&copy))),
        );
    }
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
    let names = same_names(&members, &plain("members"));
    row(
        "ls module dir (vs the same names on disk)",
        time(runs, || ls(&members)),
        Some(time(runs, || ls(&names))),
    );
    if let Some(class) = class {
        let names = same_names(&class, &plain("class"));
        row(
            "ls class dir (vs the same names on disk)",
            time(runs, || ls(&class)),
            Some(time(runs, || ls(&names))),
        );
    }
    let dotted_path = at.join("source").join(format!("{dotted}.py"));
    row(
        "dotted lookup + read (source/pkg.mod.py)",
        time(runs, || read_all(&dotted_path)),
        Some(time(runs, || read_all(&disk_module))),
    );
    // Without the cache a warm `ls -lR` of the stdlib takes minutes: once is enough there.
    let tree_runs = if args.contains(&"--no-cache") {
        1
    } else {
        runs.clamp(1, 3)
    };
    let first = once(|| ls_lr(&at.join("source")));
    row(
        "ls -lR source/ (first, cold)",
        first,
        Some(once(|| ls_lr(project))),
    );
    row(
        "ls -lR source/ (warm) vs ls -lR of the project",
        time(tree_runs, || ls_lr(&at.join("source"))),
        Some(time(tree_runs, || ls_lr(project))),
    );
    if args.contains(&"--read-only") {
        // The kernel keeps a query's results until something changes, so repeating one
        // query measures the cache, not a search: say so instead of comparing with grep.
        let repeated = at.join("search").join(format!("source:{query}"));
        println!(
            "  search/source:{query}: repeated, answered by the kernel's cache until \
             something changes ({:.1} µs); a new query costs what the default mode's row shows",
            time(runs, || read_all(&repeated)).as_secs_f64() * 1e6
        );
    } else {
        search_baseline::rows(at, query, files, runs.clamp(3, 20));
    }
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
