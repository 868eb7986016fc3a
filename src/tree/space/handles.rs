//! Open files. A reader gets a snapshot taken at `open`, so `stat` on the open file and
//! every `read` agree even while the state behind it changes. A writer edits a buffer;
//! the whole buffer goes to the resource — validated as one — only at `flush` (close) or
//! `fsync`, never per `write()` call, so multi-chunk writes work and a rejected write
//! leaves the old content in place. Editors' temp files live here too (their state is in
//! [`crate::tree::open_files`]).

use std::sync::Arc;
use std::time::SystemTime;

use crate::error::{Error, ErrorKind, Result};
use crate::model::Kind;
use crate::model::{Fh, Ino, TreePath};
use crate::tree::Space;
use crate::tree::access::{Admission, Caller};
use crate::tree::body::Body;
use crate::tree::glance::Glance;
use crate::tree::inodes::Print;
use crate::tree::kernel_cache::CacheMode;
use crate::tree::open_files::{Edit, Handle, MAX_DOCUMENT, ScratchFile};
use crate::tree::pending::Pending;
use crate::tree::resource::ResourceExt;
use crate::tree::space::requests::{FlushRequest, OpenRequest, OpenWait, ReadRequest};
use crate::tree::space::route::{Located, Route};
use crate::tree::space::{Attr, is_a_dir};

/// The size from which a reader of an exact project file is handed the file itself:
/// registering the backing file costs more than reading a small file whole from the page
/// cache, while a large one read cold saves a request per readahead window (the README's
/// figures, under "Caching").
const PASSTHROUGH_FROM: usize = 128 * 1024;

/// An open done, or to be done once the content is final.
pub enum Opened {
    /// The handle, and how the kernel reads it.
    Now(Fh, Paging),
    Wait(Pending),
}

/// How the kernel reads an open file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Paging {
    /// Every read asks the daemon, which answers from the open file.
    Direct,
    /// Through the kernel's page cache; `keep`: the pages it holds are still right.
    Cached { keep: bool },
    /// Straight from `file`, a project file that is exactly what the path shows (the
    /// kernel reads it itself: FUSE passthrough); where that is unavailable, as `Cached`.
    Passthrough {
        file: std::path::PathBuf,
        keep: bool,
    },
}

impl Opened {
    /// The handle and how the kernel reads it, for an open that was not to wait.
    pub fn now(self) -> Result<(Fh, Paging)> {
        match self {
            Opened::Now(fh, paging) => Ok((fh, paging)),
            // Not asked to wait: never told to.
            Opened::Wait(_) => Err(Error::internal("an open that may not wait was told to")),
        }
    }

    /// The handle of an open that was not to wait.
    pub fn fh(self) -> Result<Fh> {
        self.now().map(|(fh, _)| fh)
    }
}

impl Space {
    /// Open a file (the kernel's `open`): a handle, and how the kernel may read it —
    /// through its page cache (kept from the last open when the content is the same)
    /// when every change to it is announced and the opener cannot write, else directly
    /// from the snapshot taken now, whatever size the kernel last saw — or, as
    /// `request.wait` allows, how to wait for content that is not final yet. Opening for
    /// writing is a change and must be admitted (see [`crate::tree::access`]).
    pub fn open(&self, request: OpenRequest) -> Result<Opened> {
        let OpenRequest {
            ino,
            flags,
            caller,
            wait,
        } = request;
        if wait == OpenWait::Over {
            self.forget_rendered();
        }
        // Where the file is and what it holds are looked up together (a memory entry and
        // its session are read once); an open changes nothing, its writes come at release.
        let glance = Glance::new();
        let path = self.path_of(ino)?;
        let at = self.locate_for_open(&glance, &path, ino)?;
        let node = &at.node;
        if wait == OpenWait::May
            && node.waits
            && !flags.write
            && let Route::In(resource, rest) = &at.route
            && let Some(pending) = resource.pending(rest)
        {
            return Ok(Opened::Wait(pending));
        }
        if node.kind == Kind::Dir {
            return Err(is_a_dir(&self.links, &path));
        }
        if flags.write {
            self.admit(caller, "open", &path)?;
        }
        if flags.write && !node.writable {
            let error = self.read_only_error(&path, node.kind);
            self.record("open", &path, &error);
            return Err(error);
        }
        // Read even when truncating: a writer's save is checked against what it replaced.
        let (existing, print) = self.content_for_open(&at)?;
        let base = (flags.write && node.kind == Kind::Document).then(|| existing.to_vec());
        let content = if flags.truncate {
            Arc::new(Vec::new())
        } else {
            existing
        };
        let mut paging = Paging::Direct;
        if !flags.write {
            self.served(&at, print);
            if at.cacheable && self.kernel.mode() == CacheMode::Kept {
                let keep = self.kernel.opened(ino, print);
                paging = Paging::Cached { keep };
                if content.len() >= PASSTHROUGH_FROM
                    && let Some(file) = &at.node.file
                {
                    paging = Paging::Passthrough {
                        file: file.clone(),
                        keep,
                    };
                }
            }
        }
        let edit = flags.write.then_some(Edit {
            dirty: flags.truncate,
            written: false,
            broken: None,
            append: flags.append,
        });
        let perm = self.perm_of(node);
        let (kind, writable) = (node.kind, node.writable);
        // It borrows the path, which the handle keeps.
        drop(at);
        // A reader shares the snapshot the daemon keeps; a writer gets its own copy.
        let content = if flags.write {
            let owned = Arc::try_unwrap(content).unwrap_or_else(|shared| shared.to_vec());
            Body::new(owned, self.files.spill())?
        } else {
            Body::shared(content, self.files.spill())
        };
        let fh = self.files.add(Handle {
            ino,
            pid: caller.pid,
            base,
            kind,
            writable,
            path,
            content,
            edit,
            perm,
            by_owner: caller.uid == self.access.owner,
            cached: paging != Paging::Direct,
        });
        Ok(Opened::Now(fh, paging))
    }

