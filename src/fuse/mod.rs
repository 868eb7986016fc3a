//! The only module that speaks to the kernel: translates `fuser` requests into calls on
//! [`Space`] and its plain results back into replies, and runs the FUSE session
//! ([`serve`]). Every handler is one call and one match; whatever a core test could check
//! (directory listings, access checks, which attributes an open file reports) is in the
//! core. A panic inside a request fails that request with `EIO` (and is logged); the mount
//! keeps serving.

mod passthrough;

use std::ffi::OsStr;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use fuser::{
    Config, Errno, FileAttr, FileHandle, FileType, Filesystem, FopenFlags, Generation, INodeNo,
    InitFlags, KernelConfig, LockOwner, MountOption, OpenFlags, RenameFlags, ReplyAttr,
    ReplyCreate, ReplyData, ReplyDirectory, ReplyDirectoryPlus, ReplyEmpty, ReplyEntry, ReplyOpen,
    ReplyStatfs, ReplyWrite, Request, Session, SessionACL, TimeOrNow, WriteFlags,
};

use crate::error::{Error, ErrorKind, Result};
use crate::model::{Fh, Ino, Kind, TreePath};
use crate::tree::access::Caller;
use crate::tree::kernel_cache::{CacheMode, Notifier};
use crate::tree::pending::{self, Pending, Waited};
use crate::tree::{Attr, OpenFlags as Open, Opened, Paging, Space, StoreVersion, guarded};
use passthrough::Passthrough;

/// How long the kernel may keep names and attributes when every change to them is
/// announced (see [`crate::tree::kernel_cache`]): long, since invalidation keeps them right;
/// bounded, so that a change missed (an inotify queue overflow) cannot last.
const KEPT_TTL: Duration = Duration::from_secs(60);
/// With caching off (`--no-cache`), or for what changes unannounced (temp files, paths
/// reached through a dotted name): directories for a moment, files not at all.
const DIR_TTL: Duration = Duration::from_secs(1);
const FILE_TTL: Duration = Duration::ZERO;

/// How a mount is served, beside what its [`Space`] holds.
#[derive(Debug, Clone, Default)]
pub struct Serving {
    /// Other users may use the mount, and the kernel checks the modes `stat` shows
    /// (`default_permissions`); the core refuses their changes on top (see
    /// [`crate::tree::access`]).
    pub allow_other: bool,
    /// `--read-only`: the kernel refuses every change itself, and answers opens and
    /// closes without asking the daemon (see [`Fs::unopened`]).
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
        Fs {
            space: Arc::clone(&space),
            kept,
            unopened: kept && serving.read_only,
            passthrough: Passthrough::default(),
        },
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

/// The `fuser` filesystem over a [`Space`].
struct Fs {
    space: Arc<Space>,
    /// Whether the kernel keeps what it is given (not `--no-cache`).
    kept: bool,
    /// Files are never opened (a read-only mount whose kernel keeps what it is given):
    /// the first `open` and `flush` answer `ENOSYS`, after which the kernel sends neither
    /// again, keeps every file's pages across opens and reads the ones it lacks with
    /// handle 0. A `cat` of something it keeps then never reaches the daemon; the
    /// invalidation that keeps pages right is the same as for kept opens. Not possible
    /// where writes are allowed: a write is checked when its file is closed, which the
    /// daemon would no longer see.
    unopened: bool,
    /// Opens served by the project file itself.
    passthrough: Passthrough,
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

impl Fs {
    /// The errno for a read-type request that failed on inode `at` (on `name` in it, for a
    /// lookup). Such failures are answers (a name that is not there), not logged — except a
    /// store that cannot be reached, which the user must hear of in `_errors.md` and the log
    /// whatever they were reading, with the file they were reading.
    fn unanswered(&self, at: Ino, name: Option<&OsStr>, error: &Error) -> Errno {
        if error.kind == ErrorKind::Unavailable {
            // An inode forgotten meanwhile names nothing: the mount's root stands for it.
            let dir = self.space.path_of(at).unwrap_or_else(|_| TreePath::root());
            let read = match name.and_then(OsStr::to_str) {
                Some(name) => dir.join(name),
                None => dir,
            };
            self.space.record_unavailable(&read, error);
        }
        errno(error)
    }

