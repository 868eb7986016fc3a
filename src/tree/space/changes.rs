//! Changes to the tree's shape: create, mkdir, unlink, rmdir, rename. Editors' temp files
//! are made and moved in memory; renaming one over a document saves it like a write
//! (validated as a whole). Renaming a document to a temp name (vim's backup) copies it to
//! memory and leaves the document in place, since the editor is about to write it anew.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use crate::error::{Error, ErrorKind, Result};
use crate::model::Kind;
use crate::model::Ownership;
use crate::model::names;
use crate::model::{Fh, TreePath};
use crate::tree::body::Body;
use crate::tree::open_files::{Edit, Handle, MAX_SCRATCH_FILES, ScratchFile};
use crate::tree::resource::Resource;
use crate::tree::resource::{ReadNow, ResourceExt};
use crate::tree::space::requests::{CreateRequest, MkdirRequest, RemoveRequest, RenameRequest};
use crate::tree::space::route::{Route, descend};
use crate::tree::space::{Attr, check_name, not_a_dir};
use crate::tree::{OpenRequest, Space, lock};

impl Space {
    /// The resource answering for `path` and the path inside it, ignoring temp files.
    pub(crate) fn place_in_resource<'a>(
        &self,
        path: &'a TreePath,
    ) -> Result<(Arc<dyn Resource>, Vec<&'a str>)> {
        let Some(first) = path.first() else {
            return Err(Error::not_permitted(
                "the root holds only the resourcespaces",
            ));
        };
        let resource = self.resource(first).ok_or_else(|| {
            Error::not_permitted(format!(
                "nothing can be made at the root; write inside one of {}",
                self.resource_names()
            ))
        })?;
        Ok(descend(resource, path.names().skip(1)))
    }

    fn writable_dir(&self, dir: &TreePath) -> Result<()> {
        let node = self.stat(dir)?;
        if node.kind != Kind::Dir {
            return Err(not_a_dir(&self.links, dir));
        }
        if !node.writable {
            return Err(Error::read_only(format!(
                "nothing can be created in {}: it is generated. Its _entry.md says where to write",
                self.links.dir(&dir.names().collect::<Vec<_>>())
            )));
        }
        Ok(())
    }

    /// Create a file as `request` says and open it for writing; returns its attributes and
    /// handle.
    pub fn create(&self, request: CreateRequest) -> Result<(Attr, Fh)> {
        let CreateRequest {
            parent,
            name,
            caller,
            mode,
            exclusive,
        } = request;
        let dir = self.path_of(parent)?;
        check_name(name)?;
        let path = dir.join(name);
        self.admit(caller, "create", &path)?;
        if let Ok(attr) = self.attr_of(&path) {
            if exclusive {
                return Err(Error::exists(format!(
                    "{} already exists",
                    self.links.to(path.as_str())
                )));
            }
            let truncate = crate::tree::OpenFlags {
                write: true,
                truncate: true,
                append: false,
            };
            let fh = self
                .open(OpenRequest::new(attr.ino, truncate, caller))?
                .fh()?;
            return Ok((attr, fh));
        }
        let ownership = Ownership::File {
            uid: caller.uid,
            gid: caller.gid,
            mode: mode & 0o777,
        };
        let made = self.make_scratch(&path, ownership);
        self.logged("create", &path, made)?;
        let attr = self.attr_of(&path)?;
        let fh = self.files.add(Handle {
            ino: self.ino_of(&path),
            pid: 0,
            base: None,
            kind: Kind::Document,
            writable: true,
            path: path.clone(),
            content: Body::new(Vec::new(), self.files.spill())?,
            edit: Some(Edit {
                // A new document is saved at close even if nothing was written, so that
                // `touch` of a document that needs content says what it needs.
                dirty: !self.is_temp(&path),
                written: false,
                broken: None,
                append: false,
            }),
            perm: attr.perm,
            by_owner: caller.uid == self.access.owner,
            cached: false,
        });
        Ok((attr, fh))
    }

    /// Hold a new file in memory: a temp file, or a document until its content is saved.
    fn make_scratch(&self, path: &TreePath, ownership: Ownership) -> Result<()> {
        let dir = path.parent().ok_or_else(|| Error::invalid("empty path"))?;
        let pending = !self.is_temp(path);
        if let Err(generic) = self.writable_dir(&dir) {
            // The resource may know better why nothing is made here (`source/deps/` of a
            // project whose metadata is in setup.cfg says where to edit instead).
            return Err(match self.place_in_resource(path) {
                Ok((resource, rest)) if pending => {
                    resource.can_create(&rest).err().unwrap_or(generic)
                }
                _ => generic,
            });
        }
        if pending {
            let (resource, rest) = self.place_in_resource(path)?;
            resource.can_create(&rest)?;
        }
        let mut scratch = self.files.scratch();
        if scratch.len() >= MAX_SCRATCH_FILES {
            return Err(Error::new(
                ErrorKind::NoSpace,
                format!(
                    "{MAX_SCRATCH_FILES} files are already held in memory (temp files not yet \
                     renamed or removed); remove some before creating more"
                ),
            ));
        }
        scratch.insert(
            path.to_string(),
            ScratchFile {
                content: Body::new(Vec::new(), self.files.spill())?,
                changed: SystemTime::now(),
                pending,
                backup_of: None,
                ownership,
            },
        );
        drop(scratch);
        self.changed_at(path);
        Ok(())
    }

    /// Make the directory `request` names.
    pub fn mkdir(&self, request: MkdirRequest) -> Result<Attr> {
        let MkdirRequest {
            parent,
            name,
            caller,
        } = request;
        let dir = self.path_of(parent)?;
        check_name(name)?;
        let path = dir.join(name);
        let _change = self.admit(caller, "mkdir", &path)?;
        let made = (|| {
            if crate::model::names::is_trash(name) {
                // File managers move deleted files into such a folder; here nothing could
                // come back from it, and the folder would show in every listing.
                return Err(Error::not_permitted(format!(
                    "{} was not made: homespace keeps no trash, what is removed is gone at \
                     once (source/history/ can undo code edits). Delete with `rm`, or in a \
                     file manager with Delete Permanently (Shift+Delete)",
                    self.links.to(path.as_str())
                )));
            }
            if self.stat(&path).is_ok() {
                return Err(Error::exists(format!(
                    "{} already exists",
                    self.links.to(path.as_str())
                )));
            }
            let (resource, rest) = self.place_in_resource(&path)?;
            resource.mkdir(&rest)
        })();
        self.logged("mkdir", &path, made)?;
        self.changed_at(&path);
        self.made(&path);
        self.attr_of(&path)
    }

    /// Remove the file (`unlink`) or directory (`rmdir`) `request` names.
    pub fn remove(&self, request: RemoveRequest) -> Result<()> {
        let RemoveRequest {
            parent,
            name,
            dir,
            caller,
        } = request;
        let path = self.path_of(parent)?.join(name);
        if dir {
            // `rm -r` ends with the folder's rmdir, removed or refused: a link unlinked
            // there afterwards is a request of its own again.
            self.emptying.ended(&path);
        }
        let _change = self.admit(caller, if dir { "rmdir" } else { "rm" }, &path)?;
        let _pass = self.changes.enter();
        let removed = (|| match self.route(&path)? {
            Route::Scratch(key) => {
                self.files.scratch().remove(&key);
                Ok(())
            }
            Route::Generated(_, folder) if !dir && self.removable(&folder) => {
                // `rm -r` unlinks every file of a folder before removing it: the folder's
                // own views go with it, so their unlinking is that removal begun. Should
                // the rmdir then be refused, they are still there, as they always are.
                self.emptying.begun(folder, caller.pid);
                Ok(())
            }
            Route::Generated(..) => Err(Error::read_only(format!(
                "{} is generated and cannot be removed: it is the view of its folder, which \
                 shows it as long as the folder is there",
                self.links.to(path.as_str())
            ))),
            Route::Root | Route::Errors => Err(Error::read_only(format!(
                "{} is generated and cannot be removed",
                self.links.to(path.as_str())
            ))),
            Route::In(resource, rest) => {
                let node = resource.stat_now(&rest)?;
                if !dir
                    && node.kind == Kind::Link
                    && path
                        .parent()
                        .is_some_and(|folder| self.emptying.is(&folder, caller.pid))
                {
                    // A module's members link, in a folder whose views `rm -r` just
                    // unlinked: it goes with its module, which rm unlinks next. Alone, `rm`
                    // of a link is refused and says where the module is.
                    return Ok(());
                }
                if !dir && self.restoring_from_backup(&path) {
                    // vim, after a refused write: unlink the document, then rename its
                    // backup back. Deleting for real would lose what the document is
                    // beyond its bytes (a task's id and history); the rename that follows
                    // puts the same bytes back.
                    crate::log::line(&format!(
                        "kept {} on rm: its editor is restoring it from a backup",
                        self.links.to(path.as_str())
                    ));
                    return Ok(());
                }
                match (node.kind == Kind::Dir, dir) {
                    (true, false) => Err(Error::new(
                        ErrorKind::IsADirectory,
                        format!("{} is a directory: use rmdir", self.links.to(path.as_str())),
                    )),
                    (false, true) => Err(not_a_dir(&self.links, &path)),
                    _ => resource.remove(&rest),
                }
            }
        })();
        self.logged(if dir { "rmdir" } else { "rm" }, &path, removed)?;
        self.changed_at(&path);
        Ok(())
    }

    /// Whether `folder` is one that rmdir may remove once emptied (see
    /// [`Resource::removable`]).
    fn removable(&self, folder: &TreePath) -> bool {
        match self.route(folder) {
            Ok(Route::In(resource, rest)) => resource.removable(&rest),
            _ => false,
        }
    }

    /// Whether a new file at `path` is an editor's or tool's temp file, held in memory.
    fn is_temp(&self, path: &TreePath) -> bool {
        path.name().is_some_and(names::is_editor_temp)
    }

    /// Whether an editor's backup of the document at `path`, made by renaming it within
    /// the last minute, is in memory: an `rm` of the document then means "about to restore".
    fn restoring_from_backup(&self, path: &TreePath) -> bool {
        self.files.scratch().values().any(|f| {
            f.backup_of.as_deref() == Some(path.as_str())
                && f.changed
                    .elapsed()
                    .is_ok_and(|age| age < std::time::Duration::from_secs(60))
        })
    }

    /// Move a file or directory as `request` says.
    pub fn rename(&self, request: RenameRequest) -> Result<()> {
        let RenameRequest {
            parent,
            name,
            new_parent,
            new_name,
            no_replace,
            caller,
        } = request;
        let from = self.path_of(parent)?.join(name);
        let to_dir = self.path_of(new_parent)?;
        check_name(new_name)?;
        let to = to_dir.join(new_name);
        let _change = self.admit(caller, "rename", &from)?;
        if no_replace && self.stat(&to).is_ok() {
            return Err(Error::exists(format!(
                "{} already exists",
                self.links.to(to.as_str())
            )));
        }
        let moved = self.move_path(&from, &to);
        self.logged("rename", &to, moved)?;
        // The kernel moved its name to the new place: the number goes with it.
        lock(&self.inodes).moved(from.as_str(), to.as_str());
        self.changed_at(&from);
        self.changed_at(&to);
        self.made(&to);
        Ok(())
    }

    fn move_path(&self, from: &TreePath, to: &TreePath) -> Result<()> {
        let _pass = self.changes.enter();
        // Only a file renamed to a temp name beside itself is an editor's backup; a
        // directory, or a move elsewhere, is a real move whatever the name.
        let same_dir = from.parent() == to.parent();
        let to_temp =
            same_dir && self.stat(from).is_ok_and(|n| n.kind != Kind::Dir) && self.is_temp(to);
        match self.route(from)? {
            Route::Scratch(key) => {
                if to_temp {
                    let dir = to.parent().ok_or_else(|| Error::invalid("empty path"))?;
                    self.writable_dir(&dir)?;
                    let mut scratch = self.files.scratch();
                    if let Some(file) = scratch.remove(&key) {
                        scratch.insert(to.to_string(), file);
                    }
                    return Ok(());
                }
                let content = match self.files.scratch().get(&key) {
                    Some(file) => file.content.to_vec()?,
                    None => Vec::new(),
                };
                let (resource, rest) = self.place_in_resource(to)?;
                if resource.stat_now(&rest).is_err() {
                    resource.can_create(&rest)?;
                }
                resource.write(&rest, &content, None)?;
                self.files.scratch().remove(&key);
                Ok(())
            }
            Route::In(resource, rest) => {
                let backup = from.name().map(|name| format!("{name}~"));
                if to_temp && to.name() != backup.as_deref() {
                    return Err(Error::not_permitted(format!(
                        "{} cannot become {}: that is not a name a document can have here. \
                         To keep a copy use cp; to delete use rm",
                        self.links.to(from.as_str()),
                        self.links.to(to.as_str())
                    )));
                }
                if to_temp {
                    // vim's and emacs' backup (`name~`): keep a copy in memory, leave the
                    // document where it is, since the editor writes it anew right after.
                    let content = Body::new(resource.read_now(&rest)?, self.files.spill())?;
                    self.files.scratch().insert(
                        to.to_string(),
                        ScratchFile {
                            content,
                            changed: SystemTime::now(),
                            pending: false,
                            backup_of: Some(from.to_string()),
                            ownership: resource.stat_now(&rest)?.ownership,
                        },
                    );
                    return Ok(());
                }
                let (target, target_rest) = self.place_in_resource(to)?;
                if !Arc::ptr_eq(&target, &resource) {
                    return Err(resource.moving_out(&rest).unwrap_or_else(|| {
                        Error::not_permitted(format!(
                            "{} and {} are in different resourcespaces; copy the content instead",
                            self.links.to(from.as_str()),
                            self.links.to(to.as_str())
                        ))
                    }));
                }
                // A refused move of a document is EPERM, never EINVAL: coreutils `mv` prints
                // EINVAL from rename(2) as "cannot move … to a subdirectory of itself",
                // hiding the reason (which `_errors.md` gives). A temp file renamed over a
                // document (sed -i, editors) keeps EINVAL above: that is a refused write,
                // and its tools say "Invalid argument" as for any other.
                resource
                    .rename(&rest, &target_rest)
                    .map_err(|e| match e.kind {
                        ErrorKind::Invalid => Error::not_permitted(e.message),
                        _ => e,
                    })
            }
            Route::Root | Route::Generated(..) | Route::Errors => Err(Error::read_only(format!(
                "{} is generated and cannot be moved",
                self.links.to(from.as_str())
            ))),
        }
    }
}

