//! Which project lines each test ran: homespace's own pytest plugin
//! (`homespace_trace.py`, shipped inside the binary) is put in a run's scratch folder and
//! enabled there, and what it writes is read back as [`Coverage`]; beside it the probe
//! (`homespace_probe.py`, read back as [`Probing`]). Nothing needs to be installed in the
//! project's environment.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::probe::Probing;

/// The plugins' module names, as `-p` names them, and sources, written where pytest
/// imports them from.
const PLUGINS: [(&str, &str); 2] = [
    ("homespace_trace", include_str!("homespace_trace.py")),
    ("homespace_probe", include_str!("homespace_probe.py")),
];

/// How a traced test ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum TestOutcome {
    Passed,
    /// Failed or errored, in its setup, call or teardown.
    Failed,
    /// Skipped, or an expected failure.
    Skipped,
}

impl TestOutcome {
    pub fn as_str(self) -> &'static str {
        match self {
            TestOutcome::Passed => "passed",
            TestOutcome::Failed => "failed",
            TestOutcome::Skipped => "skipped",
        }
    }

    /// The outcome `word` names ([`TestOutcome::as_str`]).
    pub fn named(word: &str) -> Option<TestOutcome> {
        match word {
            "passed" => Some(TestOutcome::Passed),
            "failed" => Some(TestOutcome::Failed),
            "skipped" => Some(TestOutcome::Skipped),
            _ => None,
        }
    }
}

/// The project lines one test ran (its setup, call and teardown).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestLines {
    /// pytest's node id (`tests/test_calc.py::test_add`).
    pub test: String,
    pub outcome: TestOutcome,
    /// Per project file (its path from the project's folder), the lines run, ascending.
    pub files: BTreeMap<String, Vec<u32>>,
}

/// The lines every traced test of a run ran, in the order the tests ran.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Coverage {
    pub tests: Vec<TestLines>,
}

/// What a run's traced pass recorded (see `traced.rs`); `files` is empty when the run
/// itself was traced.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Traced {
    pub coverage: Coverage,
    /// The test files run again, from the project's folder.
    pub files: Vec<String>,
    pub seconds: f64,
    /// What the probe for one-token fixes found, when it ran.
    pub probing: Option<Probing>,
}

impl Traced {
    /// The line a run's output ends with: what was traced and what it cost.
    pub fn note(&self) -> String {
        use crate::model::count::plural;
        let (tests, files) = (self.coverage.tests.len(), self.files.len());
        if files == 0 {
            return format!(
                "homespace: traced the run itself, {tests} test{}",
                plural(tests)
            );
        }
        format!(
            "homespace: traced {tests} test{} of {files} file{} again in {:.1} s to rank the \
             suspects",
            plural(tests),
            plural(files),
            self.seconds
        )
    }
}

/// Where a run's tracer lives and writes: a folder of the run's scratch space.
pub struct Tracer {
    folder: PathBuf,
    out: PathBuf,
    /// How long the probe may try one-token changes once the tests ran; zero: no probe.
    probe: Duration,
    /// How long the whole pytest process may take before it is killed: the probe ends
    /// well within it.
    timeout: Duration,
}

impl Tracer {
    /// The plugins written into `scratch`, where they also write what they record; the
    /// probe may take `probe`, in a pytest process killed after `timeout`.
    pub fn install(scratch: &Path, probe: Duration, timeout: Duration) -> std::io::Result<Tracer> {
        let folder = scratch.join("trace");
        std::fs::create_dir_all(&folder)?;
        for (name, source) in PLUGINS {
            std::fs::write(folder.join(format!("{name}.py")), source)?;
        }
        Ok(Tracer {
            out: scratch.join("coverage.jsonl"),
            folder,
            probe,
            timeout,
        })
    }

    /// pytest's arguments that enable the plugins.
    pub fn arguments(&self) -> Vec<String> {
        PLUGINS
            .iter()
            .flat_map(|(name, _)| ["-p".to_string(), name.to_string()])
            .collect()
    }