    fn attr(&self, attr: &Attr) -> FileAttr {
        let (kind, nlink) = match attr.kind {
            Kind::Dir => (FileType::Directory, 2),
            Kind::Link => (FileType::Symlink, 1),
            Kind::View | Kind::Document => (FileType::RegularFile, 1),
        };
        // A link's own modes mean nothing on Linux; `ls -l` shows them as a disk's.
        let perm = match attr.kind {
            Kind::Link => 0o777,
            _ => attr.perm.mode as u16,
        };
        FileAttr {
            ino: INodeNo(attr.ino.0),
            size: attr.size,
            blocks: attr.size.div_ceil(512),
            atime: attr.mtime,
            mtime: attr.mtime,
            ctime: attr.mtime,
            crtime: attr.mtime,
            kind,
            perm,
            nlink,
            uid: attr.perm.uid,
            gid: attr.perm.gid,
            rdev: 0,
            blksize: 4096,
            flags: 0,
        }
    }

    fn ttl(&self, attr: &Attr) -> Duration {
        if attr.per_caller {
            Duration::ZERO
        } else if self.kept && attr.cacheable {
            KEPT_TTL
        } else if attr.kind == Kind::Dir {
            DIR_TTL
        } else {
            FILE_TTL
        }
    }

    /// Open a file whose content is not final yet once it is, on a thread of its own so
    /// that every other request is answered meanwhile; `EINTR` when the reader is
    /// interrupted first (see [`crate::tree::pending`]).
    fn open_when_final(
        &self,
        pending: Pending,
        ino: INodeNo,
        open: Open,
        caller: Caller,
        reply: ReplyOpen,
    ) {
        let space = Arc::clone(&self.space);
        let waiting = move || {
            if pending.wait(&|| pending::signalled(caller.pid)) == Waited::Interrupted {
                reply.error(Errno::EINTR);
                return;
            }
            match guarded("open", || space.open_waited(Ino(ino.0), open, caller)) {
                Ok((fh, paging)) => reply.opened(FileHandle(fh.0), fopen_flags(&paging)),
                Err(e) => reply.error(errno(&e)),
            }
        };
        if let Err(e) = std::thread::Builder::new()
            .name("waiting reader".into())
            .spawn(waiting)
        {
            crate::log::line(&format!("cannot wait for a reader: {e}"));
        }
    }

    /// Reply to a request that hands the kernel an inode (and counts the lookup).
    fn entry(&self, attr: &Attr, reply: ReplyEntry) {
        self.space.kernel().looked_up(attr.ino, !attr.cacheable);
        reply.entry(&self.ttl(attr), &self.attr(attr), Generation(0));
    }
}

/// Who made the request.
fn caller(req: &Request) -> Caller {
    Caller {
        uid: req.uid(),
        gid: req.gid(),
        pid: req.pid(),
    }
}

fn errno(error: &Error) -> Errno {
    Errno::from_i32(error.errno())
}

/// Names must be UTF-8; anything else is refused as a request, not a crash.
fn utf8(name: &OsStr) -> Result<&str> {
    name.to_str().ok_or_else(|| {
        Error::invalid(format!(
            "{} is not valid UTF-8; names here must be",
            name.to_string_lossy()
        ))
    })
}

/// How the kernel reads an open file, as open flags (passthrough aside).
fn fopen_flags(paging: &Paging) -> FopenFlags {
    match paging {
        // Every read comes from the snapshot taken at open, whatever size the kernel last
        // saw, so generated views never come back cut or padded.
        Paging::Direct => FopenFlags::FOPEN_DIRECT_IO,
        // A reader cannot have written: no flush round trip at close.
        Paging::Cached { keep: true } | Paging::Passthrough { keep: true, .. } => {
            FopenFlags::FOPEN_KEEP_CACHE | FopenFlags::FOPEN_NOFLUSH
        }
        Paging::Cached { keep: false } | Paging::Passthrough { keep: false, .. } => {
            FopenFlags::FOPEN_NOFLUSH
        }
    }
}

fn open_flags(flags: OpenFlags) -> Open {
    let mode = flags.0 & libc::O_ACCMODE;
    Open {
        write: mode == libc::O_WRONLY || mode == libc::O_RDWR,
        truncate: flags.0 & libc::O_TRUNC != 0,
        append: flags.0 & libc::O_APPEND != 0,
    }
}

impl Filesystem for Fs {
    fn init(&mut self, _req: &Request, config: &mut KernelConfig) -> std::io::Result<()> {
        // Without it the kernel truncates with a separate setattr before open, which would
        // save an empty document (and be rejected) before the new content arrives.
        let _ = config.add_capabilities(InitFlags::FUSE_ATOMIC_O_TRUNC);
        if self.unopened {
            // Pages outlive opens here; should an invalidation ever be missed, the
            // modification time a refreshed `stat` shows (a minute at most) drops them.
            let _ = config.add_capabilities(InitFlags::FUSE_AUTO_INVAL_DATA);
        }
        // Listings carry attributes where the kernel thinks that helps (see readdirplus).
        let _ = config
            .add_capabilities(InitFlags::FUSE_DO_READDIRPLUS | InitFlags::FUSE_READDIRPLUS_AUTO);
        if self.kept {
            // A link's target is fixed by its path (`mod -> ../pkg.mod`), so the kernel may
            // keep it like a page: `ls -l` of a package then asks once per link, not each
            // time; dropping the inode (a change invalidates it) drops the target with it.
            let _ = config.add_capabilities(InitFlags::FUSE_CACHE_SYMLINKS);
        }
        // Readers of exact project files are handed the file itself (Linux 6.9+; needs the
        // right to register backing files, which root has).
        if self.kept && !self.unopened {
            let offered = config.add_capabilities(InitFlags::FUSE_PASSTHROUGH).is_ok()
                && config.set_max_stack_depth(1).is_ok();
            self.passthrough.offered(offered);
        }
        Ok(())
    }

