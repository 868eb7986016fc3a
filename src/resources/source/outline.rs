//! The symbol table of a module's or class's outline: one row per symbol — its file, kind,
//! signature, first doc line, and its place in the module as a line range with its size —
//! with the lighter forms the budget may take a row to (without its doc, then by name
//! only), and which symbols matter most.
//!
//! Rows are in source order, except that an overloaded function's `@overload` stubs
//! follow its implementation, whose row names them. Symbols rank public (and `__init__`)
//! before other dunders before private, implementations before stubs, then by how often the module refers to
//! their name. The count is of the module's own text, not the whole project's: a view is
//! forgotten by the kernel only when its own module changes (`Resource::affected`), so a
//! rank drawn from other files could serve bytes that no longer match what the daemon
//! would render now.

use std::collections::HashMap;

use crate::model::{Detail, Lighter, Section};
use crate::python::{Symbol, symbol_text};
use crate::resources::source::modules::Module;

/// The `Symbols` section of the outline of `module`'s members under `parent` (the module
/// itself when `None`).
pub(super) fn symbol_table(module: &Module, parent: Option<usize>) -> Section {
    let symbols = &module.index.symbols;
    let text = module.text.as_deref().unwrap_or("");
    let order = display_order(symbols, parent);
    let references = references(text);
    let mut items = Vec::with_capacity(order.len());
    let mut lighter = Vec::with_capacity(order.len());
    for &index in &order {
        let row = Row::of(symbols, index, text);
        items.push(row.line(true));
        let doc = if row.doc.is_empty() {
            ""
        } else {
            "without doc"
        };
        // No row gives up its signature: a row of a name, a kind and a line range costs
        // twice what the name costs on the by-name line and tells little more, so the
        // signatures of the most useful symbols stay while the others are named.
        lighter.push(Lighter {
            forms: vec![(doc.to_string(), row.line(false))],
            name: format!("`{}.py`", symbols[index].file_stem),
        });
    }
    let mut rank: Vec<usize> = (0..order.len()).collect();
    rank.sort_by_key(|&at| {
        let symbol = &symbols[order[at]];
        let name = symbol.qualname.last().map_or("", String::as_str);
        (
            symbol.overload,
            privacy(name),
            std::cmp::Reverse(references.get(name).copied().unwrap_or(0)),
            at,
        )
    });
    Section {
        heading: "Symbols".into(),
        table_header: Some("| file | kind | signature | doc | lines, tokens |".into()),
        items,
        empty: "No classes or functions.".into(),
        detail: Some(Detail {
            items: lighter,
            rank,
            noun: "symbols".into(),
        }),
        ..Section::default()
    }
}

/// The members of `parent` in source order, each implementation's `@overload` stubs moved
/// right after it.
fn display_order(symbols: &[Symbol], parent: Option<usize>) -> Vec<usize> {
    let members: Vec<usize> = (0..symbols.len())
        .filter(|&i| symbols[i].parent == parent)
        .collect();
    let implementation_of = |stub: usize| {
        members.iter().copied().find(|&m| {
            !symbols[m].overload
                && symbols[m].qualname == symbols[stub].qualname
                && !symbols[m].file_stem.contains('@')
        })
    };
    let mut order = Vec::with_capacity(members.len());
    for &member in &members {
        if symbols[member].overload && implementation_of(member).is_some() {
            continue;
        }
        order.push(member);
        if !symbols[member].overload {
            order.extend(
                members
                    .iter()
                    .copied()
                    .filter(|&m| symbols[m].overload && implementation_of(m) == Some(member)),
            );
        }
    }
    order
}

/// 0 public (and `__init__`, whose signature is how the class is made), 1 special
/// (`__repr__`), 2 private (`_helper`).
pub(super) fn privacy(name: &str) -> u8 {
    match name {
        "__init__" => 0,
        _ if name.starts_with("__") && name.ends_with("__") => 1,
        _ if name.starts_with('_') => 2,
        _ => 0,
    }
}

