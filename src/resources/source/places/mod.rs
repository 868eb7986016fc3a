//! Where a path under `source/` leads in the project: the walk of nested and dotted names
//! (`paths.rs`), the links from a package to its modules' members (`links.rs`), the names
//! a package re-exports (`reexports.rs`), and the folders a dotted name passes
//! (`crossed.rs`). Every request under `source/` starts here; nothing here changes
//! anything.

pub(crate) mod crossed;
pub(crate) mod in_tree;
pub(crate) mod links;
pub(crate) mod member_path;
pub(crate) mod paths;
mod reexports;

use std::sync::Arc;

use crate::error::{Error, Result};
use crate::model::links::Links;
use crate::python::symbol_text;
use crate::resources::source::modules::Modules;
use crate::resources::source::project::{EntryKind, Project};
use crate::tree::glance::{Glance, Memo};
use paths::{RESERVED, Resolved, Walked};

/// The longest symbol whose code a search shows beside its name.
const SHORT: usize = 30;

/// The places of one project under `source/`.
pub(crate) struct Places {
    project: Arc<Project>,
    /// The parses that member paths walk into.
    modules: Arc<Modules>,
    links: Links,
    /// The path last named in this request, and where it led: a lookup's `stat` and the
    /// read that sizes the file, or a listing and its entry view, walk it once.
    named_in_request: Memo<Vec<String>, Named>,
}

impl Places {
    pub(crate) fn new(project: Arc<Project>, modules: Arc<Modules>, links: Links) -> Self {
        Places {
            project,
            modules,
            links,
            named_in_request: Memo::default(),
        }
    }

    /// The module file `m.py` when `name` in `parent` is its members directory `m/` in a
    /// package (or at the top), decided from the directory alone.
    pub(crate) fn module_of_members_dir(
        &self,
        glance: Option<&Glance>,
        parent: &Resolved,
        name: &str,
    ) -> Option<std::path::PathBuf> {
        if name.contains('.') || name.is_empty() {
            return None;
        }
        let dirs: Vec<std::path::PathBuf> = match parent {
            Resolved::Dir { disk, .. } => vec![disk.clone()],
            Resolved::Root if !RESERVED.contains(&name) => self.project.code_roots.clone(),
            _ => return None,
        };
        let module = format!("{name}.py");
        dirs.iter().find_map(|dir| {
            let [shown, module_kind] = self.project.shown_kinds(glance, dir, [name, &module]);
            (shown.is_none() && module_kind == Some(EntryKind::Module)).then(|| dir.join(&module))
        })
    }

    /// The bytes of the file at `path`, exact (a module, a data file) or dedented (a
    /// symbol).
    pub(crate) fn read_place(&self, path: &[&str]) -> Result<Vec<u8>> {
        self.read_resolved(&self.resolve(None, path)?, path)
    }

    /// The bytes of the file at `path`, which leads to `place`.
    pub(crate) fn read_resolved(&self, place: &Resolved, path: &[&str]) -> Result<Vec<u8>> {
        match place {
            Resolved::ModuleFile { disk, .. } | Resolved::DataFile { disk } => std::fs::read(disk)
                .map_err(|e| Error::internal(format!("{} cannot be read: {e}", disk.display()))),
            Resolved::Symbol { module, symbol, .. } => {
                let text = module.text()?;
                let symbol = module
                    .index
                    .symbols
                    .get(*symbol)
                    .ok_or_else(|| Error::not_found("the symbol is gone"))?;
                Ok(symbol_text(text, symbol).into_bytes())
            }
            _ => Err(Error::new(
                crate::error::ErrorKind::IsADirectory,
                format!(
                    "source/{} is a directory: read its _entry.md",
                    path.join("/")
                ),
            )),
        }
    }

    /// The text of symbol file `file` (under `source/`) when it is at most [`SHORT`] lines.
    pub(crate) fn short_symbol(&self, file: &str) -> Option<String> {
        self.symbol_text(file)
            .filter(|text| text.lines().count() <= SHORT)
    }

