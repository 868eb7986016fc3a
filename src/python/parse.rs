//! The boundary to the Ruff parser: the only file that imports `ruff_*` crates.
//!
//! It turns Python source into our own plain data — an [`Outline`] of definitions with byte
//! offsets, the spans of multi-line strings, and syntax problems (for [`validation_problems`]
//! also those of a given Python version and those CPython finds only when compiling, from
//! Ruff's semantic checker driven by [`SemanticWalker`]) — so that the rest of the module
//! never sees a Ruff type and a parser upgrade touches this file alone.
//!
//! Guarantees: no function here panics on any `&str`, and none overflows the stack on
//! pathologically nested input (see [`with_module_at`]). Offsets are byte offsets into the
//! input.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::ops::Range;

use ruff_python_ast::token::{Token, TokenKind, Tokens};
use ruff_python_ast::visitor::{Visitor, walk_except_handler, walk_expr, walk_pattern, walk_stmt};
use ruff_python_ast::{
    Comprehension, ExceptHandler, Expr, ModModule, Parameters, Pattern, PythonVersion, Stmt,
    StmtClassDef, StmtFunctionDef, TypeParams,
};
use ruff_python_parser::semantic_errors::{
    AwaitOutsideAsyncFunctionKind, LazyImportContext, SemanticSyntaxChecker, SemanticSyntaxContext,
    SemanticSyntaxError, SemanticSyntaxErrorKind, YieldOutsideFunctionKind,
};
use ruff_python_parser::{Mode, ParseOptions, Parsed, parse_unchecked};
use ruff_text_size::{Ranged, TextRange, TextSize};

use super::depth::{self, Nesting};
use super::symbols::SymbolKind;

/// A class or function definition as the parser sees it, before line-level decisions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Definition {
    pub name: String,
    pub kind: SymbolKind,
    /// Index into the outline's definitions; definitions are in source (pre-)order.
    pub parent: Option<usize>,
    /// First byte of the first decorator's `@`, else of the `def`/`async`/`class` keyword.
    pub start: usize,
    /// First byte of the `def`/`async`/`class` keyword.
    pub keyword: usize,
    /// End of the last token of the body (not of its line).
    pub end: usize,
    pub signature: String,
    pub doc: Option<String>,
}

/// A syntax error at a byte offset, with the parser's message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Problem {
    pub offset: usize,
    pub message: String,
}

/// Everything the symbol index needs from one parse.
#[derive(Debug, Default)]
pub(super) struct Outline {
    pub docstring: Option<String>,
    pub definitions: Vec<Definition>,
    /// Byte spans of string tokens that contain a line break (outermost f/t-string spans).
    pub multiline_strings: Vec<Range<usize>>,
    /// Sorted by offset; empty when the source is valid Python.
    pub problems: Vec<Problem>,
}

/// Parses `source` and extracts its outline.
pub(super) fn outline(source: &str) -> Outline {
    with_module(source, |parsed| Outline {
        docstring: docstring(&parsed.syntax().body),
        definitions: definitions(source, parsed),
        multiline_strings: multiline_strings(source, parsed.tokens()),
        problems: problems(parsed),
    })
    .unwrap_or_else(|problem| Outline {
        problems: vec![problem],
        ..Outline::default()
    })
}

/// All syntax problems of `source`, sorted by offset.
pub(super) fn syntax_problems(source: &str) -> Vec<Problem> {
    with_module(source, problems).unwrap_or_else(|problem| vec![problem])
}

/// Byte spans of the multi-line string tokens of `source`, sorted; best effort on bad syntax.
pub(super) fn multiline_string_spans(source: &str) -> Vec<Range<usize>> {
    with_module(source, |parsed| multiline_strings(source, parsed.tokens())).unwrap_or_default()
}

/// How much stack a job on a parsed tree needs per unit of [`depth_bound`], and up to which
/// depth it runs on the caller's stack (any thread has room for that much).
#[derive(Debug, Clone, Copy)]
struct StackNeed {
    per_level: usize,
    shallow_depth: usize,
}

/// Dropping the tree (and the iterative outline walks). The worst shapes measured need under
/// 128 bytes per unit in debug builds (`deep_nesting_is_survived_on_a_small_stack`).
const DROP: StackNeed = StackNeed {
    per_level: 1024,
    shallow_depth: 1_000,
};
/// The recursive semantic walk of [`validation_problems`] (the visitor and the checker on
/// each node, then the drop). The worst shapes measured, chains of unary operators, `await`
/// or `yield`, need up to 3 KiB per unit in debug builds; `validate.rs` runs them on a small
/// stack. Trees up to 100 units deep stay on the caller's stack (300 KiB in debug builds).
const WALK: StackNeed = StackNeed {
    per_level: 4096,
    shallow_depth: 100,
};
/// Past this depth (far beyond anything CPython compiles) we refuse and leak the tree.
const MAX_DEPTH: usize = 4_000_000;

