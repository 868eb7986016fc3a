//! One failed operation as the error log keeps it and the views show it.

use std::time::SystemTime;

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
}
