//! One look at the disk per folder within a request that only reads. A listing with
//! attributes (`readdirplus`) resolves each of its entries from `source/`'s top, and every
//! step of that way asks whether the folder changed (a stat): the same few folders, once
//! per entry. Within a [`Glance`], what a first look found holds for the rest of it: the
//! request answers as of its start, which is all a request that changes nothing can
//! promise anyway. The same holds for a file's attributes ([`Glance::metadata`]): a
//! module's link, its file and its folder's view each ask for them; and for what a
//! resource works out once for a request ([`Memo`]): a session's digest, the tasks of a
//! folder a listing shows, the entry a lookup stats and then reads to size.
//!
//! A glance is a value, not a state of the thread: [`crate::tree::Space`] makes one at
//! the start of each operation that reads (a lookup, a getattr, an open, a read, a
//! listing; [`Glance::listing`] for a listing with attributes) and hands it down to the
//! [`Resource`] methods that read, which hand it on to what they ask. What it keeps is
//! dropped with it. A glance never spans a write, by construction: the methods that
//! change something ([`Edit`]) take none, so nothing they do can find a look taken
//! before the change; a read a write makes on its way (whether the target exists) is
//! given a fresh glance of its own. A helper that both reads and writes reach (source/'s
//! walk of a path, its project listings, its parses) takes an `Option<&Glance>`: `None`,
//! from a write or from work no request asked for (search, warming up), looks at the disk
//! as it is. A glance holds `RefCell`s, so it is neither `Sync` nor shared: one request's
//! thread has it, and a listing's rows never outlive the request that read them.
//!
//! [`Resource`]: crate::tree::resource::Resource
//! [`Edit`]: crate::tree::resource::Edit

use std::any::Any;
use std::cell::RefCell;
use std::collections::HashMap;
use std::fs::Metadata;
use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::Result;

/// Rows a resource reads at once for the entries of a listing within a glance: about
/// what one listing with attributes shows of a folder.
pub const RUN: usize = 256;

/// Glances made so far: each gets a number of its own, never 0.
static OPENED: AtomicU64 = AtomicU64::new(0);

/// Memos made so far: each gets a number of its own.
static MEMOS: AtomicU64 = AtomicU64::new(0);

/// One request that only reads, and what was looked up in it.
pub struct Glance {
    /// This glance's number: a look kept elsewhere, noted with it, holds for all of it.
    id: u64,
    /// Whether it serves a listing with attributes ([`Glance::listing`]).
    listing: bool,
    /// The attributes looked up in it, by path.
    looked: RefCell<HashMap<PathBuf, Metadata>>,
    /// What each [`Memo`] made in it, by the memo's number, with its key.
    made: RefCell<HashMap<u64, Box<dyn Any>>>,
}

impl Default for Glance {
    fn default() -> Self {
        Glance::new()
    }
}

impl Glance {
    /// A glance of its own: a lookup, a getattr, an open, a read.
    pub fn new() -> Glance {
        Glance::made(false)
    }

    /// A glance for a listing with attributes: each entry listed is looked up in it, so a
    /// resource reads the rows of the next entries with the first one's
    /// ([`Glance::in_listing`], [`RUN`]).
    pub fn listing() -> Glance {
        Glance::made(true)
    }

    fn made(listing: bool) -> Glance {
        Glance {
            id: OPENED.fetch_add(1, Ordering::Relaxed) + 1,
            listing,
            looked: RefCell::default(),
            made: RefCell::default(),
        }
    }

    /// Whether this glance serves a listing: elsewhere a lookup asks for one entry, and
    /// reading a run of them would cost more than it saves.
    pub fn in_listing(&self) -> bool {
        self.listing
    }

    /// This glance's number (never 0): a look noted with it is good for all of it.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// `std::fs::metadata(path)`, looked up once in this glance.
    pub fn metadata(&self, path: &Path) -> std::io::Result<Metadata> {
        if let Some(meta) = self.looked.borrow().get(path) {
            return Ok(meta.clone());
        }
        let meta = std::fs::metadata(path)?;
        (self.looked.borrow_mut()).insert(path.to_path_buf(), meta.clone());
        Ok(meta)
    }
}

/// `std::fs::metadata(path)`, looked up once in `glance` when there is one: for a helper
/// that a write reaches too, which has none.
pub fn metadata(glance: Option<&Glance>, path: &Path) -> std::io::Result<Metadata> {
    match glance {
        Some(glance) => glance.metadata(path),
        None => std::fs::metadata(path),
    }
}

/// The last value a resource worked out within a glance, by key: the first call that
/// needs it makes it (the first entry of a listing, a lookup's stat), the others in the
/// same glance share it (the listing's next entries, the read that sizes the file). The
/// values are kept by the glance and dropped with it, so a listing's rows never outlive
/// the request that read them; a memo itself holds nothing but its number.
pub struct Memo<K, V> {
    number: u64,
    kept: PhantomData<fn() -> (K, V)>,
}

