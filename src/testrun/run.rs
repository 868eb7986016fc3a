//! Running pytest once: the project's interpreter, the project on `PYTHONPATH`, output
//! (stdout and stderr, interleaved as written) kept whole, results from the JUnit XML
//! report, and a timeout after which the whole process group is killed.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::coverage::Traced;
use super::junit::{self, Report};

/// What to run.
#[derive(Debug, Clone)]
pub struct Job {
    /// The interpreter (`<project>/.venv/bin/python`, `python3`, ...).
    pub python: PathBuf,
    /// The project's root: the working directory.
    pub root: PathBuf,
    /// Put first on `PYTHONPATH`: where the project's packages live (`src/`, the root).
    pub paths: Vec<PathBuf>,
    /// The project's own pytest configuration file (see
    /// `pytest_config::config_file` in `resources/source/`); `None`: it has none, and
    /// pytest is given none.
    pub config: Option<PathBuf>,
    /// Test selectors as the user wrote them (`tests/test_calc.py::test_add`, `-k div`).
    pub selector: Vec<String>,
    pub timeout: Duration,
    /// A line put first in the output, before pytest's (why this interpreter).
    pub note: Option<String>,
    /// Whether and how the run records which project lines each test ran.
    pub trace: Tracing,
    /// How long a traced run's probe may try one-token fixes of its first failing test;
    /// zero: no probe.
    pub probe: Duration,
}

/// Where a run keeps pytest's cache, from the project's folder: what `--lf`, `--ff`,
/// `--nf` and `--sw` read the last run from. In the project's `.homespace/`, which the
/// mount hides and which holds what homespace keeps for the project, rather than
/// pytest's own `.pytest_cache` beside the code: pytest writes a `.gitignore` into it, so
/// git never sees it either way, and a project's own pytest runs keep their cache apart.
pub const CACHE_DIR: &str = ".homespace/pytest-cache";

/// Whether a pytest process reads and writes the run's cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cache {
    /// The run itself: `--lf` and the rest work, and the next run knows this one's.
    Kept,
    /// Another pass over the run's tests (the traced pass), which must not count as the
    /// run the next `--lf` reads.
    Off,
}

/// Whether and how a run is traced (see `traced.rs`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tracing {
    Off,
    /// When tests fail, run their test files again traced, with these pytest arguments
    /// (the settings' own, none of the selector's).
    FailingFiles(Vec<String>),
    /// Trace the run itself, every test it runs: a run that chooses tests by what they
    /// ran keeps what it chooses by up to date.
    Whole,
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Passed,
    Failed,
    /// `--collect-only`: pytest listed the tests it would run and ran none.
    Collected,
    /// pytest could not run the tests (a usage error, nothing collected, a crash).
    Error,
    TimedOut,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Passed => "passed",
            Status::Failed => "failed",
            Status::Collected => "collected",
            Status::Error => "error",
            Status::TimedOut => "timed out",
        }
    }
}

/// What a finished run gave.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub status: Status,
    pub report: Report,
    /// Everything pytest printed.
    pub output: String,
    pub seconds: f64,
    /// What the traced second pass over the failing tests' files recorded, if one ran.
    pub traced: Option<Traced>,
}

impl Job {
    /// The command line as a shell would take it, its environment first
    /// (`PYTHONPATH=src PYTHONDONTWRITEBYTECODE=1 .venv/bin/python -m pytest … -k 'a and
    /// not b'`): pasted in the project folder, it runs what the run ran. Only the JUnit
    /// report's temporary path is left out, as it is gone once the run is read.
    pub fn command_line(&self) -> String {
        let mut words: Vec<String> = self
            .environment()
            .into_iter()
            .map(|(name, value)| format!("{name}={}", quoted(&value)))
            .collect();
        words.push(quoted(&self.python.to_string_lossy()));
        words.extend(self.arguments().iter().map(|a| quoted(a)));
        words.join(" ")
    }

