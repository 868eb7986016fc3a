//! The one error type of the core: what kind of failure it was (mapped exhaustively to an
//! errno by [`ErrorKind::errno`]) and a human-readable message saying what failed, why, and
//! where to go instead. Messages carry no error codes: their reader is an agent or a person.

use std::fmt;

/// What kind of failure; decides the errno a caller of the filesystem sees.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The name does not exist here.
    NotFound,
    /// The content or request was refused by validation (bad JSON, bad Python, bad name...).
    Invalid,
    /// The target name is taken.
    Exists,
    /// A directory that still has members cannot be removed.
    NotEmpty,
    /// Generated views and read-only places cannot be written.
    ReadOnly,
    /// The content is larger than the documented limit.
    TooBig,
    /// A name component is longer than the filesystem allows.
    NameTooLong,
    /// The room for files held in memory (editors' temp files) is used up.
    NoSpace,
    /// A file was used where a directory is needed.
    NotADirectory,
    /// A directory was used where a file is needed.
    IsADirectory,
    /// The operation has no meaning at this place (e.g. `mkdir` where nothing can be made).
    NotPermitted,
    /// Something is in the way right now (a lock, a running job); trying again may work.
    Busy,
    /// The caller may not do this here (another user than the mount's owner).
    PermissionDenied,
    /// A shared store (PostgreSQL) cannot be reached now; the mount reconnects by itself.
    Unavailable,
    /// Our own failure: the disk, the store, a bug. Never used for a user's mistake.
    Internal,
}

impl ErrorKind {
    /// The errno for this kind. Exhaustive on purpose: a new kind must choose its errno.
    pub fn errno(self) -> i32 {
        match self {
            ErrorKind::NotFound => libc::ENOENT,
            ErrorKind::Invalid => libc::EINVAL,
            ErrorKind::Exists => libc::EEXIST,
            ErrorKind::NotEmpty => libc::ENOTEMPTY,
            ErrorKind::ReadOnly => libc::EROFS,
            ErrorKind::TooBig => libc::EFBIG,
            ErrorKind::NameTooLong => libc::ENAMETOOLONG,
            ErrorKind::NoSpace => libc::ENOSPC,
            ErrorKind::NotADirectory => libc::ENOTDIR,
            ErrorKind::IsADirectory => libc::EISDIR,
            // EPERM rather than ENOTSUP: shells print "Operation not permitted", which reads
            // right for "this cannot be done here", and file managers handle it gracefully.
            ErrorKind::NotPermitted => libc::EPERM,
            ErrorKind::Busy => libc::EBUSY,
            ErrorKind::PermissionDenied => libc::EACCES,
            // "Resource temporarily unavailable": what it is, and trying again later works.
            ErrorKind::Unavailable => libc::EAGAIN,
            ErrorKind::Internal => libc::EIO,
        }
    }
}

/// A failed request: its kind and the message a user reads in `_errors.md`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub kind: ErrorKind,
    pub message: String,
}

/// The result type of the core.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error {
            kind,
            message: message.into(),
        }
    }
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::NotFound, message)
    }
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Invalid, message)
    }
    pub fn exists(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Exists, message)
    }
    pub fn read_only(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::ReadOnly, message)
    }
    pub fn not_permitted(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::NotPermitted, message)
    }
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Internal, message)
    }
    pub fn errno(&self) -> i32 {
        self.kind.errno()
    }

    /// The same failure, saying which thing it is about first (`task fix-login: …`).
    pub fn context(self, about: &str) -> Self {
        Error {
            kind: self.kind,
            message: format!("{about}: {}", self.message),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every kind but `Internal`.
    const MISTAKES: [ErrorKind; 14] = [
        ErrorKind::NotFound,
        ErrorKind::Invalid,
        ErrorKind::Exists,
        ErrorKind::NotEmpty,
        ErrorKind::ReadOnly,
        ErrorKind::TooBig,
        ErrorKind::NameTooLong,
        ErrorKind::NoSpace,
        ErrorKind::NotADirectory,
        ErrorKind::IsADirectory,
        ErrorKind::NotPermitted,
        ErrorKind::Busy,
        ErrorKind::PermissionDenied,
        ErrorKind::Unavailable,
    ];

    #[test]
    fn user_mistakes_never_map_to_eio() {
        for kind in MISTAKES {
            assert_ne!(kind.errno(), libc::EIO, "{kind:?}");
        }
        assert_eq!(Error::invalid("x").errno(), libc::EINVAL);
    }

    #[test]
    fn every_errno_the_mount_returns_is_documented() {
        let table = include_str!("../docs/errors.md");
        let names = [
            (libc::ENOENT, "ENOENT"),
            (libc::EINVAL, "EINVAL"),
            (libc::EEXIST, "EEXIST"),
            (libc::ENOTEMPTY, "ENOTEMPTY"),
            (libc::EROFS, "EROFS"),
            (libc::EFBIG, "EFBIG"),
            (libc::ENAMETOOLONG, "ENAMETOOLONG"),
            (libc::ENOSPC, "ENOSPC"),
            (libc::ENOTDIR, "ENOTDIR"),
            (libc::EISDIR, "EISDIR"),
            (libc::EPERM, "EPERM"),
            (libc::EBUSY, "EBUSY"),
            (libc::EACCES, "EACCES"),
            (libc::EAGAIN, "EAGAIN"),
            (libc::EIO, "EIO"),
        ];
        for kind in MISTAKES.into_iter().chain([ErrorKind::Internal]) {
            let (_, name) = names
                .iter()
                .find(|(errno, _)| *errno == kind.errno())
                .unwrap_or_else(|| panic!("{kind:?}: name its errno in this test"));
            assert!(
                table.contains(&format!("| `{name}` |")),
                "{kind:?}: docs/errors.md has no row for {name}"
            );
        }
    }
}
