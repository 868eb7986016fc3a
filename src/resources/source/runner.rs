//! The test runner's names in `source/tests/`: `run` (write a pytest selector, or nothing,
//! to start a run in the background; the write returns at once) and `runs/`, with `<n>/`
//! and `latest/` per run: `result.md` (the outcome and each failure with its suspects; read
//! while the run goes on, it waits for the end), `_entry.md` (status, counts, duration,
//! command, failures), `output.txt` (all pytest printed, exact) and `failures/<test>.txt`
//! (see `failure.rs`; named as `run_files.rs` says).
//!
//! Runs are kept in the store ([`crate::store::runs`]) and made by [`crate::testrun`];
//! one runs at a time, on a thread of its own, so the mount never waits for one.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, OnceLock};

use crate::error::{Error, ErrorKind, Result};
use crate::model::time::Time;
use crate::model::{Child, Entry, Function, Kind, Node, Ownership, Section, TreePath};
use crate::resources::source::Source;
use crate::resources::source::failure::{RunNotes, first_line, summary};
use crate::resources::source::paths::TESTS;
use crate::resources::source::run_files::{file_name, with_final_newline};
use crate::store::{self, runs};
use crate::testrun::junit::Problem;
use crate::testrun::run::Job;
use crate::testrun::selector;
use crate::tree::resource::{Changes, Resource};
use crate::tree::{access, lock};

/// Runs listed by `ls runs/` (older ones are reachable by number).
const LISTED: usize = 100;

/// The test runs this process is carrying out now. A run stored as running in this
/// process but not among them is over although the process lives on: its results could
/// not be stored (the PostgreSQL store was away when it ended) or its thread never
/// started. Without this, such a run would block every later run until a remount.
static RUNS_HERE: Mutex<BTreeSet<i64>> = Mutex::new(BTreeSet::new());

/// This checkout's test runs: their records in the store, and what the runner remembers
/// between requests.
pub(super) struct TestRuns {
    store: Arc<store::Store>,
    /// Whose runs of the store are this checkout's (see [`super::checkout::key`]).
    checkout: String,
    /// The last write to `source/tests/run` that started no run, when and why: said by
    /// the newest run's result until a run starts, since `echo > run; cat result.md` hides
    /// the refusal and would show the previous run as if it were the new one.
    refused: Mutex<Option<(Time, String)>>,
    /// Where a finished run is reported (it changes `source/tests/` outside the tree),
    /// once the mount watches (see [`Resource::watch`]).
    changes: OnceLock<Changes>,
}

impl TestRuns {
    pub(super) fn new(store: Arc<store::Store>, checkout: String) -> Self {
        let runs = TestRuns {
            store,
            checkout,
            refused: Mutex::default(),
            changes: OnceLock::new(),
        };
        // A run whose daemon was killed mid-run (or whose machine went down) would say
        // "running" for ever, and a read of its result would wait for it: closed now.
        if let Err(e) = runs.close_abandoned() {
            crate::log::line(&format!(
                "cannot close the test runs left running by a stopped mount: {}",
                e.message
            ));
        }
        runs
    }

    /// Close, as stopped before they ended, this checkout's runs stored as running whose
    /// daemon is gone; whether any was.
    fn close_abandoned(&self) -> Result<bool> {
        let here = lock(&RUNS_HERE);
        // Read first: the usual answer is "none", and a write transaction at every mount
        // and every wait for a result would take the store's write lock for nothing.
        let running = self.store.records(|db| db.runs().running(&self.checkout))?;
        if running
            .iter()
            .all(|&(run, pid)| carried_out(&here, run, pid))
        {
            return Ok(false);
        }
        let now = Time::now();
        self.store.change_records(|db| {
            let mut closed = false;
            for (run, pid) in db.runs().running(&self.checkout)? {
                if !carried_out(&here, run, pid) {
                    db.runs().abandon(run, now)?;
                    closed = true;
                }
            }
            Ok(closed)
        })
    }

