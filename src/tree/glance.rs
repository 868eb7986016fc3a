//! One look at the disk per folder within a request that only reads. A listing with
//! attributes (`readdirplus`) resolves each of its entries from `source/`'s top, and every
//! step of that way asks whether the folder changed (a stat): the same few folders, once
//! per entry. Within a [`Glance`], what a first look found holds for the rest of it: the
//! request answers as of its start, which is all a request that changes nothing can
//! promise anyway. A glance must never span a write: the request would not see its own
//! change. The same holds for a file's attributes ([`metadata`]): a module's link, its file
//! and its folder's view each ask for them; and for what a resource works out once for a
//! request ([`Memo`]): a session's digest, the tasks of a folder a listing shows, the
//! entry a lookup stats and then reads to size. Listings (`readdirplus`) open a glance of
//! their own kind ([`listing`]); a file's attributes (lookup, getattr) and an open are each
//! worked out in a plain one.

use std::any::Any;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::fs::Metadata;
use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::Result;

/// Glances opened so far: each gets a number of its own, never 0.
static OPENED: AtomicU64 = AtomicU64::new(0);

thread_local! {
    /// The glance this thread is in, 0 for none.
    static CURRENT: Cell<u64> = const { Cell::new(0) };
    /// Whether that glance serves a listing ([`listing`]).
    static LISTING: Cell<bool> = const { Cell::new(false) };
    /// The attributes looked up in this thread's glance.
    static LOOKED: RefCell<HashMap<PathBuf, Metadata>> = RefCell::new(HashMap::new());
    /// What each [`Memo`] made in this thread's glance, by the memo's number, with its key.
    static MADE: RefCell<HashMap<u64, Box<dyn Any>>> = RefCell::new(HashMap::new());
}

/// Rows a resource reads at once for the entries of a listing within a glance: about
/// what one listing with attributes shows of a folder.
pub const RUN: usize = 256;

/// Memos made so far: each gets a number of its own.
static MEMOS: AtomicU64 = AtomicU64::new(0);

/// A glance, until dropped.
pub struct Glance {
    /// Whether this guard opened the glance (a nested one keeps the outer one's).
    opened: bool,
}

/// Open a glance on this thread, or stay in the one it is in.
pub fn glance() -> Glance {
    let opened = CURRENT.with(|current| {
        if current.get() != 0 {
            return false;
        }
        current.set(OPENED.fetch_add(1, Ordering::Relaxed) + 1);
        true
    });
    Glance { opened }
}

/// Open a glance for a listing with attributes on this thread (or stay in the one it is
/// in): each entry listed is looked up in it, so a resource reads the rows of the next
/// entries with the first one's ([`in_listing`], [`RUN`]).
pub fn listing() -> Glance {
    let glance = glance();
    if glance.opened {
        LISTING.with(|listing| listing.set(true));
    }
    glance
}

/// Whether this thread is in a glance that serves a listing: elsewhere a lookup asks for
/// one entry, and reading a run of them would cost more than it saves.
pub fn in_listing() -> bool {
    current().is_some() && LISTING.with(Cell::get)
}

/// The glance this thread is in, if any: a look taken in it is good for all of it.
pub fn current() -> Option<u64> {
    let id = CURRENT.with(Cell::get);
    (id != 0).then_some(id)
}

/// `std::fs::metadata(path)`, looked up once per glance.
pub fn metadata(path: &Path) -> std::io::Result<Metadata> {
    if current().is_none() {
        return std::fs::metadata(path);
    }
    if let Some(meta) = LOOKED.with(|looked| looked.borrow().get(path).cloned()) {
        return Ok(meta);
    }
    let meta = std::fs::metadata(path)?;
    LOOKED.with(|looked| looked.borrow_mut().insert(path.to_path_buf(), meta.clone()));
    Ok(meta)
}

/// The last value a resource worked out within a glance, by key: the first call that
/// needs it makes it (the first entry of a listing, a lookup's stat), the others in the
/// same glance share it (the listing's next entries, the read that sizes the file). Outside a
/// glance every call makes its own. Values are kept by the glance's thread and dropped
/// with the glance, so a listing's rows never outlive the request that read them.
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
    /// The value for `key` made in this glance, or `make`'s (kept for the rest of it).
    pub fn get(&self, key: K, make: impl FnOnce() -> Result<V>) -> Result<Arc<V>> {
        self.get_where(key, |_| true, make)
    }

    /// The value for `key` made in this glance, if one was: never makes one.
    fn peek(&self, key: &K) -> Option<Arc<V>> {
        current()?;
        MADE.with(|made| {
            let made = made.borrow();
            let (kept, value) = made.get(&self.number)?.downcast_ref::<(K, Arc<V>)>()?;
            (kept == key).then(|| Arc::clone(value))
        })
    }

    /// [`Memo::get`], where the value kept serves only if `serves` says so (a run of rows
    /// holding the one asked for); else `make`'s replaces it.
    pub fn get_where(
        &self,
        key: K,
        serves: impl Fn(&V) -> bool,
        make: impl FnOnce() -> Result<V>,
    ) -> Result<Arc<V>> {
        if current().is_none() {
            return make().map(Arc::new);
        }
        let kept = self.peek(&key);
        // Asked with nothing borrowed: `serves` may ask other memos.
        if let Some(value) = kept.filter(|value| serves(value)) {
            return Ok(value);
        }
        // Not borrowed while making: making may ask other memos.
        let value = Arc::new(make()?);
        let entry: Box<dyn Any> = Box::new((key, Arc::clone(&value)));
        MADE.with(|made| made.borrow_mut().insert(self.number, entry));
        Ok(value)
    }
}

