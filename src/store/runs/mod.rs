//! Test runs of `source/tests/`, kept across remounts: each run's command, status,
//! counts, whole output, and its failing and erroring tests with their tracebacks; and,
//! for telling what a change broke (issue 44), its passing tests, its traced pass and the
//! code's snapshot (`traces/`). Kept by either backend of the store ([`RunRecords`];
//! SQLite: `sqlite.rs`, PostgreSQL: `postgres.rs`).
//!
//! A run tests one checkout's files, so it belongs to the checkout that started it (the
//! key the source resource passes: `resources::source::checkout`); another checkout
//! sharing the store neither sees it nor waits for it. At most one run of a checkout is
//! `running` at a time, also across processes sharing the store: [`RunRecords::begin`]
//! checks inside the caller's write transaction (which both backends serialize), and a
//! partial unique index says so to anyone else. Whether a running run's process is alive
//! is asked only by its own checkout, whose key names the host the process runs on.
//!
//! Runs from before they were kept per checkout (migration 10) have the empty key and
//! belong to every checkout. Only SQLite kept runs then, in a store on the mount's own
//! disk, so judging such a run's process on this host is right.

mod postgres;
mod sqlite;
mod traces;

use crate::error::{Error, Result};
use crate::model::time::Time;
use crate::store::row::{Row, size};
use crate::testrun::coverage::Coverage;
use crate::testrun::coverage::Traced;
use crate::testrun::junit::Problem;
use crate::testrun::probe::Probing;
use crate::testrun::run::Outcome;
use crate::testrun::snapshot::Snapshot;

pub(crate) use postgres::PG_SCHEMA;
pub(crate) use sqlite::SCHEMA;
pub(crate) use traces::{
    COLLECTED, COUNTS, PG_COLLECTED, PG_COUNTS, PG_PROBING, PG_TRACES, PROBING, TRACES,
};
pub use traces::{TraceRow, TraceRows};

/// Migration 10, the same on both backends: each run's checkout, and one running run per
/// checkout instead of one in all.
pub(crate) const CHECKOUTS: &str = "
ALTER TABLE test_runs ADD COLUMN checkout TEXT NOT NULL DEFAULT '';
DROP INDEX test_runs_one_running;
CREATE UNIQUE INDEX test_runs_one_running ON test_runs (checkout) WHERE status = 'running';
CREATE INDEX test_runs_of_checkout ON test_runs (checkout, id);
";

/// One run as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    pub id: i64,
    pub command: String,
    pub started: Time,
    pub ended: Option<Time>,
    pub seconds: Option<f64>,
    pub status: String,
    pub passed: u64,
    pub failed: u64,
    pub errors: u64,
    pub skipped: u64,
    /// The counts of pytest's closing line, as pytest words them (`1 failed, 2 passed, 1
    /// xfailed, 3 warnings`): what every view shows. `None` for a run pytest gave none (it
    /// could not run the tests, or is running) and for runs kept before they were stored.
    pub counts: Option<String>,
}

/// One run whole, with whose it is: what a copy of the whole store carries.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredRun {
    pub checkout: String,
    /// Its number is the source's; [`RunRecords::restore`] gives it a new one.
    pub run: Run,
    pub pid: u32,
    pub output: String,
    pub problems: Vec<Problem>,
    /// The junit ids of the tests that passed, in report order.
    pub passed_tests: Vec<String>,
    pub traced: Option<Traced>,
    pub snapshot: Option<Snapshot>,
}

/// What is appended to the output of a run whose process is gone.
const ABANDONED: &str = "The mount running this test run stopped before it ended.\n";