    /// The environment the plugin reads, `PYTHONPATH` (after `pythonpath`, the one the run
    /// has already) among it; `roots` are the folders whose files count, the project's
    /// first.
    pub fn environment(
        &self,
        roots: &[PathBuf],
        pythonpath: Option<&str>,
    ) -> Vec<(String, String)> {
        let joined = |paths: Vec<String>| paths.join(":");
        let mut path = vec![self.folder.display().to_string()];
        path.extend(pythonpath.filter(|p| !p.is_empty()).map(str::to_string));
        vec![
            ("PYTHONPATH".to_string(), joined(path)),
            (
                "HOMESPACE_TRACE_ROOTS".to_string(),
                joined(roots.iter().map(|r| r.display().to_string()).collect()),
            ),
            (
                "HOMESPACE_TRACE_OUT".to_string(),
                self.out.display().to_string(),
            ),
            (
                "HOMESPACE_PROBE_SECONDS".to_string(),
                self.probe.as_secs_f64().to_string(),
            ),
            (
                "HOMESPACE_PASS_SECONDS".to_string(),
                self.timeout.as_secs_f64().to_string(),
            ),
        ]
    }

    /// What the plugin wrote; nothing when it wrote nothing (no test ran). A line it
    /// could not finish (the run was killed mid-write) is passed over.
    pub fn read(&self) -> Coverage {
        let text = std::fs::read_to_string(&self.out).unwrap_or_default();
        Coverage {
            tests: text.lines().filter_map(parse_line).collect(),
        }
    }

    /// What the probe wrote, if it ran.
    pub fn probing(&self) -> Option<Probing> {
        Probing::read(&std::fs::read_to_string(&self.out).unwrap_or_default())
    }
}

/// One test's line of the plugin's output.
fn parse_line(line: &str) -> Option<TestLines> {
    let value: serde_json::Value = serde_json::from_str(line).ok()?;
    let test = value.get("test")?.as_str()?.to_string();
    let outcome = TestOutcome::named(value.get("outcome")?.as_str()?)?;
    let files = value
        .get("files")?
        .as_object()?
        .iter()
        .map(|(file, lines)| {
            let lines = lines
                .as_array()
                .map(|lines| {
                    lines
                        .iter()
                        .filter_map(|n| n.as_u64().and_then(|n| u32::try_from(n).ok()))
                        .collect()
                })
                .unwrap_or_default();
            (file.clone(), lines)
        })
        .collect();
    Some(TestLines {
        test,
        outcome,
        files,
    })
}

/// `lines` (ascending) as runs: `1-4,9,12-13`; what [`lines_of`] reads back.
pub fn ranges_of(lines: &[u32]) -> String {
    let mut text = String::new();
    let mut at = 0;
    while at < lines.len() {
        let first = lines[at];
        let mut last = first;
        while at + 1 < lines.len() && lines[at + 1] == last + 1 {
            at += 1;
            last = lines[at];
        }
        if !text.is_empty() {
            text.push(',');
        }
        if first == last {
            text.push_str(&first.to_string());
        } else {
            text.push_str(&format!("{first}-{last}"));
        }
        at += 1;
    }
    text
}

