//! Writing the project's files safely: every write goes to a temp file in the same
//! directory, is synced, keeps the old file's mode, and replaces the file by rename — so
//! a daemon killed at any moment leaves the file old or new, never half-written. Writes
//! to one file are serialized by a per-file lock, held across read-modify-write.

use std::collections::HashMap;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, PoisonError};

use crate::error::{Error, Result};
use crate::model::Ownership;
use crate::tree::glance::Glance;
use crate::tree::lock;

/// Per-file locks for the project's files.
#[derive(Debug, Default)]
pub struct FileLocks {
    locks: Mutex<HashMap<PathBuf, Arc<FileLock>>>,
}

/// One file's lock. Not a bare `Mutex<()>`: its guard would borrow the mutex, and a change
/// must own the guards of every file it touches for as long as it runs.
#[derive(Debug, Default)]
struct FileLock {
    held: Mutex<bool>,
    released: Condvar,
}

/// A held file lock; dropping it releases the file.
#[derive(Debug)]
pub struct FileGuard {
    lock: Arc<FileLock>,
}

impl FileLocks {
    /// Lock every file of `paths`, each once, in one fixed order (sorted by path), and hold
    /// them until the guards are dropped. Two callers locking overlapping sets take the
    /// shared files in the same order, so neither can hold one the other waits for; a path
    /// named twice (a package's `__init__.py` being both the module and the file that
    /// exposes it) is not waited for by its own holder.
    pub fn lock_all(&self, paths: &[&Path]) -> Vec<FileGuard> {
        let mut sorted = paths.to_vec();
        sorted.sort();
        sorted.dedup();
        sorted.into_iter().map(|path| self.lock(path)).collect()
    }

    fn lock(&self, path: &Path) -> FileGuard {
        let file = Arc::clone(lock(&self.locks).entry(path.to_path_buf()).or_default());
        let mut held = lock(&file.held);
        while *held {
            held = file
                .released
                .wait(held)
                .unwrap_or_else(PoisonError::into_inner);
        }
        *held = true;
        drop(held);
        FileGuard { lock: file }
    }
}

impl Drop for FileGuard {
    fn drop(&mut self) {
        *lock(&self.lock.held) = false;
        self.lock.released.notify_one();
    }
}

/// Replace (or create) `path` with `content` atomically, keeping the existing mode and
/// owner (a daemon running as root must not take a file from the user it belongs to). The
/// temp file is made in `scratch` (the project's `.homespace/tmp/`, so a daemon killed
/// mid-write leaves nothing among the project's files), or beside `path` when `scratch` is
/// on another filesystem (rename cannot cross filesystems).
pub fn write_atomic(path: &Path, content: &[u8], scratch: &Path) -> Result<()> {
    let dir = path
        .parent()
        .ok_or_else(|| Error::internal(format!("{} has no parent directory", path.display())))?;
    let fail = |what: &str, e: std::io::Error| {
        Error::internal(format!("could not {what} {}: {e}", path.display()))
    };
    let existing = std::fs::metadata(path).ok();
    let mode = existing
        .as_ref()
        .map(|m| m.permissions().mode())
        .unwrap_or(0o644);
    let _ = std::fs::create_dir_all(scratch);
    let same_fs = same_filesystem(scratch, dir);
    let mut temp = tempfile::Builder::new()
        .prefix(".homespace-")
        .suffix(".tmp")
        .tempfile_in(if same_fs { scratch } else { dir })
        .map_err(|e| fail("create a temp file for", e))?;
    temp.write_all(content).map_err(|e| fail("write", e))?;
    temp.as_file().sync_all().map_err(|e| fail("sync", e))?;
    if let Some(meta) = &existing {
        use std::os::unix::fs::MetadataExt;
        // Before the mode: chown clears setuid bits. Refused when not root, where the file
        // can only have been ours (or a group's we are in) anyway; nothing is lost then.
        let _ = std::os::unix::fs::fchown(temp.as_file(), Some(meta.uid()), Some(meta.gid()));
    }
    std::fs::set_permissions(temp.path(), std::fs::Permissions::from_mode(mode))
        .map_err(|e| fail("set the mode of", e))?;
    temp.persist(path).map_err(|e| fail("replace", e.error))?;
    Ok(())
}

