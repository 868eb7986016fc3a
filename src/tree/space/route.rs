//! Where a path leads: the root, a generated view, the error log, an editor's temp file in
//! memory, or a path inside one resourcespace. Every operation of [`Space`] starts here;
//! one that reads what the path holds locates it once ([`Located`]) and carries that
//! through, rather than routing the same path again at each step.

use std::sync::Arc;

use crate::error::{Error, Result};
use crate::model::names::{ENTRY, ERRORS, NAV};
use crate::model::{Ino, Node, TreePath};
use crate::tree::Space;
use crate::tree::glance::Glance;
use crate::tree::resource::Resource;

/// A generated file of a directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Generated {
    Entry,
    Nav,
}

/// What a path refers to.
pub(crate) enum Route<'a> {
    Root,
    /// A generated file of the directory given.
    Generated(Generated, TreePath),
    Errors,
    Scratch(String),
    In(Arc<dyn Resource>, Vec<&'a str>),
}

/// A path routed and examined once for one request: where it leads, what it holds, its
/// number, whether the kernel may keep what it shows, and the request's glance, in which
/// what it shows is read.
pub(super) struct Located<'a> {
    pub(super) glance: &'a Glance,
    pub(super) path: &'a TreePath,
    pub(super) route: Route<'a>,
    pub(super) node: Node,
    pub(super) ino: Ino,
    pub(super) cacheable: bool,
}

impl Space {
    /// Route `path` and look at what it holds, once for the request at hand.
    pub(super) fn locate<'a>(&self, glance: &'a Glance, path: &'a TreePath) -> Result<Located<'a>> {
        let route = self.route(path)?;
        let node = self.stat_at(glance, &route)?;
        Ok(self.located(glance, path, route, node, self.ino_of(path)))
    }

    /// Locate `path` (inode `ino`) for an open: as [`Space::locate`], except that what the
    /// `stat` a moment before found there is taken as it is when that `stat` left its
    /// rendering for this open (the open of a `cat` does not ask its resource again).
    pub(super) fn locate_for_open<'a>(
        &self,
        glance: &'a Glance,
        path: &'a TreePath,
        ino: Ino,
    ) -> Result<Located<'a>> {
        let route = self.route(path)?;
        let node = match self.rendered.node(ino, self.kernel.generation()) {
            Some(node) => node,
            None => self.stat_at(glance, &route)?,
        };
        Ok(self.located(glance, path, route, node, ino))
    }

    fn located<'a>(
        &self,
        glance: &'a Glance,
        path: &'a TreePath,
        route: Route<'a>,
        node: Node,
        ino: Ino,
    ) -> Located<'a> {
        let cacheable = self.cacheable(&node, path);
        Located {
            glance,
            path,
            route,
            node,
            ino,
            cacheable,
        }
    }

    /// Route `path` to the place that answers for it. Does not check that it exists.
    pub(crate) fn route<'a>(&self, path: &'a TreePath) -> Result<Route<'a>> {
        let mut names = path.names();
        let (Some(first), Some(last)) = (names.clone().next(), names.next_back()) else {
            return Ok(Route::Root);
        };
        let generated = match last {
            ENTRY => Some(Generated::Entry),
            NAV => Some(Generated::Nav),
            ERRORS if path.as_str() == ERRORS => return Ok(Route::Errors),
            _ => None,
        };
        if let (Some(generated), Some(dir)) = (generated, path.parent()) {
            return Ok(Route::Generated(generated, dir));
        }
        if self.files.has_scratch(path.as_str()) {
            return Ok(Route::Scratch(path.as_str().to_string()));
        }
        let resource = self.resource(first).ok_or_else(|| {
            Error::not_found(format!(
                "{} does not exist: the root holds {}",
                self.links.to(first),
                self.resource_names()
            ))
        })?;
        let (resource, rest) = descend(resource, path.names().skip(1));
        Ok(Route::In(resource, rest))
    }

    pub(crate) fn resource(&self, name: &str) -> Option<Arc<dyn Resource>> {
        self.resources.iter().find(|r| r.name() == name).cloned()
    }

    pub(crate) fn resource_names(&self) -> String {
        self.resources
            .iter()
            .map(|r| format!("{}/", r.name()))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The innermost resourcespace answering for the names `rest` inside `resource`, and the
/// path inside it: `source` + `history/3.diff` is `history` + `3.diff`, `source` +
/// `tests/runs/1` the test runner + `runs/1`.
pub(crate) fn descend<'a>(
    mut resource: Arc<dyn Resource>,
    rest: impl Iterator<Item = &'a str>,
) -> (Arc<dyn Resource>, Vec<&'a str>) {
    let mut rest: Vec<&'a str> = rest.collect();
    while let Some((child, skip)) = resource
        .children()
        .iter()
        .find_map(|c| Some((c, c.mount().enters(c.name(), &rest)?)))
    {
        let child = Arc::clone(child);
        rest.drain(..skip);
        resource = child;
    }
    (resource, rest)
}
