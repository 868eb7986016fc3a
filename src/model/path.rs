//! [`TreePath`]: a place in the mounted tree, as the names leading to it from the root
//! (the root has none). A request carries one from the inode it names down to the
//! resource that answers. It is kept joined by `/`, as the inode table keys paths, so
//! making one for a lookup costs one string and handing it to that table costs nothing.

use std::fmt;

/// A path from the root of the tree: `tasks/open/a.json`; the root is empty.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TreePath(String);

impl TreePath {
    /// The root of the tree.
    pub fn root() -> Self {
        TreePath(String::new())
    }

    /// The path spelled `joined` (names joined by `/`; empty for the root).
    pub fn parse(joined: &str) -> Self {
        TreePath(joined.to_string())
    }

    /// The path made of `names`, from the root.
    pub fn from_names<S: AsRef<str>>(names: impl IntoIterator<Item = S>) -> Self {
        let mut path = TreePath::root();
        for name in names {
            path.push(name.as_ref());
        }
        path
    }

    /// The names joined by `/`, as links and the inode table spell the path.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn is_root(&self) -> bool {
        self.0.is_empty()
    }

    /// The names from the root down (none for the root).
    pub fn names(&self) -> impl DoubleEndedIterator<Item = &str> + Clone {
        (!self.0.is_empty())
            .then(|| self.0.split('/'))
            .into_iter()
            .flatten()
    }

    /// How many names lead here (0 for the root).
    pub fn depth(&self) -> usize {
        self.names().count()
    }

    /// The first name: the resourcespace the path is in.
    pub fn first(&self) -> Option<&str> {
        self.names().next()
    }

    /// The last name: what the path itself is called.
    pub fn name(&self) -> Option<&str> {
        self.names().next_back()
    }

    /// The directory holding this path; `None` for the root.
    pub fn parent(&self) -> Option<TreePath> {
        if self.is_root() {
            return None;
        }
        let end = self.0.rfind('/').unwrap_or(0);
        Some(TreePath(self.0[..end].to_string()))
    }

    /// `name` inside this directory.
    pub fn join(&self, name: &str) -> TreePath {
        let mut path = self.clone();
        path.push(name);
        path
    }

    /// Go down to `name` inside this directory.
    pub fn push(&mut self, name: &str) {
        if !self.0.is_empty() {
            self.0.push('/');
        }
        self.0.push_str(name);
    }

    /// What the names inside this directory are prefixed with: `tasks/open/` (empty for
    /// the root).
    pub fn dir_prefix(&self) -> String {
        if self.is_root() {
            String::new()
        } else {
            format!("{}/", self.0)
        }
    }

    /// Every directory above this path, spelled as [`TreePath::as_str`] does, from the
    /// root down (none for the root; the root alone for a name at the root).
    pub fn ancestors(&self) -> impl Iterator<Item = &str> {
        let ends = self.0.match_indices('/').map(|(at, _)| at);
        let above = (!self.is_root()).then_some(0);
        above.into_iter().chain(ends).map(|end| &self.0[..end])
    }
}

impl fmt::Display for TreePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_its_names_from_the_root() {
        let path = TreePath::parse("tasks/open/a.json");
        assert_eq!(
            path.names().collect::<Vec<_>>(),
            ["tasks", "open", "a.json"]
        );
        assert_eq!(path.first(), Some("tasks"));
        assert_eq!(path.name(), Some("a.json"));
        assert_eq!(path.depth(), 3);
        assert_eq!(path.parent(), Some(TreePath::parse("tasks/open")));
        assert_eq!(TreePath::from_names(["tasks", "open"]).join("a.json"), path);
        assert_eq!(
            path.ancestors().collect::<Vec<_>>(),
            ["", "tasks", "tasks/open"]
        );
        assert_eq!(path.dir_prefix(), "tasks/open/a.json/");
    }

    #[test]
    fn the_root_has_no_names() {
        let root = TreePath::root();
        assert!(root.is_root());
        assert_eq!(root.names().count(), 0);
        assert_eq!(root.parent(), None);
        assert_eq!(root.ancestors().count(), 0);
        assert_eq!(root.dir_prefix(), "");
        assert_eq!(root.join("tasks"), TreePath::parse("tasks"));
        assert_eq!(TreePath::parse("tasks").parent(), Some(root));
    }
}
