//! Judging a routed edit by importing what it touched: the edited module is imported
//! before and after the edit (by the [`ImportChecker`], a long-lived interpreter that forks
//! per check, made when first needed and remade when the settings change it), and the
//! edit is refused only when it brought the failure. A failure the module already had is
//! remembered for its view, since its edits are kept.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::error::{Error, Result};
use crate::resources::source::edit::Editor;
use crate::resources::source::edit::import_checker::{ImportChecker, ImportFailure};
use crate::tree::{access, lock};

/// An import's outcome: `Ok`, or how it failed.
pub(crate) type Imported = std::result::Result<(), Traceback>;

/// The last lines of a failed import's traceback, the exception line last.
#[derive(Debug, Clone)]
pub(crate) struct Traceback(String);

impl Traceback {
    /// The last non-empty line: the exception and its message, which say whether two
    /// failures are the same.
    fn last_line(&self) -> &str {
        self.0
            .lines()
            .rev()
            .map(str::trim)
            .find(|line| !line.is_empty())
            .unwrap_or("")
    }

    /// The module a `ModuleNotFoundError` names, if that is how the import failed.
    fn missing_module(&self) -> Option<&str> {
        self.last_line()
            .strip_prefix("ModuleNotFoundError: No module named '")?
            .strip_suffix('\'')
    }
}

/// The exception line of an import that failed for want of the module `dotted`.
fn missing_line(dotted: &str) -> String {
    format!("ModuleNotFoundError: No module named '{dotted}'")
}

/// The import checks of one source: the checker in use, and the failures edits kept.
#[derive(Default)]
pub(crate) struct ImportJudge {
    /// The checker in use, with the interpreter and timeout it was made for.
    checker: Mutex<Option<(PathBuf, Duration, Arc<ImportChecker>)>>,
    /// Modules whose import failed before and after an edit, with the failure: shown in
    /// their views (never learnt by reading: importing runs the project's code).
    failures: Mutex<HashMap<String, KnownFailure>>,
}

impl ImportJudge {
    /// The checker for `python` under `timeout`: the one in use, or a new one when the
    /// settings changed either.
    fn checker(&self, python: PathBuf, timeout: Duration) -> Arc<ImportChecker> {
        let mut slot = lock(&self.checker);
        match slot.as_ref() {
            Some((p, t, checker)) if *p == python && *t == timeout => Arc::clone(checker),
            _ => {
                let checker = Arc::new(ImportChecker::new(python.clone(), timeout));
                *slot = Some((python, timeout, Arc::clone(&checker)));
                checker
            }
        }
    }

    /// Whether `after` (the import of `dotted` after an edit) condemns the edit, against
    /// `before`: see [`Source::import_judged`].
    fn verdict(
        &self,
        dotted: &str,
        before: Option<&Imported>,
        after: Imported,
        awaited: Option<&str>,
    ) -> Option<Refusal> {
        let now = match after {
            Ok(()) => {
                let mut failures = lock(&self.failures);
                failures.remove(dotted);
                // Modules that were waiting for this one import now, or fail otherwise.
                let missed = missing_line(dotted);
                failures.retain(|_, failure| failure.line != missed);
                return None;
            }
            Err(now) => now,
        };
        let awaited_missing = awaited.is_some_and(|package| {
            let prefix = format!("{package}.");
            now.missing_module()
                .is_some_and(|missing| missing.starts_with(&prefix))
        });
        let same_as_before = matches!(before, Some(Err(was)) if was.last_line() == now.last_line());
        if same_as_before || awaited_missing {
            let why = match same_as_before {
                true => "it failed before the edit as it does after",
                false => "a module of its package not written yet",
            };
            crate::log::line(&format!(
                "import check of {dotted}: {} — {why}: the edit is kept",
                now.last_line()
            ));
            let failure = KnownFailure {
                line: now.last_line().to_string(),
                files: crate::tree::named_files(&now.0),
                waiting: !same_as_before,
            };
            lock(&self.failures).insert(dotted.to_string(), failure);
            return None;
        }
        let since = match before {
            Some(Err(was)) => format!(
                " (before it, the import failed otherwise: {})",
                was.last_line()
            ),
            _ => String::new(),
        };
        Some(Refusal { now: now.0, since })
    }

