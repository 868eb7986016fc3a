//! Whether the mount is serving requests, so that background work (warming up after a
//! mount) steps aside while it is: the first recursive grep, `ls -lR` or search after
//! mounting then has the CPU and the disk to itself, and what it needs of the background
//! work it does on demand. Every request counts from start to end ([`serving`]).

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Requests being served now.
static IN_FLIGHT: AtomicUsize = AtomicUsize::new(0);
/// When the last request ended, in microseconds since [`epoch`].
static LAST_END: AtomicU64 = AtomicU64::new(0);

fn epoch() -> Instant {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    *EPOCH.get_or_init(Instant::now)
}

fn now_us() -> u64 {
    u64::try_from(epoch().elapsed().as_micros()).unwrap_or(u64::MAX)
}

/// One request being served, until dropped.
pub struct Serving(());

/// Count a request as served until the returned guard is dropped.
pub fn serving() -> Serving {
    IN_FLIGHT.fetch_add(1, Ordering::SeqCst);
    Serving(())
}

impl Drop for Serving {
    fn drop(&mut self) {
        LAST_END.store(now_us(), Ordering::SeqCst);
        IN_FLIGHT.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Wait while requests are being served or one ended less than `quiet` ago — at most
/// `longest`, so that a steady stream of requests slows background work without stopping
/// it.
pub fn step_aside(quiet: Duration, longest: Duration) {
    let started = Instant::now();
    let quiet_us = u64::try_from(quiet.as_micros()).unwrap_or(u64::MAX);
    while started.elapsed() < longest {
        let busy = IN_FLIGHT.load(Ordering::SeqCst) > 0;
        let since = now_us().saturating_sub(LAST_END.load(Ordering::SeqCst));
        if !busy && (since >= quiet_us || LAST_END.load(Ordering::SeqCst) == 0) {
            return;
        }
        std::thread::sleep(quiet / 4);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn background_work_waits_for_a_request_to_end_and_a_quiet_moment() {
        let request = serving();
        let ended = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(60));
            drop(request);
            Instant::now()
        });
        step_aside(Duration::from_millis(20), Duration::from_secs(10));
        let resumed = Instant::now();
        let ended = ended.join().unwrap();
        assert!(
            resumed >= ended + Duration::from_millis(20),
            "resumed before quiet"
        );
    }

    #[test]
    fn a_steady_stream_of_requests_delays_background_work_only_so_long() {
        let _request = serving();
        let started = Instant::now();
        step_aside(Duration::from_millis(5), Duration::from_millis(30));
        assert!(started.elapsed() >= Duration::from_millis(30));
    }
}
