//! `memory/`: the agent's past sessions. Until transcripts are imported it holds no
//! sessions, and says so: an empty store is a state, not a placeholder.

use crate::error::{Error, Result};
use crate::model::links::Links;
use crate::model::{Child, Kind, Node};
use crate::model::{Entry, Function, Section};
use crate::tree::resource::Resource;

/// The memory resourcespace.
pub struct Memory {
    links: Links,
}

impl Memory {
    pub fn new(links: Links) -> Self {
        Memory { links }
    }
}

impl Resource for Memory {
    fn name(&self) -> &'static str {
        "memory"
    }

    fn summary(&self) -> Result<String> {
        Ok("past sessions: none stored yet".into())
    }

    fn stat(&self, path: &[&str]) -> Result<Node> {
        match path {
            [] | ["sessions"] | ["tags"] => Ok(Node::dir(false)),
            _ => Err(Error::not_found(format!(
                "{} does not exist: memory holds no sessions yet",
                self.links.to(&format!("memory/{}", path.join("/")))
            ))),
        }
    }

    fn list(&self, path: &[&str]) -> Result<Vec<Child>> {
        match path {
            [] => Ok(vec![
                Child::new("sessions", Kind::Dir, "past sessions by date: none yet"),
                Child::new("tags", Kind::Dir, "entries by tag: none yet"),
            ]),
            _ => Ok(Vec::new()),
        }
    }

    fn read(&self, path: &[&str]) -> Result<Vec<u8>> {
        Err(Error::not_found(format!(
            "memory/{} holds nothing",
            path.join("/")
        )))
    }

    fn entry(&self, path: &[&str]) -> Result<Entry> {
        let mut components = vec!["memory"];
        components.extend_from_slice(path);
        let title = match path {
            [] => "memory — past sessions: none stored yet".to_string(),
            _ => format!("memory/{} — empty: no sessions stored yet", path.join("/")),
        };
        Ok(Entry {
            title,
            functions: vec![
                Function::new(
                    format!("ls {}", self.links.dir(&["memory", "sessions"])),
                    "list sessions by date",
                    "one directory per day",
                ),
                Function::new(
                    format!("cat \"{}\"", self.links.to("search/memory:<query>")),
                    "search past sessions",
                    "ranked entries with paths",
                ),
            ],
            sections: vec![Section::children(
                "Contents",
                &self.list(path)?,
                "Nothing here yet.",
            )],
            ..Entry::default()
        })
    }
}