/// What a backend answers about the test runs; [`RunRecords`] is what callers use.
/// `checkout` is whose runs: each call sees that checkout's and the ones from before runs
/// were kept per checkout.
pub trait RunRows {
    /// The runs of `checkout` that are running and the processes running them, oldest
    /// first: one at most, and one from before runs were kept per checkout.
    fn running(&self, checkout: &str) -> Result<Vec<(i64, u32)>>;
    /// Closes run `id` as an error at `ended`, appending `note` to its output.
    fn close_as_error(&self, id: i64, ended: Time, note: &str) -> Result<()>;
    /// Keeps `run` of `checkout` (all but its number) with its `output`, run by process
    /// `pid`, under the next number; returns the number.
    fn insert(&self, checkout: &str, run: &Run, output: &str, pid: u32) -> Result<i64>;
    /// Records how run `id` ended, all but its problems.
    fn close(&self, id: i64, ended: Time, outcome: &Outcome) -> Result<()>;
    /// Keeps `problem` as the `seq`th of run `id`.
    fn add_problem(&self, id: i64, seq: i32, problem: &Problem) -> Result<()>;
    /// `checkout`'s run `id`, or its newest with `None`.
    fn get(&self, checkout: &str, id: Option<i64>) -> Result<Option<Run>>;
    /// The newest `limit` runs of `checkout`, newest first.
    fn newest(&self, checkout: &str, limit: usize) -> Result<Vec<Run>>;
    /// The whole output of `checkout`'s run `id`.
    fn output(&self, checkout: &str, id: i64) -> Result<Option<String>>;
    /// The failing and erroring tests of `checkout`'s run `id`, in the order they were
    /// reported.
    fn problems(&self, checkout: &str, id: i64) -> Result<Vec<Problem>>;
    /// Every checkout's runs numbered above `after`, oldest first, at most `limit`: each
    /// run with its checkout and process.
    fn listed(&self, after: i64, limit: usize) -> Result<Vec<(String, Run, u32)>>;
    /// How many runs the store holds, every checkout's.
    fn count_all(&self) -> Result<i64>;
}

/// What asking to start a run came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Begun {
    /// The run of this number started.
    Started(i64),
    /// None started: the run of this number is running, and one runs at a time.
    Running(i64),
}

/// The test runs of a store, whichever backend holds them: the rules of starting, ending
/// and copying a run, over what each backend answers ([`RunRows`], [`TraceRows`]).
pub trait RunRecords: RunRows + TraceRows {
    /// Starts a run of `checkout` of `command` at `started` in process `pid` (of this
    /// host): [`Begun::Started`] with its number; [`Begun::Running`] naming the run of
    /// `checkout` that is running, while one is (only one runs at a time). A run that is
    /// over though stored as running (a daemon killed mid-run) is closed as an error first,
    /// as `alive(run, pid)` tells. Call it inside a write transaction, so that no other
    /// process starts one in between.
    fn begin(
        &self,
        checkout: &str,
        command: &str,
        started: Time,
        pid: u32,
        alive: &dyn Fn(i64, u32) -> bool,
    ) -> Result<Begun> {
        for (running, owner) in self.running(checkout)? {
            if alive(running, owner) {
                return Ok(Begun::Running(running));
            }
            self.abandon(running, started)?;
        }
        self.start(checkout, command, started, pid)
            .map(Begun::Started)
    }

    /// Closes run `id`, whose process is gone, as an error at `ended`, saying so in its
    /// output.
    fn abandon(&self, id: i64, ended: Time) -> Result<()> {
        self.close_as_error(id, ended, ABANDONED)
    }

    /// Records a new running run of `checkout`, without the checks of
    /// [`RunRecords::begin`].
    fn start(&self, checkout: &str, command: &str, started: Time, pid: u32) -> Result<i64> {
        let run = Run {
            id: 0,
            command: command.to_string(),
            started,
            ended: None,
            seconds: None,
            status: "running".to_string(),
            passed: 0,
            failed: 0,
            errors: 0,
            skipped: 0,
            counts: None,
        };
        self.insert(checkout, &run, "", pid)
    }