    /// The variables the run sets: the project's code first on `PYTHONPATH` (relative to
    /// the project folder, where the run starts, as Python makes them absolute), then what
    /// was there already.
    pub(super) fn environment(&self) -> Vec<(&'static str, String)> {
        let mut paths: Vec<String> = self
            .paths
            .iter()
            .map(|p| match p.strip_prefix(&self.root) {
                Ok(rel) if rel.as_os_str().is_empty() => ".".to_string(),
                Ok(rel) => rel.to_string_lossy().into_owned(),
                Err(_) => p.to_string_lossy().into_owned(),
            })
            .collect();
        if let Some(existing) = std::env::var_os("PYTHONPATH") {
            paths.push(existing.to_string_lossy().into_owned());
        }
        vec![
            ("PYTHONPATH", paths.join(":")),
            ("PYTHONDONTWRITEBYTECODE", "1".to_string()),
        ]
    }

    /// pytest's arguments but the report's path: the selector, then pytest kept inside the
    /// project (its rootdir, its own configuration file or none, no conftest.py read above
    /// it; after the selector and the settings' arguments, so that they cannot be undone),
    /// its cache in the project's `.homespace/` (see [`CACHE_DIR`]) and no colour codes in
    /// the output kept.
    ///
    /// Without the first three, pytest looks for its configuration in the folders above
    /// the project too: in a shared folder, another user's `pytest.ini` there becomes the
    /// run's, and their `conftest.py` beside it runs as the owner (issue 42). `/dev/null`
    /// is pytest's way to say "no configuration" (it has no section to read).
    pub(super) fn arguments(&self) -> Vec<String> {
        self.arguments_for(&self.selector, Cache::Kept)
    }

    /// [`Job::arguments`] with `selector` in place of the job's, and pytest's cache as
    /// `cache` says.
    pub(super) fn arguments_for(&self, selector: &[String], cache: Cache) -> Vec<String> {
        let config = match &self.config {
            Some(file) => match file.strip_prefix(&self.root) {
                Ok(rel) => rel.to_string_lossy().into_owned(),
                Err(_) => file.to_string_lossy().into_owned(),
            },
            None => "/dev/null".to_string(),
        };
        // Relative to the run's folder, the project: pytest expands `$VAR` in --rootdir,
        // and a project's absolute path may hold a `$`.
        let mut words: Vec<String> = vec!["-m".into(), "pytest".into()];
        words.extend(selector.iter().cloned());
        words.extend([
            "--rootdir=.".into(),
            "-c".into(),
            config,
            "--confcutdir=.".into(),
        ]);
        match cache {
            Cache::Kept => words.extend(["-o".to_string(), format!("cache_dir={CACHE_DIR}")]),
            Cache::Off => words.extend(["-p", "no:cacheprovider"].map(String::from)),
        }
        words.extend(["--color", "no"].map(String::from));
        words
    }

    /// Runs the job to its end (or its timeout) and reads what it gave; when tests failed
    /// and [`Job::trace`] says so, runs their test files again traced (see `traced.rs`).
    pub fn run(&self) -> Outcome {
        let started = Instant::now();
        let outcome = |status, report, output: String| Outcome {
            status,
            report,
            output,
            seconds: started.elapsed().as_secs_f64(),
            traced: None,
        };
        let scratch = match tempfile::tempdir() {
            Ok(dir) => dir,
            Err(e) => {
                return outcome(
                    Status::Error,
                    Report::default(),
                    format!("cannot make a temp dir: {e}"),
                );
            }
        };
        let junit_path = scratch.path().join("junit.xml");
        let output_path = scratch.path().join("output.txt");
        let mut args = self.arguments();
        args.push(format!("--junitxml={}", junit_path.display()));
        let mut env: Vec<(String, String)> = self
            .environment()
            .into_iter()
            .map(|(name, value)| (name.to_string(), value))
            .collect();
        let whole = match self.trace {
            Tracing::Whole => match self.traced_whole(scratch.path(), &mut args, &mut env) {
                Ok(tracer) => Some(tracer),
                Err(e) => {
                    return outcome(
                        Status::Error,
                        Report::default(),
                        format!("cannot set up the tracer: {e}"),
                    );
                }
            },
            _ => None,
        };
        let ended = self.pytest(
            &args,
            &env,
            &output_path,
            self.note.as_deref(),
            self.timeout,
        );
        let read_output = || {
            String::from_utf8_lossy(&std::fs::read(&output_path).unwrap_or_default()).into_owned()
        };
        let code = match ended {
            Ended::Exited(code) => code,
            Ended::TimedOut => {
                let report = read_report(&junit_path).unwrap_or_default();
                return outcome(Status::TimedOut, report, read_output());
            }
            Ended::Unstarted(why) => return outcome(Status::Error, Report::default(), why),
        };
        let report = read_report(&junit_path);
        // pytest's exit codes: 0 all passed, 1 some failed, 2-5 it could not run them.
        let collect_only = args.iter().any(|a| a == "--collect-only" || a == "--co");
        let status = match (code, &report) {
            (Some(0), Some(_)) if collect_only => Status::Collected,
            (Some(0), Some(_)) => Status::Passed,
            (Some(1), Some(_)) => Status::Failed,
            _ => Status::Error,
        };
        let mut done = outcome(status, report.unwrap_or_default(), read_output());
        done.traced = match (&self.trace, whole) {
            (_, Some(tracer)) => Some(Traced {
                coverage: tracer.read(),
                files: Vec::new(),
                seconds: done.seconds,
                probing: tracer.probing(),
            }),
            (Tracing::FailingFiles(args), _) if status == Status::Failed => {
                self.traced_pass(args, &done.report.problems, scratch.path())
            }
            _ => None,
        };
        if let Some(traced) = &done.traced {
            done.output.push_str(&traced.note());
            done.output.push('\n');
            if let Some(probing) = &traced.probing {
                done.output.push_str(&probing.note());
                done.output.push('\n');
            }
        }
        done
    }

