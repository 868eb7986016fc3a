//! `mkdir` and `rmdir` under `source/`: folders of the project made and removed as its
//! layout has them. A folder made in a package is a subpackage, a regular package with an
//! empty `__init__.py` as its parent is; in a namespace package (no `__init__.py`, PEP 420)
//! it is a namespace package too, a bare folder; at the top of `source/` a package in the
//! code root when named as Python names packages, else a folder at the project's top
//! (`.github`); in a folder of data, a folder. Python's folders are named by identifiers, so
//! that `import` reaches them. `rmdir` removes a folder once nothing but an empty
//! `__init__.py` is left in it; the folders the layout rests on (the code roots, the test
//! folders) stay.

use std::path::{Path, PathBuf};

use crate::error::{Error, ErrorKind, Result};
use crate::model::Kind;
use crate::python::DottedName;
use crate::resources::source::edit::Editor;
use crate::resources::source::edit::change::ProjectChange;
use crate::resources::source::edit::text::is_identifier;
use crate::resources::source::places::paths::{RESERVED, Resolved};
use crate::resources::source::project::DirKind;
use crate::tree::glance::Glance;

const INIT: &str = "__init__.py";

impl Editor {
    /// `mkdir source/<path>` (see the module doc).
    pub(crate) fn make_dir(&self, path: &[&str]) -> Result<()> {
        let shown = self.links.dir(&[&["source"], path].concat());
        let Some((name, parent)) = path.split_last() else {
            return Err(Error::exists(format!("{shown} already exists")));
        };
        let (dir, dotted, kind) = match self.places.resolve(None, parent)? {
            Resolved::Root if RESERVED.contains(name) => {
                return Err(Error::not_permitted(format!(
                    "{shown} was not made: source/{name}/ is homespace's own, so a package \
                     {name} at the top would be listed as source/.{name}/; name it otherwise"
                )));
            }
            // A Python name makes a package where the packages are; any other name
            // (`.github`, `my-docs`) a plain folder at the project's top.
            Resolved::Root if is_identifier(name) => {
                (self.code_root(), DottedName::default(), DirKind::Package)
            }
            Resolved::Root => (
                self.project.root.clone(),
                DottedName::default(),
                DirKind::Folder,
            ),
            Resolved::Dir { disk, dotted } => {
                let kind = self.project.dir_kind(None, &disk);
                (disk, dotted, kind)
            }
            Resolved::TestsRoot => {
                self.first_test_folder_allowed(&shown, "was not made")?;
                return self.in_first_test_folder(&shown, "was not made", |folder, dotted| {
                    let kind = self.project.dir_kind(None, folder);
                    self.make_dir_in(folder, dotted, kind, name, &shown)
                });
            }
            Resolved::Members { .. } | Resolved::Symbol { .. } => {
                return Err(Error::not_permitted(format!(
                    "{shown} was not made: a module's folder holds its classes and functions; \
                     make a subpackage in a package's folder"
                )));
            }
            _ => {
                return Err(Error::not_permitted(format!(
                    "{shown} was not made: folders are made in a package, at the top of \
                     source/ or in a test folder"
                )));
            }
        };
        self.make_dir_in(&dir, &dotted, kind, name, &shown)
    }

    /// Make folder `name` in `dir` (the package `dotted`, a folder of `kind`), as
    /// [`Editor::make_dir`] does once it knows where.
    fn make_dir_in(
        &self,
        dir: &Path,
        dotted: &DottedName,
        kind: DirKind,
        name: &str,
        shown: &str,
    ) -> Result<()> {
        let python = kind != DirKind::Folder;
        if python && !is_identifier(name) {
            // EINVAL: mkdir prints "Invalid argument", and the message says which rule.
            return Err(Error::invalid(format!(
                "{shown} was not made: a package is named by a Python identifier (letters, \
                 digits and `_`, not starting with a digit, no keyword), so that `import` \
                 reaches it: `{}`, say",
                suggested(name)
            )));
        }
        if name.starts_with('-') {
            return Err(Error::invalid(format!(
                "{shown} was not made: a name starting with `-` is read as an option by \
                 shell tools"
            )));
        }
        let folder = dir.join(name);
        if folder.exists() {
            return Err(Error::exists(format!(
                "{shown} was not made: {} is there already",
                folder.display()
            )));
        }
        if self.project.is_hidden(&folder, true) {
            return Err(Error::not_permitted(format!(
                "{shown} was not made: the project hides folders of that name (.gitignore, \
                 build/, dist/, …), so it would not show here"
            )));
        }
        let module = dir.join(format!("{name}.py"));
        if python && module.exists() {
            return Err(Error::exists(format!(
                "{shown} was not made: the module {} is there, and a package of the same name \
                 would hide it from `import`",
                module.display()
            )));
        }
        std::fs::create_dir(&folder).map_err(|e| {
            Error::internal(format!(
                "could not make the folder {}: {e}",
                folder.display()
            ))
        })?;
        if kind != DirKind::Package {
            return Ok(());
        }
        let init = folder.join(INIT);
        let dotted = dotted.child(name);
        let made = ProjectChange::begin(self, &[&init]).and_then(|mut change| {
            change.write(&init, Vec::new(), format!("create package {dotted}"))?;
            change.commit()
        });
        match made {
            Ok(()) => self.project.made_init(&init),
            Err(_) => {
                let _ = std::fs::remove_file(&init);
                let _ = std::fs::remove_dir(&folder);
            }
        }
        made
    }

