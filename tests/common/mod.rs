//! What the integration tests share: a real mount of a project copy ([`mount`]), the
//! example project, running a command that must succeed, a seeded random generator, and a
//! user made for one test. The helpers the benchmark needs too live in
//! `homespace-testkit`.

#![allow(dead_code)]

pub mod mount;
pub mod planted;

use std::path::{Path, PathBuf};
use std::process::Command;

#[allow(unused_imports)] // Setup is used by some test files only
pub use mount::{Mount, Setup};

pub const BIN: &str = env!("CARGO_BIN_EXE_homespace");

/// Run `command` and fail the test with its stderr unless it succeeds.
pub fn succeed(command: &mut Command) -> std::process::Output {
    let out = command.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Whether a command succeeded, and all it said (its stdout, then its stderr).
pub fn said(out: &std::process::Output) -> (bool, String) {
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

/// The example project of the repository.
pub fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/ledger")
}

/// Copy directory `from` into `to` ([`homespace_testkit::copy::copy_dir`]); a failure
/// fails the test.
pub fn copy_dir(from: &Path, to: &Path) {
    homespace_testkit::copy::copy_dir(from, to)
        .unwrap_or_else(|e| panic!("copy {} to {}: {e}", from.display(), to.display()));
}

/// A small pseudo-random generator (xorshift): the same seed gives the same sequence, so a
/// failure that prints its seed can be replayed.
pub struct Random(pub u64);

impl Random {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number below `n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// One of `items`.
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

/// An unprivileged user made for one test (with `useradd`) and removed when dropped.
pub struct OtherUser {
    pub name: String,
    pub uid: u32,
}

impl OtherUser {
    /// Make a user named `hs<tag><pid>` with no home and no login shell.
    pub fn new(tag: &str) -> OtherUser {
        let name = format!("hs{tag}{}", std::process::id());
        succeed(
            Command::new("useradd")
                .args(["--no-create-home", "--shell", "/usr/sbin/nologin"])
                .arg(&name),
        );
        let out = succeed(Command::new("id").arg("-u").arg(&name));
        let uid = String::from_utf8_lossy(&out.stdout).trim().parse().unwrap();
        OtherUser { name, uid }
    }
}

impl Drop for OtherUser {
    fn drop(&mut self) {
        let _ = Command::new("userdel").arg(&self.name).output();
    }
}
