//! Test runs of the project with pytest, for `source/tests/`: one run at a time in the
//! background, results from JUnit XML, output kept whole. Knows nothing of the mount.
//!
//! - running pytest with a timeout: `run.rs`;
//! - reading its JUnit XML report: `junit.rs`;
//! - what a selector written to `source/tests/run` may hold: `selector.rs`, its test
//!   paths kept inside the project by `inside.rs`;
//! - a failure's traceback read back into frames: `traceback.rs`;
//! - what only pytest's closing line says (xfailed, xpassed, warnings, subtests): `summary.rs`;
//! - which project lines each test ran, by homespace's own tracer: `coverage.rs`;
//! - the second, traced pass over a failing run's test files: `traced.rs`;
//! - the symbols a failure most likely comes from, ranked from what was traced: `ranking.rs`;
//! - what each symbol of the project was when a run started: `snapshot.rs`.

pub mod coverage;
mod inside;
pub mod junit;
pub mod probe;
pub mod ranking;
pub mod run;
pub mod selector;
pub mod snapshot;
pub mod summary;
pub mod traceback;
pub mod traced;