/// How many times each identifier occurs in `text` (definitions included, strings and
/// comments too: a cheap count, not a resolution).
fn references(text: &str) -> HashMap<&str, usize> {
    let mut counts = HashMap::new();
    let mut start = None;
    for (at, c) in text
        .char_indices()
        .chain(std::iter::once((text.len(), ' ')))
    {
        let part = c == '_' || c.is_alphanumeric();
        match (start, part) {
            (None, true) => start = Some(at),
            (Some(from), false) => {
                let word = &text[from..at];
                if !word.starts_with(|c: char| c.is_ascii_digit()) {
                    *counts.entry(word).or_insert(0) += 1;
                }
                start = None;
            }
            _ => {}
        }
    }
    counts
}

/// What a row shows of one symbol.
struct Row {
    file: String,
    kind: String,
    signature: String,
    doc: String,
    place: String,
}

impl Row {
    fn of(symbols: &[Symbol], index: usize, text: &str) -> Row {
        let symbol = &symbols[index];
        let has_members = crate::resources::source::places::paths::has_folder(symbols, index);
        let file = match has_members {
            true => format!("`{0}.py` `{0}/`", symbol.file_stem),
            false => format!("`{}.py`", symbol.file_stem),
        };
        let stubs: Vec<String> = symbols
            .iter()
            .filter(|s| {
                s.overload
                    && !symbol.overload
                    && s.parent == symbol.parent
                    && s.qualname == symbol.qualname
                    && !symbol.file_stem.contains('@')
            })
            .map(|s| format!("`{}.py`", s.file_stem))
            .collect();
        let kind = match (symbol.overload, stubs.is_empty()) {
            (true, _) => "overload".to_string(),
            (false, true) => symbol.kind.name(symbol.parent.is_some()).to_string(),
            (false, false) => format!(
                "{}; overloads {}",
                symbol.kind.name(symbol.parent.is_some()),
                stubs.join(" ")
            ),
        };
        let signature = match symbol.signature.is_empty() {
            true => String::new(),
            false => format!("`{}`", shorten(&symbol.signature, 48).replace('|', "\\|")),
        };
        let doc = shorten(symbol.doc.as_deref().unwrap_or_default(), 56).replace('|', "\\|");
        let last = symbol.first_line + symbol.lines.saturating_sub(1);
        let tokens = crate::render::budget::tokens(&symbol_text(text, symbol));
        Row {
            file,
            kind,
            signature,
            doc,
            place: format!("{}-{last} ~{tokens}t", symbol.first_line),
        }
    }

    fn line(&self, doc: bool) -> String {
        format!(
            "| {} | {} | {} | {} | {} |",
            self.file,
            self.kind,
            self.signature,
            if doc { self.doc.as_str() } else { "" },
            self.place
        )
    }
}

/// `text` cut to `max` chars at a word boundary, with `…` when cut.
pub(super) fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let cut: String = text.chars().take(max).collect();
    let at = cut
        .rfind([' ', ','])
        .filter(|&i| i > max / 2)
        .unwrap_or(cut.len());
    format!("{}…", cut[..at].trim_end_matches([',', ' ']))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_count_whole_identifiers_only() {
        let counts =
            references("def debit(self):\n    self.debit_all(debit)  # debit\nx2 = 2debit\n");
        assert_eq!(counts.get("debit"), Some(&3));
        assert_eq!(counts.get("debit_all"), Some(&1));
        assert_eq!(counts.get("x2"), Some(&1));
    }

    #[test]
    fn public_names_rank_before_special_and_private_ones() {
        let mut names = ["_helper", "__repr__", "run", "__version", "__init__"];
        names.sort_by_key(|name| privacy(name));
        assert_eq!(
            names,
            ["run", "__init__", "__repr__", "_helper", "__version"]
        );
    }
}
