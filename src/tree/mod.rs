//! The resource tree, free of FUSE: routing of paths to resources, inode numbers, open
//! files and editors' temp files, the generated views of every directory, and the error
//! log. [`Space`] is the whole filesystem as plain method calls returning plain structs;
//! `crate::fuse` only translates those to and from the kernel.

pub mod errlog;
pub mod inodes;
pub mod links;
pub mod names;
pub mod resource;

mod changes;
mod files;
mod place;
mod space;

pub use files::OpenFlags;
pub use space::{Attr, DirEntry, ProjectInfo, Space};

use std::sync::{Mutex, MutexGuard};

/// Lock `mutex`, recovering the data if a panicking request poisoned it: a panic fails
/// that one request (the FUSE adapter catches it), never every request after it.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}
