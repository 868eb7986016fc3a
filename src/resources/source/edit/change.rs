//! One change of the project's files, all or nothing: every edit homespace makes to the
//! project (a symbol or module written, a data file, a module created or removed with its
//! package's `__init__.py`, a rename, an undo) is a [`ProjectChange`]. It guarantees:
//!
//! - **Locked.** Every file it touches is locked before any is read, in one fixed order
//!   ([`disk::FileLocks::lock_all`]), so two changes sharing files never deadlock, and
//!   held until it is over — through the import check, a rollback and the history — so a
//!   concurrent change cannot slip in between and be undone by a rollback.
//! - **Read afresh.** What each file holds is read under the lock and kept. Only a file
//!   that does not exist is new; any other failure to read it fails the change, since
//!   taking an unreadable file for a new one would overwrite it and record a creation.
//! - **Conflicts refused.** [`ProjectChange::expect`] refuses when a file no longer holds
//!   what the writer read when opening it; nothing is written then.
//! - **Atomic per file.** Each file is replaced by [`Source::write_file`] (temp file and
//!   rename). New contents are written in the order given and deletions come last, so a
//!   daemon killed between two files never leaves an `__init__.py` importing a module
//!   that is already gone, nor one importing a module not yet written.
//! - **Import-checked, else undone.** After writing, the modules it names are imported
//!   ([`Source::import_check`], which runs no code for other users' changes); if one
//!   fails, or a write fails, every file written so far is put back as it was (created
//!   files removed) and the failure is returned.
//! - **Recorded.** One history entry per file changed, in the order given, with the
//!   description the caller chose: what undo and `source/history/` read.
//!
//! The caller computes the new contents from the old ones ([`ProjectChange::old`]) between
//! [`ProjectChange::begin`] and [`ProjectChange::commit`]; returning early (an error, or
//! nothing to do) drops the change and its locks with nothing written.

use std::path::{Path, PathBuf};

use crate::error::{Error, ErrorKind, Result};
use crate::resources::source::disk::{self, FileGuard};
use crate::resources::source::edit::Editor;
use crate::resources::source::edit::import_judge::Imported;

/// A change of some of the project's files, begun (locked and read) and not yet applied.
pub(crate) struct ProjectChange<'s> {
    source: &'s Editor,
    /// The files touched, each once, in the order given to `begin`.
    files: Vec<Touched>,
    /// Modules to import after writing, in order.
    checks: Vec<String>,
    /// The package whose modules may still be missing: a module this change creates may
    /// import a sibling not written yet (see [`ProjectChange::awaits_modules_of`]).
    awaited: Option<String>,
    /// Declared last: the locks are released after everything else is done.
    _locks: Vec<FileGuard>,
}

struct Touched {
    path: PathBuf,
    /// What the file held when the change began; `None`: it did not exist.
    old: Option<Vec<u8>>,
    /// Why it could not be read, when it did not exist (for "cannot read" messages).
    missing: String,
    /// What to do with it, if anything.
    plan: Option<Plan>,
}

struct Plan {
    /// The new content; `None` deletes the file.
    new: Option<Vec<u8>>,
    /// The history's description of this file's change.
    what: String,
}

impl<'s> ProjectChange<'s> {
    /// Lock `paths` and read what they hold. A path named twice is touched once.
    pub(crate) fn begin(source: &'s Editor, paths: &[&Path]) -> Result<Self> {
        let locks = source.locks.lock_all(paths);
        let mut files: Vec<Touched> = Vec::with_capacity(paths.len());
        for path in paths {
            if files.iter().any(|f| f.path == *path) {
                continue;
            }
            let (old, missing) = match std::fs::read(path) {
                Ok(bytes) => (Some(bytes), String::new()),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => (None, e.to_string()),
                Err(e) => return Err(cannot_read(path, &e.to_string())),
            };
            files.push(Touched {
                path: path.to_path_buf(),
                old,
                missing,
                plan: None,
            });
        }
        Ok(ProjectChange {
            source,
            files,
            checks: Vec::new(),
            awaited: None,
            _locks: locks,
        })
    }

    /// What `path` held when the change began; `None` when it did not exist.
    pub(crate) fn old(&self, path: &Path) -> Result<Option<&[u8]>> {
        Ok(self.touched(path)?.old.as_deref())
    }

    /// What `path` held when the change began, which must have existed.
    pub(crate) fn existing(&self, path: &Path) -> Result<&[u8]> {
        let file = self.touched(path)?;
        file.old
            .as_deref()
            .ok_or_else(|| cannot_read(path, &file.missing))
    }

    /// Refuse the change when the writer read `base` on opening `shown` (the file as the
    /// user named it) and `path` no longer holds exactly that. No `base`: nothing to check.
    pub(crate) fn expect(&self, path: &Path, base: Option<&[u8]>, shown: &str) -> Result<()> {
        match base {
            Some(base) if self.old(path)? != Some(base) => Err(conflict(shown)),
            _ => Ok(()),
        }
    }

    /// Replace (or create) `path` with `content`; `what` describes it in the history.
    pub(crate) fn write(
        &mut self,
        path: &Path,
        content: impl Into<Vec<u8>>,
        what: impl Into<String>,
    ) -> Result<()> {
        self.plan(path, Some(content.into()), what.into())
    }

    /// Delete `path`; `what` describes it in the history.
    pub(crate) fn delete(&mut self, path: &Path, what: impl Into<String>) -> Result<()> {
        self.plan(path, None, what.into())
    }

    /// Import the module `dotted` once the files are written; if that fails, the change is
    /// undone.
    pub(crate) fn import_check(&mut self, dotted: impl Into<String>) {
        let dotted = dotted.into();
        if imported_as_a_module(&dotted)
            && !self.source.is_script(&dotted)
            && !self.checks.contains(&dotted)
        {
            self.checks.push(dotted);
        }
    }

