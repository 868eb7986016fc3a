//! What a test run keeps beyond its counts and problems, for telling later which tests
//! a change may break and what changed since a failing test last passed (issue 44): the
//! tests that passed in it, what its traced second pass recorded (each traced test's
//! outcome and lines, the files run again and what it cost), and the code's snapshot
//! when it started. Kept by either backend ([`TraceRows`]; SQLite: `sqlite.rs`,
//! PostgreSQL: `postgres.rs`); the rules over them are [`super::RunRecords`]'s.
//!
//! Passed tests and traces are rows of their own, each indexed by test then run, so that
//! "the newest run before N in which this test passed" and "each test's newest trace"
//! walk an index instead of every run; they go with their run (`ON DELETE CASCADE`,
//! though nothing deletes runs yet). A trace's lines are kept as runs (`1-4,9`) per file,
//! in a JSON object, exact for any file name. Snapshots are kept once per body, keyed by
//! [`Snapshot::digest`], and runs of unchanged code name the same one; a snapshot no run
//! names any more would stay (no run is ever deleted, so none is unnamed today).

mod postgres;
mod sqlite;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;

use crate::error::{Error, Result};
use crate::store::row::Row;
use crate::testrun::coverage::{TestLines, TestOutcome, lines_of, ranges_of};

pub(crate) use postgres::{PG_COLLECTED, PG_COUNTS, PG_PROBING, PG_TRACES};
pub(crate) use sqlite::{COLLECTED, COUNTS, PROBING, TRACES};

/// A run's traced pass as stored: its files (a JSON array), seconds, and what its probe
/// found (`Probing::encode`) if it ran.
pub type TracedPass = (String, f64, Option<String>);

/// One traced test as stored: its node id, outcome, and files with their line runs.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceRow {
    pub test: String,
    pub outcome: &'static str,
    /// `{"calc/ops.py": "1-2,5-6"}`.
    pub files: String,
}

impl TraceRow {
    /// `lines` as stored.
    pub fn of(lines: &TestLines) -> Result<TraceRow> {
        let files: BTreeMap<&str, String> = lines
            .files
            .iter()
            .map(|(file, lines)| (file.as_str(), ranges_of(lines)))
            .collect();
        Ok(TraceRow {
            test: lines.test.clone(),
            outcome: lines.outcome.as_str(),
            files: to_json(&files, &lines.test)?,
        })
    }
}

/// What a backend answers about what runs keep for issue 44; [`super::RunRecords`] is what
/// callers use. `checkout` is whose runs, as in [`super::RunRows`]: that checkout's and the
/// ones from before runs were kept per checkout.
pub trait TraceRows {
    /// Keeps `tests` (junit ids) as the tests that passed in run `id`, in their order.
    fn add_passed(&self, id: i64, tests: &[String]) -> Result<()>;
    /// The tests that passed in `checkout`'s run `id`, in the order they were kept.
    fn passed_in(&self, checkout: &str, id: i64) -> Result<Vec<String>>;
    /// The newest run of `checkout` numbered below `before` in which `test` (a junit id,
    /// `tests.test_calc.TestOps.test_div[2-0]`) passed.
    fn last_passed(&self, checkout: &str, test: &str, before: i64) -> Result<Option<i64>>;
    /// Records that run `id` had a traced pass over `files` (a JSON array) lasting
    /// `seconds`, and what its probe found (`Probing::encode`), if it ran.
    fn set_traced(&self, id: i64, files: &str, seconds: f64, probing: Option<&str>) -> Result<()>;
    /// Keeps `traces` as run `id`'s, in the order the tests ran.
    fn add_traces(&self, id: i64, traces: &[TraceRow]) -> Result<()>;
    /// The files (a JSON array), seconds and probe of `checkout`'s run `id`'s traced pass:
    /// `None` when it had none, or is not that checkout's.
    fn traced_pass(&self, checkout: &str, id: i64) -> Result<Option<TracedPass>>;
    /// The traces of run `id`, in the order the tests ran.
    fn traces_of(&self, id: i64) -> Result<Vec<TestLines>>;
    /// For each test node id ever traced in a run of `checkout`, its newest trace and that
    /// run's number, by node id.
    fn latest_traces(&self, checkout: &str) -> Result<Vec<(i64, TestLines)>>;
    /// Keeps snapshot `body` under `digest` unless one is kept there; whether it was new.
    fn add_snapshot(&self, digest: &str, body: &str) -> Result<bool>;
    /// The snapshot kept under `digest`.
    fn snapshot_body(&self, digest: &str) -> Result<Option<String>>;
    /// Names the snapshot kept under `digest` as run `id`'s; whether there is such a run.
    fn set_snapshot(&self, id: i64, digest: &str) -> Result<bool>;
    /// The snapshot `checkout`'s run `id` names.
    fn snapshot_of(&self, checkout: &str, id: i64) -> Result<Option<String>>;
}

/// `value` as JSON; `what` names it if it cannot be (it always can: strings only).
pub(super) fn to_json(value: &impl serde::Serialize, what: &str) -> Result<String> {
    serde_json::to_string(value)
        .map_err(|e| Error::internal(format!("cannot keep the trace of {what}: {e}")))
}

/// The traced files as stored: a JSON array, exact for any name.
pub(super) fn files_text(files: &[String]) -> Result<String> {
    to_json(&files, "a run's traced files")
}

/// What [`files_text`] wrote, of run `id`.
pub(super) fn files_of(id: i64, text: &str) -> Result<Vec<String>> {
    serde_json::from_str(text).map_err(|e| {
        Error::internal(format!(
            "test run {id}'s traced files are stored as {text:?}, which is no list of \
             files ({e}): was the store changed by hand? Set its traced_files to '[]'"
        ))
    })
}

/// Columns `at..at + 3` of `r`, (test, outcome, files), of run `run`.
fn trace_of(r: &impl Row, at: usize, run: i64) -> Result<TestLines> {
    let (test, outcome, files): (String, String, String) =
        (r.value(at)?, r.value(at + 1)?, r.value(at + 2)?);
    let changed = |what: String| {
        Error::internal(format!(
            "test run {run}'s trace of {test} holds {what}: was the store changed by hand? \
             Delete that row of test_traces"
        ))
    };
    let outcome = TestOutcome::named(&outcome)
        .ok_or_else(|| changed(format!("the outcome {outcome:?}, which is none")))?;
    let runs: BTreeMap<String, String> = serde_json::from_str(&files)
        .map_err(|e| changed(format!("{files:?}, which is no object of files ({e})")))?;
    let files = runs
        .into_iter()
        .map(|(file, ranges)| match lines_of(&ranges) {
            Some(lines) => Ok((file, lines)),
            None => Err(changed(format!(
                "{ranges:?} for {file}, which are no line runs"
            ))),
        })
        .collect::<Result<_>>()?;
    Ok(TestLines {
        test,
        outcome,
        files,
    })
}

/// Each test's last row of `rows` (run and trace, ordered by test then by when it ran):
/// its newest trace, the later one where a run traced a node id twice.
fn latest_of(rows: Vec<(i64, TestLines)>) -> Vec<(i64, TestLines)> {
    let mut latest: Vec<(i64, TestLines)> = Vec::new();
    for (run, lines) in rows {
        match latest.last_mut() {
            Some(last) if last.1.test == lines.test => *last = (run, lines),
            _ => latest.push((run, lines)),
        }
    }
    latest
}

/// A row of (run, test, outcome, files).
fn run_trace_of(r: &impl Row) -> Result<(i64, TestLines)> {
    let run: i64 = r.value(0)?;
    Ok((run, trace_of(r, 1, run)?))
}
