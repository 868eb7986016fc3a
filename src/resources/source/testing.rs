//! What the unit tests of `source/` build their projects from: a project folder holding
//! the files a test names, its Python version declared so that no interpreter runs to
//! find it.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::model::links::Links;
use crate::resources::source::Source;
use crate::store::Store;

/// A project in a temporary folder (kept while the first value lives) holding `files`
/// (path from the project's folder, content), and the project's canonical path.
pub(crate) fn project_with(files: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(
        root.join("pyproject.toml"),
        "[project]\nrequires-python = \">=3.10\"\n",
    )
    .unwrap();
    for (path, content) in files {
        let file = root.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, content).unwrap();
    }
    (dir, root)
}

/// The source resourcespace of the project at `root` over `store`, as a mount at
/// `/mnt/hs` with the usual budget shows it.
pub(crate) fn source_over(root: &Path, store: &Arc<Store>) -> Arc<Source> {
    Source::new(
        root,
        "app".into(),
        Links::new("/mnt/hs"),
        store.clone(),
        500,
    )
}

/// Whether an interpreter can run the tests of the project at `root` here; says so when
/// none can, for the test that then has nothing to check.
pub(crate) fn can_run_tests(root: &Path) -> bool {
    let found = crate::python::interpreter::find(root, None).is_ok();
    if !found {
        eprintln!("no python3: no test can run here");
    }
    found
}
