//! The FUSE session: mounts a [`Space`] with its options, attaches the kernel notifier
//! that invalidation speaks through, and runs until the mount is unmounted or the process
//! is signalled (SIGINT, SIGTERM, SIGHUP unmount cleanly).

use std::path::Path;
use std::sync::Arc;

use fuser::{Config, INodeNo, MountOption, Session, SessionACL};

use super::adapter::Fs;
use crate::model::Ino;
use crate::tree::kernel_cache::{CacheMode, Notifier};
use crate::tree::{Space, StoreVersion};

/// How a mount is served, beside what its [`Space`] holds.
#[derive(Debug, Clone, Default)]
pub struct Serving {
    /// Other users may use the mount, and the kernel checks the modes `stat` shows
    /// (`default_permissions`); the core refuses their changes on top (see
    /// [`crate::tree::access`]).
    pub allow_other: bool,
    /// `--read-only`: the kernel refuses every change itself, and answers opens and
    /// closes without asking the daemon (see the adapter's `unopened`).
    pub read_only: bool,
    /// What the log says once the kernel took the mount (not before: a mount it refuses
    /// must not read as mounted).
    pub mounted: String,
    /// A file to append the mountpoint to once mounted (`HOMESPACE_MOUNT_RECORD`): how a
    /// test run knows which mounts are its own to clean up.
    pub record: Option<std::path::PathBuf>,
    /// Told the mountpoint once the mount answers, and that it is stopping on a signal: how
    /// a service manager hears of it (the daemon's, kept out of the kernel adapter).
    pub ready: Option<fn(&str)>,
    pub stopping: Option<fn()>,
}

/// Serve `space` at `mountpoint` until it is unmounted or the process is signalled
/// (SIGINT, SIGTERM, SIGHUP unmount cleanly).
pub fn serve(
    space: Arc<Space>,
    mountpoint: &Path,
    serving: Serving,
    store_version: StoreVersion,
) -> Result<(), String> {
    let mut config = Config::default();
    config.mount_options = vec![
        MountOption::FSName("homespace".into()),
        MountOption::Subtype("homespace".into()),
        MountOption::NoDev,
        MountOption::NoSuid,
    ];
    if serving.read_only {
        config.mount_options.push(MountOption::RO);
    }
    if serving.allow_other {
        config.acl = SessionACL::All;
        config.mount_options.push(MountOption::DefaultPermissions);
    }
    // Several threads: a slow request (a big search, an import check) must not stall `ls`.
    // More threads than changes admitted at once (`CHANGES_AT_ONCE`): reads always find one.
    config.n_threads = Some(crate::tree::CHANGES_AT_ONCE * 2);
    config.clone_fd = true;
    let kept = space.kernel().mode() == CacheMode::Kept;
    let mut session = Session::new(
        Fs::new(Arc::clone(&space), kept, serving.read_only),
        mountpoint,
        &config,
    )
    .map_err(|e| mount_failure(mountpoint, &e))?;
    crate::log::line(&serving.mounted);
    if let Some(record) = &serving.record {
        use std::io::Write;
        let appended = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(record)
            .and_then(|mut file| writeln!(file, "{}", mountpoint.display()));
        if let Err(e) = appended {
            crate::log::line(&format!(
                "cannot record the mount in {}: {e}",
                record.display()
            ));
        }
    }
    if !serving.read_only {
        space.start();
    }
    if kept {
        let notifier = session.notifier();
        space
            .kernel()
            .attach(Box::new(KernelNotifier(notifier)))
            .map_err(|e| format!("cannot start the thread that invalidates: {e}"))?;
        crate::log::line("cache: kept by the kernel, invalidated on every change");
        if serving.read_only {
            crate::log::line(
                "read-only: the kernel refuses changes and answers opens and closes itself",
            );
        }
        space.watch(Some(store_version));
    } else {
        crate::log::line("cache: off (--no-cache): every access asks the daemon");
    }
    // After the kernel is attached: the dashboards it keeps must hear that indexing ended.
    space.warm();
    let mut unmounter = session.unmount_callable();
    let mut signals = signal_hook::iterator::Signals::new([
        signal_hook::consts::SIGINT,
        signal_hook::consts::SIGTERM,
        signal_hook::consts::SIGHUP,
    ])
    .map_err(|e| format!("cannot install signal handlers: {e}"))?;
    let stopping = serving.stopping;
    std::thread::spawn(move || {
        if let Some(signal) = signals.forever().next() {
            crate::log::line(&format!("signal {signal}: unmounting"));
            if let Some(stopping) = stopping {
                stopping();
            }
            if let Err(e) = unmounter.unmount() {
                crate::log::line(&format!("unmount failed: {e}"));
            }
        }
    });
    if let Some(ready) = serving.ready {
        ready(&mountpoint.to_string_lossy());
    }
    session
        .run()
        .map_err(|e| format!("the mount ended with an error: {e}"))
}

/// Why mounting failed, with what to do about the cases a user can fix.
fn mount_failure(mountpoint: &Path, error: &std::io::Error) -> String {
    let at = mountpoint.display();
    let fuse_device = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/fuse");
    match fuse_device {
        Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => format!(
            "cannot mount at {at}: /dev/fuse is not open to you. The kernel makes it \
             readable and writable by all (crw-rw-rw-, fusermount3 checks who may mount \
             where); this system restricts it: ask root to run `chmod 0666 /dev/fuse`"
        ),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => format!(
            "cannot mount at {at}: there is no /dev/fuse; load the module (`modprobe fuse`) \
             or, in a container, pass the device in (`--device /dev/fuse`)"
        ),
        _ => {
            let said = error.to_string();
            if said.contains("user_allow_other") {
                format!(
                    "cannot mount at {at}: --allow-other needs the line `user_allow_other` in \
                     /etc/fuse.conf (root adds it once); fusermount3 said: {said}"
                )
            } else {
                format!("cannot mount at {at}: {said}")
            }
        }
    }
}

/// The session's notifier, as the tree asks for it.
struct KernelNotifier(fuser::Notifier);

impl KernelNotifier {
    /// `offset` -1 drops the attributes alone; 0 (with length 0) the pages too.
    fn invalidate(&self, ino: Ino, offset: i64) {
        // ENOENT (the kernel holds nothing of it) is no failure; others are only logged:
        // the TTL bounds how long a missed invalidation can show.
        match self.0.inval_inode(INodeNo(ino.0), offset, 0) {
            Err(e) if e.raw_os_error() != Some(libc::ENOENT) => {
                crate::log::line(&format!("invalidating inode {ino} failed: {e}"));
            }
            _ => {}
        }
    }
}

impl Notifier for KernelNotifier {
    fn attributes(&self, ino: Ino) {
        // A negative offset: the kernel touches no page (see `tree::invalidator`).
        self.invalidate(ino, -1);
    }

    fn inode(&self, ino: Ino) {
        self.invalidate(ino, 0);
    }
}
