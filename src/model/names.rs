//! Names the tree treats specially: the generated files of every directory, editors' temp
//! files (held in memory, never routed to a resource), and the probes shells and file
//! managers make all the time (never answered with "Did you mean").

/// The entry view of every directory.
pub const ENTRY: &str = "_entry.md";
/// The navigation view of every directory.
pub const NAV: &str = "_nav.txt";
/// The error log view at the root.
pub const ERRORS: &str = "_errors.md";

/// The longest name component the mount accepts (as most Linux filesystems).
pub const NAME_MAX: usize = 255;

/// Whether `name` is a temp file an editor or tool makes beside the file it saves:
/// sed's `sedAbC123`, vim's `.x.swp` / `4913` / `x~`, emacs' `#x#` and `.#x`, GNOME's
/// `.goutputstream-*`, rsync's `.x.Ab12Cd`, LibreOffice's `.~lock.x#`, macOS's `._x`,
/// Kate's `.x.kate-swp`, patch's `x.oAb12Cd`, `perl -i`'s `XXab12Cd`, Python tempfile's
/// `tmpab12_cd3`, JetBrains' `x___jb_tmp___`, and `*.tmp`. These live in memory until
/// renamed over a document or removed; any other name is meant as a document and its
/// resource decides whether it may be one. Another name starting with `.` (`.hidden`,
/// `.json`) is no temp: held in memory it would read as saved and never be (its resource
/// refuses it, since `ls` would hide it).
pub fn is_editor_temp(name: &str) -> bool {
    const SUFFIXES: &[&str] = &[
        "~",
        ".tmp",
        ".swp",
        ".swo",
        ".swx",
        ".kate-swp",
        ".bak",
        ".orig",
        "___jb_tmp___",
        "___jb_old___",
    ];
    const DOT_PREFIXES: &[&str] = &[".#", ".goutputstream-", ".~lock.", "._"];
    let alnum = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric());
    if SUFFIXES.iter().any(|s| name.ends_with(s))
        || DOT_PREFIXES.iter().any(|p| name.starts_with(p))
    {
        return true;
    }
    // rsync: "." + the file's name + "." + 6 random letters and digits.
    if let Some(rest) = name.strip_prefix('.')
        && let Some((stem, tail)) = rest.rsplit_once('.')
        && !stem.is_empty()
        && tail.len() == 6
        && alnum(tail)
        && tail
            .chars()
            .any(|c| c.is_ascii_digit() || c.is_ascii_uppercase())
    {
        return true;
    }
    if name == "4913" || (name.starts_with('#') && name.ends_with('#') && name.len() > 1) {
        return true;
    }
    let random = |prefix: &str, len: usize| {
        name.len() == prefix.len() + len
            && name.starts_with(prefix)
            && name[prefix.len()..]
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    // sed -i ("sed" + 6), perl -i ("XX" + 6), Python's tempfile ("tmp" + 8).
    if random("sed", 6) || random("XX", 6) || random("tmp", 8) {
        return true;
    }
    // patch: "<file>.o" + 6.
    name.rsplit_once(".o")
        .is_some_and(|(stem, tail)| !stem.is_empty() && tail.len() == 6 && alnum(tail))
}

/// Whether `name` is a trash folder a file manager makes at the top of a file system
/// (`.Trash`, `.Trash-1000`) to move deleted files into.
pub fn is_trash(name: &str) -> bool {
    name == ".Trash"
        || name
            .strip_prefix(".Trash-")
            .is_some_and(|uid| !uid.is_empty() && uid.bytes().all(|b| b.is_ascii_digit()))
}

/// Whether a failed lookup of `name` is a probe that tools make on their own (dotfiles,
/// editor temps, file managers' autorun and thumbnail files) rather than a user's typo.
pub fn is_probe(name: &str) -> bool {
    const PROBES: &[&str] = &[
        "autorun.inf",
        "Autorun.inf",
        "desktop.ini",
        "Desktop.ini",
        "Thumbs.db",
        "folder.jpg",
        "folder.png",
        "Folder.jpg",
        "BDMV",
        "AACS",
        "lost+found",
        "__pycache__",
    ];
    name.starts_with('.') || is_editor_temp(name) || PROBES.contains(&name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn editor_temps_are_recognised() {
        for name in [
            ".x.json.swp",
            "4913",
            "x.json~",
            "sedAb12Cd",
            "#x.py#",
            ".#x.py",
            "a.tmp",
            ".goutputstream-AB12CD",
            ".fix.json.Xy3kQ9",
            ".~lock.notes.txt#",
            "._fix.json",
            ".x.py.kate-swp",
        ] {
            assert!(is_editor_temp(name), "{name}");
        }
        for name in [
            "fix-login.json",
            "sed.py",
            "sedimentary",
            "send.py",
            "_entry.md",
            // Hidden names that are no tool's temp: refused by their resource, never
            // held in memory as if saved.
            ".hidden",
            ".json",
            "..json",
            "...json",
            ".env",
            ".gitignore",
        ] {
            assert!(!is_editor_temp(name), "{name}");
        }
    }

    #[test]
    fn probes_include_dotfiles_and_file_manager_files() {
        assert!(is_probe(".hidden"));
        assert!(is_probe("autorun.inf"));
        assert!(is_probe(".Trash-0"));
        assert!(!is_probe("sourc"));
    }

    #[test]
    fn trash_folders_are_recognised() {
        assert!(is_trash(".Trash") && is_trash(".Trash-0") && is_trash(".Trash-1000"));
        assert!(!is_trash(".Trash-") && !is_trash(".Trash-x") && !is_trash("Trash"));
    }
}
