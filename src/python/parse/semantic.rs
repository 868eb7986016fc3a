//! Validation beyond parsing: syntax the target Python version lacks, and the errors
//! CPython raises only when compiling (`return` outside a function, duplicate arguments,
//! late `__future__` imports, ...), found by driving Ruff's semantic checker over a scope
//! walk that follows CPython's rules. Part of the parser boundary: Ruff types stay here.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

use ruff_python_ast::token::{TokenKind, Tokens};
use ruff_python_ast::visitor::{Visitor, walk_except_handler, walk_expr, walk_pattern, walk_stmt};
use ruff_python_ast::{
    Comprehension, ExceptHandler, Expr, ModModule, Parameters, Pattern, PythonVersion, Stmt,
    TypeParams,
};
use ruff_python_parser::Parsed;
use ruff_python_parser::semantic_errors::{
    AwaitOutsideAsyncFunctionKind, LazyImportContext, SemanticSyntaxChecker, SemanticSyntaxContext,
    SemanticSyntaxError, SemanticSyntaxErrorKind, YieldOutsideFunctionKind,
};
use ruff_text_size::{Ranged, TextRange};

use super::{Problem, WALK, problem, problems, with_module_at};

/// Every problem of `source` as a module for Python `target`, sorted by offset: syntax errors,
/// syntax newer (or older) than `target`, and the errors CPython raises only when compiling
/// (see [`SemanticWalker`]). Semantic errors after the first syntax error are left out: they
/// would be judged on the parser's recovered tree, which may be anything there.
pub(in crate::python) fn validation_problems(source: &str, target: (u8, u8)) -> Vec<Problem> {
    let version = PythonVersion {
        major: target.0,
        minor: target.1,
    };
    // Ruff knows nothing older than 3.7, and nothing older is still in use.
    let version = version.max(PythonVersion::lowest());
    with_module_at(source, version, WALK, |parsed| {
        let mut found = problems(parsed);
        if let Some(too_deep) = too_many_nested_brackets(parsed.tokens()) {
            // CPython refuses this anyway, and the checker's cost grows with the square of
            // the nesting of comprehensions: skip it.
            found.push(too_deep);
            found.sort_by_key(|problem| problem.offset);
            return found;
        }
        let first_error = parsed
            .errors()
            .iter()
            .map(|error| error.location.start().to_usize())
            .min();
        let walk = || semantic_problems(source, parsed, version);
        let semantic = std::panic::catch_unwind(std::panic::AssertUnwindSafe(walk))
            .unwrap_or_else(|_| vec![problem("internal error: the semantic check failed")]);
        found.extend(
            semantic
                .into_iter()
                .filter(|p| first_error.is_none_or(|first| p.offset < first)),
        );
        found.sort_by_key(|problem| problem.offset);
        let mut seen = HashSet::new();
        found.retain(|problem| seen.insert((problem.offset, problem.message.clone())));
        found
    })
    .unwrap_or_else(|problem| vec![problem])
}

/// CPython's tokenizer refuses a 201st level of open brackets ("too many nested
/// parentheses"); Ruff does not. Braces inside f- and t-strings are not counted, as some of
/// them are replacement fields (whose nesting CPython limits separately).
const MAX_BRACKET_LEVELS: usize = 200;

fn too_many_nested_brackets(tokens: &Tokens) -> Option<Problem> {
    let (mut level, mut strings) = (0usize, 0usize);
    for token in tokens.iter() {
        match token.kind() {
            TokenKind::FStringStart | TokenKind::TStringStart => strings += 1,
            TokenKind::FStringEnd | TokenKind::TStringEnd => strings = strings.saturating_sub(1),
            TokenKind::Lbrace if strings > 0 => {}
            TokenKind::Rbrace if strings > 0 => {}
            TokenKind::Lpar | TokenKind::Lsqb | TokenKind::Lbrace => {
                level += 1;
                if level > MAX_BRACKET_LEVELS {
                    return Some(Problem {
                        offset: token.start().to_usize(),
                        message: format!(
                            "too many nested parentheses (Python allows {MAX_BRACKET_LEVELS})"
                        ),
                    });
                }
            }
            TokenKind::Rpar | TokenKind::Rsqb | TokenKind::Rbrace => {
                level = level.saturating_sub(1);
            }
            _ => {}
        }
    }
    None
}

