//! The Python project on disk: where its packages are (the top of the project or `src/`),
//! which folders hold its tests, and which directory entries are worth showing. Honours
//! `.gitignore`; always skips `.git`, virtualenvs, `__pycache__`, build output and
//! `.homespace`; never follows a symlink that leads outside the project. Nothing is read
//! up front beyond the layout: directories are listed when asked.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use ignore::gitignore::{Gitignore, GitignoreBuilder};

use crate::resources::source::pytest_config::{CONFIG_FILES, PytestConfig};

/// Directory names never shown, whatever `.gitignore` says.
const SKIPPED_DIRS: &[&str] = &[
    ".git",
    ".hg",
    ".svn",
    ".homespace",
    "__pycache__",
    ".venv",
    "venv",
    ".tox",
    ".nox",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    "build",
    "dist",
    "node_modules",
    "site-packages",
    "dist-packages",
];

/// What a directory entry of the project is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    /// A directory (a package, a namespace package, or a data folder).
    Dir,
    /// A `.py` file.
    Module,
    /// Any other file (templates, data): shown in place, exact.
    Data,
}

/// One shown entry of a project directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiskEntry {
    pub name: String,
    pub kind: EntryKind,
    pub path: PathBuf,
}

/// The layout of one project.
#[derive(Debug)]
pub struct Project {
    /// The project directory, canonical.
    pub root: PathBuf,
    /// Where top-level packages and modules live: `src/` for a src layout, else the root.
    pub code_roots: Vec<PathBuf>,
    /// Where the tests are, as last found.
    tests: Mutex<Option<(Arc<TestLayout>, Instant)>>,
    ignore: Gitignore,
    /// More paths to leave out: `project.ignore` of `source/meta/settings.toml`.
    extra: std::sync::RwLock<Gitignore>,
    /// The top-level entries and the folder modification times they were computed at.
    top: Mutex<Option<TopLevel>>,
    /// Folders listed, each with its modification time when listed: a listing holds until
    /// an entry comes, goes or is renamed (which moves the folder's time). Every
    /// `_nav.txt` lists the folders on its way from the top, so the same few are asked
    /// for again and again.
    listed: Mutex<HashMap<PathBuf, Listed>>,
    /// How many times `extra` was set: what was listed before is to be listed again.
    ignore_generation: std::sync::atomic::AtomicU64,
}

/// A folder's shown entries, the folder's modification time when they were read, and the
/// glance (see [`crate::tree::glance`]) that last found that time unchanged.
type Listed = (Option<SystemTime>, Arc<Vec<DiskEntry>>, u64);

/// Folders whose listings are kept at once; past it the keeping starts afresh.
const LISTED_MOST: usize = 4096;

/// How long after its folder last changed a listing is kept: longer than the coarsest
/// clock tick a file system stamps times with.
const LISTING_SETTLED: Duration = Duration::from_millis(50);

/// The top-level entries and the (folder, modification time) pairs they depend on.
type TopLevel = (Vec<(PathBuf, Option<SystemTime>)>, Vec<DiskEntry>);

/// Where the tests are, and the (file or folder, modification time) pairs it depends on.
#[derive(Debug)]
struct TestLayout {
    stamps: Vec<(PathBuf, Option<SystemTime>)>,
    dirs: Vec<PathBuf>,
    config: PytestConfig,
}

/// How long the test layout is taken as it is without a look at its files: every request
/// walks from source/'s top, which asks for the layout, and a look is ~6 stats. The
/// watcher forgets the layout at once when a folder comes or goes.
const LAYOUT_FRESH: Duration = Duration::from_millis(100);

fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

impl Project {
    /// Read the layout of the project at `root` (canonical).
    pub fn open(root: &Path) -> Project {
        let mut builder = GitignoreBuilder::new(root);
        // A malformed .gitignore line is skipped by the builder; the rest still applies.
        let _ = builder.add(root.join(".gitignore"));
        let _ = builder.add(root.join(".git").join("info").join("exclude"));
        let ignore = builder.build().unwrap_or_else(|_| Gitignore::empty());
        let src = root.join("src");
        let mut code_roots = Vec::new();
        // `src` may be a symlink: only a folder that really lies inside the project counts.
        let src_inside = src
            .canonicalize()
            .is_ok_and(|c| c.starts_with(root) && c != root);
        if src_inside && src.is_dir() && has_python(&src) {
            code_roots.push(src);
        }
        code_roots.push(root.to_path_buf());
        Project {
            root: root.to_path_buf(),
            code_roots,
            tests: Mutex::new(None),
            ignore,
            extra: std::sync::RwLock::new(Gitignore::empty()),
            top: Mutex::new(None),
            listed: Mutex::new(HashMap::new()),
            ignore_generation: std::sync::atomic::AtomicU64::new(0),
        }
    }

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
    pub fn dotted_of_test_dir(&self, dir: &Path) -> String {
        let rel = self
            .code_roots
            .iter()
            .filter_map(|r| dir.strip_prefix(r).ok())
            .min_by_key(|p| p.components().count())
            .unwrap_or(dir);
        let names: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        names.join(".")
    }

