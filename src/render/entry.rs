//! The entry view (see [`crate::model::Entry`]) rendered to `_entry.md`: breadcrumb, one line of state,
//! the functions table, the contents worth knowing, and the `Advanced:` block — in that
//! order — fitted to the budget content first: its instructions made lean
//! ([`content_first`]), then its detailed sections lightened ([`crate::render::fit`]), then
//! pruned by [`crate::render::budget`].

use crate::model::{Entry, Failure, Links};

/// Render `entry` of the directory `dir` as `_entry.md`: a fresh failure in this directory
/// first, then the breadcrumb, title, functions table, sections and `Advanced:`, pruned to
/// `budget` tokens.
pub fn render(
    entry: &Entry,
    dir: &[&str],
    failure: Option<&Failure>,
    links: &Links,
    budget: usize,
) -> String {
    let more = format!("ls {}", links.dir(dir));
    let lean = content_first(entry, budget, |e| text(e, dir, failure));
    let entry = crate::render::fit::fit(&lean, budget, &more, |e| text(e, dir, failure));
    let out = text(&entry, dir, failure);
    let hints: Vec<(String, String)> = entry
        .sections
        .iter()
        .filter_map(|s| Some((format!("## {}", s.heading), s.more.clone()?)))
        .collect();
    crate::render::budget::prune_with(&out, budget, &more, &hints)
}

/// `entry` with its instructions made lean before its content gives up anything, when the
/// whole of it does not fit in `budget`: first the functions table keeps only what each
/// command does (a list, without the "you get" column) and the `Advanced:` block goes;
/// then, while the view is still too large, functions go from the last, down to the first
/// — the way to act here, the rest being the same in every folder of the kind and said by
/// the root and the prompt. What the folder holds (an outline's signatures, a run's failures) is lightened
/// only after that ([`crate::render::fit`]).
fn content_first<'e>(
    entry: &'e Entry,
    budget: usize,
    render: impl Fn(&Entry) -> String,
) -> std::borrow::Cow<'e, Entry> {
    let fits = |e: &Entry| crate::render::budget::fits(&render(e), budget);
    if fits(entry) {
        return std::borrow::Cow::Borrowed(entry);
    }
    let mut lean = entry.clone();
    lean.advanced.clear();
    for function in &mut lean.functions {
        function.returns.clear();
    }
    // The last functions go first (the way to act here comes first), one at a time, so a
    // view just over keeps what fits; past one, the content is lightened instead.
    while lean.functions.len() > 1 && !fits(&lean) {
        lean.functions.pop();
    }
    std::borrow::Cow::Owned(lean)
}

/// The whole text of `entry`, before pruning.
fn text(entry: &Entry, dir: &[&str], failure: Option<&Failure>) -> String {
    let mut out = String::new();
    if let Some(failure) = failure {
        out.push_str(&format!(
            "> Last error here ({}, {} {}):\n",
            crate::model::time::rfc3339_of(failure.at),
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
    if entry.functions.iter().any(|f| !f.returns.is_empty()) {
        out.push_str("\n## Do here\n| command | does | you get |\n|---|---|---|\n");
        for f in &entry.functions {
            out.push_str(&format!(
                "| `{}` | {} | {} |\n",
                f.command, f.does, f.returns
            ));
        }
    } else if !entry.functions.is_empty() {
        // Made lean (see `content_first`): the commands and what they do, one line each.
        out.push_str("\n## Do here\n");
        for f in &entry.functions {
            out.push_str(&format!("- `{}` — {}\n", f.command, f.does));
        }
    }
    for section in &entry.sections {
        out.push_str(&format!("\n## {}\n", section.heading));
        if section.items.is_empty() && section.notes.is_empty() {
            out.push_str(&section.empty);
            out.push('\n');
            continue;
        }
        if section.items.is_empty() {
            // Every item is named on a note line: a table of no rows would say nothing.
        } else if let Some(header) = &section.table_header {
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
        for note in &section.notes {
            out.push_str(note);
            out.push('\n');
        }
    }
    if !entry.advanced.is_empty() {
        out.push_str("\n## Advanced\n");
        for line in &entry.advanced {
            out.push_str(&format!("- {line}\n"));
        }
    }
    out
}

/// `home > source > ledger > accounts`.
pub fn breadcrumb(dir: &[&str]) -> String {
    let mut crumbs = vec!["home"];
    crumbs.extend_from_slice(dir);
    crumbs.join(" > ")
}
