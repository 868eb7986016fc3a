//! Starting a run (a write to `source/tests/run`) on a thread of its own, and how a read of
//! a running run's `result.md` waits for its end.

use std::sync::Arc;

use crate::error::{Error, ErrorKind, Result};
use crate::model::path::TreePath;
use crate::model::time::Time;
use crate::resources::source::places::in_tree::tree_path;
use crate::resources::source::places::in_tree::tree_path_of;
use crate::resources::source::places::paths::TESTS;
use crate::resources::source::project::Project;
use crate::resources::source::pytest_config::config_file;
use crate::resources::source::runner::Runner;
use crate::resources::source::runner::at::At;
use crate::resources::source::runner::places::source_path;
use crate::resources::source::runner::ranked::snapshot;
use crate::resources::source::runner::test_runs::{RUNS_HERE, carried_out};
use crate::store;
use crate::store::runs::Begun;
use crate::testrun::run::Outcome;
use crate::testrun::run::{Job, Tracing};
use crate::testrun::selector;
use crate::tree::{access, lock};

impl Runner {
    /// How a read of a running run's `result.md` waits: until the store says the run is
    /// over, at most its timeout and a margin for storing the results.
    pub(crate) fn runner_pending(&self, at: &At) -> Option<crate::tree::pending::Pending> {
        let At::Result(which) = at else {
            return None;
        };
        let mut run = self.run_of(*which).ok()?;
        // The mount carrying the run out may have died since it began (another daemon
        // sharing the store): its run is closed, and the read answers at once.
        if run.status == "running" && self.runs.close_abandoned().unwrap_or(false) {
            run = self.run_of(*which).ok()?;
        }
        if run.status != "running" {
            return None;
        }
        let (store, checkout, id) = (self.runs.store.clone(), self.runs.checkout.clone(), run.id);
        let limit = self.settings.current().test_timeout + std::time::Duration::from_secs(30);
        Some(crate::tree::pending::Pending::new(limit, move || {
            store
                .records(|db| db.runs().get(&checkout, Some(id)))
                .ok()
                .flatten()
                .is_none_or(|run| run.status != "running")
        }))
    }

    /// Starts a run of `selector` (pytest arguments; empty: every test) in the background;
    /// a refusal is kept for the newest run's result to tell.
    pub(crate) fn start_run(&self, selector: &[u8]) -> Result<i64> {
        let started = self.begin_run(selector);
        self.runs.started(&started);
        started
    }

    fn begin_run(&self, selector: &[u8]) -> Result<i64> {
        if !access::may_run_project_code() {
            return Err(Error::new(
                ErrorKind::PermissionDenied,
                "source/tests/run: only the mount's owner may run the tests, since they run the project's code as the owner",
            ));
        }
        let selector = std::str::from_utf8(selector)
            .map_err(|_| Error::invalid("source/tests/run: the selector is not UTF-8 text"))?;
        let chosen = match shlex::split(selector).as_deref() {
            Some([word]) if word == "affected" => Some(self.affected()?),
            Some([word, symbol]) if word == "covering" => Some(self.covering(symbol)?),
            _ => None,
        };
        let words = match &chosen {
            Some(chosen) => chosen.words.clone(),
            None => selector::parse(selector, &self.project.root, &|word| self.in_project(word))
                .map_err(|why| {
                    // Where other options go is said before the list of allowed ones, which
                    // a line of _errors.md cuts.
                    Error::invalid(format!(
                        "source/tests/run: no run was started (other pytest options are the \
                     owner's to set, in tests.args of {}): {why}",
                        self.links.to("source/meta/settings.toml")
                    ))
                })?,
        };
        let settings = self.settings.current();
        let python = crate::python::interpreter::find(
            &self.project.root,
            settings.python.as_deref(),
        )
        .map_err(|why| {
            Error::not_found(format!(
                "source/tests/run: no run was started: {why}. Set import_check.python in {}",
                self.links.to("source/meta/settings.toml")
            ))
        })?;
        let mut args = settings.test_args.clone();
        args.extend(words);
        // A run that chose its tests by what they ran keeps what it chose by up to date.
        let trace = if chosen.is_some() {
            Tracing::Whole
        } else if settings.test_trace {
            Tracing::FailingFiles(settings.test_args.clone())
        } else {
            Tracing::Off
        };
        // Said first in the run's output and view: which tests were chosen, and the
        // interpreter, as the tests may fail for it.
        let mut notes: Vec<String> = chosen.iter().map(|c| c.note.clone()).collect();
        notes.push(interpreter_note(&python));
        let note = (!notes.is_empty()).then(|| notes.join("\n"));
        let job = Job {
            python: python.path,
            note,
            root: self.project.root.clone(),
            config: config_file(&self.project.root),
            paths: self.project.code_roots.clone(),
            selector: args,
            timeout: settings.test_timeout,
            trace,
            probe: settings.test_probe,
        };
        let now = Time::now();
        // Held until the new run is among them, so that a run starting at the same time
        // on another thread sees it as carried out here.
        let mut here = lock(&RUNS_HERE);
        let begun = self.runs.store.change_records(|db| {
            let alive = |run: i64, pid: u32| carried_out(&here, run, pid);
            db.runs().begin(
                &self.runs.checkout,
                &job.command_line(),
                now,
                std::process::id(),
                &alive,
            )
        })?;
        let id = match begun {
            Begun::Started(id) => id,
            Begun::Running(running) => {
                return Err(Error::new(
                    ErrorKind::Busy,
                    format!(
                        "test run {running} is still running; watch {}/ and start another \
                         when it ends",
                        tree_path_of([TESTS, "runs", &running.to_string()])
                    ),
                ));
            }
        };
        here.insert(id);
        drop(here);
        let over = move || {
            lock(&RUNS_HERE).remove(&id);
        };
        let store: Arc<store::Store> = self.runs.store.clone();
        let (project, modules) = (self.project.clone(), self.modules.clone());
        let changes = self.runs.reporter();
        let tests = tree_path_of([TESTS]);
        std::thread::Builder::new()
            .name(format!("test run {id}"))
            .spawn(move || {
                // The code as the run finds it, taken while pytest starts rather than
                // before: a later failing run tells from it what changed since its tests
                // passed here.
                let code = std::thread::scope(|scope| {
                    let code = scope.spawn(|| snapshot(&project, &modules));
                    let outcome = job.run();
                    (code.join(), outcome)
                });
                let (code, outcome) = code;
                match code {
                    Ok(code) => {
                        if let Err(e) =
                            store.change_records(|db| db.runs().keep_snapshot(id, &code))
                        {
                            crate::log::line(&format!(
                                "test run {id}: cannot keep the code it ran: {}; suspects of \
                                 a later run will not know what changed since",
                                e.message
                            ));
                        }
                    }
                    Err(_) => crate::log::line(&format!(
                        "test run {id}: reading the code it ran failed; suspects of a later run \
                         will not know what changed since"
                    )),
                }
                let ended = Time::now();
                if let Err(e) = store.change_records(|db| db.runs().finish(id, ended, &outcome)) {
                    crate::log::line(&format!(
                        "test run {id}: cannot store its results: {}; the next run closes \
                         it as an error",
                        e.message
                    ));
                }
                over();
                // runs/, the test files' results, the dashboard's last run; and the views
                // of the modules a trace ran, which count the tests that ran them.
                if let Some(changes) = changes {
                    let mut changed = vec![tests];
                    changed.extend(traced_modules(&project, &outcome));
                    changes(changed);
                }
                crate::tree::pending::wake();
            })
            .map_err(|e| {
                over();
                Error::internal(format!(
                    "cannot start test run {id}: {e}; the next run closes it as an error"
                ))
            })?;
        Ok(id)
    }
}

