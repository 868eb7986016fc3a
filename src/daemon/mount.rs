//! Mounting and unmounting. `mount` starts the daemon in the background and returns once
//! the mount answers (the mountpoint's `st_dev` changed and a listing works); a stale
//! mount left by a killed daemon is detected and replaced; SIGINT, SIGTERM and SIGHUP
//! unmount cleanly; plain `umount` ends the daemon too.

use std::io::Read;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::app::{self, Options};
use crate::model::count::one_or_many;
use crate::tree::StoreVersion;

/// The variable naming a file each daemon appends its mountpoint to once mounted, so that
/// a test run can unmount exactly the mounts it made (`mount-scripts/sweep-test-mounts`).
pub const RECORD_VARIABLE: &str = "HOMESPACE_MOUNT_RECORD";

/// How long `mount` waits for the daemon to answer.
const MOUNT_TIMEOUT: Duration = Duration::from_secs(20);

/// What `homespace mount` was asked.
#[derive(Debug, Clone)]
pub struct MountRequest {
    pub options: Options,
    pub mountpoint: PathBuf,
    pub allow_other: bool,
}

/// Whether `mountpoint` is a FUSE mount whose daemon is gone ("Transport endpoint is not
/// connected").
///
/// Asked with `statfs`, which the kernel never answers from its caches: a `stat` is
/// answered from the attributes it keeps, and an open and even a listing of a directory it
/// keeps (the daemon lets it) never reach the daemon, so a mount whose daemon was killed
/// after a few reads looked alive to them. A listing is still read to the end as a second
/// opinion.
pub fn is_stale(mountpoint: &Path) -> bool {
    let dead =
        |e: &std::io::Error| matches!(e.raw_os_error(), Some(libc::ENOTCONN | libc::ECONNABORTED));
    if statfs(mountpoint).err().is_some_and(|e| dead(&e)) {
        return true;
    }
    match std::fs::read_dir(mountpoint) {
        Err(e) => dead(&e),
        Ok(mut listing) => listing.any(|member| member.err().is_some_and(|e| dead(&e))),
    }
}

/// `statfs(2)` of `path`, for its error.
fn statfs(path: &Path) -> std::io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let path = std::ffi::CString::new(path.as_os_str().as_bytes())
        .map_err(|_| std::io::Error::from_raw_os_error(libc::EINVAL))?;
    // SAFETY: `path` is a NUL-terminated string that outlives the call, and `out` is a
    // buffer of the type statfs fills, written by no one else.
    let done = unsafe {
        let mut out = std::mem::MaybeUninit::<libc::statfs>::uninit();
        libc::statfs(path.as_ptr(), out.as_mut_ptr())
    };
    if done == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// Whether `mountpoint` currently has a homespace mount on it.
pub fn is_mounted(mountpoint: &Path) -> bool {
    let Ok(target) = mountpoint
        .canonicalize()
        .or_else(|_| Ok::<_, ()>(mountpoint.to_path_buf()))
    else {
        return false;
    };
    let Ok(mounts) = std::fs::read_to_string("/proc/self/mounts") else {
        return false;
    };
    mounts.lines().any(|line| {
        let mut fields = line.split(' ');
        let (_, Some(at), Some(kind)) = (fields.next(), fields.next(), fields.next()) else {
            return false;
        };
        unescape(at) == target && kind.starts_with("fuse")
    })
}

/// `/proc/mounts` writes space, tab, newline and backslash as octal escapes.
pub(crate) fn unescape(field: &str) -> PathBuf {
    let mut out = Vec::with_capacity(field.len());
    let bytes = field.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        let octal = bytes.get(at + 1..at + 4).and_then(|digits| {
            std::str::from_utf8(digits)
                .ok()
                .and_then(|d| u8::from_str_radix(d, 8).ok())
        });
        match (bytes[at], octal) {
            (b'\\', Some(byte)) => {
                out.push(byte);
                at += 4;
            }
            (byte, _) => {
                out.push(byte);
                at += 1;
            }
        }
    }
    PathBuf::from(String::from_utf8_lossy(&out).into_owned())
}

