//! `source/changes/`: the project's changes as git sees them, read-only (commits stay the
//! user's). Its `_entry.md` is `git status` in a few lines — each changed path with what
//! happened to it and its added and removed lines; `status.txt` is `git status --short`
//! (the review in a line per path); `diff.patch` is the whole `git diff
//! HEAD`; `files/<path>.diff` one diff per changed path, at the path's place (an untracked
//! file's as all added). A project outside any git repository says so. git itself is run
//! (`git.rs` says why, and how it is kept from running anyone else's program).

mod git;

use std::sync::Arc;

use crate::error::{Error, ErrorKind, Result};
use crate::model::links::Links;
use crate::model::{Child, Entry, Function, Kind, Node, Section};
use crate::resources::source::project::Project;
use crate::tree::glance::Glance;
use crate::tree::resource::Resource;

pub use git::{Change, ChangeKind, Git};

/// The folder's name under `source/`.
pub const CHANGES: &str = "changes";
/// The whole diff.
const DIFF: &str = "diff.patch";
/// `git status --short`.
const STATUS: &str = "status.txt";
/// The folder of one diff per changed path.
const FILES: &str = "files";
/// What a path's diff file adds to its name.
const SUFFIX: &str = ".diff";

/// `source/changes/`.
pub struct ChangesDir {
    project: Arc<Project>,
    links: Links,
}

impl ChangesDir {
    pub fn new(project: Arc<Project>, links: Links) -> Self {
        ChangesDir { project, links }
    }

    fn git(&self) -> Result<Git> {
        Git::open(&self.project.root).map_err(Error::not_found)
    }

    fn changes(&self) -> Result<(Git, Vec<Change>)> {
        let git = self.git()?;
        let changes = git.changes().map_err(Error::internal)?;
        Ok((git, changes))
    }

    /// The change whose diff file `path` (under `files/`) is.
    fn change_at(&self, path: &[&str]) -> Result<(Git, Change)> {
        let (git, changes) = self.changes()?;
        let change = Self::diffed(&changes, path).cloned();
        change.map(|c| (git, c)).ok_or_else(|| self.missing(path))
    }

    /// Of `changes`, the one whose diff file `path` (under `files/`) is.
    fn diffed<'a>(changes: &'a [Change], path: &[&str]) -> Option<&'a Change> {
        let joined = path.join("/");
        let changed = joined.strip_suffix(SUFFIX)?;
        changes.iter().find(|c| c.path == changed)
    }

    /// Why `files/<path>` is not there.
    fn missing(&self, path: &[&str]) -> Error {
        Error::not_found(format!(
            "source/{CHANGES}/{FILES}/{} is no changed path's diff: {} lists them",
            path.join("/"),
            self.links.to(&format!("source/{CHANGES}/_entry.md"))
        ))
    }

    /// The names right under `files/<folder>` (`folder` empty: `files/` itself): the
    /// changed paths' diffs there and the folders that lead to more.
    fn members(changes: &[Change], folder: &[&str]) -> Vec<(String, Kind)> {
        let mut members: Vec<(String, Kind)> = Vec::new();
        for change in changes {
            let parts: Vec<&str> = change.path.split('/').collect();
            if parts.len() <= folder.len() || parts[..folder.len()] != *folder {
                continue;
            }
            let rest = &parts[folder.len()..];
            let member = match rest {
                [file] => (format!("{file}{SUFFIX}"), Kind::Document),
                [dir, ..] => (dir.to_string(), Kind::Dir),
                [] => continue,
            };
            if !members.contains(&member) {
                members.push(member);
            }
        }
        members
    }

    /// One line of `git status`: `modified src/ledger/rates.py (+3 −1)`.
    fn status_line(&self, change: &Change) -> String {
        let lines = match change.lines {
            Some((added, removed)) => format!(" (+{added} −{removed})"),
            None if change.kind == ChangeKind::Untracked => String::new(),
            None => " (binary)".into(),
        };
        format!(
            "{} `{}`{lines} — {}",
            change.kind.word(),
            change.path,
            self.links
                .to(&format!("source/{CHANGES}/{FILES}/{}{SUFFIX}", change.path))
        )
    }
}

