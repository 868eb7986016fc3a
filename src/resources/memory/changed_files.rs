//! `memory/files/`: the code seen from memory — which past sessions changed which files.
//! `files/` itself lists the files changed most recently and by the most sessions;
//! `files/<project path>/` (a file, or a folder: every part of a path is a directory) lists
//! every session that changed it, newest change first, and the paths under it. The rows are
//! the store's ([`crate::store::memory::session_files`]); paths are relative to each
//! session's folder, so a project path names the file whichever session changed it.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::error::{Error, ErrorKind, Result};
use crate::model::count::plural;
use crate::model::time::Time;
use crate::model::{Child, Entry, Function, Kind, Links, Node, Section};
use crate::resources::memory::views::{cut_to, session_dir};
use crate::store::Store;
use crate::store::memory::SessionRow;
use crate::store::memory::changed::{ChangedFile, FileOrder};
use crate::tree::glance::Glance;
use crate::tree::resource::Resource;

/// Files listed under each heading of `files/` (the view is pruned to the budget too).
const TOP: usize = 12;
/// Sessions listed in a file's view.
const LISTED: usize = 50;
/// Every changed path is read to list a folder: a store's changed files number in the
/// thousands, not per entry. Past this many, the least recent are left out of listings.
const PATHS: usize = 100_000;

/// `memory/files/`.
pub struct Files {
    store: Arc<Store>,
    links: Links,
}

impl Files {
    pub fn new(store: Arc<Store>, links: Links) -> Self {
        Files { store, links }
    }

    fn here(&self, path: &[&str]) -> String {
        let mut dir = vec!["memory", "files"];
        dir.extend_from_slice(path);
        self.links.dir(&dir)
    }

    fn missing(&self, path: &[&str]) -> Error {
        Error::not_found(format!(
            "{} does not exist: no past session changed it ({} lists the files sessions changed)",
            self.here(path),
            self.links.to("memory/files/_entry.md")
        ))
    }

    /// What lies under `path`: whether a changed file is `path` itself, and the next
    /// part of each changed path below it with how many changed files lie there.
    fn under(&self, path: &[&str]) -> Result<(bool, BTreeMap<String, usize>)> {
        let prefix: String = path.iter().map(|p| format!("{p}/")).collect();
        let whole = path.join("/");
        let files = self
            .store
            .memory(|m| m.changed_files(FileOrder::Recent, PATHS))?;
        let mut exact = false;
        let mut next: BTreeMap<String, usize> = BTreeMap::new();
        for file in files.iter().filter(|f| !f.path.starts_with('/')) {
            if !path.is_empty() && file.path == whole {
                exact = true;
            } else if let Some(rest) = file.path.strip_prefix(&prefix) {
                let part = rest.split('/').next().unwrap_or(rest);
                *next.entry(part.to_string()).or_default() += 1;
            }
        }
        Ok((exact, next))
    }

    fn line(&self, file: &ChangedFile) -> String {
        let link = match file.path.starts_with('/') {
            true => format!("`{}`", file.path),
            false => format!("`{}`", self.here(&file.path.split('/').collect::<Vec<_>>())),
        };
        format!(
            "{link} — {} session{}{}",
            file.sessions,
            plural(file.sessions),
            latest(file.latest)
        )
    }

    fn session_line(&self, row: &SessionRow, changed: Option<Time>) -> String {
        let day = changed.map_or(row.day.clone(), |t| day(&t));
        let title = match row.record.title.as_str() {
            "" => "(untitled)".to_string(),
            title => cut_to(title, 60),
        };
        format!("{day} `{}` — {title}", session_dir(row, &self.links))
    }

