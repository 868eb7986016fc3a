//! Walk (f): find who calls or names a function, to judge what a change to it touches.
//! Bare: `grep -rn name` over the code and the tests, every line that spells it
//! (definitions and strings too: the agent sorts them out). Mount: `search/refs:name`,
//! the lines that name the function as Python binds them, each with the definition it is
//! in. Both sides must print each caller's line.

use super::script::{Record, Step};
use super::{Place, Walk};

pub struct Refs {
    pub function: &'static str,
    /// Where the bare agent greps: the code's and the tests' folders.
    pub grep_in: &'static str,
    /// A piece of each line that calls or imports the function: the walk reached its end
    /// when every one was printed.
    pub callers: &'static [&'static str],
}

impl Walk for Refs {
    fn name(&self) -> String {
        format!("(f) who calls {}", self.function)
    }

    /// Knowing the callers costs no more than grep does.
    fn goal(&self) -> f64 {
        1.0
    }

    fn bare(&self, _at: &Place) -> Result<Vec<Step>, String> {
        Ok(vec![Step::run(format!(
            "grep -rn \"{}\" {}",
            self.function, self.grep_in
        ))])
    }

    fn mount(&self, _at: &Place) -> Result<Vec<Step>, String> {
        Ok(vec![Step::run(format!(
            "cat \"$M/search/refs:{}\"",
            self.function
        ))])
    }

    fn check(&self, _at: &Place, records: &[Record]) -> Result<(), String> {
        let printed: String = records.iter().map(|r| r.output.as_str()).collect();
        match self.callers.iter().find(|c| !printed.contains(**c)) {
            None => Ok(()),
            Some(missing) => Err(format!("no line printed holds {missing:?}")),
        }
    }
}