/// Parses `source` as a module for the newest Python, runs `f` on it, and drops the tree
/// safely; see [`with_module_at`].
fn with_module<R: Send>(
    source: &str,
    f: impl FnOnce(&Parsed<ModModule>) -> R + Send,
) -> Result<R, Problem> {
    with_module_at(source, PythonVersion::latest(), DROP, f)
}

/// Parses `source` as a module for Python `version`, runs `f` on it, and drops the tree
/// safely: trees that may be deep are handled on a thread whose stack fits their depth times
/// `need`. A panic inside the parser becomes a [`Problem`] instead of unwinding into the
/// caller.
fn with_module_at<R: Send>(
    source: &str,
    version: PythonVersion,
    need: StackNeed,
    f: impl FnOnce(&Parsed<ModModule>) -> R + Send,
) -> Result<R, Problem> {
    if u32::try_from(source.len()).is_err() {
        // Ruff addresses text with u32 offsets.
        return Err(problem("file too large to parse (4 GiB or more)"));
    }
    let options = ParseOptions::from(Mode::Module).with_target_version(version);
    let parse = || parse_unchecked(source, options).try_into_module();
    let parsed = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(parse)) {
        Ok(Some(parsed)) => parsed,
        Ok(None) | Err(_) => return Err(problem("internal error: the Python parser failed")),
    };
    let depth = depth_bound(parsed.tokens());
    if depth <= need.shallow_depth {
        return Ok(f(&parsed));
    }
    if depth > MAX_DEPTH {
        // Dropping would need gigabytes of stack; leaking is the only way to stay up.
        std::mem::forget(parsed);
        return Err(problem(&format!(
            "nesting too deep to analyse ({depth} levels)"
        )));
    }
    // If the thread cannot be spawned, the closure is dropped unrun: `ManuallyDrop` turns that
    // into a leak rather than a recursive drop on this thread's small stack.
    let parsed = std::mem::ManuallyDrop::new(parsed);
    let stack = depth.saturating_mul(need.per_level).saturating_add(1 << 20);
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("python-deep-tree".to_string())
            .stack_size(stack)
            .spawn_scoped(scope, move || {
                let parsed = std::mem::ManuallyDrop::into_inner(parsed);
                f(&parsed)
            })
            .ok()
            .and_then(|handle| handle.join().ok())
            .ok_or_else(|| problem(&format!("nesting too deep to analyse ({depth} levels)")))
    })
}

fn problem(message: &str) -> Problem {
    Problem {
        offset: 0,
        message: message.to_string(),
    }
}

/// The parser's tokens as [`depth::Nesting`], for [`depth::depth_bound`].
fn depth_bound(tokens: &Tokens) -> usize {
    depth::depth_bound(tokens.iter().map(|token| match token.kind() {
        TokenKind::Lpar | TokenKind::Lsqb | TokenKind::Lbrace => Nesting::Open,
        TokenKind::Rpar | TokenKind::Rsqb | TokenKind::Rbrace => Nesting::Close,
        TokenKind::Comma => Nesting::Comma,
        TokenKind::Lambda => Nesting::Lambda,
        TokenKind::Colon => Nesting::Colon,
        TokenKind::Newline | TokenKind::EndOfFile => Nesting::LineEnd,
        TokenKind::Indent => Nesting::Indent,
        TokenKind::Dedent => Nesting::Dedent,
        TokenKind::Comment | TokenKind::NonLogicalNewline => Nesting::Trivia,
        _ => Nesting::Other,
    }))
}

/// CPython's tokenizer refuses a 100th level of indentation; Ruff does not. We refuse it too,
/// which also bounds the cost of nested symbols (each one rescans its range).
const MAX_INDENT_LEVELS: usize = 99;

fn too_deep_indentation(tokens: &Tokens) -> Option<Problem> {
    let mut indent = 0usize;
    for token in tokens.iter() {
        match token.kind() {
            TokenKind::Indent => indent += 1,
            TokenKind::Dedent => indent = indent.saturating_sub(1),
            _ => continue,
        }
        if indent > MAX_INDENT_LEVELS {
            return Some(Problem {
                offset: token.end().to_usize(),
                message: format!(
                    "too many levels of indentation (Python allows {MAX_INDENT_LEVELS})"
                ),
            });
        }
    }
    None
}

