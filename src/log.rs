//! The daemon log: one timestamped line per event on stderr, which the background daemon
//! sends to its log file. Kept deliberately tiny: the log is for people reading after the
//! fact, and the views (`_errors.md`) are what agents read.

use std::io::Write;
use std::time::{SystemTime, UNIX_EPOCH};

/// Write one line to the daemon log.
pub fn line(message: &str) {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let stamp = crate::model::time::rfc3339(now);
    // A failed write to the log must never fail a request.
    let _ = writeln!(std::io::stderr().lock(), "{stamp} {message}");
}
