//! The boundary to the Ruff parser: the only module that imports `ruff_*` crates
//! (`semantic.rs` beside this file is part of it).
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

use std::ops::Range;

use ruff_python_ast::token::{Token, TokenKind, Tokens};
use ruff_python_ast::{
    ExceptHandler, Expr, ModModule, PythonVersion, Stmt, StmtClassDef, StmtFunctionDef,
};
use ruff_python_parser::{Mode, ParseOptions, Parsed, parse_unchecked};
use ruff_text_size::{Ranged, TextRange, TextSize};

pub(super) mod calls;
mod names;
pub(super) mod uses;

pub(super) use names::Binding;

use super::depth::{self, Nesting};
use super::index::SymbolKind;

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
    /// The byte span of its docstring's string literal, if it has one.
    pub doc_span: Option<Range<usize>>,
    /// Whether it is a typing stub of an overloaded function (`@overload`), not its
    /// implementation.
    pub overload: bool,
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
    /// Those of [`Outline::multiline_strings`] that are no docstring of the module or of a
    /// definition: their lines after the first are part of a value, and re-indenting them
    /// would change it.
    pub value_strings: Vec<Range<usize>>,
    /// The names the module binds other than by `def` and `class`, in source order.
    pub bindings: Vec<Binding>,
    /// Sorted by offset; empty when the source is valid Python.
    pub problems: Vec<Problem>,
}

/// Parses `source` and extracts its outline.
pub(super) fn outline(source: &str) -> Outline {
    with_module(source, |parsed| {
        let definitions = definitions(source, parsed);
        let multiline_strings = multiline_strings(source, parsed.tokens());
        // Every body's docstring, also of functions and classes defined inside a
        // function: they move with their code when a symbol is dedented.
        let docstrings: Vec<Range<usize>> = definitions
            .iter()
            .filter_map(|d| d.doc_span.clone())
            .chain(doc_span(&parsed.syntax().body))
            .chain(nested_docstrings(&parsed.syntax().body))
            .collect();
        let value_strings = multiline_strings
            .iter()
            .filter(|span| !docstrings.contains(span))
            .cloned()
            .collect();
        Outline {
            docstring: docstring(&parsed.syntax().body)
                .or_else(|| assigned_docstring(&parsed.syntax().body)),
            definitions,
            multiline_strings,
            value_strings,
            bindings: names::bindings(source, &parsed.syntax().body),
            problems: problems(parsed),
        }
    })
    .unwrap_or_else(|problem| Outline {
        problems: vec![problem],
        ..Outline::default()
    })
}

/// The byte spans of the import statements `source` opens with (after its docstring,
/// before its first other statement), in order; empty when it does not parse.
pub fn leading_imports(source: &str) -> Vec<Range<usize>> {
    with_module(source, |parsed| {
        let body = &parsed.syntax().body;
        let docstring = usize::from(doc_span(body).is_some());
        body[docstring..]
            .iter()
            .take_while(|stmt| matches!(stmt, Stmt::Import(_) | Stmt::ImportFrom(_)))
            .map(|stmt| stmt.range().to_std_range())
            .collect()
    })
    .unwrap_or_default()
}

/// All syntax problems of `source`, sorted by offset.
pub(super) fn syntax_problems(source: &str) -> Vec<Problem> {
    with_module(source, problems).unwrap_or_else(|problem| vec![problem])
}

/// How much stack a job on a parsed tree needs per unit of [`depth_bound`], and up to which
/// depth it runs on the caller's stack (any thread has room for that much).
#[derive(Debug, Clone, Copy)]
struct StackNeed {
    per_level: usize,
    shallow_depth: usize,
}

/// Dropping the tree (and the iterative outline walks). The worst shapes measured
/// (`deep_nesting_is_survived_on_a_small_stack`) need a small part of `per_level` in debug
/// builds.
const DROP: StackNeed = StackNeed {
    per_level: 1024,
    shallow_depth: 1_000,
};
/// The recursive semantic walk of [`validation_problems`] (the visitor and the checker on
/// each node, then the drop). The worst shapes measured, chains of unary operators, `await`
/// or `yield`, need most of `per_level` in debug builds; `validate.rs` runs them on a small
/// stack. Trees up to `shallow_depth` units deep stay on the caller's stack.
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
    // Ruff guards most of its recursion with stack growth, but not lambda parameter
    // defaults (`lambda a=lambda a=...`): parse such sources on a stack that fits them.
    let lambdas = source.matches("lambda").count();
    if lambdas > MAX_LAMBDAS {
        return Err(problem(&format!("too many lambdas to analyse ({lambdas})")));
    }
    if lambdas > SHALLOW_LAMBDAS {
        let stack = lambdas.saturating_mul(LAMBDA_STACK).saturating_add(8 << 20);
        return std::thread::scope(|scope| {
            std::thread::Builder::new()
                .name("python-lambdas".to_string())
                .stack_size(stack)
                .spawn_scoped(scope, || parse_and_run(source, version, need, f))
                .ok()
                .and_then(|handle| handle.join().ok())
                .unwrap_or_else(|| Err(problem("internal error: the Python parser failed")))
        });
    }
    parse_and_run(source, version, need, f)
}

