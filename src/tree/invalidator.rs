//! The thread that tells the kernel to drop pages and listings, so that no request thread
//! ever does it.
//!
//! Dropping a file's pages (`FUSE_NOTIFY_INVAL_INODE` with an offset) locks each page in
//! the kernel. A reader whose page is locked while its READ waits for a free request thread
//! holds that lock until some request thread answers it; if every request thread were
//! sending such an invalidation, none would be free, and the mount would hang for good.
//! So a request sends only what cannot wait on a page (an inode's attributes, see
//! [`Notifier::attributes`]) and queues the rest here. It then waits for its queue to be
//! sent for at most [`WAIT`]: long enough that, in the usual case, what it changed is
//! gone from the kernel before it answers (an `ls` right after a write sees the write);
//! bounded, so a request never waits on a reader that waits on it.

use std::collections::BTreeSet;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use crate::model::Ino;
use crate::tree::lock;

/// How the tree tells the kernel to drop what it keeps (the FUSE session's notifier).
pub trait Notifier: Send + Sync {
    /// Drop the attributes the kernel keeps of `ino` (its size among them), nothing else.
    /// Never waits on a page, so it may be sent from a request thread.
    fn attributes(&self, ino: Ino);
    /// Drop the attributes, pages and listing the kernel keeps of `ino`. May wait on a
    /// page lock a reader holds: sent only from the invalidator's own thread. A name the
    /// kernel looked up needs no invalidation: names keep their numbers (renames move
    /// them), and a number whose path is gone answers "no such file".
    fn inode(&self, ino: Ino);
}

/// How long a request waits for the invalidations it queued before it answers anyway.
pub const WAIT: Duration = Duration::from_millis(50);

#[derive(Default)]
struct Queue {
    /// Inodes waiting to be sent.
    pending: BTreeSet<Ino>,
    /// Batches queued so far; a request's batch number is this after its push.
    queued: u64,
    /// Batches whose inodes were all sent.
    sent: u64,
    /// The cache was dropped: the thread ends once the queue is empty.
    closed: bool,
}

struct Shared {
    queue: Mutex<Queue>,
    /// Wakes the thread: something was queued, or the queue closed.
    work: Condvar,
    /// Wakes waiting requests: a batch was sent.
    done: Condvar,
}

/// Invalidations queued for the kernel, sent in order by a thread of their own.
pub struct Invalidator {
    notifier: Arc<dyn Notifier>,
    shared: Arc<Shared>,
}

impl Invalidator {
    /// Start the thread that sends what `notifier` is asked to drop.
    pub fn start(notifier: Box<dyn Notifier>) -> std::io::Result<Invalidator> {
        let notifier: Arc<dyn Notifier> = Arc::from(notifier);
        let shared = Arc::new(Shared {
            queue: Mutex::new(Queue::default()),
            work: Condvar::new(),
            done: Condvar::new(),
        });
        let (thread_notifier, thread_shared) = (Arc::clone(&notifier), Arc::clone(&shared));
        std::thread::Builder::new()
            .name("invalidator".into())
            .spawn(move || send_until_closed(&*thread_notifier, &thread_shared))?;
        Ok(Invalidator { notifier, shared })
    }

    /// Tell the kernel to drop what it keeps of `inos`: their attributes at once, their
    /// pages and listings from the thread. With `wait`, return once those are sent too, or
    /// after [`WAIT`], whichever comes first.
    pub fn drop_inodes(&self, inos: &[Ino], wait: bool) {
        if inos.is_empty() {
            return;
        }
        for &ino in inos {
            self.notifier.attributes(ino);
        }
        let batch = {
            let mut queue = lock(&self.shared.queue);
            queue.pending.extend(inos.iter().copied());
            queue.queued += 1;
            queue.queued
        };
        self.shared.work.notify_one();
        if wait {
            self.wait_for(batch, WAIT);
        }
    }

    /// Drop only the attributes of `ino` (an open that will not keep its pages: the
    /// kernel drops those itself).
    pub fn drop_attributes(&self, ino: Ino) {
        self.notifier.attributes(ino);
    }

