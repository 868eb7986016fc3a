//! Documents whose content is not final yet, and the wait for them: a test run's result
//! read while the run goes on is answered when the run ends, so that starting a run and
//! reading its result is one command line (`echo > run; cat runs/latest/result.md`).
//!
//! Only an open waits, and on a thread of its own (the FUSE adapter's): `ls`, `stat` and
//! every other request keep being answered meanwhile. A wait ends when the content is final,
//! when its bound passes (the content then says it is not final), or when the reader is
//! interrupted: the kernel cannot tell us of Ctrl-C on a request already sent (fuser
//! answers its interrupt notice itself), so the waiter watches the reading thread for a
//! pending signal it does not block, as `/proc` shows it, and gives up with `EINTR`.

use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use crate::tree::lock;

/// How often a waiter looks whether its reader was interrupted.
const TICK: Duration = Duration::from_millis(100);

/// Bumped and announced whenever something waited for may have become final.
static CHANGED: (Mutex<u64>, Condvar) = (Mutex::new(0), Condvar::new());

/// Wakes every waiter to look again: call it after the state behind a pending document
/// changed (a test run's results were stored).
pub fn wake() {
    let (count, changed) = &CHANGED;
    *lock(count) += 1;
    changed.notify_all();
}

/// A document an open may wait for.
#[derive(Clone)]
pub struct Pending {
    /// Whether the content is final now.
    done: Arc<dyn Fn() -> bool + Send + Sync>,
    /// The longest wait: past it the content is served as it is.
    limit: Duration,
}

/// How a wait ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Waited {
    /// The content is final.
    Done,
    /// The bound passed first.
    TooLong,
    /// The reader was interrupted (Ctrl-C): answer `EINTR`.
    Interrupted,
}

impl Pending {
    pub fn new(limit: Duration, done: impl Fn() -> bool + Send + Sync + 'static) -> Pending {
        Pending {
            done: Arc::new(done),
            limit,
        }
    }

    /// Waits until the content is final, the bound passes or `interrupted()` says the
    /// reader gave up.
    pub fn wait(&self, interrupted: &dyn Fn() -> bool) -> Waited {
        let deadline = Instant::now() + self.limit;
        let (count, changed) = &CHANGED;
        loop {
            let seen = *lock(count);
            if (self.done)() {
                return Waited::Done;
            }
            if interrupted() {
                return Waited::Interrupted;
            }
            let now = Instant::now();
            if now >= deadline {
                return Waited::TooLong;
            }
            let guard = lock(count);
            if *guard == seen {
                let _ = changed.wait_timeout(guard, TICK.min(deadline - now));
            }
        }
    }
}

/// Whether thread `tid` has a signal pending that it does not block: what a reader
/// stopped with Ctrl-C or killed shows while its read is in the kernel. False when it
/// cannot be told (no such thread, another PID namespace).
pub fn signalled(tid: u32) -> bool {
    if tid == 0 {
        return false;
    }
    let Ok(status) = std::fs::read_to_string(format!("/proc/{tid}/status")) else {
        return false;
    };
    let mask = |field: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(field))
            .and_then(|v| u64::from_str_radix(v.trim(), 16).ok())
            .unwrap_or(0)
    };
    let pending = mask("SigPnd:") | mask("ShdPnd:");
    pending & !mask("SigBlk:") != 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};

    #[test]
    fn a_wait_ends_when_woken_with_the_content_final() {
        let done = Arc::new(AtomicBool::new(false));
        let seen = Arc::clone(&done);
        let pending = Pending::new(Duration::from_secs(60), move || seen.load(Ordering::SeqCst));
        let waiter = std::thread::spawn(move || pending.wait(&|| false));
        std::thread::sleep(Duration::from_millis(50));
        done.store(true, Ordering::SeqCst);
        wake();
        assert_eq!(waiter.join().ok(), Some(Waited::Done));
    }

    #[test]
    fn a_wait_gives_up_at_its_bound_or_when_the_reader_is_interrupted() {
        let never = Pending::new(Duration::from_millis(150), || false);
        assert_eq!(never.wait(&|| false), Waited::TooLong);
        let never = Pending::new(Duration::from_secs(60), || false);
        assert_eq!(never.wait(&|| true), Waited::Interrupted);
    }

    #[test]
    fn a_thread_with_a_pending_unblocked_signal_is_seen_as_signalled() {
        // SAFETY: gettid has no preconditions.
        let me = unsafe { libc::gettid() } as u32;
        assert!(!signalled(me));
        assert!(!signalled(0));
        assert!(!signalled(u32::MAX));
        // A stopped process keeps a signal sent to it pending, as a reader in the kernel
        // does.
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .expect("sleep runs");
        let pid = child.id() as i32;
        // SAFETY: signalling our own child.
        unsafe { libc::kill(pid, libc::SIGSTOP) };
        let stopped = (0..100).any(|_| {
            std::thread::sleep(Duration::from_millis(10));
            std::fs::read_to_string(format!("/proc/{pid}/status"))
                .is_ok_and(|s| s.contains("State:\tT"))
        });
        assert!(stopped);
        assert!(!signalled(pid as u32));
        // SAFETY: as above.
        unsafe { libc::kill(pid, libc::SIGINT) };
        assert!(signalled(pid as u32));
        let _ = child.kill();
        let _ = child.wait();
    }
}
