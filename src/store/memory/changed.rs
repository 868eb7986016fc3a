//! The files sessions changed, as plain data: a `file:` pattern ([`FilePattern`]: what it
//! matches, in code and in SQL) and a changed file as `memory/files/` lists it. How rows
//! are noted and filled is `session_files.rs`; how each backend asks for them, its dialect.

use crate::error::{Error, Result};
use crate::model::time::Time;

/// A file (`ledger/money.py`) or a folder (`ledger/`, any file under it), as `file:` and
/// `memory/files/` take it. A file matches a stored path equal to it or ending in
/// `/<it>` (a session run in another checkout; so `money.py` alone finds every
/// `…/money.py`); a folder matches stored paths starting with it or holding `/<it>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilePattern {
    /// Without `./` or repeated slashes; a folder ends in `/`.
    pub path: String,
    pub folder: bool,
}

impl FilePattern {
    /// The pattern `text` names; refused when it names no file. `:` stands for `/`: a
    /// search is a file name under `search/`, where `/` cannot be written
    /// (`file:src:ledger:money.py`, a folder `file:src:ledger:`).
    pub fn parse(text: &str) -> Result<FilePattern> {
        let text = &text.replace(':', "/");
        let folder = text.ends_with('/');
        let absolute = text.starts_with('/');
        let parts: Vec<&str> = text
            .split('/')
            .filter(|p| !p.is_empty() && *p != ".")
            .collect();
        if parts.is_empty() {
            return Err(Error::invalid(format!(
                "file:{text} names no file: write a project path (file:ledger/money.py) or a \
                 folder (file:ledger/)"
            )));
        }
        let lead = if absolute { "/" } else { "" };
        let trail = if folder { "/" } else { "" };
        Ok(FilePattern {
            path: format!("{lead}{}{trail}", parts.join("/")),
            folder,
        })
    }

    /// Whether stored path `path` is this file, or lies in this folder.
    pub fn matches(&self, path: &str) -> bool {
        let inner = format!("/{}", self.path.trim_start_matches('/'));
        if self.folder {
            path.starts_with(&self.path) || path.contains(&inner)
        } else {
            path == self.path || path.ends_with(&inner)
        }
    }

    /// The SQL condition (both dialects take it) that column `path` matches, as
    /// [`FilePattern::matches`] says; `bind` binds a value and gives its placeholder.
    /// `replace(..) <> ..` says "contains" in words both dialects know.
    pub fn condition(&self, path: &str, mut bind: impl FnMut(String) -> String) -> String {
        let whole = bind(self.path.clone());
        let inner = bind(format!("/{}", self.path.trim_start_matches('/')));
        let (whole, inner) = (
            format!("CAST({whole} AS TEXT)"),
            format!("CAST({inner} AS TEXT)"),
        );
        if self.folder {
            format!(
                "(substr({path}, 1, length({whole})) = {whole} \
                 OR replace({path}, {inner}, '') <> {path})"
            )
        } else {
            format!(
                "({path} = {whole} OR (length({path}) > length({inner}) \
                 AND substr({path}, length({path}) - length({inner}) + 1) = {inner}))"
            )
        }
    }
}

/// A file some session changed, as `memory/files/` lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangedFile {
    pub path: String,
    /// How many sessions changed it.
    pub sessions: usize,
    /// The latest time one did, when entries had times.
    pub latest: Option<Time>,
}

/// How [`ChangedFile`]s are listed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileOrder {
    /// Changed most recently first.
    Recent,
    /// Changed by the most sessions first.
    Often,
}
