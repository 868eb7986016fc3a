//! The SQLite backend of [`TraceRows`], and its migration.

use rusqlite::{Connection, OptionalExtension, params};

use super::{TraceRow, TraceRows, TracedPass, latest_of, run_trace_of, trace_of};
use crate::error::{Error, Result};
use crate::store::row::sqlite_rows;
use crate::testrun::coverage::TestLines;

/// Migration 18: what a run keeps for issue 44 — the tests that passed, the traced pass,
/// and the code's snapshot.
pub(crate) const TRACES: &str = "
CREATE TABLE test_snapshots (
    -- `Snapshot::digest` of the body: runs of unchanged code share one row.
    digest TEXT PRIMARY KEY,
    -- `Snapshot::encode`: one `<fingerprint> <symbol>` line per symbol.
    body   TEXT NOT NULL
);
-- NULL when the run had no traced pass (its seconds say whether it had one).
ALTER TABLE test_runs ADD COLUMN traced_files TEXT;
ALTER TABLE test_runs ADD COLUMN traced_seconds REAL;
ALTER TABLE test_runs ADD COLUMN snapshot TEXT REFERENCES test_snapshots (digest);
CREATE TABLE test_passes (
    run  INTEGER NOT NULL REFERENCES test_runs (id) ON DELETE CASCADE,
    -- The order the report lists them in.
    seq  INTEGER NOT NULL,
    -- `tests.test_calc.TestOps.test_div[2-0]`, as test_problems spells it.
    test TEXT NOT NULL,
    PRIMARY KEY (run, seq)
) WITHOUT ROWID;
-- The newest run before N in which a test passed: one walk down this index.
CREATE INDEX test_passes_of_test ON test_passes (test, run);
CREATE TABLE test_traces (
    run     INTEGER NOT NULL REFERENCES test_runs (id) ON DELETE CASCADE,
    -- The order the tests ran in.
    seq     INTEGER NOT NULL,
    -- pytest's node id: `tests/test_calc.py::TestOps::test_div[2-0]`.
    test    TEXT NOT NULL,
    outcome TEXT NOT NULL CHECK (outcome IN ('passed', 'failed', 'skipped')),
    -- `{\"calc/ops.py\": \"1-2,5-6\"}`: each file's lines as runs.
    files   TEXT NOT NULL,
    PRIMARY KEY (run, seq)
) WITHOUT ROWID;
-- Each test's newest trace.
CREATE INDEX test_traces_of_test ON test_traces (test, run);
";

/// Migration 19: what the probe for one-token fixes found after a run's traced pass
/// (`Probing::encode`, JSON); NULL when it did not run.
pub(crate) const PROBING: &str = "ALTER TABLE test_runs ADD COLUMN probing TEXT;";

/// Migration 20: the counts of pytest's closing line (`Run::counts`), what every view
/// shows; NULL for runs kept before, whose views count from the report.
pub(crate) const COUNTS: &str = "ALTER TABLE test_runs ADD COLUMN counts TEXT;";

/// Migration 21: a run may be `collected` (`--collect-only`: listed, none run). SQLite
/// cannot alter a CHECK, and rebuilding the table would cascade to every row that refers
/// to a run; widening the CHECK in the stored schema is its documented way for a change
/// that leaves every stored row as valid as before.
pub(crate) const COLLECTED: &str = "
PRAGMA writable_schema = ON;
UPDATE sqlite_schema
SET sql = replace(sql, '''error'', ''timed out'')', '''error'', ''timed out'', ''collected'')')
WHERE type = 'table' AND name = 'test_runs';
PRAGMA writable_schema = RESET;
";

/// The newest run of checkout ?3 below ?2 in which test ?1 passed: down the index from
/// ?2, other checkouts' runs stepped over.
pub(super) const LAST_PASSED: &str = "
SELECT p.run FROM test_passes p JOIN test_runs r ON r.id = p.run
WHERE p.test = ?1 AND p.run < ?2 AND r.checkout IN ('', ?3)
ORDER BY p.run DESC LIMIT 1";

/// `seq` as the column takes it.
fn seq_of(id: i64, seq: usize) -> Result<i64> {
    i64::try_from(seq)
        .map_err(|_| Error::internal(format!("test run {id} reported more tests than fit")))
}

impl TraceRows for Connection {
    fn add_passed(&self, id: i64, tests: &[String]) -> Result<()> {
        let mut statement =
            self.prepare_cached("INSERT INTO test_passes (run, seq, test) VALUES (?1, ?2, ?3)")?;
        for (seq, test) in tests.iter().enumerate() {
            statement.execute(params![id, seq_of(id, seq)?, test])?;
        }
        Ok(())
    }