    /// Records how run `id` (as [`RunRecords::begin`] numbered it) ended: with its
    /// problems, the tests that passed, and what its traced pass recorded.
    fn finish(&self, id: i64, ended: Time, outcome: &Outcome) -> Result<()> {
        self.close(id, ended, outcome)?;
        add_problems(self, id, &outcome.report.problems)?;
        self.add_passed(id, &outcome.report.passed_tests)?;
        match &outcome.traced {
            Some(traced) => keep_traced(self, id, traced),
            None => Ok(()),
        }
    }

    /// Keeps `snapshot` as the code run `id` tested. Runs of unchanged code share one
    /// stored copy.
    fn keep_snapshot(&self, id: i64, snapshot: &Snapshot) -> Result<()> {
        let (digest, body) = (snapshot.digest(), snapshot.encode());
        if !self.add_snapshot(&digest, &body)? && self.snapshot_body(&digest)? != Some(body) {
            // 64 bits of SHA-256 make this next to impossible; were it to happen, naming
            // the other body would give the run a snapshot it did not have.
            return Err(Error::internal(format!(
                "test run {id}'s code snapshot has the digest {digest}, as another, different \
                 snapshot does: it was not kept, so later runs cannot tell what changed since \
                 this one; report it, naming the digest"
            )));
        }
        if self.set_snapshot(id, &digest)? {
            Ok(())
        } else {
            Err(Error::not_found(format!(
                "test run {id} is not in the store, so its code snapshot was not kept"
            )))
        }
    }

    /// The code `checkout`'s run `id` tested, if it was kept.
    fn snapshot(&self, checkout: &str, id: i64) -> Result<Option<Snapshot>> {
        Ok(self
            .snapshot_of(checkout, id)?
            .map(|body| Snapshot::decode(&body)))
    }

    /// What the traced pass of `checkout`'s run `id` recorded; `None` when it had none.
    fn traced(&self, checkout: &str, id: i64) -> Result<Option<Traced>> {
        let Some((files, seconds, probing)) = self.traced_pass(checkout, id)? else {
            return Ok(None);
        };
        Ok(Some(Traced {
            coverage: Coverage {
                tests: self.traces_of(id)?,
            },
            files: traces::files_of(id, &files)?,
            seconds,
            // Written by this code from a value it read: one it cannot read back is
            // no probe, and the ranking goes on without it.
            probing: probing.as_deref().and_then(Probing::decode),
        }))
    }

    /// Keeps `run`, read from another store, exactly as it was there — its status, times,
    /// counts, output, problems, passing tests, traced pass and snapshot — under the next
    /// number; returns the number.
    fn restore(&self, stored: &StoredRun) -> Result<i64> {
        let id = self.insert(&stored.checkout, &stored.run, &stored.output, stored.pid)?;
        add_problems(self, id, &stored.problems)?;
        self.add_passed(id, &stored.passed_tests)?;
        if let Some(traced) = &stored.traced {
            keep_traced(self, id, traced)?;
        }
        if let Some(snapshot) = &stored.snapshot {
            self.keep_snapshot(id, snapshot)?;
        }
        Ok(id)
    }

    /// How many runs the store holds, every checkout's.
    fn count_every(&self) -> Result<usize> {
        Ok(size(self.count_all()?))
    }

    /// Every checkout's runs numbered above `after`, oldest first, at most `limit`, each
    /// whole: what a copy of the whole store carries.
    fn every(&self, after: i64, limit: usize) -> Result<Vec<StoredRun>> {
        self.listed(after, limit)?
            .into_iter()
            .map(|(checkout, run, pid)| {
                Ok(StoredRun {
                    output: self.output(&checkout, run.id)?.unwrap_or_default(),
                    problems: self.problems(&checkout, run.id)?,
                    passed_tests: self.passed_in(&checkout, run.id)?,
                    traced: self.traced(&checkout, run.id)?,
                    snapshot: self.snapshot(&checkout, run.id)?,
                    checkout,
                    run,
                    pid,
                })
            })
            .collect()
    }
}

impl<T: RunRows + TraceRows> RunRecords for T {}

