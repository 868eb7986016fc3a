//! The root `_entry.md`: a live dashboard of the project — its name and path, each
//! resourcespace's state in one line, the outstanding work, recent errors, and how to
//! work here (including the warning that `echo >` hides rejected writes).

use crate::model::names::{ERRORS, NAV};
use crate::model::{Entry, Failure, Function, Links, Section};
use crate::render::time::rfc3339_of;

/// What the dashboard shows, gathered by the tree from its resourcespaces.
#[derive(Debug, Clone, Default)]
pub struct Dashboard {
    /// The project's name and its directory.
    pub project: String,
    pub project_path: String,
    /// The store, when not the project's default (see `ProjectInfo::store`).
    pub store: Option<String>,
    /// Each resourcespace's name with its one-line state.
    pub spaces: Vec<(String, String)>,
    /// The rows resourcespaces put in the root's functions table, in order.
    pub functions: Vec<Function>,
    /// The blocks they report (outstanding work, recent sessions), in order.
    pub blocks: Vec<Section>,
    /// Recent failures, newest first.
    pub failures: Vec<Failure>,
    pub budget: usize,
    /// Mounted with `--read-only`: nothing here can be changed.
    pub read_only: bool,
}

/// Build the root entry of `dashboard`, linked under `links`.
pub fn entry(dashboard: &Dashboard, links: &Links) -> Entry {
    let mut entry = Entry {
        title: format!("homespace — {}", dashboard.project),
        about: vec![format!(
            "Project at `{}`, mounted at `{}`.",
            dashboard.project_path,
            links.mountpoint()
        )],
        ..Entry::default()
    };
    entry.functions = dashboard.functions.clone();
    entry.functions.extend([
        Function::new(
            format!("cat {}", links.to(NAV)),
            "see the whole tree",
            "an indented map",
        ),
        Function::new(
            format!("cat {}", links.to(ERRORS)),
            "check why a write failed",
            "recent errors, newest first",
        ),
    ]);
    let spaces = dashboard
        .spaces
        .iter()
        .map(|(name, summary)| format!("`{}` — {summary}", links.dir(&[name.as_str()])))
        .collect();
    entry.sections.push(Section {
        heading: "Resourcespaces".into(),
        items: spaces,
        ..Section::default()
    });
    entry.sections.extend(dashboard.blocks.iter().cloned());
    entry.sections.push(Section {
        heading: "Recent errors".into(),
        items: dashboard
            .failures
            .iter()
            .take(3)
            .map(|f| {
                let first = f.message.lines().next().unwrap_or_default();
                format!("{} {} `{}`: {first}", rfc3339_of(f.at), f.op, f.path)
            })
            .collect(),
        empty: "None since the mount started.".into(),
        ..Section::default()
    });
    let writing = if dashboard.read_only {
        vec![
            "This mount is read-only (`--read-only`): every change is refused with \"Read-only file system\", whatever the views below offer.".into(),
            format!(
                "To make changes, mount the project again without it: `homespace mount --project {} MOUNTPOINT`.",
                dashboard.project_path
            ),
        ]
    } else {
        vec![
            "Writes are checked when the file is closed; a rejected write changes nothing.".into(),
            format!(
                "`echo > file` does not report a rejection: check `{}` afterwards, or write with `cp` or `tee`, which do.",
                links.to(ERRORS)
            ),
        ]
    };
    entry.sections.push(Section {
        heading: "Writing".into(),
        items: writing,
        ..Section::default()
    });
    entry.advanced = vec![
        format!(
            "`homespace render --project {}{} PATH` prints any file of this tree without mounting.",
            dashboard.project_path,
            dashboard
                .store
                .as_ref()
                .map(|store| format!(" --store {store}"))
                .unwrap_or_default()
        ),
        format!(
            "Views stay within {} tokens and say `[pruned: ...]` when they cut.",
            dashboard.budget
        ),
        format!(
            "`homespace unmount {}` (or `umount`) ends the mount.",
            links.mountpoint()
        ),
    ];
    entry
}
