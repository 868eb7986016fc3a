//! What a path holds: a node's kind and size, a directory's members, a file's bytes, and
//! the generated views of every directory (`_entry.md`, `_nav.txt`, the dashboard and
//! `_errors.md`).

use std::time::SystemTime;

use crate::error::{Error, Result};
use crate::model::names::{ENTRY, ERRORS, NAV};
use crate::model::{Child, Kind, Node, RootPart, TreePath};
use crate::render;
use crate::tree::Space;
use crate::tree::access::Perm;
use crate::tree::glance::Glance;
use crate::tree::kernel_cache::CacheMode;
use crate::tree::resource::Mount;
use crate::tree::resource::ResourceExt;
use crate::tree::space::route::{Generated, Route};
use crate::tree::space::{is_a_dir, not_a_dir};

impl Space {
    /// What `path` holds.
    pub fn stat(&self, path: &TreePath) -> Result<Node> {
        self.stat_in(&Glance::new(), path)
    }

    /// What `path` holds, as `glance` finds it.
    pub(super) fn stat_in(&self, glance: &Glance, path: &TreePath) -> Result<Node> {
        self.stat_at(glance, &self.route(path)?)
    }

    /// What the path `route` leads to holds: for a request that routed it already.
    pub(super) fn stat_at(&self, glance: &Glance, route: &Route) -> Result<Node> {
        match route {
            // Whoever may enter the project may enter the mount: the way to source/.
            Route::Root => Ok(Node::dir(false).owned(self.project_ownership())),
            // The dashboard and the whole tree's map quote tasks and sessions: the store's.
            Route::Generated(_, dir) if dir.is_root() => Ok(Node::view()),
            Route::Generated(_, dir) => match self.stat_in(glance, dir)? {
                // A view shows what its directory holds: readable by whoever may list it.
                // Through a link (which the kernel resolves before asking, but `render`
                // does not), the directory it leads to. A directory whose members change
                // unannounced (`dated`) has views that do too.
                node if matches!(node.kind, Kind::Dir | Kind::Link) => Ok(Node::view()
                    .owned(node.ownership)
                    .aliased(node.aliased)
                    .dated(node.dated)),
                _ => Err(not_a_dir(&self.links, dir)),
            },
            Route::Errors => Ok(Node::view()),
            Route::Scratch(key) => {
                let scratch = self.files.scratch();
                let file = scratch
                    .get(key)
                    .ok_or_else(|| Error::not_found(format!("{} is gone", self.links.to(key))))?;
                Ok(Node {
                    size: Some(file.content.len()),
                    mtime: Some(file.changed),
                    ..Node::document(true).owned(file.ownership)
                })
            }
            Route::In(resource, rest) => resource.stat(glance, rest),
        }
    }

    /// The members of directory `path`, generated files first.
    pub fn list(&self, path: &TreePath) -> Result<Vec<Child>> {
        self.list_in(&Glance::new(), path)
    }

    /// [`Space::list`], as `glance` finds it.
    pub(super) fn list_in(&self, glance: &Glance, path: &TreePath) -> Result<Vec<Child>> {
        let mut children = vec![
            Child::new(ENTRY, Kind::View, "what this is and what you can do here"),
            Child::new(NAV, Kind::View, "the tree seen from here"),
        ];
        match self.route(path)? {
            Route::Root => {
                children.push(Child::new(
                    ERRORS,
                    Kind::View,
                    "recent failures, newest first",
                ));
                for resource in &self.resources {
                    let about = resource.summary().unwrap_or_else(|e| e.message);
                    children.push(Child::new(resource.name(), Kind::Dir, about));
                }
            }
            Route::In(resource, rest) => {
                children.extend(resource.list(glance, &rest)?);
                for child in resource.children() {
                    match child.mount() {
                        Mount::Folder if rest.is_empty() => {
                            let about = child.summary().unwrap_or_else(|e| e.message);
                            children.push(Child::new(child.name(), Kind::Dir, about));
                        }
                        Mount::Among { at, .. } if at == rest.as_slice() => {
                            children.extend(child.list(glance, &[])?);
                        }
                        _ => {}
                    }
                }
            }
            Route::Generated(..) | Route::Errors | Route::Scratch(_) => {
                return Err(not_a_dir(&self.links, path));
            }
        }
        for (name, kind) in self.scratch_names(path) {
            children.push(Child::new(name, kind, "in memory until saved"));
        }
        Ok(children)
    }

