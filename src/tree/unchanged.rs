//! What the daemon works out once and keeps while nothing in the tree changes: kept for
//! the generation of the tree it was worked out at
//! ([`crate::tree::kernel_cache::KernelCache::generation`]), so every change anywhere,
//! through the mount or from outside, starts the keeping afresh, as it does for the
//! rendered views the kernel keeps. Something worked out while a change landed belongs to
//! the older generation and is never given out again.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::Mutex;

use crate::tree::lock;

/// Values by key, for one generation of the tree, at most `most` of them (past it the
/// keeping starts afresh).
pub struct KeptUnchanged<K, V> {
    kept: Mutex<(u64, HashMap<K, V>)>,
    most: usize,
}

impl<K: Eq + Hash, V: Clone> KeptUnchanged<K, V> {
    pub fn new(most: usize) -> Self {
        KeptUnchanged {
            kept: Mutex::new((0, HashMap::new())),
            most,
        }
    }

    /// The value of `key`, if it was worked out at `generation` (nothing changed since).
    pub fn get(&self, key: &K, generation: u64) -> Option<V> {
        let kept = lock(&self.kept);
        (kept.0 == generation).then(|| kept.1.get(key).cloned())?
    }

    /// Keep `value` of `key`, worked out at `generation`.
    pub fn keep(&self, key: K, value: V, generation: u64) {
        let mut kept = lock(&self.kept);
        if generation < kept.0 {
            return;
        }
        if kept.0 != generation || kept.1.len() >= self.most {
            *kept = (generation, HashMap::new());
        }
        kept.1.insert(key, value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_holds_within_its_generation_and_not_after() {
        let kept = KeptUnchanged::new(8);
        kept.keep("source", "a.py", 1);
        assert_eq!(kept.get(&"source", 1), Some("a.py"), "unchanged tree: kept");
        assert_eq!(kept.get(&"tasks", 1), None);
        assert_eq!(
            kept.get(&"source", 2),
            None,
            "a change anywhere: worked out again"
        );
        kept.keep("tasks", "b.json", 2);
        assert_eq!(kept.get(&"source", 2), None, "the older generation is gone");
    }

    #[test]
    fn a_value_worked_out_while_a_change_landed_is_never_given_out() {
        let kept = KeptUnchanged::new(8);
        kept.keep("source", "new.py", 2);
        kept.keep("source", "old.py", 1);
        assert_eq!(kept.get(&"source", 2), Some("new.py"));
        assert_eq!(kept.get(&"source", 1), None);
    }

    #[test]
    fn past_the_most_the_keeping_starts_afresh() {
        let kept = KeptUnchanged::new(2);
        kept.keep(1, 'a', 5);
        kept.keep(2, 'b', 5);
        kept.keep(3, 'c', 5);
        assert_eq!((kept.get(&1, 5), kept.get(&3, 5)), (None, Some('c')));
    }
}
