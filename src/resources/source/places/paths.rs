//! Paths under `source/` to places in the project. One rule, applied recursively: every
//! container X with members has `X.py` (its exact source) and `X/` (its members) —
//! packages hold modules, modules hold classes and functions, classes hold methods and
//! nested classes. Dotted names resolve like the nested path (`ledger.accounts.Account.py`
//! is `ledger/accounts/Account.py`) but are never listed; they also reach what Python finds
//! that the nested path spells otherwise (`pkg.sub.py` is `pkg/sub/__init__.py`,
//! `pkg.sub.name.py` what that `__init__.py` defines, or what it imports from another
//! module of the project: that module's own file, so writes land where it is defined).

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::model::TreePath;
use crate::model::names::ENTRY;
use crate::python::DottedName;
use crate::resources::source::modules::Module;
use crate::resources::source::places::Places;
use crate::resources::source::places::member_path::MemberPath;
use crate::resources::source::places::reexports;
use crate::resources::source::project::EntryKind;
use crate::tree::glance::Glance;

/// The name of the test subresource under `source/`.
pub const TESTS: &str = "tests";

/// Names directly under `source/tests/` that belong to the test runner (`run` starts a run,
/// `runs/` holds the results), never to the project: a file created there would be a real
/// file in the project's test folder, and would be shadowed once the runner exists.
pub const RUNNER_NAMES: &[&str] = &["run", "runs"];

