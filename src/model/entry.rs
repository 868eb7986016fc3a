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
    /// How the items give up detail before any is cut, when the view is over budget;
    /// `None`: items are cut whole, from the end.
    pub detail: Option<Detail>,
    /// Lines shown after the items (set by the fitting: the items shown by name only, and
    /// what was left out).
    pub notes: Vec<String>,
}

/// Lighter forms of a section's items, and which items matter most. A view over budget
/// takes detail from the least useful items first — every item gives up its first lighter
/// form before any gives up the next — then names the least useful on one line, and drops
/// names last (see `crate::render::fit`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Detail {
    /// One per item, in the order of the items.
    pub items: Vec<Lighter>,
    /// Item indices, most useful first; items not listed count as least useful.
    pub rank: Vec<usize>,
    /// What the items are, for the marker: `symbols`, `entries`.
    pub noun: String,
}

/// One item's lighter forms.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Lighter {
    /// Each lighter than the one before, with what it leaves out for the marker:
    /// `("without doc", row)`, then `("without signature or doc", row)`. An item with
    /// nothing to leave out at some step repeats its row there under an empty label, so
    /// that every item's N-th form is the same step.
    pub forms: Vec<(String, String)>,
    /// How the item is named on the line of items shown by name only: `` `debit.py` ``.
    pub name: String,
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
                    // A link leads to a directory: named as one.
                    let slash = if matches!(c.kind, Kind::Dir | Kind::Link) {
                        "/"
                    } else {
                        ""
                    };
                    if c.about.is_empty() {
                        format!("`{}{}`", c.name, slash)
                    } else {
                        format!("`{}{}` — {}", c.name, slash, c.about)
                    }
                })
                .collect(),
            empty: empty.to_string(),
            ..Section::default()
        }
    }
}
