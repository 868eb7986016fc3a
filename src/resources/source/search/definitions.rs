//! `search/def:<name>`: where the classes and functions called `name` are defined, each
//! with its symbol file and its code — the answer to "find and read" in one read.
//!
//! `name` is a symbol's name (`validate_name`), or the last parts of its dotted path
//! (`Account.validate_name`, `ledger.accounts.Account.validate_name`): a definition
//! matches when its module's dotted name and its qualified name end in those parts. The
//! code's definitions come before the tests', then in path order. A second definition of
//! a name in one scope (a property's setter, `@overload` stubs) is not listed: the first
//! one's file is where the others are named (`name@2.py`).

use std::path::PathBuf;
use std::sync::Arc;

use super::{Searcher, python_files_code_first, symbol_file, tree_location};
use crate::error::Result;
use crate::model::Definition;
use crate::python::{Dotted, ModuleIndex};
use crate::resources::source::resolve::Resolver;

/// A symbol a name matched: its module file, the module's dotted name as search shows it,
/// the module's index and the symbol's place in it.
pub(super) struct Matched {
    pub file: PathBuf,
    pub dotted: String,
    pub index: Arc<ModuleIndex>,
    pub at: usize,
}

/// The definition a name that only a re-export binds leads to (`attr.converters.pipe`,
/// which `attr/converters.py` imports from `._make`), followed as imports bind it.
pub(super) fn reexported(searcher: &Searcher, name: &str) -> Option<Matched> {
    let parts: Vec<String> = name
        .trim()
        .split('.')
        .filter(|p| !p.is_empty())
        .map(str::to_string)
        .collect();
    let resolver = Resolver::new(&searcher.project, &searcher.modules);
    let found = resolver.locate_definition(Dotted::new(&parts))?;
    let index = searcher.modules.index(None, &found.module).ok()??;
    let at = index
        .symbols
        .iter()
        .position(|s| s.qualname == found.symbol.qualname && !s.overload)?;
    let (_, dotted) = tree_location(searcher, &found.module);
    Some(Matched {
        file: found.module,
        dotted,
        index,
        at,
    })
}

/// The definitions of `name` in `searcher`'s project.
pub(super) fn definitions(searcher: &Searcher, name: &str) -> Result<Vec<Definition>> {
    let mut found = Vec::new();
    let mut matched = matching(searcher, name);
    // The public name of a definition kept elsewhere: its path says where.
    if matched.is_empty() {
        matched.extend(reexported(searcher, name));
    }
    for matched in matched {
        let symbol = &matched.index.symbols[matched.at];
        let (tree_dir, _) = tree_location(searcher, &matched.file);
        let path = symbol_file(
            searcher,
            &matched.file,
            &tree_dir,
            &matched.index.symbols,
            matched.at,
        );
        let under_source = path.as_str().trim_start_matches("source/").to_string();
        let Some(code) = searcher.places.symbol_text(&under_source) else {
            continue;
        };
        let last_line = symbol.first_line + symbol.lines.saturating_sub(1);
        found.push(Definition {
            path: searcher.links.file(&path),
            place: format!("{}:{}-{last_line}", matched.dotted, symbol.first_line),
            code,
        });
    }
    Ok(found)
}

/// The symbols `name` names (see the module's docs), code before tests, in path order.
pub(super) fn matching(searcher: &Searcher, name: &str) -> Vec<Matched> {
    let wanted: Vec<&str> = name.trim().split('.').filter(|p| !p.is_empty()).collect();
    let Some(&last) = wanted.last() else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for file in python_files_code_first(searcher) {
        // Most modules define no symbol of that name: skip them before placing any.
        let Ok(Some(index)) = searcher.modules.index(None, &file) else {
            continue;
        };
        if !index.symbols.iter().any(|s| s.file_stem == last) {
            continue;
        }
        let (_, dotted) = tree_location(searcher, &file);
        for (at, symbol) in index.symbols.iter().enumerate() {
            if symbol.file_stem != last || symbol.overload {
                continue;
            }
            let full: Vec<&str> = dotted
                .split('.')
                .chain(symbol.qualname.iter().map(String::as_str))
                .collect();
            if full.ends_with(&wanted) {
                found.push(Matched {
                    file: file.clone(),
                    dotted: dotted.clone(),
                    index: Arc::clone(&index),
                    at,
                });
            }
        }
    }
    found
}
