//! One failed operation as the error log keeps it and the views show it.

use std::time::SystemTime;

use super::Perm;

/// One failed operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub at: SystemTime,
    /// `write`, `rename`, `lookup`, ...
    pub op: String,
    /// Absolute path under the mountpoint.
    pub path: String,
    /// The directory it happened in, relative to the root (`tasks/open`).
    pub dir: String,
    pub message: String,
    /// How many times it happened again after the first, at least a second apart (an
    /// agent retrying, not a tool repeating one call); `at` is then the latest time.
    pub repeats: u32,
    /// When it first happened.
    pub first: SystemTime,
    /// The modes of what the message may quote (the file the failure is about, the files a
    /// traceback in it names, and the folders above them, as the right to read them): a
    /// view shows the message only if everyone who may read the view may read all of them.
    pub quotes: Vec<Perm>,
}
