//! The content a `stat` just rendered, left a moment for the `open` that usually follows,
//! so that a `cat` renders a view once, not twice, even when nothing is kept for the kernel
//! (`--no-cache`, or a path whose changes are not announced). Taken by the open: the next
//! `cat` renders afresh, so a change on disk shows at the next access.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::model::Ino;
use crate::tree::lock;

/// How long content rendered for `stat` may serve an `open`.
const REUSE: Duration = Duration::from_millis(100);

/// The last rendering a `stat` left, if any.
#[derive(Default)]
pub(crate) struct LeftForOpen(Mutex<Option<Rendered>>);

/// Content rendered for a `stat` of one inode.
struct Rendered {
    ino: Ino,
    /// The kernel-cache generation it was rendered at: any change since makes it stale.
    generation: u64,
    at: Instant,
    content: Arc<Vec<u8>>,
}

impl LeftForOpen {
    /// Leave `content` of `ino`, rendered at `generation`, for the next open.
    pub(crate) fn leave(&self, ino: Ino, generation: u64, content: &Arc<Vec<u8>>) {
        *lock(&self.0) = Some(Rendered {
            ino,
            generation,
            at: Instant::now(),
            content: Arc::clone(content),
        });
    }

    /// Take what a `stat` left: the content of `ino` if it was rendered a moment ago at
    /// `generation` (nothing changed through the tree since).
    pub(crate) fn take(&self, ino: Ino, generation: u64) -> Option<Arc<Vec<u8>>> {
        let left = lock(&self.0).take()?;
        (left.ino == ino && left.generation == generation && left.at.elapsed() < REUSE)
            .then_some(left.content)
    }

    /// Drop whatever was left.
    pub(crate) fn forget(&self) {
        lock(&self.0).take();
    }
}