    fn read_only_error(&self, path: &TreePath, kind: Kind) -> Error {
        let at = self.links.to(path.as_str());
        let parent = path.parent().unwrap_or_default();
        let entry = self
            .links
            .to(parent.join(crate::model::names::ENTRY).as_str());
        match kind {
            Kind::View => Error::read_only(format!(
                "{at} is a view, generated from live state; it cannot be written. \
                 {entry} lists what can be changed here"
            )),
            _ => Error::read_only(format!(
                "{at} is read-only here. {entry} says what can be changed"
            )),
        }
    }

    /// Up to `request.size` bytes from `request.offset`: of the open file read from, or of
    /// the inode as it is now where the kernel does not open files.
    pub fn read(&self, request: ReadRequest) -> Result<Vec<u8>> {
        let ReadRequest {
            ino,
            fh,
            offset,
            size,
        } = request;
        let Some(fh) = fh else {
            return self.read_unopened(ino, offset, size);
        };
        let handles = self.files.handles();
        let handle = handles.get(&fh).ok_or_else(|| bad_handle(fh))?;
        handle.content.read_at(offset, size as usize)
    }

    /// Up to `size` bytes of `ino` from `offset`, for a kernel that does not open files
    /// (a read-only mount; see the FUSE adapter): a project file's bytes read from the
    /// file itself, else what the daemon keeps of it or rendered now. A read from the
    /// start stands for the open a read-write mount sees.
    fn read_unopened(&self, ino: Ino, offset: u64, size: u32) -> Result<Vec<u8>> {
        if let Some(file) = self.exact_files.get(&ino, self.kernel.generation()) {
            return read_range(&file, offset, size);
        }
        let path = self.path_of(ino)?;
        // The place and its content are looked up together, as for an open.
        let glance = Glance::new();
        let at = self.locate_for_open(&glance, &path, ino)?;
        if at.node.kind == Kind::Dir {
            return Err(is_a_dir(&self.links, &path));
        }
        if let Route::In(resource, rest) = &at.route
            && let Some(file) = &at.node.file
        {
            // Only the range asked for: a recursive grep reads every file of the project
            // once, and a whole copy (kept, fingerprinted) of each would hold it far below
            // the disk's pace. Its stat gives size and time from the file, so nothing needs
            // the print.
            if offset == 0 {
                resource.opened(rest);
            }
            return read_range(file, offset, size);
        }
        let (content, print) = self.content_for_open(&at)?;
        if offset == 0 {
            self.served(&at, print);
        }
        let start = usize::try_from(offset)
            .unwrap_or(usize::MAX)
            .min(content.len());
        let end = start.saturating_add(size as usize).min(content.len());
        Ok(content[start..end].to_vec())
    }

    /// Content with fingerprint `print` is being read from `at`: its modification time
    /// follows it, and its resource hears of it (a search read becomes a recent one, which
    /// the views beside it show).
    fn served(&self, at: &Located, print: Print) {
        self.observed_print(at.ino, print);
        if let Route::In(resource, rest) = &at.route {
            resource.opened(rest);
            if resource.shows_everything() {
                self.noted_open(at.path);
            }
        }
    }

