//! The only module that speaks to the kernel: translates `fuser` requests into calls on
//! [`Space`] and its plain results back into replies. Every handler is one call and one
//! match. A panic inside a request fails that request with `EIO` (and is logged); the
//! mount keeps serving.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use fuser::{
    Errno, FileAttr, FileHandle, FileType, Filesystem, FopenFlags, Generation, INodeNo, InitFlags,
    KernelConfig, LockOwner, OpenFlags, RenameFlags, ReplyAttr, ReplyCreate, ReplyData,
    ReplyDirectory, ReplyEmpty, ReplyEntry, ReplyOpen, ReplyStatfs, ReplyWrite, Request, TimeOrNow,
    WriteFlags,
};

use crate::error::{Error, Result};
use crate::tree::access::Caller;
use crate::tree::resource::Kind;
use crate::tree::{Attr, DirEntry, OpenFlags as Open, Space, guarded};

/// How long the kernel may cache a directory's name and attributes. Files get no caching:
/// their content is generated or lives in the project, and must show changes at once.
const DIR_TTL: Duration = Duration::from_secs(1);
const FILE_TTL: Duration = Duration::ZERO;

/// The `fuser` filesystem over a [`Space`].
pub struct Fs {
    space: Arc<Space>,
    /// Directory listings, taken at `opendir` so that `readdir` offsets stay consistent.
    listings: Mutex<HashMap<u64, Vec<DirEntry>>>,
    next_listing: Mutex<u64>,
}

impl Fs {
    pub fn new(space: Arc<Space>) -> Self {
        Fs {
            space,
            listings: Mutex::new(HashMap::new()),
            next_listing: Mutex::new(1),
        }
    }

    fn attr(&self, attr: &Attr) -> FileAttr {
        let (kind, nlink) = match attr.kind {
            Kind::Dir => (FileType::Directory, 2),
            _ => (FileType::RegularFile, 1),
        };
        FileAttr {
            ino: INodeNo(attr.ino),
            size: attr.size,
            blocks: attr.size.div_ceil(512),
            atime: attr.mtime,
            mtime: attr.mtime,
            ctime: attr.mtime,
            crtime: attr.mtime,
            kind,
            perm: attr.perm.mode as u16,
            nlink,
            uid: attr.perm.uid,
            gid: attr.perm.gid,
            rdev: 0,
            blksize: 4096,
            flags: 0,
        }
    }

    fn ttl(attr: &Attr) -> Duration {
        if attr.kind == Kind::Dir {
            DIR_TTL
        } else {
            FILE_TTL
        }
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
        Ok(())
    }

    fn lookup(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEntry) {
        match guarded("lookup", || self.space.lookup(parent.0, utf8(name)?)) {
            Ok(attr) => reply.entry(&Self::ttl(&attr), &self.attr(&attr), Generation(0)),
            Err(e) => reply.error(errno(&e)),
        }
    }

    fn getattr(&self, req: &Request, ino: INodeNo, fh: Option<FileHandle>, reply: ReplyAttr) {
        match guarded("getattr", || {
            // An open file reports the size of what it will read or has been written.
            match fh.and_then(|fh| self.space.handle_attr(ino.0, fh.0)) {
                Some(attr) => Ok(attr),
                None => self.space.getattr_by(ino.0, req.pid()),
            }
        }) {
            Ok(attr) => reply.attr(&Self::ttl(&attr), &self.attr(&attr)),
            Err(e) => reply.error(errno(&e)),
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
        // owners are applied or refused, never pretended (see crate::tree::modes).
        match guarded("setattr", || {
            let mut attr = match size {
                Some(size) => (self.space).set_size(ino.0, size, fh.map(|f| f.0), caller(req))?,
                None => self.space.getattr(ino.0)?,
            };
            if mode.is_some() || uid.is_some() || gid.is_some() {
                attr = self.space.set_perm(ino.0, mode, uid, gid, caller(req))?;
            }
            Ok(attr)
        }) {
            Ok(attr) => reply.attr(&Self::ttl(&attr), &self.attr(&attr)),
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
            self.space.mkdir(parent.0, utf8(name)?, caller(req))
        }) {
            Ok(attr) => reply.entry(&Self::ttl(&attr), &self.attr(&attr), Generation(0)),
            Err(e) => reply.error(errno(&e)),
        }
    }