    /// Runs pytest with `args` and `env` in the project folder, all it prints (after
    /// `note`) into `output`, until it ends or `timeout` has passed; then the whole
    /// process group is killed.
    pub(super) fn pytest(
        &self,
        args: &[String],
        env: &[(String, String)],
        output: &std::path::Path,
        note: Option<&str>,
        timeout: Duration,
    ) -> Ended {
        let started = Instant::now();
        let spawned = std::fs::File::create(output).and_then(|mut out| {
            if let Some(note) = note {
                use std::io::Write;
                writeln!(out, "{note}")?;
            }
            let err = out.try_clone()?;
            use std::os::unix::process::CommandExt;
            let mut command = Command::new(&self.python);
            command
                .args(args)
                .current_dir(&self.root)
                .envs(env.iter().map(|(name, value)| (name, value)))
                .stdin(Stdio::null())
                .stdout(out)
                .stderr(err)
                // Its own process group, so a timeout kills what the tests started too.
                .process_group(0);
            // SAFETY: prctl is async-signal-safe; it makes the kernel kill pytest when the
            // thread that started it dies (a killed daemon), so no run outlives its mount.
            unsafe {
                command.pre_exec(|| {
                    libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                    Ok(())
                });
            }
            command.spawn()
        });
        let mut child = match spawned {
            Ok(child) => child,
            Err(e) => {
                return Ended::Unstarted(format!("cannot run {}: {e}", self.python.display()));
            }
        };
        loop {
            match child.try_wait() {
                Ok(Some(status)) => return Ended::Exited(status.code()),
                Ok(None) if started.elapsed() >= timeout => {
                    // SAFETY: kill only signals; the group is the child's own (process_group(0)).
                    unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
                    let _ = child.wait();
                    return Ended::TimedOut;
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(50)),
                Err(e) => return Ended::Unstarted(format!("cannot wait for pytest: {e}")),
            }
        }
    }
}

/// How one pytest process ended.
pub(super) enum Ended {
    /// With this exit code (`None`: killed by a signal).
    Exited(Option<i32>),
    /// Killed at the timeout.
    TimedOut,
    /// It could not be started or waited for: why.
    Unstarted(String),
}

/// `word` as a shell reads it back: quoted when it holds anything the shell treats apart.
fn quoted(word: &str) -> String {
    // Only a NUL cannot be quoted, and no argument can hold one.
    shlex::try_quote(word).map_or_else(|_| word.replace('\0', ""), |q| q.into_owned())
}