fn problems(parsed: &Parsed<ModModule>) -> Vec<Problem> {
    let mut problems: Vec<Problem> = parsed
        .errors()
        .iter()
        .map(|error| Problem {
            offset: error.location.start().to_usize(),
            message: error.error.to_string(),
        })
        .chain(
            parsed
                .unsupported_syntax_errors()
                .iter()
                .map(|error| Problem {
                    offset: error.range.start().to_usize(),
                    message: error.to_string(),
                }),
        )
        .chain(too_deep_indentation(parsed.tokens()))
        .collect();
    problems.sort_by_key(|problem| problem.offset);
    problems.dedup();
    problems
}

/// Walks module and class bodies, looking through `if`/`try`/`with` blocks but never into
/// function bodies. Iterative, so deeply nested blocks cannot exhaust the stack.
fn definitions(source: &str, parsed: &Parsed<ModModule>) -> Vec<Definition> {
    let tokens = parsed.tokens();
    let mut found = Vec::new();
    // Statements are pushed in reverse so that popping yields source order.
    let mut pending: Vec<(&Stmt, Option<usize>)> = Vec::new();
    push_all(&mut pending, &parsed.syntax().body, None);
    while let Some((stmt, parent)) = pending.pop() {
        match stmt {
            Stmt::FunctionDef(def) => found.push(function(source, tokens, def, parent)),
            Stmt::ClassDef(class) => {
                found.push(class_definition(source, tokens, class, parent));
                push_all(&mut pending, &class.body, Some(found.len() - 1));
            }
            Stmt::If(block) => {
                for clause in block.elif_else_clauses.iter().rev() {
                    push_all(&mut pending, &clause.body, parent);
                }
                push_all(&mut pending, &block.body, parent);
            }
            Stmt::Try(block) => {
                push_all(&mut pending, &block.finalbody, parent);
                push_all(&mut pending, &block.orelse, parent);
                for ExceptHandler::ExceptHandler(handler) in block.handlers.iter().rev() {
                    push_all(&mut pending, &handler.body, parent);
                }
                push_all(&mut pending, &block.body, parent);
            }
            Stmt::With(block) => push_all(&mut pending, &block.body, parent),
            _ => {}
        }
    }
    found
}

fn push_all<'a>(
    pending: &mut Vec<(&'a Stmt, Option<usize>)>,
    body: &'a [Stmt],
    parent: Option<usize>,
) {
    pending.extend(body.iter().rev().map(|stmt| (stmt, parent)));
}

fn function(
    source: &str,
    tokens: &Tokens,
    def: &StmtFunctionDef,
    parent: Option<usize>,
) -> Definition {
    let kind = if def.is_async {
        SymbolKind::AsyncFunction
    } else {
        SymbolKind::Function
    };
    let signature_start = def
        .type_params
        .as_ref()
        .map_or(def.parameters.start(), |params| params.start());
    let signature_end = def
        .returns
        .as_ref()
        .map_or(def.parameters.end(), |returns| returns.end());
    let last_decorator = def.decorator_list.last().map(Ranged::end);
    Definition {
        name: def.name.id.as_str().to_string(),
        kind,
        parent,
        start: def.start().to_usize(),
        keyword: keyword(tokens, last_decorator, def.range),
        end: def.end().to_usize(),
        signature: signature(
            source,
            tokens,
            TextRange::new(signature_start, signature_end),
        ),
        doc: docstring(&def.body),
    }
}

fn class_definition(
    source: &str,
    tokens: &Tokens,
    class: &StmtClassDef,
    parent: Option<usize>,
) -> Definition {
    let brackets = match (&class.type_params, &class.arguments) {
        (Some(params), Some(arguments)) => Some(params.range().cover(arguments.range())),
        (Some(params), None) => Some(params.range()),
        (None, Some(arguments)) => Some(arguments.range()),
        (None, None) => None,
    };
    let last_decorator = class.decorator_list.last().map(Ranged::end);
    Definition {
        name: class.name.id.as_str().to_string(),
        kind: SymbolKind::Class,
        parent,
        start: class.start().to_usize(),
        keyword: keyword(tokens, last_decorator, class.range),
        end: class.end().to_usize(),
        signature: brackets.map_or_else(String::new, |range| signature(source, tokens, range)),
        doc: docstring(&class.body),
    }
}

