//! `source/config/`: pyproject.toml one table per file — `project.toml`,
//! `build-system.toml`, `tool.ruff.lint.toml`, `tool.mypy.overrides@2.toml` — each the
//! exact text of that table ([`crate::pyproject::config`]). Writing a file replaces its
//! table in place (or adds it at the end), `rm` removes it; every other byte of
//! pyproject.toml stays, and each change is an edit in `source/history/`.

use std::sync::Arc;

use crate::error::{Error, Result};
use crate::model::{Child, Entry, Function, Kind, Node, Section};
use crate::pyproject::config::{self, TableAt};
use crate::resources::source::edit::change::conflict;
use crate::resources::source::edit::pyproject_change::{Pyproject, broken, change_pyproject};
use crate::resources::source::edit::{self, Editor};
use crate::resources::source::places::in_tree::tree_path_of;
use crate::tree::glance::Glance;
use crate::tree::resource::Resource;
use crate::tree::resource::{Capabilities, Edit};

/// The directory name under `source/`.
pub const CONFIG: &str = "config";

/// `source/config/`.
pub struct ConfigDir {
    editor: Arc<Editor>,
}

/// pyproject.toml as it is now: its text and tables.
type Tables = Pyproject<(String, Vec<TableAt>)>;

impl ConfigDir {
    pub fn new(editor: Arc<Editor>) -> Self {
        ConfigDir { editor }
    }

    fn tables(editor: &Editor) -> Result<Tables> {
        Pyproject::read(editor, |text| {
            let tables = config::tables(&text)?;
            Ok((text, tables))
        })
    }

    /// The text of the table a file `name` shows, if there is one.
    fn table_text(editor: &Editor, name: &str) -> Result<Option<String>> {
        let Some(table) = name.strip_suffix(".toml") else {
            return Ok(None);
        };
        Ok(match Self::tables(editor)? {
            Pyproject::Read((text, tables)) => tables
                .into_iter()
                .find(|t| t.name == table)
                .map(|t| text[t.span].to_string()),
            _ => None,
        })
    }

    fn shown(path: &[&str]) -> String {
        tree_path_of([CONFIG].iter().chain(path)).to_string()
    }

    fn missing(&self, path: &[&str]) -> Error {
        self.editor
            .missing(CONFIG, path, "lists the tables of pyproject.toml")
    }
}

impl Resource for ConfigDir {
    fn name(&self) -> &'static str {
        CONFIG
    }

    fn summary(&self) -> Result<String> {
        Ok(match Self::tables(&self.editor)? {
            Pyproject::Read((_, tables)) => {
                format!("pyproject.toml, {} tables, one file each", tables.len())
            }
            Pyproject::Missing => "no pyproject.toml yet: write a table here to start one".into(),
            Pyproject::Broken(_) => "pyproject.toml does not parse".into(),
        })
    }

    fn stat(&self, glance: &Glance, path: &[&str]) -> Result<Node> {
        let editor = &*self.editor;
        let owner = editor.root_ownership(Some(glance));
        match path {
            [] => Ok(Node::dir(true).owned(owner)),
            [name] => match Self::table_text(editor, name)? {
                Some(text) => Ok(Node {
                    size: Some(text.len() as u64),
                    ..Node::document(true).owned(owner)
                }),
                None => Err(self.missing(path)),
            },
            _ => Err(self.missing(path)),
        }
    }

    fn list(&self, _glance: &Glance, path: &[&str]) -> Result<Vec<Child>> {
        if !path.is_empty() {
            return Err(edit::not_a_dir(CONFIG, path));
        }
        Ok(match Self::tables(&self.editor)? {
            Pyproject::Read((text, tables)) => tables
                .iter()
                .filter(|t| config::nameable(&t.name))
                .map(|t| {
                    let lines = text[t.span.clone()].lines().count();
                    Child::new(
                        format!("{}.toml", t.name),
                        Kind::Document,
                        format!("{lines} lines"),
                    )
                })
                .collect(),
            _ => Vec::new(),
        })
    }

    fn read(&self, _glance: &Glance, path: &[&str]) -> Result<Vec<u8>> {
        match path {
            [name] => Self::table_text(&self.editor, name)?
                .map(String::into_bytes)
                .ok_or_else(|| self.missing(path)),
            _ => Err(edit::is_a_dir(CONFIG, path)),
        }
    }

    fn entry(&self, _glance: &Glance, path: &[&str]) -> Result<Entry> {
        if !path.is_empty() {
            return Err(edit::not_a_dir(CONFIG, path));
        }
        let editor = &*self.editor;
        Ok(entry(editor, &Self::tables(editor)?))
    }

    fn capabilities(&self) -> Capabilities<'_> {
        Capabilities {
            edit: Some(self),
            ..Capabilities::default()
        }
    }
}

