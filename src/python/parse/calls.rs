//! What a line of Python calls, and what the names it calls are bound to: the facts behind
//! a failing test's suspects. For a line, the call chains of the statement holding it
//! (`mi.windowed(...)` is `["mi", "windowed"]`); for a module, its imports and the local
//! names it binds to a constructor call (`cash = Account(...)`), so that the caller can
//! follow `cash.debit` to `Account.debit`. Part of the parser boundary (see `mod.rs`).

use ruff_python_ast::visitor::{Visitor, walk_expr, walk_stmt};
use ruff_python_ast::{Expr, Stmt};
use ruff_text_size::Ranged;

use super::{WALK, with_module_at};
use crate::python::lines::LineTable;

/// One name an `import` statement binds at the top of a module (also inside top-level
/// `if`/`try` blocks).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Import {
    /// The name bound here: `np` for `import numpy as np`, `os` for `import os.path`.
    pub local: String,
    /// What it stands for, dotted: `numpy`, `os`, `pkg.mod.name`; after the leading dots
    /// of a relative import (see `level`).
    pub target: String,
    /// The leading dots of `from . import x` (1), `from ..a import b` (2); 0 when absolute.
    pub level: u32,
    /// `from target import *`: `local` is empty, every public name of `target` is bound.
    pub star: bool,
}

/// What the statement at one line calls, and what the module binds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LineCalls {
    /// The callee of each call in the statement, as a chain of names (`a.b.c(...)` is
    /// `["a", "b", "c"]`), in source order; callees that are no plain chain (a subscript,
    /// a call's result) are left out.
    pub calls: Vec<Vec<String>>,
    /// The attributes the statement reads (`cash.balance`), as chains, in source order.
    pub attributes: Vec<Vec<String>>,
    /// The calls of the enclosing function's statements before this one (what set up the
    /// state the line checks), as chains, in source order.
    pub earlier: Vec<Vec<String>>,
    /// Names assigned a call's result before the line (`cash = Account(...)`), and the
    /// enclosing function's parameters whose default names something (`key=keys.hashkey`):
    /// the name and the chain it stands for, the last binding of a name winning.
    pub made: Vec<(String, Vec<String>)>,
    pub imports: Vec<Import>,
}

/// The imports of module `source` (empty when it does not parse).
pub fn imports(source: &str) -> Vec<Import> {
    with_module_at(
        source,
        ruff_python_ast::PythonVersion::latest(),
        WALK,
        |parsed| top_level_imports(&parsed.syntax().body),
    )
    .unwrap_or_default()
}

/// What the statement holding 1-based `line` of `source` calls, with the module's imports
/// and constructed names (empty when it does not parse or has no such line).
pub fn line_calls(source: &str, line: usize) -> LineCalls {
    let table = LineTable::new(source);
    if line == 0 || line > table.len() {
        return LineCalls::default();
    }
    let range = table.line_range(line - 1);
    let text = source.get(range.clone()).unwrap_or("");
    // The line's first non-blank byte: the statement holding it is the one that failed.
    let at = range.start + (text.len() - text.trim_start().len());
    with_module_at(
        source,
        ruff_python_ast::PythonVersion::latest(),
        WALK,
        |parsed| {
            let body = &parsed.syntax().body;
            let mut finder = Innermost {
                at,
                found: None,
                function: None,
                defaults: Vec::new(),
            };
            finder.visit_body(body);
            let Some((start, end)) = finder.found else {
                return LineCalls::default();
            };
            let mut collector = Calls::new(start, end);
            collector.visit_body(body);
            let mut before = Calls::new(finder.function.unwrap_or(start), start);
            before.visit_body(body);
            let mut made: Vec<(String, Vec<String>)> = Vec::new();
            for (name, chain) in finder.defaults.into_iter().chain(collector.made) {
                made.retain(|(n, _)| *n != name);
                made.push((name, chain));
            }
            LineCalls {
                calls: collector.calls,
                attributes: collector.attributes,
                earlier: before.calls,
                made,
                imports: top_level_imports(body),
            }
        },
    )
    .unwrap_or_default()
}

/// Finds the innermost statement holding offset `at`, as the byte span of its own text: a
/// compound statement's header only (its body holds statements of their own); and where
/// the body of the innermost function holding it starts.
struct Innermost {
    at: usize,
    found: Option<(usize, usize)>,
    function: Option<usize>,
    /// That function's parameters whose default is a chain of names.
    defaults: Vec<(String, Vec<String>)>,
}

