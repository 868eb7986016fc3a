//! Tests of what runs keep for issue 44 — passing tests, traced passes, snapshots — on
//! both backends, across a remount and from a store made before migration 18.

use std::collections::BTreeMap;

use crate::model::time::Time;
use crate::store::testing::{for_each_backend, for_each_backend_from};
use crate::store::{Backend, Store};
use crate::testrun::coverage::Traced;
use crate::testrun::coverage::{Coverage, TestLines, TestOutcome};
use crate::testrun::junit::{Problem, Report};
use crate::testrun::run::{Outcome, Status};
use crate::testrun::snapshot::Snapshot;

/// Two checkouts' keys, as `resources::source::checkout::key` makes them.
const HERE: &str = "build-1:/work/app";
const THERE: &str = "build-2:/work/app";

fn lines(test: &str, outcome: TestOutcome, files: &[(&str, &[u32])]) -> TestLines {
    TestLines {
        test: test.into(),
        outcome,
        files: files
            .iter()
            .map(|(file, lines)| (file.to_string(), lines.to_vec()))
            .collect::<BTreeMap<_, _>>(),
    }
}

/// A failing run's outcome: `passed` passed, and a traced pass of `traced` if any.
fn outcome(passed: &[&str], traced: Option<Vec<TestLines>>) -> Outcome {
    Outcome {
        status: Status::Failed,
        report: Report {
            passed: passed.len() as u64,
            failed: 1,
            passed_tests: passed.iter().map(|t| t.to_string()).collect(),
            problems: vec![Problem {
                id: "tests.test_calc.test_twice".into(),
                kind: "failure",
                message: "assert 6 == 4".into(),
                traceback: "E   assert 6 == 4".into(),
            }],
            ..Report::default()
        },
        output: "1 failed".into(),
        seconds: 0.5,
        traced: traced.map(|tests| Traced {
            coverage: Coverage { tests },
            files: vec!["tests/test_calc.py".into(), "tests/a b\tc.py".into()],
            seconds: 0.25,
            probing: None,
        }),
    }
}

/// A run of `checkout` that ended as `outcome`; its number.
fn run(store: &Store, checkout: &str, outcome: &Outcome) -> i64 {
    store
        .change_records(|db| {
            let id = db
                .runs()
                .start(checkout, "python3 -m pytest", Time::from_unix(1), 7)?;
            db.runs().finish(id, Time::from_unix(2), outcome)?;
            Ok(id)
        })
        .unwrap()
}

fn snapshot(symbols: &[(&str, &str)]) -> Snapshot {
    let mut snapshot = Snapshot::default();
    for (key, text) in symbols {
        snapshot.add(key.to_string(), text);
    }
    snapshot
}

/// The traced tests of a failing run: one failed, one passed, one reached no project file.
fn traced_tests() -> Vec<TestLines> {
    vec![
        lines(
            "tests/test_calc.py::test_twice",
            TestOutcome::Failed,
            &[("calc/ops.py", &[1, 2, 5, 6]), ("calc/my file.py", &[3])],
        ),
        lines(
            "tests/test_calc.py::TestOps::test_div[2-0]",
            TestOutcome::Passed,
            &[("calc/ops.py", &[9, 10, 11, 14])],
        ),
        lines("tests/test_calc.py::test_skip", TestOutcome::Skipped, &[]),
    ]
}

/// What `checkout` reads back of run `id`: passing tests, traced pass, snapshot.
type Kept = (Vec<String>, Option<Traced>, Option<Snapshot>);

fn kept(store: &Store, checkout: &str, id: i64) -> Kept {
    store
        .records(|db| {
            Ok((
                db.runs().passed_in(checkout, id)?,
                db.runs().traced(checkout, id)?,
                db.runs().snapshot(checkout, id)?,
            ))
        })
        .unwrap()
}

/// How many rows `table` holds, on either backend.
fn count(store: &Store, table: &str) -> i64 {
    let sql = format!("SELECT count(*) FROM {table}");
    match &store.backend {
        Backend::Sqlite(_) => store
            .read(|c| Ok(c.query_row(&sql, [], |r| r.get(0))?))
            .unwrap(),
        Backend::Postgres(pg) => pg.read(|tx| Ok(tx.query_one(&sql, &[])?.get(0))).unwrap(),
    }
}

