//! Warming up: after mounting, every module of the project is indexed in a background
//! thread at the lowest priority, so that the first listing of symbols, view or search
//! finds its parses ready — loaded from the parse index where the file did not change. The
//! dashboards say how far it is while it runs, and nothing once it is done.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::model::TreePath;
use crate::render::thousands;
use crate::resources::source::modules::Modules;
use crate::resources::source::project::Project;
use crate::tree::resource::Outside;

/// How many times the dashboards are told that indexing moved on, over a whole run.
const UPDATES: usize = 20;

/// How long no request must have been served before the next module is indexed.
const QUIET: Duration = Duration::from_millis(10);

/// The longest indexing waits for quiet before each module: under a steady stream of
/// requests it goes on, slowly.
const LONGEST_ASIDE: Duration = Duration::from_millis(100);

/// How far indexing is.
#[derive(Debug, Default)]
pub(super) struct Indexing {
    running: AtomicBool,
    done: AtomicUsize,
    total: AtomicUsize,
}

impl Indexing {
    /// Pretend indexing is `done` of `total` modules along (`None`: over).
    #[cfg(test)]
    pub(super) fn pretend(&self, along: Option<(usize, usize)>) {
        self.running.store(along.is_some(), Ordering::Relaxed);
        if let Some((done, total)) = along {
            self.done.store(done, Ordering::Relaxed);
            self.total.store(total, Ordering::Relaxed);
        }
    }

    /// `indexing 1,234 of 3,456 modules`, while it runs.
    pub(super) fn progress(&self) -> Option<String> {
        self.running.load(Ordering::Relaxed).then(|| {
            format!(
                "indexing {} of {} modules",
                thousands(self.done.load(Ordering::Relaxed) as u64),
                thousands(self.total.load(Ordering::Relaxed) as u64)
            )
        })
    }
}

impl Indexing {
    /// Index every module of `project` into `modules` in the background, reporting
    /// progress to `outside`.
    pub(super) fn start(
        self: &Arc<Self>,
        project: &Arc<Project>,
        modules: &Arc<Modules>,
        outside: Outside,
    ) {
        let project = Arc::clone(project);
        let modules = Arc::clone(modules);
        let indexing = Arc::clone(self);
        indexing.running.store(true, Ordering::Relaxed);
        let spawned = std::thread::Builder::new()
            .name("index modules".into())
            .spawn(move || {
                lowest_priority();
                index_all(&project, &modules, &indexing, &outside);
            });
        if let Err(e) = spawned {
            self.running.store(false, Ordering::Relaxed);
            crate::log::line(&format!("cannot index the modules in the background: {e}"));
        }
    }
}

fn index_all(project: &Project, modules: &Modules, indexing: &Indexing, outside: &Outside) {
    let started = Instant::now();
    let files = project.python_files();
    indexing.total.store(files.len(), Ordering::Relaxed);
    let dashboards = || {
        (outside.changes)(vec![
            TreePath::parse("_entry.md"),
            TreePath::parse("source/_entry.md"),
        ])
    };
    dashboards();
    // Parses kept for files that did not change come in one pass, on the CPU requests
    // leave idle; only what is left to read and parse steps aside for them.
    let rest = modules.load_kept(&files);
    let kept = files.len() - rest.len();
    indexing.done.store(kept, Ordering::Relaxed);
    let step = (files.len() / UPDATES).max(1);
    for (n, file) in rest.iter().enumerate() {
        let n = kept + n;
        // A module removed meanwhile is simply not there to index.
        let read = modules.warm(file).unwrap_or(false);
        indexing.done.store(n + 1, Ordering::Relaxed);
        if (n + 1).is_multiple_of(step) {
            dashboards();
        }
        // Requests come first: while they come, they index what they need themselves
        // (one may have done this one meanwhile).
        if read {
            crate::tree::activity::step_aside(QUIET, LONGEST_ASIDE);
        }
    }
    indexing.running.store(false, Ordering::Relaxed);
    dashboards();
    let counts = modules.counts();
    crate::log::line(&format!(
        "indexed {} modules: {} parsed, {} from the parse index ({:.1} s)",
        files.len(),
        counts.parsed,
        counts.loaded,
        started.elapsed().as_secs_f64()
    ));
}

/// Run this thread at the lowest CPU and I/O priority, so that requests are served first.
/// Not the idle scheduling class: a thread that holds a module lock while it never gets the
/// CPU would make the request waiting on that lock wait as well.
fn lowest_priority() {
    // SAFETY: plain system calls on the calling thread, with no pointers.
    unsafe {
        let thread = libc::gettid() as libc::id_t;
        libc::setpriority(libc::PRIO_PROCESS, thread, 19);
        // ioprio_set(IOPRIO_WHO_PROCESS, this thread, best effort class, lowest level).
        const IOPRIO_WHO_PROCESS: libc::c_int = 1;
        const BEST_EFFORT_LOWEST: libc::c_int = (2 << 13) | 7;
        libc::syscall(
            libc::SYS_ioprio_set,
            IOPRIO_WHO_PROCESS,
            thread,
            BEST_EFFORT_LOWEST,
        );
    }
}
