//! A limit on changes in flight. A change can be slow (an import check waits for Python, up
//! to its timeout); if every request thread were busy with changes, a plain `cat` would
//! wait too. Changes pass this gate, which admits fewer at once than there are request
//! threads, so reads always find a free thread.

use std::sync::{Condvar, Mutex};

use crate::tree::lock;

/// Admits at most `capacity` holders at a time; the others wait their turn.
#[derive(Debug)]
pub struct Gate {
    inside: Mutex<usize>,
    freed: Condvar,
    capacity: usize,
}

/// Holding one lets a change proceed; dropping it lets the next one in.
pub struct Pass<'g> {
    gate: &'g Gate,
}

impl Gate {
    pub fn new(capacity: usize) -> Self {
        Gate {
            inside: Mutex::new(0),
            freed: Condvar::new(),
            capacity: capacity.max(1),
        }
    }

    /// Wait until there is room, then enter.
    pub fn enter(&self) -> Pass<'_> {
        let mut inside = lock(&self.inside);
        while *inside >= self.capacity {
            inside = self
                .freed
                .wait(inside)
                .unwrap_or_else(|poisoned| poisoned.into_inner());
        }
        *inside += 1;
        Pass { gate: self }
    }
}

impl Drop for Pass<'_> {
    fn drop(&mut self) {
        let mut inside = lock(&self.gate.inside);
        *inside = inside.saturating_sub(1);
        self.gate.freed.notify_one();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn never_more_than_capacity_inside() {
        let gate = Arc::new(Gate::new(2));
        let inside = Arc::new(AtomicUsize::new(0));
        let most = Arc::new(AtomicUsize::new(0));
        let workers: Vec<_> = (0..8)
            .map(|_| {
                let (gate, inside, most) = (gate.clone(), inside.clone(), most.clone());
                std::thread::spawn(move || {
                    let _pass = gate.enter();
                    let now = inside.fetch_add(1, Ordering::SeqCst) + 1;
                    most.fetch_max(now, Ordering::SeqCst);
                    std::thread::sleep(std::time::Duration::from_millis(20));
                    inside.fetch_sub(1, Ordering::SeqCst);
                })
            })
            .collect();
        for worker in workers {
            worker.join().unwrap();
        }
        assert_eq!(most.load(Ordering::SeqCst), 2);
    }
}
