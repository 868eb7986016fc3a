//! Editing the project through `source/`: a write to a module, a symbol or a data file,
//! creating, removing and renaming them, making and removing folders — each validated
//! whole, carried out as one change of the project's files that is checked by importing
//! what it touched and undone when that fails, and kept in the edit log (`history/`).
//! deps/, config/ and history/'s undo change the project through the [`Editor`] too.

pub(crate) mod change;
pub(crate) mod edit_log;
pub(crate) mod exposure;
mod files;
mod first_tests;
mod folders;
pub(crate) mod import_checker;
pub(crate) mod import_judge;
mod importers;
pub(crate) mod pyproject_change;
mod take_back;
pub(crate) mod text;
mod write;

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use crate::error::{Error, ErrorKind, Result};
use crate::model::Ownership;
use crate::model::links::Links;
use crate::model::names::ENTRY;
use crate::python::Version;
use crate::resources::source::disk::{self, FileLocks, ownership};
use crate::resources::source::modules::Modules;
use crate::resources::source::places::Places;
use crate::resources::source::places::in_tree::tree_path_of;
use crate::resources::source::project::Project;
use crate::resources::source::settings::file::SettingsFile;
use crate::tree::glance::Glance;
use edit_log::EditLog;
use import_judge::ImportJudge;

/// What changes the files of one project.
pub(crate) struct Editor {
    pub(super) project: Arc<Project>,
    /// Where the paths written lead.
    places: Arc<Places>,
    /// The parses a symbol's write is spliced into.
    modules: Arc<Modules>,
    links: Links,
    /// The project's name.
    name: String,
    /// One writer of a project file at a time.
    locks: FileLocks,
    /// The import checks that judge routed edits.
    imports: ImportJudge,
    /// The routed edits of this checkout (shared with history/, which shows them).
    edits: Arc<EditLog>,
    /// The settings that say whether and how edits are checked.
    settings: Arc<SettingsFile>,
    /// The Python version edits must compile on, found at the first edit (finding it may
    /// run the project's interpreter, which must not delay the mount).
    target: OnceLock<Version>,
}

impl Editor {
    pub(crate) fn new(
        project: Arc<Project>,
        places: Arc<Places>,
        modules: Arc<Modules>,
        links: Links,
        name: String,
        edits: Arc<EditLog>,
        settings: Arc<SettingsFile>,
    ) -> Self {
        disk::sweep(&scratch_dir(&project.root));
        Editor {
            project,
            places,
            modules,
            links,
            name,
            locks: FileLocks::default(),
            imports: ImportJudge::default(),
            edits,
            settings,
            target: OnceLock::new(),
        }
    }

    pub(crate) fn project(&self) -> &Project {
        &self.project
    }

    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    pub(crate) fn links(&self) -> &Links {
        &self.links
    }

    /// The routed edits of this checkout.
    pub(crate) fn edits(&self) -> &EditLog {
        &self.edits
    }

    /// The Python version edits must compile on: the project's `requires-python` minimum,
    /// else its interpreter's version (see [`crate::python::target_version`]).
    pub(crate) fn target_version(&self) -> Version {
        *self
            .target
            .get_or_init(|| crate::python::target_version(&self.project.root))
    }

    /// Replace (or create) the project file `path` with `content`, atomically.
    pub(crate) fn write_file(&self, path: &Path, content: &[u8]) -> Result<()> {
        disk::write_atomic(path, content, &scratch_dir(&self.project.root))
    }

    /// What is not a project file (source/ itself, its history and settings) shows what
    /// the project's root directory allows.
    pub(crate) fn root_ownership(&self, glance: Option<&Glance>) -> Ownership {
        ownership(glance, &self.project.root)
    }

    /// `source/<dir>/<path>` does not exist: the error points at `dir`'s entry view, which
    /// `lists` what there is.
    pub(crate) fn missing(&self, dir: &str, path: &[&str], lists: &str) -> Error {
        let entry = self.links.file(&tree_path_of([dir, ENTRY]));
        Error::not_found(format!(
            "{} does not exist: {entry} {lists}",
            tree_path_of(std::iter::once(&dir).chain(path))
        ))
    }
}

/// Where project files are written before being renamed into place.
fn scratch_dir(root: &Path) -> PathBuf {
    root.join(".homespace").join("tmp")
}

/// `source/<dir>/<path>` was read as a file.
pub(crate) fn is_a_dir(dir: &str, path: &[&str]) -> Error {
    Error::new(
        ErrorKind::IsADirectory,
        format!(
            "{} is a directory: read its _entry.md",
            tree_path_of(std::iter::once(&dir).chain(path))
        ),
    )
}

/// `source/<dir>/<path>` was listed as a directory.
pub(crate) fn not_a_dir(dir: &str, path: &[&str]) -> Error {
    Error::new(
        ErrorKind::NotADirectory,
        format!(
            "{} is a file",
            tree_path_of(std::iter::once(&dir).chain(path))
        ),
    )
}
