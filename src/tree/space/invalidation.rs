//! Which paths a change reaches, and making the kernel and the daemon forget them. A change
//! at a path reaches that path and everything under it, its directory's listing, the
//! generated views (`_entry.md`, `_nav.txt`) of every directory above it, and every
//! resourcespace that shows everything (search); a resource widens it where its views
//! show each other's data ([`Resource::affected`]). Failures reach the error log and the
//! entry views that show them. Only inodes the kernel holds or the daemon rendered are
//! examined, so a change costs what is cached, not what exists.
//!
//! [`Resource::affected`]: crate::tree::resource::Resource::affected

use std::sync::{Arc, Weak};
use std::time::{Duration, SystemTime};

use crate::model::names::{ENTRY, ERRORS, NAV};
use crate::model::{Ino, TreePath};
use crate::tree::Space;
use crate::tree::inodes::Inodes;
use crate::tree::kernel_cache::CacheMode;
use crate::tree::lock;
use crate::tree::resource::ResourceExt;
use crate::tree::resource::{Changes, Outside};

/// What one change reaches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Reach {
    /// The path, everything under it, its directory, the views above it: it may have
    /// appeared or gone, so its directory's listing and the maps beside it change too.
    Under(TreePath),
    /// Everything under the path and the views above it; the path itself stays (a
    /// resourcespace's own directory, a package whose module changed).
    Inside(TreePath),
    /// That one path only.
    Exactly(TreePath),
}

impl Space {
    /// Things at `paths` and under each (the root: everything) changed outside the tree's
    /// own requests: forget what is kept of them.
    pub fn touched(&self, paths: Vec<TreePath>) {
        let reach: Vec<Reach> = paths
            .into_iter()
            .map(|path| match path.name() {
                // A generated view never comes or goes, and holds nothing: a change of what
                // it shows (the warm-up's progress) reaches that view only, not every map
                // beside it.
                Some(ENTRY | NAV) => Reach::Exactly(path),
                _ => Reach::Under(path),
            })
            .collect();
        self.forget(&reach);
    }

    /// A change was just made through the tree at `path`: forget it and what its resource
    /// says it reaches.
    pub(crate) fn changed_at(&self, path: &TreePath) {
        // A change may drop a failure logged for the path (a "did you mean" of a name
        // just created).
        let mut reach = vec![
            Reach::Under(path.clone()),
            Reach::Exactly(TreePath::parse(ERRORS)),
        ];
        if let Some(top) = path.first().and_then(|name| self.resource(name)) {
            let rest: Vec<&str> = path.names().skip(1).collect();
            match top.affected(&rest) {
                Some(paths) => reach.extend(paths.into_iter().map(Reach::Inside)),
                None => reach.push(Reach::Inside(TreePath::parse(top.name()))),
            }
        }
        self.forget(&reach);
    }

    /// A reader opened `path`; its resource may have noted it (a recent search), which
    /// its directory's listing and views show, and every map on the way down to it: as if
    /// the path had just appeared.
    pub(crate) fn noted_open(&self, path: &TreePath) {
        // What the read changed: its folder's listing (the recent queries) and the views
        // that show it — never the file being read, whose every later chunk would be
        // rendered again (a read-only mount's reads each stand for an open).
        let Some(dir) = path.parent() else {
            return;
        };
        let mut reach = vec![Reach::Exactly(dir.clone())];
        for above in std::iter::once(dir.as_str()).chain(dir.ancestors()) {
            for view in [ENTRY, NAV] {
                reach.push(Reach::Exactly(TreePath::parse(above).join(view)));
            }
        }
        self.forget(&reach);
    }

    /// A failure in directory `dir` was logged: the error log, the dashboard and the
    /// directory's entry view show it.
    pub(crate) fn failed_in(&self, dir: &str) {
        self.forget(&[
            Reach::Exactly(TreePath::parse(ERRORS)),
            Reach::Exactly(TreePath::parse(ENTRY)),
            Reach::Exactly(TreePath::parse(dir).join(ENTRY)),
        ]);
    }

