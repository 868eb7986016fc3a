//! The test runner's names in `source/tests/`: `run` (write a pytest selector, or nothing,
//! to start a run in the background; the write returns at once) and `runs/`, with `<n>/`
//! and `latest/` per run: `result.md` (the outcome and each failure with its suspects; read
//! while the run goes on, it waits for the end), `_entry.md` (status, counts, duration,
//! command, failures), `output.txt` (all pytest printed, exact) and `failures/<test>.txt`
//! (see `failure.rs`; named as `run_files.rs` says).
//!
//! Runs are kept in the store ([`crate::store::runs`]) and made by [`crate::testrun`];
//! one runs at a time, on a thread of its own, so the mount never waits for one.

mod affected;
mod at;
mod distributions;
mod failure;
mod missing;
mod places;
mod ranked;
mod run_files;
mod selected;
mod start;
mod suspects;
mod test_runs;
mod views;

use std::sync::Arc;

use crate::error::{Error, Result};
use crate::model::links::Links;
use crate::model::{Child, Entry, Function, Kind, Node};
use crate::resources::source::modules::Modules;
use crate::resources::source::places::Places;
use crate::resources::source::places::in_tree::tree_path_of;
use crate::resources::source::places::paths::{RUNNER_NAMES, TESTS};
use crate::resources::source::project::Project;
use crate::resources::source::settings::file::SettingsFile;
use crate::store::runs;
use crate::testrun::junit::Problem;
use crate::tree::glance::Glance;
use crate::tree::resource::{Capabilities, Edit, Live};
use crate::tree::resource::{Changes, Mount, Resource};
use at::At;
use failure::summary;
pub(crate) use test_runs::TestRuns;

pub(crate) use failure::summary as run_summary;

/// Where the runner sits in `source/`: every project has one, wherever it keeps its tests.
const MOUNT: Mount = Mount::Among {
    at: &[TESTS],
    names: RUNNER_NAMES,
};

/// The test runner of one checkout: its names in `source/tests/`, the runs it keeps and
/// starts, and what their views say.
pub(crate) struct Runner {
    /// Where `source/` paths lead: the suspects' symbol files are read there.
    places: Arc<Places>,
    project: Arc<Project>,
    /// The project's parses, which suspects are looked up in.
    modules: Arc<Modules>,
    /// The settings that choose the interpreter, pytest's arguments and the timeout.
    settings: Arc<SettingsFile>,
    links: Links,
    budget: usize,
    runs: TestRuns,
    /// Which tests ran what, as of the newest run (its number and status): views ask on
    /// every read, and it changes only when a run ends.
    ran: std::sync::Mutex<Option<affected::RanAsOf>>,
}

impl Runner {
    pub(crate) fn new(
        places: Arc<Places>,
        project: Arc<Project>,
        modules: Arc<Modules>,
        settings: Arc<SettingsFile>,
        links: Links,
        budget: usize,
        runs: TestRuns,
    ) -> Self {
        Runner {
            places,
            project,
            modules,
            settings,
            links,
            budget,
            runs,
            ran: std::sync::Mutex::new(None),
        }
    }

    /// Report finished runs to `changes` from now on; `false` when they already were
    /// reported somewhere (the mount watches once).
    pub(crate) fn report_to(&self, changes: Changes) -> bool {
        self.runs.report_to(changes)
    }

    /// The newest run, if any ran (and the store answers).
    pub(crate) fn newest_run(&self) -> Option<runs::Run> {
        self.runs
            .store
            .records(|db| db.runs().get(&self.runs.checkout, None))
            .ok()
            .flatten()
    }

