//! What a folder's view says of each thing in it: a contents table whose rows give up
//! their descriptions before their names, the counts of a folder, and a module's one-line
//! description from its index — never quoting a module more private than its folder.

use std::path::Path;

use super::Views;
use crate::error::Result;
use crate::model::count::{one_or_many, plural};
use crate::model::{Detail, Lighter, Section};
use crate::python::{ModuleIndex, SymbolKind};
use crate::render::size_note_of;
use crate::resources::source::modules::Module;
use crate::resources::source::places::paths::spelled_at_top;
use crate::resources::source::project::{DirKind, DiskEntry, EntryKind};
use crate::resources::source::{defined_names, outline};
use crate::tree::glance::Glance;

/// Rows described in full (docstring, counts, sizes: a parse each); the rest, which the
/// budget cuts anyway unless raised far, are named only, so a package of hundreds of
/// modules does not parse them all for one view.
pub(super) const DETAILED: usize = 40;

/// One row of a contents table, `| name | kind | about |`.
pub(super) struct ContentsRow {
    /// `` `io/` ``, `` `accounts.py` ``.
    name: String,
    kind: &'static str,
    about: String,
    /// Whether it is Python (a module, a package): such rows keep their names longest.
    python: bool,
}

impl ContentsRow {
    /// The row of `name` with its kind and nothing about it.
    pub(super) fn plain(
        views: &Views,
        glance: Option<&Glance>,
        name: &str,
        kind: EntryKind,
        path: &Path,
    ) -> ContentsRow {
        let (name, kind, python) = match kind {
            EntryKind::Dir => {
                let dir = views.project.dir_kind(glance, path);
                let name = match path
                    .parent()
                    .is_some_and(|p| views.project.code_roots.iter().any(|r| r == p))
                {
                    true => spelled_at_top(name),
                    false => name.to_string(),
                };
                let label = views.project.dir_label(dir, path);
                (format!("`{name}/`"), label, dir != DirKind::Folder)
            }
            EntryKind::Module => (format!("`{name}`"), "module", true),
            EntryKind::Data => {
                let name = match path
                    .parent()
                    .is_some_and(|p| views.project.code_roots.iter().any(|r| r == p))
                {
                    true => spelled_at_top(name),
                    false => name.to_string(),
                };
                (format!("`{name}`"), "file", false)
            }
        };
        ContentsRow {
            name,
            kind,
            about: String::new(),
            python,
        }
    }

    /// This row as a plain folder's, whatever Python it holds: beside `src/`, a folder
    /// holds no package of the project (`docs/conf.py`).
    pub(super) fn shown_as_folder(self) -> ContentsRow {
        ContentsRow {
            kind: DirKind::Folder.label(),
            python: false,
            ..self
        }
    }

    /// This row saying `about` of itself.
    pub(super) fn with_about(self, about: String) -> ContentsRow {
        ContentsRow { about, ..self }
    }

    fn line(&self, about: bool) -> String {
        let about = if about { self.about.as_str() } else { "" };
        format!("| {} | {} | {about} |", self.name, self.kind)
    }

    /// A contents table whose rows give up what they say about themselves, then their
    /// place in the table, before a name is dropped — other files' before modules' and
    /// packages', private modules' (`_impl.py`) before public ones'.
    pub(super) fn section(heading: &str, rows: Vec<ContentsRow>, empty: &str) -> Section {
        let mut rank: Vec<usize> = (0..rows.len()).collect();
        rank.sort_by_key(|&at| {
            let stem = rows[at]
                .name
                .trim_matches(['`', '/'])
                .trim_end_matches(".py");
            (!rows[at].python, outline::privacy(stem), at)
        });
        let lighter = rows
            .iter()
            .map(|row| Lighter {
                forms: vec![(
                    if row.about.is_empty() {
                        String::new()
                    } else {
                        "without description".into()
                    },
                    row.line(false),
                )],
                name: row.name.clone(),
            })
            .collect();
        Section {
            heading: heading.into(),
            table_header: Some("| name | kind | about |".into()),
            items: rows.iter().map(|row| row.line(true)).collect(),
            empty: empty.into(),
            detail: Some(Detail {
                items: lighter,
                rank,
                noun: "entries".into(),
            }),
            ..Section::default()
        }
    }
}

/// What a folder holds directly: modules, subpackages (regular or namespace) and other
/// folders, as its entry and its parent's row both count them.
pub(super) struct Contents {
    modules: usize,
    packages: usize,
    folders: usize,
    /// Files that are not modules: counted only where there is no Python to count.
    files: usize,
}

impl Contents {
    pub(super) fn of(views: &Views, glance: Option<&Glance>, dir: &Path) -> Contents {
        Self::among(
            views,
            glance,
            &views.project.list_dir(glance, dir).unwrap_or_default(),
        )
    }

    pub(super) fn among(views: &Views, glance: Option<&Glance>, entries: &[DiskEntry]) -> Contents {
        let mut contents = Contents {
            modules: 0,
            packages: 0,
            folders: 0,
            files: 0,
        };
        for entry in entries {
            match entry.kind {
                EntryKind::Module => contents.modules += 1,
                EntryKind::Dir
                    if views.project.dir_kind(glance, &entry.path) == DirKind::Folder =>
                {
                    contents.folders += 1;
                }
                EntryKind::Dir => contents.packages += 1,
                EntryKind::Data => contents.files += 1,
            }
        }
        contents
    }
}

