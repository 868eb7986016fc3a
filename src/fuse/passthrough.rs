//! Part of the FUSE adapter: read-only opens of files that are exactly a project file (a
//! module's source, a package's data file) handed to the kernel as that file itself (FUSE
//! passthrough, Linux 6.9+): reads then cost what the disk costs and never reach the
//! daemon. One backing file per inode, shared by its opens and released with the last.
//! Where the kernel lacks it or refuses (registering a backing file needs CAP_SYS_ADMIN),
//! opens fall back to the page cache, and the log says which mode is in use, once.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use fuser::{BackingId, FileHandle, FopenFlags, ReplyOpen};

use crate::model::{Fh, Ino};
use crate::tree::lock;

/// The passthrough opens of a mount.
#[derive(Default)]
pub struct Passthrough {
    /// Offered by the kernel and not refused since.
    on: AtomicBool,
    /// Whether the mode in use was logged.
    said: AtomicBool,
    /// Per inode: its backing file and how many opens use it.
    backing: Mutex<HashMap<Ino, (BackingId, usize)>>,
    /// Which inode each passthrough handle reads.
    handles: Mutex<HashMap<Fh, Ino>>,
}

impl Passthrough {
    /// Whether the kernel agreed to passthrough when the session started.
    pub fn offered(&self, offered: bool) {
        self.on.store(offered, Ordering::SeqCst);
        if !offered {
            self.say("passthrough: not offered by this kernel; project files are read through the page cache");
        }
    }

    fn say(&self, what: &str) {
        if !self.said.swap(true, Ordering::SeqCst) {
            crate::log::line(what);
        }
    }

    /// Answer the open `fh` of inode `ino`, whose content is exactly `file`; `cached`: the
    /// open's flags should this fall back to the page cache.
    pub fn open(&self, ino: Ino, fh: Fh, file: &Path, cached: FopenFlags, reply: ReplyOpen) {
        if !self.on.load(Ordering::SeqCst) {
            return reply.opened(FileHandle(fh.0), cached);
        }
        let mut backing = lock(&self.backing);
        let (id, opens) = match backing.entry(ino) {
            Entry::Occupied(held) => held.into_mut(),
            Entry::Vacant(slot) => {
                match std::fs::File::open(file).and_then(|f| reply.open_backing(&f)) {
                    Ok(id) => {
                        self.say(
                            "passthrough: on; readers of large project files read them directly",
                        );
                        slot.insert((id, 0))
                    }
                    Err(e) => {
                        drop(backing);
                        self.on.store(false, Ordering::SeqCst);
                        self.said.store(false, Ordering::SeqCst);
                        self.say(&format!(
                            "passthrough: off ({e}); project files are read through the page cache"
                        ));
                        return reply.opened(FileHandle(fh.0), cached);
                    }
                }
            }
        };
        *opens += 1;
        lock(&self.handles).insert(fh, ino);
        reply.opened_passthrough(FileHandle(fh.0), FopenFlags::FOPEN_NOFLUSH, id);
    }

    /// The handle `fh` was released: the last open of an inode releases its backing file.
    pub fn release(&self, fh: Fh) {
        let Some(ino) = lock(&self.handles).remove(&fh) else {
            return;
        };
        let mut backing = lock(&self.backing);
        if let Some((_, opens)) = backing.get_mut(&ino) {
            *opens -= 1;
            if *opens == 0 {
                backing.remove(&ino);
            }
        }
    }
}
