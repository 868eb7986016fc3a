//! git itself, run read-only for `source/changes/`: the project's changes as `git status`
//! and `git diff HEAD` give them, and a module's last commits.
//!
//! Why the `git` program and not a crate: what the agent reads must be what `git diff HEAD`
//! prints in the checkout, byte for byte, under the user's own configuration (rename
//! detection, `diff.algorithm`, attributes); a reimplementation drifts from it, and
//! libgit2 would add a C build for output git already gives.
//!
//! git runs as the mount's owner, so nothing another user can write may choose what it
//! runs: the `git` program is found on `PATH` only in folders that are the owner's or
//! root's alone, the repository's git folder and its `config` must be the owner's alone
//! (a planted `core.fsmonitor` or filter would run their program), and every command
//! takes no optional lock (`GIT_OPTIONAL_LOCKS=0`: `status` never rewrites the index), no
//! system configuration, no fsmonitor, no external diff and no textconv.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::trust::owner_alone;

/// A repository holding the project, ready to be asked.
#[derive(Debug, Clone)]
pub struct Git {
    program: PathBuf,
    /// The project's folder: where git runs, and what every answer is limited to.
    project: PathBuf,
    /// Whether the repository has a commit: `HEAD` to compare with.
    has_head: bool,
}

/// One changed path, as `git status` and `git diff HEAD --numstat` tell it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// From the project's folder.
    pub path: String,
    pub kind: ChangeKind,
    /// Lines added and removed against `HEAD`; `None` for a binary file.
    pub lines: Option<(u64, u64)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ChangeKind {
    Modified,
    Added,
    Deleted,
    Renamed,
    Untracked,
}

impl ChangeKind {
    pub fn word(self) -> &'static str {
        match self {
            ChangeKind::Modified => "modified",
            ChangeKind::Added => "added",
            ChangeKind::Deleted => "deleted",
            ChangeKind::Renamed => "renamed",
            ChangeKind::Untracked => "untracked",
        }
    }
}

impl Git {
    /// The repository that holds `project`, or why there is none to ask: not a git
    /// repository, no `git` program that may run, or a repository another user could
    /// have changed.
    pub fn open(project: &Path) -> Result<Git, String> {
        let not_in_git = || {
            format!(
                "{} is not in a git repository: `git init` there to start one",
                project.display()
            )
        };
        // Asked by every module view: a look for `.git` costs a stat a folder, a git
        // process a millisecond or more.
        if !project.ancestors().any(|dir| dir.join(".git").exists()) {
            return Err(not_in_git());
        }
        let program = program()?;
        let probe = Git {
            program,
            project: project.to_path_buf(),
            has_head: false,
        };
        let git_dir = probe
            .text(&["rev-parse", "--absolute-git-dir"])
            .map_err(|_| not_in_git())?;
        let git_dir = PathBuf::from(git_dir.trim_end());
        for path in [git_dir.clone(), git_dir.join("config")] {
            owner_alone(&path).map_err(|why| {
                format!(
                    "git is not run in this repository: {why} (its configuration could run \
                     another user's program as you)"
                )
            })?;
        }
        let has_head = probe
            .text(&["rev-parse", "--verify", "--quiet", "HEAD"])
            .is_ok();
        Ok(Git { has_head, ..probe })
    }

    /// Whether the repository has a commit to compare with.
    pub fn has_head(&self) -> bool {
        self.has_head
    }

    /// Every changed path under the project's folder, in git's order.
    pub fn changes(&self) -> Result<Vec<Change>, String> {
        let status = self.bytes(&[
            "status",
            "--porcelain=v1",
            "-z",
            "--untracked-files=all",
            "--no-renames",
            "--",
            ".",
        ])?;
        let prefix = self.text(&["rev-parse", "--show-prefix"])?;
        let prefix = prefix.trim_end();
        let counts = if self.has_head {
            numstat(&self.bytes(&[
                "diff",
                "HEAD",
                "--numstat",
                "-z",
                "--no-renames",
                "--relative",
                "--no-ext-diff",
                "--no-textconv",
            ])?)
        } else {
            Vec::new()
        };
        let mut changes = Vec::new();
        for entry in status.split(|b| *b == 0).filter(|e| e.len() > 3) {
            let entry = String::from_utf8_lossy(entry);
            let (code, path) = entry.split_at(3);
            let path = path.strip_prefix(prefix).unwrap_or(path).to_string();
            let kind = match code.trim() {
                "??" => ChangeKind::Untracked,
                c if c.contains('D') => ChangeKind::Deleted,
                c if c.contains('A') => ChangeKind::Added,
                c if c.contains('R') => ChangeKind::Renamed,
                _ => ChangeKind::Modified,
            };
            let lines = counts
                .iter()
                .find(|(p, _)| *p == path)
                .and_then(|(_, lines)| *lines);
            changes.push(Change { path, kind, lines });
        }
        Ok(changes)
    }