/// The `def`/`async`/`class` keyword: the first such token after the decorators (comment
/// lines may sit between the last decorator and the keyword).
fn keyword(tokens: &Tokens, last_decorator: Option<TextSize>, statement: TextRange) -> usize {
    let from = last_decorator.unwrap_or(statement.start());
    let first = tokens.partition_point(|token| token.start() < from);
    tokens[first..]
        .iter()
        .take_while(|token| token.start() < statement.end())
        .find(|token| {
            matches!(
                token.kind(),
                TokenKind::Def | TokenKind::Async | TokenKind::Class
            )
        })
        .map_or(from, Token::start)
        .to_usize()
}

/// Longest signature shown, in chars, including the `…` that marks a cut.
const SIGNATURE_CHARS: usize = 80;

/// The tokens of `range` on one line: comments and line breaks dropped, whitespace collapsed,
/// no space just inside brackets or before a comma; cut to [`SIGNATURE_CHARS`].
fn signature(source: &str, tokens: &Tokens, range: TextRange) -> String {
    let first = tokens.partition_point(|token| token.start() < range.start());
    let mut text = String::new();
    let mut previous: Option<&Token> = None;
    for token in tokens[first..]
        .iter()
        .take_while(|token| token.end() <= range.end())
    {
        if matches!(
            token.kind(),
            TokenKind::Comment
                | TokenKind::NonLogicalNewline
                | TokenKind::Newline
                | TokenKind::Indent
                | TokenKind::Dedent
        ) {
            continue;
        }
        if let Some(previous) = previous {
            let spaced = token.start() > previous.end()
                && !matches!(
                    previous.kind(),
                    TokenKind::Lpar | TokenKind::Lsqb | TokenKind::Lbrace
                )
                && !matches!(
                    token.kind(),
                    TokenKind::Rpar | TokenKind::Rsqb | TokenKind::Rbrace | TokenKind::Comma
                );
            if spaced {
                text.push(' ');
            }
        }
        text.push_str(source.get(token.range().to_std_range()).unwrap_or(""));
        previous = Some(token);
    }
    let collapsed = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if collapsed.chars().count() <= SIGNATURE_CHARS {
        return collapsed;
    }
    let mut cut: String = collapsed.chars().take(SIGNATURE_CHARS - 1).collect();
    cut.push('…');
    cut
}

trait ToStd {
    fn to_std_range(self) -> Range<usize>;
}

impl ToStd for TextRange {
    fn to_std_range(self) -> Range<usize> {
        self.start().to_usize()..self.end().to_usize()
    }
}

/// The first non-blank line of a body's docstring, trimmed.
fn docstring(body: &[Stmt]) -> Option<String> {
    let Some(Stmt::Expr(statement)) = body.first() else {
        return None;
    };
    let Expr::StringLiteral(literal) = statement.value.as_ref() else {
        return None;
    };
    literal
        .value
        .to_str()
        .lines()
        .map(str::trim)
        .find(|line| !line.is_empty())
        .map(str::to_string)
}

/// Spans of string tokens that contain a line break. An f-string or t-string is one span from
/// its start token to its matching end token, replacement fields included, as CPython's
/// tokenizer before 3.12 saw it.
fn multiline_strings(source: &str, tokens: &Tokens) -> Vec<Range<usize>> {
    let mut spans = Vec::new();
    let mut open: Option<usize> = None;
    let mut depth = 0usize;
    let mut push = |span: Range<usize>| {
        if source
            .get(span.clone())
            .is_some_and(|text| text.contains(['\n', '\r']))
        {
            spans.push(span);
        }
    };
    for token in tokens.iter() {
        let range = token.range().to_std_range();
        match token.kind() {
            TokenKind::String if depth == 0 => push(range),
            TokenKind::FStringStart | TokenKind::TStringStart => {
                if depth == 0 {
                    open = Some(range.start);
                }
                depth += 1;
            }
            TokenKind::FStringEnd | TokenKind::TStringEnd => {
                depth = depth.saturating_sub(1);
                if depth == 0
                    && let Some(start) = open.take()
                {
                    push(start..range.end);
                }
            }
            _ => {}
        }
    }
    // An unterminated f-string runs to the end of its last token.
    if let (Some(start), Some(last)) = (open, tokens.last()) {
        push(start..last.end().to_usize());
    }
    spans
}