    /// Find the test folders again at the next look: a folder was added or removed.
    pub fn forget_layout(&self) {
        *crate::tree::lock(&self.tests) = None;
        *crate::tree::lock(&self.top) = None;
        crate::tree::lock(&self.listed).clear();
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

    /// Leave out what `patterns` (.gitignore lines) match, from now on, on top of
    /// .gitignore; an invalid pattern changes nothing and is named.
    pub fn set_extra_ignore(&self, patterns: &IgnoreLines) -> std::result::Result<(), String> {
        let extra = patterns.matcher(&self.root)?;
        if let Ok(mut slot) = self.extra.write() {
            *slot = extra;
        }
        self.ignore_generation
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        // The top-level entries and listings were computed with the old patterns.
        if let Ok(mut top) = self.top.lock() {
            *top = None;
        }
        crate::tree::lock(&self.listed).clear();
        Ok(())
    }

    /// Changes each time the ignore settings do (see [`Project::set_extra_ignore`]).
    pub fn ignore_generation(&self) -> u64 {
        self.ignore_generation
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Whether `path` (inside the project) is hidden from the tree.
    pub fn is_hidden(&self, path: &Path, is_dir: bool) -> bool {
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            // Names that are not UTF-8 cannot be shown as files of the mount.
            return true;
        };
        if name.starts_with('.') {
            return true;
        }
        if is_dir
            && (SKIPPED_DIRS.contains(&name)
                || name.ends_with(".egg-info")
                || path.join("pyvenv.cfg").exists())
        {
            return true;
        }
        if !is_dir && (name.ends_with(".pyc") || name.ends_with(".pyo")) {
            return true;
        }
        match path.strip_prefix(&self.root) {
            Ok(rel) => {
                self.ignore
                    .matched_path_or_any_parents(rel, is_dir)
                    .is_ignore()
                    || self.extra.read().is_ok_and(|extra| {
                        extra.matched_path_or_any_parents(rel, is_dir).is_ignore()
                    })
            }
            Err(_) => true,
        }
    }

    /// The shown entries of directory `dir`, sorted by name (directories and files mixed,
    /// as `ls` does). Symlinks are followed only when they stay inside the project.
    pub fn list_dir(&self, dir: &Path) -> std::io::Result<Vec<DiskEntry>> {
        self.listing(dir).map(|entries| entries.as_ref().clone())
    }

    /// What shows as `name` in directory `dir`: its kind, or `None` when nothing does
    /// (absent, hidden, outside the project). From the folder's kept listing: resolving a
    /// path then costs one stat per folder on the way, not a look at each entry.
    pub fn shown_kind(&self, dir: &Path, name: &str) -> Option<EntryKind> {
        kind_in(&self.listing(dir).ok()?, name)
    }

    /// What shows as each of `names` in directory `dir` (see [`Project::shown_kind`]),
    /// from one look at the folder.
    pub fn shown_kinds<const N: usize>(
        &self,
        dir: &Path,
        names: [&str; N],
    ) -> [Option<EntryKind>; N] {
        match self.listing(dir) {
            Ok(entries) => names.map(|name| kind_in(&entries, name)),
            Err(_) => [None; N],
        }
    }

    /// [`Project::list_dir`], shared. A listing read while its folder's time was still
    /// moving is not kept: an entry made in the same clock tick would leave the time as
    /// it was and the listing would miss it.
    fn listing(&self, dir: &Path) -> std::io::Result<Arc<Vec<DiskEntry>>> {
        let glance = crate::tree::glance::current();
        if let Some(id) = glance
            && let Some((_, entries, looked)) = crate::tree::lock(&self.listed).get(dir)
            && *looked == id
        {
            return Ok(Arc::clone(entries));
        }
        let mtime = modified(dir);
        if let Some((seen, entries, looked)) = crate::tree::lock(&self.listed).get_mut(dir)
            && mtime.is_some()
            && *seen == mtime
        {
            *looked = glance.unwrap_or(0);
            return Ok(Arc::clone(entries));
        }
        let entries = Arc::new(self.read_dir_shown(dir)?);
        let settled = mtime
            .and_then(|m| SystemTime::now().duration_since(m).ok())
            .is_some_and(|age| age > LISTING_SETTLED);
        if settled {
            let mut listed = crate::tree::lock(&self.listed);
            if listed.len() >= LISTED_MOST {
                listed.clear();
            }
            let looked = glance.unwrap_or(0);
            listed.insert(dir.to_path_buf(), (mtime, Arc::clone(&entries), looked));
        }
        Ok(entries)
    }

    /// [`Project::list_dir`] read from the disk.
    fn read_dir_shown(&self, dir: &Path) -> std::io::Result<Vec<DiskEntry>> {
        let mut entries = Vec::new();
        for item in std::fs::read_dir(dir)? {
            let Ok(item) = item else { continue };
            let path = item.path();
            let Some(name) = item.file_name().to_str().map(str::to_string) else {
                continue;
            };
            // The directory entry's own type costs no system call; only a symlink (or a
            // file system that does not say) needs a look at what it leads to.
            let is_dir = match item.file_type() {
                Ok(kind) if kind.is_dir() => true,
                Ok(kind) if kind.is_file() => false,
                _ => match self.kind_inside(&path) {
                    Some(is_dir) => is_dir,
                    None => continue,
                },
            };
            if self.is_hidden(&path, is_dir) {
                continue;
            }
            let kind = if is_dir {
                EntryKind::Dir
            } else if name.ends_with(".py") {
                EntryKind::Module
            } else {
                EntryKind::Data
            };
            entries.push(DiskEntry { name, kind, path });
        }
        entries.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(entries)
    }

    /// `Some(is_dir)` for a file or directory that is inside the project (after following
    /// symlinks), `None` for anything else (outside, dangling, special files).
    pub fn kind_inside(&self, path: &Path) -> Option<bool> {
        let meta = std::fs::symlink_metadata(path).ok()?;
        let meta = if meta.file_type().is_symlink() {
            let target = path.canonicalize().ok()?;
            let target_meta = std::fs::metadata(&target).ok()?;
            if !self.shown_inside(&target, target_meta.is_dir()) {
                return None;
            }
            target_meta
        } else {
            meta
        };
        if meta.is_dir() {
            Some(true)
        } else if meta.is_file() {
            Some(false)
        } else {
            None
        }
    }

    /// Whether the canonical `target` of a symlink lies inside the project and nowhere
    /// hidden on the way (a link to `.git/` or `.homespace/` must not expose them).
    fn shown_inside(&self, target: &Path, is_dir: bool) -> bool {
        let Ok(rel) = target.strip_prefix(&self.root) else {
            return false;
        };
        let mut at = self.root.clone();
        let parts: Vec<_> = rel.components().collect();
        parts.iter().enumerate().all(|(n, part)| {
            at.push(part);
            let last = n + 1 == parts.len();
            !self.is_hidden(&at, !last || is_dir)
        })
    }

    /// Whether `dir` is one of the test folders (shown under `tests/`, not with the code).
    pub fn is_test_dir(&self, dir: &Path) -> bool {
        self.test_dirs().iter().any(|t| t == dir)
    }

    /// Whether the folder `dir`, right in the code root `root`, is one of the project's
    /// packages as setuptools and pytest would take it: in a src layout, beside `src/` only
    /// a regular package (with an `__init__.py`), since `docs/` or `scripts/` there hold
    /// no package of the project; elsewhere any folder holding Python, a namespace package
    /// of a flat layout included.
    pub fn is_package_at_top(&self, root: &Path, dir: &Path) -> bool {
        let beside_src = self.code_roots.len() > 1 && root == self.root;
        // A regular package answers from its kept listing (a stat, or nothing within a
        // glance); only the others need their folder searched for Python (every request
        // under source/ walks its first name through here).
        let regular = self.shown_kind(dir, "__init__.py").is_some();
        regular || (!beside_src && self.holds_python(dir))
    }

    /// Whether `dir` shows Python code, directly or one folder down (see [`has_python`]),
    /// from kept listings: every folder's view labels the folders in it so.
    pub fn holds_python(&self, dir: &Path) -> bool {
        let Ok(entries) = self.listing(dir) else {
            return false;
        };
        let module = |entries: &[DiskEntry]| entries.iter().any(|e| e.kind == EntryKind::Module);
        module(&entries)
            || entries
                .iter()
                .filter(|e| e.kind == EntryKind::Dir)
                .any(|e| self.listing(&e.path).is_ok_and(|inner| module(&inner)))
    }

    /// What folder `dir` is: a package, a namespace package or a plain folder.
    pub fn dir_kind(&self, dir: &Path) -> DirKind {
        if self.shown_kind(dir, "__init__.py").is_some() {
            DirKind::Package
        } else if self.holds_python(dir) {
            DirKind::Namespace
        } else {
            DirKind::Folder
        }
    }

    /// The shown top-level entries: every code root's packages and modules, minus test
    /// folders and the `src` folder itself (files like README.md or pyproject.toml are not
    /// code; pyproject's tables have their own place). Cached until the modification time
    /// of a code root or of one of the folders it holds changes, since deciding which
    /// folders hold Python reads every one of them.
    pub fn top_level(&self) -> Vec<DiskEntry> {
        let mut cached = crate::tree::lock(&self.top);
        if let Some((stamps, entries)) = cached.as_ref()
            && stamps.iter().all(|(path, mtime)| modified(path) == *mtime)
        {
            return entries.clone();
        }
        let mut seen = std::collections::BTreeMap::new();
        let mut stamps: Vec<(PathBuf, Option<SystemTime>)> = Vec::new();
        for root in &self.code_roots {
            stamps.push((root.clone(), modified(root)));
            for entry in self.list_dir(root).unwrap_or_default() {
                if entry.kind == EntryKind::Dir {
                    stamps.push((entry.path.clone(), modified(&entry.path)));
                }
                let skip = self.is_test_dir(&entry.path)
                    || (entry.kind == EntryKind::Dir && self.code_roots.contains(&entry.path))
                    || entry.kind == EntryKind::Data
                    || (entry.kind == EntryKind::Dir && !self.is_package_at_top(root, &entry.path));
                if !skip {
                    seen.entry(entry.name.clone()).or_insert(entry);
                }
            }
        }
        let entries: Vec<DiskEntry> = seen.into_values().collect();
        *cached = Some((stamps, entries.clone()));
        entries
    }

    /// Every `.py` file of the code and the tests, in a stable order (for search).
    pub fn python_files(&self) -> Vec<PathBuf> {
        let mut files = Vec::new();
        let mut stack: Vec<PathBuf> = Vec::new();
        for entry in self.top_level() {
            match entry.kind {
                EntryKind::Module => files.push(entry.path),
                EntryKind::Dir => stack.push(entry.path),
                EntryKind::Data => {}
            }
        }
        stack.extend(self.test_dirs());
        while let Some(dir) = stack.pop() {
            for entry in self.list_dir(&dir).unwrap_or_default() {
                match entry.kind {
                    EntryKind::Module => files.push(entry.path),
                    EntryKind::Dir => stack.push(entry.path),
                    EntryKind::Data => {}
                }
            }
        }
        files.sort();
        files
    }

    /// Every shown file of the project that is not Python — pyproject.toml, README, docs,
    /// configs, package data — up to [`LARGEST_TEXT`] bytes, in a stable order (for search,
    /// which skips the binary ones as it reads them). The same ignore rules as the tree.
    pub fn text_files(&self) -> Vec<PathBuf> {
        let mut files = Vec::new();
        let mut stack = vec![self.root.clone()];
        while let Some(dir) = stack.pop() {
            for entry in self.list_dir(&dir).unwrap_or_default() {
                match entry.kind {
                    EntryKind::Dir => stack.push(entry.path),
                    EntryKind::Module => {}
                    EntryKind::Data => {
                        let small =
                            std::fs::metadata(&entry.path).is_ok_and(|m| m.len() <= LARGEST_TEXT);
                        if small {
                            files.push(entry.path);
                        }
                    }
                }
            }
        }
        files.sort();
        files
    }
}

/// The largest non-Python file search reads: past this, a file is data, not text to grep.
pub const LARGEST_TEXT: u64 = 1 << 20;

/// More paths to leave out, as .gitignore lines, on top of the project's .gitignore.
/// Shown (`{:?}`) as the list of lines, as the settings file writes it.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct IgnoreLines(Vec<String>);

impl std::fmt::Debug for IgnoreLines {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl IgnoreLines {
    pub fn new(lines: Vec<String>) -> Self {
        IgnoreLines(lines)
    }

