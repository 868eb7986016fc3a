//! What the runner's paths show: the runs listed, a run's folder with its entry view, its
//! `result.md`, `output.txt` and failure files.

use crate::error::{Error, ErrorKind, Result};
use crate::model::{Child, Entry, Function, Kind, Node, Ownership, Section};
use crate::resources::source::disk::ownership;
use crate::resources::source::places::in_tree::tree_path;
use crate::resources::source::runner::Runner;
use crate::resources::source::runner::at::At;
use crate::resources::source::runner::failure::{RunNotes, first_line, summary};
use crate::resources::source::runner::run_files::{file_name, with_final_newline};
use crate::resources::source::runner::start::INTERPRETER_NOTE;
use crate::store::runs;

/// Runs listed by `ls runs/` (older ones are reachable by number).
const LISTED: usize = 100;

impl Runner {
    pub(crate) fn runner_stat(&self, at: &At) -> Result<Node> {
        // The owner's alone, as search results are: a run's output and tracebacks quote
        // whatever files the tests touched, whatever their modes.
        let owner = Ownership::OwnerOnly;
        match at {
            At::Run => Ok(Node {
                size: Some(0),
                ..Node::document(true).owned(ownership(None, &self.project.root))
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
            // All pytest printed, exact: a document, which no budget cuts.
            At::Output(_) => Ok(Node {
                size: Some(self.runner_read(at)?.len() as u64),
                ..Node::document(false).owned(owner)
            }),
            At::Failure(..) => Ok(Node {
                size: Some(self.runner_read(at)?.len() as u64),
                ..Node::view().owned(owner)
            }),
        }
    }

    pub(crate) fn runner_list(&self, at: &At) -> Result<Vec<Child>> {
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
                    Child::new("output.txt", Kind::Document, "everything pytest printed"),
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

    pub(crate) fn runner_read(&self, at: &At) -> Result<Vec<u8>> {
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

    pub(crate) fn runner_entry(&self, at: &At) -> Result<Entry> {
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
                            self.links
                                .folder(&tree_path(format!("tests/runs/{}", run.id))),
                            summary(run)
                        )
                    })
                    .collect();
                Ok(Entry {
                    title: format!("{} — {} test runs", tree_path("tests/runs"), items.len()),
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
                let dir = self
                    .links
                    .folder(&tree_path(format!("tests/runs/{}", run.id)));
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
                let about = self.run_notes(&run, true)?;
                Ok(Entry {
                    title: format!(
                        "{} — {}",
                        tree_path(format!("tests/runs/{}", run.id)),
                        about.summary(&run)
                    ),
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

    /// Run `which` with its `result.md`, led by a refused start newer than the run when it
    /// is the newest: made while it runs, or after it ended. One refused while it ran is
    /// not told once it has ended: most often it was refused because it ran, and what
    /// the reader wants then is its result.
    fn result_of(&self, which: Option<i64>) -> Result<(runs::Run, String)> {
        let (run, problems) = self.problems_of(which)?;
        let mut about = self.run_notes(&run, false)?;
        if which.is_none()
            && let Some(refused) = self.runs.refused_since(run.ended.unwrap_or(run.started))
        {
            about.lead_with(refused);
        }
        let text = self.result_view(&run, &problems, &about);
        Ok((run, text))
    }

    /// What a run's views say before its failures: the notes its output opens with (which
    /// tests `affected` chose, which interpreter and why: `every` note, or that one only
    /// where it matters), and why pytest could not run at all.
    fn run_notes(&self, run: &runs::Run, every: bool) -> Result<RunNotes> {
        let mut about = RunNotes::default();
        let output = self
            .runs
            .store
            .records(|db| db.runs().output(&self.runs.checkout, run.id))?
            .unwrap_or_default();
        about.count_from(crate::testrun::summary::closing(&output));
        let failed_to_run = run.status == "error";
        for note in output.lines().take_while(|l| l.starts_with("homespace: ")) {
            // Which interpreter ran is said where it matters: when pytest could not run,
            // or others were passed over; the run's _entry.md always has its command.
            let interpreter = note.strip_prefix(INTERPRETER_NOTE);
            if every || interpreter.is_none_or(|i| failed_to_run || i.contains("; passed over: ")) {
                about.push(note.to_string());
            }
        }
        if (run.status == "failed" || failed_to_run)
            && let Some(note) = self.pytest_runs_on_the_project()
        {
            about.push(note);
        }
        let no_pytest = output.lines().any(|l| l.contains("No module named pytest"));
        if failed_to_run && no_pytest {
            about.push(format!(
                "That interpreter has no pytest: install it there (`<interpreter> -m pip \
                 install pytest`), or name another in import_check.python of {} (it runs \
                 the tests as well as the import check)",
                self.links.to("source/meta/settings.toml")
            ));
        }
        if failed_to_run {
            let last = output
                .lines()
                .rev()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("");
            about.push(why_no_test_ran(&output, last, &self.project.root));
            if self.project.test_dirs().is_empty() && self.project.test_module_folders().is_empty()
            {
                about.push(format!(
                    "The project has no tests yet: a test module written in {} starts its \
                     `tests/` folder",
                    self.links.to("source/tests/")
                ));
            }
            if let Some(lacked) = self.lacked_at_start(last) {
                about.push(
                    self.lacking_lines(run, &lacked, "", "")
                        .trim_end()
                        .to_string(),
                );
            }
        }
        Ok(about)
    }
}

/// Modules pytest itself imports whenever it runs: a project that is one of them is run
/// by itself, its own copy first on the path.
const PYTEST_RUNS_ON: &[&str] = &["pluggy", "iniconfig", "pygments", "pytest", "_pytest"];

impl Runner {
    /// That pytest runs on the project's own code, when the project is a module pytest
    /// imports for itself (pluggy): a change that breaks it breaks pytest too, and the
    /// errors then come from pytest's code (`KeyError: <_pytest.stash.StashKey>`).
    fn pytest_runs_on_the_project(&self) -> Option<String> {
        let own = self.project.top_level(None).into_iter().find_map(|entry| {
            let name = entry
                .name
                .strip_suffix(".py")
                .unwrap_or(&entry.name)
                .to_string();
            PYTEST_RUNS_ON.contains(&name.as_str()).then_some(name)
        })?;
        Some(format!(
            "pytest itself runs on `{own}`, and imports this project's copy first: a change \
             that breaks `{own}` breaks pytest as well, and the errors it causes may come \
             from pytest's own code"
        ))
    }
}

/// Why a run in which pytest could not run the tests ran none, from its `output` (whose
/// last line that is not blank is `last`): what pytest counted when it was interrupted or
/// stopped, else the error it ended on and, for a conftest.py's, whose import it was.
fn why_no_test_ran(output: &str, last: &str, root: &std::path::Path) -> String {
    // `Interrupted: 1 error during collection`: the errors below say why.
    let interrupted = output.lines().rev().find_map(|l| {
        l.trim()
            .trim_matches(|c| c == '!' || c == '=')
            .trim()
            .strip_prefix("Interrupted: ")
    });
    // `==== 4 errors in 0.47s ====`: what pytest counted is below, one by one.
    let closing = last.trim().trim_matches('=').trim();
    let counted = crate::testrun::summary::is_summary(closing)
        .then(|| closing.split(" in ").next().unwrap_or(closing));
    let internal = output.lines().any(|l| l.starts_with("INTERNALERROR>"));
    // `==== no tests ran in 0.00s ====`: nothing to count, and nothing went wrong.
    if interrupted.is_none() && closing.starts_with("no tests ran") {
        return "pytest found no test to run".to_string();
    }
    match (interrupted, counted) {
        (Some(why), _) => format!("pytest ran no test: {why}; each error is below"),
        (None, Some(counts)) if internal => format!(
            "pytest ran no test: {counts}, and it stopped on an error of its own; each is below"
        ),
        (None, Some(counts)) if counts.contains("error") => {
            format!("pytest ran no test: {counts}; each error is below")
        }
        // `-k nomatch`: nothing went wrong, the selection matched no test.
        (None, Some(counts)) if counts.contains("deselected") => {
            format!("pytest ran no test: the selection matched none ({counts})")
        }
        // `==== 1 warning in 0.5s ====` and nothing else: it found no test.
        (None, Some(counts)) if counts.split(", ").all(|c| c.contains("warning")) => {
            format!("pytest found no test to run ({counts})")
        }
        (None, Some(counts)) => format!("pytest ran no test: {counts}"),
        (None, None) => {
            // `E   ModuleNotFoundError: …` after `ImportError while loading conftest
            // '/…/tests/conftest.py'.`: the error, and whose import it was.
            let error = last.trim().strip_prefix("E ").unwrap_or(last).trim();
            let conftest = output.lines().find_map(|l| {
                let path = l.strip_prefix("ImportError while loading conftest '")?;
                let path = std::path::Path::new(path.trim_end_matches("'."));
                Some(
                    path.strip_prefix(root)
                        .unwrap_or(path)
                        .display()
                        .to_string(),
                )
            });
            match conftest {
                Some(conftest) => {
                    format!("pytest could not run the tests: importing {conftest} failed: {error}")
                }
                None => format!("pytest could not run the tests: {error}"),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::why_no_test_ran;

    fn why(output: &str) -> String {
        let last = output
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        why_no_test_ran(output, last, std::path::Path::new("/p"))
    }

    #[test]
    fn a_run_of_no_test_says_whether_it_failed_or_matched_nothing() {
        assert_eq!(
            why(
                "\n============================ no tests ran in 0.00s =============================\n"
            ),
            "pytest found no test to run"
        );
        assert_eq!(
            why("===== 26854 deselected, 6 warnings in 3.10s =====\n"),
            "pytest ran no test: the selection matched none (26854 deselected, 6 warnings)"
        );
        assert_eq!(
            why("======= 1 warning in 0.52s =======\n"),
            "pytest found no test to run (1 warning)"
        );
        assert_eq!(
            why("=========== 4 errors in 0.47s ===========\n"),
            "pytest ran no test: 4 errors; each error is below"
        );
        assert_eq!(
            why("ERROR: file or directory not found: tests/test_nosuch.py\n"),
            "pytest could not run the tests: ERROR: file or directory not found: tests/test_nosuch.py"
        );
    }
}
