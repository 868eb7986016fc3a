//! Names and numbers as the kernel asks for them: lookups, attributes (with the content a
//! `stat` renders left for the `open` that follows) and `setattr`, directory listings and
//! `access`.

use std::sync::Arc;
use std::time::SystemTime;

use crate::error::{Error, ErrorKind, Result};
use crate::model::{Fh, Ino, Kind, Node, TreePath};
use crate::tree::Space;
use crate::tree::access::{Caller, Perm};
use crate::tree::glance::Glance;
use crate::tree::inodes::{Print, print};
use crate::tree::kernel_cache::CacheMode;
use crate::tree::listings::DirEntry;
use crate::tree::lock;
use crate::tree::resource::ResourceExt;
use crate::tree::space::requests::{
    AccessRequest, AttrRequest, LookupRequest, ReadDirRequest, SetattrRequest,
};
use crate::tree::space::route::{Located, Route};
use crate::tree::space::{Attr, check_name, not_a_dir};

impl Space {
    /// Find `request.name` in directory `request.parent`: its attributes. A miss that
    /// closely matches an existing name is logged with "Did you mean"; probes that tools
    /// make on their own are not (see [`LookupRequest`]); the names of a listing with
    /// attributes are looked up by it ([`ListingPlus::attr`]).
    pub fn lookup(&self, request: LookupRequest) -> Result<Attr> {
        let LookupRequest {
            parent,
            name,
            caller,
        } = request;
        match caller {
            // Without --allow-other the kernel lets no one but the owner in: nothing to
            // judge, and every lookup of a `.py` name would walk its nested path for nothing.
            Some(caller) if self.access.others_read => self.find_for(parent, name, caller),
            _ => self.find(parent, name),
        }
    }

    /// `name` in `parent`, for this process (see [`Space::lookup`]).
    fn find(&self, parent: Ino, name: &str) -> Result<Attr> {
        let dir = self.path_of(parent)?;
        check_name(name)?;
        let path = dir.join(name);
        match self.attr_of(&path) {
            Err(e) if e.kind == ErrorKind::NotFound => Err(self.suggest(&path, e)),
            other => other,
        }
    }

    /// `name` in `parent` for `caller`, where others may use the mount: a name reached
    /// otherwise than by its nested path (source/'s `pkg.mod.Sym.py`) answers as the nested
    /// path would, refused where a folder on it does not let the caller through (see
    /// [`Resource::crossed`]). The owner and root pass as everywhere.
    ///
    /// [`Resource::crossed`]: crate::tree::resource::Resource::crossed
    fn find_for(&self, parent: Ino, name: &str, caller: Caller) -> Result<Attr> {
        let dir = self.path_of(parent)?;
        check_name(name)?;
        let path = dir.join(name);
        let crossed = self.crossed(&path);
        let others = caller.uid != self.access.owner && caller.uid != 0;
        if let Some(closed) = crossed.iter().find(|f| others && !f.lets_pass(caller)) {
            return Err(Error::new(
                ErrorKind::PermissionDenied,
                format!(
                    "{} cannot be reached by uid {}: a folder on its way (mode {:o}) does not \
                     let it through, as its nested path would not",
                    self.links.to(path.as_str()),
                    caller.uid,
                    closed.mode
                ),
            ));
        }
        let mut attr = self.find(parent, name)?;
        // The kernel keeps a name for anyone once someone looked it up: a name some
        // caller must be refused is asked for again at each use.
        if crossed.iter().any(|f| f.mode & 0o011 != 0o011) {
            attr.cacheable = false;
            attr.per_caller = true;
        }
        Ok(attr)
    }

    /// The folders `path` passes on its own way besides those the kernel walked, as the
    /// modes they show (see [`Resource::crossed`]).
    ///
    /// [`Resource::crossed`]: crate::tree::resource::Resource::crossed
    fn crossed(&self, path: &TreePath) -> Vec<Perm> {
        match self.route(path) {
            Ok(Route::In(resource, rest)) => resource
                .crossed(&rest)
                .into_iter()
                .map(|folder| self.perm_of(&Node::dir(false).owned(folder)))
                .collect(),
            _ => Vec::new(),
        }
    }

    /// The attributes of `request.ino`: through an open file, what it will read or has
    /// been written to it; for a process holding the file open for reading, what it reads
    /// (see `Space::open_attr`); else the path as it is.
    pub fn getattr(&self, request: AttrRequest) -> Result<Attr> {
        self.getattr_in(&Glance::new(), request)
    }