#[test]
fn a_failing_run_keeps_its_passing_tests_traced_pass_and_snapshot() {
    for_each_backend(|store| {
        let ended = outcome(
            &[
                "tests.test_calc.test_add",
                "tests.test_calc.TestOps.test_div[2-0]",
            ],
            Some(traced_tests()),
        );
        let id = run(&store, HERE, &ended);
        let code = snapshot(&[("calc/ops.py::twice", "def twice(n):\n    return n * 3\n")]);
        store
            .change_records(|db| db.runs().keep_snapshot(id, &code))
            .unwrap();
        assert_eq!(
            kept(&store, HERE, id),
            (
                ended.report.passed_tests.clone(),
                ended.traced.clone(),
                Some(code)
            )
        );
        assert_eq!(
            kept(&store, THERE, id),
            (Vec::new(), None, None),
            "another checkout's run"
        );
        // Untraced, no snapshot, nothing passed: none of it, not empty ones.
        let bare = run(&store, HERE, &outcome(&[], None));
        assert_eq!(kept(&store, HERE, bare), (Vec::new(), None, None));
        let missing = store.change_records(|db| db.runs().keep_snapshot(99, &Snapshot::default()));
        assert!(
            missing.is_err_and(|e| e.message.contains("test run 99 is not in the store")),
            "a snapshot of no run"
        );
    });
}

#[test]
fn the_last_run_a_test_passed_in_is_found_before_a_run() {
    for_each_backend(|store| {
        let (add, div) = ("tests.test_calc.test_add", "tests.test_calc.test_div");
        let first = run(&store, HERE, &outcome(&[add, div], None));
        let second = run(&store, HERE, &outcome(&[add], None));
        // Another checkout's run, between: its passes are not this checkout's.
        let theirs = run(&store, THERE, &outcome(&[add, div], None));
        let third = run(&store, HERE, &outcome(&[], None));
        let last = |checkout: &str, test: &str, before: i64| {
            store
                .records(|db| db.runs().last_passed(checkout, test, before))
                .unwrap()
        };
        assert_eq!(last(HERE, add, third), Some(second));
        assert_eq!(last(HERE, div, third), Some(first), "not THERE's run");
        assert_eq!(
            last(HERE, add, second),
            Some(first),
            "numbered below `before`"
        );
        assert_eq!(last(HERE, add, first), None);
        assert_eq!(last(HERE, "tests.test_calc.test_gone", i64::MAX), None);
        assert_eq!(last(THERE, div, i64::MAX), Some(theirs));
    });
}

#[test]
fn each_tests_newest_trace_is_given() {
    for_each_backend(|store| {
        let (twice, div) = (
            "tests/test_calc.py::test_twice",
            "tests/test_calc.py::test_div",
        );
        let old = lines(twice, TestOutcome::Failed, &[("calc/ops.py", &[1, 2])]);
        let divided = lines(div, TestOutcome::Passed, &[("calc/ops.py", &[9])]);
        let first = run(
            &store,
            HERE,
            &outcome(&[], Some(vec![old, divided.clone()])),
        );
        let fixed = lines(twice, TestOutcome::Passed, &[("calc/ops.py", &[1, 2, 3])]);
        let second = run(&store, HERE, &outcome(&[], Some(vec![fixed.clone()])));
        // Another checkout traced the same test later: not this checkout's trace.
        let elsewhere = lines(twice, TestOutcome::Failed, &[("calc/ops.py", &[7])]);
        let theirs = run(&store, THERE, &outcome(&[], Some(vec![elsewhere.clone()])));
        run(&store, HERE, &outcome(&[], None));
        let latest = |checkout: &str| {
            store
                .records(|db| db.runs().latest_traces(checkout))
                .unwrap()
        };
        assert_eq!(latest(HERE), [(first, divided), (second, fixed)]);
        assert_eq!(latest(THERE), [(theirs, elsewhere)]);
    });
}

