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
//!   is `Account.debit`, and a parameter annotated with a class (`ctx: Context`, `ctx:
//!   "Context"`) as an instance of it;
//! - a method a class inherits, through the bases the project defines;
//! - a function a project class decorates (`@curry def add`) as an instance of that
//!   class, so `add.bind` is `curry.bind`;
//! - a test's parameter that names a pytest fixture (of its module, else of the nearest
//!   conftest.py) whose class the code says (`def journal() -> Journal`, `return
//!   Journal(...)`) as an instance of that class.
//!
//! An import statement that names the symbol counts as naming it. A call of a method of
//! the same name on a value whose type the code does not say (`acct.debit(5)` with `acct`
//! a parameter) cannot be resolved statically: those lines come after the resolved ones,
//! said as such. Definitions themselves are not references.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use super::definitions::{matching, reexported};
use super::{Searcher, definition_name, python_files_code_first};
use crate::error::{Error, Result};
use crate::model::count::plural;
use crate::model::{Hit, Hits, Links};
use crate::python::{Dotted, Import, LineTable, ModuleUses, Use, module_uses};
use crate::resources::source::resolve::{Found, Resolver};

/// Classes followed up their bases for an inherited method.
const BASES_CLIMBED: usize = 4;
/// The most lines an answer holds.
const MOST: usize = 1000;

/// Who calls or names the symbol `name` names.
pub(super) fn references(searcher: &Searcher, name: &str) -> Result<Hits> {
    let mut matched = matching(searcher, name);
    // The public name of a definition kept elsewhere (`pkg.api.f` of `pkg._impl.f`).
    let mut through = None;
    if matched.is_empty()
        && let Some(defined) = reexported(searcher, name)
    {
        through = Some(format!(
            "`{}.{}`, re-exported as `{name}`",
            defined.dotted,
            Dotted::new(&defined.index.symbols[defined.at].qualname)
        ));
        matched.push(defined);
    }
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
    // Re-exported under another name (`from ._impl import _pipe as pipe`): its users
    // spell that name.
    let public = name
        .trim()
        .rsplit('.')
        .next()
        .unwrap_or_default()
        .to_string();
    let spellings: Vec<&str> = match through.is_some() && public != last {
        true => vec![last.as_str(), public.as_str()],
        false => vec![last.as_str()],
    };
    let resolver = Resolver::new(&searcher.project, &searcher.modules);
    let parsed = Parsed::default();
    let (mut resolved, mut unresolved) = (Vec::new(), Vec::new());
    for file in python_files_code_first(searcher) {
        let file = file.as_path();
        let Ok(module) = searcher.modules.get(None, file) else {
            continue;
        };
        let Ok(text) = module.text() else { continue };
        // A module that never spells the name cannot name it, but through an alias
        // (`import … as`), which spells it where it is imported: still the name.
        if !spellings.iter().any(|spelled| text.contains(spelled)) {
            continue;
        }
        let uses = parsed.uses(file, text);
        let reading = Reading {
            resolver: &resolver,
            searcher,
            parsed: &parsed,
            file,
            uses: &uses,
            wanted: &wanted,
        };
        let lines = LineTable::new(text);
        let mut seen = HashSet::new();
        for used in &uses.uses {
            let line = lines.line_of(used.offset) + 1;
            if seen.contains(&line) {
                continue;
            }
            // Named by any spelling, else unresolved by one (`None < Some(false) <
            // Some(true)`).
            let verdict = spellings
                .iter()
                .map(|spelled| reading.names_it(used, spelled))
                .max()
                .flatten();
            let Some(is_it) = verdict else {
                continue;
            };
            // Named and read only for the lines kept: most chains name something else.
            let found = Ref {
                name: definition_name(searcher, file, used.offset),
                line,
                text: line_text(text, &lines, line),
            };
            match is_it {
                true => resolved.push(found),
                false => {
                    let receiver = used.chain[..used.chain.len() - 1].join(".");
                    unresolved.push((receiver, found));
                }
            }
            seen.insert(line);
        }
        if resolved.len() + unresolved.len() >= MOST {
            break;
        }
    }
    let every = resolved.len();
    let mut notes: Vec<String> = through.into_iter().collect();
    if every + unresolved.len() > 0 {
        notes.push(format!(
            "`cat {}` reads a line's definition",
            searcher.links.to("source/<name>.py")
        ));
    }
    if !unresolved.is_empty() {
        let n = unresolved.len();
        let grouped = match n > UNRESOLVED_LISTED {
            true => ", by what they call it on",
            false => "",
        };
        notes.push(format!(
            "{every} resolved; then {n} line{} calling a `.{last}` on a value whose type the \
             code does not say (not resolved statically){grouped}",
            plural(n)
        ));
    }
    let note = (!notes.is_empty()).then(|| notes.join("; "));
    let total = resolved.len() + unresolved.len();
    let mut hits = one_per_definition(resolved);
    match unresolved.len() {
        n if n <= UNRESOLVED_LISTED => {
            hits.extend(one_per_definition(
                unresolved.into_iter().map(|(_, r)| r).collect(),
            ));
        }
        _ => hits.extend(by_receiver(&searcher.links, unresolved, &last)),
    }
    Ok(Hits {
        total,
        hits,
        note,
        // Not `every`: the few unresolved lines share the first page when they fit.
        all_read: true,
        ..Hits::default()
    })
}

