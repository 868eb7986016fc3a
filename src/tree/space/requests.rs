//! The requests [`Space`] answers: one struct per kernel operation, holding what the kernel
//! tells of the call (the inode, the open handle if there is one, the process, who asks).
//! Each has a constructor for what every caller knows and builders for the rest, so a
//! caller in this process (a test, a tool) names only what it knows, and one method per
//! operation decides what the rest means. `write` (a handle, an offset, the bytes),
//! `release`, `readlink`, `opendir` and `releasedir` (a handle or an inode alone) take
//! their arguments as they are: nothing in them varies with what the caller knows.
//!
//! [`Space`]: crate::tree::Space

use crate::model::{Fh, Ino};
use crate::tree::access::Caller;
use crate::tree::open_files::OpenFlags;

/// A `lookup` of `name` in directory `parent`.
#[derive(Debug, Clone, Copy)]
pub struct LookupRequest<'a> {
    pub parent: Ino,
    pub name: &'a str,
    /// Who asks, when the kernel said: with `--allow-other`, a name reached otherwise than
    /// by its nested path is refused to a caller that path would not let through. `None`:
    /// this process, which nothing refuses.
    pub caller: Option<Caller>,
}

impl<'a> LookupRequest<'a> {
    /// Look `name` up in `parent` for this process.
    pub fn new(parent: Ino, name: &'a str) -> Self {
        LookupRequest {
            parent,
            name,
            caller: None,
        }
    }

    /// The same lookup for `caller`.
    pub fn by(self, caller: Caller) -> Self {
        LookupRequest {
            caller: Some(caller),
            ..self
        }
    }
}

/// A `getattr` of `ino`.
#[derive(Debug, Clone, Copy)]
pub struct AttrRequest {
    pub ino: Ino,
    /// The open file asked through (`fstat`): it reports what it will read or what has
    /// been written to it so far.
    pub fh: Option<Fh>,
    /// The process asking (0 when unknown): one that holds the file open for reading sees
    /// what it reads.
    pub pid: u32,
}

impl AttrRequest {
    /// The attributes of `ino` as the path shows them now.
    pub fn new(ino: Ino) -> Self {
        AttrRequest {
            ino,
            fh: None,
            pid: 0,
        }
    }

    /// The same, asked by process `pid`.
    pub fn by(self, pid: u32) -> Self {
        AttrRequest { pid, ..self }
    }

    /// The same, asked through the open file `fh`.
    pub fn through(self, fh: Fh) -> Self {
        AttrRequest {
            fh: Some(fh),
            ..self
        }
    }
}

/// A `setattr` of `ino`: a new size, modes or owner. Times are not kept (the content
/// decides them), so a request carries none.
#[derive(Debug, Clone, Copy)]
pub struct SetattrRequest {
    pub ino: Ino,
    /// The open file truncated through (`ftruncate`): its buffer changes, and is saved at
    /// close.
    pub fh: Option<Fh>,
    pub size: Option<u64>,
    pub mode: Option<u32>,
    pub uid: Option<u32>,
    pub gid: Option<u32>,
    /// Who asks: a change must be admitted (see [`crate::tree::access`]).
    pub caller: Caller,
}

impl SetattrRequest {
    /// Change nothing of `ino` yet, for `caller`.
    pub fn new(ino: Ino, caller: Caller) -> Self {
        SetattrRequest {
            ino,
            fh: None,
            size: None,
            mode: None,
            uid: None,
            gid: None,
            caller,
        }
    }

    /// The same, truncating or extending the file to `size` bytes.
    pub fn size(self, size: u64) -> Self {
        SetattrRequest {
            size: Some(size),
            ..self
        }
    }
}

/// An `open` as the kernel asks for it: which inode, how, for whom, and whether the opener
/// may be told to wait for content that is not final yet.
#[derive(Debug, Clone, Copy)]
pub struct OpenRequest {
    pub ino: Ino,
    pub flags: OpenFlags,
    pub caller: Caller,
    pub wait: OpenWait,
}

impl OpenRequest {
    /// Open `ino` with `flags` for `caller`, as the content is now.
    pub fn new(ino: Ino, flags: OpenFlags, caller: Caller) -> Self {
        OpenRequest {
            ino,
            flags,
            caller,
            wait: OpenWait::Never,
        }
    }
}

/// What an open does when a reader opens what is not final yet (see
/// [`crate::tree::pending`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpenWait {
    /// Opens it as it is now: a caller in this process has no kernel to wait in.
    Never,
    /// Answers [`crate::tree::Opened::Wait`]; once the wait is over, open again with `Over`.
    May,
    /// The wait is over: the content is rendered now, never taken from a rendering made
    /// before the wait.
    Over,
}

/// An `access` check of `ino`: whether it is there, and whether it may be written.
#[derive(Debug, Clone, Copy)]
pub struct AccessRequest {
    pub ino: Ino,
    /// `W_OK` (`test -w`): views and read-only places say no, as their modes do.
    pub write: bool,
}

impl AccessRequest {
    /// Whether `ino` is there (reading and entering are the modes' to decide).
    pub fn new(ino: Ino) -> Self {
        AccessRequest { ino, write: false }
    }

