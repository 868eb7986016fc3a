//! Writing the project's files safely: every write goes to a temp file in the same
//! directory, is synced, keeps the old file's mode, and replaces the file by rename — so
//! a daemon killed at any moment leaves the file old or new, never half-written. Writes
//! to one file are serialized by a per-file lock, held across read-modify-write.

use std::collections::HashMap;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::error::{Error, Result};
use crate::tree::lock;

/// Per-file locks for the project's files.
#[derive(Debug, Default)]
pub struct FileLocks {
    locks: Mutex<HashMap<PathBuf, Arc<Mutex<()>>>>,
}

impl FileLocks {
    /// The lock of `path`; hold its guard across reading, changing and writing the file.
    pub fn of(&self, path: &Path) -> Arc<Mutex<()>> {
        Arc::clone(lock(&self.locks).entry(path.to_path_buf()).or_default())
    }
}

/// Replace (or create) `path` with `content` atomically, keeping the existing mode.
pub fn write_atomic(path: &Path, content: &[u8]) -> Result<()> {
    let dir = path
        .parent()
        .ok_or_else(|| Error::internal(format!("{} has no parent directory", path.display())))?;
    let fail = |what: &str, e: std::io::Error| {
        Error::internal(format!("could not {what} {}: {e}", path.display()))
    };
    let mode = std::fs::metadata(path).map(|m| m.permissions().mode()).ok();
    let mut temp = tempfile::Builder::new()
        .prefix(".homespace-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(|e| fail("create a temp file beside", e))?;
    temp.write_all(content).map_err(|e| fail("write", e))?;
    temp.as_file().sync_all().map_err(|e| fail("sync", e))?;
    let mode = mode.unwrap_or(0o644);
    std::fs::set_permissions(temp.path(), std::fs::Permissions::from_mode(mode))
        .map_err(|e| fail("set the mode of", e))?;
    temp.persist(path).map_err(|e| fail("replace", e.error))?;
    Ok(())
}

/// Delete `path`.
pub fn remove(path: &Path) -> Result<()> {
    std::fs::remove_file(path)
        .map_err(|e| Error::internal(format!("could not remove {}: {e}", path.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_replace_whole_files_and_keep_the_mode() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("m.py");
        std::fs::write(&file, "old\n").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755)).unwrap();
        write_atomic(&file, b"new\n").unwrap();
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
        assert_eq!(names.len(), 1, "no temp file left: {names:?}");
        write_atomic(&dir.path().join("new.py"), b"x = 1\n").unwrap();
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
