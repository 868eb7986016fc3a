//! The content a `stat` just rendered, and what it found at the path, left a moment for
//! the `open` that usually follows, so that a `cat` renders a view once, not twice, even
//! when nothing is kept for the kernel (`--no-cache`, or a path whose changes are not
//! announced), and its open need not ask the resource what the path is again. Taken by
//! the open: the next `cat` renders afresh, so a change on disk shows at the next access.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::model::{Ino, Node};
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
    node: Node,
    content: Arc<Vec<u8>>,
}

impl LeftForOpen {
    /// Leave `content` of `ino` (whose node is `node`), rendered at `generation`, for the
    /// next open.
    pub(crate) fn leave(&self, ino: Ino, generation: u64, node: &Node, content: &Arc<Vec<u8>>) {
        *lock(&self.0) = Some(Rendered {
            ino,
            generation,
            at: Instant::now(),
            node: node.clone(),
            content: Arc::clone(content),
        });
    }

    /// What the `stat` that left content of `ino` found there, if that was a moment ago
    /// at `generation` (nothing changed through the tree since); the content stays left.
    pub(crate) fn node(&self, ino: Ino, generation: u64) -> Option<Node> {
        let left = lock(&self.0);
        let left = left.as_ref().filter(|left| left.fresh(ino, generation))?;
        Some(left.node.clone())
    }

    /// Take what a `stat` left: the content of `ino` if it was rendered a moment ago at
    /// `generation`.
    pub(crate) fn take(&self, ino: Ino, generation: u64) -> Option<Arc<Vec<u8>>> {
        let left = lock(&self.0).take()?;
        left.fresh(ino, generation).then_some(left.content)
    }

    /// Drop whatever was left.
    pub(crate) fn forget(&self) {
        lock(&self.0).take();
    }
}

impl Rendered {
    fn fresh(&self, ino: Ino, generation: u64) -> bool {
        self.ino == ino && self.generation == generation && self.at.elapsed() < REUSE
    }
}
