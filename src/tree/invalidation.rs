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
use crate::tree::Space;
use crate::tree::kernel_cache::CacheMode;
use crate::tree::lock;
use crate::tree::resource::Changes;

/// What one change reaches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Reach {
    /// The path, everything under it, its directory, the views above it.
    Under(Vec<String>),
    /// That one path only.
    Exactly(Vec<String>),
}

impl Space {
    /// Things at `paths` and under each (paths from the root; `[]`: everything) changed
    /// outside the tree's own requests: forget what is kept of them.
    pub fn touched(&self, paths: Vec<Vec<String>>) {
        self.forget(&paths.into_iter().map(Reach::Under).collect::<Vec<_>>());
    }

    /// A change was just made through the tree at `path`: forget it and what its resource
    /// says it reaches.
    pub(crate) fn changed_at(&self, path: &[String]) {
        // A change may drop a failure logged for the path (a "did you mean" of a name
        // just created).
        let mut reach = vec![
            Reach::Under(path.to_vec()),
            Reach::Exactly(vec![ERRORS.to_string()]),
        ];
        if let Some(top) = path.first().and_then(|name| self.resource(name)) {
            let rest: Vec<&str> = path[1..].iter().map(String::as_str).collect();
            match top.affected(&rest) {
                Some(paths) => reach.extend(paths.into_iter().map(Reach::Under)),
                None => reach.push(Reach::Under(vec![top.name().to_string()])),
            }
        }
        self.forget(&reach);
    }

    /// A reader opened `path`; its resource may have noted it (a recent search), which
    /// the views of its directory show.
    pub(crate) fn noted_open(&self, path: &[String]) {
        let Some((_, dir)) = path.split_last() else {
            return;
        };
        let view = |name: &str| {
            let mut view = dir.to_vec();
            view.push(name.to_string());
            Reach::Exactly(view)
        };
        self.forget(&[view(ENTRY), view(NAV)]);
    }

    /// A failure in directory `dir` was logged: the error log, the dashboard and the
    /// directory's entry view show it.
    pub(crate) fn failed_in(&self, dir: &str) {
        let mut entry: Vec<String> = crate::tree::space::split(dir);
        entry.push(ENTRY.to_string());
        self.forget(&[
            Reach::Exactly(vec![ERRORS.to_string()]),
            Reach::Exactly(vec![ENTRY.to_string()]),
            Reach::Exactly(entry),
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

    /// Forget what is kept of every path `reach` covers.
    pub(crate) fn forget(&self, reach: &[Reach]) {
        let everywhere: Vec<&str> = self
            .resources
            .iter()
            .filter(|r| r.shows_everything())
            .map(|r| r.name())
            .collect();
        let known = self.kernel.known();
        let volatile: Vec<u64> = known.iter().filter(|k| k.1).map(|k| k.0).collect();
        let hit: Vec<u64> = {
            let inodes = lock(&self.inodes);
            known
                .into_iter()
                .filter(|&(_, volatile)| !volatile)
                .map(|(ino, _)| ino)
                .filter(|&ino| {
                    inodes.path_of(ino).is_some_and(|path| {
                        let path: Vec<&str> = match path {
                            "" => Vec::new(),
                            path => path.split('/').collect(),
                        };
                        path.first().is_some_and(|top| everywhere.contains(top))
                            || reach.iter().any(|r| reaches(r, &path))
                    })
                })
                .chain(volatile)
                .collect()
        };
        self.kernel.drop_inodes(&hit);
    }
}

/// How often the store and the clock are looked at: the bound on how long a change by
/// another process to the store takes to show.
pub const STORE_POLL: Duration = Duration::from_millis(20);

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
            space.touched(vec![Vec::new()]);
        }
        let clock = SystemTime::now();
        for dir in space.errors.expired(since, clock) {
            space.failed_in(&dir);
        }
        since = clock;
    }
}

/// Whether a change `reach` reaches `path`.
fn reaches(reach: &Reach, path: &[&str]) -> bool {
    match reach {
        Reach::Exactly(exact) => exact.iter().map(String::as_str).eq(path.iter().copied()),
        Reach::Under(changed) => {
            let changed: Vec<&str> = changed.iter().map(String::as_str).collect();
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

#[cfg(test)]
mod tests {
    use super::*;

    fn under(path: &str) -> Reach {
        Reach::Under(path.split('/').map(String::from).collect())
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
        let exact = Reach::Exactly(vec!["_errors.md".into()]);
        assert!(hit(&exact, "_errors.md"));
        assert!(!hit(&exact, ""));
        assert!(!hit(&exact, "_entry.md"));
    }
}
