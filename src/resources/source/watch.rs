//! Changes made to the project outside the mount (an editor saving, `git checkout`, a
//! formatter): inotify watches every shown directory of the project, a burst of events is
//! gathered for a moment ([`SETTLE`]) and reported once, as the tree paths the changed
//! files show as. A file of the project's configuration (`pyproject.toml`, pytest's `tox.ini`, `.gitignore`,
//! a requirements file) reaches all of `source/` and has the test folders found again, as
//! a folder that comes or goes does; an overflowing event queue reaches
//! everything. Bound: a change shows at the first access after the watcher has read it,
//! [`SETTLE`] after the event at most, plus the time to report it.
//!
//! The settings file, `.homespace/settings.toml`, is watched too, though `.homespace/` is
//! not shown: a change to it, or to the modes of its folder, is read again at once
//! (`settings_changed`) and reaches all of `source/` — its settings shape the views, and
//! `source/meta/` says whether the file is in force.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use inotify::{EventMask, Inotify, WatchDescriptor, WatchMask};

use crate::model::TreePath;
use crate::resources::source::project::Project;
use crate::tree::resource::Changes;

/// How long a burst of events is gathered before it is reported.
pub const SETTLE: Duration = Duration::from_millis(2);

/// Files whose change reaches all of `source/`: the layout, what is shown, deps/, config/.
fn is_configuration(name: &str) -> bool {
    matches!(
        name,
        "pyproject.toml" | "setup.cfg" | "setup.py" | "pytest.ini" | "tox.ini" | ".gitignore"
    ) || (name.starts_with("requirements") && name.ends_with(".txt"))
}

/// The folder of the settings file, in the project.
const SETTINGS_DIR: &str = ".homespace";

/// Start watching `project` (a thread of its own), reporting to `changes` under the tree
/// name `mounted_as` (`source`); `settings_changed` is called first when the settings
/// file changed.
pub fn start(
    project: Arc<Project>,
    mounted_as: &'static str,
    changes: Changes,
    settings_changed: Box<dyn Fn() + Send>,
) {
    let mut inotify = match Inotify::init() {
        Ok(inotify) => inotify,
        Err(e) => {
            crate::log::line(&format!(
                "cannot watch the project for outside edits ({e}): they show only after \
                 the kernel's cache times out"
            ));
            return;
        }
    };
    let mut watcher = Watcher {
        project,
        mounted_as,
        dirs: HashMap::new(),
        relayout: false,
        settings_dir: None,
        settings: false,
        settings_changed,
    };
    // Walking a large project to watch each folder takes a while: not on the mount's way.
    let spawned = std::thread::Builder::new()
        .name("watch project".into())
        .spawn(move || {
            let root = watcher.project.root.clone();
            watcher.add_tree(&mut inotify, &root);
            watcher.add_settings_dir(&mut inotify);
            crate::log::line(&format!(
                "watching {} folders of the project for outside edits",
                watcher.dirs.len()
            ));
            // What was read while the walk went on may have changed unwatched.
            changes(vec![TreePath::parse(watcher.mounted_as)]);
            watcher.run(inotify, changes)
        });
    if let Err(e) = spawned {
        crate::log::line(&format!("cannot start the project watcher: {e}"));
    }
}

struct Watcher {
    project: Arc<Project>,
    mounted_as: &'static str,
    dirs: HashMap<WatchDescriptor, PathBuf>,
    /// A folder or a configuration file changed: the test folders are to be found again.
    relayout: bool,
    /// The watch of `.homespace/`, while it exists.
    settings_dir: Option<WatchDescriptor>,
    /// The settings file or its folder changed: they are to be read again.
    settings: bool,
    settings_changed: Box<dyn Fn() + Send>,
}

impl Watcher {
    fn mask() -> WatchMask {
        WatchMask::MODIFY
            | WatchMask::CLOSE_WRITE
            | WatchMask::ATTRIB
            | WatchMask::CREATE
            | WatchMask::DELETE
            | WatchMask::MOVED_FROM
            | WatchMask::MOVED_TO
            | WatchMask::DELETE_SELF
            | WatchMask::MOVE_SELF
            | WatchMask::ONLYDIR
    }

    /// Watch `.homespace/`, if it is there (hidden, so [`Self::add_tree`] passes it by).
    fn add_settings_dir(&mut self, inotify: &mut Inotify) {
        let dir = self.project.root.join(SETTINGS_DIR);
        if !dir.is_dir() {
            return;
        }
        // Without MODIFY: the store and the log beside the settings are written all the
        // time, and kept open; an edit of the settings ends with CLOSE_WRITE or a rename.
        let mask = Self::mask() & !WatchMask::MODIFY;
        match inotify.watches().add(&dir, mask) {
            Ok(wd) => self.settings_dir = Some(wd),
            Err(e) => crate::log::line(&format!(
                "cannot watch {} for outside edits of the settings: {e}",
                dir.display()
            )),
        }
    }

