//! The second, traced pass of a run whose tests failed: their test files run again with
//! homespace's tracer (`coverage.rs`), so that the lines the failing tests ran can be told
//! from the lines the passing tests beside them ran.
//!
//! Why a second pass and not every run traced: measured on click 8.1.7's 555 tests,
//! tracing took pytest from 1.39 to 2.73 s on Python 3.11 (`sys.settrace`) and from 1.85 to
//! 2.59 s on 3.12 (`sys.monitoring`), and a passing run may not get more than 10% slower.
//! A failing run's files are usually a small part of the suite; the pass is paid only when
//! there is something to rank.

use std::path::Path;
use std::time::Instant;

use super::coverage::{Traced, Tracer};
use super::junit::Problem;
use super::run::{Cache, Ended, Job};

impl Job {
    /// Runs the test files of `problems` again, traced, with `args` (the settings' own
    /// arguments): `None` when there is no such file, or the pass did not end (its
    /// timeout is the run's) or recorded nothing.
    pub(super) fn traced_pass(
        &self,
        args: &[String],
        problems: &[Problem],
        scratch: &Path,
    ) -> Option<Traced> {
        let files = test_files(&self.root, problems);
        if files.is_empty() {
            return None;
        }
        let tracer = Tracer::install(scratch, self.probe, self.timeout).ok()?;
        let mut selector = args.to_vec();
        selector.extend(files.iter().cloned());
        let mut words = self.arguments_for(&selector, Cache::Off);
        let mut env: Vec<(String, String)> = self
            .environment()
            .into_iter()
            .map(|(name, value)| (name.to_string(), value))
            .collect();
        self.enable(&tracer, &mut words, &mut env);
        let started = Instant::now();
        let output = scratch.join("traced.txt");
        let Ended::Exited(_) = self.pytest(&words, &env, &output, None, self.timeout) else {
            return None;
        };
        let coverage = tracer.read();
        (!coverage.tests.is_empty()).then(|| Traced {
            coverage,
            files,
            seconds: started.elapsed().as_secs_f64(),
            probing: tracer.probing(),
        })
    }

    /// The tracer installed in `scratch` and enabled in `args` and `env`, for the run
    /// itself.
    pub(super) fn traced_whole(
        &self,
        scratch: &Path,
        args: &mut Vec<String>,
        env: &mut Vec<(String, String)>,
    ) -> std::io::Result<Tracer> {
        let tracer = Tracer::install(scratch, self.probe, self.timeout)?;
        self.enable(&tracer, args, env);
        Ok(tracer)
    }

    /// `args` and `env` (the run's) with `tracer` enabled: its plugin loaded, its folder
    /// first on `PYTHONPATH`.
    fn enable(&self, tracer: &Tracer, args: &mut Vec<String>, env: &mut Vec<(String, String)>) {
        args.extend(tracer.arguments());
        let pythonpath = env
            .iter()
            .position(|(name, _)| name == "PYTHONPATH")
            .map(|at| env.remove(at).1);
        env.extend(tracer.environment(std::slice::from_ref(&self.root), pythonpath.as_deref()));
    }
}

