//! Finding the project's symbols by name, statically: a dotted name to the module file
//! and the symbol that define it (its longest prefix that is a project module, the rest
//! as symbols in it), followed through modules that only import and re-export the name;
//! a chain of names as a module's imports bind it; a relative import to the absolute name
//! it stands for; a project file to its dotted name. Never runs the code: what does not
//! resolve is `None`. Shared by a failing test's suspects and a symbol's references.

use std::path::{Path, PathBuf};

use crate::python::{Dotted, Import, Symbol, imports};
use crate::resources::source::modules::Modules;
use crate::resources::source::project::Project;

/// How many modules a name is followed through (`a` re-exports from `b`, which re-exports
/// from `c` …) before it counts as unresolved.
const HOPS: usize = 4;

/// A symbol found in a project module.
pub(crate) struct Found {
    pub(crate) module: PathBuf,
    pub(crate) symbol: Symbol,
    /// The symbols from the module's top down to it (for the file path).
    pub(crate) stems: Vec<String>,
}

/// How much of a dotted name must be a symbol.
#[derive(Clone, Copy)]
enum Match {
    /// The deepest symbol on its way: a class for a method it inherits.
    Deepest,
    /// The whole name.
    Whole,
}

/// What finds symbols in one project, through its parsed modules.
pub(crate) struct Resolver<'p> {
    project: &'p Project,
    modules: &'p Modules,
}