fn semantic_problems(
    source: &str,
    parsed: &Parsed<ModModule>,
    version: PythonVersion,
) -> Vec<Problem> {
    let body = &parsed.syntax().body;
    let mut walker = SemanticWalker {
        checker: SemanticSyntaxChecker::new(),
        context: Context {
            source,
            version,
            future_annotations: future_annotations(body),
            scopes: vec![Scope::new(ScopeKind::Module, ScopeFacts::of_body(body))],
            errors: RefCell::new(Vec::new()),
        },
    };
    walker.visit_body(body);
    let errors = walker.context.errors.into_inner();
    // An `await` at module level is reported twice by the checker, as outside a function and
    // as outside an async function (Ruff keeps both for its two lint rules): say it once.
    let outside_function: HashSet<TextRange> = errors
        .iter()
        .filter(|(error, _)| {
            error.kind
                == SemanticSyntaxErrorKind::YieldOutsideFunction(YieldOutsideFunctionKind::Await)
        })
        .map(|(error, _)| error.range)
        .collect();
    errors
        .into_iter()
        .filter(|(error, _)| {
            !(error.kind
                == SemanticSyntaxErrorKind::AwaitOutsideAsyncFunction(
                    AwaitOutsideAsyncFunctionKind::Await,
                )
                && outside_function.contains(&error.range))
        })
        .map(|(error, message)| Problem {
            offset: error.range.start().to_usize(),
            message,
        })
        .collect()
}

/// Whether the module starts (after its docstring) with `from __future__ import annotations`,
/// which makes CPython before 3.14 refuse `yield`, `await` and `:=` in annotations. A symbol
/// file checked on its own never has it: that errs on the side of accepting the edit.
fn future_annotations(body: &[Stmt]) -> bool {
    let mut statements = body.iter().peekable();
    if let Some(Stmt::Expr(first)) = statements.peek()
        && first.value.is_string_literal_expr()
    {
        statements.next();
    }
    statements
        .map_while(|stmt| match stmt {
            Stmt::ImportFrom(import) if import.module.as_deref() == Some("__future__") => {
                Some(import)
            }
            _ => None,
        })
        .flat_map(|import| import.names.iter())
        .any(|alias| alias.name.as_str() == "annotations")
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ScopeKind {
    Module,
    Class,
    Function {
        is_async: bool,
    },
    Lambda,
    /// A list, set or dict comprehension, or (`generator`) a generator expression.
    Comprehension {
        is_async: bool,
        generator: bool,
    },
}

/// One scope of the walk, innermost last in [`Context::scopes`].
struct Scope<'a> {
    kind: ScopeKind,
    facts: ScopeFacts<'a>,
    /// Parameter names of a function or lambda.
    parameters: HashSet<&'a str>,
    /// How many `for`/`while` bodies (not `else` clauses) of this scope enclose the position.
    loops: usize,
    /// How many `try` statements of this scope enclose the position.
    tries: usize,
}

impl<'a> Scope<'a> {
    fn new(kind: ScopeKind, facts: ScopeFacts<'a>) -> Self {
        Scope {
            kind,
            facts,
            parameters: HashSet::new(),
            loops: 0,
            tries: 0,
        }
    }

    fn function(kind: ScopeKind, parameters: Option<&'a Parameters>, body: &'a [Stmt]) -> Self {
        let mut facts = ScopeFacts::of_body(body);
        let names: HashSet<&'a str> = parameters
            .into_iter()
            .flat_map(|parameters| parameters.iter())
            .map(|parameter| parameter.name().as_str())
            .collect();
        facts.bindings.extend(names.iter().copied());
        Scope {
            parameters: names,
            ..Scope::new(kind, facts)
        }
    }
}

/// What CPython's symbol table knows of a scope before compiling it, from its body alone
/// (nested function and class bodies are scopes of their own and are not entered).
#[derive(Default)]
struct ScopeFacts<'a> {
    /// Names declared `global`, at their last declaration (a use before any of them is an
    /// error in CPython, so the last one is the one that counts).
    globals: HashMap<&'a str, TextRange>,
    /// Names the scope binds: assignment and augmented or annotated assignment targets, `del`,
    /// `for`/`with`/`except`/`import` names, match captures, `def`/`class`/`type` names, `:=`
    /// targets (also inside comprehensions), `nonlocal` names; parameters are added by
    /// [`Scope::function`]. Only functions' bindings are ever looked up (for `nonlocal`).
    bindings: HashSet<&'a str>,
    /// Inside a comprehension, plain targets are the comprehension's own, not ours.
    comprehensions: usize,
}

