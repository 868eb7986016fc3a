//! `memory/tags/`: entries by tag, across sessions. `tags/<tag>/` is a view: its entry
//! lists the tagged entries (newest first) with their paths, to read or retag.

use std::sync::Arc;

use crate::error::{Error, ErrorKind, Result};
use crate::model::{Child, Entry, Function, Kind, Links, Node, Section};
use crate::resources::memory::document::valid_tag;
use crate::resources::memory::views::{cut, entry_name};
use crate::store::Store;
use crate::tree::resource::Resource;

/// Tagged entries listed in a tag's entry view (the view is pruned to the budget too).
const LISTED: usize = 50;

/// `memory/tags/`.
pub struct Tags {
    store: Arc<Store>,
    links: Links,
}

impl Tags {
    pub fn new(store: Arc<Store>, links: Links) -> Self {
        Tags { store, links }
    }

    fn missing(&self, path: &[&str]) -> Error {
        Error::not_found(format!(
            "{} does not exist: {} lists the tags in use",
            self.links.to(&format!("memory/tags/{}", path.join("/"))),
            self.links.to("memory/tags/_entry.md")
        ))
    }

    fn count(&self, tag: &str) -> Result<usize> {
        Ok(self
            .store
            .memory(|m| m.tags())?
            .into_iter()
            .find(|(t, _)| t == tag)
            .map_or(0, |(_, n)| n))
    }
}

impl Resource for Tags {
    fn name(&self) -> &'static str {
        "tags"
    }

    fn summary(&self) -> Result<String> {
        let tags = self.store.memory(|m| m.tags())?;
        Ok(format!(
            "entries by tag: {} tag{} in use",
            tags.len(),
            if tags.len() == 1 { "" } else { "s" }
        ))
    }

    fn stat(&self, path: &[&str]) -> Result<Node> {
        match path {
            [] => Ok(Node::dir(false)),
            [tag] if valid_tag(tag) && self.count(tag)? > 0 => Ok(Node::dir(false)),
            _ => Err(self.missing(path)),
        }
    }

    fn list(&self, path: &[&str]) -> Result<Vec<Child>> {
        match path {
            [] => Ok(self
                .store
                .memory(|m| m.tags())?
                .into_iter()
                .map(|(tag, n)| {
                    Child::new(
                        tag,
                        Kind::Dir,
                        format!("{n} entr{}", if n == 1 { "y" } else { "ies" }),
                    )
                })
                .collect()),
            [_] => {
                self.stat(path)?;
                Ok(Vec::new())
            }
            _ => Err(self.missing(path)),
        }
    }

    fn read(&self, path: &[&str]) -> Result<Vec<u8>> {
        Err(Error::new(
            ErrorKind::IsADirectory,
            format!(
                "{} is a directory: read its _entry.md",
                self.links.to(&format!("memory/tags/{}", path.join("/")))
            ),
        ))
    }

    fn entry(&self, path: &[&str]) -> Result<Entry> {
        match path {
            [] => Ok(Entry {
                title: "memory/tags — entries by tag".into(),
                functions: vec![Function::new(
                    format!("cat {}", self.links.to("memory/tags/<tag>/_entry.md")),
                    "see the entries with a tag",
                    "their paths, newest first",
                )],
                sections: vec![Section::children(
                    "Tags",
                    &self.list(path)?,
                    "No entry is tagged yet: tag one by editing its \"tags\".",
                )],
                ..Entry::default()
            }),
            [tag] => {
                self.stat(path)?;
                let (rows, total) = self.store.memory(|m| m.tagged(tag, LISTED))?;
                Ok(Entry {
                    title: format!(
                        "memory/tags/{tag} — {total} entr{}",
                        if total == 1 { "y" } else { "ies" }
                    ),
                    sections: vec![Section {
                        heading: "Entries, newest first".into(),
                        items: rows
                            .iter()
                            .map(|(session, entry)| {
                                format!(
                                    "`{}` {} — {}",
                                    self.links.to(&format!(
                                        "memory/sessions/{}/{}/{}",
                                        session.day,
                                        session.record.id,
                                        entry_name(session, entry.seq)
                                    )),
                                    entry.record.channel,
                                    cut(&entry.record.content)
                                )
                            })
                            .collect(),
                        empty: "None.".into(),
                        ..Section::default()
                    }],
                    ..Entry::default()
                })
            }
            _ => Err(self.missing(path)),
        }
    }
}
