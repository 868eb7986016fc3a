//! The `Resource` trait: what a resourcespace (source, tasks, memory, search) answers about
//! the paths below it — a small core every resourcespace implements, and capabilities
//! ([`Edit`], [`Search`], [`Aliases`], [`Live`]) that those which do more implement and
//! name in [`Resource::capabilities`]; the tree asks through [`ResourceExt`], which answers
//! for a resourcespace without the capability as a plain one would. Paths are slices of name components relative to the resourcespace's
//! own directory (`[]` is that directory), so implementations can `match` on them.
//!
//! The methods that read take the [`Glance`] of the request they serve (what was looked up
//! in it is good for all of it); the methods that change something take none, so no look
//! taken before a change answers after it. [`ReadNow`]'s `*_now` methods read in a glance
//! of their own, for a caller that serves no request (a test, a tool).
//!
//! The generated files every directory has (`_entry.md`, `_nav.txt`) and editors' temp files
//! are the tree's business, not the resource's: a resource never sees those names.

use std::sync::Arc;

use crate::error::{Error, Result};
use crate::model::{Child, Definition, Entry, Hits, Kind, Node, RootPart, TreePath};
use crate::tree::glance::Glance;

/// What a `chmod`/`chown` did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModeChange {
    Done,
    /// This path keeps no modes of its own: they follow the store's or a module's.
    NotKept,
}

/// Where a resourcespace inside another one sits (see [`Resource::children`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mount {
    /// A directory of its own, named by its [`Resource::name`], in the outer one's top
    /// directory, listed after the outer one's own members (`source/history/`).
    Folder,
    /// Its top-level `names`, among the members of the outer one's folder `at`, which
    /// stays the outer one's and lists them after its own (the test runner's `run` and
    /// `runs/` in `source/tests/`). Its own path `[]` is that folder, never asked for.
    Among {
        at: &'static [&'static str],
        names: &'static [&'static str],
    },
}

impl Mount {
    /// How many of the names of `path` (inside the outer resourcespace) lead to the inner
    /// one named `name`, when `path` is inside it: the rest is its path there.
    pub fn enters(self, name: &str, path: &[&str]) -> Option<usize> {
        match self {
            Mount::Folder => (path.first() == Some(&name)).then_some(1),
            Mount::Among { at, names } => {
                let first = path.get(at.len())?;
                (path.starts_with(at) && names.contains(first)).then_some(at.len())
            }
        }
    }

    /// Whether `path` (inside the outer resourcespace) is the inner one's or under it.
    pub fn holds(self, name: &str, path: &[&str]) -> bool {
        self.enters(name, path).is_some()
    }
}

/// Hits of an area a search of every area shows, unless the area says fewer.
pub const GLANCE_HITS: usize = 5;

/// A resourcespace mounted under the root (`source/`, `tasks/`, ...) or inside another one
/// (`source/history/`).
///
/// Reads never change anything. Writes receive the whole content of a file at once (at
/// close, fsync or rename) and must validate it completely before changing anything:
/// a rejected write returns `ErrorKind::Invalid` listing every problem, and leaves all
/// state as it was.
pub trait Resource: Send + Sync {
    /// The directory name under the root: `tasks`.
    fn name(&self) -> &'static str;

    /// The resourcespaces inside this one (`source/history/`, `source/tests/run`), each
    /// where its [`Resource::mount`] says. A path that leads into one of them is answered
    /// by it, with the path relative to it.
    fn children(&self) -> &[Arc<dyn Resource>] {
        &[]
    }

    /// Where this resourcespace sits when it is inside another one.
    fn mount(&self) -> Mount {
        Mount::Folder
    }

    /// One line for listings and `_nav.txt`: what this is and its live state. Every
    /// listing of the root and every `_nav.txt` asks for it, so it must be cheap.
    fn summary(&self) -> Result<String>;

    /// What this resourcespace shows on the root dashboard (see [`RootPart`]): rendered
    /// once per change, not once per listing, so it may cost more than [`Self::summary`].
    fn root_part(&self) -> Result<RootPart> {
        Ok(RootPart {
            place: format!("{}/", self.name()),
            ..RootPart::default()
        })
    }

    /// What is at `path`, or `ErrorKind::NotFound` with a message saying where to look.
    fn stat(&self, glance: &Glance, path: &[&str]) -> Result<Node>;

