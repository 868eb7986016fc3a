//! What the tree leaves out of the project: version control's own folders, virtualenvs,
//! build output and caches whatever `.gitignore` says, then the `.gitignore` of each folder
//! on the way (the nearest first, as git reads them), the top's `.gitignore`,
//! `.git/info/exclude` and the settings' own `project.ignore` lines. Other dotfiles and
//! dotfolders (`.github/`, `.pre-commit-config.yaml`, `.gitignore` itself) are the
//! project's as much as its README, and are shown.

use std::path::Path;
use std::sync::Arc;
use std::time::SystemTime;

use ignore::gitignore::{Gitignore, GitignoreBuilder};

use super::Project;

/// Directory names never shown, whatever `.gitignore` says.
const SKIPPED_DIRS: &[&str] = &[
    ".git",
    ".hg",
    ".svn",
    ".homespace",
    "__pycache__",
    ".venv",
    "venv",
    ".tox",
    ".nox",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    "build",
    "dist",
    "node_modules",
    "site-packages",
    "dist-packages",
    ".eggs",
    ".hypothesis",
    ".pytype",
    ".pyre",
    ".ipynb_checkpoints",
];

/// File names never shown: a worktree's or submodule's `.git` link and tools' records of a
/// machine, never a project's content.
const SKIPPED_FILES: &[&str] = &[".git", ".DS_Store", ".coverage"];

/// The size and modification time of `.gitignore` and `.git/info/exclude`, when there.
pub(super) type IgnoreStamp = [Option<(u64, Option<std::time::SystemTime>)>; 2];

/// A folder's own `.gitignore` as read: its size and modification time (`None`: there is
/// none), and its rules.
pub(super) type NestedIgnore = (Option<(u64, Option<SystemTime>)>, Option<Arc<Gitignore>>);

/// Folders whose `.gitignore` is kept at once; past it the keeping starts afresh.
const NESTED_MOST: usize = 8192;

fn stamp_of(file: &Path) -> Option<(u64, Option<SystemTime>)> {
    std::fs::metadata(file)
        .ok()
        .map(|m| (m.len(), m.modified().ok()))
}

/// The project's own ignore rules: `.gitignore` at its top and `.git/info/exclude`.
pub(super) fn gitignore(root: &Path) -> Gitignore {
    let mut builder = GitignoreBuilder::new(root);
    // A malformed .gitignore line is skipped by the builder; the rest still applies.
    let _ = builder.add(root.join(".gitignore"));
    let _ = builder.add(root.join(".git").join("info").join("exclude"));
    builder.build().unwrap_or_else(|_| Gitignore::empty())
}

impl Project {
    /// Leave out what `patterns` (.gitignore lines) match, from now on, on top of
    /// .gitignore; an invalid pattern changes nothing and is named.
    pub fn set_extra_ignore(&self, patterns: &IgnoreLines) -> std::result::Result<(), String> {
        let extra = patterns.matcher(&self.root)?;
        if let Ok(mut slot) = self.extra.write() {
            *slot = extra;
        }
        self.ignore_generation
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        // The top-level entries and listings were computed with the old patterns.
        if let Ok(mut top) = self.top.lock() {
            *top = None;
        }
        self.listed.forget();
        Ok(())
    }

    /// Read `.gitignore` and `.git/info/exclude` again, when either changed (an edit
    /// through the mount or outside it): what they hide is hidden from the next listing.
    pub fn reload_gitignore(&self) {
        let stamp = self.ignore_stamp();
        {
            let mut read = crate::tree::lock(&self.ignore_read);
            if *read == stamp {
                return;
            }
            *read = stamp;
        }
        if let Ok(mut slot) = self.ignore.write() {
            *slot = gitignore(&self.root);
        }
        self.ignore_generation
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if let Ok(mut top) = self.top.lock() {
            *top = None;
        }
        self.listed.forget();
    }

    /// The rules of folder `dir`'s own `.gitignore` (a folder below the top), read once
    /// and kept until [`Project::forget_changed_nested_ignores`] finds it changed.
    fn nested_ignore(&self, dir: &Path) -> Option<Arc<Gitignore>> {
        let mut kept = crate::tree::lock(&self.nested_ignores);
        if let Some((_, rules)) = kept.get(dir) {
            return rules.clone();
        }
        let file = dir.join(".gitignore");
        let stamp = stamp_of(&file);
        let rules = stamp.map(|_| {
            let mut builder = GitignoreBuilder::new(dir);
            // A malformed line is skipped by the builder; the rest still applies.
            let _ = builder.add(&file);
            Arc::new(builder.build().unwrap_or_else(|_| Gitignore::empty()))
        });
        if kept.len() >= NESTED_MOST {
            kept.clear();
        }
        kept.insert(dir.to_path_buf(), (stamp, rules.clone()));
        rules
    }

