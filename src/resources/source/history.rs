//! `source/history/` as a resourcespace of its own inside `source/`: the list of routed
//! edits (its entry view), one diff view per edit (`<n>.diff`) and `undo`, the document an
//! edit's number is written to. The edits themselves are the [`EditLog`] it is handed
//! (`edit_log.rs`); undoing one is a change of the project, which the source makes.

use std::sync::Arc;

use crate::error::{Error, ErrorKind, Result};
use crate::model::{Child, Entry, Kind, Node};
use crate::resources::source::edit::Editor;
use crate::resources::source::edit::edit_log::EditLog;
use crate::resources::source::places::in_tree::tree_path_of;
use crate::resources::source::places::paths::HISTORY;
use crate::tree::glance::Glance;
use crate::tree::resource::Resource;
use crate::tree::resource::{Capabilities, Edit};

/// Diffs listed by `ls` (the newest; older ones are reachable by number).
const LISTED: usize = 1000;

/// `source/history/`.
pub struct HistoryDir {
    edits: Arc<EditLog>,
    /// The source undo changes the project through.
    editor: Arc<Editor>,
}

impl HistoryDir {
    pub fn new(edits: Arc<EditLog>, editor: Arc<Editor>) -> Self {
        HistoryDir { edits, editor }
    }

    fn shown(path: &[&str]) -> String {
        tree_path_of([HISTORY].iter().chain(path)).to_string()
    }
}

/// What a name in `source/history/` is.
enum HistoryName {
    Diff(i64),
    Undo,
}

fn place(edits: &EditLog, name: &str) -> Option<HistoryName> {
    match name {
        "undo" => Some(HistoryName::Undo),
        _ => name
            .strip_suffix(".diff")
            .and_then(|n| n.parse().ok())
            .filter(|&n: &i64| edits.exists(n))
            .map(HistoryName::Diff),
    }
}

impl Resource for HistoryDir {
    fn name(&self) -> &'static str {
        HISTORY
    }

    fn summary(&self) -> Result<String> {
        Ok("every routed edit, as diffs; undo".into())
    }

    fn stat(&self, glance: &Glance, path: &[&str]) -> Result<Node> {
        let root = self.editor.root_ownership(Some(glance));
        match path {
            [] => Ok(Node::dir(true).owned(root)),
            [name] => match place(&self.edits, name) {
                // Readable by whoever may read the file it changed.
                Some(HistoryName::Diff(id)) => Ok(Node::view().owned(self.edits.ownership(id))),
                Some(HistoryName::Undo) => Ok(Node {
                    size: Some(0),
                    ..Node::document(true).owned(root)
                }),
                None => Err(self.missing(path)),
            },
            _ => Err(self.missing(path)),
        }
    }

    fn list(&self, _glance: &Glance, path: &[&str]) -> Result<Vec<Child>> {
        if !path.is_empty() {
            return Err(Error::new(
                ErrorKind::NotADirectory,
                format!("{} is a file", Self::shown(path)),
            ));
        }
        let (rows, _) = self.edits.newest(LISTED)?;
        let mut children = vec![Child::new(
            "undo",
            Kind::Document,
            "write an edit's number to revert it",
        )];
        children.extend(rows.into_iter().map(|(id, _, path, what)| {
            Child::new(format!("{id}.diff"), Kind::View, format!("{what} ({path})"))
        }));
        Ok(children)
    }

    fn read(&self, _glance: &Glance, path: &[&str]) -> Result<Vec<u8>> {
        match path {
            [name] => match place(&self.edits, name) {
                Some(HistoryName::Diff(id)) => Ok(self.edits.diff_view(id)?.into_bytes()),
                Some(HistoryName::Undo) => Ok(Vec::new()),
                None => Err(self.missing(path)),
            },
            _ => Err(Error::new(
                ErrorKind::IsADirectory,
                format!("{} is a directory: read its _entry.md", Self::shown(path)),
            )),
        }
    }

    fn entry(&self, _glance: &Glance, _path: &[&str]) -> Result<Entry> {
        self.edits.entry()
    }

    fn capabilities(&self) -> Capabilities<'_> {
        Capabilities {
            edit: Some(self),
            ..Capabilities::default()
        }
    }
}

impl Edit for HistoryDir {
    fn write(&self, path: &[&str], content: &[u8], _base: Option<&[u8]>) -> Result<()> {
        let editor = &*self.editor;
        match path {
            [name] if matches!(place(&self.edits, name), Some(HistoryName::Undo)) => {
                editor.undo(content)
            }
            _ => Err(Error::read_only(format!(
                "{} cannot be written: the history changes only by edits; write an edit's \
                 number to {}",
                Self::shown(path),
                editor.links().file(&tree_path_of([HISTORY, "undo"]))
            ))),
        }
    }
}

impl HistoryDir {
    fn missing(&self, path: &[&str]) -> Error {
        self.editor.missing(HISTORY, path, "lists the edits")
    }
}
