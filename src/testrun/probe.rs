//! What the probe found (`homespace_probe.py`, run at the end of a traced pass): which
//! one-token changes to the project's code made the first failing test pass, and what the
//! probing tried and cost. A line where a small change turns the failure into a pass most
//! often holds the fault (mutation-based fault localization); the ranking puts its symbol
//! first after what changed since the last green run, and the agent reads the change.

use serde::{Deserialize, Serialize};

/// A change that made the probed failing test pass.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fix {
    /// From the project's folder.
    pub file: String,
    pub line: u32,
    /// The line as it is, and with the change (empty when the probe could not render it).
    pub was: String,
    pub now: String,
    /// The failing tests (node ids) that passed with it: the probed one first.
    pub fixes: Vec<String>,
}

/// What a traced pass's probe did.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Probing {
    /// The failing test probed (node id).
    #[serde(default)]
    pub test: String,
    /// Changes tried, and lines they were on of the lines that test ran.
    #[serde(default)]
    pub tried: usize,
    #[serde(default)]
    pub lines: usize,
    #[serde(default)]
    pub of: usize,
    #[serde(default)]
    pub seconds: f64,
    /// Whether every line was tried before the deadline.
    #[serde(default)]
    pub finished: bool,
    /// "fixed" when it stopped early, once a change made every failing test it ran pass.
    #[serde(default)]
    pub stopped: Option<String>,
    /// "passed" when the test passed run again on its own, so nothing was tried.
    #[serde(default)]
    pub alone: Option<String>,
    /// Why the probe stopped, when it failed.
    #[serde(default)]
    pub error: Option<String>,
    #[serde(default)]
    pub found: Vec<Fix>,
}

impl Probing {
    /// The probe's records among the lines of the tracer's output file, if it wrote any.
    pub fn read(text: &str) -> Option<Probing> {
        let mut found = Vec::new();
        let mut probing = None;
        // The tracer's lines of every test come first, and are the bulk: not parsed here.
        for line in text.lines().filter(|l| l.starts_with("{\"probe")) {
            let Ok(value) = serde_json::from_str::<serde_json::Value>(line) else {
                continue;
            };
            if let Some(fix) = value.get("probe") {
                found.extend(serde_json::from_value::<Fix>(fix.clone()).ok());
            } else if let Some(summary) = value.get("probed") {
                probing = serde_json::from_value::<Probing>(summary.clone()).ok();
            }
        }
        probing.map(|p| Probing { found, ..p })
    }