/// Lambdas a source may hold before its parse runs on a stack sized for them.
const SHALLOW_LAMBDAS: usize = 50;
/// Past this many lambdas a source is refused unparsed (no real module comes close).
const MAX_LAMBDAS: usize = 100_000;
/// Stack one nested lambda default may need while parsing (measured in debug builds, with
/// margin).
const LAMBDA_STACK: usize = 8 << 10;

fn parse_and_run<R: Send>(
    source: &str,
    version: PythonVersion,
    need: StackNeed,
    f: impl FnOnce(&Parsed<ModModule>) -> R + Send,
) -> Result<R, Problem> {
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

/// The statements of a module body that run at its top level, in source order: through
/// `if`/`try`/`with` blocks (a constant set per platform, an import that may fail, `if
/// TYPE_CHECKING:`), never into functions or classes; the blocks themselves are left out.
/// Iterative, so deeply nested blocks cannot exhaust the stack.
pub(super) fn top_level_statements(body: &[Stmt]) -> Vec<&Stmt> {
    let mut found = Vec::new();
    let mut pending: Vec<&Stmt> = body.iter().rev().collect();
    while let Some(stmt) = pending.pop() {
        match stmt {
            Stmt::If(block) => {
                let mut bodies: Vec<&[Stmt]> = vec![&block.body];
                bodies.extend(block.elif_else_clauses.iter().map(|c| c.body.as_slice()));
                for body in bodies.into_iter().rev() {
                    pending.extend(body.iter().rev());
                }
            }
            Stmt::Try(block) => {
                pending.extend(block.finalbody.iter().rev());
                pending.extend(block.orelse.iter().rev());
                for ExceptHandler::ExceptHandler(handler) in block.handlers.iter().rev() {
                    pending.extend(handler.body.iter().rev());
                }
                pending.extend(block.body.iter().rev());
            }
            Stmt::With(block) => pending.extend(block.body.iter().rev()),
            other => found.push(other),
        }
    }
    found
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
        doc_span: doc_span(&def.body),
        overload: def
            .decorator_list
            .iter()
            .any(|decorator| is_overload(&decorator.expression)),
    }
}

