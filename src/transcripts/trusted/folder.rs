//! A folder opened once and read through its descriptor, never again by name: what is
//! read in it is read from that very folder, even if its name now leads elsewhere.
//!
//! A followed place is opened by the path the owner gave (links in it are the owner's
//! choice); every folder below it is opened from its parent's descriptor one name at a
//! time with `O_NOFOLLOW|O_DIRECTORY`, so a folder that another user moved away and
//! replaced with a link to some other folder is refused instead of being read through
//! (an inotify watch keeps the old name after a folder is renamed). A file in a folder is
//! looked at with `O_PATH|O_NOFOLLOW` first (which opens no device, follows no link), and
//! opened for reading only if that was a regular file, then checked to be the same file.

use std::ffi::{CString, OsStr, OsString};
use std::fs::{File, Metadata};
use std::os::fd::{AsRawFd, FromRawFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Component, Path};

use super::owner::{Owner, not_regular};

/// Why a link is not read.
pub const LINK: &str = "it is a symbolic link: transcripts are read only as the owner's own \
                        files, never through a link (it could lead to any file the daemon \
                        may read)";

/// An open folder.
pub struct Folder {
    file: File,
}

impl Folder {
    /// The folder at `path`, as named (links followed); `None` when it does not exist.
    pub fn root(path: &Path) -> Result<Option<Folder>, String> {
        let name = c_path(path.as_os_str())?;
        // SAFETY: a valid NUL-terminated path; the descriptor returned is owned below.
        let fd = unsafe { libc::open(name.as_ptr(), DIRECTORY) };
        Folder::opened(fd, path.as_os_str())
    }

    /// The folder `rel` below the folder at `path`, each folder of `rel` opened from the
    /// one above it, never through a link; `None` when one of them does not exist.
    pub fn below(path: &Path, rel: &Path) -> Result<Option<Folder>, String> {
        let Some(mut folder) = Folder::root(path)? else {
            return Ok(None);
        };
        for part in rel.components() {
            let Component::Normal(name) = part else {
                return Err(format!(
                    "{} does not lie below {}",
                    rel.display(),
                    path.display()
                ));
            };
            match folder.dir(name)? {
                Some(next) => folder = next,
                None => return Ok(None),
            }
        }
        Ok(Some(folder))
    }

