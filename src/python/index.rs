//! What the symbol index of a module is: the plain data that `symbols.rs` builds, `parse/`
//! fills in part (a definition's [`SymbolKind`]), `indent.rs` reads (a [`Symbol`]'s range and
//! indentation) and the rest of the crate gets through `crate::python`.
//!
//! The bottom layer of `python/`: data only, importing nothing of its neighbours, so that
//! every other file may use it without tying a knot. Serializable, as the parse index keeps
//! it across mounts (`resources/source/parse_index.rs`, whose format version goes up with
//! any change here or to what `index_module` puts in it).

use std::ops::Range;

use serde::{Deserialize, Serialize};

/// What a symbol is. Methods are functions whose parent is a class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SymbolKind {
    Class,
    Function,
    AsyncFunction,
}

impl SymbolKind {
    /// `class`, `function`, `method`, `async function`, `async method`: what a symbol of
    /// this kind is called, `in_class` or not.
    pub fn name(self, in_class: bool) -> &'static str {
        match (self, in_class) {
            (SymbolKind::Class, _) => "class",
            (SymbolKind::Function, false) => "function",
            (SymbolKind::Function, true) => "method",
            (SymbolKind::AsyncFunction, false) => "async function",
            (SymbolKind::AsyncFunction, true) => "async method",
        }
    }
}

/// A class, function or method of a module.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Symbol {
    /// Names from the module down, e.g. `["Account", "balance"]`.
    pub qualname: Vec<String>,
    /// File name without `.py`: the name, or `name@N` (N from 2) for the other definitions
    /// of the same name in the same container (a property setter, an `if`/`else` pair, an
    /// `@overload` stub). The plain name is the first definition, except among overloads:
    /// there it is the implementation, the first definition without `@overload`.
    pub file_stem: String,
    pub kind: SymbolKind,
    /// Whether it is an `@overload` stub (a typing signature, not the code that runs).
    pub overload: bool,
    /// Index of the enclosing class in [`ModuleIndex::symbols`].
    pub parent: Option<usize>,
    /// Whole lines: from the leading comment block directly above (no blank line between,
    /// same indentation), else the first decorator, else the `def`/`class` line; to the end
    /// of the body's last line, or of the last comment after it indented deeper than the
    /// symbol (blank lines between them included), with its line break if there is one.
    pub range: Range<usize>,
    /// 1-based line of the `def`/`async`/`class` keyword.
    pub def_line: usize,
    /// 1-based line where the range starts (its comment block, decorators or keyword): the
    /// symbol is lines `first_line..first_line + lines` of the module.
    pub first_line: usize,
    /// How many lines of the range are the leading comment block.
    pub comment_lines: usize,
    /// How many lines of the range follow the body's last statement: comments indented
    /// inside the body, and blank lines between them.
    pub trailing_comment_lines: usize,
    /// The whitespace before the first decorator or the `def`/`class` keyword.
    pub indent: String,
    /// `(self, msg: str) -> bool`, `[T](x: T) -> T`, `(Base1, Base2)` or empty; one line.
    pub signature: String,
    /// First line of the docstring.
    pub doc: Option<String>,
    /// Lines in the range.
    pub lines: usize,
    /// Whether every line of the range that is not whitespace-only and not part of a
    /// string's value (see `value_lines`) starts with `indent`. When false, the symbol file
    /// is the range verbatim (still indented), see [`super::symbol_text`].
    pub exact_dedent: bool,
    /// The lines of the range (counted from 0) that continue a multi-line string that is
    /// no docstring: part of a value, kept byte for byte by dedent and re-indent.
    pub value_lines: Vec<usize>,
}

/// A syntax error, located for humans.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SyntaxProblem {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, counted in chars.
    pub column: usize,
    /// What is wrong or was expected, e.g. "Expected ')', found newline".
    pub message: String,
}

/// How a module binds a name other than by `def` or `class`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum NameKind {
    /// An assignment, with or without an annotation (`MAX = 3`, `log: Logger`).
    Value,
    /// `type Alias = ...`.
    TypeAlias,
    /// `__all__`, the names `from module import *` takes.
    All,
    /// An import; `explicit` for the `import x as x` idiom that marks a re-export.
    Import { explicit: bool },
}

/// A name a module binds at its top level other than by `def` or `class`: a constant, a
/// variable, a type alias, `__all__` or an import.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModuleName {
    pub name: String,
    pub kind: NameKind,
    /// 1-based line of the statement that binds it first.
    pub line: usize,
    /// What it is bound to, on one line and cut: ` = 3`, `: int = 3`, `from pkg.mod`,
    /// `import numpy`; for `__all__` its names, comma-separated.
    pub value: String,
    /// Bound inside a top-level `if`, `try` or `with` block, not by a statement of the
    /// module's body itself (`try: from .version import v` guards against a failure).
    #[serde(default)]
    pub guarded: bool,
}

/// The symbols of one module and what is known about the module itself.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ModuleIndex {
    /// First line of the module docstring.
    pub docstring: Option<String>,
    pub symbols: Vec<Symbol>,
    /// The names it binds other than by `def` and `class`, in source order (those before
    /// the first syntax error only).
    pub names: Vec<ModuleName>,
    /// Syntax errors; empty for valid Python.
    pub problems: Vec<SyntaxProblem>,
    /// Lines in the module.
    pub lines: usize,
    /// How large the text is as views tell it, so that a folder's `_entry.md` describes
    /// its modules from their indexes without reading them.
    pub size: TextSize,
}

/// A text's lines (as `str::lines` counts them: a lone `\r` breaks none) and characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct TextSize {
    pub lines: usize,
    pub chars: usize,
}

impl TextSize {
    pub fn of(text: &str) -> TextSize {
        TextSize {
            lines: text.lines().count(),
            chars: text.chars().count(),
        }
    }
}