    /// The changes that made `test` (a node id) pass.
    pub fn fixes_of<'a>(&'a self, test: &'a str) -> impl Iterator<Item = &'a Fix> + 'a {
        self.found
            .iter()
            .filter(move |fix| fix.fixes.iter().any(|t| t == test))
    }

    /// The line a run's output says it in.
    pub fn note(&self) -> String {
        use crate::model::count::plural;
        if let Some(error) = &self.error {
            return format!("homespace: the probe for one-token fixes stopped: {error}");
        }
        if self.alone.is_some() {
            return format!(
                "homespace: {} passed when run again on its own, so no one-token fix was \
                 probed",
                self.test
            );
        }
        let (lines, why) = if self.finished {
            (format!("all {} project lines", self.of), "")
        } else if self.stopped.is_some() {
            (
                format!("{} of the {} project lines", self.lines, self.of),
                " (it stopped once a change made every failing test pass)",
            )
        } else {
            (
                format!("{} of the {} project lines", self.lines, self.of),
                " (the time ran out)",
            )
        };
        let found = match self.found.len() {
            0 => "none".to_string(),
            n => n.to_string(),
        };
        format!(
            "homespace: probed {}: {} one-token change{} on {lines} it ran, in {:.1} s; \
             {found} made it pass{why}",
            self.test,
            self.tried,
            plural(self.tried),
            self.seconds,
        )
    }

    /// As the store keeps it.
    pub fn encode(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// What [`Probing::encode`] wrote; `None` when it is not that.
    pub fn decode(text: &str) -> Option<Probing> {
        serde_json::from_str(text).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testrun::coverage::Tracer;
    use crate::testrun::coverage::tests::{PROBE, TIMEOUT, interpreters};
    use std::process::Command;

    /// A module whose bug (`n > 0` for `n < 0`) is in a method that uses a private name,
    /// wrapped when the module was imported; the failing test first runs a loop that
    /// some changes make endless.
    const OPS: &str = "import functools


def logged(f):
    @functools.wraps(f)
    def wrapper(*args):
        return f(*args)
    return wrapper


class Meter:
    def __init__(self, top):
        self.__top = top

    @logged
    def clamp(self, n):
        if n > self.__top:
            return self.__top
        if n > 0:
            return 0
        return n


def spin(n):
    i = 0
    while i < n:
        i += 1
    return i


@functools.lru_cache(maxsize=None)
def top():
    return 11


def bump(v2):
    return v2 + 2
";

    const TESTS: &str = "from calc.ops import Meter, spin


def test_inside():
    assert spin(3) == 3
    assert Meter(10).clamp(5) == 5


def test_top():
    assert Meter(10).clamp(20) == 10


def test_below():
    assert Meter(10).clamp(-3) == 0
";

    /// A project of `calc/ops.py` ([`OPS`]) and `tests/test_ops.py` (`tests`).
    fn project(tests: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("calc")).unwrap();
        std::fs::create_dir_all(root.join("tests")).unwrap();
        std::fs::write(root.join("calc/__init__.py"), "").unwrap();
        std::fs::write(root.join("calc/ops.py"), OPS).unwrap();
        std::fs::write(root.join("tests/test_ops.py"), tests).unwrap();
        dir
    }

    /// What the probe of a traced pytest run of `root` with `python` found, and what
    /// pytest said; the run is killed after two minutes.
    fn probed(python: &std::path::Path, root: &std::path::Path) -> (Probing, String) {
        let scratch = tempfile::tempdir().unwrap();
        let tracer = Tracer::install(scratch.path(), PROBE, TIMEOUT).unwrap();
        let output = Command::new("timeout")
            .arg("120")
            .arg(python)
            .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
            .args(tracer.arguments())
            .envs(tracer.environment(&[root.to_path_buf()], Some(".")))
            .current_dir(root)
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&output.stdout).into_owned();
        assert_ne!(output.status.code(), Some(124), "{python:?} hung: {said}");
        let probing = tracer
            .probing()
            .unwrap_or_else(|| panic!("{python:?}: {said}"));
        (probing, said)
    }

    #[test]
    fn the_probe_finds_the_one_token_change_that_makes_the_failing_tests_pass() {
        let dir = project(TESTS);
        for python in interpreters() {
            let (probing, said) = probed(&python, dir.path());
            assert!(said.contains("2 failed, 1 passed"), "{python:?}: {said}");
            assert_eq!(probing.test, "tests/test_ops.py::test_inside", "{python:?}");
            // The change that fixes it, in the wrapped method (its private name compiled
            // as the class has it), fixes the other failing test too; nothing in the
            // tests is changed. Its line scored highest, so the probe stopped there.
            let fixes = vec![
                "tests/test_ops.py::test_inside".to_string(),
                "tests/test_ops.py::test_below".to_string(),
            ];
            let fix = |now: &str| Fix {
                file: "calc/ops.py".into(),
                line: 19,
                was: "if n > 0:".into(),
                now: now.into(),
                fixes: fixes.clone(),
            };
            assert_eq!(
                probing.found,
                [fix("if not n > 0:"), fix("if n < 0:")],
                "{python:?}: {probing:?}"
            );
            assert_eq!(probing.stopped.as_deref(), Some("fixed"), "{probing:?}");
            assert!(!probing.finished, "{probing:?}");
        }
    }

    #[test]
    fn a_cached_function_is_probed_afresh() {
        // The failing test filled `top`'s cache with 11 before the probe.
        let dir =
            project("from calc.ops import top\n\n\ndef test_top():\n    assert top() == 10\n");
        for python in interpreters() {
            let (probing, _) = probed(&python, dir.path());
            let changes: Vec<(u32, &str)> = probing
                .found
                .iter()
                .map(|f| (f.line, f.now.as_str()))
                .collect();
            assert_eq!(changes, [(33, "return 10")], "{python:?}: {probing:?}");
        }
    }

    #[test]
    fn a_change_is_shown_in_its_place_on_the_line() {
        // The 2 of `v2` is not the constant changed.
        let dir =
            project("from calc.ops import bump\n\n\ndef test_bump():\n    assert bump(1) == 2\n");
        let line = OPS.lines().position(|l| l.contains("v2 + 2")).unwrap() + 1;
        for python in interpreters() {
            let (probing, _) = probed(&python, dir.path());
            let changes: Vec<(usize, &str, &str)> = probing
                .found
                .iter()
                .map(|f| (f.line as usize, f.was.as_str(), f.now.as_str()))
                .collect();
            assert_eq!(
                changes,
                [(line, "return v2 + 2", "return v2 + 1")],
                "{python:?}: {probing:?}"
            );
        }
    }

    #[test]
    fn a_failure_no_one_token_repairs_is_probed_whole_and_an_endless_loop_is_cut() {
        // 7 is nothing a change of one token makes; `spin`'s `i += 1` as `i -= 1` never
        // ends.
        let dir = project(&TESTS.replace("clamp(5) == 5", "clamp(5) == 7"));
        for python in interpreters() {
            let (probing, _) = probed(&python, dir.path());
            assert!(probing.found.is_empty(), "{python:?}: {probing:?}");
            assert!(probing.finished, "{python:?}: {probing:?}");
            assert!(probing.note().contains("on all "), "{}", probing.note());
        }
    }
}
