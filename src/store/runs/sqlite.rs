//! The SQLite backend of [`RunRows`], and the test runs' SQLite migration.

use rusqlite::{Connection, OptionalExtension, params};

use super::{RUN_COLUMNS, Run, RunRows, listed_of, problem_of, run_of, running_of};
use crate::error::Result;
use crate::model::time::Time;
use crate::store::row::{limit, sqlite_rows};
use crate::testrun::junit::Problem;
use crate::testrun::run::Outcome;
use crate::testrun::summary::closing_counts;

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

impl RunRows for Connection {
    fn running(&self, checkout: &str) -> Result<Vec<(i64, u32)>> {
        let mut statement = self.prepare_cached(
            "SELECT id, pid FROM test_runs
             WHERE status = 'running' AND checkout IN ('', ?1) ORDER BY id",
        )?;
        sqlite_rows(statement.query([checkout])?, running_of)
    }

    fn close_as_error(&self, id: i64, ended: Time, note: &str) -> Result<()> {
        let ended = ended.to_string();
        self.prepare_cached(
            "UPDATE test_runs SET status = 'error', ended = ?2, output = output || ?3
             WHERE id = ?1",
        )?
        .execute(params![id, ended, note])?;
        Ok(())
    }

    fn insert(&self, checkout: &str, run: &Run, output: &str, pid: u32) -> Result<i64> {
        let (started, ended) = (run.started.to_string(), run.ended.map(|t| t.to_string()));
        self.prepare_cached(
            "INSERT INTO test_runs (checkout, command, started, ended, seconds, status, passed,
                 failed, errors, skipped, output, pid, counts)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
        )?
        .execute(params![
            checkout,
            run.command,
            started,
            ended,
            run.seconds,
            run.status,
            run.passed as i64,
            run.failed as i64,
            run.errors as i64,
            run.skipped as i64,
            output,
            pid,
            run.counts
        ])?;
        Ok(self.last_insert_rowid())
    }

    fn close(&self, id: i64, ended: Time, outcome: &Outcome) -> Result<()> {
        let ended = ended.to_string();
        let r = &outcome.report;
        self.prepare_cached(
            "UPDATE test_runs SET ended = ?2, seconds = ?3, status = ?4, passed = ?5, failed = ?6,
                errors = ?7, skipped = ?8, output = ?9, counts = ?10
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
            outcome.output,
            closing_counts(&outcome.output)
        ])?;
        Ok(())
    }

    fn add_problem(&self, id: i64, seq: i32, p: &Problem) -> Result<()> {
        self.prepare_cached(
            "INSERT INTO test_problems (run, seq, test, kind, message, traceback)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )?
        .execute(params![id, seq, p.id, p.kind, p.message, p.traceback])?;
        Ok(())
    }

    fn get(&self, checkout: &str, id: Option<i64>) -> Result<Option<Run>> {
        let mut statement = self.prepare_cached(&format!(
            "SELECT {RUN_COLUMNS} FROM test_runs
             WHERE checkout IN ('', ?1) AND id = coalesce(?2,
                 (SELECT max(id) FROM test_runs WHERE checkout IN ('', ?1)))"
        ))?;
        let row = statement.query_row(params![checkout, id], |r| Ok(run_of(r)));
        row.optional()?.transpose()
    }

    fn newest(&self, checkout: &str, n: usize) -> Result<Vec<Run>> {
        let mut statement = self.prepare_cached(&format!(
            "SELECT {RUN_COLUMNS} FROM test_runs WHERE checkout IN ('', ?1)
             ORDER BY id DESC LIMIT ?2"
        ))?;
        sqlite_rows(statement.query(params![checkout, limit(n)])?, run_of)
    }

    fn output(&self, checkout: &str, id: i64) -> Result<Option<String>> {
        Ok(self
            .prepare_cached("SELECT output FROM test_runs WHERE id = ?1 AND checkout IN ('', ?2)")?
            .query_row(params![id, checkout], |r| r.get(0))
            .optional()?)
    }

    fn problems(&self, checkout: &str, id: i64) -> Result<Vec<Problem>> {
        let mut statement = self.prepare_cached(
            "SELECT p.test, p.kind, p.message, p.traceback
             FROM test_problems p JOIN test_runs r ON r.id = p.run
             WHERE p.run = ?1 AND r.checkout IN ('', ?2) ORDER BY p.seq",
        )?;
        sqlite_rows(statement.query(params![id, checkout])?, problem_of)
    }

    fn listed(&self, after: i64, n: usize) -> Result<Vec<(String, Run, u32)>> {
        let mut statement = self.prepare_cached(&format!(
            "SELECT {RUN_COLUMNS}, checkout, pid FROM test_runs WHERE id > ?1
             ORDER BY id LIMIT ?2"
        ))?;
        sqlite_rows(statement.query(params![after, limit(n)])?, listed_of)
    }

    fn count_all(&self) -> Result<i64> {
        Ok(self.query_row("SELECT count(*) FROM test_runs", [], |r| r.get(0))?)
    }
}
