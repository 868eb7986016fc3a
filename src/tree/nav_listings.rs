//! The folder listings `_nav.txt` is drawn from, kept while nothing in the tree changes.
//! Every `_nav.txt` lists the folders on its way from the top with their siblings, so a
//! recursive `ls -l` (which renders each folder's `_nav.txt` for its size) would list
//! `source/`'s top once per folder below it. A listing is kept only for the generation of
//! the tree it was taken at ([`crate::tree::kernel_cache::KernelCache::generation`]):
//! every change anywhere, through the mount or from outside, starts the keeping afresh,
//! as it does for the rendered views the kernel keeps.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::model::{Kind, TreePath};
use crate::tree::lock;

/// Listings kept at once; past it the keeping starts afresh.
const KEPT_MOST: usize = 1024;

/// Names and kinds of one folder's members, as `ls` shows them.
pub type Names = Arc<Vec<(String, Kind)>>;

/// The kept listings and the generation they belong to.
#[derive(Default)]
pub struct NavListings {
    kept: Mutex<(u64, HashMap<TreePath, Names>)>,
}

impl NavListings {
    /// The listing of `dir` kept at `generation`, else `list`'s, kept unless the tree
    /// changed meanwhile (`now` says the generation after listing).
    pub fn get_or(
        &self,
        dir: &TreePath,
        generation: u64,
        list: impl FnOnce() -> crate::error::Result<Vec<(String, Kind)>>,
        now: impl FnOnce() -> u64,
    ) -> crate::error::Result<Names> {
        {
            let kept = lock(&self.kept);
            if kept.0 == generation
                && let Some(names) = kept.1.get(dir)
            {
                return Ok(Arc::clone(names));
            }
        }
        let names = Arc::new(list()?);
        if now() == generation {
            let mut kept = lock(&self.kept);
            if kept.0 != generation || kept.1.len() >= KEPT_MOST {
                *kept = (generation, HashMap::new());
            }
            kept.1.insert(dir.clone(), Arc::clone(&names));
        }
        Ok(names)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listing(name: &str) -> Vec<(String, Kind)> {
        vec![(name.to_string(), Kind::Document)]
    }

    #[test]
    fn a_listing_holds_within_its_generation_and_not_after() {
        let kept = NavListings::default();
        let dir = TreePath::from_names(["source"]);
        let first = kept.get_or(&dir, 1, || Ok(listing("a.py")), || 1).unwrap();
        let again = kept.get_or(&dir, 1, || Ok(listing("b.py")), || 1).unwrap();
        assert_eq!(again, first, "unchanged tree: the kept listing");
        let after = kept.get_or(&dir, 2, || Ok(listing("b.py")), || 2).unwrap();
        assert_eq!(after[0].0, "b.py", "a change anywhere lists again");
    }

    #[test]
    fn a_listing_raced_by_a_change_is_not_kept() {
        let kept = NavListings::default();
        let dir = TreePath::from_names(["source"]);
        kept.get_or(&dir, 1, || Ok(listing("old.py")), || 2)
            .unwrap();
        let next = kept
            .get_or(&dir, 1, || Ok(listing("new.py")), || 1)
            .unwrap();
        assert_eq!(next[0].0, "new.py");
    }
}
