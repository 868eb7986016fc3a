//! The symbol index of one Python module: which classes, functions and methods it defines,
//! each with the exact byte range that its symbol file stands for.
//!
//! Guarantees, for `index_module(source)` on any input (it never panics):
//! - symbols are in source order, parents before children, ranges nested like the code;
//! - every range starts at a line start and ends at a line end (after its line break, if
//!   any), on char boundaries, so `source[range]` is whole lines;
//! - ranges of siblings never overlap: a leading comment block is taken only from lines at
//!   exactly the symbol's indentation, which no body can end with;
//! - with syntax errors, `problems` is non-empty and `symbols` keeps only the top-level
//!   definitions (with everything inside them) that end before the line of the first error.

use std::collections::HashMap;
use std::ops::Range;

use super::indent::{self, LineTable};
use super::parse::{self, Definition, Problem};

/// What a symbol is. Methods are functions whose parent is a class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SymbolKind {
    Class,
    Function,
    AsyncFunction,
}

/// A class, function or method of a module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Symbol {
    /// Names from the module down, e.g. `["Account", "balance"]`.
    pub qualname: Vec<String>,
    /// File name without `.py`: the name, or `name@N` for the N-th definition of the same
    /// name in the same container (a property setter, an `@overload`, an `if`/`else` pair).
    pub file_stem: String,
    pub kind: SymbolKind,
    /// Index of the enclosing class in [`ModuleIndex::symbols`].
    pub parent: Option<usize>,
    /// Whole lines: from the leading comment block directly above (no blank line between,
    /// same indentation), else the first decorator, else the `def`/`class` line; to the end
    /// of the body's last line, including its line break if there is one.
    pub range: Range<usize>,
    /// 1-based line of the `def`/`async`/`class` keyword.
    pub def_line: usize,
    /// How many lines of the range are the leading comment block.
    pub comment_lines: usize,
    /// The whitespace before the first decorator or the `def`/`class` keyword.
    pub indent: String,
    /// `(self, msg: str) -> bool`, `[T](x: T) -> T`, `(Base1, Base2)` or empty; one line.
    pub signature: String,
    /// First line of the docstring.
    pub doc: Option<String>,
    /// Lines in the range.
    pub lines: usize,
    /// Whether every line of the range that needs it starts with `indent`. When false,
    /// the symbol file is the range verbatim (still indented), see [`super::symbol_text`].
    pub exact_dedent: bool,
    /// Lines of the range (0-based, relative to its first line) that begin inside a
    /// multi-line string, which dedent leaves alone.
    pub(super) string_lines: Vec<Range<usize>>,
}

/// A syntax error, located for humans.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxProblem {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, counted in chars.
    pub column: usize,
    /// What is wrong or was expected, e.g. "Expected ')', found newline".
    pub message: String,
}

/// The symbols of one module and what is known about the module itself.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ModuleIndex {
    /// First line of the module docstring.
    pub docstring: Option<String>,
    pub symbols: Vec<Symbol>,
    /// Syntax errors; empty for valid Python.
    pub problems: Vec<SyntaxProblem>,
    /// Lines in the module.
    pub lines: usize,
}

/// Indexes a module's source. Never panics; see the module docs for what holds.
pub fn index_module(source: &str) -> ModuleIndex {
    let outline = parse::outline(source);
    let table = LineTable::new(source);
    let in_string = table.lines_in_strings(&outline.multiline_strings);
    let reliable = reliable_prefix(&outline.definitions, &outline.problems, &table);
    let mut symbols: Vec<Symbol> = Vec::with_capacity(reliable);
    let mut seen: HashMap<(Option<usize>, &str), usize> = HashMap::new();
    for definition in &outline.definitions[..reliable] {
        let count = seen
            .entry((definition.parent, definition.name.as_str()))
            .or_insert(0);
        *count += 1;
        let mut qualname = definition
            .parent
            .and_then(|parent| symbols.get(parent))
            .map_or_else(Vec::new, |parent| parent.qualname.clone());
        qualname.push(definition.name.clone());
        symbols.push(symbol(
            source, &table, &in_string, definition, qualname, *count,
        ));
    }
    ModuleIndex {
        docstring: outline.docstring,
        symbols,
        problems: locate(source, &table, &outline.problems),
        lines: table.len(),
    }
}

