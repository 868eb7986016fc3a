//! Detaching a FUSE mount from outside its session (`homespace unmount`, a stale mount
//! left by a crash): `fusermount3` first, the system call where that cannot do it.

use std::path::Path;

/// Why a FUSE mount could not be detached.
#[derive(Debug)]
pub enum Detach {
    /// `fusermount3` cannot be run and the system call was refused for want of privilege
    /// (not root): what to install.
    NoHelper(String),
    /// Both refused (or the helper is missing and the system call failed for another
    /// reason): the system call's errno and what the helper said, or why it could not run.
    Refused { errno: Option<i32>, said: String },
}

/// Detach the FUSE mount at `mountpoint` (`lazy`: even while busy) with `fusermount3`,
/// falling back to the system call, which works as root where the helper refuses or is not
/// installed at all.
pub fn detach(mountpoint: &Path, lazy: bool) -> Result<(), Detach> {
    let mut command = std::process::Command::new("fusermount3");
    command.arg(if lazy { "-uz" } else { "-u" }).arg(mountpoint);
    // fusermount3 may be missing, lack its setuid bit or refuse as non-owner; as root the
    // plain system call does the same job.
    let helper = match command.output() {
        Ok(out) if out.status.success() => return Ok(()),
        Ok(out) => Ok(String::from_utf8_lossy(&out.stderr).trim().to_string()),
        Err(e) => Err(format!("could not run fusermount3 ({e})")),
    };
    let path = std::ffi::CString::new(mountpoint.as_os_str().as_encoded_bytes()).map_err(|_| {
        Detach::Refused {
            errno: None,
            said: "the mountpoint contains a NUL byte".into(),
        }
    })?;
    let flags = if lazy { libc::MNT_DETACH } else { 0 };
    // SAFETY: `path` is a valid NUL-terminated string that outlives the call.
    if unsafe { libc::umount2(path.as_ptr(), flags) } == 0 {
        return Ok(());
    }
    let errno = std::io::Error::last_os_error().raw_os_error();
    match helper {
        Ok(said) => Err(Detach::Refused { errno, said }),
        Err(missing) if errno == Some(libc::EPERM) => Err(Detach::NoHelper(format!(
            "{missing}, and only root may unmount without it: install the fuse3 package"
        ))),
        Err(missing) => Err(Detach::Refused {
            errno,
            said: missing,
        }),
    }
}
