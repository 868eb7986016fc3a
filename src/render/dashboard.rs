//! The root `_entry.md`: a live dashboard of the project — its name and path, each
//! resourcespace's state in one line, the outstanding work, recent errors, and how to
//! work here (including the warning that `echo >` hides rejected writes).

use crate::error::Result;
use crate::render::entry::{Entry, Function, Section};
use crate::render::time::rfc3339_of;
use crate::tree::Space;

/// Build the root entry from live state.
pub fn entry(space: &Space) -> Result<Entry> {
    let links = space.links();
    let mut entry = Entry {
        title: format!("homespace — {}", space.project.name),
        about: vec![format!(
            "Project at `{}`, mounted at `{}`.",
            space.project.path,
            links.mountpoint()
        )],
        ..Entry::default()
    };
    entry.functions = vec![
        Function::new(
            format!("cat {}", links.to("source/_entry.md")),
            "read the project's map",
            "packages and modules with counts",
        ),
        Function::new(
            format!("cat {}", links.to("tasks/_entry.md")),
            "see outstanding work",
            "tasks by priority",
        ),
        Function::new(
            format!("cat \"{}\"", links.to("search/<query>")),
            "search everything",
            "ranked hits with paths",
        ),
        Function::new(
            format!("cat {}", links.to("_nav.txt")),
            "see the whole tree",
            "an indented map",
        ),
        Function::new(
            format!("cat {}", links.to("_errors.md")),
            "check why a write failed",
            "recent errors, newest first",
        ),
    ];
    let mut spaces = Vec::new();
    let mut outstanding = Vec::new();
    for resource in &space.resources {
        let summary = resource
            .summary()
            .unwrap_or_else(|e| format!("unavailable: {}", e.message));
        spaces.push(format!("`{}` — {summary}", links.dir(&[resource.name()])));
        outstanding.extend(resource.dashboard().unwrap_or_default());
    }
    entry.sections.push(Section {
        heading: "Resourcespaces".into(),
        items: spaces,
        ..Section::default()
    });
    if !outstanding.is_empty() {
        entry.sections.push(Section {
            heading: "Now".into(),
            items: outstanding,
            ..Section::default()
        });
    }
    let failures = space.errors.newest_first();
    entry.sections.push(Section {
        heading: "Recent errors".into(),
        items: failures
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
    entry.sections.push(Section {
        heading: "Writing".into(),
        items: vec![
            "Writes are checked when the file is closed; a rejected write changes nothing.".into(),
            format!(
                "`echo > file` does not report a rejection: check `{}` afterwards, or write with `cp` or `tee`, which do.",
                links.to("_errors.md")
            ),
        ],
        ..Section::default()
    });
    entry.advanced = vec![
        format!(
            "`homespace render --project {} PATH` prints any file of this tree without mounting.",
            space.project.path
        ),
        format!(
            "Views stay within {} tokens and say `[pruned: ...]` when they cut.",
            space.budget
        ),
        format!(
            "`homespace unmount {}` (or `umount`) ends the mount.",
            links.mountpoint()
        ),
    ];
    Ok(entry)
}