    /// The members of directory `path`, in display order.
    fn list(&self, glance: &Glance, path: &[&str]) -> Result<Vec<Child>>;

    /// The members' names and kinds only, for `ls` (which throws the descriptions away).
    /// Override when `list` does work per member that names do not need.
    fn names(&self, glance: &Glance, path: &[&str]) -> Result<Vec<(String, Kind)>> {
        Ok(Child::names(self.list(glance, path)?))
    }

    /// The bytes of the view or document at `path`.
    fn read(&self, glance: &Glance, path: &[&str]) -> Result<Vec<u8>>;

    /// The entry view of directory `path` (the breadcrumb is added by the renderer).
    fn entry(&self, glance: &Glance, path: &[&str]) -> Result<Entry>;

    /// What this resourcespace does beyond being read (see [`Capabilities`]): none unless
    /// it says.
    fn capabilities(&self) -> Capabilities<'_> {
        Capabilities::default()
    }
}

/// The capabilities of a resourcespace: each one it has, as itself.
#[derive(Clone, Copy, Default)]
pub struct Capabilities<'a> {
    pub edit: Option<&'a dyn Edit>,
    pub search: Option<&'a dyn Search>,
    pub aliases: Option<&'a dyn Aliases>,
    pub live: Option<&'a dyn Live>,
}

/// Documents written, created, removed and moved, directories made: what takes writes.
pub trait Edit: Send + Sync {
    /// Replace or create the document at `path` with `content`, validated as a whole.
    /// `base` is what the writer saw when it opened the file (`None`: nothing known — a new
    /// document, or a temp file renamed over it). A resource whose data can change
    /// between that open and this write (another writer, an editor on disk) refuses to
    /// overwrite such a change (`ErrorKind::Busy`, saying what to do) instead of losing it.
    fn write(&self, path: &[&str], _content: &[u8], _base: Option<&[u8]>) -> Result<()> {
        Err(read_only(path))
    }

    /// What to do instead when a document written here is over the mount's size limit
    /// (`EFBIG`), for resources where a larger file has somewhere else to go.
    fn too_big_hint(&self) -> Option<&'static str> {
        None
    }

    /// Whether a new document may be created at `path` (checked when the file is created,
    /// before any content arrives); the content is validated later by `write`.
    fn can_create(&self, path: &[&str]) -> Result<()> {
        Err(read_only(path))
    }

    /// Delete the document or directory at `path`.
    fn remove(&self, path: &[&str]) -> Result<()> {
        Err(read_only(path))
    }

    /// Whether `rmdir` removes the directory at `path` once what is in it is gone (an extra
    /// of `source/deps/`, a package of `source/`). `rm -r` of it unlinks its generated
    /// `_entry.md` and `_nav.txt` first, which the tree then takes as part of removing it
    /// rather than refusing the whole `rm -r`; elsewhere they stay refused.
    fn removable(&self, _path: &[&str]) -> bool {
        false
    }

    /// Move `from` to `to` (both inside this resourcespace).
    fn rename(&self, from: &[&str], _to: &[&str]) -> Result<()> {
        Err(read_only(from))
    }

    /// Why `path` cannot move out of this resourcespace into another one, when this one
    /// knows better than "different resourcespaces" (the test runner's names keep theirs).
    fn moving_out(&self, _path: &[&str]) -> Option<Error> {
        None
    }

    /// Change the permission bits and/or owner of the file at `path` (only what is given
    /// changes). Where modes are not kept (the file is no file of the project),
    /// [`ModeChange::NotKept`]: the tree refuses, saying what the modes follow.
    fn set_perm(
        &self,
        _path: &[&str],
        _mode: Option<u32>,
        _uid: Option<u32>,
        _gid: Option<u32>,
    ) -> Result<ModeChange> {
        Ok(ModeChange::NotKept)
    }

    /// Make a directory at `path`.
    fn mkdir(&self, path: &[&str]) -> Result<()> {
        // By its name alone, as `read_only` says why.
        Err(Error::not_permitted(format!(
            "{} was not made: nothing here is created by mkdir",
            path.last().copied().unwrap_or("the folder")
        )))
    }
}