/// All syntax errors of `source`, each with line, column and what was expected.
pub fn check_syntax(source: &str) -> Vec<SyntaxProblem> {
    locate(
        source,
        &LineTable::new(source),
        &parse::syntax_problems(source),
    )
}

/// How many definitions (a prefix, so whole top-level subtrees) end before the line of the
/// first syntax error. Error recovery may stretch or cut whatever the error touches, and
/// top-level definitions are in order and disjoint, so the first one that fails ends it.
fn reliable_prefix(definitions: &[Definition], problems: &[Problem], table: &LineTable) -> usize {
    let Some(first) = problems.first() else {
        return definitions.len();
    };
    let limit = table.line_start(table.line_of(first.offset));
    definitions
        .iter()
        .position(|definition| {
            definition.parent.is_none() && table.line_end_after(definition.end) > limit
        })
        .unwrap_or(definitions.len())
}

fn symbol(
    source: &str,
    table: &LineTable,
    in_string: &[bool],
    definition: &Definition,
    qualname: Vec<String>,
    occurrence: usize,
) -> Symbol {
    let first_line = table.line_of(definition.start);
    let head_start = table.line_start(first_line);
    // Only the whitespace right before the keyword: a byte-order mark may precede it.
    let before = source.get(head_start..definition.start).unwrap_or("");
    let indent = before
        .get(before.trim_end_matches([' ', '\t', '\x0c']).len()..)
        .unwrap_or("")
        .to_string();
    let comment_lines = comment_block(source, table, in_string, first_line, &indent);
    let start_line = first_line - comment_lines;
    let end = table.line_end_after(definition.end).max(head_start);
    let end_line = table.line_of(end.saturating_sub(1)).max(start_line);
    let lines = if end > head_start {
        end_line - start_line + 1
    } else {
        0
    };
    let string_lines = relative_runs(in_string, start_line, lines);
    let range = table.line_start(start_line)..end;
    let exact_dedent = source
        .get(range.clone())
        .is_some_and(|text| indent::can_dedent(text, &indent, &string_lines));
    let name = qualname.last().cloned().unwrap_or_default();
    Symbol {
        file_stem: if occurrence == 1 {
            name
        } else {
            format!("{name}@{occurrence}")
        },
        qualname,
        kind: definition.kind,
        parent: definition.parent,
        range,
        def_line: table.line_of(definition.keyword) + 1,
        comment_lines,
        indent,
        signature: definition.signature.clone(),
        doc: definition.doc.clone(),
        lines,
        exact_dedent,
        string_lines,
    }
}

/// How many lines directly above `line` are comments at exactly `indent` (`indent` then `#`),
/// not inside a string.
fn comment_block(
    source: &str,
    table: &LineTable,
    in_string: &[bool],
    line: usize,
    indent: &str,
) -> usize {
    let mut count = 0;
    while count < line {
        let above = line - count - 1;
        let is_comment = !in_string.get(above).copied().unwrap_or(false)
            && source
                .get(table.line_range(above))
                .and_then(|text| text.strip_prefix(indent))
                .is_some_and(|rest| rest.starts_with('#'));
        if !is_comment {
            break;
        }
        count += 1;
    }
    count
}

/// The runs of `true` in `flags[start..start + len]`, relative to `start`.
fn relative_runs(flags: &[bool], start: usize, len: usize) -> Vec<Range<usize>> {
    let mut runs: Vec<Range<usize>> = Vec::new();
    for offset in 0..len {
        if !flags.get(start + offset).copied().unwrap_or(false) {
            continue;
        }
        match runs.last_mut() {
            Some(run) if run.end == offset => run.end = offset + 1,
            _ => runs.push(offset..offset + 1),
        }
    }
    runs
}

fn locate(source: &str, table: &LineTable, problems: &[Problem]) -> Vec<SyntaxProblem> {
    problems
        .iter()
        .map(|problem| {
            let (line, column) = table.line_column(source, problem.offset);
            SyntaxProblem {
                line,
                column,
                message: problem.message.clone(),
            }
        })
        .collect()
}
