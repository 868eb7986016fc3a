//! This checkout's test runs as the store keeps them, and which of them this process is
//! carrying out: a run stored as running whose daemon is gone is closed, so that it never
//! blocks the next run or a read of its result.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, OnceLock};

use crate::error::Result;
use crate::model::time::Time;
use crate::store;
use crate::tree::lock;
use crate::tree::resource::Changes;

/// The test runs this process is carrying out now. A run stored as running in this
/// process but not among them is over although the process lives on: its results could
/// not be stored (the PostgreSQL store was away when it ended) or its thread never
/// started. Without this, such a run would block every later run until a remount.
pub(crate) static RUNS_HERE: Mutex<BTreeSet<i64>> = Mutex::new(BTreeSet::new());

/// This checkout's test runs: their records in the store, and what the runner remembers
/// between requests.
pub(crate) struct TestRuns {
    pub(crate) store: Arc<store::Store>,
    /// Whose runs of the store are this checkout's (see [`crate::resources::source::checkout::key`]).
    pub(crate) checkout: String,
    /// The last write to `source/tests/run` that started no run, when and why: said by
    /// the newest run's result until a run starts, since `echo > run; cat result.md` hides
    /// the refusal and would show the previous run as if it were the new one.
    refused: Mutex<Option<(Time, String)>>,
    /// Where a finished run is reported (it changes `source/tests/` outside the tree),
    /// once the mount watches (see [`Resource::watch`]).
    changes: OnceLock<Changes>,
}

impl TestRuns {
    pub(crate) fn new(store: Arc<store::Store>, checkout: String) -> Self {
        let runs = TestRuns {
            store,
            checkout,
            refused: Mutex::default(),
            changes: OnceLock::new(),
        };
        // A run whose daemon was killed mid-run (or whose machine went down) would say
        // "running" for ever, and a read of its result would wait for it: closed now.
        if let Err(e) = runs.close_abandoned() {
            crate::log::line(&format!(
                "cannot close the test runs left running by a stopped mount: {}",
                e.message
            ));
        }
        runs
    }

    /// Close, as stopped before they ended, this checkout's runs stored as running whose
    /// daemon is gone; whether any was.
    pub(crate) fn close_abandoned(&self) -> Result<bool> {
        let here = lock(&RUNS_HERE);
        // Read first: the usual answer is "none", and a write transaction at every mount
        // and every wait for a result would take the store's write lock for nothing.
        let running = self.store.records(|db| db.runs().running(&self.checkout))?;
        if running
            .iter()
            .all(|&(run, pid)| carried_out(&here, run, pid))
        {
            return Ok(false);
        }
        let now = Time::now();
        self.store.change_records(|db| {
            let mut closed = false;
            for (run, pid) in db.runs().running(&self.checkout)? {
                if !carried_out(&here, run, pid) {
                    db.runs().abandon(run, now)?;
                    closed = true;
                }
            }
            Ok(closed)
        })
    }

    /// Report finished runs to `changes` from now on; `false` when they already were
    /// reported somewhere (the mount watches once).
    pub(crate) fn report_to(&self, changes: Changes) -> bool {
        self.changes.set(changes).is_ok()
    }

    /// Where a finished run is reported, once the mount watches.
    pub(crate) fn reporter(&self) -> Option<Changes> {
        self.changes.get().cloned()
    }

    /// Keep what the write that just tried to start a run did: started (`Ok`), or refused
    /// and why.
    pub(crate) fn started(&self, outcome: &Result<i64>) {
        *lock(&self.refused) = match outcome {
            Ok(_) => None,
            Err(e) => Some((Time::now(), e.message.clone())),
        };
    }

    /// What the newest run's views say of a refused start made after `started` (when the
    /// newest run began), if there was one.
    pub(crate) fn refused_since(&self, started: Time) -> Option<String> {
        let (when, why) = lock(&self.refused).clone()?;
        (when >= started)
            .then(|| format!("Your newest write to run started nothing ({when}): {why}"))
    }
}

/// Whether run `run`, stored as running in daemon `pid` of this host, is still being
/// carried out: by this process (`here` holds what it carries out), or by a homespace
/// daemon that is alive. A process of another program with the number of a daemon that
/// died (numbers are reused) carries out no run.
pub(crate) fn carried_out(here: &BTreeSet<i64>, run: i64, pid: u32) -> bool {
    if pid == std::process::id() {
        return here.contains(&run);
    }
    let Ok(number) = i32::try_from(pid) else {
        return false;
    };
    // SAFETY: signal 0 only checks that the process exists and may be signalled.
    let sent = unsafe { libc::kill(number, 0) };
    let alive = sent == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM);
    alive
        && match std::fs::read_to_string(format!("/proc/{pid}/comm")) {
            Ok(name) => name.trim_end().starts_with("homespace"),
            // No /proc to ask (or the process just ended): alive says it all.
            Err(_) => true,
        }
}