    fn unlink(&self, req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEmpty) {
        match guarded("unlink", || {
            self.space.remove(parent.0, utf8(name)?, false, caller(req))
        }) {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(errno(&e)),
        }
    }

    fn rmdir(&self, req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEmpty) {
        match guarded("rmdir", || {
            self.space.remove(parent.0, utf8(name)?, true, caller(req))
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
                parent.0,
                utf8(name)?,
                newparent.0,
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
        match guarded("open", || {
            self.space.open_by(ino.0, open_flags(flags), caller(req))
        }) {
            // Direct I/O: every read comes from the snapshot taken at open, whatever size
            // the kernel last saw, so generated views never come back cut or padded.
            Ok(fh) => reply.opened(FileHandle(fh), FopenFlags::FOPEN_DIRECT_IO),
            Err(e) => reply.error(errno(&e)),
        }
    }

    fn read(
        &self,
        _req: &Request,
        _ino: INodeNo,
        fh: FileHandle,
        offset: u64,
        size: u32,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        reply: ReplyData,
    ) {
        match guarded("read", || self.space.read(fh.0, offset, size)) {
            Ok(data) => reply.data(&data),
            Err(e) => reply.error(errno(&e)),
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
        match guarded("write", || self.space.write(fh.0, offset, data)) {
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
        match guarded("flush", || self.space.flush_by(fh.0, req.pid())) {
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
        match guarded("fsync", || self.space.flush(fh.0)) {
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
            self.space.release(fh.0);
            Ok(())
        });
        reply.ok();
    }

    fn opendir(&self, _req: &Request, ino: INodeNo, _flags: OpenFlags, reply: ReplyOpen) {
        match guarded("opendir", || self.space.readdir(ino.0)) {
            Ok(listing) => {
                let fh = {
                    let mut next = crate::tree::lock(&self.next_listing);
                    *next += 1;
                    *next
                };
                crate::tree::lock(&self.listings).insert(fh, listing);
                reply.opened(FileHandle(fh), FopenFlags::empty());
            }
            Err(e) => reply.error(errno(&e)),
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
        let listings = crate::tree::lock(&self.listings);
        let Some(listing) = listings.get(&fh.0) else {
            reply.error(Errno::from_i32(libc::EBADF));
            return;
        };
        let dots = [
            (ino.0, ".", FileType::Directory),
            (ino.0, "..", FileType::Directory),
        ];
        let entries = dots.into_iter().chain(listing.iter().map(|e| {
            let kind = if e.kind == Kind::Dir {
                FileType::Directory
            } else {
                FileType::RegularFile
            };
            (e.ino, e.name.as_str(), kind)
        }));
        for (index, (ino, name, kind)) in entries.enumerate().skip(offset as usize) {
            if reply.add(INodeNo(ino), index as u64 + 1, kind, name) {
                break;
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
        crate::tree::lock(&self.listings).remove(&fh.0);
        reply.ok();
    }

    fn statfs(&self, _req: &Request, _ino: INodeNo, reply: ReplyStatfs) {
        reply.statfs(0, 0, 0, self.space.inode_count() as u64, 0, 4096, 255, 4096);
    }

    fn access(&self, _req: &Request, ino: INodeNo, mask: fuser::AccessFlags, reply: ReplyEmpty) {
        match guarded("access", || self.space.getattr(ino.0)) {
            // `test -w` on a view must say no, as its mode does.
            Ok(attr) if mask.contains(fuser::AccessFlags::W_OK) && !attr.writable => {
                reply.error(Errno::from_i32(libc::EACCES))
            }
            Ok(_) => reply.ok(),
            Err(e) => reply.error(errno(&e)),
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
            (self.space).create(parent.0, name, exclusive, caller(req), mode)
        }) {
            Ok((attr, fh)) => reply.created(
                &Self::ttl(&attr),
                &self.attr(&attr),
                Generation(0),
                FileHandle(fh),
                FopenFlags::FOPEN_DIRECT_IO,
            ),
            Err(e) => reply.error(errno(&e)),
        }
    }
}
