//! A project with no test folder gets one, `tests/` at its top, when a test module or a
//! folder is first made in `source/tests/`: the place the runner and every view send the
//! agent to write tests (sdists often leave the tests out, and a new project has none
//! yet). A project that keeps its tests beside its code (`toolz/tests/`) is sent there
//! instead, so that its tests stay in one place; one with test folders has them as
//! `source/tests/`'s own folders.

use std::path::Path;

use crate::error::{Error, Result};
use crate::python::DottedName;
use crate::resources::source::edit::Editor;
use crate::resources::source::places::paths::TESTS;
use crate::resources::source::project::Project;

impl Editor {
    /// Make something in `source/tests/` of a project without a test folder, once
    /// [`Editor::first_test_folder_allowed`] said it may: the folder `tests/` is made and
    /// handed to `make` (with its dotted name), and removed again if `make` fails and left
    /// it empty, so that a refused write changes nothing. `shown` is what the user named
    /// and `not_done` how its refusal reads (`was not created`).
    pub(super) fn in_first_test_folder<T>(
        &self,
        shown: &str,
        not_done: &str,
        make: impl FnOnce(&Path, &DottedName) -> Result<T>,
    ) -> Result<T> {
        let folder = self.project.root.join(TESTS);
        std::fs::create_dir(&folder).map_err(|e| {
            Error::internal(format!(
                "{shown} {not_done}: could not make the folder {}: {e}",
                folder.display()
            ))
        })?;
        self.project.forget_layout();
        let made = make(&folder, &self.project.dotted_of_test_dir(&folder));
        if made.is_err() && std::fs::remove_dir(&folder).is_ok() {
            self.project.forget_layout();
        }
        made
    }

    /// Whether `source/tests/` may take a new file or folder, which makes the project's
    /// `tests/` (see the module doc); if not, why and where to go instead.
    pub(super) fn first_test_folder_allowed(&self, shown: &str, not_done: &str) -> Result<()> {
        if !self.project.test_dirs().is_empty() {
            return Err(Error::not_permitted(format!(
                "{shown} {not_done}: {} holds the project's test folders; make it inside one \
                 of them",
                self.links.dir(&["source", TESTS])
            )));
        }
        if let Some(home) = self.project.test_module_folders().first() {
            let shown_home = crate::resources::source::watch::tree_paths(
                &self.project,
                "source",
                &self.project.root.join(home),
            )
            .first()
            .map(|path| self.links.to(&format!("{}/", path.as_str())))
            .unwrap_or_else(|| Project::test_home_label(home));
            return Err(Error::not_permitted(format!(
                "{shown} {not_done}: this project keeps its tests beside its code, in {}; \
                 make it there: {shown_home}",
                Project::test_home_label(home)
            )));
        }
        let folder = self.project.root.join(TESTS);
        if folder.exists() {
            return Err(Error::not_permitted(format!(
                "{shown} {not_done}: {} is there but not shown as a test folder (hidden by \
                 .gitignore or the settings, or not a folder)",
                folder.display()
            )));
        }
        Ok(())
    }
}