/// Detach whatever FUSE mount is at `mountpoint` (used for stale mounts and `unmount`).
pub fn unmount(mountpoint: &Path, lazy: bool) -> Result<(), String> {
    crate::fuse::detach(mountpoint, lazy).map_err(|failure| match failure {
        crate::fuse::Detach::NoHelper(why) => why,
        crate::fuse::Detach::Refused { errno, said } => unmount_failure(mountpoint, errno, &said),
    })
}

/// Why `mountpoint` could not be unmounted, from the errno of `umount2`. The FUSE unmount
/// helper answers a path that has no mount with a bare "Invalid argument"; say what it
/// means, and keep the helper's words (`said`) for anything else.
fn unmount_failure(mountpoint: &Path, errno: Option<i32>, said: &str) -> String {
    let at = mountpoint.display();
    match errno {
        Some(libc::ENOENT) => format!("{at} does not exist: there is nothing to unmount"),
        // EINVAL: "not a mount point"; as a non-root user umount2 says EPERM whatever the
        // path, so the mount table decides.
        Some(libc::EINVAL | libc::EPERM) if !is_mounted(mountpoint) && !is_stale(mountpoint) => {
            format!(
                "{at} is not mounted: there is nothing to unmount \
                 (`grep fuse /proc/mounts` lists the mounts)"
            )
        }
        Some(libc::EBUSY) => format!(
            "{at} is busy: a process has a file open there or works in it (`fuser -vm {at}` \
             names them); end or move them, or `homespace unmount --lazy {at}` detaches it now \
             and ends it when the last one lets go"
        ),
        _ => format!("could not unmount {at}: {said}"),
    }
}

/// Prepare `mountpoint`: create it if missing, replace a stale mount, refuse a live one.
fn prepare(mountpoint: &Path) -> Result<(), String> {
    if is_stale(mountpoint) {
        crate::log::line(&format!(
            "replacing the stale mount at {}",
            mountpoint.display()
        ));
        unmount(mountpoint, true)?;
    } else if is_mounted(mountpoint) {
        return Err(format!(
            "{} is already mounted; run `homespace unmount {}` first",
            mountpoint.display(),
            mountpoint.display()
        ));
    }
    if !mountpoint.exists() {
        std::fs::create_dir_all(mountpoint)
            .map_err(|e| format!("cannot create the mountpoint {}: {e}", mountpoint.display()))?;
        eprintln!("homespace: made the mountpoint {}", mountpoint.display());
    } else if let Ok(entries) = std::fs::read_dir(mountpoint) {
        // Mounting hides what the folder holds: said, not refused (a systemd unit's
        // mountpoint may hold a placeholder).
        let hidden = entries.count();
        if hidden > 0 {
            eprintln!(
                "homespace: {} is not empty: its {hidden} entr{} hidden while the tree is \
                 mounted there, and back after `homespace unmount {}`",
                mountpoint.display(),
                one_or_many(hidden, "y is", "ies are"),
                mountpoint.display()
            );
        }
    }
    Ok(())
}

