//! Which transcript files are read at all: the owner's own regular files. Another local
//! user who can write into a followed folder must not get their text into the owner's
//! memory, nor make the daemon (often root) open what they point at.
//!
//! Guarantees of [`open`]: a name that is a symbolic link, a device, a fifo or a socket
//! is never opened (it is looked at with `O_PATH|O_NOFOLLOW` first, and opened with
//! `O_NOFOLLOW`, so a link swapped in between fails too, and `O_NONBLOCK`, so a fifo
//! swapped in cannot hang the reader); the folders between a followed folder and the file
//! are never passed through a link ([`open_below`], [`folder`]); what was opened
//! is checked on the open descriptor (`fstat`, no race): a regular file, owned by the
//! owner, writable by no one else. The owner is the user the daemon runs as, as
//! `crate::trust` decides for what may run (a mount made with `setuid=USER` runs as
//! USER). A group-writable file passes only when its group is the owner's primary group:
//! with user private groups (Debian's umask 002) every file the owner writes is
//! group-writable, by a group that holds the owner alone.

pub mod folder;
mod owner;

use std::fs::{File, Metadata};
use std::path::Path;

use folder::Folder;
pub use owner::{Owner, not_regular};

/// The file at `path` opened for reading with its metadata, if it is the owner's own
/// regular file; `None` when it is gone; why not otherwise (see the module's guarantees).
pub fn open(path: &Path, owner: &Owner) -> Result<Option<(File, Metadata)>, String> {
    let Some(root) = path.parent() else {
        return Err("it is no file in a folder".into());
    };
    open_below(root, path, owner)
}

/// As [`open`], for a file lying below the followed folder `root`: each folder between
/// them is opened from the one above it, never through a link ([`Folder::below`]), so the
/// file is read from the very folder the path named when it was watched, not from
/// wherever a link put in its place leads.
pub fn open_below(
    root: &Path,
    path: &Path,
    owner: &Owner,
) -> Result<Option<(File, Metadata)>, String> {
    let (Ok(rel), Some(name)) = (path.strip_prefix(root), path.file_name()) else {
        return Err(format!("it does not lie below {}", root.display()));
    };
    let folders = rel.parent().unwrap_or(Path::new(""));
    match Folder::below(root, folders)? {
        Some(folder) => folder.file(name, Some(owner)),
        None => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    fn me() -> Owner {
        Owner::this_process()
    }

    #[test]
    fn the_owners_own_file_opens_and_a_missing_one_is_none() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, "{}\n").unwrap();
        assert!(open(&path, &me()).unwrap().is_some());
        assert!(
            open(&dir.path().join("gone.jsonl"), &me())
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn links_devices_and_fifos_are_never_opened() {
        let dir = tempfile::tempdir().unwrap();
        let secret = dir.path().join("secret.jsonl");
        std::fs::write(&secret, "{}\n").unwrap();
        let link = dir.path().join("evil.jsonl");
        std::os::unix::fs::symlink(&secret, &link).unwrap();
        assert!(open(&link, &me()).unwrap_err().contains("symbolic link"));
        let device = dir.path().join("tty.jsonl");
        std::os::unix::fs::symlink("/dev/ptmx", &device).unwrap();
        assert!(open(&device, &me()).unwrap_err().contains("symbolic link"));
        let fifo = dir.path().join("fifo.jsonl");
        let name = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
        assert!(open(&fifo, &me()).unwrap_err().contains("a fifo"));
        assert!(
            open(Path::new("/dev/null"), &me())
                .unwrap_err()
                .contains("a device")
        );
    }

    #[test]
    fn files_of_others_or_that_others_may_write_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, "{}\n").unwrap();
        let other = Owner {
            uid: me().uid + 1,
            gid: me().gid,
        };
        assert!(open(&path, &other).unwrap_err().contains("owned by uid"));
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o646)).unwrap();
        assert!(
            open(&path, &me())
                .unwrap_err()
                .contains("others may write it")
        );
        // Group-writable by the owner's own group passes; by another group it does not.
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o664)).unwrap();
        assert!(open(&path, &me()).unwrap().is_some());
        let other_group = Owner {
            uid: me().uid,
            gid: me().gid + 1,
        };
        assert!(
            open(&path, &other_group)
                .unwrap_err()
                .contains("others may write it")
        );
    }
}
