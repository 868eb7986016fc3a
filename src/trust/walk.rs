//! A path resolved as the kernel resolves it — one component, and one link, at a time —
//! with every folder passed and every link met checked on the way ([`super`]'s rules).
//!
//! `fs::canonicalize` says only where a path ends up: a link met while following another
//! link's target (`.venv/bin/python` → `/opt/shared/py311/bin/python3`, `py311` another
//! user's link in a sticky folder) is then never seen, and each later run goes through it
//! again, however its owner has repointed it meanwhile (issue 42). Walking the links one by
//! one sees every one of them, in the path or in any link's target, however deep.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Component, Path, PathBuf};

use super::{check_entry, user};

/// As the kernel's `MAXSYMLINKS`: more links than this on one path is a loop.
const MAX_LINKS: usize = 40;

/// Where the absolute `path` leads, with no link left in it, or why it may not be trusted:
/// `/`, each folder passed and the file reached are owned by `owner` or root and writable
/// by no one else (a sticky folder passed through excepted), and each link met is
/// `owner`'s or root's.
pub(super) fn resolve(path: &Path, owner: u32) -> Result<PathBuf, String> {
    let mut rest: VecDeque<OsString> = names(path);
    let mut real = PathBuf::from("/");
    let mut links = 0;
    // A folder or file refused does not stop the walk: the deepest one refused is named,
    // as ssh's StrictModes does — above all the file itself, when it is another user's.
    let mut refused = None;
    let root = fs::symlink_metadata(&real)
        .map_err(|e| format!("{} cannot be examined: {e}", real.display()))?;
    if let Err(why) = check_entry(&real, &root, owner, !rest.is_empty()) {
        refused = Some(why);
    }
    while let Some(name) = rest.pop_front() {
        if name == ".." {
            // `real` has no link in it, so its parent is the one the kernel goes to.
            real.pop();
            continue;
        }
        let at = real.join(&name);
        let meta = match fs::symlink_metadata(&at) {
            Ok(meta) => meta,
            Err(e) => {
                return Err(refused.unwrap_or(format!("{} cannot be examined: {e}", at.display())));
            }
        };
        if !meta.file_type().is_symlink() {
            if let Err(why) = check_entry(&at, &meta, owner, !rest.is_empty()) {
                refused = Some(why);
            }
            real = at;
            continue;
        }
        // Links always show mode 0777, but their owner may rename or replace them, even
        // in a sticky folder: only the owner's or root's stay where they point.
        if meta.uid() != owner && meta.uid() != 0 {
            return Err(format!(
                "{} is a symbolic link owned by {}, not by {} (the mount's owner) or root: \
                 they may point it elsewhere between the check and the run",
                at.display(),
                user(meta.uid()),
                user(owner)
            ));
        }
        links += 1;
        if links > MAX_LINKS {
            return Err(format!(
                "{} leads through more than {MAX_LINKS} symbolic links (a loop?)",
                path.display()
            ));
        }
        let target = fs::read_link(&at)
            .map_err(|e| format!("{} cannot be read as a link: {e}", at.display()))?;
        if target.is_absolute() {
            real = PathBuf::from("/");
        }
        // The target's own names come next, before what followed the link.
        for name in names(&target).into_iter().rev() {
            rest.push_front(name);
        }
    }
    match refused {
        Some(why) => Err(why),
        None => Ok(real),
    }
}

/// The names of `path` to walk, in order: `/` and `.` dropped, `..` kept.
fn names(path: &Path) -> VecDeque<OsString> {
    path.components()
        .filter_map(|part| match part {
            Component::Normal(name) => Some(name.to_os_string()),
            Component::ParentDir => Some(OsString::from("..")),
            Component::RootDir | Component::CurDir | Component::Prefix(_) => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::{PermissionsExt, symlink};

    use super::*;

    fn chmod(path: &Path, mode: u32) {
        fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
    }

    fn me() -> u32 {
        // SAFETY: geteuid has no preconditions and cannot fail.
        unsafe { libc::geteuid() }
    }

    /// `<tmp>/inst/bin/python3` (a file), `<tmp>/shared` (sticky, world-writable) holding
    /// the link `py311` → `<tmp>/inst`, and `<tmp>/venv/bin/python` → `<tmp>/shared/py311/bin/python3`.
    fn chain() -> (tempfile::TempDir, PathBuf, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let base = fs::canonicalize(dir.path()).unwrap();
        fs::create_dir_all(base.join("inst/bin")).unwrap();
        fs::write(base.join("inst/bin/python3"), "").unwrap();
        fs::create_dir(base.join("shared")).unwrap();
        chmod(&base.join("shared"), 0o1777);
        symlink(base.join("inst"), base.join("shared/py311")).unwrap();
        fs::create_dir_all(base.join("venv/bin")).unwrap();
        symlink(
            base.join("shared/py311/bin/python3"),
            base.join("venv/bin/python"),
        )
        .unwrap();
        (dir, base.clone(), base.join("venv/bin/python"))
    }

    #[test]
    fn every_link_is_followed_to_the_real_path() {
        let (_dir, base, python) = chain();
        assert_eq!(resolve(&python, me()), Ok(base.join("inst/bin/python3")));
        // Relative targets and `..` after a link go where the kernel goes.
        symlink("../inst/bin/../bin/python3", base.join("venv/rel")).unwrap();
        assert_eq!(
            resolve(&base.join("venv/rel"), me()),
            Ok(base.join("inst/bin/python3"))
        );
    }

    #[test]
    fn a_link_of_another_user_inside_a_links_target_is_refused() {
        if me() != 0 {
            eprintln!("only root can give a link away: not checked as another user");
            return;
        }
        let (_dir, base, python) = chain();
        std::os::unix::fs::lchown(base.join("shared/py311"), Some(4242), None).unwrap();
        let why = resolve(&python, 0).unwrap_err();
        assert!(
            why.contains("shared/py311 is a symbolic link owned by uid 4242"),
            "{why}"
        );
    }

    #[test]
    fn a_folder_others_may_write_inside_a_links_target_is_refused() {
        let (_dir, base, python) = chain();
        chmod(&base.join("inst/bin"), 0o777);
        let why = resolve(&python, me()).unwrap_err();
        assert!(why.contains("inst/bin is writable by everyone"), "{why}");
    }

    #[test]
    fn the_deepest_of_several_refused_is_named() {
        let (_dir, base, python) = chain();
        chmod(&base.join("inst"), 0o777);
        chmod(&base.join("inst/bin/python3"), 0o666);
        let why = resolve(&python, me()).unwrap_err();
        assert!(why.contains("python3 is writable by everyone"), "{why}");
    }

    #[test]
    fn a_loop_of_links_is_refused() {
        let (_dir, base, _) = chain();
        symlink(base.join("b"), base.join("a")).unwrap();
        symlink(base.join("a"), base.join("b")).unwrap();
        let why = resolve(&base.join("a"), me()).unwrap_err();
        assert!(why.contains("more than 40 symbolic links"), "{why}");
    }
}