    /// A matcher of these lines relative to `root`, or the invalid ones named.
    pub fn matcher(&self, root: &Path) -> std::result::Result<Gitignore, String> {
        let mut builder = GitignoreBuilder::new(root);
        let mut bad = Vec::new();
        for pattern in &self.0 {
            if let Err(e) = builder.add_line(None, pattern) {
                bad.push(format!("`{pattern}`: {e}"));
            }
        }
        if !bad.is_empty() {
            return Err(bad.join("; "));
        }
        builder.build().map_err(|e| e.to_string())
    }
}

/// What a project folder is to Python, said the same way in every view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DirKind {
    /// Has `__init__.py`.
    Package,
    /// No `__init__.py`, but Python modules in it or one level down (PEP 420).
    Namespace,
    /// Neither: package data, documents, assets.
    Folder,
}

impl DirKind {
    pub fn label(self) -> &'static str {
        match self {
            DirKind::Package => "package",
            DirKind::Namespace => "namespace package",
            DirKind::Folder => "folder",
        }
    }
}

/// The kind of `name` among `entries` (sorted by name), if it is there.
fn kind_in(entries: &[DiskEntry], name: &str) -> Option<EntryKind> {
    let at = entries
        .binary_search_by(|e| e.name.as_str().cmp(name))
        .ok()?;
    Some(entries[at].kind)
}