    /// The newest run in one line (`2: failed: 3 passed, 1 failed (2.1 s)`), if any ran.
    pub(crate) fn last_run(&self) -> Option<String> {
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

    /// The functions-table row that runs every test and prints the result when it ends.
    pub(crate) fn run_and_wait(&self) -> Function {
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

    /// How `source/tests/` runs its tests and where their results are, in one line, and
    /// how the newest run ended.
    pub(crate) fn how_tests_run(&self) -> String {
        let last = self
            .last_run()
            .map_or(String::new(), |run| format!(" Last: run {run}."));
        format!(
            "Run tests: `echo '<selector>' > {}` (nothing: every test; paths and ids as \
             pytest or this mount names them, -k, -m, -x, --lf); each run's results are in \
             {}, the newest in latest/.{last}",
            self.links.to("source/tests/run"),
            self.links.to("source/tests/runs/")
        )
    }
}

/// The path `path` (from `source/tests/`) names, or where to look instead.
fn place(path: &[&str]) -> Result<At> {
    at::at(path).ok_or_else(|| {
        Error::not_found(format!(
            "source/tests/{} is not the test runner's: runs are numbered (latest/ is the \
             newest) and hold result.md, output.txt and failures/",
            path.join("/")
        ))
    })
}

impl Resource for Runner {
    fn name(&self) -> &'static str {
        "runner"
    }

    fn mount(&self) -> Mount {
        MOUNT
    }

    fn summary(&self) -> Result<String> {
        Ok(self.last_run().map_or_else(
            || "no test has run yet".into(),
            |run| format!("last test run {run}"),
        ))
    }

    fn stat(&self, _glance: &Glance, path: &[&str]) -> Result<Node> {
        self.runner_stat(&place(path)?)
    }

    fn list(&self, _glance: &Glance, path: &[&str]) -> Result<Vec<Child>> {
        match path {
            [] => Ok(at::members()),
            _ => self.runner_list(&place(path)?),
        }
    }

    fn names(&self, glance: &Glance, path: &[&str]) -> Result<Vec<(String, Kind)>> {
        Ok(Child::names(self.list(glance, path)?))
    }

    fn read(&self, _glance: &Glance, path: &[&str]) -> Result<Vec<u8>> {
        self.runner_read(&place(path)?)
    }

    fn entry(&self, _glance: &Glance, path: &[&str]) -> Result<Entry> {
        self.runner_entry(&place(path)?)
    }

    fn capabilities(&self) -> Capabilities<'_> {
        Capabilities {
            edit: Some(self),
            live: Some(self),
            ..Capabilities::default()
        }
    }
}

impl Edit for Runner {
    fn write(&self, path: &[&str], content: &[u8], _base: Option<&[u8]>) -> Result<()> {
        match place(path)? {
            At::Run => self.start_run(content).map(|_| ()),
            _ => Err(Error::read_only(format!(
                "source/tests/{} is a result of the test runner: it changes only by runs",
                path.join("/")
            ))),
        }
    }

    fn rename(&self, from: &[&str], _to: &[&str]) -> Result<()> {
        Err(self.keeps_its_name(from))
    }

    fn moving_out(&self, path: &[&str]) -> Option<Error> {
        Some(self.keeps_its_name(path))
    }

    fn mkdir(&self, path: &[&str]) -> Result<()> {
        Err(Error::not_permitted(format!(
            "{} was not made: `run` and `runs` belong to the test runner of {}; they never \
             become project folders, and runs/ holds only the runs it made",
            self.links.folder(&tree_path_of([TESTS].iter().chain(path))),
            self.links.folder(&tree_path_of([TESTS]))
        )))
    }

    fn remove(&self, path: &[&str]) -> Result<()> {
        Err(Error::read_only(format!(
            "{} is the test runner's: runs are kept, and a new run makes the next one",
            self.links.file(&tree_path_of([TESTS].iter().chain(path)))
        )))
    }
}

impl Live for Runner {
    fn pending(&self, path: &[&str]) -> Option<crate::tree::pending::Pending> {
        self.runner_pending(&at::at(path)?)
    }
}

impl Runner {
    /// Why the runner's `path` cannot be moved.
    fn keeps_its_name(&self, path: &[&str]) -> Error {
        Error::not_permitted(format!(
            "{} is the test runner's and keeps its name; to run tests, write a selector \
             to {}",
            self.links.file(&tree_path_of([TESTS].iter().chain(path))),
            self.links.to("source/tests/run")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_runner_names_right_under_tests_are_the_runners() {
        let held = |path: &[&str]| MOUNT.holds("runner", path);
        assert!(held(&["tests", "run"]));
        assert!(held(&["tests", "runs"]));
        assert!(held(&["tests", "runs", "1", "result.md"]));
        assert!(!held(&["tests", "run.py"]));
        assert!(!held(&["tests", "unit", "run"]));
        assert!(!held(&["ledger", "run"]));
        assert!(!held(&["run"]));
        assert!(!held(&["tests"]));
    }

    #[test]
    fn what_the_runner_refuses_names_its_place_under_source() {
        use crate::resources::source::Source;
        let (_dir, root) = crate::resources::source::testing::project_with(&[]);
        let store = Arc::new(crate::store::Store::in_memory().unwrap());
        let source = Source::new(&root, "app".into(), Links::new("/mnt/hs"), store, 500);
        let made = source.runner.mkdir(&["runs", "x"]).unwrap_err();
        assert_eq!(
            made.kind,
            crate::error::ErrorKind::NotPermitted,
            "{}",
            made.message
        );
        assert!(
            made.message
                .starts_with("/mnt/hs/source/tests/runs/x/ was not made"),
            "{}",
            made.message
        );
        let removed = source
            .runner
            .remove(&["runs", "1", "result.md"])
            .unwrap_err();
        assert!(
            removed
                .message
                .starts_with("/mnt/hs/source/tests/runs/1/result.md is the test runner's"),
            "{}",
            removed.message
        );
    }
}