    /// Put `data` at `offset` of the open file's buffer (at its end when appending).
    pub fn write(&self, fh: Fh, offset: u64, data: &[u8]) -> Result<u32> {
        let mut handles = self.files.handles();
        let handle = handles.get_mut(&fh).ok_or_else(|| bad_handle(fh))?;
        let Some(edit) = handle.edit.as_mut() else {
            return Err(Error::new(
                ErrorKind::ReadOnly,
                "the file was opened for reading only",
            ));
        };
        let start = if edit.append {
            handle.content.len()
        } else {
            offset
        };
        let fits = start
            .checked_add(data.len() as u64)
            .is_some_and(|end| end <= MAX_DOCUMENT as u64);
        // What came before is only part of the file: saving it would replace the document
        // with a truncated copy.
        let written = if fits {
            handle.content.write_at(start, data)
        } else {
            Err(self.too_big(&handle.path))
        };
        if let Err(error) = written {
            edit.broken = Some(error.kind);
            edit.dirty = true;
            return Err(error);
        }
        edit.dirty = true;
        edit.written = true;
        Ok(data.len() as u32)
    }

    /// Save the open file if content was written to it: validate and route it. Called at
    /// every `close` and `fsync`; a rejection fails that call and is logged. A file only
    /// truncated or created, with nothing written, is saved at a close only when the
    /// closing process holds no other descriptor of it: shells open the file, then close a
    /// duplicate before writing (`echo x > f`), and that close must not save (and reject)
    /// an empty file; when it was the last one (`: > f`, `cp /dev/null f`), the close
    /// reports the outcome. When that cannot be told, saving waits for `release`, after
    /// the close returned.
    pub fn flush(&self, request: FlushRequest) -> Result<()> {
        let FlushRequest { fh, pid } = request;
        let complete = pid != 0 && self.last_close(fh, pid);
        self.save_handle(fh, complete)
    }

    /// Whether process `pid`, closing `fh`, holds no other descriptor of its file.
    fn last_close(&self, fh: Fh, pid: u32) -> bool {
        let path = {
            let handles = self.files.handles();
            match handles.get(&fh) {
                Some(handle) if handle.edit.is_some_and(|e| e.dirty && !e.written) => {
                    self.links.to(handle.path.as_str())
                }
                _ => return false,
            }
        };
        crate::tree::holders::holds(pid, &path) == Some(false)
    }

    /// Save what handle `fh` holds if it was written to, or — when `complete` (its last
    /// close) — if it was only truncated or created.
    fn save_handle(&self, fh: Fh, complete: bool) -> Result<()> {
        let (path, base, by_owner) = {
            let mut handles = self.files.handles();
            let handle = handles.get_mut(&fh).ok_or_else(|| bad_handle(fh))?;
            match handle.edit.as_mut() {
                Some(edit) if edit.broken.is_some() => {
                    let error = self.broken(edit.broken, &handle.path);
                    if !edit.dirty {
                        return Err(error);
                    }
                    edit.dirty = false;
                    let path = handle.path.clone();
                    drop(handles);
                    return self.logged("write", &path, Err(error));
                }
                Some(edit) if edit.dirty && (edit.written || complete) => {
                    // Reported once: closing a second descriptor of the same open file
                    // must not report (or save) the same rejection again.
                    edit.dirty = false;
                    (handle.path.clone(), handle.base.clone(), handle.by_owner)
                }
                _ => return Ok(()),
            }
        };
        if let Some(kept) = self.keep_temp_body(fh, &path) {
            self.changed_at(&path);
            return self.logged("write", &path, kept);
        }
        let content = match self.files.handles().get(&fh) {
            Some(handle) => handle.content.to_vec(),
            None => Err(bad_handle(fh)),
        };
        let content: Vec<u8> = self.logged("write", &path, content)?;
        // Admitted when opened: the opener's change, run with the opener's rights.
        let _change = Admission::enter(by_owner);
        let saved = self.save(&path, &content, base.as_deref());
        self.logged("write", &path, saved)?;
        // The next save through this handle builds on what was just saved, as its resource
        // reads it back (a task gains its id and times; it is not the bytes written).
        let saved = self.content(&path).ok();
        if let Some(handle) = self.files.handles().get_mut(&fh) {
            handle.base = saved;
        }
        self.changed_at(&path);
        Ok(())
    }