/// Whether `dir` holds Python code (directly or one level down), so that a folder of
/// documents or assets at the top of the project is not taken for a package.
pub fn has_python(dir: &Path) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    entries.flatten().any(|e| {
        let path = e.path();
        // The entry's own type costs no stat; only a symlink needs a look at its target.
        let is_dir = e
            .file_type()
            .is_ok_and(|t| t.is_dir() || (t.is_symlink() && path.is_dir()));
        path.extension().is_some_and(|x| x == "py")
            || (is_dir
                && std::fs::read_dir(&path)
                    .map(|mut inner| {
                        inner.any(|f| {
                            f.is_ok_and(|f| f.path().extension().is_some_and(|x| x == "py"))
                        })
                    })
                    .unwrap_or(false))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names_in(project: &Project, dir: &Path) -> Vec<String> {
        project
            .list_dir(dir)
            .unwrap()
            .into_iter()
            .map(|e| e.name)
            .collect()
    }

    fn fixture() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for (path, text) in [
            ("src/pkg/__init__.py", "\"\"\"Pkg.\"\"\"\n"),
            ("src/pkg/mod.py", "def f():\n    pass\n"),
            ("src/pkg/data/t.html", "<p>\n"),
            ("src/pkg/__pycache__/mod.cpython-311.pyc", "x"),
            ("src/pkg/gen.py", "x = 1\n"),
            ("tests/test_mod.py", "def test_f():\n    pass\n"),
            ("docs/index.md", "# docs\n"),
            (".venv/pyvenv.cfg", "home = /usr\n"),
            ("build/lib/pkg/mod.py", ""),
            (".gitignore", "gen.py\n"),
        ] {
            let file = root.join(path);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, text).unwrap();
        }
        dir
    }

    #[test]
    fn src_layout_with_tests_and_ignored_files() {
        let dir = fixture();
        let root = dir.path().canonicalize().unwrap();
        let project = Project::open(&root);
        assert_eq!(project.code_roots[0], root.join("src"));
        assert_eq!(project.test_dirs(), vec![root.join("tests")]);
        let top: Vec<String> = project.top_level().into_iter().map(|e| e.name).collect();
        assert_eq!(
            top,
            vec!["pkg"],
            "docs/ has no Python, build/ and .venv/ are skipped"
        );
        let pkg = names_in(&project, &root.join("src/pkg"));
        assert_eq!(
            pkg,
            vec!["__init__.py", "data", "mod.py"],
            "gen.py is in .gitignore"
        );
        let files = project.python_files();
        assert_eq!(files.len(), 3, "{files:?}");
    }

    #[test]
    fn symlinks_to_hidden_places_or_a_src_outside_are_not_followed() {
        let dir = fixture();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::write(root.join(".git/config"), "[core]\n").unwrap();
        std::os::unix::fs::symlink(root.join(".git"), root.join("src/pkg/gitlink")).unwrap();
        std::os::unix::fs::symlink(root.join(".git/config"), root.join("src/pkg/config.txt"))
            .unwrap();
        let project = Project::open(&root);
        let names = names_in(&project, &root.join("src/pkg"));
        assert!(!names.contains(&"gitlink".to_string()), "{names:?}");
        assert!(!names.contains(&"config.txt".to_string()), "{names:?}");

        let outside = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(outside.path().join("secret")).unwrap();
        std::fs::write(outside.path().join("secret/creds.py"), "KEY = 1\n").unwrap();
        let linked = tempfile::tempdir().unwrap();
        let linked_root = linked.path().canonicalize().unwrap();
        std::os::unix::fs::symlink(outside.path(), linked_root.join("src")).unwrap();
        let project = Project::open(&linked_root);
        assert_eq!(
            project.code_roots,
            vec![linked_root.clone()],
            "a src/ outside is not a code root"
        );
    }

    #[test]
    fn symlinks_out_of_the_project_are_not_followed() {
        let dir = fixture();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.py"), "x = 1\n").unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join("src/pkg/escape")).unwrap();
        std::os::unix::fs::symlink(root.join("src/pkg/mod.py"), root.join("src/pkg/alias.py"))
            .unwrap();
        let project = Project::open(&root);
        let names = names_in(&project, &root.join("src/pkg"));
        assert!(!names.contains(&"escape".to_string()));
        assert!(names.contains(&"alias.py".to_string()), "links inside stay");
    }

    #[test]
    fn an_entry_made_just_after_a_listing_is_found_by_the_next_look() {
        let dir = fixture();
        let root = dir.path().canonicalize().unwrap();
        let project = Project::open(&root);
        let pkg = root.join("src/pkg");
        assert_eq!(project.shown_kind(&pkg, "mod.py"), Some(EntryKind::Module));
        assert_eq!(project.shown_kind(&pkg, "gen.py"), None, "ignored");
        assert_eq!(project.shown_kind(&pkg, "data"), Some(EntryKind::Dir));
        // Made within the same clock tick as the listing could leave the folder's time
        // as it was: the listing of a folder that just changed is not kept.
        std::fs::write(pkg.join("new.py"), "").unwrap();
        assert_eq!(project.shown_kind(&pkg, "new.py"), Some(EntryKind::Module));
        std::fs::write(pkg.join("newer.py"), "").unwrap();
        assert_eq!(
            project.shown_kind(&pkg, "newer.py"),
            Some(EntryKind::Module)
        );
        std::fs::remove_file(pkg.join("newer.py")).unwrap();
        assert_eq!(project.shown_kind(&pkg, "newer.py"), None);
        // Settled, then changed: the folder's new time lists it again.
        std::thread::sleep(LISTING_SETTLED * 2);
        assert_eq!(project.shown_kind(&pkg, "later.py"), None);
        std::fs::write(pkg.join("later.py"), "").unwrap();
        assert_eq!(
            project.shown_kind(&pkg, "later.py"),
            Some(EntryKind::Module)
        );
    }

    #[test]
    fn within_a_glance_a_folder_is_looked_at_once_and_after_it_again() {
        let dir = fixture();
        let root = dir.path().canonicalize().unwrap();
        let project = Project::open(&root);
        let pkg = root.join("src/pkg");
        std::thread::sleep(LISTING_SETTLED * 2);
        let glance = crate::tree::glance::glance();
        assert_eq!(project.shown_kind(&pkg, "mod.py"), Some(EntryKind::Module));
        std::fs::write(pkg.join("during.py"), "").unwrap();
        assert_eq!(
            project.shown_kind(&pkg, "during.py"),
            None,
            "a glance answers as of its first look"
        );
        drop(glance);
        assert_eq!(
            project.shown_kind(&pkg, "during.py"),
            Some(EntryKind::Module),
            "the next request looks again"
        );
    }

    #[test]
    fn a_folders_kind_is_told_by_what_it_shows() {
        let dir = fixture();
        let root = dir.path().canonicalize().unwrap();
        for (path, text) in [
            ("src/pkg/ns/deeper/m.py", ""),
            ("src/pkg/hidden/gen.py", "x = 1\n"),
        ] {
            let file = root.join(path);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, text).unwrap();
        }
        let project = Project::open(&root);
        let pkg = root.join("src/pkg");
        assert_eq!(project.dir_kind(&pkg), DirKind::Package);
        assert_eq!(
            project.dir_kind(&pkg.join("ns")),
            DirKind::Namespace,
            "Python one folder down"
        );
        assert_eq!(project.dir_kind(&pkg.join("data")), DirKind::Folder);
        // Its only module is ignored (gen.py): nothing of it shows, so no package either.
        assert_eq!(project.dir_kind(&pkg.join("hidden")), DirKind::Folder);
    }
}