    /// Wait until batch `batch` was sent, at most `longest`; whether it was.
    fn wait_for(&self, batch: u64, longest: Duration) -> bool {
        let until = Instant::now() + longest;
        let mut queue = lock(&self.shared.queue);
        while queue.sent < batch {
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            queue = match self.shared.done.wait_timeout(queue, left) {
                Ok((queue, _)) => queue,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
        true
    }
}

impl Drop for Invalidator {
    fn drop(&mut self) {
        lock(&self.shared.queue).closed = true;
        self.shared.work.notify_one();
    }
}

/// The thread's loop: take everything queued, send it, mark those batches sent.
fn send_until_closed(notifier: &dyn Notifier, shared: &Shared) {
    loop {
        let (inos, through) = {
            let mut queue = lock(&shared.queue);
            while queue.pending.is_empty() && !queue.closed {
                queue = match shared.work.wait(queue) {
                    Ok(queue) => queue,
                    Err(poisoned) => poisoned.into_inner(),
                };
            }
            if queue.pending.is_empty() {
                return;
            }
            (std::mem::take(&mut queue.pending), queue.queued)
        };
        for ino in inos {
            notifier.inode(ino);
        }
        lock(&shared.queue).sent = through;
        shared.done.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    /// A notifier whose page invalidations wait until the test lets them go, as the
    /// kernel's wait on a locked page does.
    struct Stuck {
        told: Mutex<Vec<(&'static str, Ino)>>,
        release: Mutex<mpsc::Receiver<()>>,
    }

    impl Notifier for Arc<Stuck> {
        fn attributes(&self, ino: Ino) {
            lock(&self.told).push(("attributes", ino));
        }
        fn inode(&self, ino: Ino) {
            let _ = lock(&self.release).recv();
            lock(&self.told).push(("inode", ino));
        }
    }

    fn stuck() -> (Arc<Stuck>, mpsc::Sender<()>) {
        let (release, waiting) = mpsc::channel();
        let notifier = Arc::new(Stuck {
            told: Mutex::new(Vec::new()),
            release: Mutex::new(waiting),
        });
        (notifier, release)
    }

    #[test]
    fn a_page_invalidation_that_cannot_go_out_never_holds_the_request() {
        let (notifier, release) = stuck();
        let invalidator = Invalidator::start(Box::new(Arc::clone(&notifier))).unwrap();
        // Every request thread of the mount changing something while the kernel waits on
        // a page: each answers, with the attributes dropped, none stuck behind the page.
        let invalidator = Arc::new(invalidator);
        let (answered, answers) = mpsc::channel();
        for n in 0..8 {
            let (invalidator, answered) = (Arc::clone(&invalidator), answered.clone());
            std::thread::spawn(move || {
                invalidator.drop_inodes(&[Ino(10 + n)], true);
                let _ = answered.send(n);
            });
        }
        for _ in 0..8 {
            answers
                .recv_timeout(Duration::from_secs(20))
                .expect("a request waits on a page it does not hold");
        }
        let mut told = lock(&notifier.told).clone();
        told.sort_unstable();
        let attributes: Vec<Ino> = told
            .iter()
            .filter(|(what, _)| *what == "attributes")
            .map(|&(_, ino)| ino)
            .collect();
        assert_eq!(attributes, (10..18).map(Ino).collect::<Vec<_>>());
        assert!(told.iter().all(|(what, _)| *what == "attributes"));
        // Once the page is free, every queued inode goes out, each once.
        for _ in 0..8 {
            release.send(()).unwrap();
        }
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let mut pages: Vec<Ino> = lock(&notifier.told)
                .iter()
                .filter(|(what, _)| *what == "inode")
                .map(|&(_, ino)| ino)
                .collect();
            pages.sort_unstable();
            if pages == (10..18).map(Ino).collect::<Vec<_>>() {
                break;
            }
            assert!(Instant::now() < deadline, "sent so far: {pages:?}");
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    #[test]
    fn a_request_answers_after_its_pages_are_dropped_when_nothing_holds_them() {
        let (notifier, release) = stuck();
        let invalidator = Invalidator::start(Box::new(Arc::clone(&notifier))).unwrap();
        for _ in 0..2 {
            release.send(()).unwrap();
        }
        // No page held: the wait ends because the batch went out, not because of WAIT,
        // which a minute-long bound shows (the test would take a minute otherwise).
        let batch = {
            invalidator.drop_inodes(&[Ino(3), Ino(4)], false);
            lock(&invalidator.shared.queue).queued
        };
        assert!(invalidator.wait_for(batch, Duration::from_secs(60)));
        let told = lock(&notifier.told).clone();
        assert_eq!(
            told,
            vec![
                ("attributes", Ino(3)),
                ("attributes", Ino(4)),
                ("inode", Ino(3)),
                ("inode", Ino(4)),
            ]
        );
    }

    #[test]
    fn nothing_is_queued_for_no_inodes() {
        let (notifier, _release) = stuck();
        let invalidator = Invalidator::start(Box::new(Arc::clone(&notifier))).unwrap();
        invalidator.drop_inodes(&[], true);
        assert_eq!(lock(&invalidator.shared.queue).queued, 0);
        assert!(lock(&notifier.told).is_empty());
    }
}
