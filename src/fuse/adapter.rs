//! The `fuser::Filesystem` adapter over a [`Space`]: every handler is one call on the core
//! and one match turning its answer (or error) into the kernel's reply. Whatever a core
//! test could check (directory listings, access checks, which attributes an open file
//! reports) is in the core. A panic inside a request fails that request with `EIO` (and
//! is logged); the mount keeps serving.

use std::ffi::OsStr;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use fuser::{
    Errno, FileHandle, Filesystem, FopenFlags, Generation, INodeNo, InitFlags, KernelConfig,
    LockOwner, OpenFlags, RenameFlags, ReplyAttr, ReplyCreate, ReplyData, ReplyDirectory,
    ReplyDirectoryPlus, ReplyEmpty, ReplyEntry, ReplyOpen, ReplyStatfs, ReplyWrite, Request,
    TimeOrNow, WriteFlags,
};

use super::attr::{file_attr, file_type, ttl};
use super::passthrough::Passthrough;
use crate::error::{Error, ErrorKind, Result};
use crate::model::{Fh, Ino, TreePath};
use crate::tree::access::Caller;
use crate::tree::pending::{self, Pending, Waited};
use crate::tree::{
    AccessRequest, Attr, AttrRequest, CreateRequest, FlushRequest, LookupRequest, MkdirRequest,
    OpenFlags as Open, OpenRequest, OpenWait, Opened, Paging, ReadDirRequest, ReadRequest,
    RemoveRequest, RenameRequest, SetattrRequest, Space, guarded,
};

/// The `fuser` filesystem over a [`Space`].
pub(super) struct Fs {
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

impl Fs {
    /// The adapter over `space`; `kept`: the kernel keeps what it is given (not
    /// `--no-cache`); `read_only`: the mount refuses every change.
    pub(super) fn new(space: Arc<Space>, kept: bool, read_only: bool) -> Self {
        Fs {
            space,
            kept,
            unopened: kept && read_only,
            passthrough: Passthrough::default(),
        }
    }

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

    /// How long the kernel may keep `attr`, as this mount serves it.
    fn ttl(&self, attr: &Attr) -> Duration {
        ttl(attr, self.kept)
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
            let request = OpenRequest {
                wait: OpenWait::Over,
                ..OpenRequest::new(Ino(ino.0), open, caller)
            };
            match guarded("open", || space.open(request)?.now()) {
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
        reply.entry(&self.ttl(attr), &file_attr(attr), Generation(0));
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

/// The open directory a `readdir` names: none for handle 0, which the kernel sends when it
/// keeps listings and opens no directory (see `opendir`).
fn listing(fh: FileHandle) -> Option<Fh> {
    (fh.0 != 0).then_some(Fh(fh.0))
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
            let request = LookupRequest::new(Ino(parent.0), utf8(name)?).by(caller(req));
            self.space.lookup(request)
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
        let request = AttrRequest {
            ino: Ino(ino.0),
            fh: fh.map(|f| Fh(f.0)),
            pid: req.pid(),
        };
        match guarded("getattr", || self.space.getattr(request)) {
            Ok(attr) => reply.attr(&self.ttl(&attr), &file_attr(&attr)),
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
        // Times are not kept (see Space::setattr): `touch` changes nothing.
        let request = SetattrRequest {
            ino: Ino(ino.0),
            fh: fh.map(|f| Fh(f.0)),
            size,
            mode,
            uid,
            gid,
            caller: caller(req),
        };
        match guarded("setattr", || self.space.setattr(request)) {
            Ok(attr) => reply.attr(&self.ttl(&attr), &file_attr(&attr)),
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
            self.space.mkdir(MkdirRequest {
                parent: Ino(parent.0),
                name: utf8(name)?,
                caller: caller(req),
            })
        }) {
            Ok(attr) => self.entry(&attr, reply),
            Err(e) => reply.error(errno(&e)),
        }
    }

    fn unlink(&self, req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEmpty) {
        match guarded("unlink", || {
            (self.space).remove(RemoveRequest::file(Ino(parent.0), utf8(name)?, caller(req)))
        }) {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(errno(&e)),
        }
    }

    fn rmdir(&self, req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEmpty) {
        match guarded("rmdir", || {
            (self.space).remove(RemoveRequest::dir(Ino(parent.0), utf8(name)?, caller(req)))
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
            self.space.rename(RenameRequest {
                parent: Ino(parent.0),
                name: utf8(name)?,
                new_parent: Ino(newparent.0),
                new_name: utf8(newname)?,
                no_replace: flags.contains(RenameFlags::RENAME_NOREPLACE),
                caller: caller(req),
            })
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
            let request = OpenRequest {
                wait: OpenWait::May,
                ..OpenRequest::new(Ino(ino.0), open, caller(req))
            };
            self.space.open(request)
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
        let request = ReadRequest {
            ino: Ino(ino.0),
            // Where files are never opened (see `unopened`) the kernel reads with handle 0.
            fh: (!self.unopened).then_some(Fh(fh.0)),
            offset,
            size,
        };
        match guarded("read", || self.space.read(request)) {
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
        let request = FlushRequest::new(Fh(fh.0)).by(req.pid());
        match guarded("flush", || self.space.flush(request)) {
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
        match guarded("fsync", || self.space.flush(FlushRequest::new(Fh(fh.0)))) {
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
        let request = ReadDirRequest {
            ino: Ino(ino.0),
            fh: listing(fh),
            offset,
        };
        match guarded("readdir", || self.space.read_dir(request)) {
            Ok(entries) => {
                for (next, entry) in entries {
                    let kind = file_type(entry.kind);
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
        let request = ReadDirRequest {
            ino: parent,
            fh: listing(fh),
            offset,
        };
        let listed = match guarded("readdirplus", || self.space.read_dir_plus(request)) {
            Ok(listed) => listed,
            Err(e) => return reply.error(self.unanswered(parent, None, &e)),
        };
        for (next, entry) in &listed.entries {
            // The kernel takes nothing of `.` and `..` but their names: it has both.
            let dots = entry.name == "." || entry.name == "..";
            let attr = match dots {
                true => listed.here.clone(),
                // A name gone since the listing was taken is left out, as a lookup of it
                // would answer that it is not there.
                false => match guarded("readdirplus", || listed.attr(&entry.name)) {
                    Ok(attr) => attr,
                    Err(_) => continue,
                },
            };
            let full = reply.add(
                INodeNo(if dots { entry.ino.0 } else { attr.ino.0 }),
                *next,
                &entry.name,
                &self.ttl(&attr),
                &file_attr(&attr),
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
        let request = AccessRequest {
            ino: Ino(ino.0),
            write: mask.contains(fuser::AccessFlags::W_OK),
        };
        match guarded("access", || self.space.access(request)) {
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
        match guarded("create", || {
            self.space.create(CreateRequest {
                parent: Ino(parent.0),
                name: utf8(name)?,
                caller: caller(req),
                mode: mode & !umask,
                exclusive: flags & libc::O_EXCL != 0,
            })
        }) {
            Ok((attr, fh)) => {
                self.space.kernel().looked_up(attr.ino, !attr.cacheable);
                reply.created(
                    &self.ttl(&attr),
                    &file_attr(&attr),
                    Generation(0),
                    FileHandle(fh.0),
                    FopenFlags::FOPEN_DIRECT_IO,
                )
            }
            Err(e) => reply.error(errno(&e)),
        }
    }
}