    /// Watch `dir` and every shown directory under it.
    fn add_tree(&mut self, inotify: &mut Inotify, dir: &Path) {
        if dir != self.project.root && self.project.is_hidden(dir, true) {
            return;
        }
        match inotify.watches().add(dir, Self::mask()) {
            Ok(wd) => {
                self.dirs.insert(wd, dir.to_path_buf());
            }
            Err(e) => {
                crate::log::line(&format!(
                    "cannot watch {} for outside edits: {e}",
                    dir.display()
                ));
                return;
            }
        }
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            // Symbolic links are not followed: a link's target outside is not shown.
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                self.add_tree(inotify, &entry.path());
            }
        }
    }

    fn run(mut self, mut inotify: Inotify, changes: Changes) {
        let mut buffer = vec![0u8; 64 * 1024];
        loop {
            let mut changed: Vec<PathBuf> = Vec::new();
            let mut everything = false;
            let mut new_dirs: Vec<PathBuf> = Vec::new();
            match inotify.read_events_blocking(&mut buffer) {
                Ok(events) => self.gather(events, &mut changed, &mut everything, &mut new_dirs),
                Err(e) => {
                    crate::log::line(&format!("the project watcher stopped: {e}"));
                    return;
                }
            }
            std::thread::sleep(SETTLE);
            if let Ok(events) = inotify.read_events(&mut buffer) {
                self.gather(events, &mut changed, &mut everything, &mut new_dirs);
            }
            for dir in new_dirs {
                if dir == self.project.root.join(SETTINGS_DIR) {
                    self.add_settings_dir(&mut inotify);
                }
                self.add_tree(&mut inotify, &dir);
            }
            if std::mem::take(&mut self.relayout) {
                self.project.forget_layout();
            }
            if std::mem::take(&mut self.settings) {
                (self.settings_changed)();
                changes(vec![TreePath::parse(self.mounted_as)]);
            }
            if everything {
                changes(vec![TreePath::root()]);
                continue;
            }
            let mut paths: Vec<TreePath> = Vec::new();
            for file in &changed {
                for path in self.tree_paths(file) {
                    if !paths.contains(&path) {
                        paths.push(path);
                    }
                }
            }
            if !paths.is_empty() {
                changes(paths);
            }
        }
    }

    fn gather<'a>(
        &mut self,
        events: impl Iterator<Item = inotify::Event<&'a std::ffi::OsStr>>,
        changed: &mut Vec<PathBuf>,
        everything: &mut bool,
        new_dirs: &mut Vec<PathBuf>,
    ) {
        for event in events {
            if event.mask.contains(EventMask::Q_OVERFLOW) {
                *everything = true;
                self.settings = true;
                continue;
            }
            if Some(&event.wd) == self.settings_dir.as_ref() {
                if event.mask.contains(EventMask::IGNORED) {
                    self.settings_dir = None;
                }
                // The file itself or the folder (its modes, its removal); editors' temp
                // files beside it change nothing.
                self.settings |= event.name.is_none_or(|name| name == "settings.toml");
                continue;
            }
            let Some(dir) = self.dirs.get(&event.wd).cloned() else {
                continue;
            };
            if event.mask.contains(EventMask::IGNORED) {
                self.dirs.remove(&event.wd);
                continue;
            }
            let path = match event.name {
                Some(name) => dir.join(name),
                None => dir,
            };
            let is_dir = event.mask.contains(EventMask::ISDIR);
            // `.homespace/` itself came, went or changed modes; or the project folder did,
            // on which whether the settings apply depends too.
            if path == self.project.root.join(SETTINGS_DIR) || path == self.project.root {
                self.settings = true;
            }
            // Where tests are depends on pytest's configuration and on the folders.
            self.relayout |= is_dir
                || path
                    .file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(is_configuration);
            if is_dir
                && event
                    .mask
                    .intersects(EventMask::CREATE | EventMask::MOVED_TO)
            {
                new_dirs.push(path.clone());
            }
            if path == self.project.root || !self.project.is_hidden(&path, is_dir) {
                changed.push(path);
            }
        }
    }

    fn tree_paths(&self, file: &Path) -> Vec<TreePath> {
        tree_paths(&self.project, self.mounted_as, file)
    }
}

/// The tree paths (from the root, `source` being `mounted_as`) that show the project file
/// or folder `file`.
pub fn tree_paths(project: &Project, mounted_as: &str, file: &Path) -> Vec<TreePath> {
    let source = TreePath::parse(mounted_as);
    if file == project.root
        || file
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(is_configuration)
    {
        return vec![source];
    }
    let mut bases: Vec<(TreePath, &Path)> = Vec::new();
    for root in &project.code_roots {
        bases.push((source.clone(), root));
    }
    let test_dirs = project.test_dirs();
    let several = test_dirs.len() > 1;
    for dir in &test_dirs {
        let mut base = source.join(super::places::paths::TESTS);
        if several && let Some(name) = dir.file_name() {
            base.push(&name.to_string_lossy());
        }
        bases.push((base, dir));
    }
    let mut paths = Vec::new();
    for (base, dir) in bases {
        let Ok(rel) = file.strip_prefix(dir) else {
            continue;
        };
        let mut path = base;
        for name in rel {
            path.push(&name.to_string_lossy());
        }
        // `m.py` shows as itself and as its members' directory `m/`.
        if let (Some(stem), Some(dir)) = (
            path.name().and_then(|n| n.strip_suffix(".py")),
            path.parent(),
        ) {
            paths.push(dir.join(stem));
        }
        paths.push(path);
    }
    if paths.is_empty() {
        // Outside every shown folder (a new top-level folder of a src layout may hold
        // a package): all of source/.
        paths.push(source);
    }
    paths
}
