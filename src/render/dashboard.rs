//! The root `_entry.md`: the first thing an agent reads, so it opens with what it acts on —
//! the test state, the top open tasks, the latest session, recent errors — then the few
//! verbs of the common loop as command lines, the last naming each place in a few words. One line per
//! item, links instead of explanations: it stays well under the budget (about 300 tokens)
//! whatever the project. What an agent never needs first (rendering without a mount,
//! unmounting, the budget rule) is in the README and the places it concerns.

use crate::model::names::{ENTRY, ERRORS, NAV};
use crate::model::time::rfc3339_of;
use crate::model::{Entry, Failure, Links, RootPart, Section};

/// What the dashboard shows, gathered by the tree from its resourcespaces.
#[derive(Debug, Clone, Default)]
pub struct Dashboard {
    /// The project's name and its directory.
    pub project: String,
    pub project_path: String,
    /// The store, when not the project's default (see `ProjectInfo::store`).
    pub store: Option<String>,
    /// Each resourcespace's share, in order.
    pub parts: Vec<RootPart>,
    /// Recent failures, newest first.
    pub failures: Vec<Failure>,
    /// Mounted with `--read-only`: nothing here can be changed.
    pub read_only: bool,
}

/// The dashboard's budget in tokens, below every other view's: it is read first, by every
/// agent, before any work.
pub const TOKENS: usize = 300;

/// Recent errors named on the dashboard (all are in `_errors.md`).
const ERRORS_SHOWN: usize = 2;
/// Characters of an error's first line shown on the dashboard.
const ERROR_CHARS: usize = 120;

/// Build the root entry of `dashboard`, linked under `links`.
pub fn entry(dashboard: &Dashboard, links: &Links) -> Entry {
    let mut about: Vec<String> = dashboard
        .parts
        .iter()
        .flat_map(|part| part.state.iter().cloned())
        .collect();
    if !dashboard.failures.is_empty() {
        about.push(errors_line(&dashboard.failures, links));
    }
    if let Some(store) = &dashboard.store {
        about.push(format!("Store: `{store}` (not the project's own)."));
    }
    if dashboard.read_only {
        about.push(
            "Read-only mount (`--read-only`): every change is refused; mount again without it to change things."
                .into(),
        );
    }
    let mut verbs: Vec<String> = dashboard
        .parts
        .iter()
        .flat_map(|part| &part.verbs)
        .filter(|verb| !(dashboard.read_only && verb.changes))
        .map(|verb| format!("{}: `{}`", verb.does, verb.command))
        .collect();
    let places: Vec<&str> = dashboard
        .parts
        .iter()
        .map(|p| p.place.as_str())
        .filter(|p| !p.is_empty())
        .collect();
    verbs.push(format!(
        "find your way in {}: `{ENTRY}` in every folder, the whole tree in `{}`",
        places.join(", "),
        links.to(NAV)
    ));
    Entry {
        title: format!(
            "homespace — {} ({}) at {}",
            dashboard.project,
            dashboard.project_path,
            links.mountpoint()
        ),
        about,
        sections: vec![Section {
            heading: "Do".into(),
            items: verbs,
            ..Section::default()
        }],
        ..Entry::default()
    }
}

/// How many writes were refused lately, the newest with why, and where the rest are.
fn errors_line(failures: &[Failure], links: &Links) -> String {
    let mut line = format!(
        "Errors: {} recent — `cat {}`",
        failures.len(),
        links.to(ERRORS)
    );
    for f in failures.iter().take(ERRORS_SHOWN) {
        let first = f.message.lines().next().unwrap_or_default();
        let cut: String = first.chars().take(ERROR_CHARS).collect();
        let more = if cut.len() < first.len() { "…" } else { "" };
        line.push_str(&format!("\n- {} {}: {cut}{more}", rfc3339_of(f.at), f.op));
    }
    line
}
