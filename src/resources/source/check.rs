//! The import check after a routed edit, as `source/meta/settings.toml` says: on or off,
//! which interpreter, which timeout. The checker (a long-lived interpreter that forks per
//! check) is made when first needed and remade when the settings change it.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::error::{Error, Result};
use crate::resources::source::Source;
use crate::resources::source::import_check::{ImportChecker, ImportFailure, find_python};
use crate::resources::source::settings::{self, DEFAULT, Settings};
use crate::tree::{access, lock};

/// The checker in use and what it was made for.
pub(crate) type CheckerSlot = Option<(PathBuf, Duration, Arc<ImportChecker>)>;

impl Source {
    /// The text of `source/meta/settings.toml`.
    pub(crate) fn settings_text(&self) -> Result<String> {
        Ok(self
            .store
            .records(|db| db.settings().get(&self.checkout, "source"))?
            .unwrap_or_else(|| DEFAULT.to_string()))
    }

    /// The settings in force.
    pub(crate) fn settings(&self) -> Settings {
        self.settings_text()
            .and_then(|text| settings::parse(&text))
            .or_else(|_| settings::parse(DEFAULT))
            .unwrap_or(Settings {
                import_check: false,
                python: None,
                import_timeout: Duration::from_secs(10),
                nav: Default::default(),
                ignore: Vec::new(),
                test_args: Vec::new(),
                test_timeout: Duration::from_secs(600),
            })
    }

    /// Validate and store new settings; they apply to the next edit. Only the mount's
    /// owner may: they choose the interpreter that runs after the owner's edits.
    pub(crate) fn write_settings(&self, content: &[u8]) -> Result<()> {
        if !access::may_run_project_code() {
            return Err(Error::new(
                crate::error::ErrorKind::PermissionDenied,
                "settings.toml was not saved: only the mount's owner may change it, since it \
                 chooses the Python interpreter that runs after each edit",
            ));
        }
        let text = std::str::from_utf8(content)
            .map_err(|_| Error::invalid("settings.toml was not saved: it is not UTF-8"))?;
        let settings = settings::parse(text)?;
        self.store
            .change_records(|db| db.settings().put(&self.checkout, "source", text))?;
        self.apply_settings(&settings);
        Ok(())
    }

    /// The Python interpreter the settings choose, else the project's own: what the
    /// import check and the test runner run.
    pub(crate) fn interpreter(&self, settings: &Settings) -> Option<PathBuf> {
        settings
            .python
            .clone()
            .or_else(|| find_python(&self.project.root))
    }

    /// Applies what takes effect outside the next edit: the paths left out.
    pub(crate) fn apply_settings(&self, settings: &Settings) {
        // Validated when written, so the patterns build; were one not to, the old stay.
        let _ = self.project.set_extra_ignore(&settings.ignore);
    }

    /// Import `dotted` after an edit, if the settings say so; the failure says why.
    pub(crate) fn import_check(&self, dotted: &str) -> Result<()> {
        if !access::may_run_project_code() {
            // Importing runs the project's code as the mount's owner: never for a change
            // another user made.
            crate::log::line(&format!(
                "import check of {dotted} skipped: the change was not made by the mount's owner"
            ));
            return Ok(());
        }
        let settings = self.settings();
        if !settings.import_check {
            return Ok(());
        }
        let Some(python) = self.interpreter(&settings) else {
            crate::log::line("import check skipped: no Python interpreter found");
            return Ok(());
        };
        let checker = {
            let mut slot = lock(&self.checker);
            match slot.as_ref() {
                Some((p, t, checker)) if *p == python && *t == settings.import_timeout => {
                    Arc::clone(checker)
                }
                _ => {
                    let checker =
                        Arc::new(ImportChecker::new(python.clone(), settings.import_timeout));
                    *slot = Some((python, settings.import_timeout, Arc::clone(&checker)));
                    checker
                }
            }
        };
        let mut sys_path = self.project.code_roots.clone();
        if !sys_path.contains(&self.project.root) {
            sys_path.push(self.project.root.clone());
        }
        match checker.check(dotted, &sys_path) {
            Ok(()) => Ok(()),
            Err(ImportFailure::Failed(traceback)) => Err(Error::invalid(format!(
                "importing {dotted} failed after the edit, so the edit was undone:\n{traceback}\n\
                 (turn this check off in {})",
                self.links.to("source/meta/settings.toml")
            ))),
            Err(ImportFailure::Unavailable(why)) => {
                crate::log::line(&format!("import check of {dotted} skipped: {why}"));
                Ok(())
            }
        }
    }
}