/// Mount in the background: start the daemon (this program with `--foreground`), wait
/// until the mount answers, and return. The daemon's output goes to `log`.
/// `env` is one variable the daemon gets beyond this process's own (a store's password,
/// which must not be in its command line).
pub fn mount_background(
    request: &MountRequest,
    args: &[String],
    env: Option<(&str, String)>,
    log: &Path,
) -> Result<(), String> {
    prepare(&request.mountpoint)?;
    let before = std::fs::metadata(&request.mountpoint)
        .map_err(|e| format!("cannot stat {}: {e}", request.mountpoint.display()))?
        .dev();
    if let Some(dir) = log.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    // The owner's alone when made here, as the store is: it names files and quotes errors.
    let log_file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(log)
        .map_err(|e| format!("cannot open the log {}: {e}", log.display()))?;
    let log_err = log_file.try_clone().map_err(|e| e.to_string())?;
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?;
    let mut daemon = Command::new(exe);
    if let Some((name, value)) = env {
        daemon.env(name, value);
    }
    let mut child = daemon
        .args(args)
        .arg("--foreground")
        .stdin(Stdio::null())
        .stdout(log_file)
        .stderr(log_err)
        // Its own process group: a Ctrl-C meant for the shell must not kill the mount.
        .process_group(0)
        .spawn()
        .map_err(|e| format!("cannot start the daemon: {e}"))?;
    let started = Instant::now();
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            return Err(format!(
                "the daemon stopped ({status}) before the mount answered:\n{}",
                tail(log, 20)
            ));
        }
        let now = std::fs::metadata(&request.mountpoint)
            .map(|m| m.dev())
            .unwrap_or(before);
        if now != before && std::fs::read_dir(&request.mountpoint).is_ok() {
            return Ok(());
        }
        if started.elapsed() > MOUNT_TIMEOUT {
            let _ = child.kill();
            return Err(format!(
                "the mount did not answer within {}s; the daemon log says:\n{}",
                MOUNT_TIMEOUT.as_secs(),
                tail(log, 20)
            ));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Mount and serve in this process until unmounted or signalled.
pub fn mount_foreground(request: &MountRequest) -> Result<(), String> {
    return_large_buffers();
    prepare(&request.mountpoint)?;
    let mountpoint = request
        .mountpoint
        .canonicalize()
        .map_err(|e| e.to_string())?;
    let (space, store) = app::build_with_store(&request.options, &mountpoint.to_string_lossy())
        .map_err(|e| e.message)?;
    let version: StoreVersion = Box::new(move || store.data_version().ok());
    crate::fuse::serve(
        space,
        &mountpoint,
        crate::fuse::Serving {
            allow_other: request.allow_other,
            read_only: request.options.read_only,
            mounted: format!(
                "mounted {} at {}",
                request.options.project.display(),
                mountpoint.display()
            ),
            record: std::env::var_os(RECORD_VARIABLE).map(PathBuf::from),
            ready: Some(crate::daemon::service::ready),
            stopping: Some(crate::daemon::service::stopping),
        },
        version,
    )?;
    crate::log::line("unmounted");
    Ok(())
}

/// Make freed large buffers (documents being saved, up to 8 MiB each) go back to the
/// system at once. glibc raises its mmap threshold after the first large buffer is freed
/// and from then on keeps such buffers in its heaps, where a burst of large writes would
/// stay resident for the life of the daemon; a fixed threshold turns that off.
fn return_large_buffers() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only tunes the allocator and is called before any request thread
    // starts; a refusal (0) leaves the defaults, which are correct, only less frugal.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 128 * 1024);
    }
}

/// The last `lines` lines of the file at `path`.
fn tail(path: &Path, lines: usize) -> String {
    let mut text = String::new();
    if let Ok(mut file) = std::fs::File::open(path) {
        let _ = file.read_to_string(&mut text);
    }
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

/// The process id of the daemon (`homespace mount --foreground ...`) serving `mountpoint`,
/// found by its command line (used by `unmount`-like tools, tests and the benchmark).
pub fn daemon_pid(mountpoint: &Path) -> Option<i32> {
    let at = mountpoint.to_string_lossy().into_owned();
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let args: Vec<String> = cmdline
            .split(|&b| b == 0)
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect();
        if args.iter().any(|a| a == "--foreground") && args.contains(&at) {
            return entry.file_name().to_str()?.parse().ok();
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mount_table_escapes_are_undone() {
        assert_eq!(
            unescape("/tmp/my\\040mount\\134x"),
            PathBuf::from("/tmp/my mount\\x")
        );
        assert_eq!(unescape("/plain"), PathBuf::from("/plain"));
        assert_eq!(unescape("/odd\\04"), PathBuf::from("/odd\\04"));
    }
}
