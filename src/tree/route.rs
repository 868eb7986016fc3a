//! Where a path leads: the root, a generated view, the error log, an editor's temp file in
//! memory, or a path inside one resourcespace. Every operation of [`Space`] starts here.

use std::sync::Arc;

use crate::error::{Error, Result};
use crate::model::names::{ENTRY, ERRORS, NAV};
use crate::tree::Space;
use crate::tree::resource::Resource;

/// A generated file of a directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Generated {
    Entry,
    Nav,
}

/// What a path (as components from the root) refers to.
pub(crate) enum Route<'a> {
    Root,
    Generated(Generated, &'a [String]),
    Errors,
    Scratch(String),
    In(Arc<dyn Resource>, Vec<&'a str>),
}

impl Space {
    /// Route `path` to the place that answers for it. Does not check that it exists.
    pub(crate) fn route<'a>(&self, path: &'a [String]) -> Result<Route<'a>> {
        let Some((last, parent)) = path.split_last() else {
            return Ok(Route::Root);
        };
        match last.as_str() {
            ENTRY => return Ok(Route::Generated(Generated::Entry, parent)),
            NAV => return Ok(Route::Generated(Generated::Nav, parent)),
            ERRORS if parent.is_empty() => return Ok(Route::Errors),
            _ => {}
        }
        let key = path.join("/");
        if self.files.has_scratch(&key) {
            return Ok(Route::Scratch(key));
        }
        let resource = self.resource(&path[0]).ok_or_else(|| {
            Error::not_found(format!(
                "{} does not exist: the root holds {}",
                self.links.to(&path[0]),
                self.resource_names()
            ))
        })?;
        let (resource, rest) = descend(resource, &path[1..]);
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

/// The innermost resourcespace answering for `rest` inside `resource`, and the path
/// inside it: `source` + `history/3.diff` is `history` + `3.diff`.
pub(crate) fn descend(
    mut resource: Arc<dyn Resource>,
    mut rest: &[String],
) -> (Arc<dyn Resource>, Vec<&str>) {
    while let Some((first, inner)) = rest.split_first() {
        let Some(child) = resource
            .children()
            .iter()
            .find(|c| c.name() == first.as_str())
            .cloned()
        else {
            break;
        };
        resource = child;
        rest = inner;
    }
    (resource, rest.iter().map(String::as_str).collect())
}
