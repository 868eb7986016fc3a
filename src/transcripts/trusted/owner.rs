//! Whose transcript files are read, and what a file must be to be read at all: the
//! owner's own regular file, writable by no one else ([`Owner::check`]); anything else
//! (a directory, a fifo, a device) is named in the refusal ([`not_regular`]).

use std::fs::Metadata;
use std::os::unix::fs::MetadataExt;

/// Whose files are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Owner {
    pub uid: u32,
    pub gid: u32,
}

impl Owner {
    /// The user this process runs as.
    pub fn this_process() -> Owner {
        // SAFETY: geteuid and getegid have no preconditions and cannot fail.
        let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
        Owner { uid, gid }
    }

    /// Why the file described by `meta` (of the open descriptor) is not the owner's own
    /// regular file, or `Ok`.
    pub fn check(&self, meta: &Metadata) -> Result<(), String> {
        if !meta.is_file() {
            return Err(format!("it is {}", not_regular(meta)));
        }
        if meta.uid() != self.uid {
            return Err(format!(
                "it is owned by uid {}, not by uid {} (the mount's owner): only the owner's \
                 own transcripts are imported",
                meta.uid(),
                self.uid
            ));
        }
        let mode = meta.mode() & 0o777;
        let group_of_others = mode & 0o020 != 0 && meta.gid() != self.gid;
        if mode & 0o002 != 0 || group_of_others {
            return Err(format!(
                "others may write it (mode {mode:o}): only transcripts no one else can \
                 change are imported; `chmod go-w` makes it the owner's alone"
            ));
        }
        Ok(())
    }
}

/// Why a path that is no regular file is not read.
pub fn not_regular(meta: &Metadata) -> String {
    use std::os::unix::fs::FileTypeExt;
    let kind = meta.file_type();
    let what = if kind.is_dir() {
        "a directory"
    } else if kind.is_fifo() {
        "a fifo"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_char_device() || kind.is_block_device() {
        "a device"
    } else {
        "not a regular file"
    };
    format!("{what}, not a transcript file: only regular files are read")
}
