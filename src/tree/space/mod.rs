//! [`Space`]: the whole filesystem as plain calls, composed of its parts (the inode
//! table, open files and temp files, listings, the error log, the kernel cache, the
//! rendering left for an open, the gate for changes, access). This file holds the parts
//! and the owner and modes a path shows; the requests are in the files beside it: where a
//! path leads (`route.rs`), what it holds (`views.rs`), its attributes and listings
//! (`attrs.rs`), open files and their handles (`handles.rs`), changes (`changes.rs`,
//! `modes.rs`), what a change reaches (`invalidation.rs`), failures (`failures.rs`) and
//! what their messages may quote (`quoted.rs`); what the kernel tells of each request is in
//! `requests.rs`. Nothing here knows about FUSE.

use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use crate::error::{Error, ErrorKind, Result};
use crate::model::Ownership;
use crate::model::links::Links;
use crate::model::names::{self, ENTRY};
use crate::model::{Ino, TreePath};
use crate::model::{Kind, Node};
use crate::render::nav::{NavSetting, NavShape};
use crate::tree::access::{Access, Perm};
use crate::tree::body::Spill;
use crate::tree::errlog::ErrorLog;
use crate::tree::inodes::Inodes;
use crate::tree::kernel_cache::{CacheMode, KernelCache};
use crate::tree::listings::Listings;
use crate::tree::lock;
use crate::tree::open_files::{MAX_DOCUMENT, MAX_SCRATCH_FILES, OpenFiles};
use crate::tree::rendered::LeftForOpen;
use crate::tree::resource::Resource;
use crate::tree::unchanged::KeptUnchanged;

mod attrs;
mod changes;
mod failures;
mod handles;
mod invalidation;
mod modes;
mod quoted;
mod requests;
mod route;
#[cfg(test)]
mod tests;
mod views;

pub use attrs::ListingPlus;
pub use handles::{Opened, Paging};
pub use invalidation::StoreVersion;
pub(crate) use quoted::named_files;
pub use requests::{
    AccessRequest, AttrRequest, CreateRequest, FlushRequest, LookupRequest, MkdirRequest,
    OpenRequest, OpenWait, ReadDirRequest, ReadRequest, RemoveRequest, RenameRequest,
    SetattrRequest,
};

/// What the root dashboard says about the project.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectInfo {
    pub name: String,
    pub path: String,
    /// The store as `--store` names it (never with a password), when it is not the
    /// project's default: a command run beside the mount must name it to see the same.
    pub store: Option<String>,
}

/// The attributes of one path, as `stat` shows them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attr {
    pub ino: Ino,
    pub kind: Kind,
    pub size: u64,
    pub mtime: SystemTime,
    pub writable: bool,
    /// The owner and modes `stat` shows (and the kernel checks, with `--allow-other`).
    pub perm: Perm,
    /// Whether the kernel may keep these attributes and the content: every change to
    /// them is announced (not so for a temp file, an open file or a path reached through
    /// another name).
    pub cacheable: bool,
    /// Reached past a folder some callers may not pass (a dotted name whose nested path
    /// crosses one): the kernel may not keep even the name for a moment, or another user
    /// would reuse the owner's lookup.
    pub per_caller: bool,
}

/// The mounted tree.
pub struct Space {
    links: Links,
    budget: usize,
    project: ProjectInfo,
    resources: Vec<Arc<dyn Resource>>,
    inodes: Mutex<Inodes>,
    /// Open handles and the temp files the tree holds.
    files: OpenFiles,
    /// Listings of open directories.
    listings: Listings,
    errors: ErrorLog,
    /// What the kernel and the daemon keep of the tree, and telling the kernel to drop it.
    kernel: KernelCache,
    /// Content just rendered for `stat`, for the `open` that usually follows.
    rendered: LeftForOpen,
    /// The listings `_nav.txt` views are drawn from, while nothing changes: every
    /// `_nav.txt` lists the folders on its way from the top with their siblings, so a
    /// recursive `ls -l` (which renders each for its size) would list `source/`'s top once
    /// per folder below it.
    nav_listings: KeptUnchanged<TreePath, Arc<Vec<(String, Kind)>>>,
    /// The project files inodes exactly are (`Node::file`), as their last stat found them
    /// while nothing changes: a read-only mount's kernel reads by inode without opening,
    /// and the read then goes straight to the file instead of finding the path again.
    exact_files: KeptUnchanged<Ino, std::path::PathBuf>,
    /// Changes in flight, fewer than the request threads (see [`crate::tree::gate`]).
    changes: crate::tree::gate::Gate,
    /// Who may change what (see [`crate::tree::access`]).
    access: Access,
    /// The owner and modes of the mount's own data: the store file's.
    store_perm: Perm,
    /// How `_nav.txt` is drawn now.
    nav: NavSetting,
    /// Folders `rm -r` is emptying (see [`Space::remove`]).
    emptying: changes::Emptying,
}

/// Bytes the spilled buffers and temp files may hold on disk in all: as many temp files as
/// may exist at once, each as large as a document may be.
const SPILL_CAP: u64 = (MAX_SCRATCH_FILES * MAX_DOCUMENT) as u64;

/// Changes let through at once; the FUSE adapter runs more request threads than this.
pub const CHANGES_AT_ONCE: usize = 4;