/// Where the modules `outcome`'s trace ran are under `source/`: their views say how many
/// tests ran them.
fn traced_modules(project: &Project, outcome: &Outcome) -> Vec<TreePath> {
    let Some(traced) = &outcome.traced else {
        return Vec::new();
    };
    let files: std::collections::BTreeSet<&String> = traced
        .coverage
        .tests
        .iter()
        .flat_map(|t| t.files.keys())
        .collect();
    files
        .into_iter()
        .map(|file| project.root.join(file))
        .filter(|path| !project.is_test_file(path))
        .filter_map(|path| source_path(project, &path))
        .map(tree_path)
        .collect()
}

/// The note a run's output opens with on its interpreter: which, and why it was chosen
/// (and why those before it were passed over): `homespace: interpreter
/// /p/.venv/bin/python (the project's .venv)`. [`INTERPRETER_NOTE`] starts it.
fn interpreter_note(python: &crate::python::interpreter::Interpreter) -> String {
    let passed = if python.passed_over.is_empty() {
        String::new()
    } else {
        format!("; passed over: {}", python.passed_over.join("; "))
    };
    format!(
        "{INTERPRETER_NOTE}{} ({}{passed})",
        python.path.display(),
        python.chosen_by
    )
}

/// How a run's note on its interpreter starts.
pub(crate) const INTERPRETER_NOTE: &str = "homespace: interpreter ";

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::*;

    use crate::resources::source::testing::{can_run_tests, source_over};
    use crate::store::Store;
    use crate::tree::access::Admission;

    #[test]
    fn a_run_this_process_left_running_does_not_block_the_next() {
        let (_dir, root) = crate::resources::source::testing::project_with(&[(
            "tests/test_a.py",
            "def test_a():\n    pass\n",
        )]);
        if !can_run_tests(&root) {
            return;
        }
        let store = Arc::new(Store::in_memory().unwrap());
        let source = source_over(&root, &store);
        // Stored as running in this very process, which is not carrying it out: its
        // results could not be stored when it ended.
        let stuck = store
            .change_records(|db| {
                db.runs().start(
                    &source.runner.runs.checkout,
                    "pytest",
                    Time::from_unix(0),
                    std::process::id(),
                )
            })
            .unwrap();
        let _owner = Admission::enter(true);
        let next = source.runner.start_run(b"").unwrap();
        let status = |run| {
            store
                .records(|db| db.runs().get(&source.runner.runs.checkout, Some(run)))
                .unwrap()
                .unwrap()
                .status
        };
        assert_eq!(status(stuck), "error");
        // While the new one is carried out here, it is in the way of another.
        let busy = source.runner.start_run(b"").map(|_| ());
        // A bound on waiting, not a speed claim: a run that never ends must not hang.
        let started = Instant::now();
        while status(next) == "running" {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "run {next} ended"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        if let Err(e) = busy {
            assert_eq!(e.kind, ErrorKind::Busy, "{}", e.message);
        }
    }
}
