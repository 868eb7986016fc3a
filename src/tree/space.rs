//! [`Space`]: the whole filesystem as plain calls. Looks up names, reports attributes,
//! lists directories and renders the generated views; `files.rs` and `changes.rs` add
//! open files and changes. Nothing here knows about FUSE.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use crate::error::{Error, ErrorKind, Result};
use crate::model::links::Links;
use crate::model::names::{self, ENTRY, ERRORS, NAV};
use crate::model::{Child, Kind, Node, RootPart};
use crate::model::{Failure, Ownership};
use crate::model::{Fh, Ino, TreePath};
use crate::render;
use crate::tree::access::{Access, Admission, Caller, Perm};
use crate::tree::body::Spill;
use crate::tree::errlog::ErrorLog;
use crate::tree::inodes::{Inodes, Print, print};
use crate::tree::kernel_cache::{CacheMode, KernelCache};
use crate::tree::listings::{DirEntry, Listings};
use crate::tree::lock;
use crate::tree::open_files::{MAX_DOCUMENT, MAX_SCRATCH_FILES, OpenFiles};
use crate::tree::resource::Resource;
use crate::tree::route::{Generated, Route};

/// What the root dashboard says about the project.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectInfo {
    pub name: String,
    pub path: String,
    /// The store as `--store` names it (never with a password), when it is not the
    /// project's default: a command run beside the mount must name it to see the same.
    pub store: Option<String>,
}

/// The attributes of one path, as `stat` shows them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attr {
    pub ino: Ino,
    pub kind: Kind,
    pub size: u64,
    pub mtime: SystemTime,
    pub writable: bool,
    /// The owner and modes `stat` shows (and the kernel checks, with `--allow-other`).
    pub perm: Perm,
    /// Whether the kernel may keep these attributes and the content: every change to
    /// them is announced (not so for a temp file, an open file or a path reached through
    /// another name).
    pub cacheable: bool,
}

/// The mounted tree.
pub struct Space {
    pub(super) links: Links,
    pub(super) budget: usize,
    pub(super) project: ProjectInfo,
    pub(super) resources: Vec<Arc<dyn Resource>>,
    pub(super) inodes: Mutex<Inodes>,
    /// Open handles and the temp files the tree holds.
    pub(super) files: OpenFiles,
    /// Listings of open directories.
    pub(super) listings: Listings,
    pub(super) errors: ErrorLog,
    /// What the kernel and the daemon keep of the tree, and telling the kernel to drop it.
    pub(super) kernel: KernelCache,
    /// Content just computed for `stat`, reused by the `open` that usually follows, so a
    /// `cat` renders a view once, not twice: (ino, generation, when, bytes).
    pub(super) rendered: Mutex<Option<Rendered>>,
    /// Changes in flight, fewer than the request threads (see [`crate::tree::gate`]).
    pub(super) changes: crate::tree::gate::Gate,
    /// Who may change what (see [`crate::tree::access`]).
    pub(super) access: Access,
    /// The owner and modes of the mount's own data: the store file's.
    pub(super) store_perm: Perm,
}

/// Content computed for a `stat`, kept a moment for the `open` that usually follows.
pub(crate) struct Rendered {
    ino: Ino,
    /// The kernel-cache generation it was computed at: any change since makes it stale.
    generation: u64,
    at: Instant,
    content: Arc<Vec<u8>>,
}

/// Bytes the spilled buffers and temp files may hold on disk in all: as many temp files as
/// may exist at once, each as large as a document may be.
const SPILL_CAP: u64 = (MAX_SCRATCH_FILES * MAX_DOCUMENT) as u64;

/// Changes let through at once; the FUSE adapter runs more request threads than this.
pub const CHANGES_AT_ONCE: usize = 4;

/// How long content computed for `stat` may be reused by `open`.
const RENDER_REUSE: Duration = Duration::from_millis(100);

