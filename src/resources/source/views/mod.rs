//! The views `source/` generates, owned by [`Views`]: the entries of its folders
//! (`folders.rs`, described by `contents.rs`), of modules and classes (`members.rs`), of
//! `tests/`, the line `source/` shows in listings, and its part of the root dashboard
//! (`dashboard.rs`). A view reads the project, never changes it.

mod contents;
mod dashboard;
mod folders;
mod members;

/// A module's last two commits in one line (`**Commits**: a1b2c3d 2026-11-20 Fix the
/// rounding; 9f8e7d6 2026-10-02 Add fees`), when the project is in a git repository that
/// may be asked and the module has any.
fn commits_line(project: &std::path::Path, file: &str) -> Option<String> {
    let git = crate::resources::source::changes::Git::open(project).ok()?;
    let commits = git.log_of(std::path::Path::new(file), 2).ok()?;
    (!commits.is_empty()).then(|| format!("**Commits**: {}", commits.join("; ")))
}

#[cfg(test)]
mod tests;

use std::sync::Arc;

use crate::error::Result;
use crate::model::count::plural;
use crate::model::links::Links;
use crate::model::{Child, Entry, Section};
use crate::resources::source::changed_in;
use crate::resources::source::edit::Editor;
use crate::resources::source::modules::Modules;
use crate::resources::source::places::in_tree::tree_path_of;
use crate::resources::source::places::paths::{Resolved, TESTS};
use crate::resources::source::project::{EntryKind, Project};
use crate::resources::source::runner::Runner;
use crate::resources::source::settings::file::SettingsFile;
use crate::resources::source::warm_up::Indexing;
use crate::store::Store;
use crate::tree::glance::Glance;
use crate::tree::resource::Resource;
use contents::readable_by_its_readers;

/// What source/'s views read, each shared with the part of source/ that keeps it; made by
/// source/'s map, which holds them all.
pub(super) struct Views {
    pub(super) project: Arc<Project>,
    pub(super) modules: Arc<Modules>,
    pub(super) links: Links,
    /// Which sessions changed a module, for its view.
    pub(super) store: Arc<Store>,
    /// Its edits and the imports it knows to fail.
    pub(super) editor: Arc<Editor>,
    pub(super) runner: Arc<Runner>,
    pub(super) settings: Arc<SettingsFile>,
    pub(super) indexing: Arc<Indexing>,
    /// The project's name.
    pub(super) name: String,
    /// The resourcespaces whose summaries the root view quotes (deps/ and config/ among
    /// them).
    pub(super) quoted: Vec<Arc<dyn Resource>>,
}

impl Views {
    /// `ledger: 1 top-level package, 0 top-level modules, 1 test folder`; the last test run
    /// after it.
    pub(super) fn state_line(&self) -> String {
        let top = self.project.top_level(None);
        let packages = top.iter().filter(|e| e.kind == EntryKind::Dir).count();
        let modules = top.iter().filter(|e| e.kind == EntryKind::Module).count();
        let folders = self.project.test_dirs().len();
        let last_run = self
            .runner
            .last_run()
            .map(|run| format!("; last test run {run}"))
            .unwrap_or_default();
        format!(
            "{}: {packages} top-level package{}, {modules} top-level module{}, {folders} test folder{}{last_run}",
            self.name,
            plural(packages),
            plural(modules),
            plural(folders)
        )
    }

    /// The entry of the directory at `path` as listings spell it, resolved to `place`;
    /// `listed` gives the members of `tests/`, which its entry shows.
    pub(super) fn entry(
        &self,
        glance: Option<&Glance>,
        path: &[&str],
        place: &Resolved,
        listed: impl FnOnce() -> Result<Vec<Child>>,
    ) -> Result<Entry> {
        let mut entry = self.entry_of(glance, path, place, listed)?;
        if path == [TESTS] {
            entry.functions.insert(0, self.runner.run_and_wait());
            entry.about.push(self.runner.how_tests_run());
        }
        if path.is_empty()
            && let Some(progress) = self.indexing.progress()
        {
            entry
                .about
                .push(format!("Source: {progress} in the background."));
        }
        Ok(entry)
    }

    fn entry_of(
        &self,
        glance: Option<&Glance>,
        path: &[&str],
        place: &Resolved,
        listed: impl FnOnce() -> Result<Vec<Child>>,
    ) -> Result<Entry> {
        let here = self.links.folder(&tree_path_of(path));
        match place {
            Resolved::Root => Ok(self.root(glance, &here)),
            Resolved::TestsRoot => {
                let folders = self.project.test_dirs().len();
                let homes = (folders == 0).then(|| self.test_homes());
                let (title, none) = match &homes {
                    Some(homes) if homes.is_empty() => (
                        "source/tests — the test runner; the project has no tests yet".to_string(),
                        format!(
                            "None yet: a test module written here (`{here}test_<name>.py`) or a \
                             folder made here starts the project's `tests/` folder"
                        ),
                    ),
                    Some(homes) => (
                        format!(
                            "source/tests — the test runner; pytest finds the tests where the \
                             project keeps them{homes}"
                        ),
                        format!("No test folder: the test modules are kept beside the code{homes}"),
                    ),
                    None => (
                        format!("{} — {folders} test folders", tree_path_of([TESTS])),
                        String::new(),
                    ),
                };
                Ok(Entry {
                    title,
                    sections: vec![Section::children("Test folders", &listed()?, &none)],
                    ..Entry::default()
                })
            }
            Resolved::Dir { disk, dotted } => Ok(self.package(glance, disk, dotted, &here)),
            Resolved::Members {
                module,
                dotted,
                parent,
                disk,
                ..
            } => {
                let file = disk.strip_prefix(&self.project.root).unwrap_or(disk);
                let file = file.display().to_string();
                let search = self.links.to("search/");
                let mut entry = members::members(module, dotted, *parent, &here, &file, &search);
                if let Some(line) = changed_in::entry_line(&self.store, &self.links, &file) {
                    entry.about.push(line);
                }
                let qualname = parent
                    .and_then(|i| module.index.symbols.get(i))
                    .map(|s| crate::python::Dotted::new(&s.qualname).to_string());
                let named = match &qualname {
                    Some(q) => format!("{dotted}.{q}"),
                    None => dotted.to_string(),
                };
                if let Some(line) = self.runner.tests_line(&file, qualname.as_deref(), &named) {
                    entry.about.push(line);
                }
                if parent.is_none()
                    && let Some(line) = commits_line(&self.project.root, &file)
                {
                    entry.about.push(line);
                }
                if parent.is_none()
                    && let Some(failure) = self.editor.known_import_failure(&dotted.to_string())
                {
                    // The view is as private as the module; the exception may come from a more
                    // private module it imports, whose text it must not quote.
                    // A traceback cut to its last lines may name no file: unsure, not quoted.
                    let quotable = !failure.files.is_empty()
                        && failure
                            .files
                            .iter()
                            .all(|quoted| readable_by_its_readers(glance, quoted, disk));
                    let said = match quotable {
                        true => failure.said(&failure.line),
                        false => failure.said(
                            "raised in a module more private than this one (the daemon's log \
                             has it)",
                        ),
                    };
                    entry.about.insert(0, said);
                }
                Ok(entry)
            }
            _ => Ok(Entry::default()),
        }
    }
}
