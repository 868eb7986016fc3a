//! Test runs of `source/tests/`, kept across remounts: each run's command, status,
//! counts, whole output, and its failing and erroring tests with their tracebacks. At
//! most one run is `running` at a time, also across processes sharing the store (a
//! partial unique index says so).

use rusqlite::{Connection, OptionalExtension, params};

use crate::error::{Error, ErrorKind, Result};
use crate::testrun::junit::Problem;
use crate::testrun::run::Outcome;

/// Migration 7: test runs and their problems.
pub(crate) const SCHEMA: &str = "
CREATE TABLE test_runs (
    id       INTEGER PRIMARY KEY AUTOINCREMENT,
    command  TEXT NOT NULL,
    started  TEXT NOT NULL,
    ended    TEXT,
    seconds  REAL,
    status   TEXT NOT NULL
        CHECK (status IN ('running', 'passed', 'failed', 'error', 'timed out')),
    passed   INTEGER NOT NULL DEFAULT 0,
    failed   INTEGER NOT NULL DEFAULT 0,
    errors   INTEGER NOT NULL DEFAULT 0,
    skipped  INTEGER NOT NULL DEFAULT 0,
    -- Everything pytest printed, exact.
    output   TEXT NOT NULL DEFAULT '',
    -- The process running it: a run whose process is gone is not running any more.
    pid      INTEGER NOT NULL
);
-- One run at a time.
CREATE UNIQUE INDEX test_runs_one_running ON test_runs (status) WHERE status = 'running';
CREATE TABLE test_problems (
    run       INTEGER NOT NULL REFERENCES test_runs (id) ON DELETE CASCADE,
    -- The order the report lists them in.
    seq       INTEGER NOT NULL,
    -- `tests.test_calc.TestOps.test_div[2-0]`.
    test      TEXT NOT NULL,
    kind      TEXT NOT NULL CHECK (kind IN ('failure', 'error')),
    message   TEXT NOT NULL,
    traceback TEXT NOT NULL,
    PRIMARY KEY (run, seq)
) WITHOUT ROWID;
";

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

/// Starts run of `command` at `started` in process `pid`; returns its number. Refused
/// (busy) while another run is running, naming it; a run whose process is gone (a daemon
/// killed mid-run) is closed as an error first, as `alive` tells.
pub fn begin(
    conn: &Connection,
    command: &str,
    started: &str,
    pid: u32,
    alive: impl Fn(u32) -> bool,
) -> Result<i64> {
    if let Some((running, owner)) = running(conn)? {
        if alive(owner) {
            return Err(Error::new(
                ErrorKind::Busy,
                format!(
                    "test run {running} is still running; watch source/tests/runs/{running}/ and start another when it ends"
                ),
            ));
        }
        conn.prepare_cached(
            "UPDATE test_runs SET status = 'error', ended = ?2,
                output = output || 'The mount running this test run stopped before it ended.\n'
             WHERE id = ?1",
        )?
        .execute(params![running, started])?;
    }
    conn.prepare_cached(
        "INSERT INTO test_runs (command, started, status, pid) VALUES (?1, ?2, 'running', ?3)",
    )?
    .execute(params![command, started, pid])?;
    Ok(conn.last_insert_rowid())
}

