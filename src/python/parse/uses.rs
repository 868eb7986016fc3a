//! Where a module names things: every chain of names it reads (`total`, `ledger.total`,
//! `self.debit`, `Account(...).debit`), called or not, at its byte offset and inside which
//! definition; the names it imports, each import statement's names as chains too; the
//! locals it binds to a call (`cash = Account(...)`) per definition; and its classes'
//! bases — the facts behind a symbol's references. Part of the parser boundary (see
//! `mod.rs`): plain data out, no Ruff type.

use ruff_python_ast::visitor::{Visitor, walk_expr, walk_stmt};
use ruff_python_ast::{Expr, Stmt};
use ruff_text_size::Ranged;

use super::calls::{Import, chain_through_calls as chain, top_level_imports};
use super::{WALK, with_module_at};

/// One place a module names something.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Use {
    /// Byte offset of the chain's first name.
    pub offset: usize,
    /// The names read, outermost first: `a.b(...).c` is `["a", "b", "c"]` (a call in the
    /// middle stands for what it returns: an instance of a class, read on the class).
    pub chain: Vec<String>,
    /// The qualified name of the innermost class or function holding it (empty at the
    /// module's top level).
    pub scope: Vec<String>,
    /// `from a.b import c` names `a.b.c` here: `level` leading dots (0: absolute), and
    /// the chain is the module's parts then the name.
    pub import_level: Option<u32>,
}

/// What a module names, imports and binds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ModuleUses {
    pub uses: Vec<Use>,
    pub imports: Vec<Import>,
    /// `(scope, name, chain)`: in `scope`, `name` was assigned a call of `chain`, or is a
    /// parameter annotated as `chain` (`ctx: Context`, `ctx: "Context"`): either way an
    /// instance of what `chain` names, when that is a class.
    pub made: Vec<(Vec<String>, String, Vec<String>)>,
    /// `(class qualname, its bases as chains)`.
    pub bases: Vec<(Vec<String>, Vec<Vec<String>>)>,
    /// `(function qualname, its outermost decorator as a chain)`, for a decorator named
    /// without a call (`@curry`, `@toolz.curry`): the name is bound to what it returns.
    pub decorated: Vec<(Vec<String>, Vec<String>)>,
    /// `(fixture name, chain)`: a pytest fixture (`@pytest.fixture`, `@fixture(...)`,
    /// named as its `name=` says or as the function) whose value is an instance of what
    /// `chain` names: its return annotation, else what its body returns or yields a call
    /// of (`return Journal(...)`).
    pub fixtures: Vec<(String, Vec<String>)>,
    /// `(function qualname, name)`: a parameter of a function without an annotation
    /// (not `self` or `cls`): a test's may be a fixture.
    pub parameters: Vec<(Vec<String>, String)>,
}

/// What `source` names (empty when it does not parse).
pub fn module_uses(source: &str) -> ModuleUses {
    with_module_at(
        source,
        ruff_python_ast::PythonVersion::latest(),
        WALK,
        |parsed| {
            let body = &parsed.syntax().body;
            let mut walker = Walker::default();
            walker.visit_body(body);
            ModuleUses {
                uses: walker.uses,
                imports: top_level_imports(body),
                made: walker.made,
                bases: walker.bases,
                decorated: walker.decorated,
                fixtures: walker.fixtures,
                parameters: walker.parameters,
            }
        },
    )
    .unwrap_or_default()
}

#[derive(Default)]
struct Walker {
    scope: Vec<String>,
    uses: Vec<Use>,
    made: Vec<(Vec<String>, String, Vec<String>)>,
    bases: Vec<(Vec<String>, Vec<Vec<String>>)>,
    decorated: Vec<(Vec<String>, Vec<String>)>,
    fixtures: Vec<(String, Vec<String>)>,
    parameters: Vec<(Vec<String>, String)>,
}

impl Walker {
    fn used(&mut self, offset: usize, chain: Vec<String>, import_level: Option<u32>) {
        self.uses.push(Use {
            offset,
            chain,
            scope: self.scope.clone(),
            import_level,
        });
    }
}

