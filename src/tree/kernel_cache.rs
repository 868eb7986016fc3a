//! What the kernel keeps of the tree, and telling it what to forget. The FUSE adapter
//! reports which inodes the kernel holds (lookups and forgets) and hands over a
//! [`Notifier`]; the tree says what changed (`invalidation.rs`), and this drops the content
//! it rendered for those inodes and tells the kernel to drop their attributes, pages and
//! listings. The content kept here is what lets an `open` of an unchanged view cost no
//! rendering; a generation counter keeps a rendering that raced a change from being kept.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use crate::model::Ino;
use crate::tree::inodes::{Print, ROOT};
use crate::tree::lock;

/// How the tree tells the kernel to drop what it keeps (the FUSE session's notifier).
pub trait Notifier: Send + Sync {
    /// Drop the attributes, pages and listing the kernel keeps of `ino`. A name the
    /// kernel looked up needs no invalidation: names keep their numbers (renames move
    /// them), and a number whose path is gone answers "no such file".
    fn inode(&self, ino: Ino);
}

/// Whether the kernel may keep what the mount serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheMode {
    /// Long lifetimes, pages kept across opens, every change invalidated (the default).
    Kept,
    /// Nothing kept beyond a moment (`--no-cache`): every access asks the daemon.
    Off,
}

/// Bytes of rendered content kept at most; past it, new content is not kept.
const CONTENT_CAP: usize = 64 << 20;

/// What is known of one inode the kernel holds or the daemon rendered.
#[derive(Default)]
struct Held {
    /// Lookups the kernel has not forgotten.
    lookups: u64,
    /// Changes to it are not announced under its path (it was reached through another
    /// name): every change reaches it.
    volatile: bool,
    /// The fingerprint of what the last open served: the kernel's pages come from it.
    paged: Option<Print>,
    /// The content rendered last, with its fingerprint, while nothing it shows changed.
    content: Option<(Arc<Vec<u8>>, Print)>,
}

#[derive(Default)]
struct State {
    held: HashMap<Ino, Held>,
    /// Bumped by every change; content rendered before a bump is not kept.
    generation: u64,
    bytes: usize,
}

impl State {
    /// Drop kept content until at most `keep` bytes are left: new content is worth more
    /// than the oldest of a big walk (`ls -lR`), which the kernel's own pages still hold.
    fn make_room(&mut self, keep: usize) {
        let mut bytes = self.bytes;
        for held in self.held.values_mut() {
            if bytes <= keep {
                break;
            }
            if let Some((content, _)) = held.content.take() {
                bytes -= content.len();
            }
        }
        self.bytes = bytes;
    }
}

/// What the kernel and the daemon keep, per inode.
pub struct KernelCache {
    mode: CacheMode,
    notifier: OnceLock<Box<dyn Notifier>>,
    state: Mutex<State>,
}

impl KernelCache {
    pub fn new(mode: CacheMode) -> Self {
        let mut state = State::default();
        // The root is never looked up and never forgotten; its listing is kept too.
        state.held.insert(
            ROOT,
            Held {
                lookups: 1,
                ..Held::default()
            },
        );
        KernelCache {
            mode,
            notifier: OnceLock::new(),
            state: Mutex::new(state),
        }
    }

    pub fn mode(&self) -> CacheMode {
        self.mode
    }

    /// Start telling the kernel what to drop (once, when the session starts).
    pub fn attach(&self, notifier: Box<dyn Notifier>) {
        let _ = self.notifier.set(notifier);
    }

    /// The kernel was handed `ino` (a lookup, create or mkdir reply); `volatile` when its
    /// changes are not announced under its path.
    pub fn looked_up(&self, ino: Ino, volatile: bool) {
        let mut state = lock(&self.state);
        let held = state.held.entry(ino).or_default();
        held.lookups += 1;
        held.volatile |= volatile;
    }

    /// The kernel forgot `count` lookups of `ino`; with none left, nothing of it is kept.
    pub fn forgot(&self, ino: Ino, count: u64) {
        let mut state = lock(&self.state);
        let Some(held) = state.held.get_mut(&ino) else {
            return;
        };
        held.lookups = held.lookups.saturating_sub(count);
        if held.lookups == 0 {
            let freed = held.content.as_ref().map_or(0, |c| c.0.len());
            state.held.remove(&ino);
            state.bytes -= freed;
        }
    }