/// The test files (from `root`) holding `problems`' tests, in the order first named: a
/// report's id (`tests.test_ops.TestOps.test_div[0]`) names its file by the longest
/// prefix of its dotted name that is a `.py` file in `root`.
fn test_files(root: &Path, problems: &[Problem]) -> Vec<String> {
    let mut files: Vec<String> = Vec::new();
    for problem in problems {
        let name = problem.id.split('[').next().unwrap_or_default();
        let parts: Vec<&str> = name.split('.').collect();
        let found = (1..=parts.len()).rev().find_map(|n| {
            let file = format!("{}.py", parts[..n].join("/"));
            let inside = !file.split('/').any(|p| p.is_empty() || p == "..");
            (inside && root.join(&file).is_file()).then_some(file)
        });
        if let Some(file) = found
            && !files.contains(&file)
        {
            files.push(file);
        }
    }
    files
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testrun::coverage::TestOutcome;
    use crate::testrun::run::{Status, Tracing};
    use std::path::PathBuf;
    use std::time::Duration;

    fn problem(id: &str) -> Problem {
        Problem {
            id: id.into(),
            kind: "failure",
            message: String::new(),
            traceback: String::new(),
        }
    }

    #[test]
    fn a_failing_tests_file_is_found_from_its_report_id() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("tests/unit")).unwrap();
        std::fs::write(dir.path().join("tests/unit/test_ops.py"), "").unwrap();
        std::fs::write(dir.path().join("tests/test_io.py"), "").unwrap();
        let files = test_files(
            dir.path(),
            &[
                problem("tests.unit.test_ops.TestOps.test_div[1.5-0]"),
                problem("tests.test_io.test_read"),
                problem("tests.unit.test_ops.test_add"),
                problem("tests.gone.test_x"),
            ],
        );
        assert_eq!(files, ["tests/unit/test_ops.py", "tests/test_io.py"]);
    }

    /// A project whose failing test reaches the broken function only through another, and
    /// a second test file that passes.
    fn project() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let write = |path: &str, text: &str| {
            let file = dir.path().join(path);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, text).unwrap();
        };
        write("calc/__init__.py", "");
        write(
            "calc/ops.py",
            "def double(n):\n    return n * 3\n\n\ndef twice(n):\n    return double(n)\n\n\ndef add(a, b):\n    return a + b\n",
        );
        write(
            "tests/test_ops.py",
            "from calc.ops import add, twice\n\n\ndef test_twice():\n    assert twice(2) == 4\n\n\ndef test_add():\n    assert add(1, 2) == 3\n",
        );
        write(
            "tests/test_more.py",
            "from calc.ops import add\n\n\ndef test_add_more():\n    assert add(2, 2) == 4\n",
        );
        dir
    }

    fn job(dir: &tempfile::TempDir, trace: Tracing) -> Job {
        Job {
            python: PathBuf::from("python3"),
            root: dir.path().to_path_buf(),
            paths: vec![dir.path().to_path_buf()],
            config: None,
            selector: Vec::new(),
            timeout: Duration::from_secs(120),
            note: None,
            trace,
            probe: Duration::ZERO,
        }
    }

    #[test]
    fn a_failing_run_traces_the_failing_tests_files_again() {
        let dir = project();
        let outcome = job(&dir, Tracing::FailingFiles(Vec::new())).run();
        assert_eq!(outcome.status, Status::Failed, "{}", outcome.output);
        let traced = outcome.traced.expect("a traced pass");
        assert_eq!(traced.files, ["tests/test_ops.py"]);
        let ran: Vec<(&str, TestOutcome, Option<&Vec<u32>>)> = traced
            .coverage
            .tests
            .iter()
            .map(|t| (t.test.as_str(), t.outcome, t.files.get("calc/ops.py")))
            .collect();
        assert_eq!(
            ran,
            [
                (
                    "tests/test_ops.py::test_twice",
                    TestOutcome::Failed,
                    Some(&vec![1, 2, 5, 6])
                ),
                (
                    "tests/test_ops.py::test_add",
                    TestOutcome::Passed,
                    Some(&vec![9, 10])
                ),
            ]
        );
        // The run's own results are the first pass's: every test, once.
        assert_eq!((outcome.report.passed, outcome.report.failed), (2, 1));
        assert!(
            traced
                .note()
                .starts_with("homespace: traced 2 tests of 1 file again in"),
            "{}",
            traced.note()
        );
    }

    #[test]
    fn a_passing_run_or_one_told_not_to_is_not_traced() {
        let dir = project();
        let untraced = job(&dir, Tracing::Off).run();
        assert_eq!(untraced.status, Status::Failed, "{}", untraced.output);
        assert_eq!(untraced.traced, None);
        std::fs::write(
            dir.path().join("calc/ops.py"),
            "def double(n):\n    return n * 2\n\n\ndef twice(n):\n    return double(n)\n\n\ndef add(a, b):\n    return a + b\n",
        )
        .unwrap();
        let passing = job(&dir, Tracing::FailingFiles(Vec::new())).run();
        assert_eq!(passing.status, Status::Passed, "{}", passing.output);
        assert_eq!(passing.traced, None);
    }

    #[test]
    fn a_run_traced_whole_records_every_test_it_ran_in_one_pass() {
        let dir = project();
        let outcome = job(&dir, Tracing::Whole).run();
        assert_eq!(outcome.status, Status::Failed, "{}", outcome.output);
        let traced = outcome.traced.expect("traced");
        let tests: Vec<&str> = traced
            .coverage
            .tests
            .iter()
            .map(|t| t.test.as_str())
            .collect();
        assert_eq!(
            tests,
            [
                "tests/test_more.py::test_add_more",
                "tests/test_ops.py::test_twice",
                "tests/test_ops.py::test_add"
            ]
        );
        assert!(traced.files.is_empty());
        assert!(
            outcome
                .output
                .ends_with("homespace: traced the run itself, 3 tests\n"),
            "{}",
            outcome.output
        );
    }
}
