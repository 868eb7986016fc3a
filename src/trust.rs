//! Whether a file on disk is the mount owner's alone to change, checked as ssh's
//! StrictModes checks a user's keys: the file and every folder above it must be owned by
//! the owner or root and writable by no one else. Only such files may say what the daemon
//! runs (the interpreter, the test options): anything another user could change would let
//! them run their program as the owner.
//!
//! One difference from ssh, which stops at the user's home: the walk goes to `/`, and a
//! world-writable folder with the sticky bit (`/tmp`) is accepted on the way, since there
//! others can add names but not replace or rename the owner's. That is why a symbolic
//! link on the way must be the owner's or root's too: in such a folder another user may
//! rename their own link, so one of theirs could lead somewhere else a moment after the
//! check (issue 42: a `.venv` link swapped by `renameat2(RENAME_EXCHANGE)`).

use std::fs;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

mod walk;

/// Why `path` is not the owner's alone, or `Ok` when it is: `path` (made absolute) and
/// each folder above it exist, are owned by the owner or root, and are writable by no
/// one else. A symlink on the way, or in a symlink's target, is followed and must be the
/// owner's or root's; what it leads to is checked the same way.
pub(crate) fn owner_alone(path: &Path) -> Result<(), String> {
    owner_alone_as(path, owner())
}

/// The user the daemon acts as: whose programs it may run.
fn owner() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

/// [`owner_alone`] for the user `owner`.
pub(crate) fn owner_alone_as(path: &Path, owner: u32) -> Result<(), String> {
    real_alone_as(path, owner).map(|_| ())
}

/// Where `path` leads with no link left in it, when it is the owner's alone (as
/// [`owner_alone`] checks): what may then be run in its place, by a path no link of
/// anyone's can lead elsewhere.
pub(crate) fn real_alone(path: &Path) -> Result<PathBuf, String> {
    real_alone_as(path, owner())
}

fn real_alone_as(path: &Path, owner: u32) -> Result<PathBuf, String> {
    // Each link is checked as it is met, in the path or in any link's target: resolving
    // the whole path first and checking where it ends would miss a link on the way.
    walk::resolve(&absolute(path)?, owner)
}

/// Why the file or folder `at` (not a link; `meta` its metadata) is not the owner's alone:
/// owned by someone else, writable by others, or not a file or folder at all. A sticky
/// folder others may write is accepted when `passed_through` (others may add names there,
/// but not replace or rename the owner's), never as the file itself.
fn check_entry(
    at: &Path,
    meta: &fs::Metadata,
    owner: u32,
    passed_through: bool,
) -> Result<(), String> {
    let kind = meta.file_type();
    if kind.is_fifo() || kind.is_socket() || kind.is_block_device() || kind.is_char_device() {
        return Err(format!("{} is not a regular file", at.display()));
    }
    if meta.uid() != owner && meta.uid() != 0 {
        return Err(format!(
            "{} is owned by {}, not by {} (the mount's owner) or root",
            at.display(),
            user(meta.uid()),
            user(owner)
        ));
    }
    let mode = meta.mode() & 0o7777;
    let sticky_folder = kind.is_dir() && mode & 0o1000 != 0 && passed_through;
    if mode & 0o022 != 0 && !sticky_folder {
        let who = if mode & 0o002 != 0 {
            "everyone".to_string()
        } else {
            format!("group {}", meta.gid())
        };
        return Err(format!(
            "{} is writable by {who} (mode {:o}); `chmod go-w {}` makes it the owner's alone",
            at.display(),
            mode,
            at.display()
        ));
    }
    Ok(())
}

/// `uid 1001 (alice)`: a user as a message names them, by number and by name when the
/// system knows one.
pub(crate) fn user(uid: u32) -> String {
    match user_name(uid) {
        Some(name) => format!("uid {uid} ({name})"),
        None => format!("uid {uid}"),
    }
}

fn user_name(uid: u32) -> Option<String> {
    let mut buffer = vec![0 as libc::c_char; 4096];
    // SAFETY: an all-zero passwd is a valid value (null pointers, zero ids) to be filled.
    let mut entry: libc::passwd = unsafe { std::mem::zeroed() };
    let mut found: *mut libc::passwd = std::ptr::null_mut();
    // SAFETY: every pointer is to a live local of the size given; getpwuid_r writes the
    // strings into `buffer` and points `entry`'s fields into it, and `found` at `entry`.
    let failed = unsafe {
        libc::getpwuid_r(
            uid,
            &mut entry,
            buffer.as_mut_ptr(),
            buffer.len(),
            &mut found,
        )
    };
    if failed != 0 || found.is_null() || entry.pw_name.is_null() {
        return None;
    }
    // SAFETY: pw_name points into `buffer`, NUL-terminated by getpwuid_r, and `buffer`
    // outlives this borrow.
    let name = unsafe { std::ffi::CStr::from_ptr(entry.pw_name) };
    Some(name.to_string_lossy().into_owned())
}

/// Makes `dir` (and any missing folder above it) readable and writable by the owner alone
/// (0700), unless it exists: what a mount keeps for itself — its store, log, settings and
/// editors' temp files — is private by default. A new folder gets a
/// `.gitignore` of `*` when `ignored`, as virtualenvs do, so it never shows in `git status`.
/// Returns whether it was made.
pub(crate) fn private_dir(dir: &Path, ignored: bool) -> std::io::Result<bool> {
    use std::os::unix::fs::DirBuilderExt;
    if dir.is_dir() {
        return Ok(false);
    }
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)?;
    if ignored {
        fs::write(dir.join(".gitignore"), "*\n")?;
    }
    Ok(true)
}

