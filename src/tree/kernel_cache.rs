//! What the kernel keeps of the tree, and telling it what to forget. The FUSE adapter
//! reports which inodes the kernel holds (lookups and forgets) and hands over a
//! [`Notifier`]; the tree says what changed (`invalidation.rs`), and this drops the content
//! it rendered for those inodes and has the kernel drop their attributes, pages and
//! listings (pages and listings from a thread of their own: `invalidator.rs`). The content
//! kept here is what lets an `open` of an unchanged view cost no rendering; a generation
//! counter keeps a rendering that raced a change from being kept.

use std::cell::Cell;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use crate::model::Ino;
use crate::tree::inodes::{Print, ROOT};
use crate::tree::invalidator::Invalidator;
pub use crate::tree::invalidator::Notifier;
use crate::tree::lock;

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
    invalidator: OnceLock<Invalidator>,
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
            invalidator: OnceLock::new(),
            state: Mutex::new(state),
        }
    }

    pub fn mode(&self) -> CacheMode {
        self.mode
    }

    /// Start telling the kernel what to drop (once, when the session starts).
    pub fn attach(&self, notifier: Box<dyn Notifier>) -> std::io::Result<()> {
        let invalidator = Invalidator::start(notifier)?;
        let _ = self.invalidator.set(invalidator);
        Ok(())
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
    /// (a change that raced a read), the kernel is also told to drop the attributes; the
    /// pages it drops itself, as the open does not keep them.
    pub fn opened(&self, ino: Ino, now: Print) -> bool {
        let before = {
            let mut state = lock(&self.state);
            let held = state.held.entry(ino).or_default();
            held.paged.replace(now)
        };
        match before {
            Some(before) if before != now => {
                if let Some(invalidator) = self.invalidator.get() {
                    invalidator.drop_attributes(ino);
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
    /// of the tree held: the kernel may wait for a request that needs one. Returns once
    /// the kernel dropped them, or after [`crate::tree::invalidator::WAIT`] (at once while
    /// this thread holds the kernel's pages, see [`KernelCache::holding_pages`]).
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
        if let Some(invalidator) = self.invalidator.get() {
            invalidator.drop_inodes(inos, !HOLDING_PAGES.get());
        }
    }

    /// Say, for this thread, that the kernel holds pages until the returned guard is
    /// dropped (a read into its page cache, answered after the guard): invalidations this
    /// request causes must not wait to be sent, since the pages they drop are its own.
    pub fn holding_pages(&self) -> PagesHeld {
        HOLDING_PAGES.set(true);
        PagesHeld(())
    }
}

thread_local! {
    /// This thread answers a read the kernel holds pages for (see
    /// [`KernelCache::holding_pages`]).
    static HOLDING_PAGES: Cell<bool> = const { Cell::new(false) };
}

/// This thread's request holds the kernel's pages while it lives.
pub struct PagesHeld(());

impl Drop for PagesHeld {
    fn drop(&mut self) {
        HOLDING_PAGES.set(false);
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
    struct Told(Mutex<Vec<(&'static str, Ino)>>);

    impl Notifier for Arc<Told> {
        fn attributes(&self, ino: Ino) {
            lock(&self.0).push(("attributes", ino));
        }
        fn inode(&self, ino: Ino) {
            lock(&self.0).push(("inode", ino));
        }
    }

    #[test]
    fn a_change_drops_the_content_at_once_and_has_the_kernel_drop_the_rest() {
        let cache = KernelCache::new(CacheMode::Kept);
        let told = Arc::new(Told::default());
        cache.attach(Box::new(Arc::clone(&told))).unwrap();
        cache.keep(
            Ino(7),
            cache.generation(),
            &Arc::new(b"x".to_vec()),
            print(b"x"),
        );
        {
            let _held = cache.holding_pages();
            cache.drop_inodes(&[Ino(7), Ino(8)]);
            assert_eq!(
                cache.content(Ino(7)),
                None,
                "the content is dropped at once"
            );
            let told = lock(&told.0).clone();
            assert_eq!(
                told[..2],
                [("attributes", Ino(7)), ("attributes", Ino(8))],
                "attributes are dropped before the reply"
            );
        }
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while lock(&told.0).len() < 4 {
            assert!(std::time::Instant::now() < deadline, "pages never dropped");
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        assert_eq!(lock(&told.0)[2..], [("inode", Ino(7)), ("inode", Ino(8))]);
    }

    #[test]
    fn an_open_of_changed_content_drops_only_the_attributes() {
        let cache = KernelCache::new(CacheMode::Kept);
        let told = Arc::new(Told::default());
        cache.attach(Box::new(Arc::clone(&told))).unwrap();
        assert!(cache.opened(Ino(3), print(b"a")));
        assert!(!cache.opened(Ino(3), print(b"b")));
        assert_eq!(*lock(&told.0), vec![("attributes", Ino(3))]);
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