/// Keeps `traced` as run `id`'s traced pass.
fn keep_traced(rows: &(impl RunRecords + ?Sized), id: i64, traced: &Traced) -> Result<()> {
    let probing = traced.probing.as_ref().map(Probing::encode);
    rows.set_traced(
        id,
        &traces::files_text(&traced.files)?,
        traced.seconds,
        probing.as_deref(),
    )?;
    let stored = traced
        .coverage
        .tests
        .iter()
        .map(TraceRow::of)
        .collect::<Result<Vec<_>>>()?;
    rows.add_traces(id, &stored)
}

/// Keeps `problems` as run `id`'s, in their order.
fn add_problems(rows: &(impl RunRows + ?Sized), id: i64, problems: &[Problem]) -> Result<()> {
    for (seq, problem) in problems.iter().enumerate() {
        let seq = i32::try_from(seq).map_err(|_| {
            Error::internal(format!("test run {id} reported more problems than fit"))
        })?;
        rows.add_problem(id, seq, problem)?;
    }
    Ok(())
}

/// The columns of a [`Run`], in the order [`run_of`] reads them.
const RUN_COLUMNS: &str =
    "id, command, started, ended, seconds, status, passed, failed, errors, skipped, counts";

/// A row of [`RUN_COLUMNS`].
fn run_of(r: &impl Row) -> Result<Run> {
    // Counts are never negative: they are stored from unsigned numbers.
    let count = |i: usize| -> Result<u64> { Ok(u64::try_from(r.value::<i64>(i)?).unwrap_or(0)) };
    Ok(Run {
        id: r.value(0)?,
        command: r.value(1)?,
        started: time_of(r, 2)?,
        ended: r
            .value::<Option<String>>(3)?
            .map(|text| parse_time(&text))
            .transpose()?,
        seconds: r.value(4)?,
        status: r.value(5)?,
        passed: count(6)?,
        failed: count(7)?,
        errors: count(8)?,
        skipped: count(9)?,
        counts: r.value(10)?,
    })
}

/// Column `i` of `r`, a time as the store writes it.
fn time_of(r: &impl Row, i: usize) -> Result<Time> {
    parse_time(&r.value::<String>(i)?)
}

fn parse_time(text: &str) -> Result<Time> {
    Time::parse(text).map_err(|e| Error::internal(format!("a stored test run's {e}")))
}

/// A row of (id, pid) of a running run.
fn running_of(r: &impl Row) -> Result<(i64, u32)> {
    let (id, pid): (i64, i64) = (r.value(0)?, r.value(1)?);
    let pid = u32::try_from(pid).map_err(|_| {
        Error::internal(format!(
            "test run {id} is stored as running in process {pid}, which is no \
             process number: was the store changed by hand? Set its status to \
             'error' to run the tests again"
        ))
    })?;
    Ok((id, pid))
}

/// A row of [`RUN_COLUMNS`], then the run's checkout and process.
fn listed_of(r: &impl Row) -> Result<(String, Run, u32)> {
    // Stored from a process number; one changed by hand reads as none.
    let pid = u32::try_from(r.value::<i64>(12)?).unwrap_or(0);
    Ok((r.value(11)?, run_of(r)?, pid))
}

