//! Walk (e): add a feature — a keyword with a docstring example and two tests — add a line
//! to the changelog, run the suite with the doctests, and review the change. The project
//! is a git repository whose last commit is the starting state (set up identically on
//! both sides, not counted). Both sides make the edits of walk (c) (`kwarg.rs`), then read
//! the head of the changelog and add the line with `sed -i`. Bare: `pytest -q
//! --doctest-modules <module> tests | tail -3`, `git diff --stat`. Mount: the same
//! selector written to `source/tests/run` and its result read, `source/changes/status.txt`
//! (`git status --short`: the review in a line per path).
//! Goal (issue 45): no more commands than the bare checkout, at most 0.8x its bytes.

use std::path::Path;
use std::process::Command;

use super::fix::last_run_passed;
use super::kwarg::Kwarg;
use super::script::{Record, Step, pytest_says};
use super::{Place, Walk};

pub struct Feature {
    /// The keyword added, its docstring example included, and the two tests.
    pub change: Kwarg,
    /// The changelog from the project's root (the same path under `source/`).
    pub changelog: &'static str,
    /// Made by the setup when the project has none (the example's), else `None`.
    pub changelog_made: Option<&'static str>,
    /// How many of its first lines an agent reads to see its form.
    pub changelog_head: usize,
    /// The `sed -i` expression adding the line (both sides type it).
    pub changelog_sed: &'static str,
    /// What the changelog must hold afterwards.
    pub changelog_fact: &'static str,
    /// The test folder the run names beside the module (the whole suite).
    pub tests: &'static str,
}

impl Walk for Feature {
    fn name(&self) -> String {
        format!(
            "(e) add a feature to {} with a doctest, a changelog line, review",
            self.change.function
        )
    }

    fn goal(&self) -> f64 {
        0.8
    }

    fn setup(&self, project: &Path) -> Result<(), String> {
        if let Some(text) = self.changelog_made {
            std::fs::write(project.join(self.changelog), text)
                .map_err(|e| format!("{}: {e}", self.changelog))?;
        }
        git(
            project,
            "git init -q && git add -A && git -c user.name=bench -c user.email=bench@example.com \
             commit -qm 'as released'",
        )
    }

    fn bare(&self, at: &Place) -> Result<Vec<Step>, String> {
        let mut steps = self.change.bare_edits(at)?;
        let (changelog, sed) = (self.changelog, self.changelog_sed);
        steps.extend([
            Step::run(format!("head -{} {changelog}", self.changelog_head)),
            Step::run(format!("sed -i '{sed}' {changelog}")),
            Step::run(format!(
                "{} -q --doctest-modules {} {} 2>&1 | tail -3",
                self.change.pytest, self.change.file, self.tests
            )),
            Step::run("git diff --stat"),
        ]);
        Ok(steps)
    }

    fn mount(&self, _at: &Place) -> Result<Vec<Step>, String> {
        let mut steps = self.change.mount_edits();
        let (changelog, sed) = (self.changelog, self.changelog_sed);
        steps.extend([
            Step::run(format!(
                "head -{} $M/source/{changelog}",
                self.changelog_head
            )),
            Step::run(format!("sed -i '{sed}' $M/source/{changelog}")),
            Step::run(format!(
                "echo '{} {} --doctest-modules' > $M/source/tests/run; \
                 cat $M/source/tests/runs/latest/result.md",
                self.change.file, self.tests
            )),
            Step::run("cat $M/source/changes/status.txt"),
        ]);
        Ok(steps)
    }

    fn check(&self, at: &Place, records: &[Record]) -> Result<(), String> {
        let (review, run) = records.split_last().ok_or("no command ran")?;
        last_run_passed(run)?;
        self.change.check(at, run)?;
        let changelog = std::fs::read_to_string(at.project.join(self.changelog))
            .map_err(|e| format!("{}: {e}", self.changelog))?;
        if !changelog.contains(self.changelog_fact) {
            return Err(format!("{} lacks the new line", self.changelog));
        }
        // The review named every file the change touched.
        let name = |path: &str| path.rsplit('/').next().unwrap_or(path).to_string();
        for file in [self.change.file, self.change.test_module, self.changelog] {
            if !review.output.contains(&name(file)) {
                return Err(format!("the review does not name {file}"));
            }
        }
        doctest_passes(&at.project, self.change.pytest, self.change.file)
    }
}

/// Run `script` in `project` with bash; its failure says what it printed.
fn git(project: &Path, script: &str) -> Result<(), String> {
    let out = Command::new("bash")
        .arg("-c")
        .arg(script)
        .current_dir(project)
        .output()
        .map_err(|e| format!("git: {e}"))?;
    match out.status.success() {
        true => Ok(()),
        false => Err(format!(
            "{script}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )),
    }
}

/// The module's doctests run and pass (outside the walk, not counted): the docstring
/// example is there and right.
fn doctest_passes(project: &Path, pytest: &str, module: &str) -> Result<(), String> {
    let said = pytest_says(
        project,
        &format!("{pytest} -q -p no:cacheprovider --doctest-modules {module}"),
    )?;
    if said.contains("passed") && !said.contains("failed") && !said.contains("no tests") {
        Ok(())
    } else {
        Err(format!("the docstring example did not pass: {said}"))
    }
}
