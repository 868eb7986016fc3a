//! The project symbols a failing test most likely points at, as symbol files: the functions
//! its traceback passes through in the project (the deepest, where it raised, first), then
//! what the test's failing line calls or reads, then what the test called before it —
//! each name followed through the test module's imports (`import pkg as mi`, `from pkg.mod
//! import f`, relative and `*` imports) and through packages that re-export it, and a local
//! made by a constructor (`cash = Account(...)`) standing for its class. A guess from the
//! text, cheap and never run: what does not resolve to a project symbol is left out.

use std::path::{Path, PathBuf};

use crate::python::{Dotted, Import, LineCalls, Symbol, imports, line_calls};
use crate::resources::source::runner::Runner;
use crate::testrun::traceback::Frame;

/// Suspects named per failure: more would bury the likely ones.
const MOST: usize = 4;
/// How many re-exports (`from .more import *` in a package's `__init__`) a name is followed
/// through.
const HOPS: usize = 4;

/// Why a symbol is suspected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Why {
    /// The traceback's deepest project frame: where the error was raised.
    Raised,
    /// A project frame the traceback passed through.
    Passed,
    /// Called or read on the test's failing line.
    OnTheLine,
    /// Called by the test before the failing line.
    Before,
}

impl Why {
    fn label(self) -> &'static str {
        match self {
            Why::Raised => "raised here",
            Why::Passed => "in the traceback",
            Why::OnTheLine => "on the failing line",
            Why::Before => "called before it",
        }
    }
}

/// A suspected symbol.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Suspect {
    /// `ledger.accounts.Account.debit`
    pub dotted: String,
    /// Its symbol file under `source/`: `ledger/accounts/Account/debit.py`.
    pub file: String,
    /// Where it is in its module, from the project's folder: `src/ledger/accounts.py:61-64`.
    pub lines: String,
    /// Why, in a few words (`raised here`; `changed since the last green run, ran only by
    /// failing tests`).
    pub why: String,
    /// Its score when ranked from a traced run (0 to 1); `None` when guessed from the text.
    pub score: Option<f64>,
    /// The lines of its module that ranked highest, when ranked.
    pub hot: Vec<u32>,
    /// A one-token change in it that made the failing test pass, when the probe found one.
    pub fix: Option<crate::testrun::probe::Fix>,
}

/// A symbol found in a project module.
pub(super) struct Found {
    pub(super) module: PathBuf,
    pub(super) symbol: Symbol,
    /// The symbols from the module's top down to it (for the file path).
    pub(super) stems: Vec<String>,
}

impl Runner {
    /// The suspects of a failure whose traceback has `frames` (outermost first).
    pub(crate) fn suspects(&self, frames: &[Frame]) -> Vec<Suspect> {
        let mut found: Vec<Suspect> = Vec::new();
        let add = |suspect: Option<Suspect>, found: &mut Vec<Suspect>| {
            if let Some(s) = suspect
                && !found.iter().any(|f| f.dotted == s.dotted)
            {
                found.push(s);
            }
        };
        let located: Vec<(PathBuf, usize)> = frames
            .iter()
            .filter_map(|f| {
                let path = self.project.root.join(&f.file);
                (path.is_file() && !self.project.is_hidden(&path, false)).then_some((path, f.line))
            })
            .collect();
        let code: Vec<&(PathBuf, usize)> = located
            .iter()
            .filter(|(p, _)| !self.project.is_test_file(p))
            .collect();
        for (n, (file, line)) in code.iter().rev().enumerate() {
            let why = if n == 0 { Why::Raised } else { Why::Passed };
            add(self.enclosing(file, *line, why), &mut found);
        }
        if let Some((test, line)) = located
            .iter()
            .rev()
            .find(|(p, _)| self.project.is_test_file(p))
            && let Ok(module) = self.modules.get(None, test)
            && let Ok(text) = module.text()
        {
            let facts = line_calls(text, *line);
            let on_line = facts.calls.iter().map(|c| (c, true));
            let read = facts.attributes.iter().map(|c| (c, false));
            for (chain, called) in on_line.chain(read) {
                add(
                    self.named_in_test(test, &facts, Dotted::new(chain), called, Why::OnTheLine),
                    &mut found,
                );
            }
            for chain in &facts.earlier {
                add(
                    self.named_in_test(test, &facts, Dotted::new(chain), true, Why::Before),
                    &mut found,
                );
            }
        }
        found.truncate(MOST);
        found
    }