fn same_filesystem(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev(),
        _ => false,
    }
}

/// Remove temp files a killed daemon left in `scratch` (older than a minute, so a second
/// mount of the same project writing right now keeps its own).
pub fn sweep(scratch: &Path) {
    let Ok(entries) = std::fs::read_dir(scratch) else {
        return;
    };
    for entry in entries.flatten() {
        let old = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age.as_secs() > 60);
        if old
            && entry
                .file_name()
                .to_string_lossy()
                .starts_with(".homespace-")
        {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Apply `chmod` (`mode`) and/or `chown` (`uid`, `gid`) to the project file at `path`.
pub fn set_perm(path: &Path, mode: Option<u32>, uid: Option<u32>, gid: Option<u32>) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let failed = |what: &str, e: std::io::Error| {
        let kind = match e.kind() {
            std::io::ErrorKind::PermissionDenied => crate::error::ErrorKind::NotPermitted,
            std::io::ErrorKind::NotFound => crate::error::ErrorKind::NotFound,
            _ => crate::error::ErrorKind::Internal,
        };
        Error::new(kind, format!("{what} of {} failed: {e}", path.display()))
    };
    if uid.is_some() || gid.is_some() {
        std::os::unix::fs::chown(path, uid, gid).map_err(|e| failed("chown", e))?;
    }
    if let Some(mode) = mode {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
            .map_err(|e| failed("chmod", e))?;
    }
    Ok(())
}

/// Delete `path`.
pub fn remove(path: &Path) -> Result<()> {
    std::fs::remove_file(path)
        .map_err(|e| Error::internal(format!("could not remove {}: {e}", path.display())))
}

/// The owner and modes of the project file or directory at `disk`. One that cannot be
/// read shows as the mount owner's alone: never more open than the file itself.
pub(crate) fn ownership(glance: Option<&Glance>, disk: &Path) -> Ownership {
    crate::tree::glance::metadata(glance, disk)
        .map(|meta| Ownership::of(&meta))
        .unwrap_or(Ownership::OwnerOnly)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::access::Caller;

    #[test]
    fn writes_replace_whole_files_and_keep_the_mode() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("m.py");
        std::fs::write(&file, "old\n").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755)).unwrap();
        let scratch = dir.path().join(".homespace/tmp");
        write_atomic(&file, b"new\n", &scratch).unwrap();
        assert_eq!(std::fs::read(&file).unwrap(), b"new\n");
        assert_eq!(
            std::fs::metadata(&file).unwrap().permissions().mode() & 0o777,
            0o755
        );
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(
            names.len(),
            2,
            "m.py and .homespace/, no temp file: {names:?}"
        );
        assert_eq!(
            std::fs::read_dir(&scratch).unwrap().count(),
            0,
            "the temp file was renamed"
        );
        if Caller::this_process().uid == 0 {
            std::os::unix::fs::chown(&file, Some(4321), Some(4321)).unwrap();
            write_atomic(&file, b"newer\n", &scratch).unwrap();
            let meta = std::fs::metadata(&file).unwrap();
            use std::os::unix::fs::MetadataExt;
            assert_eq!((meta.uid(), meta.gid()), (4321, 4321), "the owner is kept");
        }
        write_atomic(&dir.path().join("new.py"), b"x = 1\n", &scratch).unwrap();
        assert_eq!(
            std::fs::metadata(dir.path().join("new.py"))
                .unwrap()
                .permissions()
                .mode()
                & 0o777,
            0o644
        );
    }
}
