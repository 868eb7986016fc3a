//! The dependency lists of a pyproject.toml — `[project].dependencies`, each extra of
//! `[project.optional-dependencies]` and each group of PEP 735 `[dependency-groups]` —
//! read with toml_edit's spans and changed by splicing the text (`splice.rs`), so that a
//! change touches only its own bytes: formatting, comments and every other table stay
//! exactly as they were.
//!
//! Every edit is a pure function from the file's text to the new text; the caller writes
//! it (atomically, locked, recorded in history: `resources/source/deps.rs`).

use std::fmt;

use toml_edit::{Document, Item, Table, Value};

use super::requirement::{self, Requirement};
use super::splice::{self, ArrayAt};

/// Why nothing can be added to a pyproject.toml without `[project]` (the editor says where
/// the dependencies are edited instead: `resources/source/deps/metadata.rs`).
pub const NO_PROJECT: &str = "pyproject.toml has no [project] table, where dependencies are \
    listed (PEP 621)";

/// Which list of dependencies.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ListId {
    /// `[project].dependencies`.
    Main,
    /// An extra of `[project.optional-dependencies]`.
    Extra(String),
    /// A group of `[dependency-groups]` (PEP 735).
    Group(String),
}

impl fmt::Display for ListId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ListId::Main => f.write_str("[project].dependencies"),
            ListId::Extra(extra) => write!(f, "[project.optional-dependencies].{extra}"),
            ListId::Group(group) => write!(f, "[dependency-groups].{group}"),
        }
    }
}

/// One element of a list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Element {
    Requirement(Requirement),
    /// A string that is no valid requirement, with why.
    Invalid {
        text: String,
        why: String,
    },
    /// Anything else, as written: `{include-group = "test"}` in a group.
    Other(String),
}

/// One list as found in the file.
#[derive(Debug, Clone)]
pub struct List {
    pub id: ListId,
    pub elements: Vec<Element>,
    array: ArrayAt,
}

impl List {
    /// The requirements for package `name` (normalised), in order.
    pub fn requirements(&self, name: &str) -> Vec<&Requirement> {
        self.elements
            .iter()
            .filter_map(|e| match e {
                Element::Requirement(r) if r.name == name => Some(r),
                _ => None,
            })
            .collect()
    }

    /// The packages required, each once, in order of first appearance.
    pub fn names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        for element in &self.elements {
            if let Element::Requirement(r) = element
                && !names.contains(&r.name.as_str())
            {
                names.push(&r.name);
            }
        }
        names
    }

    fn indices_of(&self, name: &str) -> Vec<usize> {
        self.elements
            .iter()
            .enumerate()
            .filter(|(_, e)| matches!(e, Element::Requirement(r) if r.name == name))
            .map(|(i, _)| i)
            .collect()
    }
}

/// What a pyproject.toml says about dependencies.
#[derive(Debug, Clone, Default)]
pub struct Manifest {
    /// It has a `[project]` table.
    pub project: bool,
    /// `[project].dynamic` names: `dependencies` there means another tool lists them.
    pub dynamic: Vec<String>,
    /// The lists found, main first, then extras, then groups, each in file order.
    pub lists: Vec<List>,
}

impl Manifest {
    /// Reads the dependency lists of `text`; the error is the TOML parser's.
    pub fn read(text: &str) -> Result<Manifest, String> {
        let doc = Document::parse(text).map_err(|e| e.to_string())?;
        let root = doc.as_table();
        let mut manifest = Manifest::default();
        if let Some(project) = root.get("project").and_then(Item::as_table_like) {
            manifest.project = true;
            manifest.dynamic = project
                .get("dynamic")
                .and_then(Item::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|v| v.as_str().map(String::from))
                        .collect()
                })
                .unwrap_or_default();
            if let Some(array) = project.get("dependencies").and_then(Item::as_array) {
                manifest.lists.push(list(ListId::Main, array, text));
            }
            if let Some(extras) = project
                .get("optional-dependencies")
                .and_then(Item::as_table_like)
            {
                for (name, item) in extras.iter() {
                    if let Some(array) = item.as_array() {
                        manifest
                            .lists
                            .push(list(ListId::Extra(name.to_string()), array, text));
                    }
                }
            }
        }
        if let Some(groups) = root.get("dependency-groups").and_then(Item::as_table_like) {
            for (name, item) in groups.iter() {
                if let Some(array) = item.as_array() {
                    manifest
                        .lists
                        .push(list(ListId::Group(name.to_string()), array, text));
                }
            }
        }
        Ok(manifest)
    }

    pub fn list(&self, id: &ListId) -> Option<&List> {
        self.lists.iter().find(|l| &l.id == id)
    }

    /// Whether `[project].dynamic` says another tool provides the list `id`.
    pub fn is_dynamic(&self, id: &ListId) -> bool {
        let field = match id {
            ListId::Main => "dependencies",
            ListId::Extra(_) => "optional-dependencies",
            ListId::Group(_) => return false,
        };
        self.dynamic.iter().any(|d| d == field)
    }
}

