//! What the tests of "nobody else runs code as the owner" (SPEC §10) share: another user
//! plants a program that leaves a mark if it ever runs, the owner goes through their
//! common loop (an edit, import-checked; a test run), and the mark must not appear.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use super::{Mount, OtherUser};

pub fn chmod(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// `user`'s own folder in the mount's temp dir, and in it an executable `evil.sh` that
/// leaves `ran` beside it and then behaves as python3, so nothing else looks amiss.
pub fn plant(mount: &Mount, user: &OtherUser) -> (PathBuf, PathBuf) {
    let home = user_folder(mount, user);
    let evil = home.join("evil.sh");
    let mark = home.join("ran");
    let (ok, out) = mount.sh_as(
        user,
        &format!(
            "printf '#!/bin/sh\\ntouch {}\\nexec python3 \"$@\"\\n' > {evil}; chmod 755 {evil}",
            mark.display(),
            evil = evil.display()
        ),
    );
    assert!(ok, "{out}");
    (evil, mark)
}

/// `user`'s own folder in the mount's temp dir (made on first use).
pub fn user_folder(mount: &Mount, user: &OtherUser) -> PathBuf {
    let home = mount.dir.path().join(&user.name);
    if !home.exists() {
        std::fs::create_dir(&home).unwrap();
        std::os::unix::fs::chown(&home, Some(user.uid), None).unwrap();
    }
    home
}

/// The owner's common loop: an edit (import-checked) and a test run read to its end.
pub fn owners_edit_and_run(mount: &Mount) -> String {
    owners_edit_and_run_of(mount, "tests/test_journal.py")
}

/// [`owners_edit_and_run`] with `selector` written to `source/tests/run`.
pub fn owners_edit_and_run_of(mount: &Mount, selector: &str) -> String {
    let (ok, out) = mount.sh(&format!(
        "printf 'def hs_probe():\\n    return 1\\n' > probe.py \
         && cp probe.py \"$HS/source/ledger/report/hs_probe.py\" \
         && echo '{selector}' > \"$HS/source/tests/run\" \
         && for i in $(seq 1200); do \
              grep -q 'still running' \"$HS/source/tests/runs/latest/_entry.md\" || break; \
              sleep 0.1; \
            done \
         && cat \"$HS/source/tests/runs/latest/_entry.md\""
    ));
    assert!(ok, "{out}\n--- daemon log ---\n{}", mount.log_text());
    out
}

pub fn assert_never_ran(mark: &Path, mount: &Mount) {
    assert!(
        !mark.exists(),
        "the other user's program ran as the owner\n--- daemon log ---\n{}",
        mount.log_text()
    );
}