/// Search of the area, for `search/`.
pub trait Search: Send + Sync {
    /// Search this area; `limit` bounds `hits`, `total` counts all matches. The hits are
    /// one ranking: those for a smaller `limit` are its first ones, so pages can be cut
    /// from it.
    fn search(&self, _query: &str, _limit: usize) -> Result<Hits> {
        Ok(Hits::default())
    }

    /// How many of this area's hits a search of every area shows: fewer where each hit
    /// brings its context.
    fn glance_hits(&self) -> usize {
        GLANCE_HITS
    }

    /// Where the classes and functions called `name` (or ending in its dotted parts) are
    /// defined, with their code; `None` where the area holds no code.
    fn definitions(&self, _name: &str) -> Option<Result<Vec<Definition>>> {
        None
    }

    /// Who calls or names the class or function `name` names, as hits; `None` where the
    /// area holds no code.
    fn references(&self, _name: &str) -> Option<Result<Hits>> {
        None
    }
}

/// Other names of what is also reached by a listed path (source/'s dotted names and
/// module links).
pub trait Aliases: Send + Sync {
    /// For a lookup of the missing `path`: the name beside it that was surely meant, when
    /// the resource knows one better than the closest spelling among its siblings (the
    /// tree's "Did you mean" otherwise).
    fn meant(&self, _path: &[&str]) -> Option<String> {
        None
    }

    /// The path as listings spell it when `path` is a directory's own name that no listing
    /// shows (source/'s `pkg.mod`, which the link `pkg/mod` leads to): breadcrumbs and
    /// `_nav.txt` show where it is listed. `None` when `path` is spelled as listed. Asked
    /// while rendering those views, in their request's glance.
    fn shown_as(&self, _glance: &Glance, _path: &[&str]) -> Option<Vec<String>> {
        None
    }

    /// The folders `path` passes on its own way when it is another name of a place the
    /// tree also reaches by a nested path (source/'s `pkg.mod.f.py` passes `pkg/` and the
    /// members folder `mod/`): the kernel checked only the folders of the name it walked,
    /// so a caller must be let through these too, as through the nested path. Empty for a
    /// path the kernel walked as it is.
    fn crossed(&self, _path: &[&str]) -> Vec<crate::model::Ownership> {
        Vec::new()
    }

    /// Prefixes of tree paths (from the root) under which what is at and under `path` is
    /// also reached by another name the kernel may keep (source/'s `pkg.mod/` for
    /// `pkg/mod/`): a change at `path` reaches them too.
    fn spellings(&self, _path: &[&str]) -> Vec<String> {
        Vec::new()
    }
}

/// What changes by itself, outside the tree's requests, or over time: results that are
/// not final yet, changes made on disk, work started with the mount.
pub trait Live: Send + Sync {
    /// When the content of the file at `path` is not final yet (its `stat` says `waits`):
    /// how an open waits for it. Asked at every open of such a file, so it must be cheap.
    fn pending(&self, _path: &[&str]) -> Option<crate::tree::pending::Pending> {
        None
    }

    /// A reader opened the file at `path` (a `cat`, not a `stat` or a listing): the one
    /// moment a resource may note that it was used, e.g. as a recent search.
    fn opened(&self, _path: &[&str]) {}

    /// What a change just made at `path` (under this top-level resourcespace) reaches,
    /// as paths from the root of the tree, each with everything under it: what the kernel
    /// and the daemon must forget. `None`: all of this resourcespace (its views show each
    /// other's data, as tasks show their dependencies). The tree adds the views of every
    /// directory above.
    fn affected(&self, _path: &[&str]) -> Option<Vec<TreePath>> {
        None
    }

    /// Whether this resourcespace shows data of all the others (search results), so that
    /// any change anywhere reaches all of it.
    fn shows_everything(&self) -> bool {
        false
    }

    /// Report, from now on, changes that are not made through the tree (an editor saving a
    /// project file, a test run finishing): see [`Changes`].
    fn watch(&self, _changes: Changes) {}

    /// Start the work this resourcespace does by itself while the tree is served (memory
    /// following the agents' transcripts), reporting to `outside`. Called once, when the
    /// tree is mounted writable, whatever the kernel keeps.
    fn start(&self, _outside: Outside) {}