impl<K: PartialEq + 'static, V: 'static> Default for Memo<K, V> {
    fn default() -> Self {
        Memo {
            number: MEMOS.fetch_add(1, Ordering::Relaxed),
            kept: PhantomData,
        }
    }
}

impl<K: PartialEq + 'static, V: 'static> Memo<K, V> {
    /// The value for `key` made in `glance`, or `make`'s (kept for the rest of it).
    pub fn get(&self, glance: &Glance, key: K, make: impl FnOnce() -> Result<V>) -> Result<Arc<V>> {
        self.get_where(glance, key, |_| true, make)
    }

    /// The value for `key` made in `glance`, if one was: never makes one.
    fn peek(&self, glance: &Glance, key: &K) -> Option<Arc<V>> {
        let made = glance.made.borrow();
        let (kept, value) = made.get(&self.number)?.downcast_ref::<(K, Arc<V>)>()?;
        (kept == key).then(|| Arc::clone(value))
    }

    /// [`Memo::get`], where the value kept serves only if `serves` says so (a run of rows
    /// holding the one asked for); else `make`'s replaces it.
    pub fn get_where(
        &self,
        glance: &Glance,
        key: K,
        serves: impl Fn(&V) -> bool,
        make: impl FnOnce() -> Result<V>,
    ) -> Result<Arc<V>> {
        let kept = self.peek(glance, &key);
        // Asked with nothing borrowed: `serves` may ask other memos.
        if let Some(value) = kept.filter(|value| serves(value)) {
            return Ok(value);
        }
        // Not borrowed while making: making may ask other memos.
        let value = Arc::new(make()?);
        let entry: Box<dyn Any> = Box::new((key, Arc::clone(&value)));
        glance.made.borrow_mut().insert(self.number, entry);
        Ok(value)
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;

    #[test]
    fn each_glance_is_another() {
        let first = Glance::new();
        let second = Glance::new();
        assert_ne!(first.id(), second.id(), "a new glance looks again");
        assert_ne!(first.id(), 0);
    }

    #[test]
    fn a_files_attributes_are_looked_up_once_per_glance() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("m.py");
        std::fs::write(&file, "x").unwrap();
        let glance = Glance::new();
        assert_eq!(glance.metadata(&file).unwrap().len(), 1);
        std::fs::write(&file, "longer").unwrap();
        assert_eq!(
            glance.metadata(&file).unwrap().len(),
            1,
            "as of the first look"
        );
        assert_eq!(
            metadata(None, &file).unwrap().len(),
            6,
            "outside a glance, as it is"
        );
        let next = Glance::new();
        assert_eq!(
            metadata(Some(&next), &file).unwrap().len(),
            6,
            "the next glance looks again"
        );
    }

    #[test]
    fn a_memo_is_made_once_per_glance_and_key() {
        let memo: Memo<&str, usize> = Memo::default();
        let made = Cell::new(0);
        let make = || {
            made.set(made.get() + 1);
            Ok(made.get())
        };
        assert_eq!(*memo.get(&Glance::new(), "a", make).unwrap(), 1);
        assert_eq!(
            *memo.get(&Glance::new(), "a", make).unwrap(),
            2,
            "in another glance, made again"
        );
        let glance = Glance::new();
        assert_eq!(*memo.get(&glance, "a", make).unwrap(), 3);
        assert_eq!(
            *memo.get(&glance, "a", make).unwrap(),
            3,
            "kept within the glance"
        );
        let serves = |v: &usize| *v > 3;
        assert_eq!(
            *memo.get_where(&glance, "a", serves, make).unwrap(),
            4,
            "made anew: 3 does not serve"
        );
        assert_eq!(
            *memo.get_where(&glance, "a", serves, make).unwrap(),
            4,
            "4 serves"
        );
        let other: Memo<&str, usize> = Memo::default();
        assert_eq!(
            *other.get(&glance, "a", make).unwrap(),
            5,
            "each memo keeps its own"
        );
        let b = memo.get(&glance, "b", make).unwrap();
        assert_eq!(*b, 6, "another key is made anew");
        assert_eq!(
            memo.peek(&glance, &"b").as_deref(),
            Some(&6),
            "peeked: what was made"
        );
        assert_eq!(memo.peek(&glance, &"a"), None, "the key kept is b's");
        assert_eq!(made.get(), 6, "peeking makes nothing");
        assert_eq!(Arc::strong_count(&b), 2, "kept by the glance");
        drop(glance);
        assert_eq!(Arc::strong_count(&b), 1, "dropped with the glance");
        let next = Glance::new();
        assert_eq!(memo.peek(&next, &"b"), None, "nothing in another glance");
        assert_eq!(
            *memo.get(&next, "b", make).unwrap(),
            7,
            "the next glance makes it again"
        );
    }

    #[test]
    fn a_listing_is_a_glance_that_says_so() {
        assert!(
            !Glance::new().in_listing(),
            "a plain glance serves no listing"
        );
        assert!(Glance::listing().in_listing());
        assert!(!Glance::default().in_listing(), "the default is plain");
    }
}
