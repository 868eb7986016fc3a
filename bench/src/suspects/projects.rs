//! The real projects the suspects section mutates: pure-Python sdists from PyPI (not this
//! repository's fixtures) whose suites run with pytest alone on the installed Python in a
//! few seconds — boltons (tests call its functions directly), sqlparse (tests go through
//! `parse`/`format`, the lexer and the grouping engine), cachetools (its caches behind
//! decorators) — each copied to a temp dir and made to run here with the smallest change,
//! said below. marshmallow 3.23.1 was left out: its tests import simplejson.

use std::path::{Path, PathBuf};

use homespace_testkit::copy::copy_dir;

/// A project: which sdist, where its package is, what its copy needs to run here.
pub struct Sdist {
    pub name: &'static str,
    pub version: &'static str,
    /// The package's folder in the sdist: `src/cachetools`.
    pub package: &'static str,
    /// The folder `source/` shows the package from: `src` in a src layout, else empty.
    pub code_root: &'static str,
    fixes: &'static [Fix],
}

/// A change to the copy so that its suite runs here as it does for its authors.
enum Fix {
    /// Remove a file.
    Remove(&'static str, &'static str),
    /// Replace text in a file (each `from` must be there).
    Replace(
        &'static str,
        &'static [(&'static str, &'static str)],
        &'static str,
    ),
}

pub const ALL: [Sdist; 3] = [
    Sdist {
        name: "boltons",
        version: "24.1.0",
        package: "boltons",
        code_root: "",
        fixes: &[
            Fix::Replace(
                "tests/conftest.py",
                &[
                    (
                        "def pytest_ignore_collect(path, config):",
                        "def pytest_ignore_collect(collection_path, config):",
                    ),
                    (
                        "filename = path.basename",
                        "filename = collection_path.name",
                    ),
                ],
                "its conftest's hook takes `path`, which pytest 9 no longer passes",
            ),
            Fix::Replace(
                "tests/test_fileutils.py",
                &[(
                    "return [p.lstrip(BOLTONS_PATH) for p in paths]",
                    "return [os.path.relpath(p, BOLTONS_PATH) for p in paths]",
                )],
                "test_iter_find_files strips its folder's path with `lstrip`, a set of \
                 characters: it fails whenever the temp folder's name holds an `f`",
            ),
        ],
    },
    Sdist {
        name: "sqlparse",
        version: "0.5.1",
        package: "sqlparse",
        code_root: "",
        fixes: &[Fix::Remove(
            ".python-version",
            "it names the authors' pyenv virtualenv, which pyenv's python3 would look for",
        )],
    },
    Sdist {
        name: "cachetools",
        version: "5.5.0",
        package: "src/cachetools",
        code_root: "src",
        fixes: &[],
    },
];

impl Sdist {
    pub fn title(&self) -> String {
        format!("{} {}", self.name, self.version)
    }

    /// A fresh copy of the sdist with its fixes, in a new temp dir: the dir, and the
    /// project in it (under the sdist's own folder name: views name the project by it).
    pub fn copy(&self) -> Result<(tempfile::TempDir, PathBuf), String> {
        let unpacked = crate::sdist::unpacked(self.name, self.version)?;
        let dir = tempfile::tempdir().map_err(|e| format!("no temp dir: {e}"))?;
        let project = dir.path().join(format!("{}-{}", self.name, self.version));
        copy_dir(&unpacked, &project)
            .map_err(|e| format!("copy of {}: {e}", unpacked.display()))?;
        for fix in self.fixes {
            fix.apply(&project)?;
        }
        Ok((dir, project))
    }

    /// The package's modules, from the project's folder, sorted.
    pub fn modules(&self, project: &Path) -> Result<Vec<PathBuf>, String> {
        let mut found = Vec::new();
        python_files(project, Path::new(self.package), &mut found)?;
        found.sort();
        Ok(found)
    }

    /// Where `module` (from the project's folder) is under the mount's `source/`.
    pub fn in_source<'a>(&self, module: &'a Path) -> &'a Path {
        module.strip_prefix(self.code_root).unwrap_or(module)
    }
}

impl Fix {
    fn apply(&self, project: &Path) -> Result<(), String> {
        match self {
            Fix::Remove(file, why) => std::fs::remove_file(project.join(file))
                .map_err(|e| format!("removing {file} ({why}): {e}")),
            Fix::Replace(file, changes, why) => {
                let path = project.join(file);
                let mut text = std::fs::read_to_string(&path)
                    .map_err(|e| format!("{}: {e}", path.display()))?;
                for (from, to) in *changes {
                    if !text.contains(from) {
                        return Err(format!("{file} has no {from:?} to change ({why})"));
                    }
                    text = text.replace(from, to);
                }
                std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))
            }
        }
    }
}

/// The `.py` files under `rel` of `project`, recursively, from the project's folder.
fn python_files(project: &Path, rel: &Path, found: &mut Vec<PathBuf>) -> Result<(), String> {
    let dir = project.join(rel);
    let entries = std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in entries {
        let entry = entry.map_err(|e| format!("{}: {e}", dir.display()))?;
        let name = entry.file_name();
        let rel = rel.join(&name);
        let kind = entry
            .file_type()
            .map_err(|e| format!("{}: {e}", rel.display()))?;
        if kind.is_dir() && name != "__pycache__" {
            python_files(project, &rel, found)?;
        } else if kind.is_file() && rel.extension().is_some_and(|e| e == "py") {
            found.push(rel);
        }
    }
    Ok(())
}
