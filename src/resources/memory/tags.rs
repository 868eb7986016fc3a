//! `memory/tags/`: entries by tag, across sessions. `tags/<tag>/` holds the newest tagged
//! entries as read-only files named by session and entry (`<session>--<0001>.json`, the
//! same bytes as the session's own file, where a retag is written); its entry lists them
//! with their paths in their sessions, and says how to find the rest when a tag has more.

use std::sync::Arc;

use crate::error::{Error, ErrorKind, Result};
use crate::model::count::{one_or_many, plural};
use crate::model::{Child, Entry, Function, Kind, Links, Node, Section};
use crate::resources::memory::document::{self, valid_tag};
use crate::resources::memory::views::{cut, entry_name};
use crate::store::Store;
use crate::store::memory::{EntryRow, SessionRow};
use crate::tree::glance::Glance;
use crate::tree::resource::Resource;

/// Tagged entries listed in a tag's folder and its entry view (the view is pruned to the
/// budget too): a tag on thousands of entries lists as fast as a small one.
const LISTED: usize = 50;

/// Between the session and the entry in a tagged file's name: a session's name may hold
/// `-` but the entry's number never does, so the last one splits them.
const BETWEEN: &str = "--";

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

    /// The entry the file `name` of `tags/<tag>/` stands for, if it has that tag.
    fn tagged_entry(&self, tag: &str, name: &str) -> Result<Option<(SessionRow, EntryRow)>> {
        let Some((session, seq)) = name
            .strip_suffix(".json")
            .and_then(|stem| stem.rsplit_once(BETWEEN))
        else {
            return Ok(None);
        };
        let Ok(number) = seq.parse::<i64>() else {
            return Ok(None);
        };
        self.store.memory(|m| {
            let Some(row) = m.session(session)? else {
                return Ok(None);
            };
            if seq.len() != row.width() {
                return Ok(None);
            }
            Ok(m.entry(row.rowid, number)?
                .filter(|entry| entry.record.tags.iter().any(|t| t == tag))
                .map(|entry| (row, entry)))
        })
    }

    /// When a tag has more entries than are listed: how many are, and where the rest are.
    fn rest(&self, tag: &str, listed: usize, total: usize) -> Vec<String> {
        if listed >= total {
            return Vec::new();
        }
        vec![format!(
            "This folder and the list below hold the newest {listed}; all {total}: `cat {}`",
            self.links.to(&format!("search/memory:tag:{tag}"))
        )]
    }

    fn tagged(&self, tag: &str, path: &[&str]) -> Result<(SessionRow, EntryRow)> {
        match path {
            [name] => self.tagged_entry(tag, name)?.ok_or_else(|| {
                Error::not_found(format!(
                    "{} does not exist: {} lists the entries tagged {tag}",
                    self.links.to(&format!("memory/tags/{tag}/{name}")),
                    self.links.to(&format!("memory/tags/{tag}/_entry.md"))
                ))
            }),
            _ => Err(self.missing(&[&[tag], path].concat())),
        }
    }
}

/// The name of `entry` of session `row` in a tag's folder.
fn tagged_name(row: &SessionRow, seq: i64) -> String {
    format!("{}{BETWEEN}{}", row.record.id, entry_name(row, seq))
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
            plural(tags.len())
        ))
    }

    fn stat(&self, _glance: &Glance, path: &[&str]) -> Result<Node> {
        match path {
            [] => Ok(Node::dir(false)),
            [tag] if valid_tag(tag) && self.count(tag)? > 0 => Ok(Node::dir(false)),
            [tag, rest @ ..] if valid_tag(tag) => {
                self.tagged(tag, rest)?;
                // Another name of the session's file: a retag there changes it, and is
                // announced there only.
                Ok(Node {
                    aliased: true,
                    ..Node::document(false)
                })
            }
            _ => Err(self.missing(path)),
        }
    }

    fn list(&self, glance: &Glance, path: &[&str]) -> Result<Vec<Child>> {
        match path {
            [] => Ok(self
                .store
                .memory(|m| m.tags())?
                .into_iter()
                .map(|(tag, n)| {
                    Child::new(
                        tag,
                        Kind::Dir,
                        format!("{n} entr{}", one_or_many(n, "y", "ies")),
                    )
                })
                .collect()),
            [tag] => {
                self.stat(glance, path)?;
                let (rows, _) = self.store.memory(|m| m.tagged(tag, LISTED))?;
                Ok(rows
                    .iter()
                    .map(|(session, entry)| {
                        Child::new(
                            tagged_name(session, entry.seq),
                            Kind::Document,
                            format!("{} — {}", entry.record.channel, cut(&entry.record.content)),
                        )
                    })
                    .collect())
            }
            _ => Err(self.missing(path)),
        }
    }

    fn read(&self, _glance: &Glance, path: &[&str]) -> Result<Vec<u8>> {
        match path {
            [tag, rest @ ..] if !rest.is_empty() && valid_tag(tag) => {
                let (_, entry) = self.tagged(tag, rest)?;
                document::render(entry.seq, &entry.record)
            }
            _ => Err(Error::new(
                ErrorKind::IsADirectory,
                format!(
                    "{} is a directory: read its _entry.md",
                    self.links.to(&format!("memory/tags/{}", path.join("/")))
                ),
            )),
        }
    }

    fn entry(&self, glance: &Glance, path: &[&str]) -> Result<Entry> {
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
                    &self.list(glance, path)?,
                    "No entry is tagged yet: tag one by editing its \"tags\".",
                )],
                ..Entry::default()
            }),
            [tag] => {
                self.stat(glance, path)?;
                let (rows, total) = self.store.memory(|m| m.tagged(tag, LISTED))?;
                Ok(Entry {
                    title: format!(
                        "memory/tags/{tag} — {total} entr{}",
                        one_or_many(total, "y", "ies")
                    ),
                    about: self.rest(tag, rows.len(), total),
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
