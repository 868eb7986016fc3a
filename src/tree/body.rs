//! The bytes of a file the tree holds itself: an open file's buffer, an editor's temp file.
//! Small bodies live in memory; past [`SPILL_AT`] a body moves to an unnamed file in the
//! spill directory (beside the store), so editors' scratch files — up to 256 of 8 MiB —
//! cost disk, not the daemon's memory, and give it back when dropped. Unnamed files
//! (`O_TMPFILE`) vanish with the daemon, even when it is killed.
//!
//! The bytes on disk are capped as a whole (`Spill::cap`): past it a write fails with
//! `ENOSPC` and adds nothing, so a write that failed never counts toward the limit.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{Error, ErrorKind, Result};

/// Bodies larger than this live on disk.
pub const SPILL_AT: usize = 256 * 1024;

/// Where bodies spill to, and how much of it they use.
#[derive(Debug)]
pub struct Spill {
    dir: PathBuf,
    on_disk: AtomicU64,
    cap: u64,
}

impl Spill {
    /// Spill into `dir` (made when first needed), at most `cap` bytes in all.
    pub fn new(dir: PathBuf, cap: u64) -> Arc<Spill> {
        Arc::new(Spill {
            dir,
            on_disk: AtomicU64::new(0),
            cap,
        })
    }

    /// Bytes held on disk now.
    pub fn on_disk(&self) -> u64 {
        self.on_disk.load(Ordering::SeqCst)
    }

    /// Take `more` bytes of the cap, or say there is no room.
    fn reserve(&self, more: u64) -> Result<()> {
        let taken = self
            .on_disk
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |used| {
                used.checked_add(more).filter(|&total| total <= self.cap)
            });
        taken.map(|_| ()).map_err(|used| {
            Error::new(
                ErrorKind::NoSpace,
                format!(
                    "editors' temp files already hold {} MiB of the {} MiB allowed; remove some \
                     (rm the temp files, or finish the edits that made them)",
                    used / (1024 * 1024),
                    self.cap / (1024 * 1024)
                ),
            )
        })
    }

    fn release(&self, bytes: u64) {
        self.on_disk.fetch_sub(bytes, Ordering::SeqCst);
    }

    fn file(&self) -> Result<File> {
        std::fs::create_dir_all(&self.dir)
            .and_then(|()| tempfile::tempfile_in(&self.dir))
            .map_err(|e| {
                Error::new(
                    ErrorKind::NoSpace,
                    format!(
                        "a temp file could not be put on disk in {}: {e}",
                        self.dir.display()
                    ),
                )
            })
    }
}

/// A file's bytes, in memory or spilled to disk.
#[derive(Debug)]
pub struct Body {
    place: Storage,
    spill: Arc<Spill>,
}

#[derive(Debug)]
enum Storage {
    Memory(Vec<u8>),
    /// Content the daemon keeps anyway (a reader's snapshot): shared, never copied, and
    /// made the body's own before a first change.
    Shared(Arc<Vec<u8>>),
    /// An unnamed file and how many bytes of it count (what was reserved).
    Disk(File, u64),
}

impl Body {
    /// A body holding `bytes` (spilled if large).
    pub fn new(bytes: Vec<u8>, spill: &Arc<Spill>) -> Result<Body> {
        let mut body = Body {
            place: Storage::Memory(Vec::new()),
            spill: Arc::clone(spill),
        };
        if bytes.len() > SPILL_AT {
            body.write_at(0, &bytes)?;
        } else {
            body.place = Storage::Memory(bytes);
        }
        Ok(body)
    }

    /// A body reading `bytes`, which others hold too.
    pub fn shared(bytes: Arc<Vec<u8>>, spill: &Arc<Spill>) -> Body {
        Body {
            place: Storage::Shared(bytes),
            spill: Arc::clone(spill),
        }
    }

    /// Make a shared body this body's own, before it changes.
    fn own(&mut self) -> Result<()> {
        if let Storage::Shared(bytes) = &self.place {
            let owned = Body::new(bytes.as_ref().clone(), &self.spill)?;
            self.place = Storage::Memory(Vec::new());
            *self = owned;
        }
        Ok(())
    }

