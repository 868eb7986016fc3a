//! The PostgreSQL backend of [`TraceRows`]: SQLite's statements in PostgreSQL's words,
//! a run's passed tests and traces each sent as arrays in one statement (a suite's
//! thousand passing tests are one round trip, not a thousand).

use super::{TraceRow, TraceRows, TracedPass, latest_of, run_trace_of, trace_of};
use crate::error::Result;
use crate::store::postgres::Tx;
use crate::store::row::Row;
use crate::testrun::coverage::TestLines;

/// Migration 19 for PostgreSQL: as SQLite's (`sqlite.rs`).
pub(crate) const PG_PROBING: &str = "ALTER TABLE test_runs ADD COLUMN probing TEXT;";

/// Migration 20 for PostgreSQL: as SQLite's (`sqlite.rs`).
pub(crate) const PG_COUNTS: &str = "ALTER TABLE test_runs ADD COLUMN counts TEXT;";

/// Migration 21 for PostgreSQL: as SQLite's (`sqlite.rs`), by replacing the constraint.
pub(crate) const PG_COLLECTED: &str = "
ALTER TABLE test_runs DROP CONSTRAINT IF EXISTS test_runs_status_check;
ALTER TABLE test_runs ADD CONSTRAINT test_runs_status_check
    CHECK (status IN ('running', 'passed', 'failed', 'error', 'timed out', 'collected'));
";

/// Migration 18 for PostgreSQL (SQLite's, `sqlite.rs`, says what each column holds).
pub(crate) const PG_TRACES: &str = "
CREATE TABLE test_snapshots (
    digest TEXT PRIMARY KEY,
    body   TEXT NOT NULL
);
ALTER TABLE test_runs ADD COLUMN traced_files TEXT;
ALTER TABLE test_runs ADD COLUMN traced_seconds DOUBLE PRECISION;
ALTER TABLE test_runs ADD COLUMN snapshot TEXT REFERENCES test_snapshots (digest);
CREATE TABLE test_passes (
    run  BIGINT NOT NULL REFERENCES test_runs (id) ON DELETE CASCADE,
    seq  INTEGER NOT NULL,
    test TEXT NOT NULL,
    PRIMARY KEY (run, seq)
);
CREATE INDEX test_passes_of_test ON test_passes (test, run);
CREATE TABLE test_traces (
    run     BIGINT NOT NULL REFERENCES test_runs (id) ON DELETE CASCADE,
    seq     INTEGER NOT NULL,
    test    TEXT NOT NULL,
    outcome TEXT NOT NULL CHECK (outcome IN ('passed', 'failed', 'skipped')),
    files   TEXT NOT NULL,
    PRIMARY KEY (run, seq)
);
CREATE INDEX test_traces_of_test ON test_traces (test, run);
";

