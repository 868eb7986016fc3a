//! Which files a set of paths names, for an import to read: a file named on its own is
//! always read; inside a directory only `*.jsonl`, `*.json`, `.aider.chat.history.md` and
//! `opencode.db` files are taken (recursively, in name order, hidden ones too, following
//! symbolic links that stay inside it; a file reached twice is taken once). A link in a
//! directory that leads out of it (`up -> ..`, or to a file elsewhere) is not followed and
//! is listed: an import never reads outside the folders it was given, whoever may write
//! them. The folders of an OpenCode session's pieces are passed over (its session file
//! reads them).

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use super::reading::ReadError;
use super::trusted::not_regular;
use super::{aider, opencode};
use crate::error::{Error, Result};

/// One file to import, and whether it was named on its own (then it is read whatever it
/// holds) or found in a directory.
pub struct Found {
    pub path: PathBuf,
    pub named: bool,
}

/// What a walk found: the files to read, and what it passed over.
#[derive(Default)]
pub struct Walked {
    pub found: Vec<Found>,
    /// Directories that could not be walked into, and named paths that are neither a
    /// regular file nor a directory.
    pub bad_files: Vec<(PathBuf, ReadError)>,
    /// Links that lead back to a directory above them, with that directory.
    pub loops: Vec<(PathBuf, PathBuf)>,
    /// Links that lead out of the directory they are in, with where they lead.
    pub outside: Vec<(PathBuf, PathBuf)>,
}

/// The files at `paths`, in order, each once, with what was passed over; fails, before
/// anything is read, when a path does not exist.
pub fn walk(paths: &[PathBuf]) -> Result<Walked> {
    let mut summary = Walked::default();
    let mut found = Vec::new();
    let mut seen = HashSet::new();
    let mut add = |path: PathBuf, named: bool, found: &mut Vec<Found>| {
        let identity = path.canonicalize().unwrap_or_else(|_| path.clone());
        if seen.insert(identity) {
            found.push(Found { path, named });
        }
    };
    for path in paths {
        let metadata = std::fs::metadata(path).map_err(|e| {
            Error::not_found(format!(
                "cannot import {}: {e}; nothing was imported",
                path.display()
            ))
        })?;
        if metadata.is_file() {
            add(path.clone(), true, &mut found);
            continue;
        }
        if !metadata.is_dir() {
            summary
                .bad_files
                .push((path.clone(), ReadError::whole_file(not_regular(&metadata))));
            continue;
        }
        let root = path.canonicalize().unwrap_or_else(|_| path.clone());
        let outside = Arc::new(Mutex::new(Vec::new()));
        let passed = Arc::clone(&outside);
        // Links are followed where they stay inside the folder (a folder of links to its
        // own files); one leading out of it, or back above it, is passed over: what the
        // folder's writer links to is not theirs to have read.
        let walker = ignore::WalkBuilder::new(path)
            .standard_filters(false)
            .follow_links(true)
            .sort_by_file_path(Path::cmp)
            .filter_entry(move |entry| {
                if entry.file_type().is_some_and(|t| t.is_dir())
                    && opencode::is_piece_folder(entry.path())
                {
                    return false;
                }
                if !entry.path_is_symlink() {
                    return true;
                }
                match entry.path().canonicalize() {
                    Ok(target) if target.starts_with(&root) => true,
                    Ok(target) => {
                        passed
                            .lock()
                            .unwrap_or_else(PoisonError::into_inner)
                            .push((entry.path().to_path_buf(), target));
                        false
                    }
                    // A dangling link: nothing to read, nothing to say.
                    Err(_) => false,
                }
            })
            .build();
        for item in walker {
            match item {
                Ok(item) if item.file_type().is_some_and(|t| t.is_file()) => {
                    if is_transcript_name(item.path()) {
                        add(item.into_path(), false, &mut found);
                    }
                }
                Ok(_) => {}
                Err(e) => match loop_of(&e) {
                    Some((link, ancestor)) => summary.loops.push((link, ancestor)),
                    None => summary.bad_files.push((
                        path.clone(),
                        ReadError::whole_file(format!("cannot walk the directory: {e}")),
                    )),
                },
            }
        }
        summary
            .outside
            .append(&mut outside.lock().unwrap_or_else(PoisonError::into_inner));
    }
    summary.found = found;
    Ok(summary)
}

/// The link and the directory it leads back to, when `error` is a loop.
fn loop_of(error: &ignore::Error) -> Option<(PathBuf, PathBuf)> {
    match error {
        ignore::Error::Loop { ancestor, child } => Some((child.clone(), ancestor.clone())),
        ignore::Error::WithPath { err, .. }
        | ignore::Error::WithDepth { err, .. }
        | ignore::Error::WithLineNumber { err, .. } => loop_of(err),
        _ => None,
    }
}

/// Whether a file found in a folder is taken by its name.
pub fn is_transcript_name(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("jsonl" | "json")
    ) || matches!(
        path.file_name().and_then(|n| n.to_str()),
        Some(aider::FILE_NAME | opencode::DATABASE)
    )
}
