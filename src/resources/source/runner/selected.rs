//! Tests named as the mount shows them, turned into what pytest takes: a path under
//! `source/` or its absolute path under the mountpoint, `tests/test_x.py` where the test
//! folder is `test/` on disk (`source/tests/` shows it so), a test's own file
//! (`tests/test_x/test_a.py` is `test/test_x.py::test_a`) and the dotted names the run's
//! views give (`tests.test_x.TestA.test_b[1]`). A path of the project's own is pytest's
//! and stays as it is.

use std::path::Path;

use crate::resources::source::places::paths::Resolved;
use crate::resources::source::runner::Runner;

impl Runner {
    /// The test path or id pytest takes for `word`, when `word` names a test as the
    /// mount shows it and differs from it; `None` leaves `word` to pytest as it stands.
    pub(super) fn in_project(&self, word: &str) -> Option<String> {
        let (path, node) = match word.split_once("::") {
            Some((path, node)) => (path, Some(node)),
            None => (word, None),
        };
        let root = &self.project.root;
        if path.is_empty() || (!path.starts_with('/') && root.join(path).exists()) {
            return None;
        }
        // `/mnt/hs/source/…` under the mountpoint, not `/mnt/hssource/…`.
        let under_mount = path
            .strip_prefix(self.links.mountpoint())
            .and_then(|rest| rest.strip_prefix('/'));
        let path = path.trim_start_matches("./");
        let in_source = match under_mount {
            Some(rest) => rest.strip_prefix("source/")?,
            None if path.starts_with('/') => return None,
            None => path.strip_prefix("source/").unwrap_or(path),
        };
        // `tests.test_x.test_a[1]`: a parametrized test's id keeps its brackets.
        let (in_source, params) = match (node, in_source.find('[')) {
            (None, Some(at)) if in_source.ends_with(']') => in_source.split_at(at),
            _ => (in_source, ""),
        };
        // A dotted name is a `.py` of source/ (`tests.test_x.test_a.py`); a bare name that
        // is none may still be a folder (`tests`).
        let dotted = !in_source.contains('/') && !in_source.ends_with(".py") && node.is_none();
        let as_dotted = dotted.then(|| format!("{in_source}.py"));
        let place = as_dotted
            .iter()
            .map(String::as_str)
            .chain([in_source])
            .find_map(|spelled| {
                let names: Vec<&str> = spelled.split('/').filter(|n| !n.is_empty()).collect();
                self.places.resolve(None, &names).ok()
            })?;
        let (file, within) = match place {
            // Given its `__init__.py`, pytest (8 and later) collects that file alone: a
            // package's dotted name (`tests.unit`) means its folder.
            Resolved::ModuleFile { disk, .. } if disk.ends_with("__init__.py") => {
                (disk.parent()?.to_path_buf(), None)
            }
            Resolved::ModuleFile { disk, .. }
            | Resolved::DataFile { disk }
            | Resolved::Dir { disk, .. } => (disk, None),
            Resolved::Members {
                disk,
                module,
                parent,
                ..
            } => {
                let class = parent.and_then(|i| module.index.symbols.get(i));
                (disk, class.map(|c| c.qualname.join("::")))
            }
            Resolved::Symbol {
                disk,
                module,
                symbol,
                ..
            } => {
                let qualname = &module.index.symbols.get(symbol)?.qualname;
                (disk, Some(qualname.join("::")))
            }
            Resolved::Root | Resolved::TestsRoot => return None,
        };
        let mut id = relative(&file, root)?;
        for part in within.iter().map(String::as_str).chain(node) {
            id.push_str("::");
            id.push_str(part);
        }
        id.push_str(params);
        (id != word).then_some(id)
    }
}

/// `file` from the project's folder, as pytest takes paths: a name that would read as an
/// option (`-x`) or as a file of arguments (`@args`) starts with `./`.
fn relative(file: &Path, root: &Path) -> Option<String> {
    let path = file.strip_prefix(root).ok()?.to_str()?;
    Some(match path.starts_with(['-', '@']) {
        true => format!("./{path}"),
        false => path.to_string(),
    })
}
