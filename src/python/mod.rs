//! Python source as symbols: the index of a module's classes, functions and methods with
//! exact byte ranges, and the dedent/re-indent that make each symbol an exact, editable file.
//!
//! ```text
//! validate.rs validate / target_version: would it compile on the project's Python?
//! interpreter.rs find: the project's interpreter, if the owner's alone (crate::trust),
//!             pinned to the path it runs by; pyenv.rs a pyenv shim resolved to the
//!             version's interpreter, venv.rs a venv's pyvenv.cfg and its home checked
//! symbols.rs  index_module, check_syntax: which symbols, where, and the syntax problems
//! indent.rs   symbol_text / reindent: a symbol's lines as a standalone file and back
//! parse/      the Ruff parser behind our own types (the only module that imports ruff_*):
//!             mod.rs the outline and syntax errors, semantic.rs version and compile checks,
//!             calls.rs what a line calls and what a module imports (a failure's suspects)
//! dotted.rs   Dotted: a module's or symbol's dotted name in parts, borrowed (DottedName: owned)
//! depth.rs    how deep a syntax tree can be, so that dropping it cannot overflow a stack
//! index.rs    Symbol, SymbolKind, ModuleIndex, SyntaxProblem: the plain data handed out
//! lines.rs    LineTable: where lines start, which line and column an offset is on
//! ```
//!
//! The files are layered in that order: each imports only files listed below it, never one
//! above (so a change to the data or the parser cannot loop back through its users).
//!
//! The contract a caller relies on: for every symbol of `index_module(source)`,
//! `reindent(&symbol_text(source, sym), &sym.indent) == source[sym.range]`, byte for byte,
//! whatever the line endings, tabs, strings or comments.
//!
//! ```text
//! source:  class Account:\n    # the balance\n    def balance(self):\n        return 1\n
//! symbols: Account (whole text), Account.balance (lines 2-4, indent "    ")
//! file:    # the balance\ndef balance(self):\n    return 1\n
//! ```
//! (`the_contract_by_example` below runs exactly this.)

#[cfg(test)]
mod corpus_tests;
mod depth;
mod dotted;
mod indent;
mod index;
pub mod interpreter;
mod lines;
mod parse;
mod pyenv;
mod symbols;
mod validate;
mod venv;

pub use dotted::{Dotted, DottedName};
pub use indent::{reindent, symbol_text, with_indent_unit};
pub use index::{ModuleIndex, ModuleName, NameKind, Symbol, SymbolKind, SyntaxProblem};
pub use lines::LineTable;
pub use parse::calls::{Import, LineCalls, imports, line_calls};
pub use parse::leading_imports;
pub use parse::uses::{ModuleUses, Use, module_uses};
pub use symbols::{check_syntax, index_module};
pub use validate::{Version, minimum_version, target_version, validate};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_contract_by_example() {
        let source =
            "class Account:\n    # the balance\n    def balance(self):\n        return 1\n";
        let index = index_module(source);
        let method = &index.symbols[1];
        assert_eq!(method.qualname, ["Account", "balance"]);
        assert_eq!(method.range, 15..source.len());
        let text = symbol_text(source, method);
        assert_eq!(text, "# the balance\ndef balance(self):\n    return 1\n");
        assert_eq!(
            reindent(&text, &method.indent),
            &source[method.range.clone()]
        );
    }
}