    /// Report finished runs to `changes` from now on; `false` when they already were
    /// reported somewhere (the mount watches once).
    pub(super) fn report_to(&self, changes: Changes) -> bool {
        self.changes.set(changes).is_ok()
    }

    /// Where a finished run is reported, once the mount watches.
    fn reporter(&self) -> Option<Changes> {
        self.changes.get().cloned()
    }

    /// Keep what the write that just tried to start a run did: started (`Ok`), or refused
    /// and why.
    fn started(&self, outcome: &Result<i64>) {
        *lock(&self.refused) = match outcome {
            Ok(_) => None,
            Err(e) => Some((Time::now(), e.message.clone())),
        };
    }

    /// What the newest run's views say of a refused start made after `started` (when the
    /// newest run began), if there was one.
    fn refused_since(&self, started: Time) -> Option<String> {
        let (when, why) = lock(&self.refused).clone()?;
        (when >= started)
            .then(|| format!("Your newest write to run started nothing ({when}): {why}"))
    }
}

/// A path of the runner under `source/tests/`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum At {
    Run,
    Runs,
    /// `runs/<n>/` or `runs/latest/` (`None`).
    RunDir(Option<i64>),
    Result(Option<i64>),
    Output(Option<i64>),
    Failures(Option<i64>),
    Failure(Option<i64>, String),
}

/// The runner's place for `path` (under `source/`), if it is one.
pub(super) fn at(path: &[&str]) -> Option<At> {
    let which = |name: &str| match name {
        "latest" => Some(None),
        n => n.parse::<i64>().ok().filter(|n| *n > 0).map(Some),
    };
    Some(match path {
        [TESTS, "run"] => At::Run,
        [TESTS, "runs"] => At::Runs,
        [TESTS, "runs", n] => At::RunDir(which(n)?),
        [TESTS, "runs", n, "output.txt"] => At::Output(which(n)?),
        [TESTS, "runs", n, "result.md"] => At::Result(which(n)?),
        [TESTS, "runs", n, "failures"] => At::Failures(which(n)?),
        [TESTS, "runs", n, "failures", test] => {
            At::Failure(which(n)?, test.strip_suffix(".txt")?.to_string())
        }
        _ => return None,
    })
}

/// The runner's members of `source/tests/`.
pub(super) fn members() -> Vec<Child> {
    vec![
        Child::new(
            "run",
            Kind::Document,
            "write a pytest selector (or nothing) to run the tests",
        ),
        Child::new(
            "runs",
            Kind::Dir,
            "test runs and their results; latest/ is the newest",
        ),
    ]
}

impl Source {
    /// The newest run, if any ran (and the store answers).
    pub(super) fn newest_run(&self) -> Option<runs::Run> {
        self.runs
            .store
            .records(|db| db.runs().get(&self.runs.checkout, None))
            .ok()
            .flatten()
    }

    /// The newest run in one line (`2: failed: 3 passed, 1 failed (2.1 s)`), if any ran.
    pub(super) fn last_run(&self) -> Option<String> {
        let run = self.newest_run()?;
        Some(format!("{} — {}", run.id, summary(&run)))
    }

    fn run_of(&self, which: Option<i64>) -> Result<runs::Run> {
        self.runs
            .store
            .records(|db| db.runs().get(&self.runs.checkout, which))?
            .ok_or_else(|| {
                Error::not_found(match which {
                    Some(n) => format!(
                        "there is no test run {n}; {} lists them",
                        self.links.to("source/tests/runs/")
                    ),
                    None => format!(
                        "no test has run yet: start one with `echo > {}`",
                        self.links.to("source/tests/run")
                    ),
                })
            })
    }

    fn problems_of(&self, which: Option<i64>) -> Result<(runs::Run, Vec<Problem>)> {
        let run = self.run_of(which)?;
        let problems = self
            .runs
            .store
            .records(|db| db.runs().problems(&self.runs.checkout, run.id))?;
        Ok((run, problems))
    }

