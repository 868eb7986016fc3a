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
}
