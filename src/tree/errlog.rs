//! The log of recent failures: what `/_errors.md` shows (newest first) and what the entry
//! view of the directory where a failure happened shows on top for a few minutes. Every
//! record also goes to the daemon log (stderr of the daemon).

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use crate::tree::lock;

/// How many failures are kept.
const KEEP: usize = 200;
/// How long a failure stays on top of its directory's entry view.
pub const FRESH: Duration = Duration::from_secs(5 * 60);

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

impl Failure {
    /// The same failure again within a few seconds.
    fn same_as(&self, other: &Failure) -> bool {
        let close = other
            .at
            .duration_since(self.at)
            .map(|d| d.as_secs() < 5)
            .unwrap_or(true);
        close && self.op == other.op && self.path == other.path && self.message == other.message
    }
}

/// A lookup of a missing name, kept until someone reads the log: whether it was a typo
/// (worth a "Did you mean") is decided then, off the request path — a shell looks a name up
/// before creating it, and listing a big directory on every such miss would make creating
/// slow; by the time the log is read, a created name simply exists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Miss {
    pub at: SystemTime,
    pub path: Vec<String>,
}

/// Misses kept before the oldest are dropped unexamined.
const KEEP_MISSES: usize = 64;

/// Recent failures, shared by all requests.
#[derive(Debug, Default)]
pub struct ErrorLog {
    failures: Mutex<VecDeque<Failure>>,
    misses: Mutex<VecDeque<Miss>>,
}

impl ErrorLog {
    pub fn record(&self, failure: Failure) {
        let mut failures = lock(&self.failures);
        // Tools repeat a failing call (`ls` looks a name up twice): one record is enough.
        if failures.front().is_some_and(|last| last.same_as(&failure)) {
            return;
        }
        crate::log::line(&format!(
            "error: {} {}: {}",
            failure.op,
            failure.path,
            failure.message.replace('\n', " | ")
        ));
        // Newest first; a miss examined late goes where its time puts it.
        let at = failures
            .iter()
            .position(|f| f.at <= failure.at)
            .unwrap_or(failures.len());
        failures.insert(at, failure);
        failures.truncate(KEEP);
    }

    /// Note a lookup of a missing name (not a probe), to examine later.
    pub fn missed(&self, path: Vec<String>) {
        let mut misses = lock(&self.misses);
        if misses.back().is_some_and(|m| m.path == path) {
            return;
        }
        misses.push_back(Miss {
            at: SystemTime::now(),
            path,
        });
        while misses.len() > KEEP_MISSES {
            misses.pop_front();
        }
    }

    /// The misses noted since the last call, oldest first.
    pub fn take_misses(&self) -> Vec<Miss> {
        lock(&self.misses).drain(..).collect()
    }

    /// Drop the "Did you mean" of a lookup of `path` once that path was created: the shell
    /// looks a name up before creating it, and that miss was no mistake.
    pub fn forget_lookup(&self, path: &str) {
        lock(&self.failures).retain(|f| !(f.op == "lookup" && f.path == path));
    }

    /// All kept failures, newest first.
    pub fn newest_first(&self) -> Vec<Failure> {
        lock(&self.failures).iter().cloned().collect()
    }

    /// The newest failure in directory `dir` within the last few minutes.
    pub fn fresh_in(&self, dir: &str, now: SystemTime) -> Option<Failure> {
        lock(&self.failures)
            .iter()
            .take_while(|f| now.duration_since(f.at).map(|d| d <= FRESH).unwrap_or(true))
            .find(|f| f.dir == dir)
            .cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failure(dir: &str, at: SystemTime) -> Failure {
        Failure {
            at,
            op: "write".into(),
            path: format!("/{dir}/x"),
            dir: dir.into(),
            message: format!("bad in {dir}"),
        }
    }

    #[test]
    fn fresh_failures_show_in_their_directory_only() {
        let log = ErrorLog::default();
        let now = SystemTime::now();
        log.record(failure("tasks/open", now - Duration::from_secs(600)));
        log.record(failure("tasks/done", now));
        assert_eq!(
            log.fresh_in("tasks/done", now).map(|f| f.dir),
            Some("tasks/done".into())
        );
        assert_eq!(
            log.fresh_in("tasks/open", now),
            None,
            "older than five minutes"
        );
        assert_eq!(log.newest_first()[0].dir, "tasks/done");
    }
}