    /// Start the watchers of changes made outside the tree's requests: each resource's
    /// (project files, test runs), the store's (`version` says when another process
    /// changed it), and the clock's (a failure stops showing in its entry view after
    /// a few minutes). Only when the kernel keeps what it is given.
    pub fn watch(self: &Arc<Self>, version: Option<StoreVersion>) {
        if self.kernel.mode() != CacheMode::Kept {
            return;
        }
        let weak = Arc::downgrade(self);
        let changes: Changes = Arc::new(move |paths| {
            if let Some(space) = weak.upgrade() {
                space.touched(paths);
            }
        });
        for resource in &self.resources {
            resource.watch(Arc::clone(&changes));
        }
        let weak = Arc::downgrade(self);
        let spawned = std::thread::Builder::new()
            .name("watch store and clock".into())
            .spawn(move || tick(weak, version));
        if let Err(e) = spawned {
            crate::log::line(&format!("cannot start the store watcher: {e}"));
        }
    }

    /// Start each resourcespace's own work ([`crate::tree::resource::Live::start`]).
    pub fn start(self: &Arc<Self>) {
        let outside = self.outside();
        for resource in &self.resources {
            resource.start(outside.clone());
        }
    }

    /// Start each resourcespace's warm-up ([`crate::tree::resource::Live::warm`]).
    pub fn warm(self: &Arc<Self>) {
        let outside = self.outside();
        for resource in &self.resources {
            resource.warm(outside.clone());
        }
    }

    /// Where a resourcespace's own work reports: this tree, as long as it is there.
    fn outside(self: &Arc<Self>) -> Outside {
        let weak = Arc::downgrade(self);
        let changes: Changes = Arc::new(move |paths| {
            if let Some(space) = weak.upgrade() {
                space.touched(paths);
            }
        });
        let weak = Arc::downgrade(self);
        Outside {
            changes,
            failed: Arc::new(move |op, path, error| {
                if let Some(space) = weak.upgrade() {
                    space.record(op, path, error);
                }
            }),
        }
    }

    /// Forget what is kept of every path `reach` covers.
    pub(crate) fn forget(&self, reach: &[Reach]) {
        let everywhere: Vec<&str> = self
            .resources
            .iter()
            .filter(|r| r.shows_everything())
            .map(|r| r.name())
            .collect();
        let (spelled, maps) = self.spellings(reach);
        let mut candidates = reached(&lock(&self.inodes), reach, &everywhere);
        {
            let inodes = lock(&self.inodes);
            for prefix in &spelled {
                candidates.extend(inodes.starting_with(prefix).map(|(_, ino)| ino));
            }
            for prefix in &maps {
                let maps = inodes
                    .starting_with(prefix)
                    .filter(|(path, _)| path.rsplit('/').next() == Some(NAV));
                candidates.extend(maps.map(|(_, ino)| ino));
            }
        }
        let hit = self.kernel.held_among(candidates);
        self.kernel.drop_inodes(&hit);
    }
}

impl Space {
    /// The other spellings of the paths `reach` covers (see [`Resource::spellings`]), and
    /// of the directories whose maps (`_nav.txt` beside or below them) it reaches.
    ///
    /// [`Resource::spellings`]: crate::tree::resource::Resource::spellings
    fn spellings(&self, reach: &[Reach]) -> (Vec<String>, Vec<String>) {
        let spellings_of = |path: &TreePath| {
            let mut names = path.names();
            match names.next().and_then(|name| self.resource(name)) {
                Some(resource) => resource.spellings(&names.collect::<Vec<_>>()),
                None => Vec::new(),
            }
        };
        let (mut same, mut maps) = (Vec::new(), Vec::new());
        for reach in reach {
            match reach {
                Reach::Under(path) => {
                    same.extend(spellings_of(path));
                    if let Some(dir) = path.parent() {
                        maps.extend(spellings_of(&dir));
                    }
                }
                Reach::Inside(path) => same.extend(spellings_of(path)),
                Reach::Exactly(_) => {}
            }
        }
        (same, maps)
    }
}

/// How often the store and the clock are looked at: the bound on how long a change by
/// another process to the store takes to show.
pub(crate) const STORE_POLL: Duration = Duration::from_millis(20);

/// A number that changes whenever another process changed the store (SQLite's
/// `data_version`); `None` when it cannot be read.
pub type StoreVersion = Box<dyn Fn() -> Option<i64> + Send>;

