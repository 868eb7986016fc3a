//! Test runs of `source/tests/`, kept across remounts: each run's command, status,
//! counts, whole output, and its failing and erroring tests with their tracebacks. Kept by
//! either backend of the store ([`RunRecords`]; SQLite: `sqlite.rs`, PostgreSQL:
//! `postgres.rs`). At most one run is `running` at a time, also across processes sharing
//! the store: [`RunRecords::begin`] checks inside the caller's write transaction (which
//! both backends serialize), and a partial unique index says so to anyone else.

mod postgres;
mod sqlite;

use crate::error::{Error, ErrorKind, Result};
use crate::testrun::junit::Problem;
use crate::testrun::run::Outcome;

pub(crate) use postgres::PG_SCHEMA;
pub(crate) use sqlite::SCHEMA;

/// One run as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    pub id: i64,
    pub command: String,
    pub started: String,
    pub ended: Option<String>,
    pub seconds: Option<f64>,
    pub status: String,
    pub passed: u64,
    pub failed: u64,
    pub errors: u64,
    pub skipped: u64,
}

/// What is appended to the output of a run whose process is gone.
const ABANDONED: &str = "The mount running this test run stopped before it ended.\n";

/// The test runs of a store, whichever backend holds them.
pub trait RunRecords {
    /// Starts a run of `command` at `started` in process `pid`; returns its number.
    /// Refused (busy) while another run is running, naming it; a run whose process is gone
    /// (a daemon killed mid-run) is closed as an error first, as `alive` tells. Call it
    /// inside a write transaction, so that no other process starts one in between.
    fn begin(
        &self,
        command: &str,
        started: &str,
        pid: u32,
        alive: &dyn Fn(u32) -> bool,
    ) -> Result<i64> {
        if let Some((running, owner)) = self.running()? {
            if alive(owner) {
                return Err(Error::new(
                    ErrorKind::Busy,
                    format!(
                        "test run {running} is still running; watch source/tests/runs/{running}/ and start another when it ends"
                    ),
                ));
            }
            self.abandon(running, started)?;
        }
        self.start(command, started, pid)
    }

    /// The run that is running, if one is, and the process running it.
    fn running(&self) -> Result<Option<(i64, u32)>>;
    /// Closes run `id`, whose process is gone, as an error at `ended`, saying so in its
    /// output.
    fn abandon(&self, id: i64, ended: &str) -> Result<()>;
    /// Records a new running run, without the checks of [`RunRecords::begin`].
    fn start(&self, command: &str, started: &str, pid: u32) -> Result<i64>;
    /// Records how run `id` ended.
    fn finish(&self, id: i64, ended: &str, outcome: &Outcome) -> Result<()>;
    /// Run `id`, or the newest with `None`.
    fn get(&self, id: Option<i64>) -> Result<Option<Run>>;
    /// The newest `limit` runs, newest first.
    fn newest(&self, limit: usize) -> Result<Vec<Run>>;
    /// The whole output of run `id`.
    fn output(&self, id: i64) -> Result<Option<String>>;
    /// The failing and erroring tests of run `id`, in the order they were reported.
    fn problems(&self, id: i64) -> Result<Vec<Problem>>;
}

/// A problem's kind as stored back to the one the report gave.
fn kind_of(stored: &str) -> &'static str {
    if stored == "error" {
        "error"
    } else {
        "failure"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::testing::for_each_backend;
    use crate::testrun::junit::Report;
    use crate::testrun::run::Status;

    #[test]
    fn a_run_is_kept_with_its_problems_and_one_runs_at_a_time() {
        for_each_backend(|store| {
            let alive = |_| true;
            let begin = |command: &str, started: &str, pid: u32, alive: &dyn Fn(u32) -> bool| {
                store.change_records(|db| db.runs().begin(command, started, pid, alive))
            };
            let first = begin("python3 -m pytest", "2026-11-23T18:00:00Z", 7, &alive).unwrap();
            let again = begin("python3 -m pytest", "2026-11-23T18:00:01Z", 7, &alive).unwrap_err();
            assert_eq!(again.kind, ErrorKind::Busy);
            assert!(
                again
                    .message
                    .contains(&format!("source/tests/runs/{first}/")),
                "{}",
                again.message
            );
            let outcome = Outcome {
                status: Status::Failed,
                report: Report {
                    passed: 3,
                    failed: 1,
                    errors: 0,
                    skipped: 2,
                    problems: vec![
                        Problem {
                            id: "tests.test_calc.test_div".into(),
                            kind: "failure",
                            message: "ZeroDivisionError".into(),
                            traceback: "E   ZeroDivisionError".into(),
                        },
                        Problem {
                            id: "tests.test_calc.test_setup".into(),
                            kind: "error",
                            message: "fixture 'db' not found".into(),
                            traceback: "E   fixture 'db' not found".into(),
                        },
                    ],
                },
                // Exact, whatever pytest printed: a NUL byte and non-ASCII included.
                output: "1 failed, 3 passed, 2 skipped \u{0} — é".into(),
                seconds: 1.5,
            };
            store
                .change_records(|db| db.runs().finish(first, "2026-11-23T18:00:02Z", &outcome))
                .unwrap();
            let run = store.records(|db| db.runs().get(None)).unwrap().unwrap();
            assert_eq!(
                (
                    run.id,
                    run.status.as_str(),
                    run.passed,
                    run.failed,
                    run.skipped,
                    run.seconds,
                    run.ended.as_deref()
                ),
                (
                    first,
                    "failed",
                    3,
                    1,
                    2,
                    Some(1.5),
                    Some("2026-11-23T18:00:02Z")
                )
            );
            assert_eq!(
                store.records(|db| db.runs().problems(first)).unwrap(),
                outcome.report.problems
            );
            assert_eq!(
                store
                    .records(|db| db.runs().output(first))
                    .unwrap()
                    .unwrap(),
                outcome.output
            );
            let second = begin(
                "python3 -m pytest -k div",
                "2026-11-23T18:01:00Z",
                7,
                &alive,
            )
            .unwrap();
            let ids: Vec<i64> = store
                .records(|db| db.runs().newest(10))
                .unwrap()
                .iter()
                .map(|r| r.id)
                .collect();
            assert_eq!(ids, [second, first]);
            let running = || store.records(|db| db.runs().running()).unwrap();
            assert_eq!(running(), Some((second, 7)));
            // Its process died with the mount: the next run closes it as an error and starts.
            let third = begin("python3 -m pytest", "2026-11-23T18:02:00Z", 8, &|pid| {
                pid != 7
            })
            .unwrap();
            let orphan = store
                .records(|db| db.runs().get(Some(second)))
                .unwrap()
                .unwrap();
            assert_eq!(
                (orphan.status.as_str(), orphan.ended.as_deref()),
                ("error", Some("2026-11-23T18:02:00Z"))
            );
            assert!(
                store
                    .records(|db| db.runs().output(second))
                    .unwrap()
                    .unwrap()
                    .contains("stopped before it ended")
            );
            assert_eq!(running(), Some((third, 8)));
            assert_eq!(store.records(|db| db.runs().get(Some(99))).unwrap(), None);
            assert_eq!(store.records(|db| db.runs().output(99)).unwrap(), None);
        });
    }

    #[test]
    fn the_index_refuses_a_second_running_run_whoever_writes_it() {
        for_each_backend(|store| {
            store
                .change_records(|db| db.runs().start("pytest", "t1", 7))
                .unwrap();
            let second = store.change_records(|db| db.runs().start("pytest", "t2", 8));
            assert!(second.is_err(), "{second:?}");
        });
    }
}