/// Folders whose views `rm -r` (or `find -delete`) unlinked in the last minute, with the
/// process that did: it unlinks a folder's entries in listing order, the views first, so
/// a module's members link that same process unlinks after them is part of emptying the
/// folder, not a request to remove the link alone. Another process's `rm` of the link
/// (after an `rm -r` the import check stopped half-way) is refused as ever.
#[derive(Default)]
pub(super) struct Emptying(Mutex<Vec<(TreePath, u32, Instant)>>);

/// How long after its views were unlinked a folder counts as being emptied.
const EMPTYING_FOR: Duration = Duration::from_secs(60);

impl Emptying {
    fn begun(&self, folder: TreePath, by: u32) {
        let mut folders = crate::tree::lock(&self.0);
        folders.retain(|(f, _, at)| *f != folder && at.elapsed() < EMPTYING_FOR);
        folders.push((folder, by, Instant::now()));
    }

    fn ended(&self, folder: &TreePath) {
        crate::tree::lock(&self.0).retain(|(f, _, _)| f != folder);
    }

    fn is(&self, folder: &TreePath, by: u32) -> bool {
        crate::tree::lock(&self.0)
            .iter()
            .any(|(f, p, at)| f == folder && *p == by && at.elapsed() < EMPTYING_FOR)
    }
}
