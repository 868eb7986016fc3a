//! The `search/source:` rows of the source section: the mount's search beside `grep -n` and
//! `rg -n` run over exactly the files the mount searches — the list its own walker gives,
//! not the whole directory (a `grep -r` of the stdlib also reads site-packages, which the
//! mount leaves out, and would flatter the mount) — and the number of matching lines each
//! found, so a reader can see the three did the same work.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use homespace::render::budget::BUDGET_TOKENS;
use homespace::render::thousands;
use homespace::resources::search_results::SCOPED;
use homespace::resources::source::project::Project;

use super::search_total::mount_total;
use super::{read_all, row, time};

/// Above this many bytes of paths the baselines get their files through `xargs` (a command
/// line holds about 2 MB on Linux, environment included); below, as arguments of one
/// process, like the one `grep -r` it replaces.
const ARGV_BYTES: usize = 1 << 20;

/// The `.py` files a mount of `project` searches, in its order: the library's walker, the
/// one `search/source:` scans, with the settings of a fresh store (the bench mounts with
/// one, so no `project.ignore` patterns beyond the project's .gitignore).
pub fn searched_files(project: &Path) -> Vec<PathBuf> {
    // The mount opens the canonical path; the walker compares paths against it.
    let root = project
        .canonicalize()
        .expect("the project directory exists");
    Project::open(&root).python_files()
}

/// A command-line search run as a baseline over the searched files.
struct Baseline {
    /// As printed: `grep -n`, `rg -n`.
    name: &'static str,
    program: &'static str,
    /// Every argument before the files.
    args: Vec<String>,
}

impl Baseline {
    /// `grep -n` matching what the mount matches for `query`.
    fn grep(query: &str) -> Baseline {
        let (literal, pattern, fold) = mount_matching(query);
        let mut args = vec!["-n", "-H", "-a", if literal { "-F" } else { "-E" }];
        if fold {
            args.push("-i");
        }
        Baseline::new("grep -n", "grep", &args, pattern)
    }

    /// `rg -n --no-heading` matching what the mount matches for `query`.
    fn rg(query: &str) -> Baseline {
        let (literal, pattern, fold) = mount_matching(query);
        // No config file: a user's RIPGREP_CONFIG_PATH could change what matches.
        let mut args = vec!["--no-config", "-n", "--no-heading", "-H", "-a"];
        args.push(if fold { "-i" } else { "-s" });
        if literal {
            args.push("-F");
        }
        Baseline::new("rg -n", "rg", &args, pattern)
    }

    fn new(name: &'static str, program: &'static str, flags: &[&str], pattern: &str) -> Self {
        let mut args: Vec<String> = flags.iter().map(|f| f.to_string()).collect();
        args.extend(["-e".to_string(), pattern.to_string(), "--".to_string()]);
        Baseline {
            name,
            program,
            args,
        }
    }

    /// Whether the program can be run at all.
    fn installed(&self) -> bool {
        Command::new(self.program)
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok()
    }

    /// One search over `files` (listed NUL-separated in `list`): its output.
    fn run(&self, files: &[PathBuf], list: &Path) -> std::io::Result<Output> {
        let bytes: usize = files.iter().map(|f| f.as_os_str().len() + 1).sum();
        let mut command = if bytes <= ARGV_BYTES {
            let mut command = Command::new(self.program);
            command.args(&self.args).args(files);
            command
        } else {
            let mut command = Command::new("xargs");
            command
                .args(["-0", self.program])
                .args(&self.args)
                .stdin(std::fs::File::open(list)?);
            command
        };
        command.output()
    }
}

/// How the mount matches `query` (see `resources/source/search/`): whether literally, the
/// pattern, and whether case-insensitively (smart case: a literal query without capitals).
/// A `re:` pattern is Rust's regex syntax, which grep's `-E` reads the same way for the
/// common cases only.
fn mount_matching(query: &str) -> (bool, &str, bool) {
    match query.strip_prefix("re:") {
        Some(pattern) => (false, pattern, false),
        None => (true, query, !query.chars().any(char::is_uppercase)),
    }
}