impl<'a> ScopeFacts<'a> {
    fn of_body(body: &'a [Stmt]) -> Self {
        let mut facts = ScopeFacts::default();
        facts.visit_body(body);
        facts
    }
}

impl<'a> Visitor<'a> for ScopeFacts<'a> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        match stmt {
            // Decorators, defaults, annotations and bases are evaluated here; bodies are not.
            Stmt::FunctionDef(def) => {
                self.bindings.insert(def.name.as_str());
                for decorator in &def.decorator_list {
                    self.visit_decorator(decorator);
                }
                self.visit_parameters(&def.parameters);
                if let Some(returns) = &def.returns {
                    self.visit_annotation(returns);
                }
            }
            Stmt::ClassDef(class) => {
                self.bindings.insert(class.name.as_str());
                for decorator in &class.decorator_list {
                    self.visit_decorator(decorator);
                }
                if let Some(arguments) = &class.arguments {
                    self.visit_arguments(arguments);
                }
            }
            Stmt::Global(global) => {
                for name in &global.names {
                    self.globals.insert(name.as_str(), name.range);
                }
            }
            Stmt::Nonlocal(nonlocal) => {
                self.bindings
                    .extend(nonlocal.names.iter().map(|name| name.as_str()));
            }
            Stmt::Import(import) => {
                for alias in &import.names {
                    let bound = match &alias.asname {
                        Some(asname) => asname.as_str(),
                        // `import a.b` binds `a`.
                        None => alias.name.split('.').next().unwrap_or_default(),
                    };
                    self.bindings.insert(bound);
                }
            }
            Stmt::ImportFrom(import) => {
                for alias in &import.names {
                    let bound = alias.asname.as_ref().unwrap_or(&alias.name);
                    if bound.as_str() != "*" {
                        self.bindings.insert(bound.as_str());
                    }
                }
            }
            _ => walk_stmt(self, stmt),
        }
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        match expr {
            Expr::Name(name) if !name.ctx.is_load() && self.comprehensions == 0 => {
                self.bindings.insert(name.id.as_str());
            }
            Expr::Named(named) => {
                self.visit_expr(&named.value);
                // `:=` binds in the enclosing function even from inside a comprehension.
                if let Expr::Name(name) = named.target.as_ref() {
                    self.bindings.insert(name.id.as_str());
                }
            }
            // Only the defaults belong to this scope; the body is the lambda's.
            Expr::Lambda(lambda) => {
                if let Some(parameters) = &lambda.parameters {
                    self.visit_parameters(parameters);
                }
            }
            Expr::ListComp(_) | Expr::SetComp(_) | Expr::DictComp(_) | Expr::Generator(_) => {
                self.comprehensions += 1;
                walk_expr(self, expr);
                self.comprehensions -= 1;
            }
            _ => walk_expr(self, expr),
        }
    }

    fn visit_except_handler(&mut self, handler: &'a ExceptHandler) {
        let ExceptHandler::ExceptHandler(inner) = handler;
        if let Some(name) = &inner.name {
            self.bindings.insert(name.as_str());
        }
        walk_except_handler(self, handler);
    }

    fn visit_pattern(&mut self, pattern: &'a Pattern) {
        let bound = match pattern {
            Pattern::MatchAs(capture) => capture.name.as_ref(),
            Pattern::MatchStar(star) => star.name.as_ref(),
            Pattern::MatchMapping(mapping) => mapping.rest.as_ref(),
            _ => None,
        };
        if let Some(name) = bound {
            self.bindings.insert(name.as_str());
        }
        walk_pattern(self, pattern);
    }

    // Type parameters live in an annotation scope of their own.
    fn visit_type_params(&mut self, _: &'a TypeParams) {}
}

/// What the [`SemanticSyntaxChecker`] asks about the position of the node it checks.
struct Context<'a> {
    source: &'a str,
    version: PythonVersion,
    future_annotations: bool,
    /// Module first, innermost last; never empty.
    scopes: Vec<Scope<'a>>,
    /// Each error with its message, worded while the scope that explains it is known.
    errors: RefCell<Vec<(SemanticSyntaxError, String)>>,
}