fn read_report(path: &std::path::Path) -> Option<Report> {
    let xml = std::fs::read_to_string(path).ok()?;
    junit::read(&xml).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A project with a passing, a failing, an erroring and a skipped test, and one that
    /// sleeps (selected only by the timeout test).
    fn project() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src/calc")).unwrap();
        std::fs::write(dir.path().join("src/calc/__init__.py"), "").unwrap();
        std::fs::write(
            dir.path().join("src/calc/ops.py"),
            "def div(a, b):\n    return a / b\n",
        )
        .unwrap();
        std::fs::create_dir_all(dir.path().join("tests")).unwrap();
        std::fs::write(
            dir.path().join("tests/test_ops.py"),
            "import pytest\nfrom calc.ops import div\n\n\ndef test_div():\n    assert div(4, 2) == 2\n\n\ndef test_zero():\n    assert div(1, 0) == 0\n\n\n@pytest.fixture\ndef db():\n    raise RuntimeError('no db')\n\n\ndef test_db(db):\n    pass\n\n\n@pytest.mark.skip(reason='later')\ndef test_later():\n    pass\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("tests/slow_check.py"),
            "import time\n\n\ndef test_sleep():\n    time.sleep(30)\n",
        )
        .unwrap();
        dir
    }

    fn job(dir: &tempfile::TempDir, selector: &[&str], timeout: Duration) -> Job {
        Job {
            python: PathBuf::from("python3"),
            root: dir.path().to_path_buf(),
            paths: vec![dir.path().join("src")],
            config: None,
            selector: selector.iter().map(|s| s.to_string()).collect(),
            timeout,
            note: None,
            trace: Tracing::Off,
            probe: Duration::ZERO,
        }
    }

    #[test]
    fn a_run_reports_each_kind_of_result_from_junit() {
        let dir = project();
        let outcome = job(&dir, &["tests/test_ops.py"], Duration::from_secs(120)).run();
        assert_eq!(outcome.status, Status::Failed, "{}", outcome.output);
        let r = &outcome.report;
        assert_eq!(
            (r.passed, r.failed, r.errors, r.skipped),
            (1, 1, 1, 1),
            "{}",
            outcome.output
        );
        let ids: Vec<&str> = r.problems.iter().map(|p| p.id.as_str()).collect();
        assert_eq!(ids, ["tests.test_ops.test_zero", "tests.test_ops.test_db"]);
        assert!(
            r.problems[0].traceback.contains("ZeroDivisionError"),
            "{:?}",
            r.problems[0]
        );
        assert!(
            outcome
                .output
                .contains("1 failed, 1 passed, 1 skipped, 1 error"),
            "{}",
            outcome.output
        );
        assert!(
            !dir.path().join(".pytest_cache").exists(),
            "no cache left in the project"
        );
    }

    #[test]
    fn nothing_above_the_project_is_read() {
        let outer = tempfile::tempdir().unwrap();
        std::fs::write(
            outer.path().join("pytest.ini"),
            "[pytest]\naddopts = -p no_such_plugin_above\n",
        )
        .unwrap();
        std::fs::write(
            outer.path().join("conftest.py"),
            "raise SystemExit('the conftest above the project ran')\n",
        )
        .unwrap();
        let root = outer.path().join("project");
        std::fs::create_dir_all(root.join("tests")).unwrap();
        std::fs::write(root.join("tests/test_a.py"), "def test_a():\n    pass\n").unwrap();
        let job = Job {
            python: PathBuf::from("python3"),
            root: root.clone(),
            paths: vec![],
            config: None,
            selector: vec![],
            timeout: Duration::from_secs(120),
            note: None,
            trace: Tracing::Off,
            probe: Duration::ZERO,
        };
        let outcome = job.run();
        assert_eq!(outcome.status, Status::Passed, "{}", outcome.output);
        assert!(
            outcome
                .output
                .contains(&format!("rootdir: {}", root.display())),
            "{}",
            outcome.output
        );
        assert!(!outcome.output.contains("pytest.ini"), "{}", outcome.output);
    }

    #[test]
    fn a_run_past_its_timeout_is_killed_and_says_so() {
        let dir = project();
        let outcome = job(&dir, &["tests/slow_check.py"], Duration::from_secs(2)).run();
        // Only the kill at the timeout gives this status; the sleeping test never ended.
        assert_eq!(outcome.status, Status::TimedOut, "{}", outcome.output);
        assert!(!outcome.output.contains("passed"), "{}", outcome.output);
    }

    #[test]
    fn a_selector_that_matches_nothing_is_an_error_not_a_pass() {
        let dir = project();
        let outcome = job(&dir, &["tests/no_such_file.py"], Duration::from_secs(60)).run();
        assert_eq!(outcome.status, Status::Error, "{}", outcome.output);
        assert!(
            outcome.output.contains("no_such_file.py"),
            "{}",
            outcome.output
        );
    }
}
