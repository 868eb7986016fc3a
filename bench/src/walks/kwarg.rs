//! Walk (c): add a keyword argument with its docstring and tests; the whole suite green.
//! Both sides read the function, write the new definition and two tests, and run the
//! suite. Bare: `grep -n` + `sed -n`, `head` of the test module (its imports: a test's
//! imports belong at the top, so the agent sees which it has), a Python edit script
//! replacing the lines `sed -n` showed, `cat >>` onto the test module, `pytest -q | tail
//! -3`. Mount: `cat` of the dotted path, `tee` onto the symbol file, `tee` of a new file
//! with the imports the tests need and both tests into the test module's folder (the
//! mount puts the imports among the module's, once, and adds the tests in order), run and
//! wait.

use std::path::Path;

use super::fix::{RUN_AND_WAIT, last_run_passed, suite_passes};
use super::script::{Record, Step, def_range, pytest_says};
use super::{Place, Walk};

pub struct Kwarg {
    /// The module holding the function, from the project's root.
    pub file: &'static str,
    pub function: &'static str,
    /// Its symbol file under `source/`, dotted (to read) and as a path (to write).
    pub dotted: &'static str,
    pub symbol_path: &'static str,
    /// The new definition, dedented (as a symbol file holds it).
    pub new_def: &'static str,
    /// Strings the module must hold afterwards: the keyword and its docstring line.
    pub facts: &'static [&'static str],
    /// The test module from the project's root (the same path under `source/`).
    pub test_module: &'static str,
    /// How many of its first lines an agent reads for imports and fixtures.
    pub test_head: usize,
    /// The imports the new tests need, as the mount's new file opens with them.
    pub test_imports: &'static str,
    /// The two new tests and their names; on the mount the file holding both is named
    /// after the first, as the mount asks of a new file with several definitions.
    pub new_tests: &'static str,
    pub test_names: [&'static str; 2],
    pub pytest: &'static str,
}

impl Walk for Kwarg {
    fn name(&self) -> String {
        format!("(c) add a keyword to {}", self.function)
    }

    fn bare(&self, at: &Place) -> Result<Vec<Step>, String> {
        let mut steps = self.bare_edits(at)?;
        steps.push(Step::run(format!("{} -q 2>&1 | tail -3", self.pytest)));
        Ok(steps)
    }

    fn mount(&self, _at: &Place) -> Result<Vec<Step>, String> {
        let mut steps = self.mount_edits();
        steps.push(Step::run(RUN_AND_WAIT));
        Ok(steps)
    }

    fn check(&self, at: &Place, records: &[Record]) -> Result<(), String> {
        last_run_passed(records)?;
        let text = std::fs::read_to_string(at.project.join(self.file))
            .map_err(|e| format!("{}: {e}", self.file))?;
        if let Some(missing) = self.facts.iter().find(|f| !text.contains(**f)) {
            return Err(format!("{} does not hold {missing:?}", self.file));
        }
        suite_passes(&at.project, self.pytest)?;
        new_tests_ran(&at.project, self.pytest, self.test_module, &self.test_names)
    }
}

impl Kwarg {
    /// The bare side's reads and writes, the run not yet: what the function and the head
    /// of its test module show, the new definition over the lines `sed -n` showed, the
    /// tests appended.
    pub(super) fn bare_edits(&self, at: &Place) -> Result<Vec<Step>, String> {
        let target = at.project.join(self.file);
        let (first, last) = def_range(&target, self.function)?;
        let text = std::fs::read_to_string(&target).map_err(|e| format!("{}: {e}", self.file))?;
        let def_line = text.lines().nth(first - 1).unwrap_or_default();
        let indent = &def_line[..def_line.len() - def_line.trim_start().len()];
        let indented: String = self
            .new_def
            .lines()
            .map(|l| {
                if l.is_empty() {
                    "\n".to_string()
                } else {
                    format!("{indent}{l}\n")
                }
            })
            .collect();
        let (file, test_module) = (self.file, self.test_module);
        Ok(vec![
            Step::run(format!("grep -n \"def {}(\" {file}", self.function)),
            Step::run(format!("sed -n {first},{last}p {file}")),
            Step::run(format!("head -{} {test_module}", self.test_head)),
            Step::run(format!(
                "python3 - <<'EOF'\nimport pathlib\np = pathlib.Path(\"{file}\")\nlines = p.read_text().splitlines(keepends=True)\nlines[{}:{last}] = [r'''{indented}''']\np.write_text(\"\".join(lines))\nEOF",
                first - 1
            )),
            Step::run(format!(
                "cat >> {test_module} <<'EOF'\n\n\n{}EOF",
                self.new_tests
            )),
        ])
    }

    /// The mount side's reads and writes, the run not yet: the symbol by dotted path, the
    /// new definition onto the symbol file, the tests with their imports as a new file in
    /// the test module's folder.
    pub(super) fn mount_edits(&self) -> Vec<Step> {
        let tests_dir = self.test_module.trim_end_matches(".py");
        vec![
            Step::run(format!("cat $M/source/{}.py", self.dotted)),
            Step::run(format!(
                "tee $M/source/{} > /dev/null <<'EOF'\n{}EOF",
                self.symbol_path, self.new_def
            )),
            Step::run(format!(
                "tee $M/source/{tests_dir}/{}.py > /dev/null <<'EOF'\n{}\n\n{}EOF",
                self.test_names[0], self.test_imports, self.new_tests
            )),
        ]
    }
}

/// Both new tests are in the test module, and pass (run outside the walk, not counted).
fn new_tests_ran(
    project: &Path,
    pytest: &str,
    module: &str,
    names: &[&str; 2],
) -> Result<(), String> {
    let selector = format!("{} or {}", names[0], names[1]);
    let said = pytest_says(
        project,
        &format!("{pytest} -q -p no:cacheprovider {module} -k '{selector}'"),
    )?;
    if said.contains("2 passed") && !said.contains("failed") {
        Ok(())
    } else {
        Err(format!(
            "the two new tests did not both run and pass: {}",
            said
        ))
    }
}