#[cfg(test)]
thread_local! {
    /// How many walks from `source/` this thread began: what a request costs.
    pub(crate) static WALKS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// What a path under `source/` is.
#[derive(Debug, Clone)]
pub enum Resolved {
    /// `source/` itself.
    Root,
    /// `source/tests/` when the project has several test folders.
    TestsRoot,
    /// A package, namespace package, test folder or data folder.
    Dir { disk: PathBuf, dotted: DottedName },
    /// A `.py` file: its exact source.
    ModuleFile { disk: PathBuf, dotted: DottedName },
    /// A module's or class's members (`accounts/`, `accounts/Account/`).
    Members {
        disk: PathBuf,
        dotted: DottedName,
        module: Arc<Module>,
        /// The class whose members these are (index into the module's symbols).
        parent: Option<usize>,
        /// The names walked inside the module (`["Account"]`), to locate it afresh.
        inner: MemberPath,
    },
    /// One class, function or method: its exact source, dedented.
    Symbol {
        disk: PathBuf,
        dotted: DottedName,
        module: Arc<Module>,
        symbol: usize,
        /// The names walked inside the module (`["Account", "debit.py"]`).
        inner: MemberPath,
    },
    /// A non-Python file of a package, exact.
    DataFile { disk: PathBuf },
}

/// The name of the settings directory under `source/` (a resourcespace of its own, which
/// hides a top-level package of that name).
pub const META: &str = "meta";

/// The name of the edit history under `source/` (likewise).
pub const HISTORY: &str = "history";

/// The names directly under `source/` that are homespace's own resourcespaces, never the
/// project's: a top-level module or package of such a name is spelled otherwise there
/// (see [`spelled_at_top`]).
pub const RESERVED: &[&str] = &[TESTS, HISTORY, META, "deps", "config", "changes"];

/// The reserved names whose folder stands where a top-level package of the project of
/// that name would be listed. Not `tests`: the project's top-level `tests/` is the test
/// folder `source/tests/` shows.
const TAKEN_FROM_PACKAGES: &[&str] = &[HISTORY, META, "deps", "config", "changes"];

/// How the tree spells `rel`, a path from a code root with `/` between names (`deps/x.py`,
/// or `history` for a module's members): a top-level package, or a top-level module's
/// members directory, named as one of source/'s own folders (`deps`, `history`, …) is
/// spelled with a dot in front (`.deps/x.py`, `.history`) — the name a top-level module's
/// members already have (`.six`) — so that neither hides the other. A module file keeps
/// its name (`history.py`): nothing of source/'s is called so.
pub fn spelled_at_top(rel: &str) -> String {
    match rel.split_once('/') {
        Some((first, rest)) if TAKEN_FROM_PACKAGES.contains(&first) => format!(".{first}/{rest}"),
        None if RESERVED.contains(&rel) => format!(".{rel}"),
        _ => rel.to_string(),
    }
}

/// The project's top-level name that `spelled` (`.deps`, `.history`) spells when source/
/// keeps that name for a folder of its own; `None` for any other name.
pub fn project_name_of(spelled: &str) -> Option<&str> {
    spelled
        .strip_prefix('.')
        .filter(|name| RESERVED.contains(name))
}

/// Whether a top-level package of the project named `name` is listed as `.name` (see
/// [`spelled_at_top`]).
pub fn package_spelled_with_dot(name: &str) -> bool {
    TAKEN_FROM_PACKAGES.contains(&name)
}

/// A path walked under `source/`: where it leads, whether a dotted name was expanded on
/// the way (the path is then another name of what it leads to), and the names walked. A
/// request that needs both a path's parent and the path walks the parent once and steps on
/// from it ([`Places::walk_on`]).
#[derive(Debug, Clone)]
pub struct Walked {
    pub place: Resolved,
    pub aliased: bool,
    names: TreePath,
}

impl Places {
    /// Where `path` leads, expanding dotted names that do not exist as written.
    pub fn resolve(&self, glance: Option<&Glance>, path: &[&str]) -> Result<Resolved> {
        self.resolve_aliased(glance, path).map(|(place, _)| place)
    }

    /// Where `path` leads, and whether a dotted name was expanded on the way (the path
    /// is then another name of what it leads to).
    pub fn resolve_aliased(
        &self,
        glance: Option<&Glance>,
        path: &[&str],
    ) -> Result<(Resolved, bool)> {
        self.walk(glance, path)
            .map(|walked| (walked.place, walked.aliased))
    }

    /// `path` walked from `source/`.
    pub fn walk(&self, glance: Option<&Glance>, path: &[&str]) -> Result<Walked> {
        #[cfg(test)]
        WALKS.with(|walks| walks.set(walks.get() + 1));
        let root = Walked {
            place: Resolved::Root,
            aliased: false,
            names: TreePath::parse("source"),
        };
        if let [first, rest @ ..] = path
            && let Some(members) = self.canonical_members(glance, &root, first)?
        {
            return self.walk_on(glance, members, rest);
        }
        self.walk_on(glance, root, path)
    }

    /// `names` walked on from where `from` led: what walking the whole path from
    /// `source/` gives, without walking `from` again.
    pub fn walk_on(&self, glance: Option<&Glance>, from: Walked, names: &[&str]) -> Result<Walked> {
        let Walked {
            mut place,
            mut aliased,
            names: mut walked,
        } = from;
        // Each name, and whether it is one part of a dotted name.
        let mut queue: VecDeque<(String, bool)> =
            names.iter().map(|c| (c.to_string(), false)).collect();
        while let Some((name, in_dotted)) = queue.pop_front() {
            let next = match self.step(glance, &place, &name)? {
                Some(next) => Some(next),
                None if in_dotted => self.step_as_python(glance, &place, &name)?,
                None => None,
            };
            if let Some(next) = next {
                place = next;
                walked.push(&name);
                continue;
            }
            let parts = split_dotted(&name);
            if parts.len() > 1 {
                aliased = true;
                for part in parts.into_iter().rev() {
                    queue.push_front((part, true));
                }
                continue;
            }
            return Err(self.missing(&walked, &name));
        }
        Ok(Walked {
            place,
            aliased,
            names: walked,
        })
    }

    fn missing(&self, walked: &TreePath, name: &str) -> Error {
        Error::not_found(format!(
            "{} has no {name}; {} lists what it holds",
            self.links.dir(&walked.names().collect::<Vec<_>>()),
            self.links.to(walked.join(ENTRY).as_str())
        ))
    }

    /// The member `name` of `place`, if there is one.
    fn step(
        &self,
        glance: Option<&Glance>,
        place: &Resolved,
        name: &str,
    ) -> Result<Option<Resolved>> {
        if name.is_empty() || name == "." || name == ".." {
            return Ok(None);
        }
        match place {
            Resolved::Root => {
                if name == TESTS {
                    // Without a test folder of its own (tests kept inside the package),
                    // tests/ still holds the runner.
                    return Ok(Some(match self.project.test_dirs().as_slice() {
                        [only] => Resolved::Dir {
                            disk: only.clone(),
                            dotted: self.project.dotted_of_test_dir(only),
                        },
                        _ => Resolved::TestsRoot,
                    }));
                }
                // The project's own `deps/` or `history.py`'s members, whose plain names are
                // source/'s folders (see `spelled_at_top`), are `.deps` and `.history`; a
                // dotfolder of the project spelled so (`.config/`) is itself first.
                let spellings = [Some(name), project_name_of(name)];
                for on_disk in spellings.into_iter().flatten() {
                    for root in &self.project.code_roots {
                        if let Some(next) =
                            self.in_dir(glance, root, &DottedName::default(), on_disk, true)?
                        {
                            return Ok(Some(next));
                        }
                    }
                }
                // pytest names a test module by its folder (`testing.test_pm` for a
                // `testing/` that is no package): that name leads to the test folder too.
                Ok(self
                    .project
                    .test_dirs()
                    .into_iter()
                    .find(|d| d.parent() == Some(&self.project.root) && d.ends_with(name))
                    .map(|disk| Resolved::Dir {
                        dotted: self.project.dotted_of_test_dir(&disk),
                        disk,
                    }))
            }
            Resolved::TestsRoot => Ok(self
                .project
                .test_dirs()
                .iter()
                .find(|d| d.file_name().is_some_and(|n| n == name))
                .map(|d| Resolved::Dir {
                    disk: d.clone(),
                    dotted: self.project.dotted_of_test_dir(d),
                })),
            Resolved::Dir { disk, dotted } => self.in_dir(glance, disk, dotted, name, false),
            Resolved::Members {
                disk,
                dotted,
                module,
                parent,
                inner,
            } => Ok(member(module, *parent, name).map(|(index, is_file)| {
                let inner = inner.join(name);
                if is_file {
                    Resolved::Symbol {
                        disk: disk.clone(),
                        dotted: dotted.clone(),
                        module: Arc::clone(module),
                        symbol: index,
                        inner,
                    }
                } else {
                    Resolved::Members {
                        disk: disk.clone(),
                        dotted: dotted.clone(),
                        module: Arc::clone(module),
                        parent: Some(index),
                        inner,
                    }
                }
            })),
            Resolved::ModuleFile { .. } | Resolved::Symbol { .. } | Resolved::DataFile { .. } => {
                Ok(None)
            }
        }
    }

    /// What Python itself finds at `name` in a package where the tree has no such entry:
    /// `sub.py` is subpackage `sub`'s `__init__.py` (`import pkg.sub` runs it), and a name
    /// the package's `__init__.py` defines is that definition (`pkg.sub.name`). Only
    /// dotted names step so, since the tree lists these under `__init__/`.
    fn step_as_python(
        &self,
        glance: Option<&Glance>,
        place: &Resolved,
        name: &str,
    ) -> Result<Option<Resolved>> {
        let Resolved::Dir { disk, dotted } = place else {
            return Ok(None);
        };
        if let Some(stem) = name.strip_suffix(".py") {
            let init = disk.join(stem).join("__init__.py");
            if self.project.kind_inside(&init) == Some(false)
                && !self.project.is_hidden(&init, false)
            {
                return Ok(Some(Resolved::ModuleFile {
                    disk: init,
                    dotted: dotted.child(stem),
                }));
            }
        }
        match self.in_dir(glance, disk, dotted, "__init__", false)? {
            Some(init @ Resolved::Members { .. }) => match self.step(glance, &init, name)? {
                Some(defined) => Ok(Some(defined)),
                None => self.reexported(glance, &init, dotted, name),
            },
            _ => Ok(None),
        }
    }

    /// `name` as package `package`'s `__init__.py` (`init`) imports it from another module
    /// of the project (`from ._hooks import HookimplMarker`): the definition there, the
    /// same place its own path leads, so a write lands in the module that defines it. One
    /// level only: what that module imports in turn is not followed, so an import cycle
    /// ends here.
    fn reexported(
        &self,
        glance: Option<&Glance>,
        init: &Resolved,
        package: &DottedName,
        name: &str,
    ) -> Result<Option<Resolved>> {
        let Resolved::Members { module, .. } = init else {
            return Ok(None);
        };
        let Some(text) = module.text.as_deref() else {
            return Ok(None);
        };
        let (stem, suffix) = name
            .strip_suffix(".py")
            .map_or((name, ""), |stem| (stem, ".py"));
        for (from, original) in reexports::origins(text, &package.to_string(), stem) {
            let from: Vec<&str> = from.iter().map(String::as_str).collect();
            // A module outside the project (or gone) defines nothing here.
            let Ok(walked) = self.walk(glance, &from) else {
                continue;
            };
            let wanted = format!("{original}{suffix}");
            let found = match &walked.place {
                Resolved::Dir { disk, dotted } => {
                    match self.step(glance, &walked.place, &wanted)? {
                        Some(found) => Some(found),
                        None => match self.in_dir(glance, disk, dotted, "__init__", false)? {
                            Some(init @ Resolved::Members { .. }) => {
                                self.step(glance, &init, &wanted)?
                            }
                            _ => None,
                        },
                    }
                }
                place => self.step(glance, place, &wanted)?,
            };
            if found.is_some() {
                return Ok(found);
            }
        }
        Ok(None)
    }

    /// `name` inside the project directory `dir` (whose dotted module path is `dotted`).
    fn in_dir(
        &self,
        glance: Option<&Glance>,
        dir: &Path,
        dotted: &DottedName,
        name: &str,
        top: bool,
    ) -> Result<Option<Resolved>> {
        let candidate = dir.join(name);
        let child_dotted = |stem: &str| match stem {
            "__init__" => dotted.clone(),
            _ => dotted.child(stem),
        };
        let module_name = format!("{name}.py");
        let [shown, module_kind] = self.project.shown_kinds(glance, dir, [name, &module_name]);
        match shown {
            Some(EntryKind::Dir) => {
                // At the top, every folder but those of the layout: the test folders
                // (under tests/) and `src/` (its entries are at the top themselves).
                let shown = !top
                    || (!self.project.is_test_dir(&candidate)
                        && !self.project.code_roots.contains(&candidate));
                if shown {
                    return Ok(Some(Resolved::Dir {
                        disk: candidate,
                        dotted: child_dotted(name),
                    }));
                }
            }
            Some(EntryKind::Module) => {
                let stem = name.strip_suffix(".py").unwrap_or(name);
                return Ok(Some(Resolved::ModuleFile {
                    disk: candidate,
                    dotted: child_dotted(stem),
                }));
            }
            Some(EntryKind::Data) => {
                return Ok(Some(Resolved::DataFile { disk: candidate }));
            }
            None => {}
        }
        if module_kind == Some(EntryKind::Module) {
            let module_file = dir.join(module_name);
            let module = self.modules.get(glance, &module_file)?;
            return Ok(Some(Resolved::Members {
                disk: module_file,
                dotted: child_dotted(name),
                module,
                parent: None,
                inner: MemberPath::default(),
            }));
        }
        Ok(None)
    }

    /// Members of a project directory as (name, kind) pairs, `m.py` followed by `m/`.
    pub fn dir_members(
        &self,
        glance: Option<&Glance>,
        dir: &Path,
        top: bool,
    ) -> Vec<(String, EntryKind, PathBuf)> {
        let entries = if top {
            self.project.top_entries(glance)
        } else {
            self.project.list_dir(glance, dir).unwrap_or_default()
        };
        entries
            .into_iter()
            .map(|e| (e.name, e.kind, e.path))
            .collect()
    }
}

/// The symbol at `inner` (`["Account", "debit.py"]`) of a freshly indexed module:
/// `(index, true)` for a symbol file, `(index, false)` for a class's members directory.
pub fn locate(module: &Module, inner: &MemberPath) -> Option<(usize, bool)> {
    let mut parent = None;
    let mut found = None;
    for name in inner.names() {
        let (index, is_file) = member(module, parent, name)?;
        parent = Some(index);
        found = Some((index, is_file));
    }
    found
}

/// The member of `module` under `parent` called `name`: `(index, true)` for `stem.py`,
/// `(index, false)` for the members directory `stem/` of a class (see [`has_folder`]).
pub fn member(module: &Module, parent: Option<usize>, name: &str) -> Option<(usize, bool)> {
    let symbols = &module.index.symbols;
    let (stem, is_file) = match name.strip_suffix(".py") {
        Some(stem) => (stem, true),
        None => (name, false),
    };
    let index = symbols
        .iter()
        .position(|s| s.parent == parent && s.file_stem == stem)?;
    if !is_file && !has_folder(symbols, index) {
        return None;
    }
    Some((index, is_file))
}

/// Whether symbol `at` has a folder of members: every class has one, also while it has
/// no method yet (a first one is added by creating `Class/<name>.py`); a function has
/// none.
pub fn has_folder(symbols: &[crate::python::Symbol], at: usize) -> bool {
    symbols
        .get(at)
        .is_some_and(|s| s.kind == crate::python::SymbolKind::Class)
        || symbols.iter().any(|s| s.parent == Some(at))
}

/// `ledger.accounts.Account.py` → `[ledger, accounts, Account.py]`; `ledger.io` →
/// `[ledger, io]`. Names that start with a dot are never dotted paths.
pub fn split_dotted(name: &str) -> Vec<String> {
    if name.starts_with('.') || !name.contains('.') {
        return vec![name.to_string()];
    }
    let (body, suffix) = match name.strip_suffix(".py") {
        Some(body) => (body, ".py"),
        None => (name, ""),
    };
    let mut parts: Vec<String> = body.split('.').map(str::to_string).collect();
    if parts.iter().any(String::is_empty) {
        return vec![name.to_string()];
    }
    if let Some(last) = parts.last_mut() {
        last.push_str(suffix);
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_folder_source_keeps_for_itself_is_reserved() {
        use crate::resources::source::{config::CONFIG, deps::DEPS};
        for own in [TESTS, HISTORY, META, DEPS, CONFIG] {
            assert!(RESERVED.contains(&own), "{own}");
        }
    }

    #[test]
    fn dotted_names_split_into_path_components() {
        assert_eq!(
            split_dotted("bae.ai.Agent.send.py"),
            ["bae", "ai", "Agent", "send.py"]
        );
        assert_eq!(split_dotted("bae.ai"), ["bae", "ai"]);
        assert_eq!(
            split_dotted("Account.balance@2.py"),
            ["Account", "balance@2.py"]
        );
        assert_eq!(split_dotted("ai.py"), ["ai.py"]);
        assert_eq!(split_dotted(".hidden.py"), [".hidden.py"]);
        assert_eq!(split_dotted("a..b"), ["a..b"]);
    }

    #[test]
    fn the_projects_names_that_source_keeps_for_itself_are_spelled_with_a_dot() {
        assert_eq!(spelled_at_top("deps/x.py"), ".deps/x.py");
        assert_eq!(spelled_at_top("deps"), ".deps");
        assert_eq!(spelled_at_top("history"), ".history");
        assert_eq!(spelled_at_top("tests"), ".tests");
        assert_eq!(spelled_at_top("history.py"), "history.py");
        assert_eq!(spelled_at_top("ledger/accounts.py"), "ledger/accounts.py");
        assert_eq!(spelled_at_top(".deps/x"), ".deps/x");
        assert_eq!(project_name_of(".meta"), Some("meta"));
        assert_eq!(project_name_of(".six"), None);
        assert_eq!(project_name_of("meta"), None);
    }
}
