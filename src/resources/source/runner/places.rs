//! Where the runner's views point in `source/`: a project module's path there, a test's
//! symbol file.

use crate::resources::source::places::in_tree::tree_path;
use crate::resources::source::places::paths::{TESTS, spelled_at_top};
use crate::resources::source::project::Project;
use crate::resources::source::runner::Runner;

/// Where project file `module` (a `.py`) is under `source/`, without `.py`: under
/// `tests/` for a test folder's module, else by the code root that holds it.
pub(crate) fn source_path(project: &Project, module: &std::path::Path) -> Option<String> {
    if let Some(dir) = project.test_dirs().iter().find(|d| module.starts_with(d)) {
        let rel = module.strip_prefix(dir).ok()?.with_extension("");
        return Some(match project.test_dirs().len() {
            1 => format!("{TESTS}/{}", rel.display()),
            _ => format!(
                "{TESTS}/{}/{}",
                dir.file_name()?.to_string_lossy(),
                rel.display()
            ),
        });
    }
    let rel = project
        .code_roots
        .iter()
        .filter_map(|r| module.strip_prefix(r).ok())
        .min_by_key(|p| p.components().count())?;
    let rel = rel.with_extension("").display().to_string();
    Some(spelled_at_top(&rel))
}

impl Runner {
    /// [`source_path`] in this runner's project.
    pub(crate) fn source_path_of(&self, module: &std::path::Path) -> Option<String> {
        source_path(&self.project, module)
    }

    /// The symbol file of test `id` (`tests.test_calc.TestOps.test_div[2-0]` is
    /// `source/tests/test_calc/TestOps/test_div.py` with one test folder `tests/`).
    pub(crate) fn test_symbol_file(&self, id: &str) -> Option<String> {
        let id = id.split('[').next()?;
        let parts: Vec<&str> = id.split('.').collect();
        let (module, inner) = (1..parts.len()).rev().find_map(|n| {
            let file = self
                .project
                .root
                .join(format!("{}.py", parts[..n].join("/")));
            file.is_file().then(|| (file, &parts[n..]))
        })?;
        let shown = self.source_path_of(&module)?;
        Some(
            self.links
                .file(&tree_path(format!("{shown}/{}.py", inner.join("/")))),
        )
    }
}
