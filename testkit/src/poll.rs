//! Waiting for something that happens elsewhere (a daemon answering, a watcher noticing a
//! change) by asking again until a deadline: the one such loop of the tests and the
//! benchmark, so that none sleeps a fixed time and hopes.

use std::time::{Duration, Instant};

/// Ask `ready` every `pause` until it gives a value or `limit` has passed since the first
/// ask; `None` then. It is asked at least once, and once more at the deadline, so a slow
/// machine that reaches the condition just then still passes.
pub fn poll_until<T>(
    limit: Duration,
    pause: Duration,
    mut ready: impl FnMut() -> Option<T>,
) -> Option<T> {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(value) = ready() {
            return Some(value);
        }
        let now = Instant::now();
        if now >= deadline {
            return None;
        }
        std::thread::sleep(pause.min(deadline - now));
    }
}

/// [`poll_until`] for a condition: whether `done` came true within `limit`.
pub fn poll_true(limit: Duration, pause: Duration, mut done: impl FnMut() -> bool) -> bool {
    poll_until(limit, pause, || done().then_some(())).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_that_comes_is_returned_and_one_that_never_does_ends_at_the_deadline() {
        let mut asked = 0;
        let got = poll_until(Duration::from_secs(5), Duration::from_millis(1), || {
            asked += 1;
            (asked == 3).then_some(asked)
        });
        assert_eq!(got, Some(3));
        let started = Instant::now();
        assert!(!poll_true(
            Duration::from_millis(30),
            Duration::from_millis(5),
            || false
        ));
        assert!(started.elapsed() >= Duration::from_millis(30));
    }
}