/// The lines runs written by [`ranges_of`] hold; `None` when `text` is not such runs.
pub fn lines_of(text: &str) -> Option<Vec<u32>> {
    let mut lines = Vec::new();
    for run in text.split(',').filter(|r| !r.is_empty()) {
        let (first, last) = match run.split_once('-') {
            Some((a, b)) => (a.parse::<u32>().ok()?, b.parse::<u32>().ok()?),
            None => {
                let n = run.parse::<u32>().ok()?;
                (n, n)
            }
        };
        if last < first {
            return None;
        }
        lines.extend(first..=last);
    }
    Some(lines)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The probe's time in tests: the default; and a pytest process's.
    pub(crate) const PROBE: Duration = Duration::from_secs(10);
    pub(crate) const TIMEOUT: Duration = Duration::from_secs(600);
    use std::process::Command;

    /// A project of one module and two tests, one of which reaches `half` only through a
    /// helper of the tests, as a framework would.
    fn project() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("calc")).unwrap();
        std::fs::create_dir_all(root.join("tests")).unwrap();
        std::fs::write(root.join("calc/__init__.py"), "").unwrap();
        std::fs::write(
            root.join("calc/ops.py"),
            "def add(a, b):\n    return a + b\n\n\ndef half(n):\n    if n < 0:\n        raise ValueError(n)\n    return n // 2\n",
        )
        .unwrap();
        std::fs::write(
            root.join("tests/test_ops.py"),
            "import json\n\nfrom calc import ops\n\n\ndef through(f, *args):\n    return json.loads(json.dumps(f(*args)))\n\n\ndef test_add():\n    assert ops.add(1, 2) == 3\n\n\ndef test_half():\n    assert through(ops.half, 4) == 2\n",
        )
        .unwrap();
        dir
    }

    /// `python3`, and the interpreters of pyenv from 3.12 on that have pytest: those trace
    /// through `sys.monitoring`, the rest through `sys.settrace`.
    pub(crate) fn interpreters() -> Vec<PathBuf> {
        let mut found = vec![PathBuf::from("python3")];
        let pyenv = Path::new("/root/.pyenv/versions");
        for entry in std::fs::read_dir(pyenv).into_iter().flatten().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let newer = ["3.12.", "3.13."].iter().any(|v| name.starts_with(v));
            let python = entry.path().join("bin/python");
            let has_pytest = || {
                Command::new(&python)
                    .args(["-c", "import pytest"])
                    .output()
                    .is_ok_and(|out| out.status.success())
            };
            if newer && has_pytest() {
                found.push(python);
            }
        }
        found
    }

    /// The coverage of a pytest run of `selector` in `root`; whether it passed.
    fn traced_run(python: &Path, root: &Path, selector: &[&str]) -> (Coverage, bool, String) {
        let scratch = tempfile::tempdir().unwrap();
        let tracer = Tracer::install(scratch.path(), PROBE, TIMEOUT).unwrap();
        let output = Command::new(python)
            .args([
                "-m",
                "pytest",
                "-q",
                "-p",
                "no:cacheprovider",
                "--rootdir=.",
            ])
            .args(selector)
            .args(tracer.arguments())
            .envs(tracer.environment(&[root.to_path_buf()], Some(".")))
            .current_dir(root)
            .output()
            .unwrap();
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        (tracer.read(), output.status.success(), said)
    }

    fn traced(python: &Path, root: &Path) -> Coverage {
        let (coverage, passed, said) = traced_run(python, root, &[]);
        assert!(passed, "{said}");
        coverage
    }

    #[test]
    fn each_test_records_how_it_ended() {
        let dir = project();
        std::fs::write(
            dir.path().join("tests/test_ends.py"),
            "import pytest\nfrom calc import ops\n\n\ndef test_fails():\n    assert ops.add(1, 1) == 3\n\n\n@pytest.mark.skip(reason='later')\ndef test_skipped():\n    pass\n\n\n@pytest.mark.xfail\ndef test_expected():\n    assert ops.half(3) == 2\n\n\n@pytest.fixture\ndef broken():\n    yield\n    raise RuntimeError('teardown')\n\n\ndef test_teardown(broken):\n    assert ops.add(0, 0) == 0\n\n\ndef test_passes():\n    assert ops.half(4) == 2\n",
        )
        .unwrap();
        for python in interpreters() {
            let (coverage, passed, said) = traced_run(&python, dir.path(), &["tests/test_ends.py"]);
            assert!(!passed, "{said}");
            let ended: Vec<(&str, TestOutcome)> = coverage
                .tests
                .iter()
                .map(|t| (t.test.rsplit("::").next().unwrap(), t.outcome))
                .collect();
            assert_eq!(
                ended,
                [
                    ("test_fails", TestOutcome::Failed),
                    ("test_skipped", TestOutcome::Skipped),
                    ("test_expected", TestOutcome::Skipped),
                    ("test_teardown", TestOutcome::Failed),
                    ("test_passes", TestOutcome::Passed),
                ],
                "{python:?}: {said}"
            );
            // The failing test's lines are recorded as a passing one's are.
            assert_eq!(
                coverage.tests[0].files.get("calc/ops.py"),
                Some(&vec![1, 2]),
                "{python:?}"
            );
        }
    }

    #[test]
    fn each_test_records_the_project_lines_it_ran_and_nothing_else() {
        let dir = project();
        for python in interpreters() {
            let coverage = traced(&python, dir.path());
            let tests: Vec<(&str, TestOutcome)> = coverage
                .tests
                .iter()
                .map(|t| (t.test.as_str(), t.outcome))
                .collect();
            assert_eq!(
                tests,
                [
                    ("tests/test_ops.py::test_add", TestOutcome::Passed),
                    ("tests/test_ops.py::test_half", TestOutcome::Passed)
                ],
                "{python:?}"
            );
            let lines = |n: usize| {
                let files = &coverage.tests[n].files;
                let ran: Vec<(&str, &[u32])> = files
                    .iter()
                    .map(|(file, lines)| (file.as_str(), lines.as_slice()))
                    .collect();
                ran
            };
            // From the `def` line on; only the project's files, by path from it (no
            // `<frozen posixpath>`, nothing of pytest's).
            assert_eq!(
                lines(0),
                [
                    ("calc/ops.py", &[1, 2][..]),
                    ("tests/test_ops.py", &[10, 11][..])
                ],
                "{python:?}"
            );
            // Reached through the tests' own helper: its body ran, the branch not taken
            // did not.
            assert_eq!(
                lines(1),
                [
                    ("calc/ops.py", &[5, 6, 8][..]),
                    ("tests/test_ops.py", &[6, 7, 14, 15][..])
                ],
                "{python:?}"
            );
        }
    }

    #[test]
    fn a_run_whose_tracing_is_taken_runs_untraced_and_passes() {
        let dir = project();
        for python in interpreters() {
            let scratch = tempfile::tempdir().unwrap();
            let tracer = Tracer::install(scratch.path(), PROBE, TIMEOUT).unwrap();
            // coverage.py holds the monitoring tool id (3.12 on), or a trace function.
            let taken = "import sys\n\
                 if hasattr(sys, 'monitoring'):\n    \
                     sys.monitoring.use_tool_id(sys.monitoring.COVERAGE_ID, 'coverage')\n\
                 else:\n    sys.settrace(lambda *a: None)\n\
                 import pytest\n\
                 sys.exit(pytest.main(['-q', '-p', 'no:cacheprovider', '-p', 'homespace_trace']))";
            let output = Command::new(&python)
                .args(["-c", taken])
                .envs(tracer.environment(&[dir.path().to_path_buf()], Some(".")))
                .current_dir(dir.path())
                .output()
                .unwrap();
            assert!(
                output.status.success(),
                "{python:?}: {}{}",
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            );
            assert_eq!(tracer.read(), Coverage::default(), "{python:?}");
        }
    }

    #[test]
    fn a_line_cut_short_is_passed_over() {
        assert_eq!(
            parse_line(r#"{"test": "t", "outcome": "passed", "files": {"a.py": [1, 2"#),
            None
        );
        let line =
            parse_line(r#"{"test": "t", "outcome": "failed", "files": {"a.py": [3, 1]}}"#).unwrap();
        assert_eq!(line.files.get("a.py"), Some(&vec![3, 1]));
        assert_eq!(line.outcome, TestOutcome::Failed);
    }

    #[test]
    fn lines_are_kept_as_runs_and_read_back_whole() {
        let lines = [1, 2, 3, 4, 9, 12, 13];
        assert_eq!(ranges_of(&lines), "1-4,9,12-13");
        assert_eq!(lines_of("1-4,9,12-13").unwrap(), lines);
        assert_eq!(ranges_of(&[]), "");
        assert_eq!(lines_of("").unwrap(), Vec::<u32>::new());
        assert_eq!(lines_of("4-2"), None);
        assert_eq!(lines_of("x"), None);
    }
}
