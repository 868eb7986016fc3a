//! `--only search`: `search/source:<q>` beside `rg -n` over exactly the files the mount
//! searches, for a rare word, a common one and two words, cold (a fresh mount, the page
//! cache dropped before each run) and warm, medians with ratios. A project of the size the
//! goal is about: the stdlib, or `--project DIR`; mounted read-only, never written.
//!
//! "The same files" is the list the mount's own walker gives — its `.py` files, then its
//! other text files — passed to rg by name, so rg neither walks nor reads what the mount
//! leaves out. "The same query" is what rg needs to print the lines the mount counts: the
//! mount's smart case, each word a fixed string, several words joined as alternatives
//! (`-e def -e urlopen`), since a line with some of the words is a hit too, ranked after
//! those with all. rg keeps its binary detection, as the mount skips files with a NUL.
//! Both are timed as a reader meets them: a whole `cat` of the view, a whole rg process.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use homespace::resources::source::project::Project;

use homespace_testkit::timing::{drop_caches, fmt_ms};

use super::search_total::mount_total;
use super::{Mounted, median, mount_args, read_all};

/// The queries timed: a rare word, a common one, two words.
const QUERIES: [&str; 3] = ["urlopen", "import", "def urlopen"];
/// Runs behind each cold median: each remounts and drops the page cache.
const COLD_RUNS: usize = 5;

/// The files a search of `project` reads, in its order: the `.py` files, then the other
/// text files (the settings of a fresh store: no `project.ignore` beyond .gitignore).
pub(crate) fn searched_files(project: &Path) -> Vec<PathBuf> {
    let root = project
        .canonicalize()
        .expect("the project directory exists");
    let project = Project::open(&root);
    let mut files = project.python_files();
    files.extend(project.text_files());
    files
}

/// `rg -n` printing the lines the mount counts for `query` (see the file's comment).
fn rg(query: &str, files: &[PathBuf]) -> Command {
    let mut command = Command::new("rg");
    // No config file: a user's RIPGREP_CONFIG_PATH could change what matches.
    command.args(["--no-config", "-n", "--no-heading", "-H", "-F"]);
    command.arg(match query.chars().any(char::is_uppercase) {
        true => "-s",
        false => "-i",
    });
    for word in query.split_whitespace() {
        command.args(["-e", word]);
    }
    command.arg("--").args(files);
    command.stdout(Stdio::piped()).stderr(Stdio::null());
    command
}

fn run_rg(query: &str, files: &[PathBuf]) -> Option<Output> {
    rg(query, files).output().ok()
}

fn timed(op: impl FnOnce()) -> Duration {
    let started = Instant::now();
    op();
    started.elapsed()
}

fn line(name: &str, mount: Duration, rg: Duration) {
    println!(
        "  {name:<40} {:>10} {:>10} {:>7.2}x",
        fmt_ms(mount),
        fmt_ms(rg),
        mount.as_secs_f64() / rg.as_secs_f64().max(1e-9)
    );
}

/// The view of `search/source:<query>` on `mounted`, spelled with `spaces` trailing spaces.
fn asked(mounted: &Mounted, query: &str, spaces: usize) -> PathBuf {
    let name = format!("source:{query}{}", " ".repeat(spaces));
    mounted.at.join("search").join(name)
}

fn mount(project: &Path) -> Mounted {
    mount_args(project, None, &["--read-only"]).0
}

/// The search section over `project`, `runs` warm runs per figure.
pub fn bench_search(project: &Path, runs: usize) {
    println!("search/source: vs rg -n — {}", project.display());
    if Command::new("rg").arg("--version").output().is_err() {
        println!("  rg not installed (apt-get install ripgrep): nothing to compare with\n");
        return;
    }
    let files = searched_files(project);
    println!(
        "  over the same {} files (the mount's .py and other text files, by name)",
        files.len()
    );
    println!(
        "  {:<40} {:>10} {:>10} {:>8}",
        "", "mount", "rg -n", "ratio"
    );
    let warm = mount(project);
    // Round after round, each query once and spelled with n more trailing spaces (which
    // the search trims): a new file each time, since the kernel keeps a view it read, and
    // never the query just asked, since the mount keeps the last query's matches for the
    // several renders of one `cat`. Either would time a copy, not a search.
    let mut mounts = vec![Vec::new(); QUERIES.len()];
    for n in 1..=runs {
        for (q, query) in QUERIES.iter().enumerate() {
            mounts[q].push(timed(|| read_all(&asked(&warm, query, n))));
        }
    }
    for (query, mount) in QUERIES.iter().zip(mounts) {
        let view = std::fs::read_to_string(asked(&warm, query, 0)).unwrap_or_default();
        let out = run_rg(query, &files);
        let rg = median(
            (0..runs)
                .map(|_| timed(|| drop(run_rg(query, &files))))
                .collect(),
        );
        line(&format!("{query} (warm)"), median(mount), rg);
        let rg_lines = out.map_or(0, |o| o.stdout.iter().filter(|&&b| b == b'\n').count());
        println!(
            "    matching lines: mount {}, rg {rg_lines}",
            mount_total(&view).map_or("?".to_string(), |n| n.to_string())
        );
    }
    drop(warm);
    if !drop_caches() {
        println!("  cold: cannot drop the page cache (not root?)\n");
        return;
    }
    for query in QUERIES {
        let (mut mounts, mut rgs) = (Vec::new(), Vec::new());
        for _ in 0..COLD_RUNS {
            let fresh = mount(project);
            let at = asked(&fresh, query, 0);
            drop_caches();
            mounts.push(timed(|| read_all(&at)));
            drop(fresh);
            drop_caches();
            rgs.push(timed(|| drop(run_rg(query, &files))));
        }
        line(&format!("{query} (cold)"), median(mounts), median(rgs));
    }
    println!();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rg_is_asked_for_every_word_as_the_mount_matches_them() {
        let args = |q: &str| -> Vec<String> {
            rg(q, &[PathBuf::from("a.py")])
                .get_args()
                .map(|a| a.to_string_lossy().into_owned())
                .collect()
        };
        let two = args("def urlopen");
        assert!(
            two.ends_with(&["-i", "-e", "def", "-e", "urlopen", "--", "a.py"].map(String::from))
        );
        assert!(args("Account").contains(&"-s".to_string()));
        assert_eq!(mount_total("# Search: source:x — 1,234 hits\n"), Some(1234));
    }
}