/// Look at the store and the clock until the tree is gone.
fn tick(space: Weak<Space>, version: Option<StoreVersion>) {
    let read = |version: &Option<StoreVersion>| version.as_ref().and_then(|v| v());
    let mut seen = read(&version);
    let mut since = SystemTime::now();
    loop {
        std::thread::sleep(STORE_POLL);
        let Some(space) = space.upgrade() else {
            return;
        };
        let now = read(&version);
        if now != seen {
            seen = now;
            // Tasks, memory, history, test runs and settings all live there.
            space.touched(vec![TreePath::root()]);
        }
        let clock = SystemTime::now();
        for dir in space.errors.expired(since, clock) {
            space.failed_in(&dir);
        }
        since = clock;
    }
}

/// The numbered paths `reach` covers (see the module's rules), and every path under a
/// resourcespace in `everywhere`: ranges of the sorted path table, so a change costs what
/// it reaches, not what the kernel holds.
fn reached(inodes: &Inodes, reach: &[Reach], everywhere: &[&str]) -> Vec<Ino> {
    let mut out: Vec<Ino> = Vec::new();
    if reach.iter().any(searched) {
        for name in everywhere {
            out.extend(inodes.under(name).map(|(_, ino)| ino));
        }
    }
    for reach in reach {
        match reach {
            Reach::Exactly(path) => out.extend(inodes.get(path.as_str())),
            Reach::Under(changed) | Reach::Inside(changed) => {
                out.extend(inodes.under(changed.as_str()).map(|(_, ino)| ino));
                // The views of every directory above it.
                for dir in changed.ancestors() {
                    for view in [ENTRY, NAV] {
                        let view = TreePath::parse(dir).join(view);
                        out.extend(inodes.get(view.as_str()));
                    }
                }
                if let (Reach::Under(_), Some(dir)) = (reach, changed.parent()) {
                    // Its directory, and the maps beside it or below its directory.
                    out.extend(inodes.get(dir.as_str()));
                    let maps = inodes
                        .under(dir.as_str())
                        .filter(|(path, _)| path.rsplit('/').next() == Some(NAV));
                    out.extend(maps.map(|(_, ino)| ino));
                }
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Whether `reach` changes what searches find: one path alone is what is shown of other
/// things (a view, the warm-up's progress in a dashboard, the error log, a folder's
/// listing of recent searches), never what a search reads. A search read marks itself
/// recent that way, and would otherwise be dropped, and rendered again, at every read.
fn searched(reach: &Reach) -> bool {
    !matches!(reach, Reach::Exactly(_))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rules, path by path: the reference [`reached`] is checked against.
    fn reaches(reach: &Reach, path: &[&str]) -> bool {
        match reach {
            Reach::Exactly(exact) => exact.names().eq(path.iter().copied()),
            Reach::Inside(changed) => {
                let changed: Vec<&str> = changed.names().collect();
                path.starts_with(&changed)
                    || path.split_last().is_some_and(|(last, dir)| {
                        (*last == ENTRY || *last == NAV) && changed.starts_with(dir)
                    })
            }
            Reach::Under(changed) => {
                let changed: Vec<&str> = changed.names().collect();
                if path.starts_with(&changed) {
                    return true;
                }
                // Its directory, whose listing may have gained or lost it.
                if changed.split_last().is_some_and(|(_, dir)| path == dir) {
                    return true;
                }
                // The views of a directory above it; and the maps (`_nav.txt`) of every
                // directory beside or below it, which show the path down from the root with
                // the members of each directory on it.
                path.split_last().is_some_and(|(last, dir)| {
                    let above = changed.starts_with(dir);
                    let beside = changed
                        .split_last()
                        .is_some_and(|(_, up)| dir.starts_with(up));
                    (*last == ENTRY && above) || (*last == NAV && (above || beside))
                })
            }
        }
    }

    #[test]
    fn the_ranges_find_exactly_what_the_rules_reach() {
        let paths = [
            "",
            "_entry.md",
            "_nav.txt",
            "_errors.md",
            "source",
            "source/_entry.md",
            "source/_nav.txt",
            "source/pkg",
            "source/pkg/_entry.md",
            "source/pkg/_nav.txt",
            "source/pkg/mod.py",
            "source/pkg/mod",
            "source/pkg/mod/_entry.md",
            "source/pkg/mod/_nav.txt",
            "source/pkg/mod/f.py",
            "source/pkg/module.py",
            "source/pkg/other/_nav.txt",
            "source/pkg/other/_entry.md",
            "source/pkg-x/_nav.txt",
            "tasks",
            "tasks/_entry.md",
            "tasks/_nav.txt",
            "tasks/open",
            "tasks/open/a.json",
            "search/q",
            "search/_entry.md",
        ];
        let mut inodes = Inodes::new();
        for path in paths {
            inodes.ino_of(path);
        }
        let split = TreePath::parse;
        let reaches_all = [
            vec![Reach::Under(split("source/pkg/mod"))],
            vec![
                Reach::Under(split("tasks/open/a.json")),
                Reach::Under(split("tasks")),
            ],
            vec![Reach::Under(TreePath::root())],
            vec![
                Reach::Exactly(split("_errors.md")),
                Reach::Exactly(split("source/pkg/_entry.md")),
            ],
            vec![
                Reach::Exactly(split("source/_entry.md")),
                Reach::Exactly(split("_entry.md")),
            ],
        ];
        for reach in reaches_all {
            let got = reached(&inodes, &reach, &["search"]);
            // What a search finds changed, unless only what is shown of it did.
            let content = reach.iter().any(searched);
            let mut want: Vec<Ino> = paths
                .iter()
                .filter(|path| {
                    let parts: Vec<&str> = if path.is_empty() {
                        Vec::new()
                    } else {
                        path.split('/').collect()
                    };
                    (content && parts.first() == Some(&"search"))
                        || reach.iter().any(|r| reaches(r, &parts))
                })
                .map(|path| inodes.get(path).unwrap())
                .collect();
            want.sort_unstable();
            assert_eq!(got, want, "{reach:?}");
        }
    }

    #[test]
    fn the_warm_ups_progress_in_a_dashboard_leaves_searches_kept() {
        let mut inodes = Inodes::new();
        let search = inodes.ino_of("search/source:urlopen");
        let dashboard = inodes.ino_of("source/_entry.md");
        let progress = [Reach::Exactly(TreePath::parse("source/_entry.md"))];
        let got = reached(&inodes, &progress, &["search"]);
        assert_eq!(got, vec![dashboard]);
        let edit = [Reach::Under(TreePath::parse("source/pkg/mod.py"))];
        assert!(reached(&inodes, &edit, &["search"]).contains(&search));
    }

    #[test]
    fn reading_a_search_marks_it_recent_and_leaves_it_kept() {
        let mut inodes = Inodes::new();
        let read = inodes.ino_of("search/source:urlopen");
        let listing = inodes.ino_of("search");
        let recent = [
            Reach::Exactly(TreePath::parse("search")),
            Reach::Exactly(TreePath::parse("search/_entry.md")),
        ];
        let got = reached(&inodes, &recent, &["search"]);
        assert!(got.contains(&listing) && !got.contains(&read), "{got:?}");
    }

    fn under(path: &str) -> Reach {
        Reach::Under(TreePath::parse(path))
    }

    fn hit(reach: &Reach, path: &str) -> bool {
        let path: Vec<&str> = if path.is_empty() {
            Vec::new()
        } else {
            path.split('/').collect()
        };
        reaches(reach, &path)
    }

    #[test]
    fn a_change_reaches_itself_its_directory_and_the_views_above() {
        let change = under("source/pkg/mod");
        assert!(hit(&change, "source/pkg/mod"));
        assert!(hit(&change, "source/pkg/mod/Class/method.py"));
        assert!(hit(&change, "source/pkg"));
        assert!(hit(&change, "source/pkg/_entry.md"));
        assert!(hit(&change, "source/_nav.txt"));
        assert!(hit(&change, "_entry.md"));
        assert!(!hit(&change, "source"));
        assert!(!hit(&change, "source/pkg/other.py"));
        assert!(!hit(&change, "source/pkg/other/_entry.md"));
        assert!(
            hit(&change, "source/pkg/other/_nav.txt"),
            "a map beside it shows its directory's members"
        );
        assert!(!hit(&change, "tasks/_nav.txt"));
        assert!(!hit(&change, "source/pkg/module"));
        assert!(!hit(&change, "_errors.md"));
    }

    #[test]
    fn an_exact_reach_is_that_path_only() {
        let exact = Reach::Exactly(TreePath::parse("_errors.md"));
        assert!(hit(&exact, "_errors.md"));
        assert!(!hit(&exact, ""));
        assert!(!hit(&exact, "_entry.md"));
    }
}
