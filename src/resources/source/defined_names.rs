//! The `Names` section of a module's outline: what the module defines besides classes and
//! functions — constants and other module-level names with their value in short, type
//! aliases, `__all__`, and the names it re-exports (marked) — with the lighter forms the
//! budget may take a row to (without its value, then by name only).
//!
//! An import is listed only as a re-export: a name in `__all__`, the `import x as x`
//! idiom, or a public name a package's `__init__.py` takes `from` a module (its public
//! face). Other imports (`import typing as t`, `from __future__ import …`) are what the
//! module uses, not what it defines.

use std::collections::HashSet;

use crate::model::{Detail, Lighter, Section};
use crate::python::{ModuleIndex, ModuleName, NameKind};
use crate::resources::source::outline::{privacy, shorten};

/// Longest value a row shows, in chars; `__all__`'s names get more room.
const VALUE_CHARS: usize = 48;
const ALL_CHARS: usize = 120;

/// The names of `index` an outline lists, in source order; `package` when the module is a
/// package's `__init__.py`.
pub(super) fn listed(index: &ModuleIndex, package: bool) -> Vec<&ModuleName> {
    let exported: HashSet<&str> = index
        .names
        .iter()
        .filter(|name| name.kind == NameKind::All)
        .flat_map(|name| name.value.split(", "))
        .collect();
    // A class or function bound again at the top (`Attribute = _add_hash(Attribute)`) is
    // listed once, with the symbols.
    let symbols: HashSet<&str> = index
        .symbols
        .iter()
        .filter(|s| s.qualname.len() == 1)
        .map(|s| s.qualname[0].as_str())
        .collect();
    index
        .names
        .iter()
        .filter(|name| match name.kind {
            // `from __future__ import annotations` tells the compiler something; it names
            // nothing the module offers.
            NameKind::Import { .. } if name.value == "from __future__" => false,
            NameKind::Import { explicit } => {
                explicit
                    || exported.contains(name.name.as_str())
                    // A package offers the names it takes from its modules, not the
                    // modules it uses under a short name (`import typing as t`).
                    || (package && !name.name.starts_with('_') && name.value.starts_with("from "))
            }
            NameKind::All => true,
            _ => !symbols.contains(name.name.as_str()),
        })
        .collect()
}

/// How many names [`listed`] counts apart from imports: what a module's one-line summary
/// can say without knowing whether it is a package.
pub(super) fn defined(index: &ModuleIndex) -> usize {
    index
        .names
        .iter()
        .filter(|name| !matches!(name.kind, NameKind::Import { .. }))
        .count()
}

/// The `Names` section of `index`'s outline, or `None` when it defines none.
pub(super) fn names_table(index: &ModuleIndex, package: bool) -> Option<Section> {
    let names = listed(index, package);
    if names.is_empty() {
        return None;
    }
    let rows: Vec<Row> = names.iter().map(|name| Row::of(name)).collect();
    let items = rows.iter().map(|row| row.line(true)).collect();
    let lighter = rows
        .iter()
        .map(|row| Lighter {
            forms: vec![(
                if row.value.is_empty() {
                    String::new()
                } else {
                    "without value".to_string()
                },
                row.line(false),
            )],
            name: format!("`{}`", row.name),
        })
        .collect();
    let mut rank: Vec<usize> = (0..names.len()).collect();
    rank.sort_by_key(|&at| {
        let name = names[at];
        let kind = match name.kind {
            NameKind::All => 0,
            NameKind::Value | NameKind::TypeAlias => 1,
            NameKind::Import { .. } => 2,
        };
        (privacy(&name.name), kind, at)
    });
    Some(Section {
        heading: "Names".into(),
        table_header: Some("| name | kind | value | line |".into()),
        items,
        detail: Some(Detail {
            items: lighter,
            rank,
            noun: "names".into(),
        }),
        ..Section::default()
    })
}

/// What a row shows of one name.
struct Row {
    name: String,
    kind: &'static str,
    value: String,
    line: usize,
}

impl Row {
    fn of(name: &ModuleName) -> Row {
        let kind = match name.kind {
            NameKind::All => "exports",
            NameKind::TypeAlias => "type alias",
            NameKind::Import { .. } => "re-export",
            NameKind::Value if is_constant(&name.name) => "constant",
            NameKind::Value => "variable",
        };
        let value = match name.kind {
            NameKind::All => shorten(&name.value, ALL_CHARS),
            _ => shorten(&name.value, VALUE_CHARS),
        };
        let value = match value.trim() {
            "" => String::new(),
            shown if shown.contains('`') => shown.replace('|', "\\|"),
            shown => format!("`{}`", shown.replace('|', "\\|")),
        };
        Row {
            name: name.name.clone(),
            kind,
            value,
            line: name.line,
        }
    }