    pub fn len(&self) -> u64 {
        match &self.place {
            Storage::Memory(bytes) => bytes.len() as u64,
            Storage::Shared(bytes) => bytes.len() as u64,
            Storage::Disk(_, len) => *len,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Up to `size` bytes from `offset`.
    pub fn read_at(&self, offset: u64, size: usize) -> Result<Vec<u8>> {
        let len = self.len();
        let start = offset.min(len);
        let end = start.saturating_add(size as u64).min(len);
        match &self.place {
            Storage::Memory(bytes) => Ok(bytes[start as usize..end as usize].to_vec()),
            Storage::Shared(bytes) => Ok(bytes[start as usize..end as usize].to_vec()),
            Storage::Disk(file, _) => {
                let mut out = vec![0; (end - start) as usize];
                file.read_exact_at(&mut out, start).map_err(disk_error)?;
                Ok(out)
            }
        }
    }

    /// All the bytes.
    pub fn to_vec(&self) -> Result<Vec<u8>> {
        self.read_at(0, usize::try_from(self.len()).unwrap_or(usize::MAX))
    }

    /// Put `data` at `offset`, growing (with zeros) as needed.
    pub fn write_at(&mut self, offset: u64, data: &[u8]) -> Result<()> {
        self.own()?;
        let end = offset.saturating_add(data.len() as u64);
        self.grow_to(end)?;
        match &mut self.place {
            Storage::Memory(bytes) => {
                let start = offset as usize;
                bytes[start..start + data.len()].copy_from_slice(data);
            }
            Storage::Disk(file, _) => file.write_all_at(data, offset).map_err(disk_error)?,
            Storage::Shared(_) => return Err(shared_changed()),
        }
        Ok(())
    }

    /// Make the body `size` bytes long: cut, or grown with zeros.
    pub fn set_len(&mut self, size: u64) -> Result<()> {
        self.own()?;
        if size > self.len() {
            return self.grow_to(size);
        }
        match &mut self.place {
            Storage::Memory(bytes) => {
                bytes.truncate(size as usize);
                bytes.shrink_to_fit();
            }
            Storage::Disk(file, len) => {
                file.set_len(size).map_err(disk_error)?;
                self.spill.release(*len - size);
                *len = size;
            }
            Storage::Shared(_) => return Err(shared_changed()),
        }
        Ok(())
    }

    /// A copy of this body (streamed: a large one never passes through memory whole).
    pub fn try_clone(&self) -> Result<Body> {
        match &self.place {
            Storage::Memory(bytes) => Body::new(bytes.clone(), &self.spill),
            Storage::Shared(bytes) => Ok(Body::shared(Arc::clone(bytes), &self.spill)),
            Storage::Disk(file, len) => {
                self.spill.reserve(*len)?;
                let copy = (|| {
                    let mut to = self.spill.file()?;
                    let mut from = file.try_clone().map_err(disk_error)?;
                    from.seek(SeekFrom::Start(0)).map_err(disk_error)?;
                    std::io::copy(&mut (&mut from).take(*len), &mut to).map_err(disk_error)?;
                    to.flush().map_err(disk_error)?;
                    Ok(to)
                })();
                match copy {
                    Ok(to) => Ok(Body {
                        place: Storage::Disk(to, *len),
                        spill: Arc::clone(&self.spill),
                    }),
                    Err(e) => {
                        self.spill.release(*len);
                        Err(e)
                    }
                }
            }
        }
    }

    /// Grow to `end` bytes (zeros), moving to disk when that passes [`SPILL_AT`].
    fn grow_to(&mut self, end: u64) -> Result<()> {
        let len = self.len();
        if end <= len {
            return Ok(());
        }
        match &mut self.place {
            Storage::Memory(bytes) if end <= SPILL_AT as u64 => {
                bytes.resize(end as usize, 0);
                Ok(())
            }
            Storage::Memory(bytes) => {
                self.spill.reserve(end)?;
                let moved = (|| {
                    let file = self.spill.file()?;
                    file.write_all_at(bytes, 0).map_err(disk_error)?;
                    file.set_len(end).map_err(disk_error)?;
                    Ok(file)
                })();
                match moved {
                    Ok(file) => {
                        self.place = Storage::Disk(file, end);
                        Ok(())
                    }
                    Err(e) => {
                        self.spill.release(end);
                        Err(e)
                    }
                }
            }
            Storage::Shared(_) => Err(shared_changed()),
            Storage::Disk(file, len) => {
                self.spill.reserve(end - *len)?;
                if let Err(e) = file.set_len(end) {
                    self.spill.release(end - *len);
                    return Err(disk_error(e));
                }
                *len = end;
                Ok(())
            }
        }
    }
}

impl Drop for Body {
    fn drop(&mut self) {
        if let Storage::Disk(_, len) = self.place {
            self.spill.release(len);
        }
    }
}

/// A shared body reached a change without being made its own first (a bug).
fn shared_changed() -> Error {
    Error::internal("a shared snapshot was about to be changed in place")
}

fn disk_error(e: std::io::Error) -> Error {
    let kind = if e.raw_os_error() == Some(libc::ENOSPC) {
        ErrorKind::NoSpace
    } else {
        ErrorKind::Internal
    };
    Error::new(kind, format!("a temp file on disk failed: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shared_body_is_read_in_place_and_copied_before_a_change() {
        let dir = tempfile::tempdir().unwrap();
        let spill = Spill::new(dir.path().join("tmp"), 4 * 1024 * 1024);
        let snapshot = Arc::new(vec![7u8; SPILL_AT + 10]);
        let mut body = Body::shared(Arc::clone(&snapshot), &spill);
        assert_eq!(
            spill.on_disk(),
            0,
            "a large snapshot is not spilled: it is shared"
        );
        assert_eq!(body.len(), SPILL_AT as u64 + 10);
        assert_eq!(body.read_at(SPILL_AT as u64, 20).unwrap(), vec![7u8; 10]);
        body.write_at(0, b"x").unwrap();
        assert_eq!(body.read_at(0, 2).unwrap(), b"x\x07");
        assert_eq!(snapshot[0], 7, "the shared snapshot is left as it was");
        let mut short = Body::shared(Arc::new(b"abc".to_vec()), &spill);
        short.set_len(1).unwrap();
        assert_eq!(short.to_vec().unwrap(), b"a");
    }

    #[test]
    fn small_bodies_stay_in_memory_and_large_ones_spill_and_give_back() {
        let dir = tempfile::tempdir().unwrap();
        let spill = Spill::new(dir.path().join("tmp"), 4 * 1024 * 1024);
        let mut body = Body::new(b"hello".to_vec(), &spill).unwrap();
        assert_eq!(spill.on_disk(), 0);
        body.write_at(SPILL_AT as u64, b"!").unwrap();
        assert_eq!(spill.on_disk(), SPILL_AT as u64 + 1, "spilled");
        assert_eq!(body.read_at(0, 5).unwrap(), b"hello");
        assert_eq!(body.read_at(SPILL_AT as u64 - 1, 10).unwrap(), b"\0!");
        let copy = body.try_clone().unwrap();
        assert_eq!(copy.to_vec().unwrap(), body.to_vec().unwrap());
        assert_eq!(spill.on_disk(), 2 * (SPILL_AT as u64 + 1));
        drop(copy);
        body.set_len(3).unwrap();
        assert_eq!(body.to_vec().unwrap(), b"hel");
        assert_eq!(spill.on_disk(), 3);
        drop(body);
        assert_eq!(spill.on_disk(), 0, "dropping gives the room back");
    }

    #[test]
    fn past_the_cap_a_write_fails_and_counts_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let spill = Spill::new(dir.path().join("tmp"), 1024 * 1024);
        let mut body = Body::new(vec![1; SPILL_AT + 1], &spill).unwrap();
        let before = spill.on_disk();
        let error = body.write_at(0, &vec![2; 2 * 1024 * 1024]).unwrap_err();
        assert_eq!(error.kind, ErrorKind::NoSpace);
        assert_eq!(spill.on_disk(), before);
        assert_eq!(body.len(), SPILL_AT as u64 + 1);
    }
}