    /// Start the work that makes later requests faster (indexing the project ahead of
    /// them), reporting to `outside`. Called once, when the tree is mounted, read-only too.
    fn warm(&self, _outside: Outside) {}
}

/// A resourcespace's capabilities asked as one: what one without the capability answers
/// is what a plain resourcespace answers (read-only, nothing found, no other names).
pub trait ResourceExt: Resource {
    /// [`Edit::write`] where the resourcespace has it.
    fn write(&self, path: &[&str], content: &[u8], base: Option<&[u8]>) -> Result<()> {
        self.capabilities()
            .edit
            .unwrap_or(&Plain)
            .write(path, content, base)
    }

    /// [`Edit::too_big_hint`] where the resourcespace has it.
    fn too_big_hint(&self) -> Option<&'static str> {
        self.capabilities().edit.unwrap_or(&Plain).too_big_hint()
    }

    /// [`Edit::can_create`] where the resourcespace has it.
    fn can_create(&self, path: &[&str]) -> Result<()> {
        self.capabilities().edit.unwrap_or(&Plain).can_create(path)
    }

    /// [`Edit::remove`] where the resourcespace has it.
    fn remove(&self, path: &[&str]) -> Result<()> {
        self.capabilities().edit.unwrap_or(&Plain).remove(path)
    }

    /// [`Edit::removable`] where the resourcespace has it.
    fn removable(&self, path: &[&str]) -> bool {
        self.capabilities().edit.unwrap_or(&Plain).removable(path)
    }

    /// [`Edit::rename`] where the resourcespace has it.
    fn rename(&self, from: &[&str], to: &[&str]) -> Result<()> {
        self.capabilities().edit.unwrap_or(&Plain).rename(from, to)
    }

    /// [`Edit::moving_out`] where the resourcespace has it.
    fn moving_out(&self, path: &[&str]) -> Option<Error> {
        self.capabilities().edit.unwrap_or(&Plain).moving_out(path)
    }

    /// [`Edit::set_perm`] where the resourcespace has it.
    fn set_perm(
        &self,
        path: &[&str],
        mode: Option<u32>,
        uid: Option<u32>,
        gid: Option<u32>,
    ) -> Result<ModeChange> {
        self.capabilities()
            .edit
            .unwrap_or(&Plain)
            .set_perm(path, mode, uid, gid)
    }

    /// [`Edit::mkdir`] where the resourcespace has it.
    fn mkdir(&self, path: &[&str]) -> Result<()> {
        self.capabilities().edit.unwrap_or(&Plain).mkdir(path)
    }

    /// [`Search::search`] where the resourcespace has it.
    fn search(&self, query: &str, limit: usize) -> Result<Hits> {
        self.capabilities()
            .search
            .unwrap_or(&Plain)
            .search(query, limit)
    }

    /// [`Search::glance_hits`] where the resourcespace has it.
    fn glance_hits(&self) -> usize {
        self.capabilities().search.unwrap_or(&Plain).glance_hits()
    }

    /// [`Search::definitions`] where the resourcespace has it.
    fn definitions(&self, name: &str) -> Option<Result<Vec<Definition>>> {
        self.capabilities()
            .search
            .unwrap_or(&Plain)
            .definitions(name)
    }

    /// [`Search::references`] where the resourcespace has it.
    fn references(&self, name: &str) -> Option<Result<Hits>> {
        self.capabilities()
            .search
            .unwrap_or(&Plain)
            .references(name)
    }

    /// [`Aliases::meant`] where the resourcespace has it.
    fn meant(&self, path: &[&str]) -> Option<String> {
        self.capabilities().aliases.unwrap_or(&Plain).meant(path)
    }

    /// [`Aliases::shown_as`] where the resourcespace has it.
    fn shown_as(&self, glance: &Glance, path: &[&str]) -> Option<Vec<String>> {
        (self.capabilities().aliases.unwrap_or(&Plain)).shown_as(glance, path)
    }

    /// [`Aliases::crossed`] where the resourcespace has it.
    fn crossed(&self, path: &[&str]) -> Vec<crate::model::Ownership> {
        self.capabilities().aliases.unwrap_or(&Plain).crossed(path)
    }

    /// [`Aliases::spellings`] where the resourcespace has it.
    fn spellings(&self, path: &[&str]) -> Vec<String> {
        self.capabilities()
            .aliases
            .unwrap_or(&Plain)
            .spellings(path)
    }

    /// [`Live::pending`] where the resourcespace has it.
    fn pending(&self, path: &[&str]) -> Option<crate::tree::pending::Pending> {
        self.capabilities().live.unwrap_or(&Plain).pending(path)
    }

    /// [`Live::opened`] where the resourcespace has it.
    fn opened(&self, path: &[&str]) {
        self.capabilities().live.unwrap_or(&Plain).opened(path)
    }

    /// [`Live::affected`] where the resourcespace has it.
    fn affected(&self, path: &[&str]) -> Option<Vec<TreePath>> {
        self.capabilities().live.unwrap_or(&Plain).affected(path)
    }

    /// [`Live::shows_everything`] where the resourcespace has it.
    fn shows_everything(&self) -> bool {
        self.capabilities()
            .live
            .unwrap_or(&Plain)
            .shows_everything()
    }

    /// [`Live::watch`] where the resourcespace has it.
    fn watch(&self, changes: Changes) {
        self.capabilities().live.unwrap_or(&Plain).watch(changes)
    }

    /// [`Live::start`] where the resourcespace has it.
    fn start(&self, outside: Outside) {
        self.capabilities().live.unwrap_or(&Plain).start(outside)
    }

    /// [`Live::warm`] where the resourcespace has it.
    fn warm(&self, outside: Outside) {
        self.capabilities().live.unwrap_or(&Plain).warm(outside)
    }
}