impl<'a> Visitor<'a> for Innermost {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        let range = stmt.range();
        let (start, end) = (range.start().to_usize(), range.end().to_usize());
        if self.at < start || self.at >= end {
            return;
        }
        let body = first_body(stmt).map(|s| s.range().start().to_usize());
        let header_end = body.unwrap_or(end);
        if let (Stmt::FunctionDef(def), Some(body)) = (stmt, body)
            && self.at >= body
        {
            self.function = Some(body);
            self.defaults = def
                .parameters
                .iter_non_variadic_params()
                .filter_map(|p| {
                    let chain = chain(p.default.as_deref()?)?;
                    Some((p.parameter.name.to_string(), chain))
                })
                .collect();
        }
        self.found = Some((start, header_end));
        walk_stmt(self, stmt);
    }
    // Expressions hold no statements (lambdas hold expressions only).
    fn visit_expr(&mut self, _: &'a Expr) {}
}

/// The first statement of a compound statement's first body, if it is one.
fn first_body(stmt: &Stmt) -> Option<&Stmt> {
    match stmt {
        Stmt::FunctionDef(s) => s.body.first(),
        Stmt::ClassDef(s) => s.body.first(),
        Stmt::If(s) => s.body.first(),
        Stmt::For(s) => s.body.first(),
        Stmt::While(s) => s.body.first(),
        Stmt::With(s) => s.body.first(),
        Stmt::Try(s) => s.body.first(),
        Stmt::Match(s) => s.cases.first().and_then(|c| c.body.first()),
        _ => None,
    }
}

/// Collects the calls and attribute reads within `start..end`, and constructor
/// assignments before `start`.
struct Calls {
    start: usize,
    end: usize,
    calls: Vec<Vec<String>>,
    attributes: Vec<Vec<String>>,
    made: Vec<(String, Vec<String>)>,
}

impl Calls {
    fn new(start: usize, end: usize) -> Calls {
        Calls {
            start,
            end,
            calls: Vec::new(),
            attributes: Vec::new(),
            made: Vec::new(),
        }
    }
}

impl<'a> Visitor<'a> for Calls {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        let range = stmt.range();
        if range.start().to_usize() >= self.end {
            return;
        }
        if let Stmt::Assign(assign) = stmt
            && range.end().to_usize() <= self.start
            && let [Expr::Name(target)] = assign.targets.as_slice()
            && let Expr::Call(call) = assign.value.as_ref()
            && let Some(chain) = chain(&call.func)
        {
            self.made.push((target.id.to_string(), chain));
        }
        walk_stmt(self, stmt);
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        let range = expr.range();
        if range.end().to_usize() <= self.start || range.start().to_usize() >= self.end {
            return;
        }
        match expr {
            Expr::Call(call) => {
                if let Some(chain) = chain(&call.func) {
                    if !self.calls.contains(&chain) {
                        self.calls.push(chain);
                    }
                    // The callee is named; only its arguments may hold more.
                    for argument in call.arguments.iter_source_order() {
                        match argument {
                            ruff_python_ast::ArgOrKeyword::Arg(e) => self.visit_expr(e),
                            ruff_python_ast::ArgOrKeyword::Keyword(k) => self.visit_expr(&k.value),
                        }
                    }
                    return;
                }
            }
            Expr::Attribute(_) => {
                if let Some(chain) = chain(expr) {
                    if !self.attributes.contains(&chain) {
                        self.attributes.push(chain);
                    }
                    return;
                }
            }
            _ => {}
        }
        walk_expr(self, expr);
    }
}

/// `a.b.c` as `["a", "b", "c"]`; `None` for anything that is no chain of names.
fn chain(expr: &Expr) -> Option<Vec<String>> {
    names_of(expr, false)
}

/// [`chain`], a call in the middle read through: `a(x).b` is `["a", "b"]` (what a call
/// returns is read on what was called, as an instance's attribute on its class).
pub(super) fn chain_through_calls(expr: &Expr) -> Option<Vec<String>> {
    names_of(expr, true)
}

fn names_of(expr: &Expr, through_calls: bool) -> Option<Vec<String>> {
    let mut names = Vec::new();
    let mut at = expr;
    loop {
        match at {
            Expr::Name(name) => {
                names.push(name.id.to_string());
                break;
            }
            Expr::Attribute(attribute) => {
                names.push(attribute.attr.to_string());
                at = &attribute.value;
            }
            Expr::Call(call) if through_calls && !names.is_empty() => at = &call.func,
            _ => return None,
        }
    }
    names.reverse();
    Some(names)
}