fn list(id: ListId, array: &toml_edit::Array, text: &str) -> List {
    let elements = array
        .iter()
        .map(|value| match value.as_str() {
            Some(text) => match requirement::parse(text) {
                Ok(r) => Element::Requirement(r),
                Err(why) => Element::Invalid {
                    text: text.to_string(),
                    why,
                },
            },
            None => Element::Other(
                value
                    .span()
                    .and_then(|span| text.get(span))
                    .unwrap_or_default()
                    .to_string(),
            ),
        })
        .collect();
    let span = array.span().unwrap_or(0..0);
    let values = array.iter().map(|v| v.span().unwrap_or(0..0)).collect();
    List {
        id,
        elements,
        array: ArrayAt { span, values },
    }
}

/// Sets the requirements of package `name` in list `id` to `new` (each naming `name`):
/// existing ones are replaced in place, in order, extra new ones appended to the list,
/// extra old ones removed. The list `[project].dependencies` is made if `[project]` has
/// none; other lists must exist (see [`add_list`]).
pub fn set(text: &str, id: &ListId, name: &str, new: &[Requirement]) -> Result<String, String> {
    let mut text = ensure_main(text, id)?;
    let manifest = Manifest::read(&text)?;
    let list = found(&manifest, id)?;
    let old = list.indices_of(name);
    let style = Quote::of(&text, list);
    // Replacements do not move anything before them: last first.
    let mut splices: Vec<splice::Splice> = old
        .iter()
        .zip(new)
        .map(|(&i, r)| {
            let quote = Quote::at(&text, &list.array.values[i]).unwrap_or(style);
            splice::replace(&list.array, i, &quote.write(&r.text))
        })
        .collect();
    splices.reverse();
    for s in &splices {
        text = s.apply(&text);
    }
    for r in new.iter().skip(old.len()) {
        let manifest = Manifest::read(&text)?;
        let list = found(&manifest, id)?;
        text = splice::append(&text, &list.array, &style.write(&r.text)).apply(&text);
    }
    for _ in new.len()..old.len() {
        let manifest = Manifest::read(&text)?;
        let list = found(&manifest, id)?;
        let Some(&last) = list.indices_of(name).last() else {
            break;
        };
        text = splice::remove(&text, &list.array, last).apply(&text);
    }
    Ok(text)
}

/// Removes every requirement of package `name` from list `id`. The `dependencies = [\n]`
/// that adding a first requirement made ([`ensure_main`]) goes with the last one: the file
/// is then as it was before.
pub fn remove(text: &str, id: &ListId, name: &str) -> Result<String, String> {
    let text = set(text, id, name, &[])?;
    if *id != ListId::Main {
        return Ok(text);
    }
    let manifest = Manifest::read(&text)?;
    let Some(list) = manifest.list(id) else {
        return Ok(text);
    };
    let span = list.array.span.clone();
    let line_start = text[..span.start].rfind('\n').map_or(0, |n| n + 1);
    let line_end = text[span.end..]
        .find('\n')
        .map_or(text.len(), |n| span.end + n + 1);
    let made_by_adding = list.elements.is_empty()
        && text[line_start..span.start].trim_end() == "dependencies ="
        && &text[span.clone()] == "[\n]"
        && text[span.end..line_end].trim().is_empty();
    Ok(match made_by_adding {
        true => format!("{}{}", &text[..line_start], &text[line_end..]),
        false => text,
    })
}

/// Adds the empty list `id` (an extra or a group), making its table if there is none.
pub fn add_list(text: &str, id: &ListId) -> Result<String, String> {
    let manifest = Manifest::read(text)?;
    if manifest.list(id).is_some() {
        return Err(format!("{id} exists already"));
    }
    let doc = Document::parse(text).map_err(|e| e.to_string())?;
    let root = doc.as_table();
    let (key, table, header) = match id {
        ListId::Main => return ensure_main(text, id),
        ListId::Extra(extra) => {
            let project = project_table(root)?;
            (
                extra,
                project.get("optional-dependencies"),
                "[project.optional-dependencies]",
            )
        }
        ListId::Group(group) => (group, root.get("dependency-groups"), "[dependency-groups]"),
    };
    let line = format!("{} = []\n", toml_key(key));
    match table {
        Some(Item::Table(table)) if !table.is_dotted() => {
            Ok(insert_line(text, after_values(text, table), &line))
        }
        Some(_) => Err(format!(
            "{header} is written inline or with dotted keys here; add `{}` to it in \
             pyproject.toml by hand",
            line.trim_end()
        )),
        None => {
            let at = match id {
                ListId::Extra(_) => after_values(text, project_table(root)?),
                _ => text.len(),
            };
            let block = format!("\n{header}\n{line}");
            Ok(insert_line(text, at, &block))
        }
    }
}

