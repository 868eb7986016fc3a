//! The view of a module's or a class's members: the symbol table (name, kind, signature,
//! first docstring line, size) with the verbs that read and replace one symbol.

use super::contents::module_about;
use crate::model::count::plural;
use crate::model::{Entry, Function};
use crate::python::DottedName;
use crate::resources::source::modules::Module;
use crate::resources::source::{defined_names, outline};

/// The outline of `module`'s members under `parent` (the module itself when `None`);
/// `file` is the module's path in the project, which line ranges refer to; `search` the
/// search folder (for the references of a member).
pub(super) fn members(
    module: &Module,
    dotted: &DottedName,
    parent: Option<usize>,
    here: &str,
    file: &str,
    search: &str,
) -> Entry {
    let parent_dir = here
        .trim_end_matches('/')
        .rsplit_once('/')
        .map(|(p, _)| p)
        .unwrap_or("");
    let symbols = &module.index.symbols;
    let qual = |index: usize| {
        symbols
            .get(index)
            .map(|s| s.qualname.join("."))
            .unwrap_or_default()
    };
    let name = match parent {
        Some(index) => format!("{dotted}.{}", qual(index)),
        None => dotted.to_string(),
    };
    let mut about = Vec::new();
    if let Some(why) = &module.unreadable {
        about.push(format!("**Cannot show symbols:** {why}"));
    }
    if !module.index.problems.is_empty() {
        about.push(format!(
            "**Syntax errors** ({}); symbols after the first one are not shown:",
            module.index.problems.len()
        ));
        for problem in module.index.problems.iter().take(5) {
            about.push(format!(
                "- line {}, column {}: {}",
                problem.line, problem.column, problem.message
            ));
        }
    }
    let title = match parent {
        Some(index) => {
            let symbol = &symbols[index];
            let members = symbols.iter().filter(|s| s.parent == Some(index)).count();
            format!(
                "{name} — class{} at {file}:{}-{} ({members} member{}){}",
                symbol.signature,
                symbol.first_line,
                symbol.first_line + symbol.lines.saturating_sub(1),
                plural(members),
                symbol
                    .doc
                    .as_ref()
                    .map(|d| format!(": {d}"))
                    .unwrap_or_default()
            )
        }
        // Without a docstring the counts follow the name: `attr._cmp (3 functions, ...)`.
        None => match module_about(module) {
            about if about.starts_with('(') => format!("{name} {about}"),
            about => format!("{name} — {about}"),
        },
    };
    if parent.is_none() {
        about.insert(0, format!("Line ranges are of `{file}`."));
    }
    let verbatim: Vec<String> = symbols
        .iter()
        .filter(|s| s.parent == parent && !s.exact_dedent)
        .map(|s| format!("`{}.py`", s.file_stem))
        .collect();
    if !verbatim.is_empty() {
        about.push(format!(
            "Not dedented, shown as they stand in the module (a line inside starts left of the \
             `def`, so dedenting could not be undone): {}. Write them back indented the same way.",
            verbatim.join(", ")
        ));
    }
    // The example is the first member that ranks highest, so not a private helper.
    let example = symbols
        .iter()
        .filter(|s| s.parent == parent)
        .min_by_key(|s| outline::privacy(s.qualname.last().map_or("", String::as_str)))
        .map(|s| s.file_stem.clone())
        .unwrap_or_else(|| "<name>".into());
    let source_file = match parent {
        Some(index) => format!("{}.py", symbols[index].file_stem),
        None => format!("{}.py", dotted.last().unwrap_or_default()),
    };
    let add = Function::new(
        format!("cp new.py {here}<name>.py"),
        "add symbols",
        if parent.is_some() {
            "appended to the class; a file may define several, <name> one of them"
        } else {
            "appended to the module; a file may define several, <name> one of them"
        },
    );
    let read_all = Function::new(
        format!("cat {parent_dir}/{source_file}"),
        "read all of it",
        "the exact source",
    );
    // Without members there is no symbol to read, replace or ask about: the module's text
    // is the way in, and a new file is the way to add one.
    let functions = match symbols.iter().any(|s| s.parent == parent) {
        false => vec![read_all, add],
        // Changing a symbol is one row, as the root's "edit" says it: the same in every
        // module and class folder, where a row each for cp, mv and rm cost every view read
        // a fifth of its budget.
        true => vec![
            Function::new(
                format!("cat {here}{example}.py"),
                "read one symbol; write it (cp, sed -i), mv, rm",
                "its exact source, dedented; a write is checked (refused with line:column); mv leaves callers as they are",
            ),
            add,
            read_all,
            Function::new(
                format!("cat \"{search}refs:{name}.{example}\""),
                "who calls or names it",
                "each line and the definition it is in, through imports and re-exports",
            ),
        ],
    };
    Entry {
        title,
        about,
        functions,
        sections: std::iter::once(outline::symbol_table(module, parent))
            .chain(
                parent
                    .is_none()
                    .then(|| defined_names::names_table(&module.index, file.ends_with("__init__.py")))
                    .flatten(),
            )
            .collect(),
        advanced: vec![
            "`name@2.py`, `name@3.py`: a name's other definitions (a setter, `@overload` stubs; `name.py` is the implementation). A symbol file begins at the comments above its decorators, dedented to column 0.".into(),
        ],
    }
}