    /// The text of symbol file `file` (under `source/`).
    pub(crate) fn symbol_text(&self, file: &str) -> Option<String> {
        let path: Vec<&str> = file.split('/').collect();
        let bytes = self.read_place(&path).ok()?;
        String::from_utf8(bytes).ok()
    }
}

/// What a path under `source/` names as its folder lists it.
#[derive(Clone)]
pub(crate) enum Named {
    /// A module's own directory (`pkg/mod` beside `pkg/mod.py`): a link in the listing, to
    /// the module at this file.
    ModuleDir(std::path::PathBuf),
    /// Anything else, walked.
    Walked(Walked),
}

impl Places {
    /// What `path` names as its folder lists it ([`Named`]), its parent walked once for
    /// both answers; walked once per request (`glance`).
    pub(crate) fn named(&self, glance: &Glance, path: &[&str]) -> Result<Named> {
        let key = path.iter().map(|name| name.to_string()).collect();
        let named =
            (self.named_in_request).get(glance, key, || self.walk_named(Some(glance), path))?;
        Ok(Named::clone(&named))
    }

    fn walk_named(&self, glance: Option<&Glance>, path: &[&str]) -> Result<Named> {
        let Some((name, parent_path)) = path.split_last() else {
            return self.walk(glance, path).map(Named::Walked);
        };
        let parent = self.walk(glance, parent_path)?;
        if let Some(module) = self.module_of_members_dir(glance, &parent.place, name) {
            return Ok(Named::ModuleDir(module));
        }
        let walked = if parent_path.is_empty() {
            // A top-level name may be a module's own directory (`.six`).
            self.walk(glance, path)?
        } else {
            self.walk_on(glance, parent, &[name])?
        };
        Ok(Named::Walked(walked))
    }

    /// Where `path` leads: as [`Places::named`] says, or, for a module's own directory,
    /// walked on into its members.
    pub(crate) fn resolve_named(&self, glance: &Glance, path: &[&str]) -> Result<Resolved> {
        match self.named(glance, path)? {
            Named::Walked(walked) => Ok(walked.place),
            Named::ModuleDir(_) => self.resolve(Some(glance), path),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resources::source::testing::project_with;
    use paths::WALKS;

    fn walks_for(request: impl FnOnce()) -> usize {
        let before = WALKS.with(|walks| walks.get());
        request();
        WALKS.with(|walks| walks.get()) - before
    }

    #[test]
    fn a_request_that_names_a_path_twice_walks_it_once() {
        let (_dir, root) = project_with(&[(
            "ledger/accounts.py",
            "class Account:\n    def debit(self, n):\n        return n\n",
        )]);
        let project = Arc::new(Project::open(&root));
        let places = Places::new(project, Arc::default(), Links::new("/mnt/hs"));
        let path = ["ledger", "accounts", "Account", "debit.py"];
        // Each call in the glance it is given: one per call outside a request.
        let stat_then_read = |stat: &Glance, read: &Glance| {
            let Named::Walked(walked) = places.named(stat, &path).unwrap() else {
                panic!("a symbol file is walked");
            };
            let again = places.resolve_named(read, &path).unwrap();
            let text = places.read_resolved(&again, &path).unwrap();
            assert!(String::from_utf8(text).unwrap().starts_with("def debit"));
            assert!(matches!(walked.place, Resolved::Symbol { .. }));
        };
        let outside = || stat_then_read(&Glance::new(), &Glance::new());
        assert_eq!(walks_for(outside), 2, "outside a request, each asks");
        let in_one_request = || {
            let request = Glance::new();
            stat_then_read(&request, &request);
        };
        assert_eq!(walks_for(in_one_request), 1, "a stat and its read");
        let two_paths = || {
            let request = Glance::new();
            places.named(&request, &path).unwrap();
            places.named(&request, &["ledger", "accounts.py"]).unwrap();
        };
        assert_eq!(walks_for(two_paths), 2, "each path walked for itself");
    }
}
