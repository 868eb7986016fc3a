//! The state of open files and editors' temp files: the handles the kernel holds, the temp
//! files and new documents kept by the tree until they are saved or removed, and where
//! large ones spill to. Plain data behind locks; what opening, writing and saving mean is
//! in `space/handles.rs` and `space/changes.rs`.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::SystemTime;

use crate::error::ErrorKind;
use crate::model::{Fh, Ino, Kind, Ownership, TreePath};
use crate::tree::access::Perm;
use crate::tree::body::{Body, Spill};
use crate::tree::lock;

/// Files held by the tree at once (temp files and documents being created).
pub const MAX_SCRATCH_FILES: usize = 256;

/// The largest document a write may produce. Past it a write fails with `EFBIG`; the
/// limit keeps a runaway `cat /dev/zero > x` from eating the daemon's memory.
pub const MAX_DOCUMENT: usize = 8 * 1024 * 1024;

/// How a file is opened, from the `open(2)` flags.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OpenFlags {
    pub write: bool,
    pub truncate: bool,
    pub append: bool,
}

/// A file in memory: an editor's temp file, or a document being created whose content
/// has not been saved yet (`pending`).
#[derive(Debug)]
pub struct ScratchFile {
    pub content: Body,
    pub changed: SystemTime,
    /// A new document: saving routes it to its resource, and it vanishes if that fails.
    pub pending: bool,
    /// The document this is an editor's backup of, made by renaming it (vim).
    pub backup_of: Option<String>,
    /// Who made it, with which modes (`chmod` of a temp file changes them).
    pub ownership: Ownership,
}

/// One open file.
#[derive(Debug)]
pub struct Handle {
    pub ino: Ino,
    /// The process that opened it (0 when unknown).
    pub pid: u32,
    /// What the document held when opened for writing (for conflict checks).
    pub base: Option<Vec<u8>>,
    pub kind: Kind,
    pub writable: bool,
    pub path: TreePath,
    pub content: Body,
    /// Present when opened for writing.
    pub edit: Option<Edit>,
    /// The owner and modes shown for it while open.
    pub perm: Perm,
    /// Opened for writing by the mount's owner: saving it may run the project's code.
    pub by_owner: bool,
    /// Read through the kernel's page cache: what it reports may be kept by the kernel.
    pub cached: bool,
}

#[derive(Debug, Clone, Copy)]
pub struct Edit {
    /// The buffer differs from what was last saved (or the file was truncated or created).
    pub dirty: bool,
    /// Content arrived through this handle (a write or a truncate to a size).
    pub written: bool,
    /// Why a write was refused (too big, no room): the buffer is incomplete and must never
    /// be saved.
    pub broken: Option<ErrorKind>,
    pub append: bool,
}

/// The open handles and the files the tree holds itself.
#[derive(Debug)]
pub struct OpenFiles {
    handles: Mutex<HashMap<Fh, Handle>>,
    next_handle: Mutex<u64>,
    /// Editors' temp files and documents being created, by path.
    scratch: Mutex<BTreeMap<String, ScratchFile>>,
    spill: Arc<Spill>,
}

impl OpenFiles {
    /// Nothing open, large bodies spilling to `spill`.
    pub fn new(spill: Arc<Spill>) -> OpenFiles {
        OpenFiles {
            handles: Mutex::new(HashMap::new()),
            next_handle: Mutex::new(1),
            scratch: Mutex::new(BTreeMap::new()),
            spill,
        }
    }

    /// The open handles, by number.
    pub fn handles(&self) -> MutexGuard<'_, HashMap<Fh, Handle>> {
        lock(&self.handles)
    }

    /// The files the tree holds, by path.
    pub fn scratch(&self) -> MutexGuard<'_, BTreeMap<String, ScratchFile>> {
        lock(&self.scratch)
    }

    /// Where large bodies go.
    pub fn spill(&self) -> &Arc<Spill> {
        &self.spill
    }

    /// Keep `handle` open; returns its number.
    pub fn add(&self, handle: Handle) -> Fh {
        let mut next = lock(&self.next_handle);
        let fh = Fh(*next);
        *next += 1;
        self.handles().insert(fh, handle);
        fh
    }

    /// Whether the tree holds a file at `key`.
    pub fn has_scratch(&self, key: &str) -> bool {
        self.scratch().contains_key(key)
    }
}
