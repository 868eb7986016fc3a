//! The numbers the kernel names things by: an inode ([`Ino`]) names a path, a handle
//! ([`Fh`]) one open file or directory. Two types, so that one can never be passed where
//! the other is meant; the raw numbers appear only where the FUSE adapter meets the kernel.

use std::fmt;

/// The number of a path in the mounted tree, stable while the mount lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Ino(pub u64);

/// The number of one open file or directory, from its open to its release.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Fh(pub u64);

impl fmt::Display for Ino {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl fmt::Display for Fh {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}