impl Context<'_> {
    fn innermost(&self) -> Option<&Scope<'_>> {
        self.scopes.last()
    }

    fn innermost_kind(&self) -> ScopeKind {
        self.innermost()
            .map_or(ScopeKind::Module, |scope| scope.kind)
    }

    /// The checker's message, made more precise where it would mislead: a `yield` it calls
    /// "outside of a function" may well be inside one, in a comprehension or a class body.
    fn message(&self, error: &SemanticSyntaxError) -> String {
        if let SemanticSyntaxErrorKind::YieldOutsideFunction(kind) = &error.kind
            && !kind.is_await()
        {
            match self.innermost_kind() {
                ScopeKind::Comprehension { generator, .. } => {
                    let what = if generator {
                        "a generator expression"
                    } else {
                        "a comprehension"
                    };
                    return format!("`{kind}` cannot be used inside {what}");
                }
                ScopeKind::Class => {
                    return format!("`{kind}` cannot be used in a class body");
                }
                _ => {}
            }
        }
        error.to_string()
    }
}

/// The answers, for one module walked in source order. Scopes follow CPython: a function's
/// decorators, defaults and annotations belong to the enclosing scope, as do a class's bases
/// and a comprehension's first iterable; classes are no enclosing scope for their methods.
impl SemanticSyntaxContext for Context<'_> {
    /// `from __future__ import annotations` at the top of the module; never a stub.
    fn future_annotations_or_stub(&self) -> bool {
        self.future_annotations
    }

    /// The innermost function or class, else an enclosing `try` (PEP 810 `lazy` imports).
    fn lazy_import_context(&self) -> Option<LazyImportContext> {
        let scope = self.innermost()?;
        match scope.kind {
            ScopeKind::Function { .. } | ScopeKind::Lambda => Some(LazyImportContext::Function),
            ScopeKind::Class => Some(LazyImportContext::Class),
            ScopeKind::Module | ScopeKind::Comprehension { .. } => {
                (scope.tries > 0).then_some(LazyImportContext::TryExceptBlocks)
            }
        }
    }

    fn python_version(&self) -> PythonVersion {
        self.version
    }

    fn source(&self) -> &str {
        self.source
    }

    /// The current scope's (last) `global` declaration of `name`, wherever it is in the body.
    fn global(&self, name: &str) -> Option<TextRange> {
        self.innermost()?.facts.globals.get(name).copied()
    }

    /// Whether an enclosing function (not a class, not the module) binds `name`; a `global`
    /// declaration there hides any binding further out, as in CPython's symbol table. A class
    /// binds only the implicit cells it gives what is nested in it: `__class__` (for
    /// `super()`), and `__classdict__` since 3.12. Those are also taken as bound at module
    /// level, because a method's symbol file is checked without its class around it.
    fn has_nonlocal_binding(&self, name: &str) -> bool {
        let class_cell = name == "__class__"
            || (name == "__classdict__" && self.version >= PythonVersion::PY312);
        let enclosing = self.scopes.len().saturating_sub(1);
        for scope in self.scopes[..enclosing].iter().rev() {
            match scope.kind {
                ScopeKind::Module => return class_cell,
                ScopeKind::Class => {
                    if class_cell {
                        return true;
                    }
                }
                ScopeKind::Comprehension { .. } => {}
                ScopeKind::Function { .. } | ScopeKind::Lambda => {
                    if scope.facts.globals.contains_key(name) {
                        return false;
                    }
                    if scope.facts.bindings.contains(name) {
                        return true;
                    }
                }
            }
        }
        false
    }

    /// The nearest function decides; comprehensions take their function's asyncness. Before
    /// 3.11 an asynchronous list, set or dict comprehension had to sit directly in an async
    /// function (bpo-33346 lifted that).
    fn in_async_context(&self) -> bool {
        if self.version < PythonVersion::PY311 {
            let mut outward = self.scopes.iter().rev().map(|scope| scope.kind);
            return match outward.next() {
                Some(ScopeKind::Function { is_async }) => is_async,
                Some(ScopeKind::Comprehension {
                    generator: false, ..
                }) => outward.next() == Some(ScopeKind::Function { is_async: true }),
                _ => false,
            };
        }
        for scope in self.scopes.iter().rev() {
            match scope.kind {
                ScopeKind::Function { is_async } => return is_async,
                ScopeKind::Module | ScopeKind::Class | ScopeKind::Lambda => return false,
                ScopeKind::Comprehension { .. } => {}
            }
        }
        false
    }

    /// In a function or lambda, or in a generator expression (which CPython turns into an
    /// asynchronous generator, even at module level), through any comprehensions.
    fn in_await_allowed_context(&self) -> bool {
        for scope in self.scopes.iter().rev() {
            match scope.kind {
                ScopeKind::Function { .. }
                | ScopeKind::Lambda
                | ScopeKind::Comprehension {
                    generator: true, ..
                } => return true,
                ScopeKind::Module | ScopeKind::Class => return false,
                ScopeKind::Comprehension { .. } => {}
            }
        }
        false
    }

    /// Only directly in a function or lambda: a comprehension or class body in between is
    /// a scope of its own where `yield` would not yield from the function.
    fn in_yield_allowed_context(&self) -> bool {
        matches!(
            self.innermost_kind(),
            ScopeKind::Function { .. } | ScopeKind::Lambda
        )
    }

    /// A comprehension without `async for`, up to the nearest function. Only asked before
    /// 3.11, when no comprehension could hold an asynchronous one unless async itself;
    /// generator expressions included (CPython 3.10 refuses `([x async for x in y] for z in w)`).
    fn in_sync_comprehension(&self) -> bool {
        for scope in self.scopes.iter().rev() {
            match scope.kind {
                ScopeKind::Comprehension {
                    is_async: false, ..
                } => return true,
                ScopeKind::Comprehension { .. } => {}
                _ => return false,
            }
        }
        false
    }

    /// A class body encloses the position through comprehensions only (where `:=` would
    /// bind in the class, which CPython forbids).
    fn in_class_body_comprehension(&self) -> bool {
        for scope in self.scopes.iter().rev() {
            match scope.kind {
                ScopeKind::Class => return true,
                ScopeKind::Comprehension { .. } => {}
                _ => return false,
            }
        }
        false
    }

    fn in_module_scope(&self) -> bool {
        self.innermost_kind() == ScopeKind::Module
    }

    fn in_function_scope(&self) -> bool {
        matches!(
            self.innermost_kind(),
            ScopeKind::Function { .. } | ScopeKind::Lambda
        )
    }

    /// Inside a generator expression, up to the nearest function, lambda or class; before
    /// 3.11 only directly inside one (see [`Self::in_async_context`]).
    fn in_generator_context(&self) -> bool {
        if self.version < PythonVersion::PY311 {
            return matches!(
                self.innermost_kind(),
                ScopeKind::Comprehension {
                    generator: true,
                    ..
                }
            );
        }
        for scope in self.scopes.iter().rev() {
            match scope.kind {
                ScopeKind::Comprehension {
                    generator: true, ..
                } => return true,
                ScopeKind::Comprehension { .. } => {}
                _ => return false,
            }
        }
        false
    }

    /// Never: every file is a plain module (no top-level `await` allowance).
    fn in_notebook(&self) -> bool {
        false
    }

    fn report_semantic_error(&self, error: SemanticSyntaxError) {
        let message = self.message(&error);
        self.errors.borrow_mut().push((error, message));
    }

    /// In the body (not the `else`) of a `for` or `while` of the current scope; a `def` or
    /// `class` starts a scope with no loop around it.
    fn in_loop_context(&self) -> bool {
        self.innermost().is_some_and(|scope| scope.loops > 0)
    }

    /// A parameter of the current function or lambda (`global x` / `nonlocal x` on one).
    fn is_bound_parameter(&self, name: &str) -> bool {
        self.innermost()
            .is_some_and(|scope| scope.parameters.contains(name))
    }
}