impl TraceRows for Tx<'_> {
    fn add_passed(&self, id: i64, tests: &[String]) -> Result<()> {
        self.execute(
            "INSERT INTO test_passes (run, seq, test)
             SELECT $1::bigint, (n - 1)::integer, test
             FROM unnest($2::text[]) WITH ORDINALITY AS u (test, n)",
            &[&id, &tests],
        )?;
        Ok(())
    }

    fn passed_in(&self, checkout: &str, id: i64) -> Result<Vec<String>> {
        let rows = self.query(
            "SELECT p.test FROM test_passes p JOIN test_runs r ON r.id = p.run
             WHERE p.run = $1 AND r.checkout IN ('', $2) ORDER BY p.seq",
            &[&id, &checkout],
        )?;
        rows.iter().map(|r| r.value(0)).collect()
    }

    fn last_passed(&self, checkout: &str, test: &str, before: i64) -> Result<Option<i64>> {
        let row = self.query_opt(
            "SELECT p.run FROM test_passes p JOIN test_runs r ON r.id = p.run
             WHERE p.test = $1 AND p.run < $2 AND r.checkout IN ('', $3)
             ORDER BY p.run DESC LIMIT 1",
            &[&test, &before, &checkout],
        )?;
        row.map(|r| r.value(0)).transpose()
    }

    fn set_traced(&self, id: i64, files: &str, seconds: f64, probing: Option<&str>) -> Result<()> {
        self.execute(
            "UPDATE test_runs SET traced_files = $2, traced_seconds = $3, probing = $4
             WHERE id = $1",
            &[&id, &files, &seconds, &probing],
        )?;
        Ok(())
    }

    fn add_traces(&self, id: i64, traces: &[TraceRow]) -> Result<()> {
        let tests: Vec<&str> = traces.iter().map(|t| t.test.as_str()).collect();
        let outcomes: Vec<&str> = traces.iter().map(|t| t.outcome).collect();
        let files: Vec<&str> = traces.iter().map(|t| t.files.as_str()).collect();
        self.execute(
            "INSERT INTO test_traces (run, seq, test, outcome, files)
             SELECT $1::bigint, (n - 1)::integer, test, outcome, files
             FROM unnest($2::text[], $3::text[], $4::text[])
                 WITH ORDINALITY AS u (test, outcome, files, n)",
            &[&id, &tests, &outcomes, &files],
        )?;
        Ok(())
    }

    fn traced_pass(&self, checkout: &str, id: i64) -> Result<Option<TracedPass>> {
        let row = self.query_opt(
            "SELECT coalesce(traced_files, '[]'), traced_seconds, probing FROM test_runs
             WHERE id = $1 AND checkout IN ('', $2) AND traced_seconds IS NOT NULL",
            &[&id, &checkout],
        )?;
        row.map(|r| Ok((r.value(0)?, r.value(1)?, r.value(2)?)))
            .transpose()
    }

    fn traces_of(&self, id: i64) -> Result<Vec<TestLines>> {
        let rows = self.query(
            "SELECT test, outcome, files FROM test_traces WHERE run = $1 ORDER BY seq",
            &[&id],
        )?;
        rows.iter().map(|r| trace_of(r, 0, id)).collect()
    }

    fn latest_traces(&self, checkout: &str) -> Result<Vec<(i64, TestLines)>> {
        let rows = self.query(
            "WITH newest AS (
                 SELECT t.test, max(t.run) AS run
                 FROM test_traces t JOIN test_runs r ON r.id = t.run
                 WHERE r.checkout IN ('', $1) GROUP BY t.test)
             SELECT t.run, t.test, t.outcome, t.files
             FROM newest n JOIN test_traces t ON t.test = n.test AND t.run = n.run
             ORDER BY t.test, t.seq",
            &[&checkout],
        )?;
        let rows = rows.iter().map(run_trace_of).collect::<Result<_>>()?;
        Ok(latest_of(rows))
    }

    fn add_snapshot(&self, digest: &str, body: &str) -> Result<bool> {
        let added = self.execute(
            "INSERT INTO test_snapshots (digest, body) VALUES ($1, $2)
             ON CONFLICT (digest) DO NOTHING",
            &[&digest, &body],
        )?;
        Ok(added > 0)
    }

    fn snapshot_body(&self, digest: &str) -> Result<Option<String>> {
        let row = self.query_opt(
            "SELECT body FROM test_snapshots WHERE digest = $1",
            &[&digest],
        )?;
        row.map(|r| r.value(0)).transpose()
    }

    fn set_snapshot(&self, id: i64, digest: &str) -> Result<bool> {
        let set = self.execute(
            "UPDATE test_runs SET snapshot = $2 WHERE id = $1",
            &[&id, &digest],
        )?;
        Ok(set > 0)
    }

    fn snapshot_of(&self, checkout: &str, id: i64) -> Result<Option<String>> {
        let row = self.query_opt(
            "SELECT s.body FROM test_runs r JOIN test_snapshots s ON s.digest = r.snapshot
             WHERE r.id = $1 AND r.checkout IN ('', $2)",
            &[&id, &checkout],
        )?;
        row.map(|r| r.value(0)).transpose()
    }
}
