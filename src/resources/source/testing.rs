//! What the unit tests of `source/` build their projects from: a project folder holding
//! the files a test names, its Python version declared so that no interpreter runs to
//! find it.

use std::path::PathBuf;

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