    fn lookup(&self, req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEntry) {
        match guarded("lookup", || {
            (self.space).lookup_by(Ino(parent.0), utf8(name)?, caller(req))
        }) {
            Ok(attr) => self.entry(&attr, reply),
            Err(e) => reply.error(self.unanswered(Ino(parent.0), Some(name), &e)),
        }
    }

    fn readlink(&self, _req: &Request, ino: INodeNo, reply: ReplyData) {
        match guarded("readlink", || self.space.read_link(Ino(ino.0))) {
            Ok(target) => reply.data(&target),
            Err(e) => reply.error(self.unanswered(Ino(ino.0), None, &e)),
        }
    }

    fn forget(&self, _req: &Request, ino: INodeNo, nlookup: u64) {
        self.space.kernel().forgot(Ino(ino.0), nlookup);
    }

    fn getattr(&self, req: &Request, ino: INodeNo, fh: Option<FileHandle>, reply: ReplyAttr) {
        match guarded("getattr", || {
            (self.space).getattr_via(Ino(ino.0), fh.map(|f| Fh(f.0)), req.pid())
        }) {
            Ok(attr) => reply.attr(&self.ttl(&attr), &self.attr(&attr)),
            Err(e) => reply.error(self.unanswered(Ino(ino.0), None, &e)),
        }
    }

    fn setattr(
        &self,
        req: &Request,
        ino: INodeNo,
        mode: Option<u32>,
        uid: Option<u32>,
        gid: Option<u32>,
        size: Option<u64>,
        _atime: Option<TimeOrNow>,
        _mtime: Option<TimeOrNow>,
        _ctime: Option<SystemTime>,
        fh: Option<FileHandle>,
        _crtime: Option<SystemTime>,
        _chgtime: Option<SystemTime>,
        _bkuptime: Option<SystemTime>,
        _flags: Option<fuser::BsdFileFlags>,
        reply: ReplyAttr,
    ) {
        // Times are not kept (the content decides mtime): `touch` of a document is accepted
        // and changes nothing, as touching an unchanged file means nothing here. Modes and
        // owners are applied or refused, never pretended (see crate::tree::space::modes).
        match guarded("setattr", || {
            let mut attr = match size {
                Some(size) => {
                    (self.space).set_size(Ino(ino.0), size, fh.map(|f| Fh(f.0)), caller(req))?
                }
                None => self.space.getattr(Ino(ino.0))?,
            };
            if mode.is_some() || uid.is_some() || gid.is_some() {
                attr = self
                    .space
                    .set_perm(Ino(ino.0), mode, uid, gid, caller(req))?;
            }
            Ok(attr)
        }) {
            Ok(attr) => reply.attr(&self.ttl(&attr), &self.attr(&attr)),
            Err(e) => reply.error(errno(&e)),
        }
    }

