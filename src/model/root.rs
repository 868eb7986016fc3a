//! What each resourcespace puts on the root `_entry.md`, the first thing an agent reads:
//! the facts it acts on (the test state, the top open tasks, the latest session), the verbs
//! of the common loop it offers, and its place in a few words.

/// One resourcespace's share of the root dashboard.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RootPart {
    /// Lines an agent acts on, most pressing first: `Tests: run 3 failed: …`.
    pub state: Vec<String>,
    /// The verbs of the common loop it offers.
    pub verbs: Vec<Verb>,
    /// Its place with its size: `source/ (6 modules, 3 test modules)`.
    pub place: String,
}

/// One verb of the common loop: what it does, and the command line that does it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verb {
    pub does: String,
    pub command: String,
    /// It changes something, so a read-only mount leaves it out.
    pub changes: bool,
}

impl Verb {
    pub fn new(does: impl Into<String>, command: impl Into<String>) -> Verb {
        Verb {
            does: does.into(),
            command: command.into(),
            changes: false,
        }
    }

    /// The same verb, one that changes something.
    pub fn changing(self) -> Verb {
        Verb {
            changes: true,
            ..self
        }
    }
}
