//! The names a module binds at its top level other than by `def` and `class`: constants
//! and other assignments, type aliases, `__all__`, and imports — what a module outline
//! lists beside its symbols. Part of the parser boundary (see `mod.rs`).
//!
//! Like the definitions, the walk looks through top-level `if`/`try`/`with` blocks (a
//! constant set per platform, an import that may fail) and never into functions or
//! classes. A name bound twice is listed once, where it is first bound.

use std::collections::HashSet;

use ruff_python_ast::{Expr, Stmt};
use ruff_text_size::Ranged;

use crate::python::index::NameKind;

/// Longest value kept, in chars (the outline cuts it shorter still).
const VALUE_CHARS: usize = 80;

/// A module-level name as the parser sees it, at a byte offset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::python) struct Binding {
    pub name: String,
    pub kind: NameKind,
    /// First byte of the statement that binds it.
    pub offset: usize,
    /// What it is bound to, on one line: ` = 3`, `: int = 3`, `from pkg.mod`; for
    /// `__all__` its names, comma-separated.
    pub value: String,
    /// Bound inside an `if`, `try` or `with` block at the top, not by the body itself.
    pub guarded: bool,
}

/// The names `body` (a module's) binds, in source order.
pub(super) fn bindings(source: &str, body: &[Stmt]) -> Vec<Binding> {
    let mut found = Vec::new();
    let mut seen = HashSet::new();
    for stmt in super::top_level_statements(body) {
        let offset = stmt.start().to_usize();
        // A statement of the body itself lies in its slice; one inside a block does not.
        let guarded = !body.as_ptr_range().contains(&std::ptr::from_ref(stmt));
        let mut bind = |name: String, kind: NameKind, value: String| {
            if seen.insert(name.clone()) {
                found.push(Binding {
                    name,
                    kind,
                    offset,
                    value,
                    guarded,
                });
            }
        };
        match stmt {
            Stmt::Assign(assign) => {
                for target in &assign.targets {
                    for name in target_names(target) {
                        let (kind, value) = assigned(&name, &assign.value, source, " = ");
                        bind(name, kind, value);
                    }
                }
            }
            Stmt::AnnAssign(assign) => {
                let Expr::Name(target) = assign.target.as_ref() else {
                    continue;
                };
                let name = target.id.to_string();
                let annotation = one_line(text(source, assign.annotation.range()));
                match &assign.value {
                    Some(value) => {
                        let (kind, value) =
                            assigned(&name, value, source, &format!(": {annotation} = "));
                        bind(name, kind, value);
                    }
                    None => bind(name, NameKind::Value, format!(": {annotation}")),
                }
            }
            Stmt::TypeAlias(alias) => {
                if let Expr::Name(target) = alias.name.as_ref() {
                    let value = one_line(text(source, alias.value.range()));
                    bind(
                        target.id.to_string(),
                        NameKind::TypeAlias,
                        format!(" = {value}"),
                    );
                }
            }
            Stmt::Import(import) => {
                for alias in &import.names {
                    let dotted = alias.name.to_string();
                    let (local, explicit) = match &alias.asname {
                        Some(local) => (local.to_string(), local.as_str() == alias.name.as_str()),
                        // `import a.b` binds `a`.
                        None => (
                            dotted.split('.').next().unwrap_or(&dotted).to_string(),
                            false,
                        ),
                    };
                    bind(
                        local,
                        NameKind::Import { explicit },
                        format!("import {dotted}"),
                    );
                }
            }
            Stmt::ImportFrom(import) => {
                let module = format!(
                    "{}{}",
                    ".".repeat(import.level as usize),
                    import
                        .module
                        .as_ref()
                        .map(|m| m.to_string())
                        .unwrap_or_default()
                );
                for alias in &import.names {
                    if alias.name.as_str() == "*" {
                        continue;
                    }
                    let (local, explicit) = match &alias.asname {
                        Some(local) => (local.to_string(), local.as_str() == alias.name.as_str()),
                        None => (alias.name.to_string(), false),
                    };
                    bind(
                        local,
                        NameKind::Import { explicit },
                        format!("from {module}"),
                    );
                }
            }
            _ => {}
        }
    }
    found
}

/// The plain names an assignment target binds: `a`, `a, b = …`, `(a, [b, *c]) = …`;
/// attributes and subscripts bind none.
fn target_names(target: &Expr) -> Vec<String> {
    let mut names = Vec::new();
    let mut pending = vec![target];
    while let Some(expr) = pending.pop() {
        match expr {
            Expr::Name(name) => names.push(name.id.to_string()),
            Expr::Tuple(tuple) => pending.extend(tuple.elts.iter().rev()),
            Expr::List(list) => pending.extend(list.elts.iter().rev()),
            Expr::Starred(starred) => pending.push(&starred.value),
            _ => {}
        }
    }
    names
}

/// The kind and shown value of `name` assigned `value`: `__all__` lists its names when
/// they are string literals.
fn assigned(name: &str, value: &Expr, source: &str, lead: &str) -> (NameKind, String) {
    if name == "__all__" {
        if let Some(names) = string_items(value) {
            return (NameKind::All, names.join(", "));
        }
        return (NameKind::All, one_line(text(source, value.range())));
    }
    let shown = one_line(text(source, value.range()));
    (NameKind::Value, format!("{lead}{shown}"))
}

/// The strings of a list or tuple of string literals, or `None` if it holds anything else.
fn string_items(value: &Expr) -> Option<Vec<String>> {
    let items = match value {
        Expr::List(list) => &list.elts,
        Expr::Tuple(tuple) => &tuple.elts,
        _ => return None,
    };
    items
        .iter()
        .map(|item| match item {
            Expr::StringLiteral(literal) => Some(literal.value.to_str().to_string()),
            _ => None,
        })
        .collect()
}

fn text(source: &str, range: ruff_text_size::TextRange) -> &str {
    source
        .get(range.start().to_usize()..range.end().to_usize())
        .unwrap_or("")
}

/// `text`'s whitespace collapsed onto one line, cut to [`VALUE_CHARS`] with `…`.
fn one_line(text: &str) -> String {
    let collapsed = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if collapsed.chars().count() <= VALUE_CHARS {
        return collapsed;
    }
    let mut cut: String = collapsed.chars().take(VALUE_CHARS - 1).collect();
    cut.push('…');
    cut
}