    /// The generation now: pass it to [`KernelCache::keep`] with what is rendered next.
    pub fn generation(&self) -> u64 {
        lock(&self.state).generation
    }

    /// The content kept for `ino` and its fingerprint, if nothing it shows changed since
    /// it was rendered.
    pub fn content(&self, ino: Ino) -> Option<(Arc<Vec<u8>>, Print)> {
        if self.mode == CacheMode::Off {
            return None;
        }
        lock(&self.state).held.get(&ino)?.content.clone()
    }

    /// Keep `content` of `ino` (fingerprint `print`), rendered at `generation`, unless
    /// something changed since.
    pub fn keep(&self, ino: Ino, generation: u64, content: &Arc<Vec<u8>>, print: Print) {
        if self.mode == CacheMode::Off {
            return;
        }
        let mut state = lock(&self.state);
        if state.generation != generation || content.len() > CONTENT_CAP / 4 {
            return;
        }
        if state.bytes + content.len() > CONTENT_CAP {
            state.make_room(CONTENT_CAP / 2);
        }
        state.bytes += content.len();
        let held = state.held.entry(ino).or_default();
        let before = held.content.replace((Arc::clone(content), print));
        let freed = before.map_or(0, |c| c.0.len());
        state.bytes -= freed;
    }

    /// An open of `ino` serves content with fingerprint `now`: whether the kernel may keep
    /// the pages it holds (filled from the previous open). When they hold something else
    /// (a change that raced a read), the kernel is also told to drop the attributes.
    pub fn opened(&self, ino: Ino, now: Print) -> bool {
        let before = {
            let mut state = lock(&self.state);
            let held = state.held.entry(ino).or_default();
            held.paged.replace(now)
        };
        match before {
            Some(before) if before != now => {
                if let Some(notifier) = self.notifier.get() {
                    notifier.inode(ino);
                }
                false
            }
            _ => true,
        }
    }

    /// Of `candidates`, those known here (held by the kernel or rendered), and every
    /// volatile one besides (any change reaches them).
    pub fn held_among(&self, candidates: Vec<Ino>) -> Vec<Ino> {
        let state = lock(&self.state);
        let mut hit: Vec<Ino> = candidates
            .into_iter()
            .filter(|ino| state.held.contains_key(ino))
            .collect();
        hit.extend(
            state
                .held
                .iter()
                .filter(|(_, h)| h.volatile)
                .map(|(&ino, _)| ino),
        );
        hit.sort_unstable();
        hit.dedup();
        hit
    }

    /// Forget the content of `inos` and tell the kernel to drop them. Call with no lock
    /// of the tree held: the kernel may wait for a request that needs one.
    pub fn drop_inodes(&self, inos: &[Ino]) {
        {
            let mut state = lock(&self.state);
            state.generation += 1;
            let mut freed = 0;
            for ino in inos {
                if let Some(held) = state.held.get_mut(ino) {
                    freed += held.content.take().map_or(0, |c| c.0.len());
                }
            }
            state.bytes -= freed;
        }
        let deferred = DEFERRED.with_borrow_mut(|deferred| match deferred {
            Some(later) => {
                later.extend_from_slice(inos);
                true
            }
            None => false,
        });
        if !deferred {
            self.notify(inos);
        }
    }

    /// Hold back, on this thread, the kernel's invalidations until the returned guard is
    /// dropped. For a request the kernel serves while it holds the pages it asked for (a
    /// read into its page cache): invalidating those pages before the reply would wait
    /// for the reply forever. The content kept here is dropped at once all the same.
    pub fn holding_pages(&self) -> PagesHeld<'_> {
        DEFERRED.with_borrow_mut(|deferred| *deferred = Some(Vec::new()));
        PagesHeld { cache: self }
    }

    fn notify(&self, inos: &[Ino]) {
        if let Some(notifier) = self.notifier.get() {
            for &ino in inos {
                notifier.inode(ino);
            }
        }
    }
}

thread_local! {
    /// Invalidations held back on this thread (see [`KernelCache::holding_pages`]).
    static DEFERRED: RefCell<Option<Vec<Ino>>> = const { RefCell::new(None) };
}

/// Invalidations held back while a request holds the kernel's pages; dropping it (after
/// the reply) sends them.
pub struct PagesHeld<'a> {
    cache: &'a KernelCache,
}