    /// `rmdir source/<path>`: a folder of the project that holds nothing but an empty
    /// `__init__.py` (refused as not empty otherwise, naming what it holds); any other
    /// directory of the tree says why it stays.
    pub(crate) fn remove_dir(&self, path: &[&str], listed: Vec<(String, Kind)>) -> Result<()> {
        let shown = self.links.dir(&[&["source"], path].concat());
        let place = self.places.resolve(None, path)?;
        let members: Vec<(String, Kind)> = listed
            .into_iter()
            .filter(|(name, _)| match &place {
                Resolved::Dir { disk, .. } => !self.is_empty_init(None, disk, name),
                _ => true,
            })
            .collect();
        if !members.is_empty() {
            return Err(crate::resources::not_empty(
                &shown,
                &members,
                "rm what it holds first (symbols, modules, files; an empty __init__.py may \
                 stay): rmdir removes a folder that holds nothing else",
            ));
        }
        let (disk, dotted) = match place {
            Resolved::Dir { disk, dotted } if self.is_removable_folder(&disk) => (disk, dotted),
            Resolved::Dir { .. } | Resolved::Root | Resolved::TestsRoot => {
                return Err(Error::not_permitted(format!(
                    "{shown} stays: the project's layout rests on it (a code root or a test \
                     folder)"
                )));
            }
            _ => return self.remove_path(path),
        };
        let unseen = unseen_files(&disk);
        if !unseen.is_empty() {
            return Err(Error::new(
                ErrorKind::NotEmpty,
                format!(
                    "{shown} is not empty on disk: {} holds {}, which the tree does not show; \
                     remove them there first",
                    disk.display(),
                    unseen.join(", ")
                ),
            ));
        }
        let init = disk.join(INIT);
        if init.is_file() {
            let mut change = ProjectChange::begin(self, &[&init])?;
            change.delete(&init, format!("delete package {dotted}"))?;
            change.commit()?;
        }
        // Python's caches of the package go with it; they hold nothing of the user's.
        let _ = std::fs::remove_dir_all(disk.join("__pycache__"));
        std::fs::remove_dir(&disk).map_err(|e| {
            Error::internal(format!(
                "could not remove the folder {}: {e}",
                disk.display()
            ))
        })
    }

    /// Remove the folder of the package whose `__init__.py` was just deleted, if it holds
    /// nothing else (Python's caches aside) and the layout does not rest on it.
    pub(crate) fn remove_emptied_package(&self, init: &Path) {
        let Some(folder) = init.parent() else {
            return;
        };
        self.project.shown_init(init);
        if init.exists() || !self.is_removable_folder(folder) || !unseen_files(folder).is_empty() {
            return;
        }
        let _ = std::fs::remove_dir_all(folder.join("__pycache__"));
        if let Err(e) = std::fs::remove_dir(folder) {
            crate::log::line(&format!(
                "the folder {} stays after its package was undone: {e}",
                folder.display()
            ));
        }
    }

    /// Whether `rmdir` may remove the directory at `path` once it is emptied: a folder of
    /// the project that the layout does not rest on.
    pub(crate) fn removable_dir(&self, path: &[&str]) -> bool {
        matches!(self.places.resolve(None, path), Ok(Resolved::Dir { disk, .. }) if self.is_removable_folder(&disk))
    }

    fn is_removable_folder(&self, disk: &Path) -> bool {
        disk != self.project.root
            && !self.project.code_roots.iter().any(|root| root == disk)
            && !self.project.is_test_dir(disk)
    }

    /// Where a package made at the top of `source/` goes: the first code root (`src/` in a
    /// src layout).
    pub(super) fn code_root(&self) -> PathBuf {
        self.project
            .code_roots
            .first()
            .cloned()
            .unwrap_or_else(|| self.project.root.clone())
    }
}

impl Editor {
    /// Whether `name` in the folder `disk` is its `__init__.py` holding nothing but blank
    /// lines: what a package made by mkdir holds, and an emptied one keeps.
    pub(crate) fn is_empty_init(&self, glance: Option<&Glance>, disk: &Path, name: &str) -> bool {
        /// A listing asks this of every package: a longer file is not read, as blank lines
        /// beyond this many bytes are no `__init__.py` anyone made empty.
        const BLANK: u64 = 256;
        if name != INIT {
            return false;
        }
        let init = disk.join(INIT);
        let Ok(meta) = crate::tree::glance::metadata(glance, &init) else {
            return false;
        };
        match meta.len() {
            0 => return true,
            len if len > BLANK => return false,
            _ => {}
        }
        // A kept parse that found a docstring or a definition answers without a read: a
        // recursive listing of a package reads none of its modules.
        if let Ok(Some(index)) = self.modules.index(glance, &init)
            && (index.docstring.is_some() || !index.symbols.is_empty())
        {
            return false;
        }
        std::fs::read(&init).is_ok_and(|text| text.trim_ascii().is_empty())
    }
}

/// What `disk` holds besides its `__init__.py` and Python's `__pycache__/`: files the tree
/// hides (ignored, hidden), which a removal would lose.
fn unseen_files(disk: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(disk) else {
        return Vec::new();
    };
    entries
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name != INIT && name != "__pycache__")
        .collect()
}

/// `name` made into an identifier: `my-sub` → `my_sub`, `2d` → `_2d`.
fn suggested(name: &str) -> String {
    let mut ident: String = name
        .chars()
        .map(|c| if c.is_alphanumeric() { c } else { '_' })
        .collect();
    if !ident.starts_with(|c: char| c.is_alphabetic() || c == '_') {
        ident.insert(0, '_');
    }
    match is_identifier(&ident) {
        true => ident,
        false => format!("{ident}_"),
    }
}
