//! [`Problems`]: why a task file was not saved, one line per problem. Every check adds to
//! the same list before the write is refused, so one refusal names all that is wrong.

/// The problems found with one write of a task file, in the order they were found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Problems(Vec<String>);

impl Problems {
    /// A write refused for `problem` alone.
    pub fn one(problem: String) -> Self {
        Problems(vec![problem])
    }

    pub fn push(&mut self, problem: String) {
        self.0.push(problem);
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// `{shown} was not saved:` and one line per problem, as the writer reads it.
    pub fn refusal(&self, shown: &str) -> String {
        let mut message = format!("{shown} was not saved:");
        for problem in &self.0 {
            message.push_str("\n- ");
            message.push_str(problem);
        }
        message
    }
}

impl Extend<String> for Problems {
    fn extend<I: IntoIterator<Item = String>>(&mut self, problems: I) {
        self.0.extend(problems);
    }
}

impl From<Problems> for Vec<String> {
    fn from(problems: Problems) -> Self {
        problems.0
    }
}