    /// The failure `dotted` had before and after the last edit that saw one, if any.
    fn known_failure(&self, dotted: &str) -> Option<KnownFailure> {
        lock(&self.failures).get(dotted).cloned()
    }
}

/// An import failure a module kept through an edit: its exception line, and the files its
/// traceback passed through (the line may quote what one of them raised).
#[derive(Debug, Clone)]
pub(crate) struct KnownFailure {
    pub line: String,
    pub files: Vec<PathBuf>,
    /// It fails for want of a module of its package not written yet, which a new module
    /// may (see [`ProjectChange::awaits_modules_of`](super::change::ProjectChange)).
    pub waiting: bool,
}

impl KnownFailure {
    /// The line a view shows, `failure` being the exception line or what stands for it.
    pub(crate) fn said(&self, failure: &str) -> String {
        match self.waiting {
            true => format!(
                "**Import fails**: {failure}: a module of its package not written yet. It is \
                 kept; write that module next."
            ),
            false => format!(
                "**Import fails** as it did before the last edit: {failure}. Edits are kept \
                 while they bring no new failure."
            ),
        }
    }
}

/// Why an edit is refused: the import's failure after it (`now`), and how it failed
/// before, if otherwise (`since`, a clause of the message).
struct Refusal {
    now: String,
    since: String,
}

impl Editor {
    /// Import `dotted` now, if the settings say so and the change being carried out is the
    /// owner's: `Ok`, or the traceback's last lines; `None` when no check runs.
    pub(crate) fn import_outcome(&self, dotted: &str) -> Option<Imported> {
        if !access::may_run_project_code() {
            // Importing runs the project's code as the mount's owner: never for a change
            // another user made.
            crate::log::line(&format!(
                "import check of {dotted} skipped: the change was not made by the mount's owner"
            ));
            return None;
        }
        let settings = self.settings.current();
        if !settings.import_check {
            return None;
        }
        let python = match crate::python::interpreter::find(
            &self.project.root,
            settings.python.as_deref(),
        ) {
            Ok(found) => found.path,
            Err(why) => {
                crate::log::line(&format!("import check of {dotted} skipped: {why}"));
                return None;
            }
        };
        let checker = self.imports.checker(python, settings.import_timeout);
        let mut sys_path = self.project.code_roots.clone();
        if !sys_path.contains(&self.project.root) {
            sys_path.push(self.project.root.clone());
        }
        // pytest puts a test folder that is no package on sys.path, where its modules
        // import each other by their own names (`from common import x`).
        for dir in self.project.test_import_bases() {
            if !sys_path.contains(&dir) {
                sys_path.push(dir);
            }
        }
        match checker.check(dotted, &sys_path) {
            Ok(()) => Some(Ok(())),
            Err(ImportFailure::Failed(traceback)) => Some(Err(Traceback(traceback))),
            Err(ImportFailure::Unavailable(why)) => {
                crate::log::line(&format!("import check of {dotted} skipped: {why}"));
                None
            }
        }
    }

    /// Judge an edit by importing `dotted` after it, against `before` (its import just
    /// before the edit): refused only when the edit brought the failure — the module
    /// imported before and does not now, or fails differently. A module that already failed
    /// the same way (a dependency not installed, a module it imports that fails) keeps
    /// failing and the edit is kept: the failure is remembered for the module's view.
    ///
    /// A module of the package `awaited` that is missing does not condemn the edit either
    /// (see [`ProjectChange::awaits_modules_of`](super::change::ProjectChange)).
    pub(crate) fn import_judged(
        &self,
        dotted: &str,
        before: Option<&Imported>,
        awaited: Option<&str>,
    ) -> Result<()> {
        let Some(after) = self.import_outcome(dotted) else {
            return Ok(());
        };
        match self.imports.verdict(dotted, before, after, awaited) {
            None => Ok(()),
            Some(Refusal { now, since }) => Err(Error::invalid(format!(
                "importing {dotted} failed after the edit{since}, so the edit was undone:\n{now}\n\
                 (turn this check off in {})",
                self.links.to("source/meta/settings.toml")
            ))),
        }
    }

    /// The import failure `dotted` had before and after the last edit that saw one, if any:
    /// its edits are kept while they change nothing of it.
    pub(crate) fn known_import_failure(&self, dotted: &str) -> Option<KnownFailure> {
        self.imports.known_failure(dotted)
    }
}
