//! The files `search/source:` reads — every `.py` file of the project, then its other
//! files — listed once, several folders at a time, and kept
//! between searches. A search checks the list against the modification time of every
//! folder it walked (a file that comes, goes or is renamed changes its folder's), the
//! top-level entries, the test folders and the ignore settings, so a search of an
//! unchanged project lists no folder again. A folder changed in the last [`RACY`] is
//! listed again at every search: a file system keeps times in ticks, and a file made in
//! the tick the folder last changed would leave its time as it was. The lists are those of
//! `Project::python_files` and `Project::text_files`, but for the size of the files that
//! are not Python, which the search looks at as it opens them.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, SystemTime};

use crate::resources::source::project::{DiskEntry, EntryKind, Project};
use crate::tree::lock;

/// How recent a folder's change may be for its time not to tell a later one.
pub const RACY: Duration = Duration::from_secs(2);

/// The files a search reads: the `.py` files first, in path order, then the others.
#[derive(Debug, PartialEq, Eq)]
pub struct Files {
    pub paths: Vec<PathBuf>,
    /// How many of `paths`, from the first, are Python.
    pub python: usize,
}

/// The list kept, and what it was made from.
struct Listing {
    ignore_generation: u64,
    top: Vec<DiskEntry>,
    tests: Vec<PathBuf>,
    /// Every folder listed and its modification time just before it was.
    folders: Vec<(PathBuf, Option<SystemTime>)>,
    files: Arc<Files>,
}

/// The kept list of one project's searched files.
#[derive(Default)]
pub struct Searched {
    kept: Mutex<Option<Listing>>,
}

fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

impl Searched {
    /// The files a search of `project` reads now.
    pub fn files(&self, project: &Project) -> Arc<Files> {
        // Read before the walk: a change during it shows at the next search.
        let ignore_generation = project.ignore_generation();
        let top = project.top_level(None);
        let tests = project.test_dirs();
        let mut kept = lock(&self.kept);
        if let Some(listing) = kept.as_ref()
            && listing.ignore_generation == ignore_generation
            && listing.top == top
            && listing.tests == tests
            && listing
                .folders
                .iter()
                .all(|(folder, mtime)| modified(folder) == *mtime)
        {
            return Arc::clone(&listing.files);
        }
        let started = SystemTime::now();
        let (files, folders) = walk(project, &top, &tests);
        let files = Arc::new(files);
        let settled = folders.iter().all(|(_, mtime)| {
            mtime.is_some_and(|m| started.duration_since(m).is_ok_and(|age| age > RACY))
        });
        if !settled {
            *kept = None;
            return files;
        }
        *kept = Some(Listing {
            ignore_generation,
            top,
            tests,
            folders,
            files: Arc::clone(&files),
        });
        files
    }
}

/// The searched files of `project`, whose top-level entries are `top` and test folders
/// `tests`, and every folder listed with its modification time.
fn walk(
    project: &Project,
    top: &[DiskEntry],
    tests: &[PathBuf],
) -> (Files, Vec<(PathBuf, Option<SystemTime>)>) {
    let mut listed = list_tree(project, project.root.clone());
    let mut listing = |dir: &Path| -> Vec<DiskEntry> {
        // A test folder under a hidden one is listed on its own, as python_files does.
        if !listed.contains_key(dir) {
            let more = list_tree(project, dir.to_path_buf());
            listed.extend(more);
        }
        listed
            .get(dir)
            .map(|(_, entries)| entries.clone())
            .unwrap_or_default()
    };
    let mut python = Vec::new();
    let mut stack: Vec<PathBuf> = Vec::new();
    for entry in top {
        match entry.kind {
            EntryKind::Module => python.push(entry.path.clone()),
            EntryKind::Dir => stack.push(entry.path.clone()),
            EntryKind::Data => {}
        }
    }
    stack.extend(tests.iter().cloned());
    while let Some(dir) = stack.pop() {
        for entry in listing(&dir) {
            match entry.kind {
                EntryKind::Module => python.push(entry.path),
                EntryKind::Dir => stack.push(entry.path),
                EntryKind::Data => {}
            }
        }
    }
    let code: std::collections::HashSet<PathBuf> = python.iter().cloned().collect();
    let mut text = Vec::new();
    let mut stack = vec![project.root.clone()];
    while let Some(dir) = stack.pop() {
        for entry in listing(&dir) {
            match entry.kind {
                EntryKind::Dir => stack.push(entry.path),
                // Python beside the code (`docs/conf.py`, scripts, examples): searched as
                // Python, as `grep -rn` would find it.
                EntryKind::Module if !code.contains(&entry.path) => python.push(entry.path),
                EntryKind::Module => {}
                EntryKind::Data => text.push(entry.path),
            }
        }
    }
    python.sort();
    text.sort();
    let count = python.len();
    python.extend(text);
    let folders = listed
        .into_iter()
        .map(|(dir, (mtime, _))| (dir, mtime))
        .collect();
    let files = Files {
        paths: python,
        python: count,
    };
    (files, folders)
}

