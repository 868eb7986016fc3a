//! Who may do what through the mount. The mount's owner (the user the daemon runs as) may
//! read and change everything its modes allow. Other users reach the mount only when it
//! was started with `--allow-other`; the kernel then checks the modes `stat` shows (the
//! project files' own owner and modes, the store's for tasks and memory), and this module
//! refuses every change they make unless the owner also gave `--allow-other-write`.
//!
//! Running the project's code (the import check after an edit) is the one thing that acts
//! *as the owner*: it is allowed only while a change the owner made is being carried out,
//! on the thread carrying it out ([`may_run_project_code`]). The permission is held in a
//! thread-local on purpose: it cannot be forgotten on a new code path, because its absence
//! means "no" — a path that never admits a change simply never runs code.

use std::cell::Cell;

use crate::error::{Error, ErrorKind, Result};

/// The user behind one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Caller {
    pub uid: u32,
    pub gid: u32,
    /// The calling process (0 when unknown).
    pub pid: u32,
}

impl Caller {
    /// This process's own user: in-process callers (`render`, tests) act as the owner.
    pub fn this_process() -> Caller {
        // SAFETY: getuid and getgid have no preconditions and cannot fail.
        let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
        Caller { uid, gid, pid: 0 }
    }
}

pub use crate::model::Perm;

impl Perm {
    /// The permission bits of a directory holding what `self` describes: every class that
    /// may read may also enter (a module's members directory from the module file's modes).
    pub fn as_dir(self) -> Perm {
        let readable = self.mode & 0o444;
        Perm {
            mode: self.mode | (readable >> 2),
            ..self
        }
    }

    /// The same without write bits (views, read-only documents).
    pub fn read_only(self) -> Perm {
        Perm {
            mode: self.mode & !0o222,
            ..self
        }
    }

    /// The same without execute bits (a file generated inside a directory).
    pub fn as_file(self) -> Perm {
        Perm {
            mode: self.mode & !0o111,
            ..self
        }
    }

    /// A folder's right to pass through it, as the right to read: a text quoted from a
    /// file below it reaches only those who may read the file and pass every folder above.
    pub fn passing_as_reading(self) -> Perm {
        Perm {
            mode: (self.mode & 0o111) << 2,
            ..self
        }
    }

    /// Whether everyone who may read a file of modes `view` may also read one of these
    /// modes: whether a view may quote such a file. Each class `view` lets read must be
    /// let read here as a class it surely falls in (the same owner, the same group, or
    /// everyone), since whether one user is in another's group is not known here.
    pub fn readable_by_readers_of(self, view: Perm) -> bool {
        let f = self.mode;
        let everyone = f & 0o004 != 0;
        let group = everyone || (f & 0o040 != 0 && self.gid == view.gid);
        let owner = group || (f & 0o400 != 0 && self.uid == view.uid);
        (view.mode & 0o004 == 0 || everyone)
            && (view.mode & 0o040 == 0 || group)
            && (view.mode & 0o400 == 0 || owner)
    }

    /// Whether `caller` may pass through a folder of these modes, as the kernel decides
    /// from the owner's, the group's or everyone's bits. Only the caller's own group is
    /// known here (not the groups it is also a member of): a group member by a further
    /// group is judged as everyone, never let further than the kernel would let it.
    pub fn lets_pass(self, caller: Caller) -> bool {
        let bit = if caller.uid == self.uid {
            0o100
        } else if caller.gid == self.gid {
            0o010
        } else {
            0o001
        };
        caller.uid == 0 || self.mode & bit != 0
    }
}

/// What the mount lets users other than its owner do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Access {
    /// The mount's owner: the user the daemon runs as.
    pub owner: u32,
    /// The owner's group (shown for the mount's own data).
    pub group: u32,
    /// `--allow-other`: other users reach the mount, reading what the modes `stat` shows
    /// let them; so a view they may read never quotes what those modes hide from them.
    /// Without it the kernel lets no one but the owner in.
    pub others_read: bool,
    /// `--allow-other-write`: others may change what the modes let them change (and their
    /// changes never run the project's code).
    pub others_write: bool,
    /// `--read-only`: nobody changes anything (the kernel refuses first; this says why
    /// where a change reaches the core anyway).
    pub read_only: bool,
}

impl Access {
    /// The owner is this process's user; others change nothing.
    pub fn this_process() -> Access {
        let me = Caller::this_process();
        Access {
            owner: me.uid,
            group: me.gid,
            others_read: false,
            others_write: false,
            read_only: false,
        }
    }

    /// Whether `caller` may change the tree; the admission carries whether the change is
    /// the owner's (only then may it run the project's code).
    pub fn admit(&self, caller: Caller, what: &str) -> Result<Admission> {
        if self.read_only {
            return Err(Error::read_only(format!(
                "{what} was not changed: this mount is read-only (mounted with --read-only); \
                 mount the project again without it to make changes"
            )));
        }
        let by_owner = caller.uid == self.owner;
        if !by_owner && !self.others_write {
            return Err(Error::new(
                ErrorKind::PermissionDenied,
                format!(
                    "{what} was not changed: only the mount's owner (uid {}) may change files \
                     here; you are uid {}. The owner can allow it by mounting with \
                     --allow-other-write",
                    self.owner, caller.uid
                ),
            ));
        }
        Ok(Admission::enter(by_owner))
    }
}