impl<'a> Visitor<'a> for Walker {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        match stmt {
            Stmt::FunctionDef(def) => {
                // Decorators, defaults and annotations run in the enclosing scope.
                for decorator in &def.decorator_list {
                    self.visit_expr(&decorator.expression);
                }
                self.visit_parameters(&def.parameters);
                if let Some(returns) = &def.returns {
                    self.visit_expr(returns);
                }
                self.scope.push(def.name.to_string());
                for parameter in def.parameters.iter_non_variadic_params() {
                    let parameter = &parameter.parameter;
                    match parameter.annotation.as_deref() {
                        Some(annotation) => {
                            if let Some(names) = annotated(annotation) {
                                self.made.push((
                                    self.scope.clone(),
                                    parameter.name.to_string(),
                                    names,
                                ));
                            }
                        }
                        None if !matches!(parameter.name.as_str(), "self" | "cls") => self
                            .parameters
                            .push((self.scope.clone(), parameter.name.to_string())),
                        None => {}
                    }
                }
                if let Some(fixture) = fixture_of(def) {
                    self.fixtures.push(fixture);
                }
                // What a decorator factory's call returns is not known; a decorator named
                // alone is applied to the function itself.
                if let Some(outermost) = def.decorator_list.first()
                    && matches!(outermost.expression, Expr::Name(_) | Expr::Attribute(_))
                    && let Some(names) = chain(&outermost.expression)
                {
                    self.decorated.push((self.scope.clone(), names));
                }
                self.visit_body(&def.body);
                self.scope.pop();
            }
            Stmt::ClassDef(class) => {
                for decorator in &class.decorator_list {
                    self.visit_expr(&decorator.expression);
                }
                let mut bases = Vec::new();
                if let Some(arguments) = &class.arguments {
                    for base in arguments.args.iter() {
                        if let Some(chain) = chain(base) {
                            bases.push(chain);
                        }
                        self.visit_expr(base);
                    }
                    for keyword in arguments.keywords.iter() {
                        self.visit_expr(&keyword.value);
                    }
                }
                self.scope.push(class.name.to_string());
                self.bases.push((self.scope.clone(), bases));
                self.visit_body(&class.body);
                self.scope.pop();
            }
            Stmt::ImportFrom(import) => {
                let module: Vec<String> = import
                    .module
                    .as_ref()
                    .map(|m| m.split('.').map(str::to_string).collect())
                    .unwrap_or_default();
                for alias in &import.names {
                    if alias.name.as_str() == "*" {
                        continue;
                    }
                    let mut chain = module.clone();
                    chain.push(alias.name.to_string());
                    self.used(alias.start().to_usize(), chain, Some(import.level));
                }
            }
            Stmt::Assign(assign) => {
                if let [Expr::Name(target)] = assign.targets.as_slice()
                    && let Expr::Call(call) = assign.value.as_ref()
                    && let Some(callee) = chain(&call.func)
                {
                    self.made
                        .push((self.scope.clone(), target.id.to_string(), callee));
                }
                walk_stmt(self, stmt);
            }
            _ => walk_stmt(self, stmt),
        }
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        match expr {
            // A name bound here (`x = …`, `del x`) is not read.
            Expr::Name(name) if !name.ctx.is_load() => return,
            Expr::Attribute(attribute) if !attribute.ctx.is_load() => {
                return self.visit_expr(&attribute.value);
            }
            Expr::Name(_) | Expr::Attribute(_) => {
                if let Some(names) = chain(expr) {
                    self.used(expr.start().to_usize(), names, None);
                    // A call in the chain (`a(x).b`) holds arguments of its own.
                    visit_calls_in(self, expr);
                    return;
                }
            }
            Expr::Call(call) => {
                if let Some(names) = chain(&call.func) {
                    self.used(call.func.start().to_usize(), names, None);
                    visit_calls_in(self, &call.func);
                    for argument in call.arguments.iter_source_order() {
                        match argument {
                            ruff_python_ast::ArgOrKeyword::Arg(e) => self.visit_expr(e),
                            ruff_python_ast::ArgOrKeyword::Keyword(k) => self.visit_expr(&k.value),
                        }
                    }
                    return;
                }
            }
            _ => {}
        }
        walk_expr(self, expr);
    }
}

/// `def`'s pytest fixture, when it is one whose value's class the code says: `(name,
/// chain)` (see [`ModuleUses::fixtures`]).
fn fixture_of(def: &ruff_python_ast::StmtFunctionDef) -> Option<(String, Vec<String>)> {
    let mut name = def.name.to_string();
    let is_fixture = def.decorator_list.iter().any(|decorator| {
        let (callee, call) = match &decorator.expression {
            Expr::Call(call) => (&*call.func, Some(call)),
            other => (other, None),
        };
        let fixture = chain(callee).is_some_and(|c| c.last().is_some_and(|l| l == "fixture"));
        if fixture && let Some(call) = call {
            // `@pytest.fixture(name="db")` is asked for as `db`.
            for keyword in call.arguments.keywords.iter() {
                if keyword.arg.as_ref().is_some_and(|a| a.as_str() == "name")
                    && let Expr::StringLiteral(literal) = &keyword.value
                {
                    name = literal.value.to_str().to_string();
                }
            }
        }
        fixture
    });
    if !is_fixture {
        return None;
    }
    if let Some(class) = def.returns.as_deref().and_then(annotated) {
        return Some((name, class));
    }
    def.body.iter().find_map(|stmt| {
        let value = match stmt {
            Stmt::Return(ret) => ret.value.as_deref()?,
            Stmt::Expr(expr) => match &*expr.value {
                Expr::Yield(y) => y.value.as_deref()?,
                _ => return None,
            },
            _ => return None,
        };
        let Expr::Call(call) = value else { return None };
        Some((name.clone(), chain(&call.func)?))
    })
}

