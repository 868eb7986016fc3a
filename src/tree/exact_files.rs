//! The project files that inodes exactly are (a module's source, a package's data file),
//! as their last `stat` found them, kept until anything in the tree changes. A read-only
//! mount's kernel reads such a file without opening it, by inode: with this the read goes
//! straight to the file instead of finding the path's resource again (a `grep -r` of a
//! remounted project reads every module once, right after listing its folder with
//! attributes).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::model::Ino;
use crate::tree::lock;

/// Inodes remembered at once; past it the remembering starts afresh.
const KEPT_MOST: usize = 1 << 16;

/// Files of inodes, at the tree generation they were found at.
#[derive(Default)]
pub struct ExactFiles(Mutex<(u64, HashMap<Ino, PathBuf>)>);

impl ExactFiles {
    /// `ino` is exactly `file`, as found at `generation`.
    pub fn found(&self, ino: Ino, file: &Path, generation: u64) {
        let mut kept = lock(&self.0);
        if kept.0 != generation || kept.1.len() >= KEPT_MOST {
            *kept = (generation, HashMap::new());
        }
        kept.1.insert(ino, file.to_path_buf());
    }

    /// The file `ino` is, if found at `generation` (nothing changed since).
    pub fn of(&self, ino: Ino, generation: u64) -> Option<PathBuf> {
        let kept = lock(&self.0);
        (kept.0 == generation).then(|| kept.1.get(&ino).cloned())?
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_found_holds_until_the_tree_changes() {
        let files = ExactFiles::default();
        let file = PathBuf::from("/p/pkg/mod.py");
        files.found(Ino(7), &file, 3);
        assert_eq!(files.of(Ino(7), 3), Some(file.clone()));
        assert_eq!(files.of(Ino(8), 3), None);
        assert_eq!(files.of(Ino(7), 4), None, "a change anywhere: found again");
        files.found(Ino(9), &file, 4);
        assert_eq!(files.of(Ino(7), 4), None, "the older generation is gone");
    }
}
