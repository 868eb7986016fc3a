//! The `__init__.py` files `mkdir` made, while they are still empty: not shown, so that a
//! shell copying a package in (`cp -r`, `cp -a`, which create each file with `O_EXCL`)
//! creates its own `__init__.py` where the mount's would collide with it. The package is a
//! regular package on disk all the while; the first write of its `__init__.py` (a copy's,
//! an `echo >`, a `touch`) shows it from then on.

use std::path::{Path, PathBuf};

use super::Project;

impl Project {
    /// Note that `mkdir` made the empty `init`.
    pub(crate) fn made_init(&self, init: &Path) {
        crate::tree::lock(&self.made_inits).insert(init.to_path_buf());
    }

    /// Whether `init` is an `__init__.py` that `mkdir` made and nothing has written since.
    pub(crate) fn is_made_init(&self, init: &Path) -> bool {
        let mut made = crate::tree::lock(&self.made_inits);
        if !made.contains(init) {
            return false;
        }
        let empty = std::fs::metadata(init).is_ok_and(|m| m.is_file() && m.len() == 0);
        if !empty {
            made.remove(init);
        }
        empty
    }

    /// Show `init` from now on: it is being written, or its folder goes.
    pub(crate) fn shown_init(&self, init: &Path) {
        let mut made = crate::tree::lock(&self.made_inits);
        made.remove(init);
        // The folder's kept listing left it out.
        self.listed.forget();
    }
}

/// The set [`Project::made_init`] keeps.
pub(super) type MadeInits = std::sync::Mutex<std::collections::HashSet<PathBuf>>;