    /// Give an editor's temp file at `path` what handle `fh` holds, copied as it is (it may
    /// be large: it never passes through memory whole). `None` when `path` is not a temp
    /// file (a document: validated and routed by `save`).
    fn keep_temp_body(&self, fh: Fh, path: &TreePath) -> Option<Result<()>> {
        let key = path.as_str();
        if self.files.scratch().get(key).is_none_or(|f| f.pending) {
            return None;
        }
        let copy = match self.files.handles().get(&fh) {
            Some(handle) => handle.content.try_clone(),
            None => Err(bad_handle(fh)),
        };
        Some(copy.map(|body| {
            if let Some(file) = self.files.scratch().get_mut(key) {
                file.content = body;
                file.changed = SystemTime::now();
            }
        }))
    }

    /// Close the open file: save what `flush` left unsaved (a file truncated or created
    /// and never written), then forget the handle. A document being created whose content
    /// was never accepted disappears with its last handle, and so does a temp file that
    /// holds nothing because its write failed: it must not count toward the limit.
    pub fn release(&self, fh: Fh) {
        // The close already returned: a rejection here can only be logged, which
        // save_handle does.
        let _ = self.save_handle(fh, true);
        let Some(handle) = self.files.handles().remove(&fh) else {
            return;
        };
        let key = handle.path.as_str();
        let still_open = self.files.handles().values().any(|h| h.path == handle.path);
        let failed = handle.edit.is_some_and(|e| e.broken.is_some());
        let mut scratch = self.files.scratch();
        let unwanted = |f: &ScratchFile| f.pending || (failed && f.content.is_empty());
        if !still_open && scratch.get(key).is_some_and(unwanted) {
            scratch.remove(key);
            drop(scratch);
            self.changed_at(&handle.path);
        }
    }

    /// Write `content` to `path`: into memory for temp files, else validated by its
    /// resource. A pending new document stops being pending once its resource took it.
    /// The caller announces what was saved ([`Space::changed_at`]): once per write.
    pub(crate) fn save(&self, path: &TreePath, content: &[u8], base: Option<&[u8]>) -> Result<()> {
        let _pass = self.changes.enter();
        if content.len() > MAX_DOCUMENT {
            return Err(self.too_big(path));
        }
        match self.route(path)? {
            Route::Scratch(key) => {
                let pending = self.files.scratch().get(&key).is_some_and(|f| f.pending);
                if pending {
                    let (resource, rest) = self.place_in_resource(path)?;
                    let written = resource.write(&rest, content, None);
                    // Accepted or not, the new document leaves memory now: accepted, it
                    // lives in its resource; refused, it must vanish when `close` returns,
                    // not later at `release`, so the next `ls` does not show it.
                    self.files.scratch().remove(&key);
                    if written.is_err() {
                        // Nothing after a refusal announces that it left.
                        self.changed_at(path);
                    }
                    written?;
                    self.made(path);
                } else {
                    let body = Body::new(content.to_vec(), self.files.spill())?;
                    if let Some(file) = self.files.scratch().get_mut(&key) {
                        file.content = body;
                        file.changed = SystemTime::now();
                    }
                }
                Ok(())
            }
            Route::In(resource, rest) => resource.write(&rest, content, base),
            Route::Root | Route::Generated(..) | Route::Errors => {
                Err(self.read_only_error(path, Kind::View))
            }
        }
    }

    /// Change the size of a file (`truncate`, `open(O_TRUNC)` on some kernels). With an
    /// open handle the buffer changes and is saved at close; without, it is saved now.
    pub(super) fn set_size(
        &self,
        ino: Ino,
        size: u64,
        fh: Option<Fh>,
        caller: Caller,
    ) -> Result<Attr> {
        let path = self.path_of(ino)?;
        let _change = self.admit(caller, "truncate", &path)?;
        let size = usize::try_from(size)
            .ok()
            .filter(|&s| s <= MAX_DOCUMENT)
            .ok_or_else(|| self.too_big(&path))?;
        if let Some(fh) = fh {
            let mut handles = self.files.handles();
            if let Some(handle) = handles.get_mut(&fh)
                && let Some(edit) = handle.edit.as_mut()
            {
                handle.content.set_len(size as u64)?;
                edit.dirty = true;
                edit.written = true;
                let attr = Attr {
                    ino,
                    kind: Kind::Document,
                    size: size as u64,
                    mtime: SystemTime::now(),
                    writable: true,
                    perm: handle.perm,
                    cacheable: false,
                    per_caller: false,
                };
                return Ok(attr);
            }
        }
        let result = (|| {
            let node = self.stat(&path)?;
            if node.kind == Kind::Dir {
                return Err(is_a_dir(&self.links, &path));
            }
            if !node.writable {
                return Err(self.read_only_error(&path, node.kind));
            }
            let mut content = self.content(&path)?;
            let base = content.clone();
            content.resize(size, 0);
            self.save(&path, &content, Some(&base))
        })();
        self.logged("truncate", &path, result)?;
        self.changed_at(&path);
        self.attr_of(&path)
    }

