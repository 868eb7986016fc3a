//! Walk (b): find and read a function known by its name only, not its module.
//! Bare: `grep -rn "def name(" src | head`, then `sed -n a,bp` of the hit. Mount:
//! `search/def:name`, which answers one definition with its code, and several with their
//! symbol files (then `cat` of the one named).

use super::script::{Record, Step, def_range, path_in};
use super::{Place, Walk};

pub struct Read {
    pub function: &'static str,
    /// Where the bare agent greps.
    pub grep_in: &'static str,
    /// A line of the function's body: the walk reached its end when it was printed.
    pub body_line: &'static str,
}

impl Walk for Read {
    fn name(&self) -> String {
        format!("(b) find and read {}", self.function)
    }

    /// Issue 46's goal: reading a function found by name costs no more than grep and sed.
    fn goal(&self) -> f64 {
        1.0
    }

    fn bare(&self, at: &Place) -> Result<Vec<Step>, String> {
        let project = at.project.clone();
        let function = self.function;
        Ok(vec![
            Step::run(format!(
                "grep -rn \"def {function}(\" {} | head",
                self.grep_in
            )),
            Step::then(move |done| {
                let file = done[0]
                    .output
                    .lines()
                    .find_map(|l| l.split_once(':').map(|(f, _)| f.to_string()))
                    .ok_or("grep found nothing")?;
                let (first, last) = def_range(&project.join(&file), function)?;
                Ok(format!("sed -n {first},{last}p {file}"))
            }),
        ])
    }

    fn mount(&self, at: &Place) -> Result<Vec<Step>, String> {
        let source = at.mountpoint()?.join("source");
        let file = format!("/{}.py", self.function);
        let body_line = self.body_line;
        Ok(vec![
            Step::run(format!("cat \"$M/search/def:{}\"", self.function)),
            // One definition comes with its code: then it was read.
            Step::maybe(move |done| {
                if done[0].output.contains(body_line) {
                    return Ok(None);
                }
                path_in(&done[0].output, &source, &file)
                    .map(|path| Some(format!("cat {path}")))
                    .ok_or_else(|| format!("the search named no `{file}`"))
            }),
        ])
    }

    fn check(&self, _at: &Place, records: &[Record]) -> Result<(), String> {
        let last = records.last().ok_or("no command ran")?;
        // Inside a search view the code's lines come indented; what counts is that they came.
        let def = format!("def {}(", self.function);
        if last.output.contains(&def) && last.output.contains(self.body_line) {
            Ok(())
        } else {
            Err(format!(
                "the function was not printed: {}",
                last.output.trim()
            ))
        }
    }
}
