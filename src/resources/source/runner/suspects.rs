//! The project symbols a failing test most likely points at, as symbol files: the functions
//! its traceback passes through in the project (the deepest, where it raised, first), then
//! what the test's failing line calls or reads, then what the test called before it —
//! each name followed through the test module's imports (`import pkg as mi`, `from pkg.mod
//! import f`, relative and `*` imports) and through packages that re-export it, and a local
//! made by a constructor (`cash = Account(...)`) standing for its class. A guess from the
//! text, cheap and never run: what does not resolve to a project symbol is left out.

use std::path::{Path, PathBuf};

use crate::python::{Dotted, LineCalls, line_calls};
use crate::resources::source::resolve::{Found, Resolver, stems};
use crate::resources::source::runner::Runner;
use crate::testrun::traceback::Frame;

/// Suspects named per failure: more would bury the likely ones.
const MOST: usize = 4;
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
    /// Whether a reason ranks it (changed, raised here, ran only by failing tests, …),
    /// not its score alone (`ran by 2 failing and 2 passing tests`).
    pub reasoned: bool,
}

impl Runner {
    /// What finds the project's symbols by name, for this runner's project.
    pub(super) fn resolver(&self) -> Resolver<'_> {
        Resolver::new(&self.project, &self.modules)
    }

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
        let mut found = self
            .resolver()
            .through_imports(test, &facts.imports, chain, 0)?;
        if called && found.symbol.kind == crate::python::SymbolKind::Class {
            let mut init = found.symbol.qualname.clone();
            init.push("__init__".into());
            if let Some(constructor) = self.resolver().symbol_in(&found.module, Dotted::new(&init))
            {
                found = constructor;
            }
        }
        self.suspect(&found, why)
    }

    fn suspect(&self, found: &Found, why: Why) -> Option<Suspect> {
        self.suspect_of(found, why.label().to_string())
    }

    /// `found` as a suspect, suspected for `why`.
    pub(super) fn suspect_of(&self, found: &Found, why: String) -> Option<Suspect> {
        let shown = self.source_path_of(&found.module)?;
        let dotted_module = self.resolver().dotted_of(&found.module).unwrap_or_default();
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
            reasoned: true,
        })
    }
}
