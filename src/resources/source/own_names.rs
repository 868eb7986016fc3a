//! The project's top-level modules and packages named as one of source/'s own folders
//! (`history`, `meta`, `deps`, `config`, `tests`), and what source/'s entry says of them.
//! source/ keeps those names for its folders — agents' instructions name
//! `source/history/undo` and `source/deps/` — and spells the project's with a dot in front
//! (`.history/`, `.deps/`; see [`spelled_at_top`]), so each name is listed once and nothing
//! of the project is out of reach.

use crate::resources::source::places::paths::{RESERVED, spelled_at_top};
use crate::resources::source::project::{DiskEntry, EntryKind};

/// The line of source/'s entry (at `here`, e.g. `/mnt/hs/source/`) that says where the
/// project's entries in `top` that share a name with source/'s folders are; `None` when
/// none does.
pub(super) fn note(here: &str, top: &[DiskEntry]) -> Option<String> {
    let mut places = Vec::new();
    for entry in top {
        let stem = entry.name.trim_end_matches(".py");
        if !RESERVED.contains(&stem) {
            continue;
        }
        let spelled = spelled_at_top(stem);
        match entry.kind {
            EntryKind::Module => {
                places.push(format!("`{}`'s symbols at `{here}{spelled}/`", entry.name))
            }
            EntryKind::Dir => places.push(format!("package `{stem}` at `{here}{spelled}/`")),
            EntryKind::Data => {}
        }
    }
    if places.is_empty() {
        return None;
    }
    Some(format!(
        "The project's own {} (the plain names are homespace's folders).",
        places.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str, kind: EntryKind) -> DiskEntry {
        DiskEntry {
            name: name.into(),
            kind,
            path: std::path::PathBuf::from("/p").join(name),
        }
    }

    #[test]
    fn the_note_names_where_each_colliding_entry_is_and_nothing_else() {
        let top = [
            entry("app", EntryKind::Dir),
            entry("deps", EntryKind::Dir),
            entry("history.py", EntryKind::Module),
        ];
        assert_eq!(
            note("/s/", &top).as_deref(),
            Some(
                "The project's own package `deps` at `/s/.deps/`, `history.py`'s symbols at \
                 `/s/.history/` (the plain names are homespace's folders)."
            )
        );
        assert_eq!(note("/s/", &top[..1]), None);
    }
}