    /// `git status --short` of the project's folder, as git prints it there.
    pub fn status_short(&self) -> Result<Vec<u8>, String> {
        self.bytes(&["status", "--short", "--", "."])
    }

    /// `git diff HEAD` of the project's folder, as git prints it there.
    pub fn diff_head(&self) -> Result<Vec<u8>, String> {
        if !self.has_head {
            return Err(
                "the repository has no commit yet: there is no HEAD to compare with".into(),
            );
        }
        self.bytes(&DIFF_HEAD)
    }

    /// The diff of one changed path (from the project's folder): against `HEAD`, or the
    /// whole file as added when git does not track it.
    pub fn diff_of(&self, change: &Change) -> Result<Vec<u8>, String> {
        if change.kind == ChangeKind::Untracked || !self.has_head {
            // `--no-index` exits 1 when the files differ, as they always do here.
            return self.run(
                &[
                    "diff",
                    "--no-index",
                    "--no-color",
                    "--no-ext-diff",
                    "--no-textconv",
                    "--",
                    "/dev/null",
                    &change.path,
                ],
                &[0, 1],
            );
        }
        let mut args = DIFF_HEAD.to_vec();
        args.push(&change.path);
        self.bytes(&args)
    }

    /// The last `most` commits that changed `path` (from the project's folder), one line
    /// each: `a1b2c3d 2026-11-20 Fix the rounding of fees`.
    pub fn log_of(&self, path: &Path, most: usize) -> Result<Vec<String>, String> {
        if !self.has_head {
            return Ok(Vec::new());
        }
        let most = format!("-{most}");
        let path = path.to_string_lossy();
        let text = self.text(&[
            "log",
            &most,
            "--no-color",
            "--format=%h %as %s",
            "--",
            &path,
        ])?;
        Ok(text.lines().map(str::to_string).collect())
    }

    fn text(&self, args: &[&str]) -> Result<String, String> {
        self.bytes(args)
            .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
    }

    fn bytes(&self, args: &[&str]) -> Result<Vec<u8>, String> {
        self.run(args, &[0])
    }

    /// git's standard output for `args`, run in the project's folder, when it exits with
    /// one of `ok`; else what it said.
    fn run(&self, args: &[&str], ok: &[i32]) -> Result<Vec<u8>, String> {
        let output = Command::new(&self.program)
            .args([
                "-c",
                "core.fsmonitor=false",
                "-c",
                "core.untrackedCache=false",
            ])
            .args(args)
            .current_dir(&self.project)
            .env("GIT_OPTIONAL_LOCKS", "0")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_TERMINAL_PROMPT", "0")
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("{} could not run: {e}", self.program.display()))?;
        match output.status.code() {
            Some(code) if ok.contains(&code) => Ok(output.stdout),
            _ => Err(format!(
                "git {} failed: {}",
                args.first().copied().unwrap_or_default(),
                String::from_utf8_lossy(&output.stderr).trim()
            )),
        }
    }
}

/// `git diff HEAD` of the project's folder, as git prints it to a file.
const DIFF_HEAD: [&str; 7] = [
    "diff",
    "HEAD",
    "--no-color",
    "--no-ext-diff",
    "--no-textconv",
    "--relative",
    "--",
];

/// The `git` program on `PATH` in a folder that is the owner's or root's alone.
fn program() -> Result<PathBuf, String> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let found = std::env::split_paths(&path)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join("git"))
        .find(|git| git.is_file());
    let Some(git) = found else {
        return Err("git is not installed (no git on PATH)".into());
    };
    owner_alone(&git).map_err(|why| format!("{} is not run: {why}", git.display()))?;
    Ok(git)
}

/// `git diff --numstat -z` read: each path with its added and removed lines (`None` for a
/// binary file, which git counts as `-`).
fn numstat(bytes: &[u8]) -> Vec<(String, Option<(u64, u64)>)> {
    bytes
        .split(|b| *b == 0)
        .filter_map(|record| {
            let record = String::from_utf8_lossy(record);
            let mut fields = record.splitn(3, '\t');
            let (added, removed, path) = (fields.next()?, fields.next()?, fields.next()?);
            let lines = added.parse().ok().zip(removed.parse().ok());
            Some((path.to_string(), lines))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numstat_reads_counts_and_binary_files() {
        let read = numstat(b"3\t1\tsrc/a.py\0-\t-\tlogo.png\0");
        assert_eq!(
            read,
            [
                ("src/a.py".to_string(), Some((3, 1))),
                ("logo.png".to_string(), None)
            ]
        );
    }
}
