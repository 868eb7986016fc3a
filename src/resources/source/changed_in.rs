//! Which past sessions changed a project file, as the code shows it: a line or two in a
//! module's and a class's `_entry.md` (newest change first, with day and title, linked to
//! each session; `+N more` links to the full list under `memory/files/`), and a few words
//! after a search hit. Asked of the store's table of changed files, not of memory's views:
//! paths there are relative to each session's folder, so a project path finds them.

use crate::model::Links;
use crate::model::time::Time;
use crate::store::Store;
use crate::store::memory::SessionRow;

/// Sessions named in an entry; the rest are counted and linked. One: a module's entry is
/// most often at its budget already, and each session named costs its symbols' signatures.
const NAMED: usize = 1;
/// A title is cut to this many characters, so the line stays one line.
const TITLE: usize = 40;

/// `**Changed in 3 past sessions**, latest: …; +2 more: …` for the project file `file`
/// (`src/ledger/accounts.py`); `None` when no session changed it or memory cannot say.
pub(super) fn entry_line(store: &Store, links: &Links, file: &str) -> Option<String> {
    let (rows, total) = store.memory(|m| m.sessions_changing(file, NAMED)).ok()?;
    if total == 0 {
        return None;
    }
    let named: Vec<String> = rows
        .iter()
        .map(|(row, changed)| {
            format!(
                "{} `{}` {}",
                day(row, *changed),
                links.dir(&["memory", "sessions", &row.day, &row.record.id]),
                title(row)
            )
        })
        .collect();
    let more = match total.saturating_sub(rows.len()) {
        0 => String::new(),
        n => format!("; +{n} more: `{}`", links.dir(&["memory", "files", file])),
    };
    Some(format!(
        "**Changed in {total} past session{}**, latest: {}{more}",
        plural(total),
        named.join("; ")
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
    match title.char_indices().nth(TITLE) {
        Some((at, _)) => format!("{}…", &title[..at]),
        None => title.to_string(),
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}
