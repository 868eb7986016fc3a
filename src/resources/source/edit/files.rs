//! The project's files that are not Python — README, CHANGELOG, setup.cfg, `.github/`
//! workflows, data — as `source/` edits them: exact bytes, but a TOML or JSON file that
//! parses is never left unparseable (pyproject.toml's tables are source/config/ and its
//! dependencies source/deps/), a new file is never one the project then hides, and `mv`
//! moves a file to any shown folder as one change (the history's undo brings it back).

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::resources::source::edit::Editor;
use crate::resources::source::edit::change::ProjectChange;
use crate::resources::source::places::in_tree::tree_path_of;
use crate::resources::source::places::paths::Resolved;

/// Why `content`, written over `old` (`None`: a new file) at `disk` (shown as `shown`), is
/// refused: a TOML or JSON file that parses (or a new one) must still parse, since tools
/// that read it would fail on it. One that did not parse before is the user's to mend.
pub(super) fn check_data_file(
    shown: &str,
    disk: &Path,
    old: Option<&[u8]>,
    content: &[u8],
) -> Result<()> {
    let Some(format) = Format::of(disk) else {
        return Ok(());
    };
    if old.is_some_and(|old| format.problem(old).is_some()) {
        return Ok(());
    }
    match format.problem(content) {
        None => Ok(()),
        Some(problem) => Err(Error::invalid(format!(
            "{shown} was not saved: it would not be valid {} ({problem}); the file keeps what \
             it held",
            format.name()
        ))),
    }
}

/// A file format checked before a write.
#[derive(Clone, Copy)]
enum Format {
    Toml,
    Json,
}

impl Format {
    fn of(path: &Path) -> Option<Format> {
        match path.extension()?.to_str()? {
            "toml" => Some(Format::Toml),
            "json" => Some(Format::Json),
            _ => None,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Format::Toml => "TOML",
            Format::Json => "JSON",
        }
    }

    /// What is wrong with `bytes` in this format, with the line and column; `None` when
    /// they parse.
    fn problem(self, bytes: &[u8]) -> Option<String> {
        let Ok(text) = std::str::from_utf8(bytes) else {
            return Some("it is not UTF-8 text".into());
        };
        match self {
            Format::Toml => text
                .parse::<toml_edit::DocumentMut>()
                .err()
                .map(|e| crate::pyproject::config::located(&e, text)),
            Format::Json => serde_json::from_str::<serde_json::Value>(text)
                .err()
                .map(|e| e.to_string()),
        }
    }
}

impl Editor {
    /// `path` from the project's folder (`docs/index.md`), as the history names it.
    pub(super) fn rel(&self, path: &Path) -> String {
        path.strip_prefix(&self.project.root)
            .unwrap_or(path)
            .to_string_lossy()
            .into_owned()
    }

    /// Whether a new file `name` (not Python) may be made in `place` (`at_top`: the top of
    /// source/): not where the project would hide it at once.
    pub(super) fn file_name_shown(
        &self,
        place: &Resolved,
        at_top: bool,
        name: &str,
        shown: &str,
    ) -> Result<()> {
        let dir = match place {
            Resolved::Dir { disk, .. } => disk.clone(),
            _ if at_top => self.project.root.clone(),
            _ => return Ok(()),
        };
        if self.project.is_hidden(&dir.join(name), false) {
            return Err(Error::not_permitted(format!(
                "{shown} was not created: the project hides files of that name (its \
                 .gitignore, or caches and build output), so it would not show here"
            )));
        }
        Ok(())
    }

    /// `mv` of the file `from` (not Python) to the tree path `to`: one change that writes
    /// the new file and deletes the old, replacing a file already at `to` as `mv` does.
    pub(super) fn move_file(&self, from: &Path, to: &[&str], shown: &str) -> Result<()> {
        let to_shown = self.links.file(&tree_path_of(to));
        let Some((name, parent)) = to.split_last() else {
            return Err(Error::not_permitted("cannot move onto source/ itself"));
        };
        if name.ends_with(".py") {
            return Err(Error::not_permitted(format!(
                "{shown} was not moved: {to_shown} would be a module, which is checked as \
                 Python when written; write it there (`cp`), then `rm` {shown}"
            )));
        }
        let target: PathBuf = match self.places.resolve(None, parent)? {
            Resolved::Root => self.project.root.join(name),
            Resolved::Dir { disk, .. } => disk.join(name),
            _ => {
                return Err(Error::not_permitted(format!(
                    "{shown} was not moved: {to_shown} is not in a folder of the project"
                )));
            }
        };
        if target == from {
            return Ok(());
        }
        if target.is_dir() {
            return Err(Error::exists(format!(
                "{shown} was not moved: {to_shown} is a folder"
            )));
        }
        if self.project.is_hidden(&target, false) {
            return Err(Error::not_permitted(format!(
                "{shown} was not moved: the project hides files named as {to_shown} (its \
                 .gitignore, or caches and build output), so it would not show there"
            )));
        }
        let mut change = ProjectChange::begin(self, &[from, &target])?;
        let content = change.existing(from)?.to_vec();
        // Moved onto `pyproject.toml` or a JSON file, it is that file written. EPERM, not
        // EINVAL: `mv` prints EINVAL as "cannot move to a subdirectory of itself".
        check_data_file(&to_shown, &target, change.old(&target)?, &content)
            .map_err(|refused| Error::not_permitted(refused.message))?;
        let what = format!("move {} to {}", self.rel(from), self.rel(&target));
        change.write(&target, content, what.clone())?;
        change.delete(from, what)?;
        change.commit()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_toml_or_json_file_that_parses_must_still_parse() {
        let toml = Path::new("/p/pyproject.toml");
        let good = b"[project]\nname = \"x\"\n";
        let bad = b"[project\nname = \"x\"\n";
        let refused = check_data_file("pyproject.toml", toml, Some(good), bad).unwrap_err();
        assert!(
            refused.message.contains("not be valid TOML"),
            "{}",
            refused.message
        );
        assert!(refused.message.contains("line 1"), "{}", refused.message);
        assert!(check_data_file("pyproject.toml", toml, Some(good), good).is_ok());
        // New files are checked too; a file that was broken already is the user's.
        assert!(check_data_file("x.toml", toml, None, bad).is_err());
        assert!(check_data_file("x.toml", toml, Some(bad), bad).is_ok());
        let json = Path::new("/p/data/x.json");
        assert!(check_data_file("x.json", json, Some(b"{}"), b"{").is_err());
        assert!(check_data_file("x.json", json, Some(b"{}"), b"[1]").is_ok());
        // Other files are bytes.
        let readme = Path::new("/p/README.md");
        assert!(check_data_file("README.md", readme, Some(b"a"), b"\xff[").is_ok());
    }
}
