//! `search/refs:<name>`: who calls or names a class, function or method, found from the
//! parse of every module and its imports, not from its text alone.
//!
//! The symbol is named as for `def:` and must be one definition. Each module that holds
//! the symbol's name (or imports something under another name) is parsed for the chains
//! of names it reads (`uses.rs`), and each chain is resolved as Python would bind it:
//! - through the module's imports, aliases (`import pkg.mod as m`, `from .x import A as
//!   B`) and packages that re-export the name (`resolve.rs`);
//! - `self.` and `cls.` as the enclosing class, `super().` as its bases;
//! - a local assigned a call (`cash = Account(...)`) as what was called, so `cash.debit`
//!   is `Account.debit`;
//! - a method a class inherits, through the bases the project defines.
//!
//! An import statement that names the symbol counts as naming it. A call of a method of
//! the same name on a value whose type the code does not say (`acct.debit(5)` with `acct`
//! a parameter) cannot be resolved statically: those lines come after the resolved ones,
//! said as such. Definitions themselves are not references.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::definitions::matching;
use super::scan::Found as Line;
use super::{Searcher, hit};
use crate::error::{Error, Result};
use crate::model::{Hit, Hits};
use crate::python::{Dotted, Import, ModuleUses, Use, module_uses};
use crate::resources::source::resolve::{Found, Resolver};

/// Classes followed up their bases for an inherited method.
const BASES_CLIMBED: usize = 4;
/// The most lines an answer holds.
const MOST: usize = 1000;

/// Who calls or names the symbol `name` names.
pub(super) fn references(searcher: &Searcher, name: &str) -> Result<Hits> {
    let matched = matching(searcher, name);
    let target = match matched.as_slice() {
        [one] => one,
        [] => {
            return Err(Error::not_found(format!(
                "no class or function named `{name}` in the project's Python files: \
                 {} finds every line that names it",
                searcher.links.to(&format!("search/source:{name}"))
            )));
        }
        several => {
            let names: Vec<String> = several
                .iter()
                .map(|m| {
                    let symbol = &m.index.symbols[m.at];
                    format!("refs:{}.{}", m.dotted, Dotted::new(&symbol.qualname))
                })
                .collect();
            return Err(Error::invalid(format!(
                "`{name}` names {} definitions; ask for one: {}",
                several.len(),
                names.join(", ")
            )));
        }
    };
    let symbol = &target.index.symbols[target.at];
    let wanted = Wanted {
        file: target.file.clone(),
        qualname: symbol.qualname.clone(),
    };
    let last = symbol.qualname.last().cloned().unwrap_or_default();
    let resolver = Resolver::new(&searcher.project, &searcher.modules);
    let listed = searcher.searched.files(&searcher.project);
    let test_dirs = searcher.project.test_dirs();
    let mut files: Vec<&PathBuf> = listed.paths[..listed.python].iter().collect();
    files.sort_by_key(|file| (test_dirs.iter().any(|t| file.starts_with(t)), *file));
    let (mut resolved, mut unresolved) = (Vec::new(), Vec::new());
    for file in files {
        let Ok(module) = searcher.modules.get(None, file) else {
            continue;
        };
        let Ok(text) = module.text() else { continue };
        // A module that never spells the name cannot name it, but through an alias
        // (`import … as`), which spells it where it is imported: still the name.
        if !text.contains(last.as_str()) {
            continue;
        }
        let uses = module_uses(text);
        let reading = Reading {
            resolver: &resolver,
            searcher,
            file,
            uses: &uses,
            wanted: &wanted,
        };
        let lines = LineStarts::of(text);
        let mut seen = HashSet::new();
        for used in &uses.uses {
            let line = lines.line_of(used.offset);
            if seen.contains(&line) {
                continue;
            }
            let kind = match reading.names_it(used, &last) {
                Some(true) => &mut resolved,
                Some(false) => &mut unresolved,
                None => continue,
            };
            seen.insert(line);
            kind.push(line_hit(searcher, file, text, &lines, line, used.offset));
        }
        if resolved.len() + unresolved.len() >= MOST {
            break;
        }
    }
    let every = resolved.len();
    let note = match unresolved.len() {
        0 => None,
        n => Some(format!(
            "{every} resolved; then {n} line{} calling a `.{last}` on a value whose type the \
             code does not say (not resolved statically)",
            if n == 1 { "" } else { "s" }
        )),
    };
    let hits: Vec<Hit> = resolved.into_iter().chain(unresolved).collect();
    Ok(Hits {
        total: hits.len(),
        hits,
        note,
        // Not `every`: the few unresolved lines share the first page when they fit.
        all_read: true,
        ..Hits::default()
    })
}