    /// [`Space::getattr`], the path's attributes worked out in `glance`.
    fn getattr_in(&self, glance: &Glance, request: AttrRequest) -> Result<Attr> {
        let AttrRequest { ino, fh, pid } = request;
        if let Some(attr) = fh.and_then(|fh| self.handle_attr(ino, fh)) {
            return Ok(attr);
        }
        if let Some(attr) = self.open_attr(ino, pid) {
            return Ok(attr);
        }
        let path = self.path_of(ino)?;
        self.attr_in(glance, &path)
    }

    /// Change what `request` asks of an inode's attributes: its size (as a write would, see
    /// `handles.rs`), then its modes and owner (see `modes.rs`); returns its attributes
    /// after. Times are not kept (the content decides mtime):
    /// `touch` of a document is accepted and changes nothing, as touching an unchanged file
    /// means nothing here. Modes and owners are applied or refused, never pretended.
    pub fn setattr(&self, request: SetattrRequest) -> Result<Attr> {
        let SetattrRequest {
            ino,
            fh,
            size,
            mode,
            uid,
            gid,
            caller,
        } = request;
        let mut attr = match size {
            Some(size) => self.set_size(ino, size, fh, caller)?,
            None => self.getattr(AttrRequest::new(ino))?,
        };
        if mode.is_some() || uid.is_some() || gid.is_some() {
            attr = self.set_perm(ino, mode, uid, gid, caller)?;
        }
        Ok(attr)
    }

    /// The attributes of `path`, worked out in a glance of their own.
    pub(crate) fn attr_of(&self, path: &TreePath) -> Result<Attr> {
        self.attr_in(&Glance::new(), path)
    }

    /// The attributes of `path`, worked out in `glance`: a file's attributes are its
    /// node's and, for a generated file, its content's size, and one look serves both (a
    /// memory entry and its session are then read once).
    fn attr_in(&self, glance: &Glance, path: &TreePath) -> Result<Attr> {
        let generation = self.kernel.generation();
        let at = self.locate(glance, path)?;
        let (ino, node) = (at.ino, &at.node);
        if let Some(file) = node.file.as_ref().filter(|_| at.cacheable) {
            self.exact_files.keep(ino, file.clone(), generation);
        }
        let (size, mtime) = match (node.kind, node.size, node.mtime) {
            (Kind::Dir, _, mtime) => (0, mtime.unwrap_or_else(|| self.observed(ino, b""))),
            (_, Some(size), Some(mtime)) => (size, mtime),
            (_, size, mtime) => {
                let (content, print) = self.content_for_stat(&at)?;
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
            perm: self.perm_of(node),
            cacheable: at.cacheable,
            per_caller: false,
        })
    }

    /// Whether the kernel may keep what `path` (whose node is `node`) shows: every change
    /// to it is announced (not so for a path reached through another name, or a temp file).
    pub(super) fn cacheable(&self, node: &Node, path: &TreePath) -> bool {
        !node.aliased && !node.waits && !node.dated && !self.files.has_scratch(path.as_str())
    }

    /// The content of `at` for `stat`, with its fingerprint: what is kept of it, else
    /// computed now and kept (when cacheable) and left for the `open` that usually follows
    /// (see [`Space::content_for_open`]).
    pub(super) fn content_for_stat(&self, at: &Located) -> Result<(Arc<Vec<u8>>, Print)> {
        let generation = self.kernel.generation();
        let rendered = self.kept_or(at, generation, None)?;
        self.rendered
            .leave(at.ino, generation, &at.node, &rendered.0);
        Ok(rendered)
    }

    /// The content of `at` for a new open file, with its fingerprint: what
    /// is kept of it while nothing it shows changed; with caching off, what the `stat` just
    /// before computed if nothing changed through the tree since and it is a moment old,
    /// else computed now (taken: the next `cat` computes afresh, so changes on disk show
    /// at the next access). One rendering serves a `cat`'s lookup and open; its `fstat` is
    /// answered from the open file.
    pub(super) fn content_for_open(&self, at: &Located) -> Result<(Arc<Vec<u8>>, Print)> {
        let generation = self.kernel.generation();
        let just_stated = self.rendered.take(at.ino, generation);
        self.kept_or(at, generation, just_stated)
    }

    /// What the daemon keeps of `at` (when cacheable), else `rendered` or its content
    /// computed now, kept (when cacheable) unless something changed since `generation`;
    /// with its fingerprint.
    fn kept_or(
        &self,
        at: &Located,
        generation: u64,
        rendered: Option<Arc<Vec<u8>>>,
    ) -> Result<(Arc<Vec<u8>>, Print)> {
        let (ino, cacheable) = (at.ino, at.cacheable);
        if let Some(kept) = self.kernel.content(ino).filter(|_| cacheable) {
            return Ok(kept);
        }
        let content = match rendered {
            Some(content) => content,
            None => Arc::new(self.content_at(at.glance, &at.route, &at.node, at.path)?),
        };
        let print = print(&content);
        if cacheable {
            self.kernel.keep(ino, generation, &content, print);
        }
        Ok((content, print))
    }

