//! What the kernel is told of an inode: its file type (the one place the core's [`Kind`]
//! becomes a `fuser::FileType`), its attributes, and how long it may keep them.

use std::time::Duration;

use fuser::{FileAttr, FileType, INodeNo};

use crate::model::Kind;
use crate::tree::Attr;

/// How long the kernel may keep names and attributes when every change to them is
/// announced (see [`crate::tree::kernel_cache`]): long, since invalidation keeps them right;
/// bounded, so that a change missed (an inotify queue overflow) cannot last.
const KEPT_TTL: Duration = Duration::from_secs(60);
/// With caching off (`--no-cache`), or for what changes unannounced (temp files, paths
/// reached through a dotted name): directories for a moment, files not at all.
const DIR_TTL: Duration = Duration::from_secs(1);
const FILE_TTL: Duration = Duration::ZERO;

/// The kernel's file type for a kind of inode.
pub(super) fn file_type(kind: Kind) -> FileType {
    match kind {
        Kind::Dir => FileType::Directory,
        Kind::Link => FileType::Symlink,
        Kind::View | Kind::Document => FileType::RegularFile,
    }
}

/// The attributes `stat` shows.
pub(super) fn file_attr(attr: &Attr) -> FileAttr {
    // A directory's `..` and `.` count as links to it; nothing here is hard-linked.
    let nlink = match attr.kind {
        Kind::Dir => 2,
        _ => 1,
    };
    // A link's own modes mean nothing on Linux; `ls -l` shows them as a disk's.
    let perm = match attr.kind {
        Kind::Link => 0o777,
        _ => attr.perm.mode as u16,
    };
    FileAttr {
        ino: INodeNo(attr.ino.0),
        size: attr.size,
        blocks: attr.size.div_ceil(512),
        atime: attr.mtime,
        mtime: attr.mtime,
        ctime: attr.mtime,
        crtime: attr.mtime,
        kind: file_type(attr.kind),
        perm,
        nlink,
        uid: attr.perm.uid,
        gid: attr.perm.gid,
        rdev: 0,
        blksize: 4096,
        flags: 0,
    }
}

/// How long the kernel may keep `attr` (and the name that led to it); `kept`: whether it
/// keeps what it is given at all (not `--no-cache`).
pub(super) fn ttl(attr: &Attr, kept: bool) -> Duration {
    if attr.per_caller {
        Duration::ZERO
    } else if kept && attr.cacheable {
        KEPT_TTL
    } else if attr.kind == Kind::Dir {
        DIR_TTL
    } else {
        FILE_TTL
    }
}