    fn mkdir(
        &self,
        req: &Request,
        parent: INodeNo,
        name: &OsStr,
        _mode: u32,
        _umask: u32,
        reply: ReplyEntry,
    ) {
        match guarded("mkdir", || {
            self.space.mkdir(Ino(parent.0), utf8(name)?, caller(req))
        }) {
            Ok(attr) => self.entry(&attr, reply),
            Err(e) => reply.error(errno(&e)),
        }
    }

    fn unlink(&self, req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEmpty) {
        match guarded("unlink", || {
            self.space
                .remove(Ino(parent.0), utf8(name)?, false, caller(req))
        }) {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(errno(&e)),
        }
    }

    fn rmdir(&self, req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEmpty) {
        match guarded("rmdir", || {
            self.space
                .remove(Ino(parent.0), utf8(name)?, true, caller(req))
        }) {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(errno(&e)),
        }
    }

    fn rename(
        &self,
        req: &Request,
        parent: INodeNo,
        name: &OsStr,
        newparent: INodeNo,
        newname: &OsStr,
        flags: RenameFlags,
        reply: ReplyEmpty,
    ) {
        match guarded("rename", || {
            if flags.contains(RenameFlags::RENAME_EXCHANGE) {
                return Err(Error::not_permitted(
                    "exchanging two files is not supported here",
                ));
            }
            let no_replace = flags.contains(RenameFlags::RENAME_NOREPLACE);
            self.space.rename(
                Ino(parent.0),
                utf8(name)?,
                Ino(newparent.0),
                utf8(newname)?,
                no_replace,
                caller(req),
            )
        }) {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(errno(&e)),
        }
    }

    fn open(&self, req: &Request, ino: INodeNo, flags: OpenFlags, reply: ReplyOpen) {
        if self.unopened {
            reply.error(Errno::ENOSYS);
            return;
        }
        let open = open_flags(flags);
        match guarded("open", || {
            self.space.open_or_wait(Ino(ino.0), open, caller(req), true)
        }) {
            Ok(Opened::Wait(pending)) => {
                self.open_when_final(pending, ino, open, caller(req), reply)
            }
            Ok(Opened::Now(fh, Paging::Passthrough { file, keep })) => {
                let cached = fopen_flags(&Paging::Cached { keep });
                self.passthrough.open(Ino(ino.0), fh, &file, cached, reply)
            }
            Ok(Opened::Now(fh, paging)) => reply.opened(FileHandle(fh.0), fopen_flags(&paging)),
            Err(e) => reply.error(self.unanswered(Ino(ino.0), None, &e)),
        }
    }

    fn read(
        &self,
        _req: &Request,
        ino: INodeNo,
        fh: FileHandle,
        offset: u64,
        size: u32,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        reply: ReplyData,
    ) {
        // The kernel holds the pages being read until the reply: a change this read
        // brings about (a search becoming recent) must not wait for them to be dropped.
        let _held = self.space.kernel().holding_pages();
        if !self.unopened {
            match guarded("read", || self.space.read(Fh(fh.0), offset, size)) {
                Ok(data) => reply.data(&data),
                Err(e) => reply.error(self.unanswered(Ino(ino.0), None, &e)),
            }
            return;
        }
        match guarded("read", || {
            self.space.read_unopened(Ino(ino.0), offset, size)
        }) {
            Ok(data) => reply.data(&data),
            Err(e) => reply.error(self.unanswered(Ino(ino.0), None, &e)),
        }
    }

    fn write(
        &self,
        _req: &Request,
        _ino: INodeNo,
        fh: FileHandle,
        offset: u64,
        data: &[u8],
        _write_flags: WriteFlags,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        reply: ReplyWrite,
    ) {
        match guarded("write", || self.space.write(Fh(fh.0), offset, data)) {
            Ok(written) => reply.written(written),
            Err(e) => reply.error(errno(&e)),
        }
    }

    fn flush(
        &self,
        req: &Request,
        _ino: INodeNo,
        fh: FileHandle,
        _lock_owner: LockOwner,
        reply: ReplyEmpty,
    ) {
        if self.unopened {
            // Nothing was opened, so nothing was written: the kernel stops asking.
            reply.error(Errno::ENOSYS);
            return;
        }
        match guarded("flush", || self.space.flush_by(Fh(fh.0), req.pid())) {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(errno(&e)),
        }
    }

