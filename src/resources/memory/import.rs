//! `memory/import/`: copy a transcript here to import it — the same code as
//! `homespace import`. The file is read whole (its format recognised from its content),
//! stored in one transaction or refused with every bad line listed, and does not stay:
//! the sessions it holds appear under `memory/sessions/`. The entry view lists the imports
//! made through this mount.

use std::sync::{Arc, Mutex};

use crate::error::{Error, ErrorKind, Result};
use crate::model::count::plural;
use crate::model::time::rfc3339_of;
use crate::model::{Child, Entry, Function, Links, Node, Section};
use crate::store::Store;
use crate::tree::glance::Glance;
use crate::tree::lock;
use crate::tree::resource::Resource;
use crate::tree::resource::{Capabilities, Edit};

/// Imports remembered for the entry view.
const KEPT: usize = 20;

/// `memory/import/`.
pub struct Import {
    store: Arc<Store>,
    links: Links,
    done: Mutex<Vec<String>>,
}

impl Import {
    pub fn new(store: Arc<Store>, links: Links) -> Self {
        Import {
            store,
            links,
            done: Mutex::new(Vec::new()),
        }
    }

    fn shown(&self, path: &[&str]) -> String {
        self.links.to(&format!("memory/import/{}", path.join("/")))
    }
}

impl Resource for Import {
    fn name(&self) -> &'static str {
        "import"
    }

    fn summary(&self) -> Result<String> {
        Ok("copy transcripts here to import them".into())
    }

    fn stat(&self, _glance: &Glance, path: &[&str]) -> Result<Node> {
        match path {
            [] => Ok(Node::dir(true)),
            _ => Err(Error::not_found(format!(
                "{} does not exist: files copied here are imported and do not stay; their \
                 sessions are under {}",
                self.shown(path),
                self.links.dir(&["memory", "sessions"])
            ))),
        }
    }

    fn list(&self, _glance: &Glance, _path: &[&str]) -> Result<Vec<Child>> {
        Ok(Vec::new())
    }

    fn read(&self, glance: &Glance, path: &[&str]) -> Result<Vec<u8>> {
        Err(self.stat(glance, path).err().unwrap_or_else(|| {
            Error::new(
                ErrorKind::IsADirectory,
                "memory/import is a directory: read its _entry.md",
            )
        }))
    }

    fn entry(&self, _glance: &Glance, _path: &[&str]) -> Result<Entry> {
        let done = lock(&self.done).clone();
        Ok(Entry {
            title: "memory/import — copy transcripts here to import them".into(),
            about: vec![
                "Claude Code session files, Codex CLI rollout files, Gemini CLI sessions, Aider chat histories and plain JSONL (ts, role or channel, content) are recognised from their content.".into(),
                "A file is imported whole or refused whole (every bad line listed in _errors.md); importing it again adds nothing.".into(),
            ],
            functions: vec![
                Function::new(
                    format!("cp ~/.claude/projects/<project>/<session>.jsonl {}", self.links.dir(&["memory", "import"])),
                    "import a Claude Code session",
                    "its sessions under memory/sessions/",
                ),
                Function::new(
                    "homespace import ~/.codex/sessions",
                    "import a whole folder (CLI)",
                    "a summary line; a progress bar on a terminal",
                ),
            ],
            sections: vec![Section {
                heading: "Imported through this mount, newest first".into(),
                items: done,
                empty: "Nothing yet.".into(),
                ..Section::default()
            }],
            ..Entry::default()
        })
    }

    fn capabilities(&self) -> Capabilities<'_> {
        Capabilities {
            edit: Some(self),
            ..Capabilities::default()
        }
    }
}

impl Edit for Import {
    fn too_big_hint(&self) -> Option<&'static str> {
        Some("a transcript of any size imports with `homespace import FILE`")
    }

    fn can_create(&self, path: &[&str]) -> Result<()> {
        match path {
            [_] => Ok(()),
            _ => Err(Error::not_permitted(format!(
                "{} cannot be made: copy transcript files directly into {}",
                self.shown(path),
                self.links.dir(&["memory", "import"])
            ))),
        }
    }

    fn write(&self, path: &[&str], content: &[u8], _base: Option<&[u8]>) -> Result<()> {
        let [name] = path else {
            return Err(self
                .can_create(path)
                .err()
                .unwrap_or_else(|| Error::invalid("bad path")));
        };
        let transcript = crate::transcripts::read(content, name).map_err(|refused| {
            Error::invalid(format!("{} was not imported: {refused}", self.shown(path)))
        })?;
        let imported = self.store.change_memory(|m| m.import(&transcript))?;
        let line = format!(
            "{} {name}: {} new session{}, {} entries added, {} already stored",
            rfc3339_of(std::time::SystemTime::now()),
            imported.sessions,
            plural(imported.sessions),
            imported.entries,
            imported.skipped
        );
        let mut done = lock(&self.done);
        done.insert(0, line);
        done.truncate(KEPT);
        Ok(())
    }
}