impl Space {
    /// A tree with `resources` under its root, links under `links`, views within `budget`.
    pub fn new(
        links: Links,
        budget: usize,
        project: ProjectInfo,
        resources: Vec<Arc<dyn Resource>>,
    ) -> Self {
        Space {
            links,
            budget,
            project,
            resources,
            inodes: Mutex::new(Inodes::new()),
            files: OpenFiles::new(Spill::new(std::env::temp_dir(), SPILL_CAP)),
            listings: Listings::default(),
            errors: ErrorLog::default(),
            kernel: KernelCache::new(CacheMode::Kept),
            rendered: Mutex::new(None),
            changes: crate::tree::gate::Gate::new(CHANGES_AT_ONCE),
            access: Access::this_process(),
            store_perm: Perm {
                uid: Access::this_process().owner,
                gid: Access::this_process().group,
                mode: 0o644,
            },
        }
    }

    /// The same tree with the kernel keeping what it is given as `mode` says.
    pub fn with_cache(mut self, mode: CacheMode) -> Self {
        self.kernel = KernelCache::new(mode);
        self
    }

    /// What the kernel keeps of the tree (the FUSE adapter reports lookups and forgets
    /// to it and attaches the notifier).
    pub fn kernel(&self) -> &KernelCache {
        &self.kernel
    }

    /// The same tree with large buffers and temp files spilling into `dir`.
    pub fn with_spill_dir(mut self, dir: std::path::PathBuf) -> Self {
        self.files = OpenFiles::new(Spill::new(dir, SPILL_CAP));
        self
    }

    /// Bytes of buffers and temp files held on disk now (a figure for the benchmark).
    pub fn spilled(&self) -> u64 {
        self.files.spill().on_disk()
    }

    /// The same tree with `access` deciding who may change it, and the mount's own data
    /// (tasks, memory, views of them) owned and moded as `store` says.
    pub fn with_access(mut self, access: Access, store: Perm) -> Self {
        self.access = access;
        self.store_perm = store;
        self
    }

    /// Admit a change by `caller` to `path`, or refuse it (logged) when only the owner may
    /// change things; see [`crate::tree::access`].
    pub(crate) fn admit(&self, caller: Caller, op: &str, path: &TreePath) -> Result<Admission> {
        let admitted = self.access.admit(caller, &self.links.to(path.as_str()));
        match &admitted {
            // Another user refused: logged once per user and operation, counted, at the
            // root — an `rm -rf` of theirs must not push the owner's own failures out of
            // `_errors.md` (the caller still hears which path was refused, and why).
            Err(refused) if caller.uid != self.access.owner => {
                let coalesced = Error::new(
                    refused.kind,
                    format!(
                        "uid {} tried to {op} here and was refused: only the mount's owner (uid \
                         {}) may change files (--allow-other-write would let others)",
                        caller.uid, self.access.owner
                    ),
                );
                let now = SystemTime::now();
                self.errors.record_folded(Failure {
                    at: now,
                    op: op.to_string(),
                    path: self.links.to(""),
                    dir: String::new(),
                    message: coalesced.message,
                    repeats: 0,
                    first: now,
                });
                self.failed_in("");
                admitted
            }
            _ => self.logged(op, path, admitted),
        }
    }

    /// The owner and modes of the project's directory; the owner's alone when it cannot be
    /// examined (never more open than the project itself).
    fn project_ownership(&self) -> Ownership {
        std::fs::metadata(&self.project.path)
            .map(|meta| Ownership::of(&meta))
            .unwrap_or(Ownership::OwnerOnly)
    }

    /// The owner and modes `stat` shows for `node`.
    pub(crate) fn perm_of(&self, node: &Node) -> Perm {
        let base = match node.ownership {
            Ownership::Store => self.store_perm,
            Ownership::File { uid, gid, mode } => Perm { uid, gid, mode },
            Ownership::OwnerOnly => Perm {
                uid: self.access.owner,
                gid: self.access.group,
                mode: 0o600,
            },
        };
        let shaped = if node.kind == Kind::Dir {
            base.as_dir()
        } else {
            base.as_file()
        };
        if node.writable {
            shaped
        } else {
            shaped.read_only()
        }
    }