/// `@overload`, `@typing.overload`, `@t.overload`, `@typing_extensions.overload`: the name
/// `overload`, alone or as an attribute of a module name, whatever the module is imported
/// as. A call (`@overload()`) is some other decorator.
fn is_overload(decorator: &Expr) -> bool {
    match decorator {
        Expr::Name(name) => name.id.as_str() == "overload",
        Expr::Attribute(attribute) => {
            attribute.attr.id.as_str() == "overload" && matches!(*attribute.value, Expr::Name(_))
        }
        _ => false,
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
        doc_span: doc_span(&class.body),
        overload: false,
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
/// no space just inside brackets or before a comma, and no comma that only ended the last
/// line before a closing bracket (`(\n    name: str,\n)` reads `(name: str)`; a one-tuple
/// keeps its comma, also split over lines); cut to [`SIGNATURE_CHARS`].
fn signature(source: &str, tokens: &Tokens, range: TextRange) -> String {
    let first = tokens.partition_point(|token| token.start() < range.start());
    let mut text = String::new();
    let mut previous: Option<&Token> = None;
    let mut line_ended = false;
    // Each open bracket: whether its comma may go. A `(` is a tuple's unless it follows a
    // name or a closing bracket (parameters, bases, a call), and a tuple of one item needs
    // its comma; a list's, a dict's or a call's never changes what it is.
    let mut open: Vec<(bool, usize)> = Vec::new();
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
            line_ended |= token.kind() != TokenKind::Comment;
            continue;
        }
        match token.kind() {
            TokenKind::Lpar => {
                let called = previous.is_none_or(|p| {
                    matches!(
                        p.kind(),
                        TokenKind::Name | TokenKind::Rpar | TokenKind::Rsqb | TokenKind::Rbrace
                    )
                });
                open.push((called, 0));
            }
            TokenKind::Lsqb | TokenKind::Lbrace => open.push((true, 0)),
            TokenKind::Comma => {
                if let Some((_, commas)) = open.last_mut() {
                    *commas += 1;
                }
            }
            TokenKind::Rpar | TokenKind::Rsqb | TokenKind::Rbrace => {
                let (not_a_tuple, commas) = open.pop().unwrap_or((true, 0));
                if line_ended
                    && previous.is_some_and(|p| p.kind() == TokenKind::Comma)
                    && text.ends_with(',')
                    && (not_a_tuple || commas > 1)
                {
                    text.pop();
                }
            }
            _ => {}
        }
        line_ended = false;
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

/// The docstrings of every function and class in `body`, at any depth: statements only,
/// with a stack of bodies, not recursion (see [`with_module_at`]).
fn nested_docstrings(body: &[Stmt]) -> Vec<Range<usize>> {
    let mut found = Vec::new();
    let mut bodies: Vec<&[Stmt]> = vec![body];
    while let Some(body) = bodies.pop() {
        for stmt in body {
            match stmt {
                Stmt::FunctionDef(def) => {
                    found.extend(doc_span(&def.body));
                    bodies.push(&def.body);
                }
                Stmt::ClassDef(class) => {
                    found.extend(doc_span(&class.body));
                    bodies.push(&class.body);
                }
                Stmt::If(s) => {
                    bodies.push(&s.body);
                    bodies.extend(s.elif_else_clauses.iter().map(|c| c.body.as_slice()));
                }
                Stmt::For(s) => bodies.extend([s.body.as_slice(), s.orelse.as_slice()]),
                Stmt::While(s) => bodies.extend([s.body.as_slice(), s.orelse.as_slice()]),
                Stmt::With(s) => bodies.push(&s.body),
                Stmt::Try(s) => {
                    bodies.extend([
                        s.body.as_slice(),
                        s.orelse.as_slice(),
                        s.finalbody.as_slice(),
                    ]);
                    bodies.extend(s.handlers.iter().map(|h| match h {
                        ExceptHandler::ExceptHandler(h) => h.body.as_slice(),
                    }));
                }
                Stmt::Match(s) => bodies.extend(s.cases.iter().map(|c| c.body.as_slice())),
                _ => {}
            }
        }
    }
    found
}

/// The span of a body's docstring: its first statement, when that is a string literal.
fn doc_span(body: &[Stmt]) -> Option<Range<usize>> {
    let Some(Stmt::Expr(statement)) = body.first() else {
        return None;
    };
    matches!(statement.value.as_ref(), Expr::StringLiteral(_))
        .then(|| statement.value.range().to_std_range())
}

/// The first line of prose of a body's docstring, trimmed.
fn docstring(body: &[Stmt]) -> Option<String> {
    let Some(Stmt::Expr(statement)) = body.first() else {
        return None;
    };
    let Expr::StringLiteral(literal) = statement.value.as_ref() else {
        return None;
    };
    first_prose_line(literal.value.to_str())
}

/// The first line of prose of a module docstring given as `__doc__ = """…"""` at its
/// top level (pyparsing's), which Python takes as the module's docstring too: the last
/// such assignment, as Python keeps it.
fn assigned_docstring(body: &[Stmt]) -> Option<String> {
    body.iter().rev().find_map(|stmt| {
        let Stmt::Assign(assign) = stmt else {
            return None;
        };
        let [Expr::Name(target)] = assign.targets.as_slice() else {
            return None;
        };
        let Expr::StringLiteral(literal) = assign.value.as_ref() else {
            return None;
        };
        (target.id.as_str() == "__doc__").then(|| first_prose_line(literal.value.to_str()))?
    })
}

/// The first non-blank line of `doc` that is not a reST directive (`.. testsetup::`) nor
/// the indented block under one: a description that reads `.. testsetup::` says nothing.
/// Nor a title that only names the module (`pygments.lexers` over a line of `~`), nor the
/// lines that under- or overline a title.
fn first_prose_line(doc: &str) -> Option<String> {
    let indent = |line: &str| line.len() - line.trim_start().len();
    let mut lines = doc.lines();
    // The first line starts right after the quotes, so it has no indentation of its own.
    let first = lines.next().map(str::trim_start);
    let rest: Vec<&str> = lines.collect();
    let common = rest
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| indent(l))
        .min()
        .unwrap_or(0);
    let lines: Vec<&str> = first
        .into_iter()
        .chain(
            rest.iter()
                .map(|l| l.get(common..).unwrap_or(l.trim_start())),
        )
        .collect();
    let mut directive: Option<usize> = None;
    for (at, line) in lines.iter().enumerate() {
        if line.trim().is_empty() || is_rule(line) {
            continue;
        }
        if directive.is_some_and(|at| indent(line) > at) {
            continue;
        }
        if line.trim_start().starts_with(".. ") {
            directive = Some(indent(line));
            continue;
        }
        // `pkg.module`, not a one-word section title (`Parameters` over `----------`).
        let dotted_name = line.contains('.')
            && line
                .trim()
                .chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '.');
        if dotted_name && lines.get(at + 1).is_some_and(|next| is_rule(next)) {
            continue;
        }
        return Some(line.trim().to_string());
    }
    None
}