    pub(super) fn runner_stat(&self, at: &At) -> Result<Node> {
        // The owner's alone, as search results are: a run's output and tracebacks quote
        // whatever files the tests touched, whatever their modes.
        let owner = Ownership::OwnerOnly;
        match at {
            At::Run => Ok(Node {
                size: Some(0),
                ..Node::document(true).owned(self.root_ownership())
            }),
            At::Runs => Ok(Node::dir(false).owned(owner)),
            At::RunDir(which) | At::Failures(which) => {
                self.run_of(*which)?;
                Ok(Node::dir(false).owned(owner))
            }
            At::Result(which) => {
                let (run, text) = self.result_of(*which)?;
                Ok(Node {
                    size: Some(with_final_newline(text.into_bytes()).len() as u64),
                    ..Node::view().owned(owner).waiting(run.status == "running")
                })
            }
            At::Output(_) | At::Failure(..) => Ok(Node {
                size: Some(self.runner_read(at)?.len() as u64),
                ..Node::view().owned(owner)
            }),
        }
    }

    pub(super) fn runner_list(&self, at: &At) -> Result<Vec<Child>> {
        match at {
            At::Runs => {
                let runs = self
                    .runs
                    .store
                    .records(|db| db.runs().newest(&self.runs.checkout, LISTED))?;
                let mut children = Vec::new();
                if !runs.is_empty() {
                    children.push(Child::new("latest", Kind::Dir, "the newest run"));
                }
                children.extend(
                    runs.iter()
                        .map(|run| Child::new(run.id.to_string(), Kind::Dir, summary(run))),
                );
                Ok(children)
            }
            At::RunDir(which) => {
                let (_, problems) = self.problems_of(*which)?;
                Ok(vec![
                    Child::new(
                        "result.md",
                        Kind::View,
                        "the outcome, failures and suspects; waits while the run goes on",
                    ),
                    Child::new("output.txt", Kind::View, "everything pytest printed"),
                    Child::new(
                        "failures",
                        Kind::Dir,
                        format!("{} failing or erroring tests", problems.len()),
                    ),
                ])
            }
            At::Failures(which) => {
                let (_, problems) = self.problems_of(*which)?;
                Ok(problems
                    .iter()
                    .map(|p| {
                        Child::new(
                            file_name(&p.id),
                            Kind::View,
                            format!("{}: {}", p.kind, first_line(&p.message)),
                        )
                    })
                    .collect())
            }
            At::Run | At::Output(_) | At::Result(_) | At::Failure(..) => Err(Error::new(
                ErrorKind::NotADirectory,
                "source/tests/run, result.md, output.txt and failures/*.txt are files",
            )),
        }
    }

    pub(super) fn runner_read(&self, at: &At) -> Result<Vec<u8>> {
        self.runner_text(at).map(with_final_newline)
    }

    fn runner_text(&self, at: &At) -> Result<Vec<u8>> {
        match at {
            At::Run => Ok(Vec::new()),
            At::Output(which) => {
                let run = self.run_of(*which)?;
                Ok(self
                    .runs
                    .store
                    .records(|db| db.runs().output(&self.runs.checkout, run.id))?
                    .unwrap_or_default()
                    .into_bytes())
            }
            At::Result(which) => Ok(self.result_of(*which)?.1.into_bytes()),
            At::Failure(which, name) => {
                let (run, problems) = self.problems_of(*which)?;
                let problem = problems
                    .iter()
                    .find(|p| file_name(&p.id) == format!("{name}.txt"))
                    .ok_or_else(|| {
                        Error::not_found(format!("run {} has no failure {name}", run.id))
                    })?;
                Ok(self.failure_view(&run, problem).into_bytes())
            }
            _ => Err(Error::new(
                ErrorKind::IsADirectory,
                "a directory of the test runner: read its _entry.md",
            )),
        }
    }