impl Drop for PagesHeld<'_> {
    fn drop(&mut self) {
        let mut inos = DEFERRED.with_borrow_mut(Option::take).unwrap_or_default();
        inos.sort_unstable();
        inos.dedup();
        self.cache.notify(&inos);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::inodes::print;

    #[test]
    fn content_rendered_before_a_change_is_not_kept() {
        let cache = KernelCache::new(CacheMode::Kept);
        let before = cache.generation();
        cache.drop_inodes(&[]);
        cache.keep(Ino(2), before, &Arc::new(b"old".to_vec()), print(b"old"));
        assert_eq!(cache.content(Ino(2)), None);
        let now = cache.generation();
        cache.keep(Ino(2), now, &Arc::new(b"new".to_vec()), print(b"new"));
        let (kept, kept_print) = cache.content(Ino(2)).unwrap();
        assert_eq!((kept.as_slice(), kept_print), (&b"new"[..], print(b"new")));
        cache.drop_inodes(&[Ino(2)]);
        assert_eq!(cache.content(Ino(2)), None);
    }

    #[test]
    fn pages_are_kept_only_for_the_same_content() {
        let cache = KernelCache::new(CacheMode::Kept);
        assert!(
            cache.opened(Ino(3), print(b"a")),
            "nothing kept before the first open"
        );
        assert!(cache.opened(Ino(3), print(b"a")));
        assert!(!cache.opened(Ino(3), print(b"b")));
        assert!(cache.opened(Ino(3), print(b"b")));
    }

    #[test]
    fn forgetting_every_lookup_frees_the_content() {
        let cache = KernelCache::new(CacheMode::Kept);
        cache.looked_up(Ino(4), false);
        cache.looked_up(Ino(4), false);
        cache.keep(
            Ino(4),
            cache.generation(),
            &Arc::new(vec![0; 10]),
            print(&[0; 10]),
        );
        cache.forgot(Ino(4), 1);
        assert!(cache.content(Ino(4)).is_some());
        cache.forgot(Ino(4), 1);
        assert!(cache.content(Ino(4)).is_none());
        assert_eq!(lock(&cache.state).bytes, 0);
    }

    #[test]
    fn a_full_cache_makes_room_for_new_content() {
        let cache = KernelCache::new(CacheMode::Kept);
        let piece = Arc::new(vec![1u8; CONTENT_CAP / 8]);
        for ino in 10..30 {
            cache.keep(Ino(ino), cache.generation(), &piece, print(&piece));
            assert!(
                cache.content(Ino(ino)).is_some(),
                "the newest is always kept"
            );
            assert!(lock(&cache.state).bytes <= CONTENT_CAP);
        }
        let kept = (10..30)
            .filter(|&ino| cache.content(Ino(ino)).is_some())
            .count();
        assert!((4..=8).contains(&kept), "{kept} kept");
    }

    #[derive(Default)]
    struct Told(Mutex<Vec<Ino>>);

    impl Notifier for Arc<Told> {
        fn inode(&self, ino: Ino) {
            lock(&self.0).push(ino);
        }
    }

    #[test]
    fn invalidations_wait_while_a_request_holds_the_kernels_pages() {
        let cache = KernelCache::new(CacheMode::Kept);
        let told = Arc::new(Told::default());
        cache.attach(Box::new(Arc::clone(&told)));
        cache.keep(
            Ino(7),
            cache.generation(),
            &Arc::new(b"x".to_vec()),
            print(b"x"),
        );
        let held = cache.holding_pages();
        cache.drop_inodes(&[Ino(7), Ino(8)]);
        cache.drop_inodes(&[Ino(7)]);
        assert!(lock(&told.0).is_empty(), "nothing told before the reply");
        assert_eq!(
            cache.content(Ino(7)),
            None,
            "the content is dropped at once"
        );
        drop(held);
        assert_eq!(*lock(&told.0), vec![Ino(7), Ino(8)]);
        cache.drop_inodes(&[Ino(9)]);
        assert_eq!(
            *lock(&told.0),
            vec![Ino(7), Ino(8), Ino(9)],
            "told at once again"
        );
    }

    #[test]
    fn nothing_is_kept_with_caching_off() {
        let cache = KernelCache::new(CacheMode::Off);
        cache.keep(
            Ino(5),
            cache.generation(),
            &Arc::new(b"x".to_vec()),
            print(b"x"),
        );
        assert_eq!(cache.content(Ino(5)), None);
    }
}