/// Removes the empty list `id` (an extra or a group): its line goes, with the comment lines
/// directly above it, and when it was its table's last list the table goes too (see
/// `without_empty_table`), as one would remove them by hand. A group's
/// `{include-group = "…"}` in other groups goes with it: it is empty, so they install the
/// same without it, and a dangling include fails every installer.
pub fn remove_list(text: &str, id: &ListId) -> Result<String, String> {
    let manifest = Manifest::read(text)?;
    if found(&manifest, id)?.elements.is_empty()
        && let ListId::Group(group) = id
    {
        let text = without_includes_of(text, group)?;
        return remove_empty_list(&text, id);
    }
    remove_empty_list(text, id)
}

/// `text` without every `{include-group = "<group>"}` of the other groups.
fn without_includes_of(text: &str, group: &str) -> Result<String, String> {
    let mut text = text.to_string();
    loop {
        let manifest = Manifest::read(&text)?;
        let found = manifest.lists.iter().find_map(|list| {
            let ListId::Group(_) = list.id else {
                return None;
            };
            let at = list.elements.iter().position(|e| match e {
                Element::Other(other) => {
                    included_group(other).is_some_and(|g| same_group(&g, group))
                }
                _ => false,
            })?;
            Some(splice::remove(&text, &list.array, at))
        });
        match found {
            Some(cut) => text = cut.apply(&text),
            None => return Ok(text),
        }
    }
}

/// The group an element `{include-group = "name"}` includes.
fn included_group(element: &str) -> Option<String> {
    let doc = Document::parse(format!("x = {element}")).ok()?;
    let table = doc.as_table().get("x")?.as_inline_table()?;
    table.get("include-group")?.as_str().map(str::to_string)
}

/// Whether two group names are the same after PEP 735's normalisation (PEP 503's).
fn same_group(a: &str, b: &str) -> bool {
    let norm = |s: &str| s.to_ascii_lowercase().replace(['_', '.'], "-");
    norm(a) == norm(b)
}

fn remove_empty_list(text: &str, id: &ListId) -> Result<String, String> {
    let manifest = Manifest::read(text)?;
    let list = found(&manifest, id)?;
    if !list.elements.is_empty() {
        return Err(format!(
            "{id} is not empty: remove its packages first ({} left)",
            list.elements.len()
        ));
    }
    let doc = Document::parse(text).map_err(|e| e.to_string())?;
    let root = doc.as_table();
    let (table, key) = match id {
        ListId::Main => {
            return Err("[project].dependencies stays, even empty: it is where \
                 dependencies are added"
                .into());
        }
        ListId::Extra(extra) => (project_table(root)?.get("optional-dependencies"), extra),
        ListId::Group(group) => (root.get("dependency-groups"), group),
    };
    let key_span = match table {
        Some(Item::Table(table)) if !table.is_dotted() => table.key(key).and_then(|k| k.span()),
        _ => None,
    };
    let Some(key_span) = key_span else {
        return Err(format!(
            "{id} is written inline or with dotted keys here; remove it from pyproject.toml \
             by hand"
        ));
    };
    let start = comments_above(text, line_start(text, key_span.start));
    let end = line_end(text, list.array.span.end);
    without_empty_table(&format!("{}{}", &text[..start], &text[end..]), id)
}

/// `text` without the table of `id`'s kind (`[project.optional-dependencies]`,
/// `[dependency-groups]`) when no key is left in it: its header line goes, with the comment
/// lines directly above it and those directly below it (up to a blank line: comments
/// running into the next header are that table's), and one blank line that set it apart.
/// Every other byte stays.
fn without_empty_table(text: &str, id: &ListId) -> Result<String, String> {
    let doc = Document::parse(text).map_err(|e| e.to_string())?;
    let root = doc.as_table();
    let table = match id {
        ListId::Main => None,
        ListId::Extra(_) => project_table(root)?.get("optional-dependencies"),
        ListId::Group(_) => root.get("dependency-groups"),
    };
    let header = match table {
        Some(Item::Table(table)) if table.is_empty() && !table.is_dotted() => table.span(),
        _ => None,
    };
    let Some(header) = header else {
        return Ok(text.to_string());
    };
    let mut start = comments_above(text, line_start(text, header.start));
    let mut end = comments_below(text, line_end(text, header.end));
    let blank = |line: &str| line.trim().is_empty();
    if start > 0 && blank(&text[line_start(text, start - 1)..start]) {
        start = line_start(text, start - 1);
    } else if end < text.len() && blank(&text[end..line_end(text, end)]) {
        end = line_end(text, end);
    }
    Ok(format!("{}{}", &text[..start], &text[end..]))
}

