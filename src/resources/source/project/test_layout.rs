//! Where the project's tests are: pytest's `testpaths`, `tests/` and `test/`, with the
//! pytest configuration that says which files it collects; found again when what it was
//! found from changes.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use super::{Project, modified};
use crate::python::DottedName;
use crate::resources::source::pytest_config::{CONFIG_FILES, PytestConfig};

/// Where the tests are, and the (file or folder, modification time) pairs it depends on.
#[derive(Debug)]
pub(super) struct TestLayout {
    stamps: Vec<(PathBuf, Option<SystemTime>)>,
    dirs: Vec<PathBuf>,
    config: PytestConfig,
}

/// How long the test layout is taken as it is without a look at its files: every request
/// walks from source/'s top, which asks for the layout, and a look is ~6 stats. The
/// watcher forgets the layout at once when a folder comes or goes.
const LAYOUT_FRESH: Duration = Duration::from_millis(100);

impl Project {
    /// The test folders, shown under `tests/`: pytest's `testpaths` wherever pytest reads
    /// them, `tests/` and `test/`. Tests that pytest finds elsewhere (`toolz/tests/` inside
    /// the package) stay with their package and run from `source/tests/run` all the same.
    /// Found again when pytest's configuration, the project's top folder or a code root
    /// changes, or when the watcher says a folder came or went ([`Project::forget_layout`]).
    pub fn test_dirs(&self) -> Vec<PathBuf> {
        self.test_layout().dirs.clone()
    }

    /// Whether pytest's discovery collects `file`: its name is one of `python_files` and
    /// no folder on its way from the root is one of `norecursedirs`.
    pub fn pytest_collects(&self, file: &Path) -> bool {
        let layout = self.test_layout();
        let config = &layout.config;
        let Ok(rel) = file.strip_prefix(&self.root) else {
            return false;
        };
        let names: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        match names.split_last() {
            Some((name, dirs)) => {
                config.is_test_module(name) && !dirs.iter().any(|d| config.skips_dir(d))
            }
            None => false,
        }
    }

    /// The folders holding the modules pytest collects, by path from the project's
    /// folder, each once in the order found: where a project without a test folder at its
    /// top keeps its tests (`toolz/tests/`).
    pub fn test_module_folders(&self) -> Vec<PathBuf> {
        let mut homes: Vec<PathBuf> = Vec::new();
        for file in self.python_files() {
            if !self.pytest_collects(&file) {
                continue;
            }
            if let Some(dir) = file.parent().and_then(|d| d.strip_prefix(&self.root).ok())
                && !homes.iter().any(|h| h == dir)
            {
                homes.push(dir.to_path_buf());
            }
        }
        homes
    }

    /// How a folder of [`Project::test_module_folders`] is named to a reader: `toolz/tests/`,
    /// or the project's top folder, whose path from itself is empty.
    pub fn test_home_label(home: &Path) -> String {
        match home.as_os_str().is_empty() {
            true => "the project's top folder".to_string(),
            false => format!("{}/", home.display()),
        }
    }

    /// The folders pytest puts on `sys.path` for the test folders' modules, as its default
    /// `prepend` import mode does: for each folder holding a test module or a conftest.py,
    /// the first folder upward without an `__init__.py` (`tests/`, and `tests/unit/` when
    /// it is no package either), where those modules import each other by their own names
    /// (`from common import x`). Each once, in the order found.
    pub fn test_import_bases(&self) -> Vec<PathBuf> {
        let mut bases: Vec<PathBuf> = Vec::new();
        let mut stack = self.test_dirs();
        while let Some(dir) = stack.pop() {
            let mut holds_tests = false;
            for entry in self.list_dir(None, &dir).unwrap_or_default() {
                match entry.kind {
                    super::EntryKind::Dir => stack.push(entry.path),
                    super::EntryKind::Module => {
                        holds_tests |=
                            entry.name == "conftest.py" || self.pytest_collects(&entry.path);
                    }
                    super::EntryKind::Data => {}
                }
            }
            if !holds_tests {
                continue;
            }
            let mut base = dir.as_path();
            while base.join("__init__.py").is_file() {
                match base.parent() {
                    Some(parent) if parent.starts_with(&self.root) => base = parent,
                    _ => break,
                }
            }
            if !bases.iter().any(|b| b == base) {
                bases.push(base.to_path_buf());
            }
        }
        bases
    }