impl Space {
    /// A tree with `resources` under its root, links under `links`, views within `budget`.
    pub fn new(
        links: Links,
        budget: usize,
        project: ProjectInfo,
        resources: Vec<Arc<dyn Resource>>,
    ) -> Self {
        Space {
            links,
            budget,
            project,
            resources,
            inodes: Mutex::new(Inodes::new()),
            files: OpenFiles::new(Spill::new(std::env::temp_dir(), SPILL_CAP)),
            listings: Listings::default(),
            errors: ErrorLog::default(),
            kernel: KernelCache::new(CacheMode::Kept),
            rendered: LeftForOpen::default(),
            nav_listings: KeptUnchanged::new(1024),
            exact_files: KeptUnchanged::new(1 << 16),
            changes: crate::tree::gate::Gate::new(CHANGES_AT_ONCE),
            access: Access::this_process(),
            store_perm: Perm {
                uid: Access::this_process().owner,
                gid: Access::this_process().group,
                mode: 0o644,
            },
            nav: std::sync::Arc::new(NavShape::default),
            emptying: Default::default(),
        }
    }

    /// The same tree drawing `_nav.txt` as `nav` says at each draw.
    pub fn with_nav(mut self, nav: NavSetting) -> Self {
        self.nav = nav;
        self
    }

    /// The same tree with the kernel keeping what it is given as `mode` says.
    pub fn with_cache(mut self, mode: CacheMode) -> Self {
        self.kernel = KernelCache::new(mode);
        self
    }

    /// What the kernel keeps of the tree (the FUSE adapter reports lookups and forgets
    /// to it and attaches the notifier).
    pub fn kernel(&self) -> &KernelCache {
        &self.kernel
    }

    /// The same tree with large buffers and temp files spilling into `dir`.
    pub fn with_spill_dir(mut self, dir: std::path::PathBuf) -> Self {
        self.files = OpenFiles::new(Spill::new(dir, SPILL_CAP));
        self
    }

    /// Bytes of buffers and temp files held on disk now (a figure for the benchmark).
    pub fn spilled(&self) -> u64 {
        self.files.spill().on_disk()
    }

    /// The same tree with `access` deciding who may change it, and the mount's own data
    /// (tasks, memory, views of them) owned and moded as `store` says.
    pub fn with_access(mut self, access: Access, store: Perm) -> Self {
        self.access = access;
        self.store_perm = store;
        self
    }

    /// The owner and modes of the project's directory; the owner's alone when it cannot be
    /// examined (never more open than the project itself).
    fn project_ownership(&self) -> Ownership {
        std::fs::metadata(&self.project.path)
            .map(|meta| Ownership::of(&meta))
            .unwrap_or(Ownership::OwnerOnly)
    }

    /// The owner and modes `stat` shows for `node`.
    pub(crate) fn perm_of(&self, node: &Node) -> Perm {
        let base = self.perm_of_ownership(node.ownership);
        let shaped = if node.kind == Kind::Dir {
            base.as_dir()
        } else {
            base.as_file()
        };
        if node.writable {
            shaped
        } else {
            shaped.read_only()
        }
    }

    /// The owner and modes of `ownership`, before the shape of a node is given to them.
    fn perm_of_ownership(&self, ownership: Ownership) -> Perm {
        match ownership {
            Ownership::Store => self.store_perm,
            Ownership::File { uid, gid, mode } => Perm { uid, gid, mode },
            Ownership::OwnerOnly => Perm {
                uid: self.access.owner,
                gid: self.access.group,
                mode: 0o600,
            },
        }
    }

    pub fn links(&self) -> &Links {
        &self.links
    }

    /// How many inode numbers are handed out (a memory figure for the benchmark).
    pub fn inode_count(&self) -> usize {
        lock(&self.inodes).len()
    }

    // ---- paths and inodes -------------------------------------------------------------

    pub(crate) fn path_of(&self, ino: Ino) -> Result<TreePath> {
        let inodes = lock(&self.inodes);
        let path = inodes
            .path_of(ino)
            .ok_or_else(|| Error::not_found(format!("no file has inode {ino}")))?;
        Ok(TreePath::parse(path))
    }

    pub(crate) fn ino_of(&self, path: &TreePath) -> Ino {
        lock(&self.inodes).ino_of(path.as_str())
    }
}

pub(crate) fn check_name(name: &str) -> Result<()> {
    if name.len() > names::NAME_MAX {
        return Err(Error::new(
            ErrorKind::NameTooLong,
            format!(
                "a name may have at most {} bytes; this one has {}",
                names::NAME_MAX,
                name.len()
            ),
        ));
    }
    if name.is_empty() || name.contains('/') || name.contains('\0') {
        return Err(Error::invalid(format!("{name:?} is not a valid name")));
    }
    Ok(())
}

pub(crate) fn not_a_dir(links: &Links, path: &TreePath) -> Error {
    Error::new(
        ErrorKind::NotADirectory,
        format!("{} is a file, not a directory", links.to(path.as_str())),
    )
}

pub(crate) fn is_a_dir(links: &Links, path: &TreePath) -> Error {
    Error::new(
        ErrorKind::IsADirectory,
        format!(
            "{} is a directory: read {}",
            links.dir(&path.names().collect::<Vec<_>>()),
            links.to(path.join(ENTRY).as_str())
        ),
    )
}

impl Space {
    /// The resourcespace mounted as `name` (for tests and tools built on the library).
    pub fn resource_named(&self, name: &str) -> Option<Arc<dyn Resource>> {
        self.resource(name)
    }
}