/// The imports of a module body that run at its top level (see
/// [`super::top_level_statements`]).
pub(super) fn top_level_imports(body: &[Stmt]) -> Vec<Import> {
    let mut found = Vec::new();
    for stmt in super::top_level_statements(body) {
        match stmt {
            Stmt::Import(import) => {
                for alias in &import.names {
                    let dotted = alias.name.to_string();
                    found.push(match &alias.asname {
                        Some(local) => Import {
                            local: local.to_string(),
                            target: dotted,
                            level: 0,
                            star: false,
                        },
                        // `import a.b` binds `a`.
                        None => {
                            let top = dotted.split('.').next().unwrap_or(&dotted).to_string();
                            Import {
                                local: top.clone(),
                                target: top,
                                level: 0,
                                star: false,
                            }
                        }
                    });
                }
            }
            Stmt::ImportFrom(import) => {
                let module = import
                    .module
                    .as_ref()
                    .map(|m| m.to_string())
                    .unwrap_or_default();
                for alias in &import.names {
                    let name = alias.name.to_string();
                    let star = name == "*";
                    let target = match (module.is_empty(), star) {
                        (_, true) => module.clone(),
                        (true, false) => name.clone(),
                        (false, false) => format!("{module}.{name}"),
                    };
                    found.push(Import {
                        local: if star {
                            String::new()
                        } else {
                            alias
                                .asname
                                .as_ref()
                                .map_or(name, |local| local.to_string())
                        },
                        target,
                        level: import.level,
                        star,
                    });
                }
            }
            _ => {}
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(chains: &[Vec<String>]) -> Vec<String> {
        chains.iter().map(|c| c.join(".")).collect()
    }

    #[test]
    fn the_calls_of_the_failing_statement_are_its_callees_in_order() {
        let source = "import more_itertools as mi\n\ndef test_w():\n    data = list(range(3))\n    assert list(mi.windowed(data,\n        n=2)) == [(0, 1)]\n    other()\n";
        let facts = line_calls(source, 5);
        assert_eq!(names(&facts.calls), ["list", "mi.windowed"]);
        // A continuation line belongs to the same statement.
        assert_eq!(names(&line_calls(source, 6).calls), ["list", "mi.windowed"]);
        assert_eq!(names(&line_calls(source, 7).calls), ["other"]);
    }

    #[test]
    fn a_parameter_defaulting_to_a_name_stands_for_it() {
        let source = "class T:\n    def test_key(self, key=cachetools.keys.typedkey, n=3):\n        self.assertEqual(key(1), key(1.0))\n";
        let facts = line_calls(source, 3);
        assert_eq!(names(&facts.calls), ["self.assertEqual", "key"]);
        assert_eq!(
            facts.made,
            [(
                "key".to_string(),
                vec!["cachetools".into(), "keys".into(), "typedkey".into()]
            )]
        );
    }

    #[test]
    fn attributes_read_on_the_line_are_chains_too() {
        let source =
            "def test():\n    cash.debit(f(x.y))\n    assert cash.balance == Decimal('1')\n";
        let facts = line_calls(source, 3);
        assert_eq!(names(&facts.attributes), ["cash.balance"]);
        assert_eq!(names(&facts.calls), ["Decimal"]);
        assert_eq!(names(&facts.earlier), ["cash.debit", "f"]);
        assert_eq!(names(&line_calls(source, 2).attributes), ["x.y"]);
    }

    #[test]
    fn a_compound_statement_gives_its_header_not_its_body() {
        let source = "def test():\n    with pytest.raises(ValueError):\n        parse('x')\n";
        assert_eq!(names(&line_calls(source, 2).calls), ["pytest.raises"]);
        assert_eq!(names(&line_calls(source, 3).calls), ["parse"]);
    }

    #[test]
    fn constructed_names_before_the_line_are_known_by_their_callee() {
        let source = "def test():\n    cash = Account('a')\n    cash = ledger.Account('b')\n    cash.debit(5)\n    late = Other()\n";
        let facts = line_calls(source, 4);
        assert_eq!(names(&facts.calls), ["cash.debit"]);
        assert_eq!(names(&facts.earlier), ["Account", "ledger.Account"]);
        assert_eq!(
            facts.made,
            [("cash".to_string(), vec!["ledger".into(), "Account".into()])]
        );
    }

    #[test]
    fn imports_say_what_each_local_name_stands_for() {
        let source = "import os.path\nimport numpy as np\nfrom . import sibling\nfrom ..pkg.mod import thing as t, *\ntry:\n    from fast import speed\nexcept ImportError:\n    speed = None\ndef f():\n    import hidden\n";
        let found: Vec<(String, String, u32, bool)> = imports(source)
            .into_iter()
            .map(|i| (i.local, i.target, i.level, i.star))
            .collect();
        let expect = |l: &str, t: &str, level, star| (l.to_string(), t.to_string(), level, star);
        assert_eq!(
            found,
            [
                expect("os", "os", 0, false),
                expect("np", "numpy", 0, false),
                expect("sibling", "sibling", 1, false),
                expect("t", "pkg.mod.thing", 2, false),
                expect("", "pkg.mod", 2, true),
                expect("speed", "fast.speed", 0, false),
            ]
        );
    }

    #[test]
    fn no_line_or_no_parse_gives_nothing() {
        assert_eq!(line_calls("x = f()\n", 9), LineCalls::default());
        assert_eq!(line_calls("", 1), LineCalls::default());
        assert!(imports("def (:\n").len() <= 1);
    }
}