    /// The attributes of `ino` for process `pid` while it has the file open for reading:
    /// what it reads, so its own `stat` during a `cat` agrees with it (other processes see
    /// the file as it is now).
    pub(super) fn open_attr(&self, ino: Ino, pid: u32) -> Option<Attr> {
        let fh = self
            .files
            .handles()
            .iter()
            .filter(|(_, h)| h.ino == ino && h.pid == pid && h.edit.is_none())
            .map(|(fh, _)| *fh)
            .max()?;
        self.handle_attr(ino, fh)
    }

    /// The attributes of an open file, from what it holds: what it will read, or what has
    /// been written to it so far (`fstat` right after `open` must not render anew).
    pub(super) fn handle_attr(&self, ino: Ino, fh: Fh) -> Option<Attr> {
        let (kind, writable, size, content, perm) = {
            let handles = self.files.handles();
            let handle = handles.get(&fh)?;
            // Read through the page cache: what the path shows, which is what the kernel
            // keeps for it (`stat` and `fstat` must not disagree on the time, or editors
            // think the file changed under them).
            if handle.cached {
                drop(handles);
                return self.attr_of(&self.path_of(ino).ok()?).ok();
            }
            // A file being written changes now; one being read is what it held at open.
            let content = match handle.edit {
                Some(_) => None,
                None => handle.content.to_vec().ok(),
            };
            let size = handle.content.len();
            (handle.kind, handle.writable, size, content, handle.perm)
        };
        let mtime = match content {
            Some(content) => self.observed(ino, &content),
            None => SystemTime::now(),
        };
        Some(Attr {
            ino,
            kind,
            size,
            mtime,
            writable,
            perm,
            cacheable: false,
            per_caller: false,
        })
    }
}

fn bad_handle(fh: Fh) -> Error {
    Error::new(ErrorKind::Invalid, format!("file handle {fh} is not open"))
}

impl Space {
    /// The refusal of a document at `path` over the size limit, with what its resource
    /// suggests instead.
    fn too_big(&self, path: &TreePath) -> Error {
        let instead = self
            .place_in_resource(path)
            .ok()
            .and_then(|(resource, _)| resource.too_big_hint())
            .unwrap_or("split the content or write a narrower file");
        Error::new(
            ErrorKind::TooBig,
            format!(
                "a document may hold at most {} MiB; {instead}",
                MAX_DOCUMENT / (1024 * 1024)
            ),
        )
    }
    /// The error of the handle of `path` whose write was refused with `kind`.
    fn broken(&self, kind: Option<ErrorKind>, path: &TreePath) -> Error {
        match kind {
            Some(ErrorKind::TooBig) | None => self.too_big(path),
            Some(kind) => Error::new(
                kind,
                "an earlier write to this file failed (no room for temp files), so it was not saved",
            ),
        }
    }
}

/// Up to `size` bytes of `file` from `offset`.
fn read_range(file: &std::path::Path, offset: u64, size: u32) -> Result<Vec<u8>> {
    use std::os::unix::fs::FileExt;
    let cannot =
        |e: std::io::Error| Error::not_found(format!("{} cannot be read: {e}", file.display()));
    let opened = std::fs::File::open(file).map_err(cannot)?;
    // The kernel asks for a whole readahead window (128 KiB and more) of files mostly far
    // smaller: a buffer of what is left, not a zeroed window mapped and unmapped per read.
    let left = opened
        .metadata()
        .map_err(cannot)?
        .len()
        .saturating_sub(offset);
    let mut buffer = vec![0; left.min(u64::from(size)) as usize];
    let mut filled = 0;
    while filled < buffer.len() {
        match opened.read_at(&mut buffer[filled..], offset + filled as u64) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(cannot(e)),
        }
    }
    buffer.truncate(filled);
    Ok(buffer)
}