impl Drop for Glance {
    fn drop(&mut self) {
        if self.opened {
            CURRENT.with(|current| current.set(0));
            LISTING.with(|listing| listing.set(false));
            LOOKED.with(|looked| looked.borrow_mut().clear());
            MADE.with(|made| made.borrow_mut().clear());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_glance_lasts_until_its_guard_is_dropped_and_the_next_is_another() {
        assert_eq!(current(), None);
        let first = glance();
        let id = current().expect("in a glance");
        {
            let _nested = glance();
            assert_eq!(current(), Some(id), "a nested glance keeps the outer one");
        }
        assert_eq!(
            current(),
            Some(id),
            "the outer glance outlives the nested one"
        );
        drop(first);
        assert_eq!(current(), None);
        let _second = glance();
        assert_ne!(current(), Some(id), "a new glance looks again");
    }

    #[test]
    fn a_files_attributes_are_looked_up_once_per_glance() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("m.py");
        std::fs::write(&file, "x").unwrap();
        let glance = glance();
        assert_eq!(metadata(&file).unwrap().len(), 1);
        std::fs::write(&file, "longer").unwrap();
        assert_eq!(metadata(&file).unwrap().len(), 1, "as of the first look");
        drop(glance);
        assert_eq!(
            metadata(&file).unwrap().len(),
            6,
            "outside a glance, as it is"
        );
        let _next = super::glance();
        assert_eq!(
            metadata(&file).unwrap().len(),
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
        assert_eq!(*memo.get("a", make).unwrap(), 1);
        assert_eq!(
            *memo.get("a", make).unwrap(),
            2,
            "outside a glance, made each time"
        );
        let glance = glance();
        assert_eq!(*memo.get("a", make).unwrap(), 3);
        assert_eq!(*memo.get("a", make).unwrap(), 3, "kept within the glance");
        let serves = |v: &usize| *v > 3;
        assert_eq!(
            *memo.get_where("a", serves, make).unwrap(),
            4,
            "made anew: 3 does not serve"
        );
        assert_eq!(*memo.get_where("a", serves, make).unwrap(), 4, "4 serves");
        let other: Memo<&str, usize> = Memo::default();
        assert_eq!(*other.get("a", make).unwrap(), 5, "each memo keeps its own");
        let b = memo.get("b", make).unwrap();
        assert_eq!(*b, 6, "another key is made anew");
        assert_eq!(
            memo.peek(&"b").as_deref(),
            Some(&6),
            "peeked: what was made"
        );
        assert_eq!(memo.peek(&"a"), None, "the key kept is b's");
        assert_eq!(made.get(), 6, "peeking makes nothing");
        assert_eq!(Arc::strong_count(&b), 2, "kept by the glance");
        drop(glance);
        assert_eq!(memo.peek(&"b"), None, "nothing outside a glance");
        assert_eq!(Arc::strong_count(&b), 1, "dropped with the glance");
        let _next = super::glance();
        assert_eq!(
            *memo.get("b", make).unwrap(),
            7,
            "the next glance makes it again"
        );
    }

    #[test]
    fn a_listing_is_a_glance_that_says_so_until_it_ends() {
        {
            let _plain = glance();
            assert!(!in_listing(), "a plain glance serves no listing");
            let _nested = listing();
            assert!(
                !in_listing(),
                "a nested listing keeps the outer glance's kind"
            );
        }
        let listed = listing();
        assert!(current().is_some() && in_listing());
        {
            // Each entry's attributes are worked out in a glance of their own.
            let _attributes = glance();
            assert!(in_listing(), "a glance within a listing is the listing's");
        }
        assert!(in_listing(), "the listing goes on after it");
        drop(listed);
        assert!(!in_listing(), "ended with its glance");
        let _next = glance();
        assert!(!in_listing(), "the next glance is plain");
    }

    #[test]
    fn a_glance_belongs_to_its_thread() {
        let _here = glance();
        let there = std::thread::spawn(current).join().unwrap();
        assert_eq!(there, None);
    }
}
