//! Hearing of changes other processes made to a PostgreSQL store, as SQLite's
//! `data_version` tells of them: the database announces every change (`NOTIFY homespace`,
//! by the triggers of `changes.sql`) with its writer's token, delivered when it commits; a thread of each mount listens on its
//! own connection and counts the notifications of other writers. The mount's watcher
//! compares that count as it compares `data_version`, and invalidates what the store feeds.
//!
//! A listener counts one change when it starts listening, and when it listens again after
//! losing its connection (it tries every second): what was sent meanwhile went unheard, so
//! everything counts as stale.

use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;

use postgres::NoTls;
use postgres::fallible_iterator::FallibleIterator;

/// The channel every change is announced on.
pub(super) const CHANNEL: &str = "homespace";

/// How long the listener waits for a notification before looking whether its store is
/// still there.
const WAKE: Duration = Duration::from_millis(500);

/// How long it waits before connecting again after losing the database.
const RETRY: Duration = Duration::from_secs(1);

/// A token naming one store object's changes, unique among every mount of a database:
/// mounts on other machines may have the same process id, so the kernel's random UUID
/// comes first (the process id and a counter when it cannot be read).
pub(super) fn token() -> String {
    static MADE: AtomicU64 = AtomicU64::new(0);
    let random = std::fs::read_to_string("/proc/sys/kernel/random/uuid").unwrap_or_default();
    format!(
        "{}-{}-{}",
        random.trim(),
        std::process::id(),
        MADE.fetch_add(1, Ordering::Relaxed)
    )
}

/// The count of other writers' changes, kept by a listening thread while it is held.
pub(super) struct Changes {
    count: Arc<AtomicI64>,
    /// Whether the listener has its connection and is listening (for tests and logs).
    listening: Arc<AtomicBool>,
}

impl Changes {
    /// Start listening on a connection of its own made from `config`; changes sent with
    /// `own` are this store's and not counted.
    pub(super) fn start(config: postgres::Config, own: String) -> Changes {
        let count = Arc::new(AtomicI64::new(0));
        let listening = Arc::new(AtomicBool::new(false));
        let (weak, flag) = (Arc::downgrade(&count), Arc::clone(&listening));
        let spawned = std::thread::Builder::new()
            .name("listen store".into())
            .spawn(move || listen(&config, &own, &weak, &flag));
        if let Err(e) = spawned {
            crate::log::line(&format!("cannot listen for store changes: {e}"));
        }
        Changes { count, listening }
    }

    /// A number that changes whenever another writer changed the store.
    pub(super) fn version(&self) -> i64 {
        self.count.load(Ordering::SeqCst)
    }

    /// Whether the listener is connected and listening now.
    pub(super) fn listening(&self) -> bool {
        self.listening.load(Ordering::SeqCst)
    }
}

/// Listen until the store is dropped: connect, `LISTEN`, count; on a lost connection,
/// count one change and connect again.
fn listen(config: &postgres::Config, own: &str, count: &Weak<AtomicI64>, flag: &AtomicBool) {
    // Until the first `LISTEN`, changes go unheard: count one when it starts, too.
    let mut lost = true;
    while count.strong_count() > 0 {
        let Ok(mut client) = config.connect(NoTls) else {
            std::thread::sleep(RETRY);
            continue;
        };
        if client.batch_execute(&format!("LISTEN {CHANNEL}")).is_err() {
            std::thread::sleep(RETRY);
            continue;
        }
        flag.store(true, Ordering::SeqCst);
        if lost && let Some(count) = count.upgrade() {
            count.fetch_add(1, Ordering::SeqCst);
        }
        loop {
            let Some(counter) = count.upgrade() else {
                return;
            };
            // Each notification counts the moment it arrives: the mount's watcher looks every
            // few milliseconds, and a change held back until the wait ends would show late
            // (by up to WAKE, or never under a steady stream of changes).
            let failed = {
                let mut notifications = client.notifications();
                let mut wait = notifications.timeout_iter(WAKE);
                loop {
                    match wait.next() {
                        Ok(Some(n)) if n.payload() != own => {
                            counter.fetch_add(1, Ordering::SeqCst);
                        }
                        Ok(Some(_)) => {}
                        Ok(None) => break false,
                        Err(_) => break true,
                    }
                }
            };
            if failed || client.is_closed() {
                flag.store(false, Ordering::SeqCst);
                lost = true;
                break;
            }
        }
    }
}
