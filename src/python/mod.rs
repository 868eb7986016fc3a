//! Python source as symbols: the index of a module's classes, functions and methods with
//! exact byte ranges, and the dedent/re-indent that make each symbol an exact, editable file.
//!
//! ```text
//! parse/      the Ruff parser behind our own types (the only module that imports ruff_*):
//!             mod.rs the outline and syntax errors, semantic.rs version and compile checks
//! depth.rs    how deep a syntax tree can be, so that dropping it cannot overflow a stack
//! symbols.rs  index_module, check_syntax: which symbols, where, and the syntax problems
//! indent.rs   symbol_text / reindent: a symbol's lines as a standalone file and back
//! validate.rs validate / target_version: would it compile on the project's Python?
//! ```
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
mod indent;
mod parse;
mod symbols;
mod validate;

pub use indent::{reindent, symbol_text};
pub use symbols::{ModuleIndex, Symbol, SymbolKind, SyntaxProblem, check_syntax, index_module};
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
