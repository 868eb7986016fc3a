//! The Python project on disk: where its packages are (the top of the project or `src/`),
//! which folders hold its tests, and which directory entries are worth showing. Honours
//! `.gitignore`; always skips `.git`, virtualenvs, `__pycache__`, build output and
//! `.homespace`; never follows a symlink that leads outside the project. Nothing is read
//! up front beyond the layout: directories are listed when asked.
//!
//! Split by concern: `test_layout` finds the tests, `hidden` decides what is left out,
//! and this file lists folders and the project's top.

mod hidden;
mod listings;
mod made_inits;
mod test_layout;
#[cfg(test)]
mod tests;

pub use hidden::IgnoreLines;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use ignore::gitignore::Gitignore;

use crate::tree::glance::Glance;
use test_layout::TestLayout;

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
    ignore: std::sync::RwLock<Gitignore>,
    /// What `.gitignore` and `.git/info/exclude` were when `ignore` was read.
    ignore_read: Mutex<hidden::IgnoreStamp>,
    /// More paths to leave out: `project.ignore` of `source/meta/settings.toml`.
    extra: std::sync::RwLock<Gitignore>,
    /// The top-level entries and the folder modification times they were computed at.
    top: Mutex<Option<TopLevel>>,
    /// Folders listed (see [`listings`]). Every `_nav.txt` lists the folders on its way
    /// from the top, so the same few are asked for again and again.
    listed: listings::Listings,
    /// How many times `extra` was set: what was listed before is to be listed again.
    ignore_generation: std::sync::atomic::AtomicU64,
    /// Each folder below the top asked about, with its own `.gitignore`'s stamp and
    /// rules (see [`hidden`]).
    nested_ignores: Mutex<HashMap<PathBuf, hidden::NestedIgnore>>,
    /// The empty `__init__.py` files `mkdir` made, not shown until written.
    made_inits: made_inits::MadeInits,
}

/// How long after its folder last changed a listing is kept: longer than the coarsest
/// clock tick a file system stamps times with.
const LISTING_SETTLED: Duration = Duration::from_millis(50);

/// The top-level entries and the (folder, modification time) pairs they depend on.
type TopLevel = (Vec<(PathBuf, Option<SystemTime>)>, Vec<DiskEntry>);

fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

impl Project {
    /// Read the layout of the project at `root` (canonical).
    pub fn open(root: &Path) -> Project {
        let ignore = hidden::gitignore(root);
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
        let project = Project {
            root: root.to_path_buf(),
            code_roots,
            tests: Mutex::new(None),
            ignore: std::sync::RwLock::new(ignore),
            ignore_read: Mutex::new([None, None]),
            extra: std::sync::RwLock::new(Gitignore::empty()),
            top: Mutex::new(None),
            listed: Default::default(),
            ignore_generation: std::sync::atomic::AtomicU64::new(0),
            nested_ignores: Mutex::new(HashMap::new()),
            made_inits: Default::default(),
        };
        *crate::tree::lock(&project.ignore_read) = project.ignore_stamp();
        project
    }

    /// The shown entries of directory `dir`, sorted by name (directories and files mixed,
    /// as `ls` does). Symlinks are followed only when they stay inside the project.
    pub fn list_dir(&self, glance: Option<&Glance>, dir: &Path) -> std::io::Result<Vec<DiskEntry>> {
        self.listing(glance, dir)
            .map(|entries| entries.as_ref().clone())
    }

    /// What shows as `name` in directory `dir`: its kind, or `None` when nothing does
    /// (absent, hidden, outside the project). From the folder's kept listing: resolving a
    /// path then costs one stat per folder on the way, not a look at each entry.
    pub fn shown_kind(&self, glance: Option<&Glance>, dir: &Path, name: &str) -> Option<EntryKind> {
        kind_in(&self.listing(glance, dir).ok()?, name)
    }

    /// What shows as each of `names` in directory `dir` (see [`Project::shown_kind`]),
    /// from one look at the folder.
    pub fn shown_kinds<const N: usize>(
        &self,
        glance: Option<&Glance>,
        dir: &Path,
        names: [&str; N],
    ) -> [Option<EntryKind>; N] {
        match self.listing(glance, dir) {
            Ok(entries) => names.map(|name| kind_in(&entries, name)),
            Err(_) => [None; N],
        }
    }