    /// Whether `file` holds tests rather than the code under test.
    pub(crate) fn is_test_file(&self, file: &Path) -> bool {
        let name = file
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        self.test_dirs().iter().any(|d| file.starts_with(d))
            || self.is_test_module(&name)
            || name == "conftest.py"
    }

    /// Whether `name` is a test module's file name for pytest (`python_files`).
    pub fn is_test_module(&self, name: &str) -> bool {
        self.test_layout().config.is_test_module(name)
    }

    /// The test layout, shared: `checked` in the cache is when its stamps were last
    /// compared with the disk.
    fn test_layout(&self) -> Arc<TestLayout> {
        let mut cached = crate::tree::lock(&self.tests);
        if let Some((layout, checked)) = cached.as_mut() {
            if checked.elapsed() < LAYOUT_FRESH {
                return Arc::clone(layout);
            }
            if layout
                .stamps
                .iter()
                .all(|(path, mtime)| modified(path) == *mtime)
            {
                *checked = Instant::now();
                return Arc::clone(layout);
            }
        }
        let mut stamps: Vec<(PathBuf, Option<SystemTime>)> = CONFIG_FILES
            .iter()
            .map(|name| self.root.join(name))
            .chain(self.code_roots.iter().cloned())
            .map(|path| {
                let mtime = modified(&path);
                (path, mtime)
            })
            .collect();
        stamps.push((self.root.clone(), modified(&self.root)));
        let config = PytestConfig::read(&self.root);
        let layout = Arc::new(TestLayout {
            stamps,
            dirs: self.find_test_dirs(&config),
            config,
        });
        *cached = Some((Arc::clone(&layout), Instant::now()));
        layout
    }

    /// The dotted name pytest gives test folder `dir` in its modules' names: its path from
    /// the code root that holds it (`toolz.tests` for `toolz/tests/`, `testing` for a
    /// `testing/` at the top).
    pub fn dotted_of_test_dir(&self, dir: &Path) -> DottedName {
        let rel = self
            .code_roots
            .iter()
            .filter_map(|r| dir.strip_prefix(r).ok())
            .min_by_key(|p| p.components().count())
            .unwrap_or(dir);
        DottedName::of(
            rel.components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect(),
        )
    }

    /// Find the test folders again at the next look: a folder was added or removed, or a
    /// configuration file changed (`.gitignore` among them, read again here).
    pub fn forget_layout(&self) {
        self.reload_gitignore();
        self.forget_changed_nested_ignores();
        *crate::tree::lock(&self.tests) = None;
        *crate::tree::lock(&self.top) = None;
        self.listed.forget();
    }

    fn find_test_dirs(&self, config: &PytestConfig) -> Vec<PathBuf> {
        let root = &self.root;
        let mut test_dirs: Vec<PathBuf> = config
            .testpaths
            .iter()
            .map(|p| root.join(p))
            .filter(|p| p.is_dir())
            .collect();
        for name in ["tests", "test"] {
            let dir = root.join(name);
            if dir.is_dir() && !test_dirs.contains(&dir) {
                test_dirs.push(dir);
            }
        }
        test_dirs.retain(|d| d.canonicalize().is_ok_and(|c| c.starts_with(root)));
        test_dirs
    }

    /// Whether `dir` is one of the test folders (shown under `tests/`, not with the code).
    pub fn is_test_dir(&self, dir: &Path) -> bool {
        self.test_dirs().iter().any(|t| t == dir)
    }
}
