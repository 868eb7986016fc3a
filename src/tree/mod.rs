//! The resource tree, free of FUSE: routing of paths to resources, inode numbers, open
//! files and editors' temp files, the generated views of every directory, and the error
//! log. [`Space`] is the whole filesystem as plain method calls returning plain structs,
//! one per kernel operation, each taking a request struct ([`LookupRequest`],
//! [`AttrRequest`], … : what the kernel tells of the call); its requests are in `space/`,
//! its parts in the files here. An operation that reads makes a [`glance::Glance`] and hands
//! it down to the resources' reads, so what one request looked up is shared by it alone. `crate::fuse` only translates those to and from the kernel.

pub mod access;
pub mod activity;
pub mod body;
pub mod errlog;
pub mod gate;
pub mod glance;
pub mod inodes;
pub mod invalidator;
pub mod kernel_cache;
pub mod pending;
pub mod resource;

mod holders;
mod listings;
mod open_files;
mod rendered;
mod space;
mod unchanged;

pub use listings::DirEntry;
pub use open_files::OpenFlags;
pub(crate) use space::named_files;
pub use space::{
    AccessRequest, Attr, AttrRequest, CHANGES_AT_ONCE, CreateRequest, FlushRequest, ListingPlus,
    LookupRequest, MkdirRequest, OpenRequest, OpenWait, Opened, Paging, ProjectInfo,
    ReadDirRequest, ReadRequest, RemoveRequest, RenameRequest, SetattrRequest, Space, StoreVersion,
};

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Mutex, MutexGuard};

use crate::error::{Error, Result};

/// Run one request, turning a panic into a failed request (logged): a bug or bad input in
/// one request fails that request, never the mount.
pub fn guarded<T>(op: &str, call: impl FnOnce() -> Result<T>) -> Result<T> {
    let _serving = activity::serving();
    match catch_unwind(AssertUnwindSafe(call)) {
        Ok(result) => result,
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            crate::log::line(&format!("panic in {op}: {what}"));
            Err(Error::internal(format!(
                "homespace failed inside {op}: {what}"
            )))
        }
    }
}

/// Lock `mutex`, recovering the data if a panicking request poisoned it: a panic fails
/// that one request (the FUSE adapter catches it), never every request after it.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
