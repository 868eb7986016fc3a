//! The daemon's clock: the system's, stepped forward by a test that needs time to pass.
//!
//! Times are stored to the second, and some behaviour depends on a second having passed (a
//! failure repeated after a second is counted, not folded; a copy read before another
//! writer's change is stale). A test would have to sleep past a second for those; instead,
//! a daemon started with [`TEST_CLOCK_VARIABLE`] naming a file adds the whole seconds that
//! file holds to every time it takes, and the test writes a larger number there. Without the
//! variable (every real mount) the clock is the system's.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, SystemTime};

/// The variable naming the test clock's file (seconds to add to the system's clock): a
/// test hook, set by the integration tests' mounts only.
pub const TEST_CLOCK_VARIABLE: &str = "HOMESPACE_TEST_CLOCK";

/// The clock times are taken from.
pub struct Clock;

impl Clock {
    /// The time now: the system's, plus a test's step (see the module's doc).
    pub fn now() -> SystemTime {
        SystemTime::now() + test_step()
    }
}

/// How far a test stepped the clock: nothing unless [`TEST_CLOCK_VARIABLE`] is set.
fn test_step() -> Duration {
    static FILE: OnceLock<Option<PathBuf>> = OnceLock::new();
    FILE.get_or_init(|| std::env::var_os(TEST_CLOCK_VARIABLE).map(PathBuf::from))
        .as_deref()
        .map_or(Duration::ZERO, step_in)
}

/// The whole seconds `file` holds; none when it is missing or holds anything else (a test
/// that has not stepped the clock yet).
fn step_in(file: &Path) -> Duration {
    std::fs::read_to_string(file)
        .ok()
        .and_then(|text| text.trim().parse().ok())
        .map_or(Duration::ZERO, Duration::from_secs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_step_is_the_seconds_the_file_holds_and_nothing_without_one() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("clock");
        assert_eq!(step_in(&file), Duration::ZERO);
        std::fs::write(&file, "2\n").unwrap();
        assert_eq!(step_in(&file), Duration::from_secs(2));
        std::fs::write(&file, "soon").unwrap();
        assert_eq!(step_in(&file), Duration::ZERO);
    }
}