    pub fn links(&self) -> &Links {
        &self.links
    }

    /// How many inode numbers are handed out (a memory figure for the benchmark).
    pub fn inode_count(&self) -> usize {
        lock(&self.inodes).len()
    }

    // ---- paths and inodes -------------------------------------------------------------

    pub(crate) fn path_of(&self, ino: Ino) -> Result<TreePath> {
        let inodes = lock(&self.inodes);
        let path = inodes
            .path_of(ino)
            .ok_or_else(|| Error::not_found(format!("no file has inode {ino}")))?;
        Ok(TreePath::parse(path))
    }

    pub(crate) fn ino_of(&self, path: &TreePath) -> Ino {
        lock(&self.inodes).ino_of(path.as_str())
    }

    // ---- what is where ----------------------------------------------------------------

    /// What `path` holds.
    pub fn stat(&self, path: &TreePath) -> Result<Node> {
        match self.route(path)? {
            // Whoever may enter the project may enter the mount: the way to source/.
            Route::Root => Ok(Node::dir(false).owned(self.project_ownership())),
            // The dashboard and the whole tree's map quote tasks and sessions: the store's.
            Route::Generated(_, dir) if dir.is_root() => Ok(Node::view()),
            Route::Generated(_, dir) => match self.stat(&dir)? {
                // A view shows what its directory holds: readable by whoever may list it.
                node if node.kind == Kind::Dir => {
                    Ok(Node::view().owned(node.ownership).aliased(node.aliased))
                }
                _ => Err(not_a_dir(&self.links, &dir)),
            },
            Route::Errors => Ok(Node::view()),
            Route::Scratch(key) => {
                let scratch = self.files.scratch();
                let file = scratch
                    .get(&key)
                    .ok_or_else(|| Error::not_found(format!("{} is gone", self.links.to(&key))))?;
                Ok(Node {
                    size: Some(file.content.len()),
                    mtime: Some(file.changed),
                    ..Node::document(true).owned(file.ownership)
                })
            }
            Route::In(resource, rest) => resource.stat(&rest),
        }
    }

