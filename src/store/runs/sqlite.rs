//! The SQLite backend of [`RunRecords`].

use rusqlite::{Connection, OptionalExtension, params};

use super::{ABANDONED, Run, RunRecords, StoredRun, kind_of};
use crate::error::Result;
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
-- One run at a time (one per checkout since migration 10).
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

impl RunRecords for Connection {
    fn running(&self, checkout: &str) -> Result<Vec<(i64, u32)>> {
        let mut rows = self.prepare_cached(
            "SELECT id, pid FROM test_runs
             WHERE status = 'running' AND checkout IN ('', ?1) ORDER BY id",
        )?;
        let running = rows
            .query_map([checkout], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<_>>()?;
        Ok(running)
    }

    fn abandon(&self, id: i64, ended: &str) -> Result<()> {
        self.prepare_cached(
            "UPDATE test_runs SET status = 'error', ended = ?2, output = output || ?3
             WHERE id = ?1",
        )?
        .execute(params![id, ended, ABANDONED])?;
        Ok(())
    }

    fn start(&self, checkout: &str, command: &str, started: &str, pid: u32) -> Result<i64> {
        self.prepare_cached(
            "INSERT INTO test_runs (checkout, command, started, status, pid)
             VALUES (?1, ?2, ?3, 'running', ?4)",
        )?
        .execute(params![checkout, command, started, pid])?;
        Ok(self.last_insert_rowid())
    }

    fn finish(&self, id: i64, ended: &str, outcome: &Outcome) -> Result<()> {
        let r = &outcome.report;
        self.prepare_cached(
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
        insert_problems(self, id, &r.problems)
    }

    fn get(&self, checkout: &str, id: Option<i64>) -> Result<Option<Run>> {
        Ok(self
            .prepare_cached(&format!(
                "SELECT {RUN_COLUMNS} FROM test_runs
                 WHERE checkout IN ('', ?1) AND id = coalesce(?2,
                     (SELECT max(id) FROM test_runs WHERE checkout IN ('', ?1)))"
            ))?
            .query_row(params![checkout, id], run_of)
            .optional()?)
    }

    fn newest(&self, checkout: &str, limit: usize) -> Result<Vec<Run>> {
        let mut rows = self.prepare_cached(&format!(
            "SELECT {RUN_COLUMNS} FROM test_runs WHERE checkout IN ('', ?1)
             ORDER BY id DESC LIMIT ?2"
        ))?;
        let runs = rows
            .query_map(
                params![checkout, i64::try_from(limit).unwrap_or(i64::MAX)],
                run_of,
            )?
            .collect::<rusqlite::Result<_>>()?;
        Ok(runs)
    }

    fn output(&self, checkout: &str, id: i64) -> Result<Option<String>> {
        Ok(self
            .prepare_cached("SELECT output FROM test_runs WHERE id = ?1 AND checkout IN ('', ?2)")?
            .query_row(params![id, checkout], |r| r.get(0))
            .optional()?)
    }

    fn problems(&self, checkout: &str, id: i64) -> Result<Vec<Problem>> {
        let mut rows = self.prepare_cached(
            "SELECT p.test, p.kind, p.message, p.traceback
             FROM test_problems p JOIN test_runs r ON r.id = p.run
             WHERE p.run = ?1 AND r.checkout IN ('', ?2) ORDER BY p.seq",
        )?;
        let found = rows
            .query_map(params![id, checkout], |r| {
                Ok(Problem {
                    id: r.get(0)?,
                    kind: kind_of(&r.get::<_, String>(1)?),
                    message: r.get(2)?,
                    traceback: r.get(3)?,
                })
            })?
            .collect::<rusqlite::Result<_>>()?;
        Ok(found)
    }

    fn listed(&self, after: i64, limit: usize) -> Result<Vec<(String, Run, u32)>> {
        let mut rows = self.prepare_cached(&format!(
            "SELECT {RUN_COLUMNS}, checkout, pid FROM test_runs WHERE id > ?1
             ORDER BY id LIMIT ?2"
        ))?;
        let runs = rows
            .query_map(
                params![after, i64::try_from(limit).unwrap_or(i64::MAX)],
                |r| Ok((r.get(10)?, run_of(r)?, r.get(11)?)),
            )?
            .collect::<rusqlite::Result<_>>()?;
        Ok(runs)
    }

    fn count_every(&self) -> Result<usize> {
        let total: i64 = self.query_row("SELECT count(*) FROM test_runs", [], |r| r.get(0))?;
        Ok(usize::try_from(total).unwrap_or(0))
    }

    fn restore(&self, stored: &StoredRun) -> Result<i64> {
        let run = &stored.run;
        self.prepare_cached(
            "INSERT INTO test_runs (checkout, command, started, ended, seconds, status, passed,
                 failed, errors, skipped, output, pid)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
        )?
        .execute(params![
            stored.checkout,
            run.command,
            run.started,
            run.ended,
            run.seconds,
            run.status,
            run.passed as i64,
            run.failed as i64,
            run.errors as i64,
            run.skipped as i64,
            stored.output,
            stored.pid
        ])?;
        let id = self.last_insert_rowid();
        insert_problems(self, id, &stored.problems)?;
        Ok(id)
    }
}

/// Keeps `problems` as run `id`'s, in their order.
fn insert_problems(conn: &Connection, id: i64, problems: &[Problem]) -> Result<()> {
    let mut insert = conn.prepare_cached(
        "INSERT INTO test_problems (run, seq, test, kind, message, traceback)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?;
    for (seq, p) in problems.iter().enumerate() {
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