thread_local! {
    static OWNER_CHANGE: Cell<bool> = const { Cell::new(false) };
}

/// A change being carried out on this thread; while the owner's, the project's code may
/// run for it. Dropping it restores what was before (admissions nest).
#[derive(Debug)]
pub struct Admission {
    before: bool,
}

impl Admission {
    /// Carry out a change made by the owner (`true`) or by another user (`false`).
    pub fn enter(by_owner: bool) -> Admission {
        let before = OWNER_CHANGE.with(|c| c.replace(by_owner));
        Admission { before }
    }
}

impl Drop for Admission {
    fn drop(&mut self) {
        OWNER_CHANGE.with(|c| c.set(self.before));
    }
}

/// Whether the change being carried out on this thread is the mount owner's: only then
/// may it run the project's code (the import check) or change what runs it (settings).
pub fn may_run_project_code() -> bool {
    OWNER_CHANGE.with(Cell::get)
}

#[cfg(test)]
mod tests {
    use super::*;

    const OWNER: Caller = Caller {
        uid: 1000,
        gid: 1000,
        pid: 1,
    };
    const OTHER: Caller = Caller {
        uid: 65534,
        gid: 65534,
        pid: 2,
    };

    fn access(others_write: bool) -> Access {
        Access {
            owner: 1000,
            group: 1000,
            others_read: true,
            others_write,
            read_only: false,
        }
    }

    #[test]
    fn a_read_only_mount_refuses_every_change_and_says_why() {
        let read_only = Access {
            read_only: true,
            ..access(true)
        };
        let error = read_only.admit(OWNER, "x.py").unwrap_err();
        assert_eq!(error.errno(), libc::EROFS);
        assert!(error.message.contains("--read-only"), "{error}");
    }

    #[test]
    fn others_change_nothing_unless_allowed_and_never_run_code() {
        let error = access(false).admit(OTHER, "x.py").unwrap_err();
        assert_eq!(error.errno(), libc::EACCES);
        assert!(error.message.contains("--allow-other-write"), "{error}");
        assert!(!may_run_project_code());
        {
            let _change = access(true).admit(OTHER, "x.py").unwrap();
            assert!(
                !may_run_project_code(),
                "another user's change runs no code"
            );
        }
        {
            let _change = access(false).admit(OWNER, "x.py").unwrap();
            assert!(may_run_project_code());
            {
                let _nested = Admission::enter(false);
                assert!(!may_run_project_code());
            }
            assert!(may_run_project_code(), "admissions nest");
        }
        assert!(!may_run_project_code(), "outside a change nothing runs");
    }

    #[test]
    fn directories_are_enterable_where_readable() {
        let file = Perm {
            uid: 0,
            gid: 0,
            mode: 0o640,
        };
        assert_eq!(file.as_dir().mode, 0o750);
        assert_eq!(file.as_dir().read_only().mode, 0o550);
        assert_eq!(file.as_dir().as_file().mode, 0o640);
    }

    fn perm(uid: u32, gid: u32, mode: u32) -> Perm {
        Perm { uid, gid, mode }
    }

    #[test]
    fn a_view_quotes_only_what_all_its_readers_may_read() {
        let view = perm(1000, 1000, 0o444);
        assert!(perm(1000, 1000, 0o644).readable_by_readers_of(view));
        assert!(!perm(1000, 1000, 0o600).readable_by_readers_of(view));
        assert!(!perm(1000, 1000, 0o640).readable_by_readers_of(view));
        // The owner's alone: the owner's files, never another user's private one.
        let private = perm(1000, 1000, 0o400);
        assert!(perm(1000, 1000, 0o600).readable_by_readers_of(private));
        assert!(!perm(0, 0, 0o600).readable_by_readers_of(private));
        // A group's: its files readable by the group, not those of another group.
        let group = perm(1000, 50, 0o440);
        assert!(perm(1000, 50, 0o640).readable_by_readers_of(group));
        assert!(!perm(1000, 51, 0o640).readable_by_readers_of(group));
    }

    #[test]
    fn a_folder_passes_whom_its_execute_bits_let_through() {
        let folder = perm(1000, 1000, 0o700);
        assert!(folder.lets_pass(OWNER));
        assert!(!folder.lets_pass(OTHER));
        assert!(perm(1000, 1000, 0o711).lets_pass(OTHER));
        let root = Caller {
            uid: 0,
            gid: 0,
            pid: 3,
        };
        assert!(
            perm(1000, 1000, 0o000).lets_pass(root),
            "root passes anywhere"
        );
        let grouped = Caller { gid: 1000, ..OTHER };
        assert!(perm(1000, 1000, 0o750).lets_pass(grouped));
        assert!(
            !perm(1000, 1000, 0o705).lets_pass(grouped),
            "the group's bits, not everyone's"
        );
        // Passing a folder, as reading: only those it lets through read below it.
        assert_eq!(perm(1000, 1000, 0o711).passing_as_reading().mode, 0o444);
        assert!(
            !folder
                .passing_as_reading()
                .readable_by_readers_of(perm(1000, 1000, 0o444))
        );
    }
}