    /// The members of directory `path`, generated files first.
    pub fn list(&self, path: &TreePath) -> Result<Vec<Child>> {
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
                children.extend(resource.list(&rest)?);
                if rest.is_empty() {
                    for child in resource.children() {
                        let about = child.summary().unwrap_or_else(|e| e.message);
                        children.push(Child::new(child.name(), Kind::Dir, about));
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
        match self.route(path)? {
            Route::In(resource, rest) => {
                let mut names = vec![
                    (ENTRY.to_string(), Kind::View),
                    (NAV.to_string(), Kind::View),
                ];
                names.extend(resource.names(&rest)?);
                if rest.is_empty() {
                    let inner = resource.children().iter();
                    names.extend(inner.map(|c| (c.name().to_string(), Kind::Dir)));
                }
                names.extend(self.scratch_names(path));
                Ok(names)
            }
            _ => Ok(self
                .list(path)?
                .into_iter()
                .map(|c| (c.name, c.kind))
                .collect()),
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
        match self.route(path)? {
            Route::Root => Err(is_a_dir(&self.links, path)),
            Route::Generated(Generated::Entry, dir) => Ok(self.render_entry(&dir)?.into_bytes()),
            Route::Generated(Generated::Nav, dir) => {
                let shape = self
                    .resources
                    .iter()
                    .find_map(|r| r.nav_shape())
                    .unwrap_or_default();
                let dir: Vec<String> = dir.names().map(str::to_string).collect();
                Ok(render::nav::render(self, &self.links, &dir, self.budget, shape)?.into_bytes())
            }
            Route::Errors => {
                self.examine_misses();
                let failures = self.errors.newest_first();
                Ok(render::errors::render(&failures, self.budget).into_bytes())
            }
            Route::Scratch(key) => self
                .files
                .scratch()
                .get(&key)
                .map(|f| f.content.to_vec())
                .ok_or_else(|| Error::not_found(format!("{} is gone", self.links.to(&key))))?,
            Route::In(resource, rest) => resource.read(&rest),
        }
    }

    fn render_entry(&self, dir: &TreePath) -> Result<String> {
        self.examine_misses();
        let entry = match self.route(dir)? {
            Route::Root => render::dashboard::entry(&self.dashboard(), &self.links),
            Route::In(resource, rest) => match resource.stat(&rest)?.kind {
                Kind::Dir => resource.entry(&rest)?,
                _ => return Err(not_a_dir(&self.links, dir)),
            },
            _ => return Err(not_a_dir(&self.links, dir)),
        };
        let failure = self.errors.fresh_in(dir.as_str(), SystemTime::now());
        let refs: Vec<&str> = dir.names().collect();
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
            failures: self.errors.newest_first(),
            read_only: self.access.read_only,
        }
    }

    // ---- lookup, getattr, readdir -------------------------------------------------------

    /// Find `name` in directory `parent`. A miss that closely matches an existing name is
    /// logged with "Did you mean"; probes that tools make on their own are not.
    pub fn lookup(&self, parent: Ino, name: &str) -> Result<Attr> {
        let dir = self.path_of(parent)?;
        check_name(name)?;
        let path = dir.join(name);
        match self.attr_of(&path) {
            Err(e) if e.kind == ErrorKind::NotFound => Err(self.suggest(&path, e)),
            other => other,
        }
    }

    /// The attributes of `ino`.
    pub fn getattr(&self, ino: Ino) -> Result<Attr> {
        self.getattr_by(ino, 0)
    }

    /// The attributes of `ino` as process `pid` sees them (see [`Space::open_attr`]).
    pub fn getattr_by(&self, ino: Ino, pid: u32) -> Result<Attr> {
        if let Some(attr) = self.open_attr(ino, pid) {
            return Ok(attr);
        }
        let path = self.path_of(ino)?;
        self.attr_of(&path)
    }

    pub(crate) fn attr_of(&self, path: &TreePath) -> Result<Attr> {
        let node = self.stat(path)?;
        let ino = self.ino_of(path);
        let (size, mtime) = match (node.kind, node.size, node.mtime) {
            (Kind::Dir, _, mtime) => (0, mtime.unwrap_or_else(|| self.observed(ino, b""))),
            (_, Some(size), Some(mtime)) => (size, mtime),
            (_, size, mtime) => {
                let cacheable = self.cacheable(&node, path);
                let (content, print) = self.content_for_stat(ino, path, cacheable)?;
                let observed = self.observed_print(ino, print);
                (
                    size.unwrap_or(content.len() as u64),
                    mtime.unwrap_or(observed),
                )
            }
        };
        Ok(Attr {
            ino,
            kind: node.kind,
            size,
            mtime,
            writable: node.writable,
            perm: self.perm_of(&node),
            cacheable: self.cacheable(&node, path),
        })
    }

    /// Whether the kernel may keep what `path` (whose node is `node`) shows: every change
    /// to it is announced (not so for a path reached through another name, or a temp file).
    pub(crate) fn cacheable(&self, node: &Node, path: &TreePath) -> bool {
        !node.aliased && !node.waits && !self.files.has_scratch(path.as_str())
    }

    /// The content of `path` (inode `ino`) for `stat`, with its fingerprint: what is kept
    /// of it, else computed now and kept (when `cacheable`) for the `open` that usually
    /// follows (see [`Space::content_for_open`]).
    pub(crate) fn content_for_stat(
        &self,
        ino: Ino,
        path: &TreePath,
        cacheable: bool,
    ) -> Result<(Arc<Vec<u8>>, Print)> {
        let generation = self.kernel.generation();
        let rendered = self.kept_or(ino, path, cacheable, generation, None)?;
        *lock(&self.rendered) = Some(Rendered {
            ino,
            generation,
            at: Instant::now(),
            content: Arc::clone(&rendered.0),
        });
        Ok(rendered)
    }

    /// The content of `path` (inode `ino`) for a new open file, with its fingerprint: what
    /// is kept of it while nothing it shows changed; with caching off, what the `stat` just
    /// before computed if nothing changed through the tree since and it is a moment old,
    /// else computed now (taken: the next `cat` computes afresh, so changes on disk show
    /// at the next access). One rendering serves a `cat`'s lookup and open; its `fstat` is
    /// answered from the open file.
    pub(crate) fn content_for_open(
        &self,
        ino: Ino,
        path: &TreePath,
        cacheable: bool,
    ) -> Result<(Arc<Vec<u8>>, Print)> {
        let generation = self.kernel.generation();
        let just_stated = lock(&self.rendered).take().and_then(|kept| {
            (kept.ino == ino && kept.generation == generation && kept.at.elapsed() < RENDER_REUSE)
                .then_some(kept.content)
        });
        self.kept_or(ino, path, cacheable, generation, just_stated)
    }

    /// What the daemon keeps of `ino` (when `cacheable`), else `rendered` or the content of
    /// `path` computed now, kept (when `cacheable`) unless something changed since
    /// `generation`; with its fingerprint.
    fn kept_or(
        &self,
        ino: Ino,
        path: &TreePath,
        cacheable: bool,
        generation: u64,
        rendered: Option<Arc<Vec<u8>>>,
    ) -> Result<(Arc<Vec<u8>>, Print)> {
        if let Some(kept) = self.kernel.content(ino).filter(|_| cacheable) {
            return Ok(kept);
        }
        let content = match rendered {
            Some(content) => content,
            None => Arc::new(self.content(path)?),
        };
        let print = print(&content);
        if cacheable {
            self.kernel.keep(ino, generation, &content, print);
        }
        Ok((content, print))
    }

    /// Drops the rendering a `stat` left for the next open.
    pub(crate) fn forget_rendered(&self) {
        lock(&self.rendered).take();
    }

    pub(crate) fn observed(&self, ino: Ino, content: &[u8]) -> SystemTime {
        self.observed_print(ino, print(content))
    }

    /// Note that content with fingerprint `print` was just served for `ino`; returns its
    /// modification time (see [`Inodes::observe`]).
    pub(crate) fn observed_print(&self, ino: Ino, print: Print) -> SystemTime {
        lock(&self.inodes).observe(ino, print)
    }

    /// Open directory `ino`: its listing is taken at the first [`Space::read_dir`] (none
    /// when the kernel kept the last one). Also says whether the kernel may keep the
    /// listing (every change to it is announced).
    pub fn open_dir(&self, ino: Ino) -> Result<(Fh, bool)> {
        let path = self.path_of(ino)?;
        let node = self.stat(&path)?;
        if node.kind != Kind::Dir {
            return Err(not_a_dir(&self.links, &path));
        }
        let cacheable = !node.aliased && self.kernel.mode() == CacheMode::Kept;
        Ok((self.listings.open(ino), cacheable))
    }

    /// The entries of the open directory `fh` from `offset` on, each with the offset of
    /// the one after it, `.` and `..` first.
    pub fn read_dir(&self, fh: Fh, offset: u64) -> Result<Vec<(u64, DirEntry)>> {
        self.listings.from(fh, offset, |ino| self.readdir(ino))
    }

    /// The entries of directory `ino` from `offset` on, read without opening it (see
    /// [`Listings::unopened`]).
    pub fn read_dir_unopened(&self, ino: Ino, offset: u64) -> Result<Vec<(u64, DirEntry)>> {
        let generation = self.kernel.generation();
        self.listings
            .unopened(ino, generation, offset, |ino| self.readdir(ino))
    }

    /// Close the open directory `fh`.
    pub fn close_dir(&self, fh: Fh) {
        self.listings.close(fh);
    }

    /// The attributes of `ino` for process `pid` holding handle `fh`, if any: an open file
    /// reports the size of what it will read or has been written; else the path as it is.
    pub fn getattr_via(&self, ino: Ino, fh: Option<Fh>, pid: u32) -> Result<Attr> {
        match fh.and_then(|fh| self.handle_attr(ino, fh)) {
            Some(attr) => Ok(attr),
            None => self.getattr_by(ino, pid),
        }
    }

    /// Whether `ino` may be written (`access(W_OK)`, `test -w`): views and read-only
    /// places say no, as their modes do.
    pub fn access(&self, ino: Ino, write: bool) -> Result<()> {
        let attr = self.getattr(ino)?;
        if write && !attr.writable {
            return Err(Error::new(
                ErrorKind::PermissionDenied,
                format!(
                    "{} cannot be written",
                    self.links.to(self.path_of(ino)?.as_str())
                ),
            ));
        }
        Ok(())
    }

    /// The listing of directory `ino`.
    pub fn readdir(&self, ino: Ino) -> Result<Vec<DirEntry>> {
        let path = self.path_of(ino)?;
        let children = self.names(&path)?;
        let mut inodes = lock(&self.inodes);
        let prefix = path.dir_prefix();
        Ok(children
            .into_iter()
            .map(|(name, kind)| DirEntry {
                ino: inodes.ino_of(&format!("{prefix}{name}")),
                name,
                kind,
            })
            .collect())
    }

    /// Note a lookup of a missing `path` for a later "Did you mean", unless the name is a
    /// probe that tools make on their own.
    fn suggest(&self, path: &TreePath, missing: Error) -> Error {
        if path.name().is_some_and(|name| !names::is_probe(name)) {
            self.errors.missed(path.clone());
            // Examined when the error log or an entry view is rendered next.
            if let Some(dir) = path.parent() {
                self.failed_in(dir.as_str());
            }
        }
        missing
    }

    /// Turn the lookups of missing names noted since last time into "Did you mean" errors
    /// where a name close to the missing one exists (and the missing one still does not).
    /// Called before the error log is shown.
    pub(crate) fn examine_misses(&self) {
        let mut listings: HashMap<TreePath, Vec<Child>> = HashMap::new();
        let misses = self.errors.take_misses();
        if misses.is_empty() {
            return;
        }
        let failures = self.errors.newest_first();
        for miss in misses {
            let (Some(name), Some(parent)) = (miss.path.name(), miss.path.parent()) else {
                continue;
            };
            if self.stat(&miss.path).is_ok() {
                continue;
            }
            // A tool's look around its own failed operation on the same path (mv looks the
            // target up before renaming) is no typo, and must not hide the real failure.
            let shown = self.links.to(miss.path.as_str());
            let after_failure = failures.iter().any(|f| {
                f.op != "lookup"
                    && f.path == shown
                    && miss
                        .at
                        .duration_since(f.at)
                        .or_else(|e| Ok::<_, ()>(e.duration()))
                        .is_ok_and(|d| d.as_secs() < 5)
            });
            if after_failure {
                continue;
            }
            let children = listings
                .entry(parent.clone())
                .or_insert_with(|| self.list(&parent).unwrap_or_default());
            let best = children
                .iter()
                .map(|c| (strsim::jaro_winkler(name, &c.name), c))
                .filter(|(score, _)| *score >= 0.85)
                .max_by(|a, b| a.0.total_cmp(&b.0));
            // The name itself listed: it was made between the miss and this look (another
            // mount's create arriving), so there was no typo.
            let Some((_, child)) = best.filter(|(_, child)| child.name != *name) else {
                continue;
            };
            let target = parent.join(&child.name);
            let suggestion = if child.kind == Kind::Dir {
                self.links.dir(&target.names().collect::<Vec<_>>())
            } else {
                self.links.to(target.as_str())
            };
            self.errors.record(Failure {
                at: miss.at,
                op: "lookup".into(),
                path: shown.clone(),
                dir: parent.to_string(),
                message: format!("{shown} does not exist. Did you mean {suggestion}?"),
                repeats: 0,
                first: miss.at,
            });
            self.failed_in(parent.as_str());
        }
    }

    /// `path` was just made (created, renamed to): a lookup of it before is no typo, and
    /// a "did you mean" logged for it is void.
    pub(crate) fn made(&self, path: &TreePath) {
        self.errors.forget_misses(path);
        self.errors.forget_lookup(&self.links.to(path.as_str()));
    }

    /// Log a failed operation on `path` (to `_errors.md`, its directory's entry view, and
    /// the daemon log).
    pub(crate) fn record(&self, op: &str, path: &TreePath, error: &Error) {
        let dir = path.parent().map(|p| p.to_string()).unwrap_or_default();
        let now = SystemTime::now();
        self.errors.record(Failure {
            at: now,
            op: op.to_string(),
            path: self.links.to(path.as_str()),
            dir: dir.clone(),
            message: error.message.clone(),
            repeats: 0,
            first: now,
        });
        self.failed_in(&dir);
    }

    /// Log that a read failed because the store cannot be reached (its message names the
    /// store and what to expect); repeats of it are folded as any repeated failure.
    pub(crate) fn record_unavailable(&self, error: &Error) {
        self.record("read", &TreePath::root(), error);
    }

    /// Run `op` on `path`, logging a failure.
    pub(crate) fn logged<T>(&self, op: &str, path: &TreePath, result: Result<T>) -> Result<T> {
        if let Err(error) = &result {
            self.record(op, path, error);
        }
        result
    }
}

pub(crate) fn check_name(name: &str) -> Result<()> {
    if name.len() > names::NAME_MAX {
        return Err(Error::new(
            ErrorKind::NameTooLong,
            format!(
                "a name may have at most {} bytes; this one has {}",
                names::NAME_MAX,
                name.len()
            ),
        ));
    }
    if name.is_empty() || name.contains('/') || name.contains('\0') {
        return Err(Error::invalid(format!("{name:?} is not a valid name")));
    }
    Ok(())
}

pub(crate) fn not_a_dir(links: &Links, path: &TreePath) -> Error {
    Error::new(
        ErrorKind::NotADirectory,
        format!("{} is a file, not a directory", links.to(path.as_str())),
    )
}

pub(crate) fn is_a_dir(links: &Links, path: &TreePath) -> Error {
    Error::new(
        ErrorKind::IsADirectory,
        format!(
            "{} is a directory: read {}",
            links.dir(&path.names().collect::<Vec<_>>()),
            links.to(path.join(ENTRY).as_str())
        ),
    )
}

impl Space {
    /// The bytes `cat` would print for `path`; a directory gives its `_entry.md`. Used by
    /// `homespace render` and by tests that check views without a mount.
    pub fn render_path(&self, path: &TreePath) -> Result<Vec<u8>> {
        if self.stat(path)?.kind == Kind::Dir {
            return self.content(&path.join(ENTRY));
        }
        self.content(path)
    }
}

impl Space {
    /// The resourcespace mounted as `name` (for tests and tools built on the library).
    pub fn resource_named(&self, name: &str) -> Option<Arc<dyn Resource>> {
        self.resource(name)
    }
}

impl render::nav::Listing for Space {
    fn names(&self, dir: &[String]) -> Result<Vec<(String, Kind)>> {
        Space::names(self, &TreePath::from_names(dir))
    }
}