#[test]
fn runs_of_unchanged_code_share_one_stored_snapshot() {
    for_each_backend(|store| {
        let code = snapshot(&[("calc/ops.py::add", "def add(a, b):\n    return a + b\n")]);
        let mut changed = code.clone();
        changed.add(
            "calc/ops.py::sub".into(),
            "def sub(a, b):\n    return a - b\n",
        );
        let runs: Vec<i64> = (0..3)
            .map(|_| run(&store, HERE, &outcome(&[], None)))
            .collect();
        store
            .change_records(|db| {
                db.runs().keep_snapshot(runs[0], &code)?;
                db.runs().keep_snapshot(runs[1], &code)?;
                db.runs().keep_snapshot(runs[2], &changed)
            })
            .unwrap();
        assert_eq!(count(&store, "test_snapshots"), 2);
        let read = |id: i64| store.records(|db| db.runs().snapshot(HERE, id)).unwrap();
        assert_eq!(
            [read(runs[0]), read(runs[1]), read(runs[2])],
            [Some(code.clone()), Some(code), Some(changed)]
        );
    });
}

#[test]
fn what_a_run_kept_is_read_back_after_a_remount() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("store.db");
    let ended = outcome(&["tests.test_calc.test_add"], Some(traced_tests()));
    let code = snapshot(&[("calc/ops.py::", "import math\n")]);
    let id = {
        let store = Store::open(&path).unwrap();
        let id = run(&store, HERE, &ended);
        store
            .change_records(|db| db.runs().keep_snapshot(id, &code))
            .unwrap();
        id
    };
    // As the next mount opens it.
    let store = Store::open(&path).unwrap();
    assert_eq!(
        kept(&store, HERE, id),
        (ended.report.passed_tests, ended.traced, Some(code))
    );
    let latest = store.records(|db| db.runs().latest_traces(HERE)).unwrap();
    assert_eq!(latest.len(), 3);
}

#[test]
fn a_run_from_before_migration_18_kept_none_of_it() {
    let before = "INSERT INTO test_runs (command, started, ended, status, passed, pid)
                  VALUES ('pytest', '2026-11-23T17:00:00Z', '2026-11-23T17:00:01Z',
                          'passed', 3, 7);";
    for_each_backend_from(17, before, |store| {
        assert_eq!(kept(&store, HERE, 1), (Vec::new(), None, None));
        let next = run(&store, HERE, &outcome(&["tests.test_a.test_a"], None));
        let last = store
            .records(|db| db.runs().last_passed(HERE, "tests.test_a.test_a", i64::MAX))
            .unwrap();
        assert_eq!(last, Some(next));
    });
}

/// The newest run a test passed in walks the index of tests, not every pass.
#[test]
fn the_last_pass_of_a_test_is_looked_up_by_index() {
    let store = Store::in_memory().unwrap();
    let plan: Vec<String> = store
        .read(|c| {
            let mut plan = c.prepare(&format!(
                "EXPLAIN QUERY PLAN {}",
                super::sqlite::LAST_PASSED
            ))?;
            let rows = plan
                .query_map(rusqlite::params!["t", 9, "c"], |r| r.get::<_, String>(3))?
                .collect::<rusqlite::Result<_>>()?;
            Ok(rows)
        })
        .unwrap();
    assert!(
        plan.iter().any(|step| step.contains("test_passes_of_test")),
        "{plan:?}"
    );
    assert!(
        !plan.iter().any(|step| step.contains("TEMP B-TREE")),
        "{plan:?}"
    );
}

#[test]
fn a_store_from_before_migration_21_keeps_its_runs_and_takes_a_collected_one() {
    let before = "INSERT INTO test_runs (command, started, ended, status, passed, pid)
                  VALUES ('pytest', '2026-11-23T17:00:00Z', '2026-11-23T17:00:01Z',
                          'passed', 3, 7);";
    for_each_backend_from(20, before, |store| {
        let kept = store.records(|db| db.runs().get("", Some(1))).unwrap();
        assert_eq!(kept.map(|r| r.status).as_deref(), Some("passed"));
        let collected = Outcome {
            status: Status::Collected,
            output: "tests/test_a.py::test_a\n\n1 test collected in 0.01s\n".into(),
            ..outcome(&[], None)
        };
        let id = run(&store, HERE, &collected);
        let stored = store.records(|db| db.runs().get(HERE, Some(id))).unwrap();
        let stored = stored.expect("the collected run");
        assert_eq!(stored.status, "collected");
        assert_eq!(stored.counts.as_deref(), Some("1 test collected"));
    });
}
