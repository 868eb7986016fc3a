//! The PostgreSQL backend of [`RunRows`]: SQLite's statements in PostgreSQL's words.
//! A run's output is kept as bytes (`BYTEA`), not `TEXT`: PostgreSQL's text cannot hold a
//! NUL, and the output is everything pytest printed, exact.

use super::{RUN_COLUMNS, Run, RunRows, listed_of, problem_of, run_of, running_of};
use crate::error::Result;
use crate::model::time::Time;
use crate::store::postgres::Tx;
use crate::store::row::limit;
use crate::testrun::junit::Problem;
use crate::testrun::run::Outcome;
use crate::testrun::summary::closing_counts;

/// Migration 7 for PostgreSQL.
pub(crate) const PG_SCHEMA: &str = "
CREATE TABLE test_runs (
    id       BIGSERIAL PRIMARY KEY,
    command  TEXT NOT NULL,
    started  TEXT NOT NULL,
    ended    TEXT,
    seconds  DOUBLE PRECISION,
    status   TEXT NOT NULL
        CHECK (status IN ('running', 'passed', 'failed', 'error', 'timed out')),
    passed   BIGINT NOT NULL DEFAULT 0,
    failed   BIGINT NOT NULL DEFAULT 0,
    errors   BIGINT NOT NULL DEFAULT 0,
    skipped  BIGINT NOT NULL DEFAULT 0,
    output   BYTEA NOT NULL DEFAULT '',
    pid      BIGINT NOT NULL
);
CREATE UNIQUE INDEX test_runs_one_running ON test_runs (status) WHERE status = 'running';
CREATE TABLE test_problems (
    run       BIGINT NOT NULL REFERENCES test_runs (id) ON DELETE CASCADE,
    seq       INTEGER NOT NULL,
    test      TEXT NOT NULL,
    kind      TEXT NOT NULL CHECK (kind IN ('failure', 'error')),
    message   TEXT NOT NULL,
    traceback TEXT NOT NULL,
    PRIMARY KEY (run, seq)
);
";

/// A count as PostgreSQL's `BIGINT`.
fn bigint(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

impl RunRows for Tx<'_> {
    fn running(&self, checkout: &str) -> Result<Vec<(i64, u32)>> {
        let rows = self.query(
            "SELECT id, pid FROM test_runs
             WHERE status = 'running' AND checkout IN ('', $1) ORDER BY id",
            &[&checkout],
        )?;
        rows.iter().map(running_of).collect()
    }

    fn close_as_error(&self, id: i64, ended: Time, note: &str) -> Result<()> {
        let ended = ended.to_string();
        self.execute(
            "UPDATE test_runs SET status = 'error', ended = $2, output = output || $3
             WHERE id = $1",
            &[&id, &ended, &note.as_bytes()],
        )?;
        Ok(())
    }

    fn insert(&self, checkout: &str, run: &Run, output: &str, pid: u32) -> Result<i64> {
        let (started, ended) = (run.started.to_string(), run.ended.map(|t| t.to_string()));
        let row = self.query_one(
            "INSERT INTO test_runs (checkout, command, started, ended, seconds, status,
                 passed, failed, errors, skipped, output, pid, counts)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING id",
            &[
                &checkout,
                &run.command,
                &started,
                &ended,
                &run.seconds,
                &run.status,
                &bigint(run.passed),
                &bigint(run.failed),
                &bigint(run.errors),
                &bigint(run.skipped),
                &output.as_bytes(),
                &i64::from(pid),
                &run.counts,
            ],
        )?;
        Ok(row.get(0))
    }

    fn close(&self, id: i64, ended: Time, outcome: &Outcome) -> Result<()> {
        let ended = ended.to_string();
        let r = &outcome.report;
        self.execute(
            "UPDATE test_runs SET ended = $2, seconds = $3, status = $4, passed = $5,
                failed = $6, errors = $7, skipped = $8, output = $9, counts = $10
             WHERE id = $1",
            &[
                &id,
                &ended,
                &outcome.seconds,
                &outcome.status.as_str(),
                &bigint(r.passed),
                &bigint(r.failed),
                &bigint(r.errors),
                &bigint(r.skipped),
                &outcome.output.as_bytes(),
                &closing_counts(&outcome.output),
            ],
        )?;
        Ok(())
    }

    fn add_problem(&self, id: i64, seq: i32, p: &Problem) -> Result<()> {
        self.execute(
            "INSERT INTO test_problems (run, seq, test, kind, message, traceback)
             VALUES ($1, $2, $3, $4, $5, $6)",
            &[&id, &seq, &p.id, &p.kind, &p.message, &p.traceback],
        )?;
        Ok(())
    }

    fn get(&self, checkout: &str, id: Option<i64>) -> Result<Option<Run>> {
        let row = self.query_opt(
            &format!(
                "SELECT {RUN_COLUMNS} FROM test_runs
                 WHERE checkout IN ('', $1) AND id = coalesce($2,
                     (SELECT max(id) FROM test_runs WHERE checkout IN ('', $1)))"
            ),
            &[&checkout, &id],
        )?;
        row.as_ref().map(run_of).transpose()
    }

    fn newest(&self, checkout: &str, n: usize) -> Result<Vec<Run>> {
        let rows = self.query(
            &format!(
                "SELECT {RUN_COLUMNS} FROM test_runs WHERE checkout IN ('', $1)
                 ORDER BY id DESC LIMIT $2"
            ),
            &[&checkout, &limit(n)],
        )?;
        rows.iter().map(run_of).collect()
    }

    fn output(&self, checkout: &str, id: i64) -> Result<Option<String>> {
        let row = self.query_opt(
            "SELECT output FROM test_runs WHERE id = $1 AND checkout IN ('', $2)",
            &[&id, &checkout],
        )?;
        // Stored from a `String`, so the bytes are UTF-8; lossy only if changed by hand.
        Ok(row.map(|r| String::from_utf8_lossy(r.get::<_, &[u8]>(0)).into_owned()))
    }

    fn problems(&self, checkout: &str, id: i64) -> Result<Vec<Problem>> {
        let rows = self.query(
            "SELECT p.test, p.kind, p.message, p.traceback
             FROM test_problems p JOIN test_runs r ON r.id = p.run
             WHERE p.run = $1 AND r.checkout IN ('', $2) ORDER BY p.seq",
            &[&id, &checkout],
        )?;
        rows.iter().map(problem_of).collect()
    }

    fn listed(&self, after: i64, n: usize) -> Result<Vec<(String, Run, u32)>> {
        let rows = self.query(
            &format!(
                "SELECT {RUN_COLUMNS}, checkout, pid FROM test_runs WHERE id > $1
                 ORDER BY id LIMIT $2"
            ),
            &[&after, &limit(n)],
        )?;
        rows.iter().map(listed_of).collect()
    }

    fn count_all(&self) -> Result<i64> {
        Ok(self
            .query_one("SELECT count(*) FROM test_runs", &[])?
            .get(0))
    }
}