/// The class an annotation names, as a chain: a name or attribute (`Context`,
/// `core.Context`), or a string holding one (`"Context"`); not a union, a generic or an
/// optional, whose value may be of another type.
fn annotated(annotation: &Expr) -> Option<Vec<String>> {
    match annotation {
        Expr::Name(_) | Expr::Attribute(_) => chain(annotation),
        Expr::StringLiteral(literal) => {
            let text = literal.value.to_str();
            let names: Vec<String> = text.split('.').map(str::to_string).collect();
            let identifier = |n: &String| {
                n.chars()
                    .next()
                    .is_some_and(|c| c.is_alphabetic() || c == '_')
                    && n.chars().all(|c| c.is_alphanumeric() || c == '_')
            };
            names.iter().all(identifier).then_some(names)
        }
        _ => None,
    }
}

/// The arguments of the calls inside a chain (`a(x).b(y)` visits `x`; `y` is its caller's).
fn visit_calls_in(walker: &mut Walker, expr: &Expr) {
    let mut at = expr;
    loop {
        match at {
            Expr::Attribute(attribute) => at = &attribute.value,
            Expr::Call(call) => {
                for argument in call.arguments.iter_source_order() {
                    match argument {
                        ruff_python_ast::ArgOrKeyword::Arg(e) => walker.visit_expr(e),
                        ruff_python_ast::ArgOrKeyword::Keyword(k) => walker.visit_expr(&k.value),
                    }
                }
                at = &call.func;
            }
            _ => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chains(source: &str) -> Vec<(String, String)> {
        module_uses(source)
            .uses
            .into_iter()
            .map(|u| (u.chain.join("."), u.scope.join(".")))
            .collect()
    }

    #[test]
    fn every_chain_read_is_a_use_in_its_scope() {
        let source = "from .accounts import Account as A\nimport ledger\n\n\
                      class Book(A):\n    def post(self, x=ledger.CENT):\n        \
                      cash = A('cash')\n        cash.debit(x)\n        self.total()\n        \
                      A('bank').credit(f(x))\n";
        let found = chains(source);
        for expected in [
            ("accounts.Account", ""),
            ("A", ""),
            // A default is evaluated where the function is defined: in the class body.
            ("ledger.CENT", "Book"),
            ("A", "Book.post"),
            ("cash.debit", "Book.post"),
            ("x", "Book.post"),
            ("self.total", "Book.post"),
            ("A.credit", "Book.post"),
            ("f", "Book.post"),
        ] {
            assert!(
                found.contains(&(expected.0.to_string(), expected.1.to_string())),
                "{expected:?} not in {found:?}"
            );
        }
        assert!(
            !found.contains(&("cash".to_string(), "Book.post".to_string())),
            "a binding is no read"
        );
        let uses = module_uses(source);
        assert_eq!(
            uses.bases,
            [(vec!["Book".to_string()], vec![vec!["A".to_string()]])]
        );
        assert!(uses.made.contains(&(
            vec!["Book".to_string(), "post".to_string()],
            "cash".to_string(),
            vec!["A".to_string()]
        )));
        let import = &uses.uses[0];
        assert_eq!(import.import_level, Some(1));
    }

    #[test]
    fn a_function_decorated_by_a_name_alone_is_noted_with_its_outermost_decorator() {
        let source = "@toolz.curry\n@other\ndef add(x, y):\n    @curry\n    def inner():\n        \
                      pass\n\n@cached(cache={})\ndef made():\n    pass\n";
        let uses = module_uses(source);
        let names = |parts: &[&str]| parts.iter().map(|p| p.to_string()).collect::<Vec<_>>();
        assert_eq!(
            uses.decorated,
            [
                (names(&["add"]), names(&["toolz", "curry"])),
                (names(&["add", "inner"]), names(&["curry"])),
            ],
            "a factory's call (`@cached(...)`) returns what the parse cannot know"
        );
    }

    #[test]
    fn fixtures_whose_class_the_code_says_are_noted_with_the_tests_parameters() {
        let source = "import pytest\n\n\n@pytest.fixture\ndef journal() -> Journal:\n    \
                      return make()\n\n\n@pytest.fixture(name='db')\ndef _db():\n    \
                      conn = 1\n    yield store.Db(conn)\n\n\n@fixture\ndef loose():\n    \
                      return make()\n\n\ndef test_x(journal, db, ctx: Context):\n    \
                      pass\n";
        let uses = module_uses(source);
        let names = |parts: &[&str]| parts.iter().map(|p| p.to_string()).collect::<Vec<_>>();
        assert_eq!(
            uses.fixtures,
            [
                ("journal".to_string(), names(&["Journal"])),
                ("db".to_string(), names(&["store", "Db"])),
                // Whether `make` is a class is the references' to find out.
                ("loose".to_string(), names(&["make"])),
            ],
            "the annotation first, else the call returned or yielded"
        );
        assert_eq!(
            uses.parameters,
            [
                (names(&["test_x"]), "journal".to_string()),
                (names(&["test_x"]), "db".to_string()),
            ],
            "an annotated parameter is made, not a fixture's"
        );
    }

    #[test]
    fn a_module_that_does_not_parse_names_nothing() {
        assert_eq!(module_uses("def (:\n"), ModuleUses::default());
    }
}