/// Whether `line` is a reST title's under- or overline: one punctuation mark repeated.
fn is_rule(line: &str) -> bool {
    let line = line.trim();
    let mut chars = line.chars();
    let Some(mark) = chars.next() else {
        return false;
    };
    line.len() >= 3 && mark.is_ascii_punctuation() && chars.all(|c| c == mark)
}

/// Where each logical line of `source` starts (its first token), and where each comment
/// on a line of its own starts: the lines whose indentation is the block's, which a change
/// of indent unit rescales; the other lines of a statement (in brackets, after a `\`, in a
/// docstring) follow their statement's first line. `None` when `source` is not valid Python.
pub(super) fn line_starts(source: &str) -> Option<(Vec<usize>, Vec<usize>)> {
    with_module(source, |parsed| {
        if !parsed.errors().is_empty() {
            return None;
        }
        let (mut statements, mut comments) = (Vec::new(), Vec::new());
        let mut pending = true;
        for token in parsed.tokens().iter() {
            let start = token.start().to_usize();
            match token.kind() {
                TokenKind::Newline => pending = true,
                TokenKind::Indent
                | TokenKind::Dedent
                | TokenKind::NonLogicalNewline
                | TokenKind::EndOfFile => {}
                TokenKind::Comment if pending => comments.push(start),
                TokenKind::Comment => {}
                _ if pending => {
                    statements.push(start);
                    pending = false;
                }
                _ => {}
            }
        }
        Some((statements, comments))
    })
    .ok()
    .flatten()
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

mod semantic;

pub(super) use semantic::validation_problems;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_lambda_defaults_do_not_overflow_the_stack() {
        let deep = format!("x = {}0\n", "lambda a=".repeat(5_000));
        // Run on a small stack, as a request thread might be.
        std::thread::Builder::new()
            .stack_size(256 << 10)
            .spawn(move || outline(&deep))
            .unwrap()
            .join()
            .unwrap();
    }

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
            "(self, msg: str, *, retries: int = 3) -> bool"
        );
        assert_eq!(
            only("def f(\n    x=(1,),\n    y=[2,\n       ],\n    z=(\n        \"a\",\n    ),\n    w=(\n        1,\n        2,\n    ),\n): pass\n").signature,
            "(x=(1,), y=[2], z=(\"a\",), w=(1, 2))"
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
    fn overload_stubs_are_known_by_their_decorator_however_typing_is_imported() {
        for decorator in [
            "overload",
            "typing.overload",
            "t.overload",
            "typing_extensions.overload",
        ] {
            let source = format!("@functools.cache\n@{decorator}\ndef f(x: int) -> int: ...\n");
            assert!(only(&source).overload, "@{decorator}");
        }
        for decorator in [
            "overload()",
            "typing.overload_all",
            "a.b.overload",
            "staticmethod",
        ] {
            let source = format!("@{decorator}\ndef f(x: int) -> int: ...\n");
            assert!(!only(&source).overload, "@{decorator}");
        }
        assert!(!only("def f(): pass\n").overload);
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
        // pygments' modules open with their own name as a title.
        assert_eq!(
            outline(
                "\"\"\"\n    pygments.lexers\n    ~~~~~~~~~~~~~~~\n\n    Pygments lexers.\n\"\"\"\n"
            )
            .docstring
            .as_deref(),
            Some("Pygments lexers.")
        );
        // `__doc__ = '''…'''` is the module's docstring too (pyparsing's).
        assert_eq!(
            outline("# comment\n__doc__ = '''\nParsing module.\n'''\nx = 1\n")
                .docstring
                .as_deref(),
            Some("Parsing module.")
        );
        // A title that says something is the description; its rules are not.
        assert_eq!(
            outline("'''\n=================\nSorted Containers\n=================\n'''\n")
                .docstring
                .as_deref(),
            Some("Sorted Containers")
        );
    }

    #[test]
    fn multiline_strings_span_whole_f_strings() {
        let source =
            "a = '''x\ny'''\nb = 'one line'\nc = f'''{\nf\"{1}\"\n}'''\nd = t'''{x}\n'''\n";
        let spans = outline(source).multiline_strings;
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

    #[test]
    fn a_description_skips_rest_directives_and_their_blocks() {
        let version = "\n.. testsetup::\n\n    from packaging.version import parse\n";
        assert_eq!(first_prose_line(version), None);
        let described = "\n    .. note::\n        Internal.\n\n    Parse versions.\n    ";
        assert_eq!(
            first_prose_line(described).as_deref(),
            Some("Parse versions.")
        );
        assert_eq!(
            first_prose_line("The module.\n\n    More.").as_deref(),
            Some("The module.")
        );
    }
}