    fn line(&self, value: bool) -> String {
        format!(
            "| `{}` | {} | {} | {} |",
            self.name,
            self.kind,
            if value { self.value.as_str() } else { "" },
            self.line
        )
    }
}

/// `MAX_SIZE`, `_DEFAULT`, `HTTP2`: upper case with at least one letter.
fn is_constant(name: &str) -> bool {
    name.chars().any(|c| c.is_ascii_uppercase())
        && name
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::python::index_module;

    const MODULE: &str = r#""""Keywords."""
from __future__ import annotations
import typing as t
from typing import Any
from .tokens import Keyword, Name as Name
from . import _private

__all__ = ["KEYWORDS", "Any"]

KEYWORDS = {
    "SELECT": Keyword,
    "FROM": Keyword,
}
if True:
    FLAGS: int = 3 | 4
else:
    FLAGS = 0
type Pair = tuple[int, int]
first, (second, *rest) = 1, (2, 3)

def lookup(word):
    local = 1
    return KEYWORDS.get(word)
"#;

    fn names(package: bool) -> Vec<(String, &'static str, String, usize)> {
        let index = index_module(MODULE);
        let rows = names_table(&index, package).map(|section| section.items.len());
        assert_eq!(rows, Some(listed(&index, package).len()));
        listed(&index, package)
            .into_iter()
            .map(|name| {
                let row = Row::of(name);
                (row.name, row.kind, row.value, row.line)
            })
            .collect()
    }

    #[test]
    fn a_module_lists_its_constants_all_and_re_exports_but_not_what_it_only_uses() {
        let rows = names(false);
        let shown: Vec<(&str, &str)> = rows
            .iter()
            .map(|(name, kind, _, _)| (name.as_str(), *kind))
            .collect();
        assert_eq!(
            shown,
            [
                ("Any", "re-export"),
                ("Name", "re-export"),
                ("__all__", "exports"),
                ("KEYWORDS", "constant"),
                ("FLAGS", "constant"),
                ("Pair", "type alias"),
                ("first", "variable"),
                ("second", "variable"),
                ("rest", "variable"),
            ]
        );
        let value = |name: &str| {
            rows.iter()
                .find(|row| row.0 == name)
                .map(|row| (row.2.clone(), row.3))
                .expect(name)
        };
        assert_eq!(value("__all__"), ("`KEYWORDS, Any`".to_string(), 8));
        assert_eq!(
            value("KEYWORDS"),
            (
                "`= { \"SELECT\": Keyword, \"FROM\": Keyword, }`".to_string(),
                10
            )
        );
        assert_eq!(value("FLAGS"), ("`: int = 3 \\| 4`".to_string(), 15));
        assert_eq!(value("Name"), ("`from .tokens`".to_string(), 5));
    }

    #[test]
    fn a_package_re_exports_its_public_imports() {
        let rows = names(true);
        let imports: Vec<&str> = rows
            .iter()
            .filter(|row| row.1 == "re-export")
            .map(|row| row.0.as_str())
            .collect();
        assert_eq!(imports, ["Any", "Keyword", "Name"]);
    }

    #[test]
    fn a_class_bound_again_at_the_top_is_listed_once_with_the_symbols() {
        let index = index_module(
            "class Attribute:\n    pass\n\n\nAttribute = _add_repr(Attribute)\nLIMIT = 3\n",
        );
        let names: Vec<&str> = listed(&index, false)
            .iter()
            .map(|n| n.name.as_str())
            .collect();
        assert_eq!(names, ["LIMIT"]);
    }

    #[test]
    fn names_after_a_syntax_error_are_not_listed() {
        let index = index_module("A = 1\nB = 2 +\nC = 3\n");
        let names: Vec<&str> = index.names.iter().map(|n| n.name.as_str()).collect();
        assert_eq!(names, ["A"]);
    }

    #[test]
    fn constants_are_upper_case_names() {
        assert!(is_constant("MAX_SIZE"));
        assert!(is_constant("_HTTP2"));
        assert!(!is_constant("logger"));
        assert!(!is_constant("__all__"));
        assert!(!is_constant("_"));
    }
}