    fn fsync(
        &self,
        _req: &Request,
        _ino: INodeNo,
        fh: FileHandle,
        _datasync: bool,
        reply: ReplyEmpty,
    ) {
        match guarded("fsync", || self.space.flush(Fh(fh.0))) {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(errno(&e)),
        }
    }

    fn release(
        &self,
        _req: &Request,
        _ino: INodeNo,
        fh: FileHandle,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        _flush: bool,
        reply: ReplyEmpty,
    ) {
        let _ = guarded("release", || {
            self.space.release(Fh(fh.0));
            Ok(())
        });
        self.passthrough.release(Fh(fh.0));
        reply.ok();
    }

    fn opendir(&self, _req: &Request, ino: INodeNo, _flags: OpenFlags, reply: ReplyOpen) {
        if self.kept {
            // The kernel then stops sending opendir and releasedir at all (one round trip
            // less for every `ls`), keeps every listing, and reads one (with handle 0)
            // only when it has none: invalidation drops the kept ones.
            reply.error(Errno::ENOSYS);
            return;
        }
        match guarded("opendir", || self.space.open_dir(Ino(ino.0))) {
            // Kept: the kernel answers readdir from its own copy until told otherwise.
            Ok((fh, true)) => reply.opened(
                FileHandle(fh.0),
                FopenFlags::FOPEN_CACHE_DIR | FopenFlags::FOPEN_KEEP_CACHE,
            ),
            Ok((fh, false)) => reply.opened(FileHandle(fh.0), FopenFlags::empty()),
            Err(e) => reply.error(self.unanswered(Ino(ino.0), None, &e)),
        }
    }

    fn readdir(
        &self,
        _req: &Request,
        ino: INodeNo,
        fh: FileHandle,
        offset: u64,
        mut reply: ReplyDirectory,
    ) {
        match guarded("readdir", || match fh.0 {
            // Directories are not opened when the kernel keeps listings (see opendir).
            0 => self.space.read_dir_unopened(Ino(ino.0), offset),
            fh => self.space.read_dir(Fh(fh), offset),
        }) {
            Ok(entries) => {
                for (next, entry) in entries {
                    let kind = match entry.kind {
                        Kind::Dir => FileType::Directory,
                        Kind::Link => FileType::Symlink,
                        Kind::View | Kind::Document => FileType::RegularFile,
                    };
                    if reply.add(INodeNo(entry.ino.0), next, kind, &entry.name) {
                        break;
                    }
                }
                reply.ok();
            }
            Err(e) => reply.error(self.unanswered(Ino(ino.0), None, &e)),
        }
    }

    /// A listing with each entry's attributes: a recursive `ls -l` or `grep -r` then needs
    /// no lookup round trip per name. The kernel asks for it where that helps (the first
    /// listing of a folder, or one whose names are being looked up).
    fn readdirplus(
        &self,
        _req: &Request,
        ino: INodeNo,
        fh: FileHandle,
        offset: u64,
        mut reply: ReplyDirectoryPlus,
    ) {
        let parent = Ino(ino.0);
        // Every entry's attributes are resolved from the top: one look at each folder on
        // the way serves them all.
        let _glance = crate::tree::glance::listing();
        let listed = guarded("readdirplus", || {
            let entries = match fh.0 {
                0 => self.space.read_dir_unopened(parent, offset)?,
                fh => self.space.read_dir(Fh(fh), offset)?,
            };
            let here = self.space.getattr(parent)?;
            Ok((entries, here))
        });
        let (entries, here) = match listed {
            Ok(listed) => listed,
            Err(e) => return reply.error(self.unanswered(parent, None, &e)),
        };
        for (next, entry) in entries {
            // The kernel takes nothing of `.` and `..` but their names: it has both.
            let dots = entry.name == "." || entry.name == "..";
            let attr = match dots {
                true => here.clone(),
                // A name gone since the listing was taken is left out, as a lookup of it
                // would answer that it is not there.
                false => match guarded("readdirplus", || {
                    self.space.listed_attr(parent, &entry.name)
                }) {
                    Ok(attr) => attr,
                    Err(_) => continue,
                },
            };
            let full = reply.add(
                INodeNo(if dots { entry.ino.0 } else { attr.ino.0 }),
                next,
                &entry.name,
                &self.ttl(&attr),
                &self.attr(&attr),
                Generation(0),
            );
            if full {
                break;
            }
            if !dots {
                // Each entry the kernel takes counts as a lookup, to be forgotten later.
                self.space.kernel().looked_up(attr.ino, !attr.cacheable);
            }
        }
        reply.ok();
    }