/// Every problem of `source` as a module for Python `target`, sorted by offset: syntax errors,
/// syntax newer (or older) than `target`, and the errors CPython raises only when compiling
/// (see [`SemanticWalker`]). Semantic errors after the first syntax error are left out: they
/// would be judged on the parser's recovered tree, which may be anything there.
pub(super) fn validation_problems(source: &str, target: (u8, u8)) -> Vec<Problem> {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn only(source: &str) -> Definition {
        let outline = outline(source);
        assert!(outline.problems.is_empty(), "{:?}", outline.problems);
        outline
            .definitions
            .into_iter()
            .next()
            .expect("one definition")
    }

    #[test]
    fn signatures_lose_comments_line_breaks_and_padding() {
        let source = "def f(\n    self,  # the instance\n    msg: str,\n    *,\n    retries: int = 3,\n) -> bool:\n    pass\n";
        assert_eq!(
            only(source).signature,
            "(self, msg: str, *, retries: int = 3,) -> bool"
        );
        assert_eq!(only("class A: pass\n").signature, "");
        assert_eq!(only("class A(): pass\n").signature, "()");
        assert_eq!(
            only("class A(B,\n        metaclass=M): pass\n").signature,
            "(B, metaclass=M)"
        );
        assert_eq!(
            only("async def f[T, *Ts](x: T = '  spaced  ') -> None: pass\n").signature,
            "[T, *Ts](x: T = ' spaced ') -> None"
        );
    }

    #[test]
    fn keyword_offsets_skip_decorators_and_comments_between() {
        let source = "@a\n# note\n@b(1)\n\nasync def f(): pass\n";
        let definition = only(source);
        assert_eq!(definition.start, 0);
        assert_eq!(definition.keyword, source.find("async").unwrap_or_default());
        assert_eq!(definition.kind, SymbolKind::AsyncFunction);
        assert_eq!(definition.end, source.len() - 1);
    }

    #[test]
    fn docstrings_are_plain_string_literals_only() {
        assert_eq!(only("def f():\n    'a' 'b'\n").doc.as_deref(), Some("ab"));
        assert_eq!(only("def f():\n    f'x'\n").doc, None);
        assert_eq!(only("def f():\n    b'x'\n").doc, None);
        assert_eq!(only("def f():\n    x = 'x'\n").doc, None);
        assert_eq!(
            only("def f():\n    '''\n\n  First.  \n  Second.'''\n")
                .doc
                .as_deref(),
            Some("First.")
        );
        assert_eq!(only("def f():\n    '   '\n").doc, None);
        assert_eq!(
            outline("'''Module.'''\n").docstring.as_deref(),
            Some("Module.")
        );
    }

    #[test]
    fn multiline_strings_span_whole_f_strings() {
        let source =
            "a = '''x\ny'''\nb = 'one line'\nc = f'''{\nf\"{1}\"\n}'''\nd = t'''{x}\n'''\n";
        let spans = multiline_string_spans(source);
        let texts: Vec<&str> = spans.iter().map(|span| &source[span.clone()]).collect();
        assert_eq!(
            texts,
            ["'''x\ny'''", "f'''{\nf\"{1}\"\n}'''", "t'''{x}\n'''"]
        );
    }

    #[test]
    fn problems_are_sorted_and_include_unsupported_syntax() {
        let problems = syntax_problems("f((a)=1)\nx = (\n");
        assert!(problems.len() >= 2, "{problems:?}");
        assert!(
            problems
                .windows(2)
                .all(|pair| pair[0].offset <= pair[1].offset)
        );
        assert!(
            problems[0].message.contains("parenthesized keyword"),
            "{problems:?}"
        );
        // Newest syntax is no problem: PEP 695, PEP 701, except groups, match.
        let modern = "type X = int\nclass C[T]: pass\nx = f\"{d[\"k\"]}\"\ntry: pass\nexcept* E: pass\nmatch x:\n    case 1: pass\n";
        assert_eq!(syntax_problems(modern), []);
    }

    #[test]
    fn a_hundredth_level_of_indentation_is_refused_like_cpython() {
        let nested = |levels: usize| -> String {
            let mut source: String = (0..levels)
                .map(|level| format!("{}if x:\n", " ".repeat(level)))
                .collect();
            source.push_str(&" ".repeat(levels));
            source.push_str("pass\n");
            source
        };
        assert_eq!(syntax_problems(&nested(99)), []);
        let problems = syntax_problems(&nested(100));
        assert_eq!(problems.len(), 1);
        assert!(problems[0].message.contains("too many levels"));
    }

    #[test]
    fn huge_depth_bounds_come_from_long_lines_and_deep_blocks() {
        let parsed = |source: &str| {
            depth_bound(parse_unchecked(source, ParseOptions::from(Mode::Module)).tokens())
        };
        assert!(parsed("x = 1\n") < 20);
        assert!(parsed(&format!("x = {}1\n", "-".repeat(5000))) > 5000);
        assert!(parsed("if a:\n if b:\n  if c:\n   pass\n") >= 8);
    }
}