    /// Forget the folders' own `.gitignore` rules when one of them changed, came or went
    /// since read: what they hide is decided afresh. Whether any did.
    pub(super) fn forget_changed_nested_ignores(&self) -> bool {
        let mut kept = crate::tree::lock(&self.nested_ignores);
        let changed = kept
            .iter()
            .any(|(dir, (stamp, _))| stamp_of(&dir.join(".gitignore")) != *stamp);
        if changed {
            kept.clear();
            self.ignore_generation
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        changed
    }

    /// The size and modification time of the ignore files, as last read.
    pub(super) fn ignore_stamp(&self) -> IgnoreStamp {
        [".gitignore", ".git/info/exclude"].map(|name| {
            std::fs::metadata(self.root.join(name))
                .ok()
                .map(|m| (m.len(), m.modified().ok()))
        })
    }

    /// Changes each time the ignore settings do (see [`Project::set_extra_ignore`]).
    pub fn ignore_generation(&self) -> u64 {
        self.ignore_generation
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Whether `path` (inside the project) is hidden from the tree.
    pub fn is_hidden(&self, path: &Path, is_dir: bool) -> bool {
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            // Names that are not UTF-8 cannot be shown as files of the mount.
            return true;
        };
        if is_dir
            && (SKIPPED_DIRS.contains(&name)
                || name.ends_with(".egg-info")
                || path.join("pyvenv.cfg").exists())
        {
            return true;
        }
        if !is_dir
            && (name.ends_with(".pyc")
                || name.ends_with(".pyo")
                || SKIPPED_FILES.contains(&name)
                || name.starts_with(".coverage."))
        {
            return true;
        }
        // Each folder's own .gitignore on the way, the nearest first: a pattern there
        // hides; one it negates (`!keep.txt`) re-includes what the rules above it would
        // hide, unless they hide a folder it is in (as git: no file of an excluded folder
        // comes back).
        let mut reincluded = false;
        for dir in path.ancestors().skip(1) {
            if dir == self.root || !dir.starts_with(&self.root) {
                break;
            }
            if let Some(rules) = self.nested_ignore(dir)
                && let Ok(within) = path.strip_prefix(dir)
            {
                let matched = rules.matched_path_or_any_parents(within, is_dir);
                if matched.is_ignore() {
                    return true;
                }
                if matched.is_whitelist() {
                    reincluded = true;
                    break;
                }
            }
        }
        let Ok(rel) = path.strip_prefix(&self.root) else {
            return true;
        };
        let by_top = match (reincluded, rel.parent()) {
            (false, _) => Some((rel, is_dir)),
            (true, Some(folder)) if !folder.as_os_str().is_empty() => Some((folder, true)),
            (true, _) => None,
        };
        by_top.is_some_and(|(rel, is_dir)| {
            self.ignore
                .read()
                .is_ok_and(|ignore| ignore.matched_path_or_any_parents(rel, is_dir).is_ignore())
        })
            // The settings' own lines are the mount's user's: no .gitignore undoes them.
            || self.extra.read().is_ok_and(|extra| {
                extra.matched_path_or_any_parents(rel, is_dir).is_ignore()
            })
    }
}

/// More paths to leave out, as .gitignore lines, on top of the project's .gitignore.
/// Shown (`{:?}`) as the list of lines, as the settings file writes it.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct IgnoreLines(Vec<String>);

impl std::fmt::Debug for IgnoreLines {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl IgnoreLines {
    pub fn new(lines: Vec<String>) -> Self {
        IgnoreLines(lines)
    }

    /// A matcher of these lines relative to `root`, or the invalid ones named.
    pub fn matcher(&self, root: &Path) -> std::result::Result<Gitignore, String> {
        let mut builder = GitignoreBuilder::new(root);
        let mut bad = Vec::new();
        for pattern in &self.0 {
            if let Err(e) = builder.add_line(None, pattern) {
                bad.push(format!("`{pattern}`: {e}"));
            }
        }
        if !bad.is_empty() {
            return Err(bad.join("; "));
        }
        builder.build().map_err(|e| e.to_string())
    }
}
