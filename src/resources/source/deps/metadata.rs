//! What to advise a project whose pyproject.toml lists no dependencies in `[project]`.
//! Where setuptools keeps the metadata (setup.cfg's `[metadata]`, or setup.py), the
//! dependencies are edited there: a `[project]` table added beside it makes setuptools
//! refuse the build, so that is never advised. A project without any metadata is told to
//! add `[project]`, with the version its sdist's PKG-INFO gives, if any (a version in
//! setup.cfg means its metadata is there).

use std::path::Path;

/// The file holding the project's setuptools metadata, if any: setup.cfg with a
/// `[metadata]` section, else setup.py.
pub(super) fn setuptools_file(root: &Path) -> Option<&'static str> {
    let cfg = std::fs::read_to_string(root.join("setup.cfg")).unwrap_or_default();
    if cfg.lines().any(|line| line.trim() == "[metadata]") {
        return Some("setup.cfg");
    }
    root.join("setup.py").is_file().then_some("setup.py")
}

/// How the project's dependencies come to be managed in `source/deps/`, or where they are
/// edited instead; `name` is the project's name.
pub(super) fn advice(root: &Path, name: &str) -> String {
    match setuptools_file(root) {
        Some(file) => format!(
            "This project's metadata is in {file} (setuptools): edit its dependencies there \
             ({}). Do not add a [project] table to pyproject.toml beside it: setuptools \
             refuses to build a project that declares its metadata in both. To manage them \
             here, move all the metadata to pyproject.toml's [project] first (PEP 621).",
            match file {
                "setup.cfg" =>
                    "`install_requires` under [options], extras under [options.extras_require]",
                _ => "`install_requires=[...]` in its setup() call",
            }
        ),
        None => format!(
            "To manage them here, add to pyproject.toml:\n  [project]\n  name = \"{name}\"\n  \
             version = \"{}\"\n  dependencies = []",
            crate::pyproject::pkg_info::field(root, "Version").unwrap_or_else(|| "0.1.0".into())
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resources::source::testing::project_with;

    fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
        project_with(files).0
    }

    #[test]
    fn setuptools_projects_are_told_where_to_edit_never_to_add_a_project_table() {
        let cfg = project(&[
            (
                "setup.cfg",
                "[metadata]\nname = pyflakes\nversion = 3.2.0\n",
            ),
            ("setup.py", "from setuptools import setup\nsetup()\n"),
        ]);
        let said = advice(cfg.path(), "pyflakes");
        assert!(said.contains("metadata is in setup.cfg"), "{said}");
        assert!(said.contains("install_requires"), "{said}");
        assert!(
            !said.contains("name = "),
            "no [project] table to copy: {said}"
        );
        let py = project(&[("setup.py", "setup(name='x')\n")]);
        assert!(advice(py.path(), "x").contains("metadata is in setup.py"));
    }

    #[test]
    fn a_project_without_metadata_gets_its_sdists_version() {
        let sdist = project(&[(
            "PKG-INFO",
            "Metadata-Version: 2.1\nName: toolz\nVersion: 1.0.0\n",
        )]);
        let said = advice(sdist.path(), "toolz");
        assert!(said.contains("version = \"1.0.0\""), "{said}");
        let bare = project(&[]);
        assert!(advice(bare.path(), "x").contains("version = \"0.1.0\""));
    }
}