/// Walks the module in source order, calling the checker on every statement and expression
/// (as it requires) and keeping [`Context::scopes`] up to date.
struct SemanticWalker<'a> {
    checker: SemanticSyntaxChecker,
    context: Context<'a>,
}

impl<'a> SemanticWalker<'a> {
    fn in_scope(&mut self, scope: Scope<'a>, walk: impl FnOnce(&mut Self)) {
        self.context.scopes.push(scope);
        walk(self);
        self.context.scopes.pop();
    }

    fn innermost_mut(&mut self) -> Option<&mut Scope<'a>> {
        self.context.scopes.last_mut()
    }

    fn in_loop(&mut self, body: &'a [Stmt]) {
        if let Some(scope) = self.innermost_mut() {
            scope.loops += 1;
        }
        self.visit_body(body);
        if let Some(scope) = self.innermost_mut() {
            scope.loops -= 1;
        }
    }

    /// A comprehension: the first iterable in the enclosing scope, the rest in its own.
    fn comprehension(
        &mut self,
        generators: &'a [Comprehension],
        generator: bool,
        elements: &[&'a Expr],
    ) {
        let Some((first, rest)) = generators.split_first() else {
            return;
        };
        self.visit_expr(&first.iter);
        let kind = ScopeKind::Comprehension {
            is_async: generators.iter().any(|g| g.is_async),
            generator,
        };
        self.in_scope(Scope::new(kind, ScopeFacts::default()), |walker| {
            walker.visit_expr(&first.target);
            for condition in &first.ifs {
                walker.visit_expr(condition);
            }
            for comprehension in rest {
                walker.visit_comprehension(comprehension);
            }
            for element in elements {
                walker.visit_expr(element);
            }
        });
    }
}