fn absolute(path: &Path) -> Result<PathBuf, String> {
    if path.is_absolute() {
        return Ok(path.to_path_buf());
    }
    std::env::current_dir()
        .map(|dir| dir.join(path))
        .map_err(|e| {
            format!(
                "{} is relative and the current folder is unknown: {e}",
                path.display()
            )
        })
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    fn chmod(path: &Path, mode: u32) {
        fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
    }

    /// A folder of the owner's with a file in it, inside a fresh temp dir (0700).
    fn place() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("conf/settings.toml");
        fs::create_dir(dir.path().join("conf")).unwrap();
        fs::write(&file, "x").unwrap();
        chmod(&dir.path().join("conf"), 0o755);
        chmod(&file, 0o644);
        (dir, file)
    }

    #[test]
    fn the_owners_own_file_passes() {
        let (_dir, file) = place();
        assert_eq!(owner_alone(&file), Ok(()));
    }

    #[test]
    fn a_file_or_folder_others_may_write_is_refused_and_named() {
        let (_dir, file) = place();
        chmod(&file, 0o664);
        let why = owner_alone(&file).unwrap_err();
        assert!(why.contains("settings.toml is writable by group"), "{why}");
        chmod(&file, 0o644);
        chmod(file.parent().unwrap(), 0o757);
        let why = owner_alone(&file).unwrap_err();
        assert!(why.contains("conf is writable by everyone"), "{why}");
        assert!(why.contains("chmod go-w"), "{why}");
    }

    #[test]
    fn a_sticky_world_writable_folder_above_is_accepted_but_not_as_the_file_itself() {
        let (_dir, file) = place();
        chmod(file.parent().unwrap(), 0o1777);
        assert_eq!(owner_alone(&file), Ok(()));
        // The sticky bit means nothing on the file: writable by everyone is refused.
        chmod(&file, 0o1666);
        let why = owner_alone(&file).unwrap_err();
        assert!(
            why.contains("settings.toml is writable by everyone"),
            "{why}"
        );
        // Nor is the folder itself, named as the path, excused by its sticky bit.
        let why = owner_alone(file.parent().unwrap()).unwrap_err();
        assert!(why.contains("conf is writable by everyone"), "{why}");
    }

    #[test]
    fn a_file_of_another_user_is_refused() {
        let (_dir, file) = place();
        let me = owner();
        if me == 0 {
            // Root owns everything it makes: give the file away, as another user's would be.
            std::os::unix::fs::chown(&file, Some(4242), None).unwrap();
            let why = owner_alone(&file).unwrap_err();
            assert!(why.contains("owned by uid 4242"), "{why}");
        } else {
            let why = owner_alone_as(&file, me + 1).unwrap_err();
            assert!(why.contains(&format!("owned by uid {me}")), "{why}");
        }
    }

    #[test]
    fn a_symlink_is_followed_and_its_target_checked() {
        let (dir, file) = place();
        let open = dir.path().join("open");
        fs::create_dir(&open).unwrap();
        let target = open.join("python");
        fs::write(&target, "#!/bin/sh\n").unwrap();
        let link = dir.path().join("conf/python");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        assert_eq!(owner_alone(&link), Ok(()));
        chmod(&open, 0o777);
        let why = owner_alone(&link).unwrap_err();
        assert!(why.contains("open is writable by everyone"), "{why}");
        drop(file);
    }

    #[test]
    fn a_link_of_another_user_is_refused_even_where_it_leads_is_fine() {
        let (dir, file) = place();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(file.parent().unwrap(), &link).unwrap();
        let through = link.join("settings.toml");
        assert_eq!(owner_alone(&through), Ok(()));
        if owner() != 0 {
            eprintln!("only root can give a link away: not checked as another user");
            return;
        }
        std::os::unix::fs::lchown(&link, Some(4242), None).unwrap();
        let why = owner_alone(&through).unwrap_err();
        assert!(
            why.contains("link is a symbolic link owned by uid"),
            "{why}"
        );
        assert!(why.contains("point it elsewhere"), "{why}");
    }

    #[test]
    fn a_user_is_named_by_number_and_name() {
        assert_eq!(user(0), "uid 0 (root)");
        assert_eq!(user(4_000_000_000), "uid 4000000000");
    }

    #[test]
    fn a_private_dir_is_the_owners_alone_and_ignored_by_git() {
        let (dir, _) = place();
        let made = dir.path().join("a/.homespace");
        assert!(private_dir(&made, true).unwrap());
        for folder in [&made, &dir.path().join("a")] {
            let mode = fs::metadata(folder).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o700, "{}", folder.display());
        }
        assert_eq!(fs::read_to_string(made.join(".gitignore")).unwrap(), "*\n");
        assert!(!private_dir(&made, true).unwrap(), "made once");
    }

    #[test]
    fn a_missing_file_says_so() {
        let (dir, _) = place();
        let why = owner_alone(&dir.path().join("nothing")).unwrap_err();
        assert!(why.contains("cannot be examined"), "{why}");
    }
}