/// A row of (test, kind, message, traceback).
fn problem_of(r: &impl Row) -> Result<Problem> {
    Ok(Problem {
        id: r.value(0)?,
        kind: kind_of(&r.value::<String>(1)?),
        message: r.value(2)?,
        traceback: r.value(3)?,
    })
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
    use crate::store::Store;
    use crate::store::testing::{for_each_backend, for_each_backend_from};
    use crate::testrun::junit::Report;
    use crate::testrun::run::Status;

    /// Two checkouts' keys, as `resources::source::checkout::key` makes them.
    const HERE: &str = "build-1:/work/app";
    const THERE: &str = "build-2:/work/app";

    fn begin(
        store: &Store,
        checkout: &str,
        started: Time,
        pid: u32,
        alive: &dyn Fn(i64, u32) -> bool,
    ) -> std::result::Result<i64, i64> {
        let begun = store.change_records(|db| {
            db.runs()
                .begin(checkout, "python3 -m pytest", started, pid, alive)
        });
        // Ok: the run started; Err: the one running.
        match begun.unwrap() {
            Begun::Started(id) => Ok(id),
            Begun::Running(id) => Err(id),
        }
    }

    fn at(text: &str) -> Time {
        text.parse().unwrap()
    }

    fn ids(store: &Store, checkout: &str) -> Vec<i64> {
        let runs = store.records(|db| db.runs().newest(checkout, 10)).unwrap();
        runs.iter().map(|r| r.id).collect()
    }

    fn running(store: &Store, checkout: &str) -> Vec<(i64, u32)> {
        store.records(|db| db.runs().running(checkout)).unwrap()
    }

    #[test]
    fn a_run_is_kept_with_its_problems_and_one_runs_at_a_time() {
        for_each_backend(|store| {
            let alive = |_, _| true;
            let first = begin(&store, HERE, at("2026-11-23T18:00:00Z"), 7, &alive).unwrap();
            let again = begin(&store, HERE, at("2026-11-23T18:00:01Z"), 7, &alive).unwrap_err();
            assert_eq!(again, first, "refused, naming the run that runs");
            let outcome = Outcome {
                status: Status::Failed,
                report: Report {
                    passed: 3,
                    failed: 1,
                    errors: 0,
                    skipped: 2,
                    passed_tests: Vec::new(),
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
                traced: None,
            };
            store
                .change_records(|db| {
                    db.runs()
                        .finish(first, at("2026-11-23T18:00:02Z"), &outcome)
                })
                .unwrap();
            let run = store
                .records(|db| db.runs().get(HERE, None))
                .unwrap()
                .unwrap();
            assert_eq!(
                (
                    run.id,
                    run.status.as_str(),
                    (run.passed, run.failed, run.skipped),
                    run.seconds,
                    run.ended.map(|t| t.to_string()).as_deref()
                ),
                (
                    first,
                    "failed",
                    (3, 1, 2),
                    Some(1.5),
                    Some("2026-11-23T18:00:02Z")
                )
            );
            assert_eq!(
                store.records(|db| db.runs().problems(HERE, first)).unwrap(),
                outcome.report.problems
            );
            assert_eq!(
                store
                    .records(|db| db.runs().output(HERE, first))
                    .unwrap()
                    .unwrap(),
                outcome.output
            );
            let second = begin(&store, HERE, at("2026-11-23T18:01:00Z"), 7, &alive).unwrap();
            assert_eq!(ids(&store, HERE), [second, first]);
            assert_eq!(running(&store, HERE), [(second, 7)]);
            // Its process died with the mount: the next run closes it as an error and starts.
            let third = begin(&store, HERE, at("2026-11-23T18:02:00Z"), 8, &|_, pid| {
                pid != 7
            })
            .unwrap();
            let orphan = store
                .records(|db| db.runs().get(HERE, Some(second)))
                .unwrap()
                .unwrap();
            assert_eq!(
                (
                    orphan.status.as_str(),
                    orphan.ended.map(|t| t.to_string()).as_deref()
                ),
                ("error", Some("2026-11-23T18:02:00Z"))
            );
            assert!(
                store
                    .records(|db| db.runs().output(HERE, second))
                    .unwrap()
                    .unwrap()
                    .contains("stopped before it ended")
            );
            assert_eq!(running(&store, HERE), [(third, 8)]);
            assert_eq!(
                store.records(|db| db.runs().get(HERE, Some(99))).unwrap(),
                None
            );
            assert_eq!(
                store.records(|db| db.runs().output(HERE, 99)).unwrap(),
                None
            );
        });
    }

    #[test]
    fn the_index_refuses_a_second_running_run_of_a_checkout_whoever_writes_it() {
        for_each_backend(|store| {
            let start = |checkout: &str| {
                store
                    .change_records(|db| db.runs().start(checkout, "pytest", Time::from_unix(0), 7))
            };
            start(HERE).unwrap();
            let second = start(HERE);
            assert!(second.is_err(), "{second:?}");
            start(THERE).unwrap();
        });
    }

    #[test]
    fn each_checkout_sees_and_waits_for_its_own_runs_only() {
        for_each_backend(|store| {
            // Another checkout's process numbers mean nothing here: asking would be wrong.
            let never_asked = |run: i64, pid: u32| -> bool {
                panic!("run {run} of process {pid} was asked about")
            };
            let here = begin(&store, HERE, Time::from_unix(1), 7, &never_asked).unwrap();
            // A run of HERE is running (its process alive): THERE starts its own all the same.
            let there = begin(&store, THERE, Time::from_unix(2), 7, &never_asked).unwrap();
            assert_eq!(running(&store, HERE), [(here, 7)]);
            assert_eq!(running(&store, THERE), [(there, 7)]);
            assert_eq!(ids(&store, HERE), [here]);
            assert_eq!(ids(&store, THERE), [there]);
            let latest = |checkout: &str| {
                store
                    .records(|db| db.runs().get(checkout, None))
                    .unwrap()
                    .map(|run| run.id)
            };
            assert_eq!((latest(HERE), latest(THERE)), (Some(here), Some(there)));
            let outcome = Outcome {
                status: Status::Failed,
                report: Report {
                    failed: 1,
                    problems: vec![Problem {
                        id: "tests.test_a.test_a".into(),
                        kind: "failure",
                        message: "assert False".into(),
                        traceback: "E   assert False".into(),
                    }],
                    ..Report::default()
                },
                output: "1 failed".into(),
                seconds: 0.1,
                traced: None,
            };
            store
                .change_records(|db| db.runs().finish(here, Time::from_unix(3), &outcome))
                .unwrap();
            let seen_from_there = store
                .records(|db| {
                    Ok((
                        db.runs().get(THERE, Some(here))?,
                        db.runs().output(THERE, here)?,
                        db.runs().problems(THERE, here)?,
                    ))
                })
                .unwrap();
            assert_eq!(seen_from_there, (None, None, Vec::new()));
            assert_eq!(
                store.records(|db| db.runs().problems(HERE, here)).unwrap(),
                outcome.report.problems
            );
        });
    }

    #[test]
    fn runs_from_before_checkouts_belong_to_every_checkout() {
        // Started by a mount of this host before runs were kept per checkout, still running.
        let before = "INSERT INTO test_runs (command, started, status, pid)
                      VALUES ('pytest', '2026-11-23T17:00:00Z', 'running', 7);";
        for_each_backend_from(7, before, |store| {
            let legacy = 1;
            assert_eq!(ids(&store, HERE), [legacy]);
            assert_eq!(ids(&store, THERE), [legacy]);
            assert_eq!(running(&store, THERE), [(legacy, 7)]);
            let refused = begin(&store, HERE, Time::from_unix(1), 8, &|_, _| true).unwrap_err();
            assert_eq!(refused, legacy, "its process is alive");
            // Its process is gone: closed as an error, and the new run starts.
            let here = begin(&store, HERE, Time::from_unix(1), 8, &|run, pid| {
                assert_eq!(run, legacy);
                pid != 7
            })
            .unwrap();
            let closed = store
                .records(|db| db.runs().get(THERE, Some(legacy)))
                .unwrap()
                .unwrap();
            assert_eq!(closed.status, "error");
            assert_eq!(running(&store, HERE), [(here, 8)]);
            assert_eq!(ids(&store, HERE), [here, legacy]);
            assert_eq!(ids(&store, THERE), [legacy]);
            assert!(running(&store, THERE).is_empty());
        });
    }
}
