//! `chmod` and `chown`: applied where the file is exactly a file of the project (a module,
//! a package folder, package data: the resource changes the real file), kept for editors'
//! temp files in memory, and refused with a message everywhere else — never pretended.
//! Asking for the modes or owner a file already shows succeeds: `cp -p`, `tar x`, vim and
//! `sed -i` set them as a matter of course.

use crate::error::{Error, Result};
use crate::model::Ownership;
use crate::model::{Ino, TreePath};
use crate::tree::Space;
use crate::tree::access::Caller;
use crate::tree::resource::ModeChange;
use crate::tree::resource::ResourceExt;
use crate::tree::space::Attr;
use crate::tree::space::route::Route;

/// Permission bits `chmod` can set (with setuid, setgid and sticky).
const MODE_BITS: u32 = 0o7777;

impl Space {
    /// Change the permission bits (`mode`) and/or owner (`uid`, `gid`) of `ino` for `caller`.
    pub(super) fn set_perm(
        &self,
        ino: Ino,
        mode: Option<u32>,
        uid: Option<u32>,
        gid: Option<u32>,
        caller: Caller,
    ) -> Result<Attr> {
        let path = self.path_of(ino)?;
        let _change = self.admit(caller, "chmod", &path)?;
        let attr = self.attr_of(&path)?;
        let mode = mode.map(|m| m & MODE_BITS).filter(|&m| m != attr.perm.mode);
        let uid = uid.filter(|&u| u != attr.perm.uid);
        let gid = gid.filter(|&g| g != attr.perm.gid);
        if mode.is_none() && uid.is_none() && gid.is_none() {
            return Ok(attr);
        }
        let op = if mode.is_some() { "chmod" } else { "chown" };
        let changed = (|| match self.route(&path)? {
            Route::Scratch(key) => {
                let mut scratch = self.files.scratch();
                let file = scratch
                    .get_mut(&key)
                    .ok_or_else(|| Error::not_found(format!("{} is gone", self.links.to(&key))))?;
                file.ownership = Ownership::File {
                    uid: uid.unwrap_or(attr.perm.uid),
                    gid: gid.unwrap_or(attr.perm.gid),
                    mode: mode.unwrap_or(attr.perm.mode),
                };
                Ok(())
            }
            Route::In(resource, rest) => match resource.set_perm(&rest, mode, uid, gid)? {
                ModeChange::Done => Ok(()),
                ModeChange::NotKept => Err(self.fixed_modes(&path)),
            },
            Route::Root | Route::Generated(..) | Route::Errors => Err(self.fixed_modes(&path)),
        })();
        self.logged(op, &path, changed)?;
        self.changed_at(&path);
        self.attr_of(&path)
    }

    /// The refusal of a `chmod`/`chown` where modes are not kept: what they follow instead.
    fn fixed_modes(&self, path: &TreePath) -> Error {
        Error::not_permitted(format!(
            "the modes and owner of {} cannot be changed: it is not a file of the project. \
             Generated views, tasks and memory show the modes of the store file; symbol files \
             show their module's (chmod the module's .py file)",
            self.links.to(path.as_str())
        ))
    }
}