    /// Whether `ino` may be written.
    pub fn write(ino: Ino) -> Self {
        AccessRequest { ino, write: true }
    }
}

/// A `read` of up to `size` bytes of `ino` from `offset`.
#[derive(Debug, Clone, Copy)]
pub struct ReadRequest {
    pub ino: Ino,
    /// The open file read from; `None` for a kernel that does not open files (a read-only
    /// mount; see the FUSE adapter), which reads the path as it is.
    pub fh: Option<Fh>,
    pub offset: u64,
    pub size: u32,
}

impl ReadRequest {
    /// Read `ino` without opening it.
    pub fn new(ino: Ino, offset: u64, size: u32) -> Self {
        ReadRequest {
            ino,
            fh: None,
            offset,
            size,
        }
    }

    /// The same, from the open file `fh`.
    pub fn through(self, fh: Fh) -> Self {
        ReadRequest {
            fh: Some(fh),
            ..self
        }
    }
}

/// A `readdir` of directory `ino` from `offset` on.
#[derive(Debug, Clone, Copy)]
pub struct ReadDirRequest {
    pub ino: Ino,
    /// The open directory read from; `None` when the kernel keeps listings and does not
    /// open directories (see [`crate::tree::Space::open_dir`]).
    pub fh: Option<Fh>,
    pub offset: u64,
}

impl ReadDirRequest {
    /// The whole listing of `ino`, without opening it.
    pub fn new(ino: Ino) -> Self {
        ReadDirRequest {
            ino,
            fh: None,
            offset: 0,
        }
    }
}

/// A `flush` (each `close` of a descriptor) or `fsync` of the open file `fh`.
#[derive(Debug, Clone, Copy)]
pub struct FlushRequest {
    pub fh: Fh,
    /// The process closing a descriptor of it (0 when unknown, or for an `fsync`): a file
    /// only truncated or created is saved at a close only when that process holds no
    /// other descriptor of it.
    pub pid: u32,
}

impl FlushRequest {
    /// Save what `fh` holds if something was written to it (`fsync`).
    pub fn new(fh: Fh) -> Self {
        FlushRequest { fh, pid: 0 }
    }

    /// The same, for a `close` by process `pid`.
    pub fn by(self, pid: u32) -> Self {
        FlushRequest { pid, ..self }
    }
}

/// A `create` of `name` in directory `parent`, opened for writing.
#[derive(Debug, Clone, Copy)]
pub struct CreateRequest<'a> {
    pub parent: Ino,
    pub name: &'a str,
    /// Who asks: the new file is theirs, and the change must be admitted.
    pub caller: Caller,
    /// Permission bits, already masked by the caller's umask.
    pub mode: u32,
    /// `O_EXCL`: refused when the name exists (else that file is opened, truncated).
    pub exclusive: bool,
}

impl<'a> CreateRequest<'a> {
    /// Create `name` in `parent` for `caller` as `touch` would under the usual umask
    /// (`0o644`), opening the file there if there is one.
    pub fn new(parent: Ino, name: &'a str, caller: Caller) -> Self {
        CreateRequest {
            parent,
            name,
            caller,
            mode: 0o644,
            exclusive: false,
        }
    }

    /// The same, refused when the name exists.
    pub fn exclusive(self) -> Self {
        CreateRequest {
            exclusive: true,
            ..self
        }
    }
}

/// A `mkdir` of `name` in directory `parent` for `caller`.
#[derive(Debug, Clone, Copy)]
pub struct MkdirRequest<'a> {
    pub parent: Ino,
    pub name: &'a str,
    pub caller: Caller,
}

/// An `unlink` or `rmdir` of `name` in directory `parent` for `caller`.
#[derive(Debug, Clone, Copy)]
pub struct RemoveRequest<'a> {
    pub parent: Ino,
    pub name: &'a str,
    /// `rmdir`: the name must be a directory; else (`unlink`) it must not be one.
    pub dir: bool,
    pub caller: Caller,
}

impl<'a> RemoveRequest<'a> {
    /// `unlink` of the file `name` in `parent`.
    pub fn file(parent: Ino, name: &'a str, caller: Caller) -> Self {
        RemoveRequest {
            parent,
            name,
            dir: false,
            caller,
        }
    }

    /// `rmdir` of the directory `name` in `parent`.
    pub fn dir(parent: Ino, name: &'a str, caller: Caller) -> Self {
        RemoveRequest {
            dir: true,
            ..RemoveRequest::file(parent, name, caller)
        }
    }
}

/// A `rename` of `name` in `parent` to `new_name` in `new_parent` for `caller`.
#[derive(Debug, Clone, Copy)]
pub struct RenameRequest<'a> {
    pub parent: Ino,
    pub name: &'a str,
    pub new_parent: Ino,
    pub new_name: &'a str,
    /// `RENAME_NOREPLACE`: refused when `new_name` exists.
    pub no_replace: bool,
    pub caller: Caller,
}

impl<'a> RenameRequest<'a> {
    /// Move `name` to `new_name` within directory `parent`, replacing what is there.
    pub fn within(parent: Ino, name: &'a str, new_name: &'a str, caller: Caller) -> Self {
        RenameRequest {
            parent,
            name,
            new_parent: parent,
            new_name,
            no_replace: false,
            caller,
        }
    }
}