/// `3 modules, 1 subpackage, 2 folders`, each count only when there are any; where there
/// is no Python, what there is instead (`1 folder`, `2 files`, `empty`): a folder of
/// locale data is no package of nothing.
impl std::fmt::Display for Contents {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let python = self.modules > 0 || self.packages > 0;
        let counted = [
            (self.modules, "module"),
            (self.packages, "subpackage"),
            (self.folders, "folder"),
            (if python { 0 } else { self.files }, "file"),
        ];
        let parts: Vec<String> = counted
            .iter()
            .filter(|(n, _)| *n > 0)
            .map(|(n, noun)| format!("{n} {noun}{}", plural(*n)))
            .collect();
        match parts.is_empty() {
            true => f.write_str("empty"),
            false => f.write_str(&parts.join(", ")),
        }
    }
}

/// Whether everyone who may read the view of folder `dir` may read `file` too, judged by
/// their owners and modes alone, so that the view is the same for every reader (the kernel
/// keeps one copy for all): a module more private than its folder is described by name
/// only, never by its docstring or counts (a view derived from a file is shown only to
/// those who may read the file). Unsure cases count as not readable.
pub(super) fn readable_by_its_readers(glance: Option<&Glance>, file: &Path, dir: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    let metadata = |path| crate::tree::glance::metadata(glance, path);
    let (Ok(file), Ok(dir)) = (metadata(file), metadata(dir)) else {
        return false;
    };
    let perm = |m: &std::fs::Metadata| crate::tree::access::Perm {
        uid: m.uid(),
        gid: m.gid(),
        mode: m.mode() & 0o777,
    };
    perm(&file).readable_by_readers_of(perm(&dir))
}

/// What a folder's view says of a module more private than the folder.
pub(super) fn private_about(file: &Path) -> String {
    use std::os::unix::fs::MetadataExt;
    let mode = std::fs::metadata(file)
        .map(|m| m.mode() & 0o777)
        .unwrap_or(0);
    format!("more private than its folder (mode {mode:o}): described in its own _entry.md")
}

/// `Accounts: named buckets… (2 classes, 9 functions, 96 lines, ~800 tokens)`.
pub(super) fn module_about(module: &Module) -> String {
    match module.text {
        Some(_) => index_about(&module.index),
        None => module.unreadable.clone().unwrap_or_default(),
    }
}

/// [`module_about`] of a module that is text, from its index alone.
pub(super) fn index_about(index: &ModuleIndex) -> String {
    let (classes, functions, methods) = counts(index);
    let doc = index
        .docstring
        .clone()
        .map(|d| format!("{d} "))
        .unwrap_or_default();
    let broken = if index.problems.is_empty() {
        ""
    } else {
        ", has syntax errors"
    };
    // A module of constants says what it holds instead of no count at all; elsewhere
    // the count would lengthen every row of a folder's view for little.
    let names = match classes + functions {
        0 => defined_names::defined(index),
        _ => 0,
    };
    let counts: String = [
        (classes, "class", "es"),
        (functions, "function", "s"),
        (methods, "method", "s"),
        (names, "other name", "s"),
    ]
    .iter()
    .filter(|(n, ..)| *n > 0)
    .map(|(n, noun, many)| format!("{n} {noun}{}, ", one_or_many(*n, "", many)))
    .collect();
    format!(
        "{doc}({counts}{}{broken})",
        size_note_of(index.size.lines, index.size.chars)
    )
}

/// The first line of the docstring of the module at `path`, from its index: a folder's
/// view reads none of the modules it describes once their parses are kept.
pub(super) fn docstring(views: &Views, glance: Option<&Glance>, path: &Path) -> Option<String> {
    let index = views.modules.index(glance, path).ok()??;
    index.docstring.clone()
}

/// [`module_about`] of the module at `path`: from its index when that is at hand, without
/// reading the module (a folder's `_entry.md` describes every module in it).
pub(super) fn about_module_at(
    views: &Views,
    glance: Option<&Glance>,
    path: &Path,
) -> Result<String> {
    match views.modules.index(glance, path)? {
        Some(index) => Ok(index_about(&index)),
        None => views.modules.get(glance, path).map(|m| module_about(&m)),
    }
}

/// Classes (nested ones too), functions of the module, and methods (functions in a
/// class): what `ls` shows under each name.
pub(super) fn counts(index: &ModuleIndex) -> (usize, usize, usize) {
    let in_class = |parent: Option<usize>| {
        parent
            .and_then(|p| index.symbols.get(p))
            .is_some_and(|p| p.kind == SymbolKind::Class)
    };
    let (mut classes, mut functions, mut methods) = (0, 0, 0);
    for symbol in &index.symbols {
        match symbol.kind {
            SymbolKind::Class => classes += 1,
            _ if in_class(symbol.parent) => methods += 1,
            _ => functions += 1,
        }
    }
    (classes, functions, methods)
}