impl<'p> Resolver<'p> {
    pub(crate) fn new(project: &'p Project, modules: &'p Modules) -> Resolver<'p> {
        Resolver { project, modules }
    }

    /// `chain` as bound by `imports` of module `file`, found in the project.
    pub(crate) fn through_imports(
        &self,
        file: &Path,
        imports: &[Import],
        chain: Dotted<'_>,
        hops: usize,
    ) -> Option<Found> {
        self.through_imports_as(file, imports, chain, hops, Match::Deepest)
    }

    fn through_imports_as(
        &self,
        file: &Path,
        imports: &[Import],
        chain: Dotted<'_>,
        hops: usize,
        wanted: Match,
    ) -> Option<Found> {
        let (head, rest) = chain.split_first()?;
        // `target` with `names` after it, as one dotted name.
        let under = |target: String, names: Dotted<'_>| -> Vec<String> {
            target
                .split('.')
                .map(str::to_string)
                .chain(names.parts().iter().cloned())
                .collect()
        };
        // The last binding wins, as in Python; one that leads nowhere in the project (`try:
        // from ._speedups import escape`, a C extension) gives way to the one before it.
        let mut bound = imports
            .iter()
            .rev()
            .filter(|i| !i.star && i.local == head)
            .peekable();
        if bound.peek().is_some() {
            return bound.find_map(|import| {
                let name = under(self.absolute(file, import)?, rest);
                self.locate_as(Dotted::new(&name), hops, wanted)
            });
        }
        imports.iter().filter(|i| i.star).find_map(|import| {
            let name = under(self.absolute(file, import)?, chain);
            self.locate_as(Dotted::new(&name), hops, wanted)
        })
    }

    /// The absolute dotted name an import in `file` names.
    pub(crate) fn absolute(&self, file: &Path, import: &Import) -> Option<String> {
        if import.level == 0 {
            return Some(import.target.clone());
        }
        let dotted = self.dotted_of(file)?;
        let mut parts: Vec<&str> = dotted.split('.').collect();
        // A package's `__init__` is its package: one level less to climb.
        let is_init = file.file_stem().is_some_and(|s| s == "__init__");
        let climb = import.level as usize - usize::from(is_init);
        if climb > parts.len() {
            return None;
        }
        parts.truncate(parts.len() - climb);
        parts.extend(import.target.split('.').filter(|p| !p.is_empty()));
        Some(parts.join("."))
    }

    /// The dotted name of project file `file` (a package's `__init__.py` is the package).
    pub(crate) fn dotted_of(&self, file: &Path) -> Option<String> {
        let rel = self
            .project
            .code_roots
            .iter()
            .filter_map(|r| file.strip_prefix(r).ok())
            .min_by_key(|p| p.components().count())?
            .with_extension("");
        let mut parts: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if parts.last().is_some_and(|p| p == "__init__") {
            parts.pop();
        }
        Some(parts.join("."))
    }

    /// The symbol `dotted` (`package.module.Class.method`) names in the project, followed
    /// through re-exports.
    pub(crate) fn locate_symbol(&self, dotted: Dotted<'_>) -> Option<Found> {
        self.locate(dotted, 0)
    }

    /// The definition `dotted` names itself, followed through re-exports: no class for a
    /// method it only inherits, nor for a misspelt one (what `def:` and `refs:` answer).
    pub(crate) fn locate_definition(&self, dotted: Dotted<'_>) -> Option<Found> {
        self.locate_as(dotted, 0, Match::Whole)
    }

    /// The symbol `dotted` names in the project: its longest prefix that is a project
    /// module, then the rest as symbols in it, followed through the module's own imports
    /// when it only re-exports the name.
    pub(crate) fn locate(&self, dotted: Dotted<'_>, hops: usize) -> Option<Found> {
        self.locate_as(dotted, hops, Match::Deepest)
    }

    fn locate_as(&self, dotted: Dotted<'_>, hops: usize, wanted: Match) -> Option<Found> {
        if hops > HOPS {
            return None;
        }
        let (module, taken) = dotted
            .prefixes()
            .find_map(|name| self.module_file(name).map(|m| (m, name.len())))?;
        let (_, rest) = dotted.split_at(taken);
        if rest.is_empty() {
            return None;
        }
        // The deepest symbol of `rest` the module defines (a method a class inherits stops
        // at the class), or `rest` whole.
        let found = match wanted {
            Match::Deepest => rest
                .prefixes()
                .find_map(|qualname| self.symbol_in(&module, qualname)),
            Match::Whole => self.symbol_in(&module, rest),
        };
        if found.is_some() {
            return found;
        }
        let parsed = self.modules.get(None, &module).ok()?;
        let text = parsed.text().ok()?;
        self.through_imports_as(&module, &imports(text), rest, hops + 1, wanted)
    }

    /// The symbol of `module` whose qualified name is `qualname`: the plain name, not a
    /// second definition (`name@2`), when there is one.
    pub(crate) fn symbol_in(&self, module: &Path, qualname: Dotted<'_>) -> Option<Found> {
        let parsed = self.modules.get(None, module).ok()?;
        let symbols = &parsed.index.symbols;
        let mut same = symbols
            .iter()
            .enumerate()
            .filter(|(_, s)| s.qualname == qualname.parts());
        let first = same.next()?;
        let (at, symbol) = std::iter::once(first)
            .chain(same)
            .find(|(_, s)| !s.file_stem.contains('@'))
            .unwrap_or(first);
        Some(Found {
            module: module.to_path_buf(),
            stems: stems(symbols, at),
            symbol: symbol.clone(),
        })
    }

    /// The project module (`a/b.py` or `a/b/__init__.py` under a code root) of `dotted`.
    pub(crate) fn module_file(&self, dotted: Dotted<'_>) -> Option<PathBuf> {
        let rel = dotted.as_path();
        self.project.code_roots.iter().find_map(|root| {
            let file = root.join(&rel).with_extension("py");
            let init = root.join(&rel).join("__init__.py");
            [file, init]
                .into_iter()
                .find(|f| f.is_file() && !self.project.is_hidden(f, false))
        })
    }
}

/// The file stems from the module's top symbol down to symbol `at`.
pub(crate) fn stems(symbols: &[Symbol], at: usize) -> Vec<String> {
    let mut stems = Vec::new();
    let mut next = Some(at);
    while let Some(i) = next {
        let Some(symbol) = symbols.get(i) else { break };
        stems.push(symbol.file_stem.clone());
        next = symbol.parent;
    }
    stems.reverse();
    stems
}
