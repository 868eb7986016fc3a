//! pyproject.toml as one document per table — what `source/config/` shows: `project.toml`,
//! `build-system.toml`, `tool.ruff.lint.toml`, each the exact text of that table, from its
//! header to its last value; the tables of an array (`[[tool.mypy.overrides]]`) are
//! `tool.mypy.overrides@1.toml`, `@2`, ... in file order.
//!
//! Blank lines and comment lines between one table's last value and the next header belong
//! to neither (a comment there is usually about the next table): a table replaced keeps
//! them, a table removed takes the blank lines that follow it. Every change is a splice of
//! the text; nothing else is printed again.

use std::ops::Range;

use toml_edit::{Document, Item, Key, Table};

/// One table of the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableAt {
    /// The document's name without `.toml`: `tool.ruff`, `tool.mypy.overrides@2`.
    pub name: String,
    /// From the start of its header line to the end of the line of its last value.
    pub span: Range<usize>,
}

/// A refused change: what is wrong, located in the written text when it can be.
pub type Refusal = String;

/// The tables of `text`, in file order.
pub fn tables(text: &str) -> Result<Vec<TableAt>, String> {
    let doc = Document::parse(text).map_err(|e| e.to_string())?;
    let mut found: Vec<(String, Range<usize>, usize)> = Vec::new();
    collect(doc.as_table(), &mut Vec::new(), &mut found);
    found.sort_by_key(|(_, header, _)| header.start);
    let starts: Vec<usize> = found
        .iter()
        .map(|(_, h, _)| line_start(text, h.start))
        .collect();
    Ok(found
        .iter()
        .enumerate()
        .map(|(i, (name, header, last_value))| {
            let start = starts[i];
            let next = starts.get(i + 1).copied().unwrap_or(text.len());
            let body_end = line_end(text, (*last_value).max(header.end));
            TableAt {
                name: name.clone(),
                span: start..trim_gap(text, body_end, next),
            }
        })
        .collect())
}

/// Walks `table`'s sub-tables; each one written with a header becomes `(name, header span,
/// end of its last value)`.
fn collect(table: &Table, path: &mut Vec<String>, found: &mut Vec<(String, Range<usize>, usize)>) {
    for (key, item) in table.iter() {
        path.push(key_text(table.key(key), key));
        match item {
            Item::Table(sub) => {
                if let Some(header) = sub
                    .span()
                    .filter(|s| !s.is_empty() && !sub.is_dotted() && !sub.is_implicit())
                {
                    found.push((path.join("."), header, last_value_end(sub)));
                }
                collect(sub, path, found);
            }
            Item::ArrayOfTables(array) => {
                for (n, sub) in array.iter().enumerate() {
                    if let Some(header) = sub.span() {
                        found.push((
                            format!("{}@{}", path.join("."), n + 1),
                            header,
                            last_value_end(sub),
                        ));
                    }
                    collect(sub, path, found);
                }
            }
            _ => {}
        }
        path.pop();
    }
}

/// The end of the last value of `table` itself (dotted keys included, sub-tables with
/// headers not).
fn last_value_end(table: &Table) -> usize {
    table
        .iter()
        .filter_map(|(_, item)| match item {
            Item::Value(value) => value.span().map(|s| s.end),
            Item::Table(sub) if sub.is_dotted() => Some(last_value_end(sub)),
            _ => None,
        })
        .max()
        .unwrap_or(0)
}

/// A key as a file name shows it: bare when it can be, else quoted.
fn key_text(key: Option<&Key>, name: &str) -> String {
    let bare = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    match (bare, key) {
        (true, _) => name.to_string(),
        (false, Some(key)) => key.display_repr().to_string(),
        (false, None) => format!("{name:?}"),
    }
}

/// Whether `name` can be a file name: no `/`, not `.` or `..`.
pub fn nameable(name: &str) -> bool {
    !name.contains('/') && !name.contains('\0') && name != "." && name != ".."
}

