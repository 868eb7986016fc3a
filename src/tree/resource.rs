//! The `Resource` trait: what a resourcespace (source, tasks, memory, search) answers about
//! the paths below it. Paths are slices of name components relative to the resourcespace's
//! own directory (`[]` is that directory), so implementations can `match` on them.
//!
//! The generated files every directory has (`_entry.md`, `_nav.txt`) and editors' temp files
//! are the tree's business, not the resource's: a resource never sees those names.

use std::time::SystemTime;

use crate::error::{Error, Result};
use crate::render::entry::Entry;
use crate::tree::access::Ownership;

/// What a path holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Dir,
    /// Generated, read-only, within the budget.
    View,
    /// Exact data; reading and writing back the same bytes changes nothing.
    Document,
}

/// What the tree needs to know about one path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    pub kind: Kind,
    /// Whether the file can be written, or whether files can be created in the directory.
    pub writable: bool,
    /// Byte size when known without reading; `None` means the tree reads to find out.
    pub size: Option<u64>,
    /// Last change when the resource knows it; `None` means the tree tracks it by content.
    pub mtime: Option<SystemTime>,
    /// Whose data it is: decides the owner and modes `stat` shows.
    pub ownership: Ownership,
}

impl Node {
    /// The same node, owned as `ownership` says.
    pub fn owned(self, ownership: Ownership) -> Self {
        Node { ownership, ..self }
    }
    pub fn dir(writable: bool) -> Self {
        Node {
            kind: Kind::Dir,
            writable,
            size: None,
            mtime: None,
            ownership: Ownership::Store,
        }
    }
    pub fn view() -> Self {
        Node {
            kind: Kind::View,
            writable: false,
            size: None,
            mtime: None,
            ownership: Ownership::Store,
        }
    }
    pub fn document(writable: bool) -> Self {
        Node {
            kind: Kind::Document,
            writable,
            size: None,
            mtime: None,
            ownership: Ownership::Store,
        }
    }
}

/// One member of a directory, with the one line that describes it in entry views.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Child {
    pub name: String,
    pub kind: Kind,
    /// One line: what it is and how big (`P1 fix the login form (24 lines, ~180 tokens)`).
    pub about: String,
}

impl Child {
    pub fn new(name: impl Into<String>, kind: Kind, about: impl Into<String>) -> Self {
        Child {
            name: name.into(),
            kind,
            about: about.into(),
        }
    }
}

/// One search result: where, and the line that matched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    /// Absolute path under the mountpoint of the file to read for more.
    pub path: String,
    /// One line: `bae.ai:42: def send(self, msg)` or `P1 fix-login: Fix the login form`.
    pub line: String,
}

/// Search results of one area: the best hits and how many there were in all.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Hits {
    pub hits: Vec<Hit>,
    pub total: usize,
}

/// A resourcespace mounted under the root (`source/`, `tasks/`, ...).
///
/// Reads never change anything. Writes receive the whole content of a file at once (at
/// close, fsync or rename) and must validate it completely before changing anything:
/// a rejected write returns `ErrorKind::Invalid` listing every problem, and leaves all
/// state as it was.
pub trait Resource: Send + Sync {
    /// The directory name under the root: `tasks`.
    fn name(&self) -> &'static str;

    /// One line for the root dashboard: what this is and its live state.
    fn summary(&self) -> Result<String>;

    /// Lines for the root dashboard (e.g. the top outstanding tasks); may be empty.
    fn dashboard(&self) -> Result<Vec<String>> {
        Ok(Vec::new())
    }

    /// What is at `path`, or `ErrorKind::NotFound` with a message saying where to look.
    fn stat(&self, path: &[&str]) -> Result<Node>;

    /// The members of directory `path`, in display order.
    fn list(&self, path: &[&str]) -> Result<Vec<Child>>;

    /// The members' names and kinds only, for `ls` (which throws the descriptions away).
    /// Override when `list` does work per member that names do not need.
    fn names(&self, path: &[&str]) -> Result<Vec<(String, Kind)>> {
        Ok(self
            .list(path)?
            .into_iter()
            .map(|c| (c.name, c.kind))
            .collect())
    }

    /// The bytes of the view or document at `path`.
    fn read(&self, path: &[&str]) -> Result<Vec<u8>>;

    /// A reader opened the file at `path` (a `cat`, not a `stat` or a listing): the one
    /// moment a resource may note that it was used, e.g. as a recent search.
    fn opened(&self, _path: &[&str]) {}

    /// The entry view of directory `path` (the breadcrumb is added by the renderer).
    fn entry(&self, path: &[&str]) -> Result<Entry>;

    /// Replace or create the document at `path` with `content`, validated as a whole.
    fn write(&self, path: &[&str], _content: &[u8]) -> Result<()> {
        Err(read_only(path))
    }

    /// Like `write`, knowing what the file held when the writer opened it (`base`), so a
    /// resource whose data can also change elsewhere (the project on disk) can refuse to
    /// overwrite a change made in between instead of losing it silently.
    fn write_over(&self, path: &[&str], content: &[u8], _base: Option<&[u8]>) -> Result<()> {
        self.write(path, content)
    }

    /// Whether a new document may be created at `path` (checked when the file is created,
    /// before any content arrives); the content is validated later by `write`.
    fn can_create(&self, path: &[&str]) -> Result<()> {
        Err(read_only(path))
    }

    /// Delete the document or directory at `path`.
    fn remove(&self, path: &[&str]) -> Result<()> {
        Err(read_only(path))
    }

    /// Move `from` to `to` (both inside this resourcespace).
    fn rename(&self, from: &[&str], _to: &[&str]) -> Result<()> {
        Err(read_only(from))
    }

    /// Change the permission bits and/or owner of the file at `path` (only what is given
    /// changes). Where the file is not a file of the project, refuse with
    /// `ErrorKind::NotPermitted` and an empty message: the tree says what the modes follow.
    fn set_perm(
        &self,
        _path: &[&str],
        _mode: Option<u32>,
        _uid: Option<u32>,
        _gid: Option<u32>,
    ) -> Result<()> {
        Err(Error::not_permitted(""))
    }

    /// Make a directory at `path`.
    fn mkdir(&self, path: &[&str]) -> Result<()> {
        Err(Error::not_permitted(format!(
            "cannot make a directory at {}: nothing here is created by mkdir",
            path.join("/")
        )))
    }

    /// Search this area; `limit` bounds `hits`, `total` counts all matches.
    fn search(&self, _query: &str, _limit: usize) -> Result<Hits> {
        Ok(Hits::default())
    }
}

fn read_only(path: &[&str]) -> Error {
    Error::read_only(format!("{} cannot be changed", path.join("/")))
}