    /// The folder `name` in this one; never a link.
    pub fn dir(&self, name: &OsStr) -> Result<Option<Folder>, String> {
        let c_name = c_path(name)?;
        // SAFETY: a valid descriptor and NUL-terminated name; the result is owned below.
        let fd = unsafe {
            libc::openat(
                self.file.as_raw_fd(),
                c_name.as_ptr(),
                DIRECTORY | libc::O_NOFOLLOW,
            )
        };
        if fd < 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::ENOTDIR) {
            // O_DIRECTORY|O_NOFOLLOW refuses a link as "not a directory": say which.
            // SAFETY: as above; O_PATH opens nothing but the name itself.
            let probe = unsafe {
                libc::openat(
                    self.file.as_raw_fd(),
                    c_name.as_ptr(),
                    libc::O_PATH | libc::O_NOFOLLOW | libc::O_CLOEXEC,
                )
            };
            if probe >= 0 {
                // SAFETY: `probe` was just opened here and is owned by nothing else.
                let probe = unsafe { File::from_raw_fd(probe) };
                if probe.metadata().is_ok_and(|m| m.file_type().is_symlink()) {
                    return Err(link_folder(name));
                }
            }
            return Err(format!("{} is not a folder", name.to_string_lossy()));
        }
        Folder::opened(fd, name)
    }

    fn opened(fd: libc::c_int, name: &OsStr) -> Result<Option<Folder>, String> {
        if fd < 0 {
            let e = std::io::Error::last_os_error();
            return match e.raw_os_error() {
                Some(libc::ENOENT) => Ok(None),
                Some(libc::ELOOP) => Err(link_folder(name)),
                Some(libc::ENOTDIR) => Err(format!("{} is not a folder", name.to_string_lossy())),
                _ => Err(format!(
                    "cannot open the folder {}: {e}",
                    name.to_string_lossy()
                )),
            };
        }
        // SAFETY: `fd` was just opened here and is owned by nothing else.
        let file = unsafe { File::from_raw_fd(fd) };
        Ok(Some(Folder { file }))
    }

    /// The same folder, on a descriptor of its own.
    pub fn try_clone(&self) -> Result<Folder, String> {
        let file = self
            .file
            .try_clone()
            .map_err(|e| format!("cannot open the folder again: {e}"))?;
        Ok(Folder { file })
    }

    /// What the folder is (owner, mode, device and inode), of the open descriptor.
    pub fn meta(&self) -> Result<Metadata, String> {
        self.file
            .metadata()
            .map_err(|e| format!("cannot look at the folder: {e}"))
    }

    /// The file `name` in this folder opened for reading with its metadata, if it is a
    /// regular file (and, given an owner, the owner's own: [`Owner::check`]); `None` when
    /// it is gone; why not otherwise. A link, a device or a fifo is never opened.
    pub fn file(
        &self,
        name: &OsStr,
        owner: Option<&Owner>,
    ) -> Result<Option<(File, Metadata)>, String> {
        let c_name = c_path(name)?;
        let at = |flags| {
            // SAFETY: a valid descriptor and NUL-terminated name; the result is owned by
            // the File made of it.
            let fd = unsafe { libc::openat(self.file.as_raw_fd(), c_name.as_ptr(), flags) };
            match fd < 0 {
                true => Err(std::io::Error::last_os_error()),
                // SAFETY: `fd` was just opened here and is owned by nothing else.
                false => Ok(unsafe { File::from_raw_fd(fd) }),
            }
        };
        // O_PATH opens no device (no driver is called) and, with O_NOFOLLOW, gives the
        // link itself rather than what it leads to.
        let named = match at(libc::O_PATH | libc::O_NOFOLLOW | libc::O_CLOEXEC) {
            Ok(file) => file.metadata(),
            Err(e) => Err(e),
        };
        let named = match named {
            Ok(meta) => meta,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(format!("cannot read it: {e}")),
        };
        if named.file_type().is_symlink() {
            return Err(LINK.into());
        }
        if !named.is_file() {
            return Err(format!("it is {}", not_regular(&named)));
        }
        let flags =
            libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC;
        let file = match at(flags) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            // Replaced by a link since the look above.
            Err(e) if e.raw_os_error() == Some(libc::ELOOP) => return Err(LINK.into()),
            Err(e) => return Err(format!("cannot read it: {e}")),
        };
        let meta = file
            .metadata()
            .map_err(|e| format!("cannot read it: {e}"))?;
        if (meta.dev(), meta.ino()) != (named.dev(), named.ino()) || !meta.is_file() {
            return Err("it was replaced while being opened: it is read at its next change".into());
        }
        if let Some(owner) = owner {
            owner.check(&meta)?;
        }
        Ok(Some((file, meta)))
    }

    /// The names in this folder, in no order.
    pub fn names(&self) -> Result<Vec<OsString>, String> {
        // The descriptor's own entry in /proc leads to this very folder, not to its name.
        let here = format!("/proc/self/fd/{}", self.file.as_raw_fd());
        let entries =
            std::fs::read_dir(here).map_err(|e| format!("cannot list the folder: {e}"))?;
        Ok(entries
            .filter_map(Result::ok)
            .map(|entry| entry.file_name())
            .collect())
    }
}

/// Why the folder `name`, a link, is not passed through.
fn link_folder(name: &OsStr) -> String {
    format!(
        "the folder {} is a symbolic link: files are read only from the folders \
         themselves, never through a link (another user may have put it in place of a \
         folder that was watched)",
        name.to_string_lossy()
    )
}

const DIRECTORY: libc::c_int = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC;

fn c_path(name: &OsStr) -> Result<CString, String> {
    CString::new(name.as_bytes()).map_err(|_| {
        format!(
            "the name {} holds a NUL byte: no file has such a name",
            name.to_string_lossy()
        )
    })
}