    pub(super) fn runner_entry(&self, at: &At) -> Result<Entry> {
        let run_file = self.links.to("source/tests/run");
        match at {
            At::Runs => {
                let items: Vec<String> = self
                    .runs
                    .store
                    .records(|db| db.runs().newest(&self.runs.checkout, LISTED))?
                    .iter()
                    .map(|run| {
                        format!(
                            "`{}` — {}",
                            self.links.to(&format!("source/tests/runs/{}/", run.id)),
                            summary(run)
                        )
                    })
                    .collect();
                Ok(Entry {
                    title: format!("source/tests/runs — {} test runs", items.len()),
                    functions: vec![
                        Function::new(
                            format!(
                                "echo > {run_file}; cat {}",
                                self.links.to("source/tests/runs/latest/result.md")
                            ),
                            "run every test and wait",
                            "the result, with suspects",
                        ),
                        Function::new(
                            format!("echo 'tests/test_x.py -k div' > {run_file}"),
                            "run some tests",
                            "the selector goes to pytest",
                        ),
                        Function::new(
                            format!(
                                "cat {}",
                                self.links.to("source/tests/runs/latest/result.md")
                            ),
                            "see the newest run",
                            "its result; waits while it runs",
                        ),
                    ],
                    sections: vec![Section {
                        heading: "Runs, newest first".into(),
                        items,
                        empty: "none yet".into(),
                        ..Section::default()
                    }],
                    ..Entry::default()
                })
            }
            At::RunDir(which) | At::Failures(which) => {
                let (run, problems) = self.problems_of(*which)?;
                let dir = self.links.to(&format!("source/tests/runs/{}/", run.id));
                let items = problems
                    .iter()
                    .map(|p| {
                        format!(
                            "`{dir}failures/{}` — {}: {}",
                            file_name(&p.id),
                            p.kind,
                            first_line(&p.message)
                        )
                    })
                    .collect();
                let about = self.run_notes(&run)?;
                Ok(Entry {
                    title: format!("source/tests/runs/{} — {}", run.id, about.summary(&run)),
                    about: about
                        .into_iter()
                        .chain([
                            format!("Command: `{}`", run.command),
                            format!(
                                "Started {}{}",
                                run.started,
                                run.seconds
                                    .map(|s| format!(", took {s:.1} s"))
                                    .unwrap_or_else(|| ", still running".into())
                            ),
                        ])
                        .collect(),
                    functions: vec![
                        Function::new(
                            format!("cat {dir}result.md"),
                            "read the result (waits while running)",
                            "failures with the suspect symbols' files",
                        ),
                        Function::new(
                            format!("cat {dir}output.txt"),
                            "read all pytest printed",
                            "the exact output",
                        ),
                        Function::new(
                            format!("cat {dir}failures/<test>.txt"),
                            "read one failure",
                            "its failing lines, explanation and suspects",
                        ),
                        Function::new(
                            format!("echo > {run_file}"),
                            "run the tests again",
                            "a new run",
                        ),
                    ],
                    sections: vec![Section {
                        heading: "Failures and errors".into(),
                        items,
                        empty: "none".into(),
                        // Their folder, not this one: it lists them all.
                        more: Some(format!("ls {dir}failures/")),
                        ..Section::default()
                    }],
                    ..Entry::default()
                })
            }
            _ => Err(Error::new(
                ErrorKind::NotADirectory,
                "a file of the test runner",
            )),
        }
    }

    /// The functions-table row that runs every test and prints the result when it ends.
    pub(super) fn run_and_wait(&self) -> Function {
        Function::new(
            format!(
                "echo > {}; cat {}",
                self.links.to("source/tests/run"),
                self.links.to("source/tests/runs/latest/result.md")
            ),
            "run the tests and wait",
            "the result, each failure with its suspects",
        )
    }

    /// How `source/tests/` runs its tests and where their results are, in one line.
    pub(super) fn how_tests_run(&self) -> String {
        format!(
            "Run tests: `echo '<selector>' > {}` (nothing: every test; paths, ids, -k, -m, \
             -x, --lf as pytest takes them); each run's results are in {}, the newest in \
             latest/.",
            self.links.to("source/tests/run"),
            self.links.to("source/tests/runs/")
        )
    }

