//! A homespace mount made by a test or the benchmark, known by its device: the
//! mountpoint's `st_dev` changes when the FUSE mount answers (waited for, never slept on),
//! and changes back once it is gone. Unmounting goes by that path and checks that device,
//! so only the mount this process made is ever removed, never every mount of a type.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::poll::poll_until;

/// A FUSE mount at `at` on device `dev`.
#[derive(Debug, Clone)]
pub struct MountPoint {
    at: PathBuf,
    dev: u64,
}

/// The device `at` is on now: taken before mounting, to see the mount arrive.
pub fn device(at: &Path) -> Result<u64, String> {
    std::fs::metadata(at)
        .map(|m| m.dev())
        .map_err(|e| format!("cannot stat {}: {e}", at.display()))
}

/// Wait until `at`, on device `before` until now, is on another: the mount answers. `alive`
/// is asked between looks (is the daemon still running?); its error ends the wait, as
/// does `limit`.
pub fn wait_mounted(
    at: &Path,
    before: u64,
    limit: Duration,
    pause: Duration,
    mut alive: impl FnMut() -> Result<(), String>,
) -> Result<MountPoint, String> {
    let mut died = None;
    let dev = poll_until(limit, pause, || {
        match std::fs::metadata(at).map(|m| m.dev()) {
            Ok(dev) if dev != before => return Some(Some(dev)),
            _ => {}
        }
        match alive() {
            Ok(()) => None,
            Err(why) => {
                died = Some(why);
                Some(None)
            }
        }
    });
    match (dev, died) {
        (Some(Some(dev)), _) => Ok(MountPoint {
            at: at.to_path_buf(),
            dev,
        }),
        (_, Some(why)) => Err(why),
        _ => Err(format!(
            "the mount at {} did not answer within {} s",
            at.display(),
            limit.as_secs()
        )),
    }
}

impl MountPoint {
    /// The mount at `at` on device `dev`, taken as said (for a test that stands one in).
    pub fn on(at: PathBuf, dev: u64) -> MountPoint {
        MountPoint { at, dev }
    }

    /// The mountpoint.
    pub fn at(&self) -> &Path {
        &self.at
    }

    /// Whether the mountpoint is back on the file system below it (a stale mount, whose
    /// daemon died, cannot even be stat'ed, so it is not gone).
    pub fn gone(&self) -> bool {
        std::fs::metadata(&self.at).is_ok_and(|m| m.dev() != self.dev)
    }

    /// Unmount with `homespace unmount` (the binary `homespace`): normally, else lazily,
    /// each checked by the device. Says what failed when neither removed it.
    pub fn unmount(&self, homespace: &Path) -> Result<(), String> {
        let mut tried = Vec::new();
        for (how, lazy) in [("normal", &[][..]), ("lazy", &["--lazy"][..])] {
            let out = Command::new(homespace)
                .arg("unmount")
                .args(lazy)
                .arg(&self.at)
                .output();
            match out {
                _ if self.gone() => return Ok(()),
                Ok(out) if out.status.success() => tried.push(format!(
                    "{how}: said it worked, but the FUSE mount is still there"
                )),
                Ok(out) => tried.push(format!(
                    "{how}: {}",
                    String::from_utf8_lossy(&out.stderr).trim()
                )),
                Err(e) => tried.push(format!("{how}: cannot run {}: {e}", homespace.display())),
            }
        }
        Err(format!("could not unmount ({})", tried.join("; ")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mount_that_never_comes_is_waited_for_until_the_limit_or_the_daemon_dies() {
        let dir = tempfile::tempdir().unwrap();
        let before = device(dir.path()).unwrap();
        let late = wait_mounted(
            dir.path(),
            before,
            Duration::from_millis(20),
            Duration::from_millis(5),
            || Ok(()),
        );
        assert!(late.unwrap_err().contains("did not answer"));
        let died = wait_mounted(
            dir.path(),
            before,
            Duration::from_secs(5),
            Duration::from_millis(5),
            || Err("the daemon exited".to_string()),
        );
        assert_eq!(died.unwrap_err(), "the daemon exited");
    }

    #[test]
    fn a_folder_that_was_never_mounted_is_not_gone_from_its_own_device() {
        let dir = tempfile::tempdir().unwrap();
        let dev = device(dir.path()).unwrap();
        let never = MountPoint::on(dir.path().to_path_buf(), dev);
        assert!(!never.gone());
        let said = never.unmount(Path::new("/bin/false")).unwrap_err();
        assert!(said.starts_with("could not unmount (normal: "), "{said}");
    }
}
