//! Which modules an edit may break by removing or renaming a top-level name: those whose
//! text names it together with the edited module's own name (`from packaging.utils import
//! canonicalize_name`, `from .utils import …`, `utils.canonicalize_name`). A generous guess
//! by text, not an import graph: every guess is imported before and after the edit and
//! judged by the difference (`import_judge.rs`), so a module that does not really import the name
//! costs two forks and is never refused.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::python::{ModuleIndex, index_module};
use crate::resources::source::edit::Editor;

/// At most this many modules are checked after one edit, the first in path order: the
/// check must stay a matter of milliseconds.
const MAX_IMPORTERS: usize = 20;

/// The top-level classes and functions of `before` that `after` no longer defines.
pub(crate) fn removed_names(before: &ModuleIndex, after: &str) -> BTreeSet<String> {
    let top = |index: &ModuleIndex| -> BTreeSet<String> {
        index
            .symbols
            .iter()
            .filter(|s| s.parent.is_none())
            .filter_map(|s| s.qualname.first().cloned())
            .collect()
    };
    let kept = top(&index_module(after));
    top(before).difference(&kept).cloned().collect()
}

impl Editor {
    /// The dotted names of the modules that may import one of `names` from module
    /// `dotted` (at `file`), besides it.
    pub(crate) fn importers_of(
        &self,
        dotted: &str,
        file: &Path,
        names: &BTreeSet<String>,
    ) -> Vec<String> {
        if names.is_empty() {
            return Vec::new();
        }
        let own = dotted.rsplit('.').next().unwrap_or(dotted);
        let roots = self.import_roots();
        let mut found = Vec::new();
        for path in self.project.python_files() {
            if path == file || found.len() >= MAX_IMPORTERS {
                continue;
            }
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            let named = |word: &str| has_word(&text, word);
            if text.contains("import") && named(own) && names.iter().any(|n| named(n)) {
                found.extend(dotted_in(&roots, &path));
            }
        }
        found
    }

    /// Whether `dotted` names a script rather than a module of the project: a file in a
    /// folder at the project's top that is no package and no test folder (`scripts/`,
    /// `docs/`, `benchmarks/`). Importing it may run it, so its edits are checked by the
    /// parser alone. (A namespace package at the top of a flat layout is taken for such a
    /// folder too; in `src/` every folder is code.)
    pub(crate) fn is_script(&self, dotted: &str) -> bool {
        let Some((top, _)) = dotted.split_once('.') else {
            return false;
        };
        let folder = self.project.root.join(top);
        folder.is_dir()
            && !folder.join("__init__.py").is_file()
            && self.project.beside_the_code(&folder)
    }

    /// The dotted name Python imports `file` by: from the code root it is under (`src/`),
    /// from a test folder that is no package (where pytest imports its modules by their
    /// own names, the folder on sys.path), else from the project's root.
    pub(crate) fn dotted_of_file(&self, file: &Path) -> Option<String> {
        dotted_in(&self.import_roots(), file)
    }

    /// The folders modules are imported from, the deepest first (see
    /// [`Editor::dotted_of_file`]); found once for many files, since finding the test
    /// folders' bases walks them.
    fn import_roots(&self) -> Vec<PathBuf> {
        let mut roots = self.project.code_roots.clone();
        roots.push(self.project.root.clone());
        roots.extend(self.project.test_import_bases());
        roots.sort_by_key(|r| std::cmp::Reverse(r.components().count()));
        roots
    }
}

/// `file`'s dotted name from the first of `roots` it is under.
fn dotted_in(roots: &[PathBuf], file: &Path) -> Option<String> {
    let rel = roots.iter().find_map(|root| file.strip_prefix(root).ok())?;
    let mut parts: Vec<String> = rel
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|p| p == "__init__") {
        parts.pop();
    }
    (!parts.is_empty()).then(|| parts.join("."))
}

/// Whether `word` occurs in `text` as a whole identifier.
fn has_word(text: &str, word: &str) -> bool {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(word).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        !before.is_some_and(ident) && !after.is_some_and(ident)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_a_rename_or_removal_takes_away() {
        let before =
            index_module("def a():\n    pass\n\n\nclass B:\n    def c(self):\n        pass\n");
        assert_eq!(
            removed_names(&before, "def a2():\n    pass\n\n\nclass B:\n    pass\n"),
            BTreeSet::from(["a".to_string()])
        );
        assert!(
            removed_names(&before, "def a():\n    return 1\n\n\nclass B:\n    pass\n").is_empty()
        );
    }

    #[test]
    fn words_are_whole_identifiers() {
        assert!(has_word("from .utils import canonicalize_name", "utils"));
        assert!(has_word(
            "x = utils.canonicalize_name(y)",
            "canonicalize_name"
        ));
        assert!(!has_word("canonicalize_names", "canonicalize_name"));
        assert!(!has_word("my_utils", "utils"));
    }
}