    /// Drops the rendering a `stat` left for the next open.
    pub(crate) fn forget_rendered(&self) {
        self.rendered.forget();
    }

    pub(crate) fn observed(&self, ino: Ino, content: &[u8]) -> SystemTime {
        self.observed_print(ino, print(content))
    }

    /// Note that content with fingerprint `print` was just served for `ino`; returns its
    /// modification time (see [`Inodes::observe`]).
    pub(crate) fn observed_print(&self, ino: Ino, print: Print) -> SystemTime {
        lock(&self.inodes).observe(ino, print)
    }

    /// The target of the symbolic link `ino`, relative to its directory.
    pub fn read_link(&self, ino: Ino) -> Result<Vec<u8>> {
        // The link is resolved twice (its kind, then its target): one look serves both.
        let glance = Glance::new();
        let path = self.path_of(ino)?;
        let at = self.locate(&glance, &path)?;
        if at.node.kind != Kind::Link {
            return Err(Error::invalid(format!(
                "{} is no symbolic link",
                self.links.to(path.as_str())
            )));
        }
        Ok(self.content_for_stat(&at)?.0.to_vec())
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

    /// The entries of a directory from `request.offset` on, each with the offset of the one
    /// after it, `.` and `..` first: of the open directory read from, or, read without
    /// opening it, of the directory as it is (see `Listings::unopened`).
    pub fn read_dir(&self, request: ReadDirRequest) -> Result<Vec<(u64, DirEntry)>> {
        self.read_dir_in(&Glance::new(), request)
    }

    /// [`Space::read_dir`], the listing taken in `glance`.
    fn read_dir_in(
        &self,
        glance: &Glance,
        request: ReadDirRequest,
    ) -> Result<Vec<(u64, DirEntry)>> {
        let ReadDirRequest { ino, fh, offset } = request;
        let listing = |ino| self.listing(glance, ino);
        match fh {
            Some(fh) => self.listings.from(fh, offset, listing),
            None => {
                let generation = self.kernel.generation();
                (self.listings).unopened(ino, generation, offset, listing)
            }
        }
    }

    /// [`Space::read_dir`] with the directory's own attributes, for a listing that carries
    /// each entry's (`readdirplus`): all of it, the entries' attributes too
    /// ([`ListingPlus::attr`]), worked out in one glance of a listing's kind — each entry
    /// is resolved from the top, and one look at each folder on the way serves them all.
    pub fn read_dir_plus(&self, request: ReadDirRequest) -> Result<ListingPlus<'_>> {
        let glance = Glance::listing();
        let entries = self.read_dir_in(&glance, request)?;
        let here = self.getattr_in(&glance, AttrRequest::new(request.ino))?;
        Ok(ListingPlus {
            space: self,
            dir: self.path_of(request.ino)?,
            glance,
            entries,
            here,
        })
    }

    /// Close the open directory `fh`.
    pub fn close_dir(&self, fh: Fh) {
        self.listings.close(fh);
    }

    /// Whether `request.ino` is there and, if asked, may be written (`access(W_OK)`, `test
    /// -w`): views and read-only places say no, as their modes do.
    pub fn access(&self, request: AccessRequest) -> Result<()> {
        let AccessRequest { ino, write } = request;
        let attr = self.getattr(AttrRequest::new(ino))?;
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
    fn listing(&self, glance: &Glance, ino: Ino) -> Result<Vec<DirEntry>> {
        let path = self.path_of(ino)?;
        let children = self.names_in(glance, &path)?;
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
}

/// A listing with each entry's attributes (`readdirplus`, see [`Space::read_dir_plus`]):
/// its entries from the offset asked for, the directory's own attributes, and the glance
/// they were read in, in which each entry the kernel takes is looked up.
pub struct ListingPlus<'s> {
    space: &'s Space,
    dir: TreePath,
    glance: Glance,
    /// The entries, each with the offset of the one after it, `.` and `..` first.
    pub entries: Vec<(u64, DirEntry)>,
    /// The directory's attributes.
    pub here: Attr,
}

impl ListingPlus<'_> {
    /// The attributes of the entry `name`, worked out in the listing's glance: without
    /// checking the name or noting a miss for "Did you mean" (the name was there a moment
    /// ago).
    pub fn attr(&self, name: &str) -> Result<Attr> {
        self.space.attr_in(&self.glance, &self.dir.join(name))
    }
}