    /// The innermost symbol of `file` holding 1-based `line`.
    fn enclosing(&self, file: &Path, line: usize, why: Why) -> Option<Suspect> {
        let module = self.modules.get(None, file).ok()?;
        let (at, _) = module
            .index
            .symbols
            .iter()
            .enumerate()
            .filter(|(_, s)| s.first_line <= line && line < s.first_line + s.lines)
            .max_by_key(|(_, s)| s.qualname.len())?;
        let found = Found {
            module: file.to_path_buf(),
            stems: stems(&module.index.symbols, at),
            symbol: module.index.symbols[at].clone(),
        };
        self.suspect(&found, why)
    }

    /// The project symbol that `chain`, named in test module `test`, stands for; a class
    /// that is `called` stands for its `__init__` when it has one.
    fn named_in_test(
        &self,
        test: &Path,
        facts: &LineCalls,
        chain: Dotted<'_>,
        called: bool,
        why: Why,
    ) -> Option<Suspect> {
        let (head, rest) = chain.split_first()?;
        let made: Vec<String>;
        let chain = match facts.made.iter().find(|(name, _)| name == head) {
            Some((_, stands_for)) => {
                made = stands_for.iter().chain(rest.parts()).cloned().collect();
                Dotted::new(&made)
            }
            None => chain,
        };
        let mut found = self.through_imports(test, &facts.imports, chain, 0)?;
        if called && found.symbol.kind == crate::python::SymbolKind::Class {
            let mut init = found.symbol.qualname.clone();
            init.push("__init__".into());
            if let Some(constructor) = self.symbol_in(&found.module, Dotted::new(&init)) {
                found = constructor;
            }
        }
        self.suspect(&found, why)
    }

    /// `chain` as bound by `imports` of module `file`, found in the project.
    fn through_imports(
        &self,
        file: &Path,
        imports: &[Import],
        chain: Dotted<'_>,
        hops: usize,
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
        if let Some(import) = imports.iter().find(|i| !i.star && i.local == head) {
            let name = under(self.absolute(file, import)?, rest);
            return self.locate(Dotted::new(&name), hops);
        }
        imports.iter().filter(|i| i.star).find_map(|import| {
            let name = under(self.absolute(file, import)?, chain);
            self.locate(Dotted::new(&name), hops)
        })
    }

    /// The absolute dotted name an import in `file` names.
    fn absolute(&self, file: &Path, import: &Import) -> Option<String> {
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
    fn dotted_of(&self, file: &Path) -> Option<String> {
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
    pub(super) fn locate_symbol(&self, dotted: Dotted<'_>) -> Option<Found> {
        self.locate(dotted, 0)
    }

    /// The symbol `dotted` names in the project: its longest prefix that is a project
    /// module, then the rest as symbols in it, followed through the module's own imports
    /// when it only re-exports the name.
    fn locate(&self, dotted: Dotted<'_>, hops: usize) -> Option<Found> {
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
        // at the class).
        if let Some(found) = rest
            .prefixes()
            .find_map(|qualname| self.symbol_in(&module, qualname))
        {
            return Some(found);
        }
        let parsed = self.modules.get(None, &module).ok()?;
        let text = parsed.text().ok()?;
        self.through_imports(&module, &imports(text), rest, hops + 1)
    }

    /// The symbol of `module` whose qualified name is `qualname`: the plain name, not a
    /// second definition (`name@2`), when there is one.
    fn symbol_in(&self, module: &Path, qualname: Dotted<'_>) -> Option<Found> {
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
    pub(super) fn module_file(&self, dotted: Dotted<'_>) -> Option<PathBuf> {
        let rel = dotted.as_path();
        self.project.code_roots.iter().find_map(|root| {
            let file = root.join(&rel).with_extension("py");
            let init = root.join(&rel).join("__init__.py");
            [file, init]
                .into_iter()
                .find(|f| f.is_file() && !self.project.is_hidden(f, false))
        })
    }

    fn suspect(&self, found: &Found, why: Why) -> Option<Suspect> {
        self.suspect_of(found, why.label().to_string())
    }

    /// `found` as a suspect, suspected for `why`.
    pub(super) fn suspect_of(&self, found: &Found, why: String) -> Option<Suspect> {
        let shown = self.source_path_of(&found.module)?;
        let dotted_module = self.dotted_of(&found.module).unwrap_or_default();
        let rel = found
            .module
            .strip_prefix(&self.project.root)
            .unwrap_or(&found.module);
        let first = found.symbol.first_line;
        let last = first + found.symbol.lines.saturating_sub(1);
        Some(Suspect {
            dotted: format!("{dotted_module}.{}", Dotted::new(&found.symbol.qualname)),
            file: format!("{shown}/{}.py", found.stems.join("/")),
            lines: format!("{}:{first}-{last}", rel.display()),
            why,
            fix: None,
            score: None,
            hot: Vec::new(),
        })
    }
}

/// The file stems from the module's top symbol down to symbol `at`.
pub(super) fn stems(symbols: &[Symbol], at: usize) -> Vec<String> {
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