impl Resource for ChangesDir {
    fn name(&self) -> &'static str {
        CHANGES
    }

    fn summary(&self) -> Result<String> {
        Ok("the project's changes as git sees them: status, the whole diff, one per file".into())
    }

    fn stat(&self, _glance: &Glance, path: &[&str]) -> Result<Node> {
        // git's answers change with commits and checkouts, which nothing announces: the
        // kernel must ask each time.
        let node = |node: Node| node.dated(true);
        match path {
            [] | [FILES] => Ok(node(Node::dir(false))),
            [DIFF] | [STATUS] => {
                self.git()?;
                Ok(node(Node::document(false)))
            }
            [FILES, rest @ ..] => {
                let (_, changes) = self.changes()?;
                if Self::diffed(&changes, rest).is_some() {
                    Ok(node(Node::document(false)))
                } else if !Self::members(&changes, rest).is_empty() {
                    Ok(node(Node::dir(false)))
                } else {
                    Err(self.missing(rest))
                }
            }
            _ => Err(Error::not_found(format!(
                "source/{CHANGES}/{} does not exist: source/{CHANGES}/ holds {STATUS}, {DIFF} and {FILES}/",
                path.join("/")
            ))),
        }
    }

    fn list(&self, _glance: &Glance, path: &[&str]) -> Result<Vec<Child>> {
        match path {
            [] => Ok(match self.git() {
                Ok(_) => vec![
                    Child::new(STATUS, Kind::Document, "git status --short"),
                    Child::new(DIFF, Kind::Document, "the whole git diff HEAD"),
                    Child::new(FILES, Kind::Dir, "one diff per changed path"),
                ],
                Err(_) => Vec::new(),
            }),
            [FILES, rest @ ..] => {
                let (_, changes) = self.changes()?;
                Ok(Self::members(&changes, rest)
                    .into_iter()
                    .map(|(name, kind)| Child::new(name, kind, ""))
                    .collect())
            }
            _ => Err(Error::new(
                ErrorKind::NotADirectory,
                format!("source/{CHANGES}/{} is a file", path.join("/")),
            )),
        }
    }

    fn read(&self, _glance: &Glance, path: &[&str]) -> Result<Vec<u8>> {
        match path {
            [DIFF] => self.git()?.diff_head().map_err(Error::not_found),
            [STATUS] => self.git()?.status_short().map_err(Error::internal),
            [FILES, rest @ ..] => {
                let (git, change) = self.change_at(rest)?;
                git.diff_of(&change).map_err(Error::internal)
            }
            _ => Err(Error::new(
                ErrorKind::IsADirectory,
                format!(
                    "source/{CHANGES}/{} is a directory: read its _entry.md",
                    path.join("/")
                ),
            )),
        }
    }

    fn entry(&self, _glance: &Glance, _path: &[&str]) -> Result<Entry> {
        let here = |name: &str| self.links.to(&format!("source/{CHANGES}/{name}"));
        let (git, changes) = match self.changes() {
            Ok(found) => found,
            Err(why) => {
                return Ok(Entry {
                    title: format!("source/{CHANGES} — no git view"),
                    about: vec![why.message],
                    ..Entry::default()
                });
            }
        };
        let count = |kind: ChangeKind| changes.iter().filter(|c| c.kind == kind).count();
        let counts: Vec<String> = [
            ChangeKind::Modified,
            ChangeKind::Added,
            ChangeKind::Deleted,
            ChangeKind::Renamed,
            ChangeKind::Untracked,
        ]
        .into_iter()
        .filter(|k| count(*k) > 0)
        .map(|k| format!("{} {}", count(k), k.word()))
        .collect();
        let title = if counts.is_empty() {
            format!("source/{CHANGES} — git status: nothing changed")
        } else {
            format!("source/{CHANGES} — git status: {}", counts.join(", "))
        };
        let mut about = Vec::new();
        if !git.has_head() {
            about.push("The repository has no commit yet: every file is new.".into());
        }
        Ok(Entry {
            title,
            about,
            functions: vec![
                Function::new(
                    format!("cat {}", here(STATUS)),
                    "review in a line per path",
                    "git status --short, exactly",
                ),
                Function::new(
                    format!("cat {}", here(DIFF)),
                    "read the whole diff",
                    "git diff HEAD, exactly",
                ),
                Function::new(
                    format!("cat {}", here(&format!("{FILES}/<path>{SUFFIX}"))),
                    "read one path's diff",
                    "its git diff HEAD (an untracked file's as all added)",
                ),
            ],
            sections: vec![Section {
                heading: "Changed".into(),
                items: changes.iter().map(|c| self.status_line(c)).collect(),
                empty: "Nothing: the working tree is as HEAD has it.".into(),
                ..Section::default()
            }],
            advanced: vec![
                "Read-only: commit, stash or check out in the project's folder with git itself."
                    .into(),
            ],
        })
    }
}