    /// The names and kinds of directory `path`'s members, as `ls` shows them: like
    /// [`Space::list`] without the descriptions (which cost a query or a stat each).
    pub fn names(&self, path: &TreePath) -> Result<Vec<(String, Kind)>> {
        self.names_in(&Glance::new(), path)
    }

    /// [`Space::names`], as `glance` finds it.
    pub(super) fn names_in(&self, glance: &Glance, path: &TreePath) -> Result<Vec<(String, Kind)>> {
        match self.route(path)? {
            Route::In(resource, rest) => {
                let mut names = vec![
                    (ENTRY.to_string(), Kind::View),
                    (NAV.to_string(), Kind::View),
                ];
                names.extend(resource.names(glance, &rest)?);
                for child in resource.children() {
                    match child.mount() {
                        Mount::Folder if rest.is_empty() => {
                            names.push((child.name().to_string(), Kind::Dir));
                        }
                        Mount::Among { at, .. } if at == rest.as_slice() => {
                            names.extend(child.names(glance, &[])?);
                        }
                        _ => {}
                    }
                }
                names.extend(self.scratch_names(path));
                Ok(names)
            }
            _ => Ok(Child::names(self.list_in(glance, path)?)),
        }
    }

    /// The temp files and new documents held in memory in directory `path`.
    fn scratch_names(&self, path: &TreePath) -> Vec<(String, Kind)> {
        let prefix = path.dir_prefix();
        self.files
            .scratch()
            .keys()
            .filter_map(|key| key.strip_prefix(&prefix).filter(|n| !n.contains('/')))
            .map(|name| (name.to_string(), Kind::Document))
            .collect()
    }

    /// The bytes of the file at `path`.
    pub fn content(&self, path: &TreePath) -> Result<Vec<u8>> {
        let glance = Glance::new();
        let route = self.route(path)?;
        let node = self.stat_at(&glance, &route)?;
        self.content_at(&glance, &route, &node, path)
    }

    /// The bytes of the file at `path`, which the request routed to `route` and found to be
    /// `node` already. A view is held to the budget here, whoever generated it: a
    /// resourcespace shapes its own views (and says where the rest is), and what still
    /// comes out too long is cut by the same rule, so no view ever costs more.
    pub(super) fn content_at(
        &self,
        glance: &Glance,
        route: &Route,
        node: &Node,
        path: &TreePath,
    ) -> Result<Vec<u8>> {
        let content = self.generated_or_held(glance, route)?;
        Ok(match node.kind {
            Kind::View => self.within_budget(content, path),
            _ => content,
        })
    }

    /// `view` as it fits the budget: itself when it does, else pruned, pointing to its
    /// folder for the rest.
    fn within_budget(&self, view: Vec<u8>, path: &TreePath) -> Vec<u8> {
        let text = match String::from_utf8(view) {
            Ok(text) if render::budget::tokens(&text) > self.budget => text,
            Ok(text) => return text.into_bytes(),
            Err(bytes) => return bytes.into_bytes(),
        };
        crate::log::line(&format!(
            "{}: the view came out over the budget of {} tokens and was cut",
            self.links.to(path.as_str()),
            self.budget
        ));
        let folder = path.parent().unwrap_or_else(TreePath::root);
        let more = format!("ls {}", self.links.folder(&folder));
        render::budget::prune(&text, self.budget, &more).into_bytes()
    }

    /// What the file `route` leads to holds, as its maker gives it.
    fn generated_or_held(&self, glance: &Glance, route: &Route) -> Result<Vec<u8>> {
        match route {
            Route::Root => Err(is_a_dir(&self.links, &TreePath::root())),
            Route::Generated(Generated::Entry, dir) => {
                Ok(self.render_entry(glance, dir)?.into_bytes())
            }
            Route::Generated(Generated::Nav, dir) => {
                let shape = (self.nav)();
                let dir = self.shown(glance, dir);
                let tree = InGlance {
                    space: self,
                    glance,
                };
                Ok(render::nav::render(&tree, &self.links, &dir, self.budget, shape)?.into_bytes())
            }
            Route::Errors => {
                self.examine_misses(glance);
                let failures = self
                    .errors
                    .shown_in(self.quoting_for(self.perm_of(&Node::view())));
                Ok(render::errors::render(&failures, self.budget).into_bytes())
            }
            Route::Scratch(key) => self
                .files
                .scratch()
                .get(key)
                .map(|f| f.content.to_vec())
                .ok_or_else(|| Error::not_found(format!("{} is gone", self.links.to(key))))?,
            Route::In(resource, rest) => resource.read(glance, rest),
        }
    }