/// The start of the comment lines directly above the line starting at `at` (`at` if none).
fn comments_above(text: &str, mut at: usize) -> usize {
    while at > 0 {
        let above = line_start(text, at - 1);
        if !text[above..at].trim_start().starts_with('#') {
            break;
        }
        at = above;
    }
    at
}

/// The end of the comment lines from the line starting at `at` when a blank line or the
/// end of the text follows them (`at` otherwise: they lead into what comes next).
fn comments_below(text: &str, at: usize) -> usize {
    let mut end = at;
    while end < text.len() && text[end..line_end(text, end)].trim_start().starts_with('#') {
        end = line_end(text, end);
    }
    if end == text.len() || text[end..line_end(text, end)].trim().is_empty() {
        end
    } else {
        at
    }
}

/// Makes `[project].dependencies` when `id` is it and `[project]` lacks it.
fn ensure_main(text: &str, id: &ListId) -> Result<String, String> {
    if *id != ListId::Main {
        return Ok(text.to_string());
    }
    let doc = Document::parse(text).map_err(|e| e.to_string())?;
    let project = project_table(doc.as_table())?;
    if project.contains_key("dependencies") {
        return Ok(text.to_string());
    }
    if project.is_dotted() {
        return Err(
            "[project] is written with dotted keys here; add `project.dependencies = []` \
             to pyproject.toml by hand"
                .into(),
        );
    }
    Ok(insert_line(
        text,
        after_values(text, project),
        "dependencies = [\n]\n",
    ))
}

fn project_table(root: &Table) -> Result<&Table, String> {
    match root.get("project") {
        Some(Item::Table(project)) => Ok(project),
        Some(_) => Err("[project] is not a table in pyproject.toml".into()),
        None => Err(NO_PROJECT.into()),
    }
}

fn found<'m>(manifest: &'m Manifest, id: &ListId) -> Result<&'m List, String> {
    manifest
        .list(id)
        .ok_or_else(|| format!("pyproject.toml has no {id}"))
}

/// Where a new line goes in `table`: after the line of its last value, else after its
/// header.
fn after_values(text: &str, table: &Table) -> usize {
    let last = table
        .iter()
        .filter_map(|(key, item)| match item {
            Item::Value(value) => value.span().or_else(|| table.key(key)?.span()),
            _ => None,
        })
        .map(|span| span.end)
        .max();
    let from = last
        .or_else(|| table.span().map(|s| s.end))
        .unwrap_or(text.len());
    line_end(text, from)
}

/// The start of the line holding `at`.
fn line_start(text: &str, at: usize) -> usize {
    text[..at].rfind('\n').map_or(0, |n| n + 1)
}

/// The position after the newline that ends the line holding `at` (or the end).
fn line_end(text: &str, at: usize) -> usize {
    text[at..].find('\n').map_or(text.len(), |n| at + n + 1)
}

/// `text` with `line` (ending in a newline) inserted at `at`, which starts a line — or is
/// the end of a text that does not end in one.
fn insert_line(text: &str, at: usize, line: &str) -> String {
    let mut out = String::with_capacity(text.len() + line.len() + 1);
    out.push_str(&text[..at]);
    if at > 0 && !text[..at].ends_with('\n') {
        out.push('\n');
    }
    out.push_str(line);
    out.push_str(&text[at..]);
    out
}

/// A bare key when it can be one, else a quoted key.
fn toml_key(key: &str) -> String {
    let bare = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if bare {
        key.to_string()
    } else {
        Quote::Basic.write(key)
    }
}

/// How a requirement string is quoted: like the one it replaces, else like the list's last.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Quote {
    /// `"..."`, with escapes.
    Basic,
    /// `'...'`, verbatim.
    Literal,
}

impl Quote {
    fn at(text: &str, span: &std::ops::Range<usize>) -> Option<Quote> {
        match text.get(span.clone())?.as_bytes().first()? {
            b'\'' => Some(Quote::Literal),
            b'"' => Some(Quote::Basic),
            _ => None,
        }
    }

    fn of(text: &str, list: &List) -> Quote {
        list.array
            .values
            .last()
            .and_then(|span| Quote::at(text, span))
            .unwrap_or(Quote::Basic)
    }

    fn write(self, s: &str) -> String {
        let literal_fits = !s.contains('\'') && !s.chars().any(char::is_control);
        match self {
            Quote::Literal if literal_fits => format!("'{s}'"),
            // A requirement with `"` in a marker reads better unescaped.
            Quote::Basic if literal_fits && s.contains('"') => format!("'{s}'"),
            _ => Value::from(s).to_string().trim().to_string(),
        }
    }
}

#[cfg(test)]
mod tests;
