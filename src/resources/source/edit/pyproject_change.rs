//! Reading pyproject.toml, and one change of it, as `deps/` and `config/` make them: a
//! [`ProjectChange`] of that one file (locked against every other edit of it, atomic,
//! recorded in `source/history/` and so undone like any edit) whose new text is computed
//! from the text it holds under the lock — never from a copy read before.

use std::path::PathBuf;

use crate::error::{Error, Result};
use crate::resources::source::edit::Editor;
use crate::resources::source::edit::change::ProjectChange;

/// Why pyproject.toml cannot be read as text.
const NOT_UTF8: &str = "pyproject.toml is not UTF-8 text, which TOML must be";

/// The refusal of a change to a pyproject.toml that does not parse (`why`).
pub(crate) fn broken(why: String) -> Error {
    Error::invalid(format!(
        "pyproject.toml is not valid TOML, so nothing in it was changed; fix it first:\n{why}"
    ))
}

/// Where the project's pyproject.toml is (or would be).
pub(crate) fn pyproject(editor: &Editor) -> PathBuf {
    editor.project().root.join("pyproject.toml")
}

/// What pyproject.toml holds now; `None` when there is no such file.
fn read_pyproject(editor: &Editor) -> Result<Option<String>> {
    match std::fs::read(pyproject(editor)) {
        Ok(bytes) => String::from_utf8(bytes)
            .map(Some)
            .map_err(|_| Error::invalid(NOT_UTF8)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::internal(format!("cannot read pyproject.toml: {e}"))),
    }
}

/// pyproject.toml read through `parse`: what deps/ and config/ show.
pub(crate) enum Pyproject<T> {
    /// There is no pyproject.toml.
    Missing,
    /// It does not parse: why.
    Broken(String),
    Read(T),
}

impl<T> Pyproject<T> {
    /// Reads pyproject.toml now and parses it with `parse`.
    pub(crate) fn read(
        editor: &Editor,
        parse: impl FnOnce(String) -> std::result::Result<T, String>,
    ) -> Result<Self> {
        Ok(match read_pyproject(editor)? {
            None => Pyproject::Missing,
            Some(text) => match parse(text) {
                Ok(parsed) => Pyproject::Read(parsed),
                Err(why) => Pyproject::Broken(why),
            },
        })
    }
}

/// Changes pyproject.toml to what `edit` makes of its text (`None`: there is no such file),
/// described in the history as `what`. An edit giving the same text writes nothing. What
/// is written must read back as TOML: a splice is checked, not trusted.
pub(crate) fn change_pyproject(
    editor: &Editor,
    what: &str,
    edit: impl FnOnce(Option<&str>) -> Result<String>,
) -> Result<()> {
    let path = pyproject(editor);
    let mut change = ProjectChange::begin(editor, &[&path])?;
    let old = match change.old(&path)? {
        Some(bytes) => Some(
            std::str::from_utf8(bytes)
                .map_err(|_| Error::invalid(NOT_UTF8))?
                .to_string(),
        ),
        None => None,
    };
    let new = edit(old.as_deref())?;
    if old.as_deref() == Some(new.as_str()) {
        return Ok(());
    }
    toml_edit::Document::parse(new.as_str()).map_err(|e| {
        Error::internal(format!(
            "the change would break pyproject.toml ({}); nothing was written",
            e.message()
        ))
    })?;
    change.write(&path, new, what.to_string())?;
    change.commit()
}