/// The run that is running, if one is, and the process running it.
pub fn running(conn: &Connection) -> Result<Option<(i64, u32)>> {
    Ok(conn
        .prepare_cached("SELECT id, pid FROM test_runs WHERE status = 'running'")?
        .query_row([], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?)
}

/// Records how run `id` ended.
pub fn finish(conn: &Connection, id: i64, ended: &str, outcome: &Outcome) -> Result<()> {
    let r = &outcome.report;
    conn.prepare_cached(
        "UPDATE test_runs SET ended = ?2, seconds = ?3, status = ?4, passed = ?5, failed = ?6,
            errors = ?7, skipped = ?8, output = ?9
         WHERE id = ?1",
    )?
    .execute(params![
        id,
        ended,
        outcome.seconds,
        outcome.status.as_str(),
        r.passed as i64,
        r.failed as i64,
        r.errors as i64,
        r.skipped as i64,
        outcome.output
    ])?;
    let mut insert = conn.prepare_cached(
        "INSERT INTO test_problems (run, seq, test, kind, message, traceback)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?;
    for (seq, p) in r.problems.iter().enumerate() {
        insert.execute(params![
            id,
            seq as i64,
            p.id,
            p.kind,
            p.message,
            p.traceback
        ])?;
    }
    Ok(())
}

/// The columns of a [`Run`], in the order [`run_of`] reads them.
const RUN_COLUMNS: &str =
    "id, command, started, ended, seconds, status, passed, failed, errors, skipped";

fn run_of(r: &rusqlite::Row<'_>) -> rusqlite::Result<Run> {
    let count = |i: usize| r.get::<_, i64>(i).map(|n| n as u64);
    Ok(Run {
        id: r.get(0)?,
        command: r.get(1)?,
        started: r.get(2)?,
        ended: r.get(3)?,
        seconds: r.get(4)?,
        status: r.get(5)?,
        passed: count(6)?,
        failed: count(7)?,
        errors: count(8)?,
        skipped: count(9)?,
    })
}

/// Run `id`, or the newest with `None`.
pub fn get(conn: &Connection, id: Option<i64>) -> Result<Option<Run>> {
    Ok(conn
        .prepare_cached(&format!(
            "SELECT {RUN_COLUMNS} FROM test_runs
             WHERE id = coalesce(?1, (SELECT max(id) FROM test_runs))"
        ))?
        .query_row([id], run_of)
        .optional()?)
}

/// The newest `limit` runs, newest first.
pub fn newest(conn: &Connection, limit: usize) -> Result<Vec<Run>> {
    let mut rows = conn.prepare_cached(&format!(
        "SELECT {RUN_COLUMNS} FROM test_runs ORDER BY id DESC LIMIT ?1"
    ))?;
    let runs = rows
        .query_map([limit as i64], run_of)?
        .collect::<rusqlite::Result<_>>()?;
    Ok(runs)
}

/// The whole output of run `id`.
pub fn output(conn: &Connection, id: i64) -> Result<Option<String>> {
    Ok(conn
        .prepare_cached("SELECT output FROM test_runs WHERE id = ?1")?
        .query_row([id], |r| r.get(0))
        .optional()?)
}

/// The failing and erroring tests of run `id`, in the order they were reported.
pub fn problems(conn: &Connection, id: i64) -> Result<Vec<Problem>> {
    let mut rows = conn.prepare_cached(
        "SELECT test, kind, message, traceback FROM test_problems WHERE run = ?1 ORDER BY seq",
    )?;
    let found = rows
        .query_map([id], |r| {
            let kind: String = r.get(1)?;
            Ok(Problem {
                id: r.get(0)?,
                kind: if kind == "error" { "error" } else { "failure" },
                message: r.get(2)?,
                traceback: r.get(3)?,
            })
        })?
        .collect::<rusqlite::Result<_>>()?;
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;
    use crate::testrun::junit::Report;
    use crate::testrun::run::Status;

    #[test]
    fn a_run_is_kept_with_its_problems_and_one_runs_at_a_time() {
        let store = Store::in_memory().unwrap();
        let alive = |_| true;
        let first = store
            .write(|c| begin(c, "python3 -m pytest", "2026-11-23T18:00:00Z", 7, alive))
            .unwrap();
        let again = store
            .write(|c| begin(c, "python3 -m pytest", "2026-11-23T18:00:01Z", 7, alive))
            .unwrap_err();
        assert_eq!(again.kind, ErrorKind::Busy);
        assert!(
            again.message.contains("source/tests/runs/1/"),
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
                problems: vec![Problem {
                    id: "tests.test_calc.test_div".into(),
                    kind: "failure",
                    message: "ZeroDivisionError".into(),
                    traceback: "E   ZeroDivisionError".into(),
                }],
            },
            output: "1 failed, 3 passed, 2 skipped".into(),
            seconds: 1.5,
        };
        store
            .write(|c| finish(c, first, "2026-11-23T18:00:02Z", &outcome))
            .unwrap();
        let run = store.read(|c| get(c, None)).unwrap().unwrap();
        assert_eq!(
            (
                run.id,
                run.status.as_str(),
                run.passed,
                run.failed,
                run.skipped
            ),
            (first, "failed", 3, 1, 2)
        );
        assert_eq!(
            store.read(|c| problems(c, first)).unwrap(),
            outcome.report.problems
        );
        assert_eq!(
            store.read(|c| output(c, first)).unwrap().unwrap(),
            outcome.output
        );
        let second = store
            .write(|c| {
                begin(
                    c,
                    "python3 -m pytest -k div",
                    "2026-11-23T18:01:00Z",
                    7,
                    alive,
                )
            })
            .unwrap();
        let ids: Vec<i64> = store
            .read(|c| newest(c, 10))
            .unwrap()
            .iter()
            .map(|r| r.id)
            .collect();
        assert_eq!(ids, [second, first]);
        assert_eq!(store.read(running).unwrap(), Some((second, 7)));
        // Its process died with the mount: the next run closes it as an error and starts.
        let third = store
            .write(|c| {
                begin(c, "python3 -m pytest", "2026-11-23T18:02:00Z", 8, |pid| {
                    pid != 7
                })
            })
            .unwrap();
        let orphan = store.read(|c| get(c, Some(second))).unwrap().unwrap();
        assert_eq!(orphan.status, "error");
        assert!(
            store
                .read(|c| output(c, second))
                .unwrap()
                .unwrap()
                .contains("stopped before it ended")
        );
        assert_eq!(store.read(running).unwrap(), Some((third, 8)));
    }
}