/// What one baseline measured: its median and the matching lines it printed, or why it
/// could not run.
type Measured = Result<(Duration, usize), String>;

/// Time `baseline` over `files`; the count is of the output lines of the last run.
fn measure(baseline: &Baseline, files: &[PathBuf], list: &Path, runs: usize) -> Measured {
    if !baseline.installed() {
        return Err(format!("{} not installed", baseline.program));
    }
    let mut last: std::io::Result<Output> = Err(std::io::ErrorKind::NotFound.into());
    let median = time(runs, || last = baseline.run(files, list));
    let out = last.map_err(|e| format!("{} could not run: {e}", baseline.program))?;
    // Exit status 1 is "no match"; above, an error — but through xargs, 123 also stands
    // for one batch that matched nothing, so only a status with a message counts.
    if out
        .status
        .code()
        .is_none_or(|code| code > 1 && !out.stderr.is_empty())
    {
        let said = String::from_utf8_lossy(&out.stderr);
        return Err(format!(
            "{} failed: {}",
            baseline.program,
            said.lines().next().unwrap_or("no message")
        ));
    }
    let lines = out.stdout.iter().filter(|&&b| b == b'\n').count();
    Ok((median, lines))
}

/// The matching lines the mount counted (`# Search: … — N hits`: every matching line, not
/// only those shown) and the hits it shows (`- ` lines, at most [`SCOPED`], then cut to the
/// view's budget).
fn mount_counts(view: &str) -> (Option<usize>, usize) {
    let total = mount_total(view);
    let shown = view.lines().filter(|l| l.starts_with("- ")).count();
    (total, shown)
}

/// The rows of `search/source:{query}` on the mount at `at`: its median beside each
/// baseline's over the same `files`, then the matching lines each counted.
pub fn rows(at: &Path, query: &str, files: &[PathBuf], runs: usize) {
    let search = at.join("search").join(format!("source:{query}"));
    let mount = time(runs, || read_all(&search));
    let view = std::fs::read_to_string(&search).unwrap_or_default();
    let (total, shown) = mount_counts(&view);
    let scratch = tempfile::tempdir().expect("temp dir");
    let list = scratch.path().join("files");
    let mut names = Vec::new();
    for file in files {
        names.extend_from_slice(file.as_os_str().as_encoded_bytes());
        names.push(0);
    }
    std::fs::write(&list, names).expect("write the file list");
    let mut counts = vec![format!(
        "mount {} (shows {shown}: at most {SCOPED}, cut to {BUDGET_TOKENS} tokens)",
        total.map_or("?".to_string(), |n| thousands(n as u64))
    )];
    let mut agree = total.is_some();
    for baseline in [Baseline::grep(query), Baseline::rg(query)] {
        let name = format!("search/source:{query} vs {}", baseline.name);
        match measure(&baseline, files, &list, runs) {
            Ok((median, lines)) => {
                row(&name, mount, Some(median));
                counts.push(format!("{} {}", baseline.name, thousands(lines as u64)));
                agree &= total == Some(lines);
            }
            Err(why) => println!("  {name:<44} {why}"),
        }
    }
    println!(
        "    over the same {} .py files; matching lines: {} — {}",
        thousands(files.len() as u64),
        counts.join(", "),
        if agree { "the same" } else { "NOT the same" }
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mount_counts_come_from_its_heading_and_hit_lines() {
        let view = "home > search > source:debit\n# Search: source:debit — 1,234 hits\n\n\
                    ## source — 1234 hits\n- a:1: def debit — `x`\n- b:2: debit — `y`\n";
        assert_eq!(mount_counts(view), (Some(1234), 2));
    }

    #[test]
    fn baselines_match_as_the_mount_does() {
        assert_eq!(mount_matching("def register"), (true, "def register", true));
        assert_eq!(mount_matching("Account"), (true, "Account", false));
        assert_eq!(mount_matching("re:^def"), (false, "^def", false));
    }
}