    fn releasedir(
        &self,
        _req: &Request,
        _ino: INodeNo,
        fh: FileHandle,
        _flags: OpenFlags,
        reply: ReplyEmpty,
    ) {
        self.space.close_dir(Fh(fh.0));
        reply.ok();
    }

    fn statfs(&self, _req: &Request, _ino: INodeNo, reply: ReplyStatfs) {
        reply.statfs(0, 0, 0, self.space.inode_count() as u64, 0, 4096, 255, 4096);
    }

    fn access(&self, _req: &Request, ino: INodeNo, mask: fuser::AccessFlags, reply: ReplyEmpty) {
        let write = mask.contains(fuser::AccessFlags::W_OK);
        match guarded("access", || self.space.access(Ino(ino.0), write)) {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(self.unanswered(Ino(ino.0), None, &e)),
        }
    }

    fn create(
        &self,
        req: &Request,
        parent: INodeNo,
        name: &OsStr,
        mode: u32,
        umask: u32,
        flags: i32,
        reply: ReplyCreate,
    ) {
        let exclusive = flags & libc::O_EXCL != 0;
        match guarded("create", || {
            let name = utf8(name)?;
            let mode = mode & !umask;
            (self.space).create(Ino(parent.0), name, exclusive, caller(req), mode)
        }) {
            Ok((attr, fh)) => {
                self.space.kernel().looked_up(attr.ino, !attr.cacheable);
                reply.created(
                    &self.ttl(&attr),
                    &self.attr(&attr),
                    Generation(0),
                    FileHandle(fh.0),
                    FopenFlags::FOPEN_DIRECT_IO,
                )
            }
            Err(e) => reply.error(errno(&e)),
        }
    }
}

/// Why a FUSE mount could not be detached.
#[derive(Debug)]
pub enum Detach {
    /// `fusermount3` cannot be run and the system call was refused for want of privilege
    /// (not root): what to install.
    NoHelper(String),
    /// Both refused (or the helper is missing and the system call failed for another
    /// reason): the system call's errno and what the helper said, or why it could not run.
    Refused { errno: Option<i32>, said: String },
}

/// Detach the FUSE mount at `mountpoint` (`lazy`: even while busy) with `fusermount3`,
/// falling back to the system call, which works as root where the helper refuses or is not
/// installed at all.
pub fn detach(mountpoint: &Path, lazy: bool) -> Result<(), Detach> {
    let mut command = std::process::Command::new("fusermount3");
    command.arg(if lazy { "-uz" } else { "-u" }).arg(mountpoint);
    // fusermount3 may be missing, lack its setuid bit or refuse as non-owner; as root the
    // plain system call does the same job.
    let helper = match command.output() {
        Ok(out) if out.status.success() => return Ok(()),
        Ok(out) => Ok(String::from_utf8_lossy(&out.stderr).trim().to_string()),
        Err(e) => Err(format!("could not run fusermount3 ({e})")),
    };
    let path = std::ffi::CString::new(mountpoint.as_os_str().as_encoded_bytes()).map_err(|_| {
        Detach::Refused {
            errno: None,
            said: "the mountpoint contains a NUL byte".into(),
        }
    })?;
    let flags = if lazy { libc::MNT_DETACH } else { 0 };
    // SAFETY: `path` is a valid NUL-terminated string that outlives the call.
    if unsafe { libc::umount2(path.as_ptr(), flags) } == 0 {
        return Ok(());
    }
    let errno = std::io::Error::last_os_error().raw_os_error();
    match helper {
        Ok(said) => Err(Detach::Refused { errno, said }),
        Err(missing) if errno == Some(libc::EPERM) => Err(Detach::NoHelper(format!(
            "{missing}, and only root may unmount without it: install the fuse3 package"
        ))),
        Err(missing) => Err(Detach::Refused {
            errno,
            said: missing,
        }),
    }
}
