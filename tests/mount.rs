//! Real mounts of the example project, driven by the shell scripts in `tests/shell/`
//! (the contract a user sees), plus the mount's lifecycle: background start, unmount,
//! stale mounts.

mod common;

use std::process::Command;

use common::{BIN, Mount};

#[test]
fn every_directory_describes_itself() {
    Mount::example().run_script("tree.sh");
}

#[test]
fn errors_are_explained_and_probes_ignored() {
    Mount::example().run_script("errors.sh");
}

#[test]
fn common_tools_work_over_the_whole_mount() {
    Mount::example().run_script("posix.sh");
}

#[test]
fn source_files_are_exact_and_live() {
    Mount::example().run_script("source_read.sh");
}

#[test]
fn a_stale_mount_is_replaced() {
    let mut mount = Mount::example();
    mount.kill_daemon();
    assert!(
        homespace::daemon::mount::is_stale(&mount.at),
        "the mount is stale"
    );
    common::succeed(
        Command::new(BIN)
            .args(["mount", "--project"])
            .arg(&mount.project)
            .arg("--store")
            .arg(&mount.store)
            .arg(&mount.at),
    );
    let entry = std::fs::read_to_string(mount.path("_entry.md")).unwrap();
    assert!(entry.contains("homespace — ledger"), "{entry}");
    common::succeed(Command::new(BIN).arg("unmount").arg(&mount.at));
    assert!(
        std::fs::read_dir(&mount.at).unwrap().next().is_none(),
        "unmounted: the mountpoint is empty again"
    );
}

/// What a user sees of a crashed daemon: `homespace mount` again replaces the dead mount,
/// however warm the kernel's caches were (they answer `stat`, opens and listings without
/// the daemon, so only a question they cannot answer tells a dead mount from a live one).
#[test]
fn a_killed_daemons_mount_is_replaced_every_time() {
    let mut mount = Mount::example();
    let mount_again = |mount: &Mount| {
        let out = Command::new(BIN)
            .args(["mount", "--project"])
            .arg(&mount.project)
            .arg("--store")
            .arg(&mount.store)
            .arg(&mount.at)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    mount.kill_daemon();
    mount_again(&mount);
    for round in 0..20 {
        // Warm: the root, its views and a listing kept by the kernel.
        let (ok, out) = mount.sh(
            "ls -la \"$HS\" \"$HS/source\" >/dev/null && cat \"$HS/_entry.md\" >/dev/null \
             && stat \"$HS\" >/dev/null",
        );
        assert!(ok, "round {round}: {out}");
        let pid = homespace::daemon::mount::daemon_pid(&mount.at).expect("the daemon");
        // Mounted again at once, while the killed process may still be ending.
        common::succeed(Command::new("kill").args(["-9", &pid.to_string()]));
        mount_again(&mount);
        let entry = std::fs::read_to_string(mount.path("_entry.md")).unwrap();
        assert!(
            entry.contains("homespace — ledger"),
            "round {round}: {entry}"
        );
    }
    common::succeed(Command::new(BIN).arg("unmount").arg(&mount.at));
}

#[test]
fn background_mount_returns_when_it_answers_and_sigterm_unmounts() {
    let dir = tempfile::tempdir().unwrap();
    let at = dir.path().join("mnt");
    common::succeed(
        Command::new(BIN)
            .args(["mount", "--project"])
            .arg(common::example())
            .arg("--store")
            .arg(dir.path().join("store.db"))
            .arg(&at),
    );
    // No waiting: `mount` returned, so the first `ls` must work now.
    let names: Vec<String> = std::fs::read_dir(&at)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let guard = Unmount(at.clone());
    assert!(names.contains(&"source".to_string()), "{names:?}");
    let again = Command::new(BIN)
        .args(["mount", "--project"])
        .arg(common::example())
        .arg(&at)
        .output()
        .unwrap();
    assert!(!again.status.success(), "mounting twice is refused");
    assert!(String::from_utf8_lossy(&again.stderr).contains("already mounted"));
    let pid = homespace::daemon::mount::daemon_pid(&at).expect("the daemon runs");
    // SAFETY: sending a signal to a process id we just found has no memory effects.
    unsafe { libc::kill(pid, libc::SIGTERM) };
    let unmounted = homespace_testkit::poll::poll_true(
        std::time::Duration::from_secs(10),
        std::time::Duration::from_millis(20),
        || !homespace::daemon::mount::is_mounted(&at),
    );
    assert!(unmounted, "SIGTERM did not unmount");
    drop(guard);
}

/// Unmounts in `Drop`, whatever happened.
struct Unmount(std::path::PathBuf);

impl Drop for Unmount {
    fn drop(&mut self) {
        let _ = Command::new("fusermount3").arg("-uz").arg(&self.0).output();
    }
}

#[test]
fn unmount_works_without_fusermount3_and_says_what_to_do_when_busy() {
    let mount = Mount::example();
    let empty = tempfile::tempdir().unwrap();
    // A busy mount: a shell working inside it.
    let mut inside = Command::new("sleep")
        .arg("30")
        .current_dir(mount.path("source"))
        .spawn()
        .unwrap();
    let busy = Command::new(BIN)
        .arg("unmount")
        .arg(&mount.at)
        .output()
        .unwrap();
    let _ = inside.kill();
    let _ = inside.wait();
    let said = String::from_utf8_lossy(&busy.stderr);
    assert!(!busy.status.success(), "a busy mount is not unmounted");
    assert!(
        said.contains("is busy") && said.contains("--lazy"),
        "{said}"
    );
    // A machine without fusermount3: as root the system call does it.
    common::succeed(
        Command::new(BIN)
            .arg("unmount")
            .arg(&mount.at)
            .env("PATH", empty.path()),
    );
    assert!(
        !homespace::daemon::mount::is_mounted(&mount.at),
        "unmounted without fusermount3"
    );
}

/// test-all's cleanup (`mount-scripts/sweep-test-mounts`) unmounts the mounts its run's
/// daemons recorded — a path with a space included — and leaves every other homespace mount
/// up: another user's, or the example the README's first command mounted.
#[test]
fn the_test_sweep_unmounts_only_the_mounts_its_run_recorded() {
    let elsewhere = Mount::example();
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    common::copy_dir(&common::example(), &project);
    let at = dir.path().join("left by a test");
    let record = dir.path().join("mounts");
    common::succeed(
        Command::new(BIN)
            .args(["mount", "--project"])
            .arg(&project)
            .arg("--store")
            .arg(dir.path().join("store.db"))
            .arg(&at)
            .env("HOMESPACE_MOUNT_RECORD", &record),
    );
    let recorded = std::fs::read_to_string(&record).unwrap();
    assert_eq!(
        recorded,
        format!("{}\n", at.canonicalize().unwrap().display())
    );
    let script =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("mount-scripts/sweep-test-mounts");
    common::succeed(Command::new("bash").arg(&script).arg(&record));
    let left = homespace::daemon::mount::is_mounted(&at);
    if left {
        let _ = homespace::daemon::mount::unmount(&at, true);
    }
    assert!(!left, "the run's own mount is left");
    assert!(
        homespace::daemon::mount::is_mounted(&elsewhere.at),
        "another mount was taken down"
    );
    assert!(elsewhere.read("_entry.md").contains("homespace — ledger"));
}