impl Edit for ConfigDir {
    fn write(&self, path: &[&str], content: &[u8], base: Option<&[u8]>) -> Result<()> {
        let editor = &*self.editor;
        let (shown, table) = table_of(path)?;
        let content = std::str::from_utf8(content)
            .map_err(|_| Error::invalid(format!("{shown} was not saved: it is not UTF-8 text")))?;
        change_pyproject(editor, &format!("config: write [{table}]"), |text| {
            let text = text.unwrap_or("");
            let tables = config::tables(text).map_err(broken)?;
            if let Some(base) = base {
                let now = tables
                    .iter()
                    .find(|t| t.name == table)
                    .map(|t| &text[t.span.clone()]);
                if now.map(str::as_bytes) != Some(base) {
                    return Err(conflict(&shown));
                }
            }
            config::write(text, table, content).map_err(|why| {
                Error::invalid(format!(
                    "{shown} was not saved, pyproject.toml is unchanged: {why}"
                ))
            })
        })
    }

    fn can_create(&self, path: &[&str]) -> Result<()> {
        table_of(path).map(|_| ())
    }

    fn remove(&self, path: &[&str]) -> Result<()> {
        let editor = &*self.editor;
        let (shown, table) = table_of(path)?;
        change_pyproject(editor, &format!("config: remove [{table}]"), |text| {
            let text = text.ok_or_else(|| Error::not_found(format!("{shown} does not exist")))?;
            config::remove(text, table).map_err(Error::not_found)
        })
    }
}

/// The table a file path names: `tool.ruff.toml` is `tool.ruff`.
fn table_of<'p>(path: &[&'p str]) -> Result<(String, &'p str)> {
    let shown = ConfigDir::shown(path);
    match path {
        [name] => match name.strip_suffix(".toml") {
            Some(table) if !table.is_empty() && config::nameable(table) => Ok((shown, table)),
            _ => Err(Error::invalid(format!(
                "{shown}: files here are tables of pyproject.toml, named like tool.ruff.toml"
            ))),
        },
        _ => Err(Error::not_permitted(format!(
            "{shown}: source/{CONFIG}/ holds files only, one per table"
        ))),
    }
}

fn entry(editor: &Editor, tables: &Tables) -> Entry {
    let dir = editor.links().folder(&tree_path_of([CONFIG]));
    let (title, items) = match tables {
        Pyproject::Read((text, tables)) => (
            format!(
                "source/{CONFIG} — pyproject.toml in {} tables",
                tables.len()
            ),
            tables
                .iter()
                .map(|t| {
                    let body = &text[t.span.clone()];
                    let keys = body
                        .lines()
                        .skip(1)
                        .filter(|l| l.contains('=') && !l.trim_start().starts_with('#'))
                        .count();
                    format!("`{}.toml` — {keys} settings", t.name)
                })
                .collect(),
        ),
        Pyproject::Missing => (
            format!("{} — no pyproject.toml yet", tree_path_of([CONFIG])),
            Vec::new(),
        ),
        Pyproject::Broken(why) => (
            format!(
                "source/{CONFIG} — pyproject.toml does not parse: {}",
                why.lines().next().unwrap_or_default()
            ),
            Vec::new(),
        ),
    };
    Entry {
        title,
        about: vec![
            "One file per table of pyproject.toml, holding that table's exact text (its header, \
             values and comments). A write must be valid TOML with that one table; it replaces \
             the table in place and every other byte of pyproject.toml stays."
                .into(),
        ],
        functions: vec![
            Function::new(
                format!("cat {dir}tool.ruff.toml"),
                "read a table",
                "its exact TOML",
            ),
            Function::new(
                format!("sed -i 's/line-length = 88/line-length = 100/' {dir}tool.ruff.toml"),
                "change a setting",
                "refused with line and column if it is not valid TOML",
            ),
            Function::new(
                format!("printf '[tool.black]\\nline-length = 100\\n' > {dir}tool.black.toml"),
                "add a table",
                "appended to pyproject.toml",
            ),
            Function::new(
                format!("rm {dir}tool.black.toml"),
                "remove a table",
                "with the blank lines after it",
            ),
        ],
        sections: vec![Section {
            heading: "Tables".into(),
            items,
            empty: "none".into(),
            ..Section::default()
        }],
        advanced: vec![format!(
            "Dependencies are easier in {} (one file per package, PEP 508 checked).",
            editor.links().to("source/deps/")
        )],
    }
}
