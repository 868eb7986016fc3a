//! The PostgreSQL backend of [`RunRecords`]: SQLite's statements in PostgreSQL's words.
//! A run's output is kept as bytes (`BYTEA`), not `TEXT`: PostgreSQL's text cannot hold a
//! NUL, and the output is everything pytest printed, exact.

use postgres::Row;

use super::{ABANDONED, Run, RunRecords, StoredRun, kind_of};
use crate::error::{Error, Result};
use crate::store::pg::Tx;
use crate::testrun::junit::Problem;
use crate::testrun::run::Outcome;

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

/// The columns of a [`Run`], in the order [`run_of`] reads them.
const RUN_COLUMNS: &str =
    "id, command, started, ended, seconds, status, passed, failed, errors, skipped";

fn run_of(r: &Row) -> Run {
    // Counts are never negative: they are stored from unsigned numbers.
    let count = |i: usize| u64::try_from(r.get::<_, i64>(i)).unwrap_or(0);
    Run {
        id: r.get(0),
        command: r.get(1),
        started: r.get(2),
        ended: r.get(3),
        seconds: r.get(4),
        status: r.get(5),
        passed: count(6),
        failed: count(7),
        errors: count(8),
        skipped: count(9),
    }
}

/// A count as PostgreSQL's `BIGINT`.
fn bigint(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

impl RunRecords for Tx<'_> {
    fn running(&self, checkout: &str) -> Result<Vec<(i64, u32)>> {
        let rows = self.query(
            "SELECT id, pid FROM test_runs
             WHERE status = 'running' AND checkout IN ('', $1) ORDER BY id",
            &[&checkout],
        )?;
        rows.iter()
            .map(|row| {
                let (id, pid): (i64, i64) = (row.get(0), row.get(1));
                let pid = u32::try_from(pid).map_err(|_| {
                    Error::internal(format!(
                        "test run {id} is stored as running in process {pid}, which is no \
                         process number: was the store changed by hand? Set its status to \
                         'error' to run the tests again"
                    ))
                })?;
                Ok((id, pid))
            })
            .collect()
    }

    fn abandon(&self, id: i64, ended: &str) -> Result<()> {
        self.execute(
            "UPDATE test_runs SET status = 'error', ended = $2, output = output || $3
             WHERE id = $1",
            &[&id, &ended, &ABANDONED.as_bytes()],
        )?;
        Ok(())
    }

    fn start(&self, checkout: &str, command: &str, started: &str, pid: u32) -> Result<i64> {
        Ok(self
            .query_one(
                "INSERT INTO test_runs (checkout, command, started, status, pid)
                 VALUES ($1, $2, $3, 'running', $4) RETURNING id",
                &[&checkout, &command, &started, &i64::from(pid)],
            )?
            .get(0))
    }

    fn finish(&self, id: i64, ended: &str, outcome: &Outcome) -> Result<()> {
        let r = &outcome.report;
        self.execute(
            "UPDATE test_runs SET ended = $2, seconds = $3, status = $4, passed = $5,
                failed = $6, errors = $7, skipped = $8, output = $9
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
            ],
        )?;
        insert_problems(self, id, &r.problems)
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
        Ok(row.as_ref().map(run_of))
    }

    fn newest(&self, checkout: &str, limit: usize) -> Result<Vec<Run>> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = self.query(
            &format!(
                "SELECT {RUN_COLUMNS} FROM test_runs WHERE checkout IN ('', $1)
                 ORDER BY id DESC LIMIT $2"
            ),
            &[&checkout, &limit],
        )?;
        Ok(rows.iter().map(run_of).collect())
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
        Ok(rows
            .iter()
            .map(|r| Problem {
                id: r.get(0),
                kind: kind_of(r.get(1)),
                message: r.get(2),
                traceback: r.get(3),
            })
            .collect())
    }

    fn listed(&self, after: i64, limit: usize) -> Result<Vec<(String, Run, u32)>> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = self.query(
            &format!(
                "SELECT {RUN_COLUMNS}, checkout, pid FROM test_runs WHERE id > $1
                 ORDER BY id LIMIT $2"
            ),
            &[&after, &limit],
        )?;
        Ok(rows
            .iter()
            .map(|row| {
                // Stored from a process number; one changed by hand reads as none.
                let pid = u32::try_from(row.get::<_, i64>(11)).unwrap_or(0);
                (row.get(10), run_of(row), pid)
            })
            .collect())
    }

    fn count_every(&self) -> Result<usize> {
        let total: i64 = self
            .query_one("SELECT count(*) FROM test_runs", &[])?
            .get(0);
        Ok(usize::try_from(total).unwrap_or(0))
    }

    fn restore(&self, stored: &StoredRun) -> Result<i64> {
        let run = &stored.run;
        let id: i64 = self
            .query_one(
                "INSERT INTO test_runs (checkout, command, started, ended, seconds, status,
                     passed, failed, errors, skipped, output, pid)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING id",
                &[
                    &stored.checkout,
                    &run.command,
                    &run.started,
                    &run.ended,
                    &run.seconds,
                    &run.status,
                    &bigint(run.passed),
                    &bigint(run.failed),
                    &bigint(run.errors),
                    &bigint(run.skipped),
                    &stored.output.as_bytes(),
                    &i64::from(stored.pid),
                ],
            )?
            .get(0);
        insert_problems(self, id, &stored.problems)?;
        Ok(id)
    }
}

/// Keeps `problems` as run `id`'s, in their order.
fn insert_problems(tx: &Tx<'_>, id: i64, problems: &[Problem]) -> Result<()> {
    for (seq, p) in problems.iter().enumerate() {
        let seq = i32::try_from(seq).map_err(|_| {
            Error::internal(format!("test run {id} reported more problems than fit"))
        })?;
        tx.execute(
            "INSERT INTO test_problems (run, seq, test, kind, message, traceback)
             VALUES ($1, $2, $3, $4, $5, $6)",
            &[&id, &seq, &p.id, &p.kind, &p.message, &p.traceback],
        )?;
    }
    Ok(())
}