    /// [`ProjectChange::import_check`] of each of `modules`.
    pub(crate) fn import_checks(&mut self, modules: impl IntoIterator<Item = String>) {
        for dotted in modules {
            self.import_check(dotted);
        }
    }

    /// A module this change creates may import modules of `package` that are not there
    /// yet: files are written one at a time (`cp -r` of a package writes its `__init__.py`
    /// before the modules it imports, an agent writes a module before the helper it
    /// uses), so their order must not decide. The import's failure is shown in the
    /// module's view instead, and gone once the missing module is written.
    pub(crate) fn awaits_modules_of(&mut self, package: impl Into<String>) {
        self.awaited = Some(package.into());
    }

    /// Apply the change: write, import-check (rolling back on failure), record. A change
    /// that plans nothing does nothing. Recording comes after the files are final, so a
    /// store that fails to record is reported with the files already changed.
    /// Whether anything is planned to change.
    fn planned_any(&self) -> bool {
        self.files.iter().any(|f| f.plan.is_some())
    }

    pub(crate) fn commit(self) -> Result<()> {
        let planned = |deletions: bool| {
            self.files.iter().filter(move |f| {
                f.plan
                    .as_ref()
                    .is_some_and(|p| p.new.is_none() == deletions)
            })
        };
        // How each module to check imports before the edit: an edit is judged by what it
        // changes, not by failures the project already had.
        let before: Vec<Option<Imported>> = match self.planned_any() {
            true => self
                .checks
                .iter()
                .map(|dotted| self.source.import_outcome(dotted))
                .collect(),
            false => Vec::new(),
        };
        let mut applied: Vec<&Touched> = Vec::new();
        // New contents first, deletions last: see the module doc.
        for file in planned(false).chain(planned(true)) {
            if let Err(failure) = self.apply(file) {
                return Err(self.roll_back(&applied, failure));
            }
            applied.push(file);
        }
        if applied.is_empty() {
            return Ok(());
        }
        for (n, dotted) in self.checks.iter().enumerate() {
            if let Err(failure) = self.source.import_judged(
                dotted,
                before.get(n).and_then(Option::as_ref),
                self.awaited.as_deref(),
            ) {
                return Err(self.roll_back(&applied, failure));
            }
        }
        // What the project hides follows its .gitignore files: a new one hides from now
        // on, also when the history below cannot be recorded.
        let project = &self.source.project;
        if applied
            .iter()
            .any(|f| f.path.file_name().is_some_and(|n| n == ".gitignore"))
        {
            project.forget_layout();
        }
        // One change, one history entry: its first file's edit stands for the others.
        let mut first = None;
        for file in &self.files {
            if let Some(plan) = &file.plan {
                let id = self.source.edits.record(
                    &file.path,
                    &plan.what,
                    file.old.as_deref(),
                    plan.new.as_deref(),
                    first,
                )?;
                first.get_or_insert(id);
            }
        }
        Ok(())
    }

    fn touched(&self, path: &Path) -> Result<&Touched> {
        self.files
            .iter()
            .find(|f| f.path == path)
            .ok_or_else(|| not_begun(path))
    }

    fn plan(&mut self, path: &Path, new: Option<Vec<u8>>, what: String) -> Result<()> {
        let file = self
            .files
            .iter_mut()
            .find(|f| f.path == path)
            .ok_or_else(|| not_begun(path))?;
        file.plan = Some(Plan { new, what });
        Ok(())
    }

    fn apply(&self, file: &Touched) -> Result<()> {
        match file.plan.as_ref().and_then(|p| p.new.as_deref()) {
            Some(new) => self.source.write_file(&file.path, new),
            None => disk::remove(&file.path),
        }
    }

    /// Put every file of `applied` back as it was, newest first, and return `failure` —
    /// saying so when a file could not be restored, since it then holds the change.
    fn roll_back(&self, applied: &[&Touched], mut failure: Error) -> Error {
        for file in applied.iter().rev() {
            let restored = match &file.old {
                Some(old) => self.source.write_file(&file.path, old),
                None => disk::remove(&file.path),
            };
            if let Err(e) = restored {
                failure.message.push_str(&format!(
                    "\nRestoring {} failed too, so it keeps the change: {}",
                    file.path.display(),
                    e.message
                ));
            }
        }
        failure
    }
}

/// The refusal of a write over a file that changed since the writer opened it as `shown`.
pub(crate) fn conflict(shown: &str) -> Error {
    Error::new(
        ErrorKind::Busy,
        format!(
            "{shown} was changed by someone else since you opened it (on disk or through another file); \
             nothing was written, so neither change is lost. Read it again and re-apply your edit"
        ),
    )
}

fn cannot_read(path: &Path, why: &str) -> Error {
    Error::internal(format!("cannot read {}: {why}", path.display()))
}

/// A file planned without being locked and read first: a bug in the caller.
fn not_begun(path: &Path) -> Error {
    Error::internal(format!(
        "{} is not part of this change (it was not locked when the change began)",
        path.display()
    ))
}

/// Whether the module `dotted` is one to import-check. Not `setup` (setup.py: importing it
/// runs setuptools' build, which exits without a command, so it always "failed"), not a
/// `__main__` (importing it runs the program), not a `conftest` (pytest imports it its own
/// way, with its fixtures; the next run says what is wrong with it). Their syntax is still
/// checked, as every Python file's.
fn imported_as_a_module(dotted: &str) -> bool {
    let last = dotted.rsplit('.').next().unwrap_or(dotted);
    dotted != "setup" && last != "__main__" && last != "conftest"
}

#[cfg(test)]
mod tests;