impl<'a> Visitor<'a> for SemanticWalker<'a> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        self.checker.visit_stmt(stmt, &self.context);
        match stmt {
            Stmt::FunctionDef(def) => {
                for decorator in &def.decorator_list {
                    self.visit_decorator(decorator);
                }
                if let Some(type_params) = &def.type_params {
                    self.visit_type_params(type_params);
                }
                self.visit_parameters(&def.parameters);
                if let Some(returns) = &def.returns {
                    self.visit_annotation(returns);
                }
                let kind = ScopeKind::Function {
                    is_async: def.is_async,
                };
                let scope = Scope::function(kind, Some(&def.parameters), &def.body);
                self.in_scope(scope, |walker| walker.visit_body(&def.body));
            }
            Stmt::ClassDef(class) => {
                for decorator in &class.decorator_list {
                    self.visit_decorator(decorator);
                }
                if let Some(type_params) = &class.type_params {
                    self.visit_type_params(type_params);
                }
                if let Some(arguments) = &class.arguments {
                    self.visit_arguments(arguments);
                }
                let scope = Scope::new(ScopeKind::Class, ScopeFacts::of_body(&class.body));
                self.in_scope(scope, |walker| walker.visit_body(&class.body));
            }
            Stmt::For(block) => {
                self.visit_expr(&block.iter);
                self.visit_expr(&block.target);
                self.in_loop(&block.body);
                self.visit_body(&block.orelse);
            }
            Stmt::While(block) => {
                self.visit_expr(&block.test);
                self.in_loop(&block.body);
                self.visit_body(&block.orelse);
            }
            Stmt::Try(_) => {
                if let Some(scope) = self.innermost_mut() {
                    scope.tries += 1;
                }
                walk_stmt(self, stmt);
                if let Some(scope) = self.innermost_mut() {
                    scope.tries -= 1;
                }
            }
            _ => walk_stmt(self, stmt),
        }
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        self.checker.visit_expr(expr, &self.context);
        match expr {
            Expr::Lambda(lambda) => {
                if let Some(parameters) = &lambda.parameters {
                    self.visit_parameters(parameters);
                }
                let scope = Scope::function(ScopeKind::Lambda, lambda.parameters.as_deref(), &[]);
                self.in_scope(scope, |walker| walker.visit_expr(&lambda.body));
            }
            Expr::ListComp(comp) => self.comprehension(&comp.generators, false, &[&comp.elt]),
            Expr::SetComp(comp) => self.comprehension(&comp.generators, false, &[&comp.elt]),
            Expr::Generator(comp) => self.comprehension(&comp.generators, true, &[&comp.elt]),
            Expr::DictComp(comp) => match &comp.key {
                Some(key) => self.comprehension(&comp.generators, false, &[key, &comp.value]),
                None => self.comprehension(&comp.generators, false, &[&comp.value]),
            },
            _ => walk_expr(self, expr),
        }
    }
}