impl<R: Resource + ?Sized> ResourceExt for R {}

/// A resourcespace read in a glance of its own per call: for a caller that serves no
/// request that reads (a write's look at what it replaces, a test, a tool), where nothing
/// looked up is to be shared with another call.
pub trait ReadNow: Resource {
    /// [`Resource::stat`] in a glance of its own, for a caller that serves no request.
    fn stat_now(&self, path: &[&str]) -> Result<Node> {
        self.stat(&Glance::new(), path)
    }

    /// [`Resource::list`] in a glance of its own, for a caller that serves no request.
    fn list_now(&self, path: &[&str]) -> Result<Vec<Child>> {
        self.list(&Glance::new(), path)
    }

    /// [`Resource::names`] in a glance of its own, for a caller that serves no request.
    fn names_now(&self, path: &[&str]) -> Result<Vec<(String, Kind)>> {
        self.names(&Glance::new(), path)
    }

    /// [`Resource::read`] in a glance of its own, for a caller that serves no request.
    fn read_now(&self, path: &[&str]) -> Result<Vec<u8>> {
        self.read(&Glance::new(), path)
    }

    /// [`Resource::entry`] in a glance of its own, for a caller that serves no request.
    fn entry_now(&self, path: &[&str]) -> Result<Entry> {
        self.entry(&Glance::new(), path)
    }
}

impl<R: Resource + ?Sized> ReadNow for R {}

/// What a resourcespace without a capability answers: each capability's own defaults.
struct Plain;

impl Edit for Plain {}
impl Search for Plain {}
impl Aliases for Plain {}
impl Live for Plain {}

/// Where a resourcespace reports changes made outside the tree: paths from the root of
/// the tree, each with everything under it (the root: everything).
pub type Changes = Arc<dyn Fn(Vec<TreePath>) + Send + Sync>;

/// Where a resourcespace's own work ([`Live::start`]) reports: what it changed, and
/// what failed, as `(operation, path from the root, error)` — logged to `_errors.md` and
/// the entry view of that path's directory, as a failed request is.
#[derive(Clone)]
pub struct Outside {
    pub changes: Changes,
    pub failed: Failed,
}

/// Where a failure outside the tree's requests is logged: `(operation, path, error)`.
pub type Failed = Arc<dyn Fn(&str, &TreePath, &Error) + Send + Sync>;

/// The refusal of a change a resourcespace does not take. It names the file by its name
/// alone: the resourcespace may be mounted inside another (`source/deps/`) and knows no
/// whole path, which the error log gives beside the message.
fn read_only(path: &[&str]) -> Error {
    let name = path.last().copied().unwrap_or("this folder");
    Error::read_only(format!(
        "{name} cannot be changed: nothing here takes that change"
    ))
}
