//! Where a file a session changed shows under `source/`, if the mounted project has it: a
//! module or a file of a package under its code root (`src/ledger/money.py` in a src
//! layout is `source/ledger/money.py`), a test folder's file under `source/tests/`
//! (`source/tests/<folder>/…` when there are several). Files the tree does not show —
//! gone, hidden or ignored, outside the project, or documents beside the code such as
//! `README.md` — have no place, and the digest names them as plain text.

use std::path::{Path, PathBuf};

use crate::resources::source::places::in_tree::tree_path;
use crate::resources::source::places::paths::TESTS;
use crate::resources::source::project::{Project, has_python};

/// The mounted project's layout, read once per mount (as `source/` reads it).
pub struct SourcePlaces {
    project: Option<Project>,
}

impl SourcePlaces {
    /// The places of the project at `root`; none when it cannot be read.
    pub fn of(root: &Path) -> SourcePlaces {
        let project = root.canonicalize().ok().map(|root| Project::open(&root));
        SourcePlaces { project }
    }

    /// `file` (relative to the project, or absolute) under `source/`, without a leading
    /// slash: `source/ledger/money.py`.
    pub fn place(&self, file: &str) -> Option<String> {
        let project = self.project.as_ref()?;
        let disk = resolved(&project.root, file)?;
        if project.kind_inside(&disk) != Some(false) || hidden_on_the_way(project, &disk) {
            return None;
        }
        if let Some(dir) = project.test_dirs().iter().find(|d| disk.starts_with(d)) {
            let rel = disk.strip_prefix(dir).ok()?;
            let folder = match project.test_dirs().len() {
                1 => String::new(),
                _ => format!("{}/", dir.file_name()?.to_str()?),
            };
            return Some(tree_path(format!("{TESTS}/{folder}{}", rel.to_str()?)).to_string());
        }
        let rel = project
            .code_roots
            .iter()
            .filter_map(|root| disk.strip_prefix(root).ok())
            .min_by_key(|rel| rel.components().count())?;
        let is_module = disk.extension().is_some_and(|x| x == "py");
        // A file of a package shows beside its modules; one at the top of a code root is
        // not code and does not show.
        let in_package = rel.components().count() > 1
            && disk.parent().is_some_and(has_python)
            && top_folder_shown(project, rel);
        (is_module && top_folder_shown(project, rel) || in_package)
            .then(|| tree_path(rel.to_str().unwrap_or_default()))
            .filter(|place| place.depth() > 1)
            .map(|place| place.to_string())
    }
}

/// `file` as a path inside `root`; `None` when it lies outside.
fn resolved(root: &Path, file: &str) -> Option<PathBuf> {
    let path = Path::new(file);
    let disk = if path.is_absolute() {
        path.to_path_buf()
    } else {
        root.join(path)
    };
    let disk = disk.canonicalize().ok()?;
    disk.starts_with(root).then_some(disk)
}

/// Whether a folder on the way from the project's root to `disk` is hidden or ignored.
fn hidden_on_the_way(project: &Project, disk: &Path) -> bool {
    let Ok(rel) = disk.strip_prefix(&project.root) else {
        return true;
    };
    let mut at = project.root.clone();
    let parts: Vec<_> = rel.components().collect();
    parts.iter().enumerate().any(|(n, part)| {
        at.push(part);
        project.is_hidden(&at, n + 1 < parts.len())
    })
}

/// Whether the top-level folder `rel` (relative to a code root) starts in is shown: a
/// folder holding Python, and not the `src` folder or a test folder itself.
fn top_folder_shown(project: &Project, rel: &Path) -> bool {
    let mut parts = rel.components();
    let (Some(first), Some(_)) = (parts.next(), parts.next()) else {
        return true;
    };
    let Some(root) = project.code_roots.iter().find(|r| r.join(rel).exists()) else {
        return false;
    };
    let top = root.join(first);
    has_python(&top) && !project.code_roots.contains(&top) && !project.is_test_dir(&top)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn project_files_have_their_source_place_and_others_none() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for (file, text) in [
            ("src/ledger/__init__.py", ""),
            ("src/ledger/money.py", "X = 1\n"),
            ("src/ledger/rates.csv", "a,b\n"),
            ("tests/test_money.py", "def test(): pass\n"),
            ("README.md", "# ledger\n"),
            ("notes/plan.txt", "later\n"),
        ] {
            std::fs::create_dir_all(root.join(file).parent().unwrap()).unwrap();
            std::fs::write(root.join(file), text).unwrap();
        }
        let places = SourcePlaces::of(root);
        let place = |f: &str| places.place(f);
        assert_eq!(
            place("src/ledger/money.py").as_deref(),
            Some("source/ledger/money.py")
        );
        let absolute = root.canonicalize().unwrap().join("src/ledger/rates.csv");
        assert_eq!(
            place(absolute.to_str().unwrap()).as_deref(),
            Some("source/ledger/rates.csv")
        );
        assert_eq!(
            place("tests/test_money.py").as_deref(),
            Some("source/tests/test_money.py")
        );
        assert_eq!(place("README.md"), None, "a document beside the code");
        assert_eq!(place("notes/plan.txt"), None, "a folder without Python");
        assert_eq!(place("src/ledger/gone.py"), None, "a file no longer there");
        assert_eq!(place("/etc/passwd"), None, "outside the project");
        assert_eq!(place("../outside.py"), None);
    }
}