/// The symbol whose references are asked for.
struct Wanted {
    file: PathBuf,
    qualname: Vec<String>,
}

impl Wanted {
    fn is(&self, found: &Found) -> bool {
        found.module == self.file && found.symbol.qualname == self.qualname
    }
}

/// One module's uses, read for the wanted symbol.
struct Reading<'r> {
    resolver: &'r Resolver<'r>,
    searcher: &'r Searcher,
    file: &'r Path,
    uses: &'r ModuleUses,
    wanted: &'r Wanted,
}

impl Reading<'_> {
    /// `Some(true)` when `used` names the wanted symbol, `Some(false)` when it reads a
    /// `.name` of the same name on something that does not resolve, `None` otherwise.
    fn names_it(&self, used: &Use, last: &str) -> Option<bool> {
        if let Some(level) = used.import_level {
            let (name, module) = used.chain.split_last()?;
            let import = Import {
                local: String::new(),
                target: module.join("."),
                level,
                star: false,
            };
            let absolute = self.resolver.absolute(self.file, &import)?;
            let full: Vec<String> = absolute
                .split('.')
                .filter(|p| !p.is_empty())
                .map(str::to_string)
                .chain(std::iter::once(name.clone()))
                .collect();
            let found = self.resolver.locate_symbol(Dotted::new(&full))?;
            return self.wanted.is(&found).then_some(true);
        }
        let chain = &used.chain;
        let spelled = chain.iter().any(|part| part == last);
        let aliased = self.uses.imports.iter().any(|import| {
            import.local == chain[0] && import.target.rsplit('.').next() == Some(last)
        });
        if !spelled && !aliased {
            return None;
        }
        let mut resolved_any = false;
        for end in 1..=chain.len() {
            match self.resolve(&chain[..end], &used.scope) {
                Some(found) if self.wanted.is(&found) => return Some(true),
                Some(_) => resolved_any = true,
                None => {}
            }
        }
        let unknown_receiver = chain.len() > 1 && chain.last().is_some_and(|p| p == last);
        (unknown_receiver && !resolved_any).then_some(false)
    }

    /// The project symbol `chain`, read in `scope` of this module, stands for.
    fn resolve(&self, chain: &[String], scope: &[String]) -> Option<Found> {
        let (head, rest) = chain.split_first()?;
        if matches!(head.as_str(), "self" | "cls" | "super")
            && let Some(class) = self.enclosing_class(scope)
        {
            let owner = match head.as_str() {
                "super" => None,
                _ => Some(class.clone()),
            };
            return self.member(&class, owner, rest, 0);
        }
        // A local made by a call stands for what was called (the nearest scope's).
        if let Some((_, _, made)) = self
            .uses
            .made
            .iter()
            .filter(|(at, name, _)| name == head && scope.starts_with(at))
            .max_by_key(|(at, _, _)| at.len())
        {
            let mut stands_for = made.clone();
            stands_for.extend(rest.iter().cloned());
            if stands_for.len() > chain.len() + 8 {
                return None;
            }
            return self.resolve_plain(&stands_for);
        }
        self.resolve_plain(chain)
    }

    /// `chain` as the module's imports or its own top-level names bind its first name.
    fn resolve_plain(&self, chain: &[String]) -> Option<Found> {
        let found = if self
            .uses
            .imports
            .iter()
            .any(|i| !i.star && i.local == chain[0])
        {
            self.resolver
                .through_imports(self.file, &self.uses.imports, Dotted::new(chain), 0)
        } else {
            let module = self.resolver.dotted_of(self.file)?;
            let full: Vec<String> = module
                .split('.')
                .map(str::to_string)
                .chain(chain.iter().cloned())
                .collect();
            self.resolver.locate_symbol(Dotted::new(&full))
        }?;
        // `D.debit` where `D` only inherits `debit`: the lookup stops at the class.
        let depth = found.symbol.qualname.len();
        let asked = chain.len();
        if found.symbol.kind == crate::python::SymbolKind::Class && asked > 1 && depth > 0 {
            let rest = &chain[asked - 1..];
            let class = found.symbol.qualname.clone();
            let module = found.module.clone();
            return self.inherited(&module, &class, rest, 0).or(Some(found));
        }
        Some(found)
    }

    /// The class of this module holding `scope`, innermost first.
    fn enclosing_class(&self, scope: &[String]) -> Option<Vec<String>> {
        let module = self.searcher.modules.get(None, self.file).ok()?;
        (1..=scope.len()).rev().find_map(|end| {
            module
                .index
                .symbols
                .iter()
                .find(|s| s.kind == crate::python::SymbolKind::Class && s.qualname == scope[..end])
                .map(|s| s.qualname.clone())
        })
    }

    /// Member `rest` of class `class` of this module: its own (`owner` set), else
    /// inherited from its bases.
    fn member(
        &self,
        class: &[String],
        owner: Option<Vec<String>>,
        rest: &[String],
        climbed: usize,
    ) -> Option<Found> {
        if rest.is_empty() {
            return self.resolver.symbol_in(self.file, Dotted::new(class));
        }
        if owner.is_some() {
            let mut qualname = class.to_vec();
            qualname.extend(rest.iter().cloned());
            if let Some(found) = self.resolver.symbol_in(self.file, Dotted::new(&qualname)) {
                return Some(found);
            }
        }
        self.inherited(self.file, class, rest, climbed)
    }

    /// Member `rest` as the bases of class `class` of module `module` define it.
    fn inherited(
        &self,
        module: &Path,
        class: &[String],
        rest: &[String],
        climbed: usize,
    ) -> Option<Found> {
        if climbed >= BASES_CLIMBED {
            return None;
        }
        let text = self.searcher.modules.get(None, module).ok()?;
        let facts = module_uses(text.text().ok()?);
        let reading = Reading {
            file: module,
            uses: &facts,
            ..*self
        };
        let (_, bases) = facts.bases.iter().find(|(q, _)| q.as_slice() == class)?;
        bases.iter().find_map(|base| {
            let base_class = reading.resolve_plain(base)?;
            let mut qualname = base_class.symbol.qualname.clone();
            qualname.extend(rest.iter().cloned());
            self.resolver
                .symbol_in(&base_class.module, Dotted::new(&qualname))
                .or_else(|| {
                    reading.inherited(
                        &base_class.module,
                        &base_class.symbol.qualname,
                        rest,
                        climbed + 1,
                    )
                })
        })
    }
}

/// Where each line of a text starts, to turn offsets into 1-based lines.
struct LineStarts(Vec<usize>);

impl LineStarts {
    fn of(text: &str) -> LineStarts {
        let starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(at, _)| at + 1))
            .collect();
        LineStarts(starts)
    }

    fn line_of(&self, offset: usize) -> usize {
        self.0.partition_point(|&start| start <= offset)
    }

    fn text<'t>(&self, text: &'t str, line: usize) -> &'t str {
        let start = self.0.get(line - 1).copied().unwrap_or(text.len());
        let end = self.0.get(line).copied().unwrap_or(text.len());
        text.get(start..end).unwrap_or("").trim()
    }
}

/// The hit of `line` of `file`: as a search hit reads, module path, line and text, with
/// the symbol file of the definition holding `offset`.
fn line_hit(
    searcher: &Searcher,
    file: &Path,
    text: &str,
    lines: &LineStarts,
    line: usize,
    offset: usize,
) -> Hit {
    let shown: String = lines.text(text, line).chars().take(160).collect();
    hit(
        searcher,
        file,
        &Line {
            file: 0,
            line,
            offset,
            text: shown,
            definition: false,
            terms: 0,
        },
    )
}