/// The uses of each module parsed for one answer: a base class's module is read once
/// however many of its subclasses' lines climb to it.
#[derive(Default)]
struct Parsed(RefCell<HashMap<PathBuf, Rc<ModuleUses>>>);

impl Parsed {
    /// The uses of `file`, whose text is `text`.
    fn uses(&self, file: &Path, text: &str) -> Rc<ModuleUses> {
        let mut parsed = self.0.borrow_mut();
        let uses = parsed
            .entry(file.to_path_buf())
            .or_insert_with(|| Rc::new(module_uses(text)));
        Rc::clone(uses)
    }
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
    parsed: &'r Parsed,
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
            return self.resolve_plain(&stands_for);
        }
        // A test's parameter named like a fixture whose class the code says is an
        // instance of that class (`def test_x(journal)` with `def journal() -> Journal`).
        if !rest.is_empty()
            && self
                .uses
                .parameters
                .iter()
                .any(|(at, name)| name == head && scope.starts_with(at))
            && let Some(found) = self.through_fixture(head, rest)
        {
            return Some(found);
        }
        // A lookup that stops at a function short of the chain's end (`add.bind`) reads
        // on through what decorates it, if that is known.
        match self.resolve_plain(chain) {
            Some(found)
                if found.symbol.kind != crate::python::SymbolKind::Class
                    && found.symbol.qualname.last() != chain.last() =>
            {
                self.through_decorator(chain, scope).or(Some(found))
            }
            Some(found) => Some(found),
            None => self.through_decorator(chain, scope),
        }
    }

    /// `chain` read through a function it names that a project class decorates (`@curry
    /// def add` binds `add` to a `curry`): the rest is a member of that class. The
    /// function is one of this module's, the nearest enclosing `scope`'s first (a test
    /// decorates its own local functions), or one it imports.
    fn through_decorator(&self, chain: &[String], scope: &[String]) -> Option<Found> {
        let (head, rest) = chain.split_first()?;
        if rest.is_empty() {
            return None;
        }
        let local = (0..=scope.len()).rev().find_map(|end| {
            let mut qualname = scope[..end].to_vec();
            qualname.push(head.clone());
            self.uses
                .decorated
                .iter()
                .find(|(q, _)| *q == qualname)
                .map(|(_, decorator)| decorator.clone())
        });
        if let Some(decorator) = local {
            return self.member_of_class(self.resolve_plain(&decorator)?, rest);
        }
        (1..chain.len()).rev().find_map(|end| {
            let function = self.resolve_plain(&chain[..end])?;
            if function.symbol.kind == crate::python::SymbolKind::Class
                || function.symbol.qualname.last() != chain[..end].last()
            {
                return None;
            }
            let text = self.searcher.modules.get(None, &function.module).ok()?;
            let facts = self.parsed.uses(&function.module, text.text().ok()?);
            let (_, decorator) = facts
                .decorated
                .iter()
                .find(|(q, _)| *q == function.symbol.qualname)?;
            let reading = Reading {
                file: &function.module,
                uses: &facts,
                ..*self
            };
            self.member_of_class(reading.resolve_plain(decorator)?, &chain[end..])
        })
    }

    /// Member `rest` of the value of fixture `name`, as pytest finds the fixture for this
    /// module: its own, else the nearest conftest.py's from its folder up to the
    /// project's; `None` when that fixture's class is not said or is no project class.
    fn through_fixture(&self, name: &str, rest: &[String]) -> Option<Found> {
        if let Some((_, class)) = self.uses.fixtures.iter().find(|(n, _)| n == name) {
            return self.member_of_class(self.resolve_plain(class)?, rest);
        }
        let root = &self.searcher.project.root;
        let mut folder = self.file.parent();
        while let Some(dir) = folder.filter(|d| d.starts_with(root)) {
            let conftest = dir.join("conftest.py");
            if conftest != self.file
                && let Ok(module) = self.searcher.modules.get(None, &conftest)
                && let Ok(text) = module.text()
            {
                let facts = self.parsed.uses(&conftest, text);
                if let Some((_, class)) = facts.fixtures.iter().find(|(n, _)| n == name) {
                    let reading = Reading {
                        file: &conftest,
                        uses: &facts,
                        ..*self
                    };
                    return self.member_of_class(reading.resolve_plain(class)?, rest);
                }
            }
            folder = dir.parent();
        }
        None
    }

    /// Member `rest` of `class` (of an instance of it), its own or inherited; `None` when
    /// `class` is no class.
    fn member_of_class(&self, class: Found, rest: &[String]) -> Option<Found> {
        if class.symbol.kind != crate::python::SymbolKind::Class {
            return None;
        }
        let mut qualname = class.symbol.qualname.clone();
        qualname.extend(rest.iter().cloned());
        self.resolver
            .symbol_in(&class.module, Dotted::new(&qualname))
            .or_else(|| self.inherited(&class.module, &class.symbol.qualname, rest, 0))
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
        if found.symbol.kind == crate::python::SymbolKind::Class && chain.len() > 1 {
            let rest = &chain[chain.len() - 1..];
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
        let facts = self.parsed.uses(module, text.text().ok()?);
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

/// Unresolved lines listed one by one up to this many; past it they are counted by what
/// they call the method on (`runner.invoke` in 236 lines of tests is one line, not a page
/// of them).
const UNRESOLVED_LISTED: usize = 12;

/// The unresolved lines as one hit per receiver (`runner`), most lines first: how many,
/// the first, and the source search that lists them.
fn by_receiver(links: &Links, lines: Vec<(String, Ref)>, last: &str) -> Vec<Hit> {
    let mut groups: Vec<(String, Vec<Ref>)> = Vec::new();
    for (receiver, line) in lines {
        match groups.iter_mut().find(|(r, _)| *r == receiver) {
            Some((_, refs)) => refs.push(line),
            None => groups.push((receiver, vec![line])),
        }
    }
    // Most lines first; ties in the order met.
    groups.sort_by_key(|(_, refs)| std::cmp::Reverse(refs.len()));
    groups
        .into_iter()
        .map(|(receiver, refs)| {
            let first = &refs[0];
            let called = format!("{receiver}.{last}");
            let line = format!(
                "`{called}`: {} line{}, first {}:{}: {} — all: cat \"{}\"",
                refs.len(),
                plural(refs.len()),
                first.name,
                first.line,
                first.text,
                links.to(&format!("search/source:{called}"))
            );
            Hit::new(String::new(), line)
        })
        .collect()
}

/// A line that names the symbol, in the definition `name` names.
struct Ref {
    name: String,
    line: usize,
    text: String,
}

/// The lines as hits, one per run of lines in the same definition: its name, first line
/// and text (`ledger.accounts.Account.debit:65: …`), then each further line by number
/// under it (`66: …`), where repeating the name would cost more than the line.
fn one_per_definition(refs: Vec<Ref>) -> Vec<Hit> {
    let mut hits: Vec<(String, Hit)> = Vec::new();
    for one in refs {
        match hits.last_mut() {
            Some((name, hit)) if *name == one.name => {
                hit.after.push(format!("{}: {}", one.line, one.text));
            }
            _ => {
                let line = format!("{}:{}: {}", one.name, one.line, one.text);
                hits.push((one.name, Hit::new(String::new(), line)));
            }
        }
    }
    hits.into_iter().map(|(_, hit)| hit).collect()
}

/// Line `line` (from 1) of `text`, trimmed and cut to a search line's length.
fn line_text(text: &str, lines: &LineTable, line: usize) -> String {
    text.get(lines.line_range(line - 1))
        .unwrap_or("")
        .trim()
        .chars()
        .take(160)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn many_unresolved_lines_are_counted_by_what_they_call_the_method_on() {
        let line = |receiver: &str, n: usize| {
            let name = format!("tests.test_cli.test_{n}");
            let text = format!("{receiver}.invoke(cli)");
            (
                receiver.to_string(),
                Ref {
                    name,
                    line: n,
                    text,
                },
            )
        };
        let mut lines = vec![line("ctx", 1)];
        lines.extend((2..=14).map(|n| line("runner", n)));
        lines.push(line("ctx", 15));
        let hits = by_receiver(&Links::new("/mnt/hs"), lines, "invoke");
        let shown: Vec<&str> = hits.iter().map(|h| h.line.as_str()).collect();
        assert_eq!(
            shown,
            [
                "`runner.invoke`: 13 lines, first tests.test_cli.test_2:2: runner.invoke(cli) \
                 — all: cat \"/mnt/hs/search/source:runner.invoke\"",
                "`ctx.invoke`: 2 lines, first tests.test_cli.test_1:1: ctx.invoke(cli) \
                 — all: cat \"/mnt/hs/search/source:ctx.invoke\"",
            ]
        );
    }
}