    /// [`Project::list_dir`], shared. A listing read while its folder's time was still
    /// moving is not kept: an entry made in the same clock tick would leave the time as
    /// it was and the listing would miss it.
    fn listing(&self, glance: Option<&Glance>, dir: &Path) -> std::io::Result<Arc<Vec<DiskEntry>>> {
        let glance = glance.map(Glance::id);
        if let Some(id) = glance
            && let Some(entries) = self.listed.glanced(dir, id)
        {
            return Ok(entries);
        }
        let generation = self.listed.generation();
        let mtime = modified(dir);
        let looked = glance.unwrap_or(0);
        if let Some(entries) = self.listed.current(dir, mtime, looked) {
            return Ok(entries);
        }
        let entries = Arc::new(self.read_dir_shown(dir)?);
        let settled = mtime
            .and_then(|m| SystemTime::now().duration_since(m).ok())
            .is_some_and(|age| age > LISTING_SETTLED);
        if settled {
            self.listed.keep(dir, generation, mtime, &entries, looked);
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
            if self.is_hidden(&path, is_dir) || (name == "__init__.py" && self.is_made_init(&path))
            {
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

    /// Whether the folder `dir`, right in the code root `root`, is one of the project's
    /// packages as setuptools and pytest would take it: in a src layout, beside `src/` only
    /// a regular package (with an `__init__.py`), since `docs/` or `scripts/` there hold
    /// no package of the project; elsewhere any folder holding Python, a namespace package
    /// of a flat layout included.
    pub fn is_package_at_top(&self, glance: Option<&Glance>, root: &Path, dir: &Path) -> bool {
        let beside_src = self.code_roots.len() > 1 && root == self.root;
        // A regular package answers from its kept listing (a stat, or nothing within a
        // glance); only the others need their folder searched for Python (every request
        // under source/ walks its first name through here).
        let regular = self.shown_kind(glance, dir, "__init__.py").is_some();
        regular || (!beside_src && self.holds_python(glance, dir))
    }

    /// Whether `dir` shows Python code, directly or one folder down (see [`has_python`]),
    /// from kept listings: every folder's view labels the folders in it so.
    pub fn holds_python(&self, glance: Option<&Glance>, dir: &Path) -> bool {
        let Ok(entries) = self.listing(glance, dir) else {
            return false;
        };
        let module = |entries: &[DiskEntry]| entries.iter().any(|e| e.kind == EntryKind::Module);
        module(&entries)
            || entries
                .iter()
                .filter(|e| e.kind == EntryKind::Dir)
                .any(|e| {
                    self.listing(glance, &e.path)
                        .is_ok_and(|inner| module(&inner))
                })
    }

    /// What folder `dir` is: a package, a namespace package or a plain folder.
    pub fn dir_kind(&self, glance: Option<&Glance>, dir: &Path) -> DirKind {
        if self.shown_kind(glance, dir, "__init__.py").is_some() {
            DirKind::Package
        } else if self.holds_python(glance, dir) {
            DirKind::Namespace
        } else {
            DirKind::Folder
        }
    }

    /// What views call folder `dir`, of [`DirKind`] `kind`: its kind's label, except that
    /// a folder without `__init__.py` beside a flat layout's code (`scripts/`, `docs/`)
    /// is a folder of scripts, not a namespace package (the import check never imports it
    /// either).
    pub fn dir_label(&self, kind: DirKind, dir: &Path) -> &'static str {
        let scripts = kind == DirKind::Namespace
            && self.code_roots.contains(&self.root)
            && self.beside_the_code(dir);
        if scripts { "folder" } else { kind.label() }
    }

    /// Whether `dir` is a folder at the project's top that holds no code: no code root
    /// below the top (`src/`) has a folder of its name, and no test folder is in it
    /// (`scripts/`, `docs/`, `benchmarks/`). Without `__init__.py`, what Python it holds
    /// is scripts, not a namespace package.
    pub fn beside_the_code(&self, dir: &Path) -> bool {
        let Some(name) = dir.file_name() else {
            return false;
        };
        dir.parent() == Some(self.root.as_path())
            && !self
                .code_roots
                .iter()
                .filter(|r| **r != self.root)
                .any(|r| r.join(name).is_dir())
            && !self.test_dirs().iter().any(|t| t.starts_with(dir))
    }

    /// The project's top-level code: every code root's packages and modules, minus test
    /// folders and the `src` folder itself (what `import` reaches; [`Project::top_entries`]
    /// adds the other files and folders source/ shows). Cached until the modification time
    /// of a code root or of one of the folders it holds changes, since deciding which
    /// folders hold Python reads every one of them.
    pub fn top_level(&self, glance: Option<&Glance>) -> Vec<DiskEntry> {
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
            for entry in self.list_dir(glance, root).unwrap_or_default() {
                if entry.kind == EntryKind::Dir {
                    stamps.push((entry.path.clone(), modified(&entry.path)));
                }
                let skip = self.is_test_dir(&entry.path)
                    || (entry.kind == EntryKind::Dir && self.code_roots.contains(&entry.path))
                    || entry.kind == EntryKind::Data
                    || (entry.kind == EntryKind::Dir
                        && !self.is_package_at_top(glance, root, &entry.path));
                if !skip {
                    seen.entry(entry.name.clone()).or_insert(entry);
                }
            }
        }
        let entries: Vec<DiskEntry> = seen.into_values().collect();
        *cached = Some((stamps, entries.clone()));
        entries
    }

    /// Everything `source/` shows at its top: the code roots' packages and modules (as
    /// [`Project::top_level`]) and every other shown file and folder of the project's top
    /// — README, CHANGELOG, `docs/`, `.github/` — in a src layout `src/`'s too, the first
    /// of a name winning. Not the test folders (`source/tests/` shows them) nor `src/`
    /// itself (its entries are here). Sorted by name.
    pub fn top_entries(&self, glance: Option<&Glance>) -> Vec<DiskEntry> {
        let mut seen = std::collections::BTreeMap::new();
        for entry in self.top_level(glance) {
            seen.insert(entry.name.clone(), entry);
        }
        for root in &self.code_roots {
            for entry in self.list_dir(glance, root).unwrap_or_default() {
                let layout = entry.kind == EntryKind::Dir
                    && (self.is_test_dir(&entry.path) || self.code_roots.contains(&entry.path));
                if !layout {
                    seen.entry(entry.name.clone()).or_insert(entry);
                }
            }
        }
        seen.into_values().collect()
    }

    /// Every `.py` file of the code and the tests, in a stable order (for search).
    pub fn python_files(&self) -> Vec<PathBuf> {
        let mut files = Vec::new();
        let mut stack: Vec<PathBuf> = Vec::new();
        for entry in self.top_level(None) {
            match entry.kind {
                EntryKind::Module => files.push(entry.path),
                EntryKind::Dir => stack.push(entry.path),
                EntryKind::Data => {}
            }
        }
        stack.extend(self.test_dirs());
        while let Some(dir) = stack.pop() {
            for entry in self.list_dir(None, &dir).unwrap_or_default() {
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
            for entry in self.list_dir(None, &dir).unwrap_or_default() {
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
