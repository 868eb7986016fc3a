//! The folder listings [`Project`](super::Project) keeps between looks. A listing holds
//! until an entry of its folder comes, goes or is renamed (which moves the folder's time),
//! or until what is hidden changes (a `.gitignore`, the settings, a made `__init__.py`
//! shown): then every listing is forgotten. A listing read before such a change and
//! finished after it is not kept either: a watcher that forgot the listings while a reader
//! was still listing with the old rules would otherwise leave the old listing in force
//! until the folder's time moved again, which for a `.gitignore` edited in place is never.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use super::DiskEntry;
use crate::tree::lock;

/// Folders whose listings are kept at once; past it the keeping starts afresh.
const MOST: usize = 4096;

/// A folder's shown entries, the folder's modification time when they were read, and the
/// glance (its number, see [`crate::tree::glance::Glance::id`]) that last found that time
/// unchanged.
type Listed = (Option<SystemTime>, Arc<Vec<DiskEntry>>, u64);

/// The kept listings, by folder.
#[derive(Debug, Default)]
pub(super) struct Listings {
    kept: Mutex<HashMap<PathBuf, Listed>>,
    /// Moves each time listings are forgotten, under the `kept` lock.
    generation: AtomicU64,
}

impl Listings {
    /// Where a listing about to be read stands; hand it to [`Listings::keep`].
    pub(super) fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// `dir`'s listing, if glance `id` already found it current.
    pub(super) fn glanced(&self, dir: &Path, id: u64) -> Option<Arc<Vec<DiskEntry>>> {
        match lock(&self.kept).get(dir) {
            Some((_, entries, looked)) if *looked == id => Some(Arc::clone(entries)),
            _ => None,
        }
    }

    /// `dir`'s listing, if it was read at the folder's time `mtime`; glance `looked` is
    /// noted as having found it current.
    pub(super) fn current(
        &self,
        dir: &Path,
        mtime: Option<SystemTime>,
        looked: u64,
    ) -> Option<Arc<Vec<DiskEntry>>> {
        let mut kept = lock(&self.kept);
        let (seen, entries, glance) = kept.get_mut(dir)?;
        if mtime.is_none() || *seen != mtime {
            return None;
        }
        *glance = looked;
        Some(Arc::clone(entries))
    }

    /// Keep `dir`'s listing, read at the folder's time `mtime` since `generation`
    /// ([`Listings::generation`]): not if listings were forgotten meanwhile.
    pub(super) fn keep(
        &self,
        dir: &Path,
        generation: u64,
        mtime: Option<SystemTime>,
        entries: &Arc<Vec<DiskEntry>>,
        looked: u64,
    ) {
        let mut kept = lock(&self.kept);
        if self.generation.load(Ordering::Acquire) != generation {
            return;
        }
        if kept.len() >= MOST {
            kept.clear();
        }
        kept.insert(dir.to_path_buf(), (mtime, Arc::clone(entries), looked));
    }

    /// Forget every listing, and any being read now.
    pub(super) fn forget(&self) {
        let mut kept = lock(&self.kept);
        self.generation.fetch_add(1, Ordering::AcqRel);
        kept.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one_entry() -> Arc<Vec<DiskEntry>> {
        Arc::new(vec![DiskEntry {
            name: "_build".into(),
            kind: super::super::EntryKind::Dir,
            path: PathBuf::from("/p/docs/_build"),
        }])
    }

    #[test]
    fn a_listing_read_across_a_forgetting_is_not_kept() {
        let listings = Listings::default();
        let dir = Path::new("/p/docs");
        let mtime = Some(SystemTime::UNIX_EPOCH);
        let before = listings.generation();
        // A .gitignore change is seen while the listing is being read with the old rules.
        listings.forget();
        listings.keep(dir, before, mtime, &one_entry(), 0);
        assert!(listings.current(dir, mtime, 0).is_none());

        let now = listings.generation();
        listings.keep(dir, now, mtime, &one_entry(), 7);
        assert_eq!(listings.current(dir, mtime, 8), Some(one_entry()));
        assert_eq!(listings.glanced(dir, 8), Some(one_entry()));
        assert!(listings.current(dir, Some(SystemTime::now()), 9).is_none());
        listings.forget();
        assert!(listings.glanced(dir, 8).is_none());
    }
}
