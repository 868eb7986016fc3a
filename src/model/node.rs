//! What the tree is made of, as resources describe it: the kind of each path (directory,
//! view, document), what `stat` needs to know of it, whose data it is, a directory's
//! members with their one-line descriptions, and search hits.

use std::time::SystemTime;

/// Whose the data behind a path is, for the owner and modes `stat` shows (and the kernel
/// checks, with `--allow-other`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Ownership {
    /// The mount's own data (tasks, memory, generated views of them): the store file's
    /// owner and modes.
    #[default]
    Store,
    /// A file or directory of the project: its owner and permission bits.
    File { uid: u32, gid: u32, mode: u32 },
    /// Readable by the mount's owner only: search results quote files whose modes may not
    /// let others read them.
    OwnerOnly,
}

impl Ownership {
    /// The ownership of the file or directory described by `meta`.
    pub fn of(meta: &std::fs::Metadata) -> Ownership {
        use std::os::unix::fs::MetadataExt;
        Ownership::File {
            uid: meta.uid(),
            gid: meta.gid(),
            mode: meta.mode() & 0o777,
        }
    }
}

/// What a path holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Dir,
    /// Generated, read-only, within the budget.
    View,
    /// Exact data; reading and writing back the same bytes changes nothing.
    Document,
    /// A symbolic link: another name for a directory that recursive walkers (`grep -r`,
    /// `ls -R`, `find`) do not enter. Its content (what `read` returns) is its target,
    /// relative to the link's directory.
    Link,
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
    /// Reached through another name (a dotted path such as `source/pkg.mod`): changes are
    /// announced under the real path only, so the kernel must not keep this one.
    pub aliased: bool,
    /// Its content may not be final yet (a running test run's result): an open may wait
    /// for it (see [`crate::tree::pending`]), so the kernel must read it from the open
    /// file, never from pages or a size it kept.
    pub waits: bool,
    /// Its content changes with no change the tree announces — today's date (a search with
    /// `since:7d` at midnight), git's answers (a commit): the kernel must not keep it.
    pub dated: bool,
    /// The project file whose bytes this document is, exactly (a module's source, a
    /// package's data file), under its own name: a reader may be handed that file itself,
    /// and a read-only mount reads it by range.
    pub file: Option<std::path::PathBuf>,
}

impl Node {
    /// The same node, owned as `ownership` says.
    pub fn owned(self, ownership: Ownership) -> Self {
        Node { ownership, ..self }
    }
    /// The same node, whose content an open may wait for when `waits`.
    pub fn waiting(self, waits: bool) -> Self {
        Node { waits, ..self }
    }
    /// The same node, whose content depends on today's date when `dated`.
    pub fn dated(self, dated: bool) -> Self {
        Node { dated, ..self }
    }
    /// The same node, reached through another name when `aliased`.
    pub fn aliased(self, aliased: bool) -> Self {
        Node { aliased, ..self }
    }
    pub fn dir(writable: bool) -> Self {
        Node {
            kind: Kind::Dir,
            writable,
            size: None,
            mtime: None,
            ownership: Ownership::Store,
            aliased: false,
            waits: false,
            dated: false,
            file: None,
        }
    }
    pub fn view() -> Self {
        Node {
            kind: Kind::View,
            writable: false,
            size: None,
            mtime: None,
            ownership: Ownership::Store,
            aliased: false,
            waits: false,
            dated: false,
            file: None,
        }
    }
    /// A symbolic link (see [`Kind::Link`]), never written.
    pub fn link() -> Self {
        Node {
            kind: Kind::Link,
            ..Node::view()
        }
    }
    pub fn document(writable: bool) -> Self {
        Node {
            kind: Kind::Document,
            writable,
            size: None,
            mtime: None,
            ownership: Ownership::Store,
            aliased: false,
            waits: false,
            dated: false,
            file: None,
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
    /// The names and kinds of `children`: what `ls` keeps of a listing.
    pub fn names(children: Vec<Child>) -> Vec<(String, Kind)> {
        children.into_iter().map(|c| (c.name, c.kind)).collect()
    }

    pub fn new(name: impl Into<String>, kind: Kind, about: impl Into<String>) -> Self {
        Child {
            name: name.into(),
            kind,
            about: about.into(),
        }
    }
}

/// One search result: where, the line that matched, and what surrounds it when that is
/// what makes the hit useful (a remembered decision and the turns giving its reason).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Hit {
    /// Absolute path under the mountpoint of the file to read for more.
    pub path: String,
    /// One line: `bae.ai:42: def send(self, msg)` or `P1 fix-login: Fix the login form`.
    pub line: String,
    /// One line each, nearest last: what came just before the hit.
    pub before: Vec<String>,
    /// One line each, nearest first: what came just after the hit.
    pub after: Vec<String>,
}

/// Where a class or function named in a `def:` search is defined, and its code.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Definition {
    /// Absolute path under the mountpoint of its symbol file.
    pub path: String,
    /// Its module and lines: `ledger.accounts:90-96`.
    pub place: String,
    /// Its exact source, as its symbol file holds it.
    pub code: String,
}

impl Hit {
    pub fn new(path: String, line: String) -> Hit {
        Hit {
            path,
            line,
            ..Hit::default()
        }
    }

    /// The hit with at most `before` and `after` lines of its context, the nearest kept.
    pub fn narrowed(&self, before: usize, after: usize) -> Hit {
        let skip = self.before.len().saturating_sub(before);
        Hit {
            path: self.path.clone(),
            line: self.line.clone(),
            before: self.before[skip..].to_vec(),
            after: self.after.iter().take(after).cloned().collect(),
        }
    }
}

/// Search results of one area: the best hits and how many there were in all.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Hits {
    pub hits: Vec<Hit>,
    pub total: usize,
    /// How the hits were chosen, when it is not plain ranking (`ranked among the 10,000
    /// most recent matches`).
    pub note: Option<String>,
    /// Where a page ends whatever room is left, as counts of the first hits, ascending:
    /// after the hits holding every word of the query when others hold only some, and
    /// after what was said when tools' calls and output follow. A precise question reads
    /// only its best matches; the rest is a page away.
    pub breaks: Vec<usize>,
    /// The most hits a page of this area holds, when fewer than the search's default: hits
    /// that come with their neighbouring turns are read one by one, and a few answer.
    pub per_page: Option<usize>,
    /// Every match was read to make `hits`: they are all there are, fewer than `total`
    /// when repeated texts were folded into one hit, so no page follows the last of them.
    pub all_read: bool,
}