    /// The modes a view of modes `view` quotes failures by: its own where other users reach
    /// the mount (`--allow-other`); else none, since no one but the owner can read it.
    fn quoting_for(&self, view: Perm) -> Perm {
        match self.access.others_read {
            true => view,
            false => Perm { mode: 0, ..view },
        }
    }

    fn render_entry(&self, glance: &Glance, dir: &TreePath) -> Result<String> {
        self.examine_misses(glance);
        let entry = match self.route(dir)? {
            Route::Root => render::dashboard::entry(&self.dashboard(), &self.links),
            Route::In(resource, rest) => match resource.stat(glance, &rest)?.kind {
                Kind::Dir | Kind::Link => resource.entry(glance, &rest)?,
                _ => return Err(not_a_dir(&self.links, dir)),
            },
            _ => return Err(not_a_dir(&self.links, dir)),
        };
        // The view's own modes decide what of a failure it may quote.
        let view = self.stat_at(glance, &Route::Generated(Generated::Entry, dir.clone()))?;
        let failure = (self.errors).fresh_in(
            dir.as_str(),
            SystemTime::now(),
            self.quoting_for(self.perm_of(&view)),
        );
        let shown = self.shown(glance, dir);
        let refs: Vec<&str> = shown.names().collect();
        let budget = if dir.is_root() {
            self.budget.min(render::dashboard::TOKENS)
        } else {
            self.budget
        };
        Ok(render::entry::render(
            &entry,
            &refs,
            failure.as_ref(),
            &self.links,
            budget,
        ))
    }

    /// `dir` as listings spell it (see [`Resource::shown_as`]).
    ///
    /// [`Resource::shown_as`]: crate::tree::resource::Resource::shown_as
    pub(super) fn shown(&self, glance: &Glance, dir: &TreePath) -> TreePath {
        match self.route(dir) {
            Ok(Route::In(resource, rest)) => match resource.shown_as(glance, &rest) {
                Some(names) => TreePath::from_names(
                    std::iter::once(resource.name()).chain(names.iter().map(String::as_str)),
                ),
                None => dir.clone(),
            },
            _ => dir.clone(),
        }
    }

    /// What the root dashboard shows, gathered from the resourcespaces now.
    fn dashboard(&self) -> render::dashboard::Dashboard {
        let parts = self
            .resources
            .iter()
            .map(|resource| {
                resource.root_part().unwrap_or_else(|e| RootPart {
                    place: format!("{}/ (unavailable: {})", resource.name(), e.message),
                    ..RootPart::default()
                })
            })
            .collect();
        render::dashboard::Dashboard {
            project: self.project.name.clone(),
            project_path: self.project.path.clone(),
            store: self.project.store.clone(),
            parts,
            failures: self
                .errors
                .shown_in(self.quoting_for(self.perm_of(&Node::view()))),
            read_only: self.access.read_only,
        }
    }

    /// The bytes `cat` would print for `path`; a directory gives its `_entry.md`. Used by
    /// `homespace render` and by tests that check views without a mount.
    pub fn render_path(&self, path: &TreePath) -> Result<Vec<u8>> {
        let glance = Glance::new();
        let route = self.route(path)?;
        let node = self.stat_at(&glance, &route)?;
        if matches!(node.kind, Kind::Dir | Kind::Link) {
            return self.content(&path.join(ENTRY));
        }
        // The file's node is at hand: looked at once, as a `cat` is.
        self.content_at(&glance, &route, &node, path)
    }
}

/// The tree as one request's glance finds it: what `_nav.txt` lists.
struct InGlance<'a> {
    space: &'a Space,
    glance: &'a Glance,
}

impl render::nav::Listing for InGlance<'_> {
    /// Kept while nothing changes when the kernel keeps what it is given: every change
    /// is then announced, and ends the keeping.
    fn names(&self, dir: &TreePath) -> Result<std::sync::Arc<Vec<(String, Kind)>>> {
        let space = self.space;
        if space.kernel.mode() != CacheMode::Kept {
            return space.names_in(self.glance, dir).map(std::sync::Arc::new);
        }
        let generation = space.kernel.generation();
        if let Some(names) = space.nav_listings.get(dir, generation) {
            return Ok(names);
        }
        let names = std::sync::Arc::new(space.names_in(self.glance, dir)?);
        space
            .nav_listings
            .keep(dir.clone(), std::sync::Arc::clone(&names), generation);
        Ok(names)
    }
}
