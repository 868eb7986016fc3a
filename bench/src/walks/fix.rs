//! Walk (a): a test fails after a one-line bug in a library function (the failing test in
//! another module); find the function, fix it, see the whole suite green.
//! Bare: `pytest -q -x | tail -30`, `grep -rn "def name("`, `sed -n a,bp` of what grep
//! found, then `sed -i` and the suite again. Mount: run and wait, read the suspect the
//! result names (or, when it names none, the symbol the failing test's name points to,
//! by dotted path), `sed -i` on that symbol file, run and wait again.

use std::path::Path;
use std::process::Command;

use super::script::{Record, Step, def_range, path_in};
use super::{Place, Walk};

/// Run the tests and wait for the result: the mount's one-liner, as its views give it.
pub const RUN_AND_WAIT: &str =
    "echo > $M/source/tests/run; cat $M/source/tests/runs/latest/result.md";

pub struct Fix {
    /// The module holding the function, from the project's root.
    pub file: &'static str,
    pub function: &'static str,
    /// Where the bare agent greps for it.
    pub grep_in: &'static str,
    /// The line as it should be, and as the bug leaves it (each once in `file`).
    pub correct: &'static str,
    pub broken: &'static str,
    /// The `sed -i` expression that turns the broken line back (both sides type it).
    pub sed: &'static str,
    /// How the bare agent runs pytest here.
    pub pytest: &'static str,
    /// The symbol file (under `source/`, dotted) the failing test's name points to, for an
    /// agent whose run result names no suspect.
    pub guess: &'static str,
}

impl Walk for Fix {
    fn name(&self) -> String {
        format!("(a) fix a failing test ({})", self.function)
    }

    fn setup(&self, project: &Path) -> Result<(), String> {
        replace_once(&project.join(self.file), self.correct, self.broken)
    }

    fn bare(&self, at: &Place) -> Result<Vec<Step>, String> {
        let project = at.project.clone();
        let function = self.function;
        let (sed, pytest) = (self.sed, self.pytest);
        Ok(vec![
            Step::run(format!("{pytest} -q -x 2>&1 | tail -30")),
            Step::run(format!("grep -rn \"def {function}(\" {}", self.grep_in)),
            Step::then(move |done| {
                let file = grepped_file(&done[1].output)?;
                let (first, last) = def_range(&project.join(&file), function)?;
                Ok(format!("sed -n {first},{last}p {file}"))
            }),
            Step::then(move |done| {
                let file = grepped_file(&done[1].output)?;
                Ok(format!(
                    "sed -i '{sed}' {file} && {pytest} -q 2>&1 | tail -3"
                ))
            }),
        ])
    }

    fn mount(&self, at: &Place) -> Result<Vec<Step>, String> {
        let m = at.mountpoint()?.to_path_buf();
        let guess = m.join("source").join(self.guess);
        let sed = self.sed;
        let suspect = move |done: &[Record]| -> String {
            done[0]
                .output
                .split_once("suspect: ")
                .and_then(|(_, rest)| path_in(rest, &m.join("source"), ".py"))
                .unwrap_or_else(|| guess.to_string_lossy().into_owned())
        };
        let suspect_again = suspect.clone();
        Ok(vec![
            Step::run(RUN_AND_WAIT),
            // The result shows a short suspect's code: then there is nothing to open.
            Step::maybe(move |done| {
                Ok((!done[0].output.contains(", as it is now:"))
                    .then(|| format!("cat {}", suspect(done))))
            }),
            Step::then(move |done| {
                Ok(format!(
                    "sed -i '{sed}' {} && {RUN_AND_WAIT}",
                    suspect_again(done)
                ))
            }),
        ])
    }

    fn check(&self, at: &Place, records: &[Record]) -> Result<(), String> {
        last_run_passed(records)?;
        let text = std::fs::read_to_string(at.project.join(self.file))
            .map_err(|e| format!("{}: {e}", self.file))?;
        if !text.contains(self.correct) {
            return Err(format!("{} does not hold the fix", self.file));
        }
        suite_passes(&at.project, self.pytest)
    }
}

/// The file of the last `path:line:` hit `grep -rn` printed (an overloaded function's
/// implementation is its last `def`).
fn grepped_file(output: &str) -> Result<String, String> {
    output
        .lines()
        .filter_map(|l| l.split_once(':').map(|(file, _)| file.to_string()))
        .next_back()
        .ok_or_else(|| format!("grep found nothing: {output:?}"))
}

/// Replace the one occurrence of `from` in `file` by `to`.
pub fn replace_once(file: &Path, from: &str, to: &str) -> Result<(), String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
    if text.matches(from).count() != 1 {
        return Err(format!(
            "{:?} is not in {} exactly once",
            from,
            file.display()
        ));
    }
    std::fs::write(file, text.replacen(from, to, 1)).map_err(|e| format!("{}: {e}", file.display()))
}

/// The walk's last command ran the tests, and they passed (pytest's summary line, or the
/// mount's result heading), as the agent saw it.
pub fn last_run_passed(records: &[Record]) -> Result<(), String> {
    let last = records.last().ok_or("no command ran")?;
    let said = last.output.to_lowercase();
    if said.contains("passed") && !said.contains("failed") && !said.contains("error") {
        Ok(())
    } else {
        let summary = last.output.lines().rfind(|l| !l.trim().is_empty());
        Err(format!(
            "the last run did not pass: {}",
            summary.unwrap_or("(nothing printed)").trim()
        ))
    }
}

/// The project's whole suite passes, run outside the walk (not counted): the end state
/// is checked on disk, not only as the walk's last command printed it.
pub fn suite_passes(project: &Path, pytest: &str) -> Result<(), String> {
    let out = Command::new("bash")
        .arg("-c")
        .arg(format!(
            "{pytest} -q -p no:cacheprovider 2>&1 | tail -5; exit ${{PIPESTATUS[0]}}"
        ))
        .current_dir(project)
        .output()
        .map_err(|e| format!("pytest: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "the suite does not pass on disk afterwards: {}",
            String::from_utf8_lossy(&out.stdout).trim()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn printed(output: &str) -> Vec<Record> {
        vec![Record {
            shown: "run".to_string(),
            output: output.to_string(),
            bytes: output.len(),
            success: true,
        }]
    }

    #[test]
    fn a_run_passes_only_when_it_says_passed_and_nothing_failed() {
        assert!(last_run_passed(&printed("13 passed in 0.03s\n")).is_ok());
        assert!(last_run_passed(&printed("run 2 — passed: 215 passed (0.8 s)\n")).is_ok());
        assert!(last_run_passed(&printed("2 failed, 11 passed in 0.09s\n")).is_err());
        assert!(last_run_passed(&printed("1 passed, 1 error in 0.1s\n")).is_err());
        assert!(last_run_passed(&printed("run 3 — running\n")).is_err());
        assert!(last_run_passed(&[]).is_err());
    }

    #[test]
    fn the_bug_is_put_in_once_or_not_at_all() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("m.py");
        std::fs::write(&file, "if a is not None:\n    pass\n").unwrap();
        replace_once(&file, "is not None", "is None").unwrap();
        assert_eq!(
            std::fs::read_to_string(&file).unwrap(),
            "if a is None:\n    pass\n"
        );
        assert!(replace_once(&file, "is not None", "is None").is_err());
    }
}
