//! The entry view model and its rendering to `_entry.md`: breadcrumb, one line of state,
//! the functions table, the contents worth knowing, and the `Advanced:` block — in that
//! order — pruned to the budget by [`crate::render::budget`].

use crate::tree::resource::Child;

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
                    let slash = if c.kind == crate::tree::resource::Kind::Dir {
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
        }
    }
}

/// Render `entry` of the directory `dir` as `_entry.md`: a fresh failure in this directory
/// first, then the breadcrumb, title, functions table, sections and `Advanced:`, pruned to
/// `budget` tokens.
pub fn render(
    entry: &Entry,
    dir: &[&str],
    failure: Option<&crate::tree::errlog::Failure>,
    links: &crate::tree::links::Links,
    budget: usize,
) -> String {
    let mut out = String::new();
    if let Some(failure) = failure {
        out.push_str(&format!(
            "> Last error here ({}, {} {}):\n",
            crate::render::time::rfc3339_of(failure.at),
            failure.op,
            failure.path
        ));
        for line in failure.message.lines() {
            out.push_str(&format!("> {line}\n"));
        }
        out.push('\n');
    }
    out.push_str(&breadcrumb(dir));
    out.push('\n');
    out.push_str(&format!("# {}\n", entry.title));
    for line in &entry.about {
        out.push_str(line);
        out.push('\n');
    }
    if !entry.functions.is_empty() {
        out.push_str("\n## Do here\n| command | does | you get |\n|---|---|---|\n");
        for f in &entry.functions {
            out.push_str(&format!(
                "| `{}` | {} | {} |\n",
                f.command, f.does, f.returns
            ));
        }
    }
    for section in &entry.sections {
        out.push_str(&format!("\n## {}\n", section.heading));
        if section.items.is_empty() {
            out.push_str(&section.empty);
            out.push('\n');
            continue;
        }
        if let Some(header) = &section.table_header {
            out.push_str(header);
            out.push('\n');
            let columns = header.matches('|').count().saturating_sub(1).max(1);
            out.push_str(&format!("{}|\n", "|---".repeat(columns)));
            for row in &section.items {
                out.push_str(row);
                out.push('\n');
            }
        } else {
            for item in &section.items {
                out.push_str(&format!("- {item}\n"));
            }
        }
    }
    if !entry.advanced.is_empty() {
        out.push_str("\n## Advanced\n");
        for line in &entry.advanced {
            out.push_str(&format!("- {line}\n"));
        }
    }
    let more = format!("ls {}", links.dir(dir));
    crate::render::budget::prune(&out, budget, &more)
}

/// `home > source > ledger > accounts`.
pub fn breadcrumb(dir: &[&str]) -> String {
    let mut crumbs = vec!["home"];
    crumbs.extend_from_slice(dir);
    crumbs.join(" > ")
}