/// A folder's modification time (before it was listed) and its shown entries.
type Listed = HashMap<PathBuf, (Option<SystemTime>, Vec<DiskEntry>)>;

/// Every shown folder under `from` (itself included) listed by several listers at once:
/// each takes the next folder found, so a cold disk has many reads in flight.
fn list_tree(project: &Project, from: PathBuf) -> Listed {
    let listers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .max(crate::resources::source::search::scan::READERS);
    // The folders found and not yet taken, and how many cores are listing one.
    let work = Mutex::new((vec![from], 0usize));
    let changed = Condvar::new();
    let listed = Mutex::new(Listed::new());
    std::thread::scope(|scope| {
        for _ in 0..listers {
            scope.spawn(|| {
                loop {
                    let dir = {
                        let mut state = lock(&work);
                        loop {
                            if let Some(dir) = state.0.pop() {
                                state.1 += 1;
                                break Some(dir);
                            }
                            if state.1 == 0 {
                                break None;
                            }
                            state = changed.wait(state).unwrap_or_else(|e| e.into_inner());
                        }
                    };
                    let Some(dir) = dir else {
                        changed.notify_all();
                        return;
                    };
                    let mtime = modified(&dir);
                    let entries = project.list_dir(None, &dir).unwrap_or_default();
                    let mut state = lock(&work);
                    state.0.extend(
                        entries
                            .iter()
                            .filter(|e| e.kind == EntryKind::Dir)
                            .map(|e| e.path.clone()),
                    );
                    state.1 -= 1;
                    drop(state);
                    changed.notify_all();
                    lock(&listed).insert(dir, (mtime, entries));
                }
            });
        }
    });
    listed.into_inner().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project() -> (tempfile::TempDir, Project) {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in [
            ("pkg/__init__.py", ""),
            ("pkg/sub/mod.py", "x = 1\n"),
            ("pkg/data.json", "{}"),
            ("tests/test_mod.py", "def test(): pass\n"),
            ("README.md", "# pkg\n"),
            ("build/gen.py", ""),
        ] {
            let file = dir.path().join(path);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, text).unwrap();
        }
        let root = dir.path().canonicalize().unwrap();
        (dir, Project::open(&root))
    }

    /// Dates every folder of `dir` back a minute, as a project's folders are.
    fn settle(dir: &Path) {
        let past = SystemTime::now() - Duration::from_secs(60);
        for entry in walkdir(dir) {
            std::fs::File::open(&entry)
                .unwrap()
                .set_modified(past)
                .unwrap();
        }
    }

    fn walkdir(dir: &Path) -> Vec<PathBuf> {
        let mut dirs = vec![dir.to_path_buf()];
        let mut n = 0;
        while let Some(d) = dirs.get(n).cloned() {
            for e in std::fs::read_dir(&d).unwrap().flatten() {
                if e.file_type().unwrap().is_dir() {
                    dirs.push(e.path());
                }
            }
            n += 1;
        }
        dirs
    }

    #[test]
    fn the_list_is_the_projects_python_then_its_other_files() {
        let (_dir, project) = project();
        let files = Searched::default().files(&project);
        let mut expected = project.python_files();
        assert_eq!(files.python, expected.len());
        expected.extend(project.text_files());
        assert_eq!(files.paths, expected);
    }

    #[test]
    fn a_file_that_comes_or_goes_is_listed_at_the_next_search() {
        let (dir, project) = project();
        let searched = Searched::default();
        let fresh = searched.files(&project);
        assert!(
            !Arc::ptr_eq(&fresh, &searched.files(&project)),
            "folders changed a moment ago are listed again"
        );
        settle(dir.path());
        let before = searched.files(&project);
        assert!(Arc::ptr_eq(&before, &searched.files(&project)), "kept");
        let new = dir.path().join("pkg/sub/new.py");
        std::fs::write(&new, "y = 2\n").unwrap();
        let after = searched.files(&project);
        assert_eq!(after.python, before.python + 1);
        std::fs::remove_file(&new).unwrap();
        assert_eq!(*searched.files(&project), *before);
    }
}
