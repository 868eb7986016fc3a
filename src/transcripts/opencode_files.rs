//! How OpenCode's stores are opened: every folder from the followed one down opened one by
//! one, never through a link, and every piece (each message and part, the database and
//! its log) opened as [`Folder::file`] opens a file, the owner's own when an owner is
//! given ([`Owner::check`]). SQLite opens the database by name (it opens its log beside
//! it by name too), so the database is read only where no one but the owner can put
//! another file under those names.

use std::io::Read;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::{DATABASE, MAX_PIECE};
use crate::transcripts::reading::ReadError;
use crate::transcripts::trusted::Owner;
use crate::transcripts::trusted::folder::Folder;

/// The folder `at`, opened below `root` when it lies there (else by its name). With
/// `renamers`, each folder below `root` must be one whose names only the owner (or root)
/// can change: owned by them, and writable by no one else unless sticky.
pub(super) fn open_folder(
    root: Option<&Path>,
    at: &Path,
    renamers: Option<&Owner>,
) -> Result<Folder, ReadError> {
    let refuse = |why: String| ReadError::whole_file(format!("{}: {why}", at.display()));
    let (start, rel) = match root.and_then(|root| Some((root, at.strip_prefix(root).ok()?))) {
        Some((root, rel)) => (root, rel),
        None => (at, Path::new("")),
    };
    let gone = || refuse("the folder is gone".to_string());
    let mut folder = Folder::root(start).map_err(refuse)?.ok_or_else(gone)?;
    for part in rel.components() {
        folder = folder
            .dir(part.as_os_str())
            .map_err(refuse)?
            .ok_or_else(gone)?;
        if let Some(owner) = renamers {
            let meta = folder.meta().map_err(refuse)?;
            let sticky = meta.mode() & 0o1000 != 0;
            let owners = meta.uid() == owner.uid || meta.uid() == 0;
            if !owners || (others_write(&meta, owner) && !sticky) {
                return Err(refuse(format!(
                    "the folder {} may be renamed by others (owned by uid {}, mode {:o}): \
                     the database is read only where no one else can put another file in \
                     its place",
                    part.as_os_str().to_string_lossy(),
                    meta.uid(),
                    meta.mode() & 0o7777
                )));
            }
        }
    }
    Ok(folder)
}

/// Whether users other than `owner` may write in what `meta` describes (a group that is
/// the owner's own primary group holds the owner alone, as [`Owner::check`] takes it).
fn others_write(meta: &std::fs::Metadata, owner: &Owner) -> bool {
    let mode = meta.mode();
    mode & 0o002 != 0 || (mode & 0o020 != 0 && meta.gid() != owner.gid)
}

/// The folder `rel` of the storage, opened from the storage down, never through a link;
/// `None` when it does not exist.
fn sub_folder(storage: &Folder, rel: &Path) -> Result<Option<Folder>, String> {
    let mut folder: Option<Folder> = None;
    for part in rel.components() {
        let above = folder.as_ref().unwrap_or(storage);
        match above.dir(part.as_os_str())? {
            Some(next) => folder = Some(next),
            None => return Ok(None),
        }
    }
    match folder {
        Some(folder) => Ok(Some(folder)),
        // The storage itself.
        None => storage.try_clone().map(Some),
    }
}

/// The `*.json` files in the folder `rel` of the storage, by name (OpenCode's ids sort by
/// time), relative to the storage; none when it does not exist (a session without messages
/// yet).
pub(super) fn json_files(storage: &Folder, rel: &Path, problems: &mut Vec<String>) -> Vec<PathBuf> {
    let names = match sub_folder(storage, rel).and_then(|f| f.map(|f| f.names()).transpose()) {
        Ok(Some(names)) => names,
        Ok(None) => return Vec::new(),
        Err(why) => {
            problems.push(format!("{}: {why}", rel.display()));
            return Vec::new();
        }
    };
    let mut files: Vec<PathBuf> = names
        .into_iter()
        .map(|name| rel.join(name))
        .filter(|path| path.extension().and_then(|e| e.to_str()) == Some("json"))
        .collect();
    files.sort();
    files
}

/// The JSON object in the file `rel` of the storage, its folders opened from the storage
/// down and the file as [`Folder::file`] opens it (the owner's own, given one), or why not.
///
/// The outer error: the file is set aside unread (a link, another user's, gone); the
/// inner: what was read is no JSON object.
pub(super) fn piece(
    storage: &Folder,
    rel: &Path,
    owner: Option<&Owner>,
) -> Result<Result<Map<String, Value>, String>, String> {
    let name = rel.file_name().ok_or("no file name")?;
    let parent = rel.parent().unwrap_or(Path::new(""));
    let folder = sub_folder(storage, parent)?.ok_or("its folder is gone")?;
    let (file, meta) = folder.file(name, owner)?.ok_or("the file is gone")?;
    Ok(json_of(file, &meta))
}

/// The JSON object in the open regular `file`, or why not.
pub(super) fn json_of(
    file: std::fs::File,
    meta: &std::fs::Metadata,
) -> Result<Map<String, Value>, String> {
    if meta.len() > MAX_PIECE {
        return Err("larger than 64 MiB: no message nor part is".to_string());
    }
    let mut bytes = Vec::new();
    file.take(MAX_PIECE + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read the file: {e}"))?;
    match serde_json::from_slice(&bytes) {
        Ok(Value::Object(o)) => Ok(o),
        Ok(_) => Err("not a JSON object".to_string()),
        Err(e) => Err(format!("invalid JSON: {e}")),
    }
}

/// Whether SQLite may open the database at `path` by its name (it opens its log and
/// shared memory beside it by name too): the database, and its log and shared memory if
/// there, are regular files, never links, devices or fifos (a fifo would hang the read);
/// given an owner, they are the owner's own, their folder is the owner's and no one else
/// may write in it (else another user could put a log there between this look and
/// SQLite's open), and no folder from `root` to it can be renamed by another user.
pub(super) fn trusted_database(
    root: Option<&Path>,
    path: &Path,
    owner: Option<&Owner>,
) -> Result<(), ReadError> {
    let refuse = |why: String| ReadError::whole_file(format!("the OpenCode database: {why}"));
    let folder_path = path.parent().unwrap_or(Path::new("/"));
    let folder = open_folder(root, folder_path, owner)?;
    if let Some(owner) = owner {
        let meta = folder.meta().map_err(refuse)?;
        if meta.uid() != owner.uid || others_write(&meta, owner) {
            return Err(refuse(format!(
                "its folder {} is owned by uid {} with mode {:o}: the database is read only \
                 in a folder of the owner's (uid {}) that no one else may write (`chmod go-w`)",
                folder_path.display(),
                meta.uid(),
                meta.mode() & 0o7777,
                owner.uid
            )));
        }
    }
    for suffix in ["", "-wal", "-shm"] {
        let name = format!("{DATABASE}{suffix}");
        match folder.file(std::ffi::OsStr::new(&name), owner) {
            Ok(Some(_)) => {}
            Ok(None) if !suffix.is_empty() => {}
            Ok(None) => return Err(refuse("it is gone".to_string())),
            Err(why) => return Err(refuse(format!("{name}: {why}"))),
        }
    }
    Ok(())
}