    fn passed_in(&self, checkout: &str, id: i64) -> Result<Vec<String>> {
        let mut statement = self.prepare_cached(
            "SELECT p.test FROM test_passes p JOIN test_runs r ON r.id = p.run
             WHERE p.run = ?1 AND r.checkout IN ('', ?2) ORDER BY p.seq",
        )?;
        sqlite_rows(statement.query(params![id, checkout])?, |r| Ok(r.get(0)?))
    }

    fn last_passed(&self, checkout: &str, test: &str, before: i64) -> Result<Option<i64>> {
        Ok(self
            .prepare_cached(LAST_PASSED)?
            .query_row(params![test, before, checkout], |r| r.get(0))
            .optional()?)
    }

    fn set_traced(&self, id: i64, files: &str, seconds: f64, probing: Option<&str>) -> Result<()> {
        self.prepare_cached(
            "UPDATE test_runs SET traced_files = ?2, traced_seconds = ?3, probing = ?4
             WHERE id = ?1",
        )?
        .execute(params![id, files, seconds, probing])?;
        Ok(())
    }

    fn add_traces(&self, id: i64, traces: &[TraceRow]) -> Result<()> {
        let mut statement = self.prepare_cached(
            "INSERT INTO test_traces (run, seq, test, outcome, files)
             VALUES (?1, ?2, ?3, ?4, ?5)",
        )?;
        for (seq, t) in traces.iter().enumerate() {
            statement.execute(params![id, seq_of(id, seq)?, t.test, t.outcome, t.files])?;
        }
        Ok(())
    }

    fn traced_pass(&self, checkout: &str, id: i64) -> Result<Option<TracedPass>> {
        Ok(self
            .prepare_cached(
                "SELECT coalesce(traced_files, '[]'), traced_seconds, probing FROM test_runs
                 WHERE id = ?1 AND checkout IN ('', ?2) AND traced_seconds IS NOT NULL",
            )?
            .query_row(params![id, checkout], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })
            .optional()?)
    }

    fn traces_of(&self, id: i64) -> Result<Vec<TestLines>> {
        let mut statement = self.prepare_cached(
            "SELECT test, outcome, files FROM test_traces WHERE run = ?1 ORDER BY seq",
        )?;
        sqlite_rows(statement.query([id])?, |r| trace_of(r, 0, id))
    }

    fn latest_traces(&self, checkout: &str) -> Result<Vec<(i64, TestLines)>> {
        // Each test's newest run from the index alone, then only those runs' rows read.
        let mut statement = self.prepare_cached(
            "WITH newest AS (
                 SELECT t.test, max(t.run) AS run
                 FROM test_traces t JOIN test_runs r ON r.id = t.run
                 WHERE r.checkout IN ('', ?1) GROUP BY t.test)
             SELECT t.run, t.test, t.outcome, t.files
             FROM newest n JOIN test_traces t ON t.test = n.test AND t.run = n.run
             ORDER BY t.test, t.seq",
        )?;
        let rows = sqlite_rows(statement.query([checkout])?, run_trace_of)?;
        Ok(latest_of(rows))
    }

    fn add_snapshot(&self, digest: &str, body: &str) -> Result<bool> {
        let added = self
            .prepare_cached(
                "INSERT INTO test_snapshots (digest, body) VALUES (?1, ?2)
                 ON CONFLICT (digest) DO NOTHING",
            )?
            .execute(params![digest, body])?;
        Ok(added > 0)
    }

    fn snapshot_body(&self, digest: &str) -> Result<Option<String>> {
        Ok(self
            .prepare_cached("SELECT body FROM test_snapshots WHERE digest = ?1")?
            .query_row([digest], |r| r.get(0))
            .optional()?)
    }

    fn set_snapshot(&self, id: i64, digest: &str) -> Result<bool> {
        let set = self
            .prepare_cached("UPDATE test_runs SET snapshot = ?2 WHERE id = ?1")?
            .execute(params![id, digest])?;
        Ok(set > 0)
    }

    fn snapshot_of(&self, checkout: &str, id: i64) -> Result<Option<String>> {
        Ok(self
            .prepare_cached(
                "SELECT s.body FROM test_runs r JOIN test_snapshots s ON s.digest = r.snapshot
                 WHERE r.id = ?1 AND r.checkout IN ('', ?2)",
            )?
            .query_row(params![id, checkout], |r| r.get(0))
            .optional()?)
    }
}