    fn top(&self) -> Result<Entry> {
        let recent = self
            .store
            .memory(|m| m.changed_files(FileOrder::Recent, TOP))?;
        let often = self
            .store
            .memory(|m| m.changed_files(FileOrder::Often, TOP))?;
        let section = |heading: &str, files: &[ChangedFile]| Section {
            heading: heading.into(),
            items: files.iter().map(|f| self.line(f)).collect(),
            empty: "No past session changed a file yet (edits and writes of imported \
                    sessions show here)."
                .into(),
            ..Section::default()
        };
        Ok(Entry {
            title: "memory/files — the files past sessions changed".into(),
            about: vec![
                "Paths are relative to the folder each session ran in; a path from \
                 elsewhere stays absolute."
                    .into(),
            ],
            functions: vec![
                Function::new(
                    format!("cat {}", self.links.to("memory/files/<path>/_entry.md")),
                    "see who changed a file or folder",
                    "every session that changed it, newest first",
                ),
                Function::new(
                    format!(
                        "cat \"{}\"",
                        self.links.to("search/memory:file:<path, : for /> <words>")
                    ),
                    "search those sessions",
                    "hits from the sessions that changed it",
                ),
            ],
            sections: vec![
                section("Changed most recently", &recent),
                section("Changed by the most sessions", &often),
            ],
            ..Entry::default()
        })
    }

    fn changed(&self, path: &[&str]) -> Result<Entry> {
        let (exact, next) = self.under(path)?;
        if !exact && next.is_empty() {
            return Err(self.missing(path));
        }
        let whole = path.join("/");
        let pattern = match exact {
            true => whole.clone(),
            false => format!("{whole}/"),
        };
        let (rows, total) = self
            .store
            .memory(|m| m.sessions_changing(&pattern, LISTED))?;
        let mut sections = vec![Section {
            heading: "Sessions that changed it, newest change first".into(),
            items: rows
                .iter()
                .map(|(row, changed)| self.session_line(row, *changed))
                .collect(),
            empty: "None.".into(),
            ..Section::default()
        }];
        if !next.is_empty() {
            sections.push(Section::children("Under it", &children(next), ""));
        }
        let shown = match total > rows.len() {
            true => format!(" ({} shown)", rows.len()),
            false => String::new(),
        };
        Ok(Entry {
            title: format!(
                "memory/files/{pattern} — changed in {total} past session{}{shown}",
                plural(total)
            ),
            functions: vec![Function::new(
                format!(
                    "cat \"{}\"",
                    self.links.to(&format!(
                        "search/memory:file:{} <words>",
                        pattern.replace('/', ":")
                    ))
                ),
                "search those sessions",
                "hits with the turns around them",
            )],
            sections,
            ..Entry::default()
        })
    }
}

fn children(next: BTreeMap<String, usize>) -> Vec<Child> {
    next.into_iter()
        .map(|(name, n)| Child::new(name, Kind::Dir, format!("{n} changed file{}", plural(n))))
        .collect()
}

fn day(time: &Time) -> String {
    time.to_string().chars().take(10).collect()
}

fn latest(time: Option<Time>) -> String {
    time.map(|t| format!(", latest {}", day(&t)))
        .unwrap_or_default()
}

impl Resource for Files {
    fn name(&self) -> &'static str {
        "files"
    }

    fn summary(&self) -> Result<String> {
        let files = self
            .store
            .memory(|m| m.changed_files(FileOrder::Recent, PATHS))?;
        Ok(format!(
            "the files past sessions changed: {} file{}",
            files.len(),
            plural(files.len())
        ))
    }

    fn stat(&self, _glance: &Glance, path: &[&str]) -> Result<Node> {
        if path.is_empty() {
            return Ok(Node::dir(false));
        }
        let (exact, next) = self.under(path)?;
        match exact || !next.is_empty() {
            true => Ok(Node::dir(false)),
            false => Err(self.missing(path)),
        }
    }

    fn list(&self, _glance: &Glance, path: &[&str]) -> Result<Vec<Child>> {
        let (exact, next) = self.under(path)?;
        if !path.is_empty() && !exact && next.is_empty() {
            return Err(self.missing(path));
        }
        Ok(children(next))
    }

    fn read(&self, glance: &Glance, path: &[&str]) -> Result<Vec<u8>> {
        self.stat(glance, path)?;
        Err(Error::new(
            ErrorKind::IsADirectory,
            format!("{} is a directory: read its _entry.md", self.here(path)),
        ))
    }

    fn entry(&self, _glance: &Glance, path: &[&str]) -> Result<Entry> {
        match path {
            [] => self.top(),
            _ => self.changed(path),
        }
    }
}

#[cfg(test)]
mod tests;
