//! Which past sessions changed a project file, as the code shows it: a line or two in a
//! module's and a class's `_entry.md` (the latest changes' days and session titles, linked
//! to the one session, or to the full list under `memory/files/` when there are more), and
//! a few words after a search hit. Asked of the store's table of changed files, not of memory's views:
//! paths there are relative to each session's folder, so a project path finds them.

use crate::model::Links;
use crate::model::count::plural;
use crate::model::time::Time;
use crate::store::Store;
use crate::store::memory::SessionRow;

/// Sessions named in an entry, by day and title; the rest are counted and linked. Two: a
/// module's entry is most often at its budget already, and each title costs its symbols'
/// signatures.
const NAMED: usize = 2;
/// A title is cut to this many characters, so the line stays one line.
const TITLE: usize = 40;

/// `**Changed in 3 past sessions**: 2026-11-20 "Round half to even", 2026-11-02 "Fix
/// negative amounts" and 1 more: <link>` for the project file `file`
/// (`src/ledger/accounts.py`), newest change first, linking the one session or the list of
/// them all under `memory/files/` (one link: a session's path is long, and a module's entry
/// is most often at its budget already); `None` when no session changed it or memory
/// cannot say.
pub(super) fn entry_line(store: &Store, links: &Links, file: &str) -> Option<String> {
    let (rows, total) = store.memory(|m| m.sessions_changing(file, NAMED)).ok()?;
    let (row, _) = rows.first()?;
    let link = match total {
        1 => links.dir(&["memory", "sessions", &row.day, row.record.id.as_str()]),
        _ => links.dir(&["memory", "files", file]),
    };
    let named: Vec<String> = rows
        .iter()
        .map(|(row, changed)| format!("{} \"{}\"", day(row, *changed), title(row)))
        .collect();
    let more = match total.saturating_sub(rows.len()) {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    Some(format!(
        "**Changed in {total} past session{}**: {}{more}: `{link}`",
        plural(total),
        named.join(", ")
    ))
}

/// `changed in 2 past sessions, latest 2026-11-20` for the project file `file`; `None`
/// when no session changed it or memory cannot say.
pub(super) fn hit_note(store: &Store, file: &str) -> Option<String> {
    let (rows, total) = store.memory(|m| m.sessions_changing(file, 1)).ok()?;
    let (row, changed) = rows.first()?;
    Some(format!(
        "changed in {total} past session{}, latest {}",
        plural(total),
        day(row, *changed)
    ))
}

/// The day of the change, else of the session.
fn day(row: &SessionRow, changed: Option<Time>) -> String {
    changed.map_or_else(
        || row.day.clone(),
        |t| t.to_string().chars().take(10).collect(),
    )
}

fn title(row: &SessionRow) -> String {
    let title = row.record.title.trim();
    if title.is_empty() {
        return "(untitled)".into();
    }
    // A transcript's text: inert, as memory shows it.
    crate::render::inert::line(title, TITLE + 1)
}