    /// Run `which` with its `result.md`, led by a refused start newer than the run when it
    /// is the newest.
    fn result_of(&self, which: Option<i64>) -> Result<(runs::Run, String)> {
        let (run, problems) = self.problems_of(which)?;
        let mut about = self.run_notes(&run)?;
        if which.is_none()
            && let Some(refused) = self.runs.refused_since(run.started)
        {
            about.lead_with(refused);
        }
        let text = self.result_view(&run, &problems, &about);
        Ok((run, text))
    }

    /// What a run's views say before its failures: the interpreter note its output opens
    /// with, and why pytest could not run at all.
    fn run_notes(&self, run: &runs::Run) -> Result<RunNotes> {
        let mut about = RunNotes::default();
        let output = self
            .runs
            .store
            .records(|db| db.runs().output(&self.runs.checkout, run.id))?
            .unwrap_or_default();
        about.count_from(crate::testrun::summary::closing(&output));
        if let Some(note) = output
            .lines()
            .next()
            .filter(|l| l.starts_with("homespace: "))
        {
            about.push(note.to_string());
        }
        if run.status == "error" {
            let last = output
                .lines()
                .rev()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("");
            about.push(format!("pytest could not run the tests: {}", last.trim()));
        }
        Ok(about)
    }

    /// How a read of a running run's `result.md` waits: until the store says the run is
    /// over, at most its timeout and a margin for storing the results.
    pub(super) fn runner_pending(&self, at: &At) -> Option<crate::tree::pending::Pending> {
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
        let limit = self.settings().test_timeout + std::time::Duration::from_secs(30);
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
    pub(super) fn start_run(&self, selector: &[u8]) -> Result<i64> {
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
        let words = selector::parse(selector, &self.project.root).map_err(|why| {
            Error::invalid(format!(
                "source/tests/run: no run was started: {why}. Other pytest options are the \
                 owner's to set, in tests.args of {}",
                self.links.to("source/meta/settings.toml")
            ))
        })?;
        let settings = self.settings();
        let python = self.interpreter(&settings).map_err(|why| {
            Error::not_found(format!(
                "source/tests/run: no run was started: {why}. Set import_check.python in {}",
                self.links.to("source/meta/settings.toml")
            ))
        })?;
        let mut args = settings.test_args.clone();
        args.extend(words);
        // Said first in the run's output and view: the tests may fail for it.
        let note = (!python.passed_over.is_empty()).then(|| {
            format!(
                "homespace: ran {} because {}",
                python.path.display(),
                python.passed_over.join("; ")
            )
        });
        let job = Job {
            python: python.path,
            note,
            root: self.project.root.clone(),
            config: super::pytest_config::config_file(&self.project.root),
            paths: self.project.code_roots.clone(),
            selector: args,
            timeout: settings.test_timeout,
        };
        let now = Time::now();
        // Held until the new run is among them, so that a run starting at the same time
        // on another thread sees it as carried out here.
        let mut here = lock(&RUNS_HERE);
        let id = self.runs.store.change_records(|db| {
            let alive = |run: i64, pid: u32| carried_out(&here, run, pid);
            db.runs().begin(
                &self.runs.checkout,
                &job.command_line(),
                now,
                std::process::id(),
                &alive,
            )
        })?;
        here.insert(id);
        drop(here);
        let over = move || {
            lock(&RUNS_HERE).remove(&id);
        };
        let store: Arc<store::Store> = self.runs.store.clone();
        let changes = self.runs.reporter();
        let tests = TreePath::from_names([Resource::name(self), TESTS]);
        std::thread::Builder::new()
            .name(format!("test run {id}"))
            .spawn(move || {
                let outcome = job.run();
                let ended = Time::now();
                if let Err(e) = store.change_records(|db| db.runs().finish(id, ended, &outcome)) {
                    crate::log::line(&format!(
                        "test run {id}: cannot store its results: {}; the next run closes \
                         it as an error",
                        e.message
                    ));
                }
                over();
                // runs/, the test files' results, the dashboard's last run.
                if let Some(changes) = changes {
                    changes(vec![tests]);
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

    /// Where project file `module` (a `.py`) is under `source/`, without `.py`: under
    /// `tests/` for a test folder's module, else by the code root that holds it.
    pub(super) fn source_path_of(&self, module: &std::path::Path) -> Option<String> {
        if let Some(dir) = self
            .project
            .test_dirs()
            .iter()
            .find(|d| module.starts_with(d))
        {
            let rel = module.strip_prefix(dir).ok()?.with_extension("");
            return Some(match self.project.test_dirs().len() {
                1 => format!("{TESTS}/{}", rel.display()),
                _ => format!(
                    "{TESTS}/{}/{}",
                    dir.file_name()?.to_string_lossy(),
                    rel.display()
                ),
            });
        }
        let rel = self
            .project
            .code_roots
            .iter()
            .filter_map(|r| module.strip_prefix(r).ok())
            .min_by_key(|p| p.components().count())?;
        let rel = rel.with_extension("").display().to_string();
        Some(super::paths::spelled_at_top(&rel))
    }

    /// The symbol file of test `id` (`tests.test_calc.TestOps.test_div[2-0]` is
    /// `source/tests/test_calc/TestOps/test_div.py` with one test folder `tests/`).
    pub(super) fn test_symbol_file(&self, id: &str) -> Option<String> {
        let id = id.split('[').next()?;
        let parts: Vec<&str> = id.split('.').collect();
        let (module, inner) = (1..parts.len()).rev().find_map(|n| {
            let file = self
                .project
                .root
                .join(format!("{}.py", parts[..n].join("/")));
            file.is_file().then(|| (file, &parts[n..]))
        })?;
        let shown = self.source_path_of(&module)?;
        Some(
            self.links
                .to(&format!("source/{shown}/{}.py", inner.join("/"))),
        )
    }
}

/// Whether run `run`, stored as running in daemon `pid` of this host, is still being
/// carried out: by this process (`here` holds what it carries out), or by a homespace
/// daemon that is alive. A process of another program with the number of a daemon that
/// died (numbers are reused) carries out no run.
fn carried_out(here: &BTreeSet<i64>, run: i64, pid: u32) -> bool {
    if pid == std::process::id() {
        return here.contains(&run);
    }
    let Ok(number) = i32::try_from(pid) else {
        return false;
    };
    // SAFETY: signal 0 only checks that the process exists and may be signalled.
    let sent = unsafe { libc::kill(number, 0) };
    let alive = sent == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM);
    alive
        && match std::fs::read_to_string(format!("/proc/{pid}/comm")) {
            Ok(name) => name.trim_end().starts_with("homespace"),
            // No /proc to ask (or the process just ended): alive says it all.
            Err(_) => true,
        }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::*;

    use crate::model::links::Links;
    use crate::resources::source::Source;
    use crate::store::Store;
    use crate::tree::access::Admission;

    #[test]
    fn a_run_this_process_left_running_does_not_block_the_next() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::write(
            root.join("pyproject.toml"),
            "[project]\nrequires-python = \">=3.10\"\n",
        )
        .unwrap();
        std::fs::create_dir(root.join("tests")).unwrap();
        std::fs::write(root.join("tests/test_a.py"), "def test_a():\n    pass\n").unwrap();
        if crate::python::interpreter::find(&root, None).is_err() {
            eprintln!("no python3: no test can run here");
            return;
        }
        let store = Arc::new(Store::in_memory().unwrap());
        let source = Source::new(
            &root,
            "app".into(),
            Links::new("/mnt/hs"),
            store.clone(),
            500,
        );
        // Stored as running in this very process, which is not carrying it out: its
        // results could not be stored when it ended.
        let stuck = store
            .change_records(|db| {
                db.runs().start(
                    &source.runs.checkout,
                    "pytest",
                    Time::from_unix(0),
                    std::process::id(),
                )
            })
            .unwrap();
        let _owner = Admission::enter(true);
        let next = source.start_run(b"").unwrap();
        let status = |run| {
            store
                .records(|db| db.runs().get(&source.runs.checkout, Some(run)))
                .unwrap()
                .unwrap()
                .status
        };
        assert_eq!(status(stuck), "error");
        // While the new one is carried out here, it is in the way of another.
        let busy = source.start_run(b"").map(|_| ());
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
