//! The entry view model: what a resource says about one of its directories (title, state,
//! functions table, contents, advanced), before the renderer adds the breadcrumb, a recent
//! error and the pruning.

use crate::model::{Child, Kind};

/// What a resource says about one of its directories. The renderer adds the breadcrumb,
/// any recent error, and the pruning.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Entry {
    /// `tasks/open — 3 open tasks, highest priority P1`: what this is, with its state.
    pub title: String,
    /// Optional lines under the title (counts, status, how to read this place).
    pub about: Vec<String>,
    /// Shell command → what it does here → what you get back.
    pub functions: Vec<Function>,
    /// The contents worth knowing, as titled blocks.
    pub sections: Vec<Section>,
    /// Rarely needed things: `homespace render` forms, limits, settings.
    pub advanced: Vec<String>,
}

/// One row of the functions table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Function {
    pub command: String,
    pub does: String,
    pub returns: String,
}

impl Function {
    pub fn new(
        command: impl Into<String>,
        does: impl Into<String>,
        returns: impl Into<String>,
    ) -> Self {
        Function {
            command: command.into(),
            does: does.into(),
            returns: returns.into(),
        }
    }
}

/// A titled block of list items, or of table rows under `table_header`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Section {
    pub heading: String,
    /// `| name | kind | lines |` — when set, `items` are table rows.
    pub table_header: Option<String>,
    /// Markdown list items (without the leading `- `) or table rows.
    pub items: Vec<String>,
    /// Shown when `items` is empty: an empty store is a state, say it.
    pub empty: String,
    /// Where all of `items` is when pruning cuts some, if not the view's own directory
    /// (a dashboard block points to its resourcespace).
    pub more: Option<String>,
}

impl Section {
    /// The default contents block: each child with its one-line description.
    pub fn children(heading: &str, children: &[Child], empty: &str) -> Section {
        Section {
            heading: heading.to_string(),
            table_header: None,
            items: children
                .iter()
                .map(|c| {
                    let slash = if c.kind == Kind::Dir { "/" } else { "" };
                    if c.about.is_empty() {
                        format!("`{}{}`", c.name, slash)
                    } else {
                        format!("`{}{}` — {}", c.name, slash, c.about)
                    }
                })
                .collect(),
            empty: empty.to_string(),
            more: None,
        }
    }
}
