//! Absolute links into the mount. Views refer to other places by absolute path under the
//! mountpoint so an agent can paste them into `cat` or `ls` from any working directory;
//! `homespace render` uses `/` as the mountpoint.

use crate::model::TreePath;

/// Turns paths relative to the root of the tree into absolute paths under the mountpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Links {
    /// The mountpoint without a trailing slash; empty when rendering with `/` as the root.
    root: String,
}

impl Links {
    /// Links under `mountpoint` (`/mnt/hs`); `/` gives links like `/tasks/open/`.
    pub fn new(mountpoint: &str) -> Self {
        Links {
            root: mountpoint.trim_end_matches('/').to_string(),
        }
    }

    /// The absolute path of `rel` (`tasks/open/fix-login.json`, or `tasks/open/` for a
    /// directory — the caller keeps the trailing slash that marks directories).
    pub fn to(&self, rel: &str) -> String {
        format!("{}/{}", self.root, rel.trim_start_matches('/'))
    }

    /// The absolute path of the directory made of `components`, with a trailing slash.
    pub fn dir(&self, components: &[&str]) -> String {
        if components.is_empty() {
            return self.to("");
        }
        self.to(&format!("{}/", components.join("/")))
    }

    /// The absolute path of the file at `path`.
    pub fn file(&self, path: &TreePath) -> String {
        self.to(path.as_str())
    }

    /// The absolute path of the directory at `path`, with a trailing slash.
    pub fn folder(&self, path: &TreePath) -> String {
        self.to(&path.dir_prefix())
    }

    /// The mountpoint itself as users see it (`/` when rendering).
    pub fn mountpoint(&self) -> &str {
        if self.root.is_empty() {
            "/"
        } else {
            &self.root
        }
    }
}

/// `tasks/open/` for a directory's components (empty for the root): what names inside it
/// are prefixed with.
pub fn dir_prefix(path: &[impl AsRef<str>]) -> String {
    path.iter().map(|c| format!("{}/", c.as_ref())).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_are_absolute_under_the_mountpoint() {
        let at = Links::new("/mnt/hs/");
        assert_eq!(at.to("tasks/open/x.json"), "/mnt/hs/tasks/open/x.json");
        assert_eq!(at.dir(&["source", "ledger"]), "/mnt/hs/source/ledger/");
        assert_eq!(at.dir(&[]), "/mnt/hs/");
        let render = Links::new("/");
        assert_eq!(render.dir(&["tasks"]), "/tasks/");
        assert_eq!(render.mountpoint(), "/");
        let runs = TreePath::parse("source/tests/runs");
        assert_eq!(at.file(&runs), "/mnt/hs/source/tests/runs");
        assert_eq!(at.folder(&runs), "/mnt/hs/source/tests/runs/");
        assert_eq!(render.folder(&TreePath::root()), "/");
    }
}