/// `text` with table `name` replaced by `content`, which must be that table (its header and
/// values) and nothing else; or, when there is no such table, with it added at the end.
pub fn write(text: &str, name: &str, content: &str) -> Result<String, Refusal> {
    let own = check_content(name, content)?;
    let all = tables(text)?;
    let new = match all.iter().find(|t| t.name == name) {
        Some(table) => format!(
            "{}{own}{}",
            &text[..table.span.start],
            &text[table.span.end..]
        ),
        None if name.contains('@') => {
            let array = array_name(name);
            let next = 1 + all
                .iter()
                .filter(|t| t.name.contains('@') && array_name(&t.name) == array)
                .count();
            if name != format!("{}@{next}", array_name(name)) {
                return Err(format!(
                    "{name}.toml does not exist: a new table of the array {} is added as \
                     {}@{next}.toml",
                    array_name(name),
                    array_name(name)
                ));
            }
            appended(text, &own)
        }
        None => appended(text, &own),
    };
    Document::parse(new.as_str()).map_err(|e| {
        format!(
            "with it pyproject.toml would not be valid TOML (a table or key defined twice?): {}",
            e.to_string().lines().next().unwrap_or_default()
        )
    })?;
    Ok(new)
}

/// `text` with table text `own` added at its end, after a blank line.
fn appended(text: &str, own: &str) -> String {
    let gap = match text {
        "" => "",
        t if t.ends_with('\n') => "\n",
        _ => "\n\n",
    };
    format!("{text}{gap}{own}")
}

fn array_name(name: &str) -> &str {
    name.split_once('@').map_or(name, |(array, _)| array)
}

/// `text` without table `name`, and the blank lines after it.
pub fn remove(text: &str, name: &str) -> Result<String, Refusal> {
    let Some(table) = tables(text)?.into_iter().find(|t| t.name == name) else {
        return Err(format!("pyproject.toml has no table {name}"));
    };
    let mut end = table.span.end;
    while text[end..].starts_with('\n') {
        end += 1;
    }
    let mut start = table.span.start;
    if end == text.len() {
        // The last table: the blank lines before it go instead.
        while start > 0 && text[..start].ends_with("\n\n") {
            start -= 1;
        }
    }
    Ok(format!("{}{}", &text[..start], &text[end..]))
}

/// Checks that `content` is valid TOML holding exactly table `name`; returns it ending in
/// one newline.
fn check_content(name: &str, content: &str) -> Result<String, Refusal> {
    let doc = Document::parse(content).map_err(|e| located(&e, content))?;
    let found = tables(content)?;
    let header = match name.split_once('@') {
        Some((array, _)) => format!("[[{array}]]"),
        None => format!("[{name}]"),
    };
    let wanted = match name.split_once('@') {
        Some((array, _)) => format!("{array}@1"),
        None => name.to_string(),
    };
    match found.as_slice() {
        [only] if only.name == wanted => {}
        [] => {
            return Err(format!("it has no table header: start it with {header}"));
        }
        [only] => {
            return Err(format!(
                "its header is [{}], but this file is {name}.toml: write it to {}.toml, or \
                 start it with {header}",
                only.name.replace("@1", ""),
                only.name.replace("@1", "")
            ));
        }
        several => {
            let names: Vec<&str> = several.iter().map(|t| t.name.as_str()).collect();
            return Err(format!(
                "it holds {} tables ({}): a file holds one, its own; write the others to \
                 their own files",
                several.len(),
                names.join(", ")
            ));
        }
    }
    if doc.as_table().iter().any(|(_, item)| item.is_value()) {
        return Err(format!(
            "values before {header} belong to no table here: start the file with {header}"
        ));
    }
    let mut own = content
        .trim_end_matches(['\n', ' ', '\t', '\r'])
        .to_string();
    own.push('\n');
    Ok(own)
}

/// A parse error as `line L, column C: what`, located in the text that was written.
pub(crate) fn located(e: &toml_edit::TomlError, content: &str) -> String {
    let what = e.message().trim();
    let Some(at) = e.span().map(|s| s.start.min(content.len())) else {
        return what.to_string();
    };
    let before = content.get(..at).unwrap_or(content);
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    format!("line {line}, column {column}: {what}")
}

fn line_start(text: &str, at: usize) -> usize {
    text[..at].rfind('\n').map_or(0, |n| n + 1)
}

fn line_end(text: &str, at: usize) -> usize {
    text[at..].find('\n').map_or(text.len(), |n| at + n + 1)
}

/// Moves `end` back from `next` over blank and comment lines, not before `body_end`.
fn trim_gap(text: &str, body_end: usize, next: usize) -> usize {
    let mut end = next;
    while end > body_end {
        let start = text[..end - 1]
            .rfind('\n')
            .map_or(0, |n| n + 1)
            .max(body_end);
        let line = text[start..end].trim();
        if line.is_empty() || line.starts_with('#') {
            end = start;
        } else {
            break;
        }
    }
    end.max(body_end)
}

#[cfg(test)]
mod tests;
