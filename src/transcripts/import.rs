//! Importing transcript files into the store: walk the given paths, read each file, store
//! it.
//!
//! Guarantees: a file is stored whole or not at all (each in a savepoint of its own); a
//! refused file changes nothing and is listed with its bad lines, and the others are still
//! imported; importing the same files again adds nothing (the readers' keys are stable and
//! the store skips keys it holds). A path that does not exist stops everything before any
//! file is read. Inside a directory only `*.jsonl`, `*.json`, `.aider.chat.history.md` and
//! `opencode.db` files are taken (recursively, in name order, hidden ones too, following
//! symbolic links that stay inside it; a file reached twice is read once), and those whose
//! content is no transcript format at all (another JSON file) are passed over and listed;
//! a file named on its own is always read. OpenCode is read by session, not by file
//! ([`super::opencode`]): its database whole, a session file of its JSON storage with its
//! messages and parts, whose folders a walk passes over.
//!
//! Hostile paths: only regular files are read (a device such as `/dev/zero`, a fifo or a
//! socket is refused without being opened; a fifo swapped in before the open does not
//! block it, and the open file is checked again); a file found in a directory is read only
//! if it is the importing user's own and no one else may write it, as live import reads
//! transcripts ([`super::follow::trusted`]); a link in a directory that leads out of it (`up -> ..`, or to a file elsewhere) is
//! not followed and is listed — an import never reads outside the folders it was given,
//! whoever may write them; a line longer than [`MAX_LINE`] refuses its file.

use std::collections::HashSet;
use std::fs::{File, Metadata};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Instant;

use crate::error::{Error, ErrorKind, Result};
use crate::store::Store;
use crate::store::memory::Loader;

use super::follow::trusted::Owner;
use super::{ReadError, Reading, aider, format_of, opencode, read_counted};

/// What [`import_paths`] reports as it goes, for a progress display.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Progress {
    /// The paths were walked: `files` files will be read.
    Found { files: usize },
    /// File `index` (from 1) of the `files` found is being read and stored.
    Reading { index: usize, path: PathBuf },
    /// File `index` is done (imported, refused or passed over).
    Done { index: usize, path: PathBuf },
}

/// What an import did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Summary {
    /// Files read and stored (including files that added nothing new).
    pub files: usize,
    /// Sessions created.
    pub sessions: usize,
    /// Entries added.
    pub entries: usize,
    /// Entries not added because the store already held them.
    pub skipped: usize,
    /// Records the readers passed over (kinds a format does not use, repeats, no text).
    pub ignored: usize,
    /// Files refused, with why; nothing of them was stored.
    pub bad_files: Vec<(PathBuf, ReadError)>,
    /// Files found in a directory whose content is not a transcript; not read.
    pub not_transcripts: Vec<PathBuf>,
    /// Links found in a directory that lead back to a directory above them, with that
    /// directory: not followed.
    pub loops: Vec<(PathBuf, PathBuf)>,
    /// Links found in a directory that lead out of it, with where they lead: not followed.
    pub outside: Vec<(PathBuf, PathBuf)>,
    pub seconds: f64,
}

/// One file to import, and whether it was named on its own (then it is read whatever it
/// holds) or found in a directory.
struct Found {
    path: PathBuf,
    named: bool,
}

/// Entries stored per transaction: files are committed together, each in a savepoint of its
/// own, so that a directory of many small files does not commit (and rewrite the pages of
/// the keys' index, which random keys spread everywhere) once per file. A killed import
/// loses at most the batch it was in, never part of a file.
const BATCH_ENTRIES: usize = 50_000;

/// An import adding at least 1/`COMPACT_SHARE` of the store's entries merges the full-text
/// index afterwards.
const COMPACT_SHARE: usize = 10;

/// The longest line a transcript may hold: a turn with a large tool result is a few MiB;
/// past this a "line" is no turn of a conversation (a device, a dump).
pub const MAX_LINE: usize = 64 << 20;

/// Files read ahead of the one being stored. Reading (parsing JSON, making keys) is a
/// sixth of an import's work and needs no store, so a second thread does it while this one
/// stores; a few files are enough to keep it busy, and few enough to bound the memory.
const READ_AHEAD: usize = 4;

/// Imports every transcript file at `paths` into `store`; see the module's guarantees.
/// Fails (having imported the files before it) only when a path does not exist or the
/// store fails for a reason other than refusing a file's content.
pub fn import_paths(
    store: &Store,
    paths: &[PathBuf],
    progress: &mut dyn FnMut(Progress),
) -> Result<Summary> {
    let started = Instant::now();
    let mut summary = Summary::default();
    let found = walk(paths, &mut summary)?;
    progress(Progress::Found { files: found.len() });
    std::thread::scope(|scope| {
        let (sender, reads) = mpsc::sync_channel(READ_AHEAD);
        let files = &found;
        let owner = Owner::this_process();
        scope.spawn(move || {
            for file in files {
                // The storing side hung up: it stopped at a failure.
                if sender.send(read_file(file, &owner)).is_err() {
                    break;
                }
            }
        });
        store_all(store, &found, reads, &mut summary, progress)
    })?;
    // A load that adds a good part of what the store holds leaves many index segments
    // behind; merging them once costs less than every search after paying for them.
    let stored = store.memory(|m| m.stats())?.entries;
    if summary.entries > 0 && summary.entries.saturating_mul(COMPACT_SHARE) >= stored {
        store.change_memory(|m| m.compact())?;
    }
    summary.seconds = started.elapsed().as_secs_f64();
    Ok(summary)
}

/// Stores what `reads` brings for each of `found`, in order, [`BATCH_ENTRIES`] at a time.
fn store_all(
    store: &Store,
    found: &[Found],
    reads: mpsc::Receiver<Read>,
    summary: &mut Summary,
    progress: &mut dyn FnMut(Progress),
) -> Result<()> {
    let mut next = 0;
    while next < found.len() {
        let mut failed = None;
        store.change_memory(|memory| {
            memory.bulk_load(&mut |loader| {
                let mut batched = 0;
                while next < found.len() && batched < BATCH_ENTRIES {
                    let file = &found[next];
                    next += 1;
                    progress(Progress::Reading {
                        index: next,
                        path: file.path.clone(),
                    });
                    let read = reads.recv().map_err(|_| {
                        Error::internal("the thread reading the files stopped".to_string())
                    })?;
                    let before = summary.entries + summary.skipped;
                    if let Err(e) = store_file(loader, file, read, summary) {
                        // Stop here, keeping the files stored before this one.
                        failed = Some((file.path.clone(), e));
                        return Ok(());
                    }
                    batched += summary.entries + summary.skipped - before;
                    progress(Progress::Done {
                        index: next,
                        path: file.path.clone(),
                    });
                }
                Ok(())
            })
        })?;
        if let Some((path, e)) = failed {
            return Err(Error::new(
                e.kind,
                format!(
                    "importing {}: {} ({} file{} imported before it are kept)",
                    path.display(),
                    e.message,
                    summary.files,
                    if summary.files == 1 { "" } else { "s" }
                ),
            ));
        }
    }
    Ok(())
}

/// What reading one file gave, before anything of it is stored.
enum Read {
    /// Refused: unreadable, or bad lines.
    Refused(ReadError),
    /// Found in a directory, and no transcript format: passed over.
    NotTranscript,
    Transcript(Reading),
}

/// The reading of the open regular file `file` (of metadata `meta`) at `path`, read
/// whole, with what its place says: what live import does with formats not read by line.
pub(super) fn read_open(file: File, meta: &Metadata, path: &Path) -> Result<Reading, ReadError> {
    let bytes = read_bounded(file, meta).map_err(ReadError::whole_file)?;
    read_counted(&bytes, &path.to_string_lossy()).map(|reading| super::placed(reading, path))
}

/// Reads and parses `file`; touches no store, so it runs on the reading thread. A file
/// found in a directory is read only if it is `owner`'s own, as live import reads it
/// ([`super::follow::trusted`]); a file named on its own is read whoever owns it (the user chose it).
fn read_file(file: &Found, owner: &Owner) -> Read {
    // An OpenCode session is spread over many files, or is one of many in a database.
    if opencode::reads(&file.path) {
        // Its pieces are read as the file is: the owner's own when found in a directory.
        let read = opencode::read_below(None, &file.path, (!file.named).then_some(owner));
        return match read.and_then(opencode::all_read) {
            Ok(reading) => Read::Transcript(reading),
            Err(error) => Read::Refused(error),
        };
    }
    let bytes = match open_regular(&file.path, (!file.named).then_some(owner))
        .and_then(|(opened, meta)| read_bounded(opened, &meta))
    {
        Ok(bytes) => bytes,
        Err(why) => return Read::Refused(ReadError::whole_file(why)),
    };
    match read_counted(&bytes, &file.path.to_string_lossy()) {
        Ok(reading) if !file.named && reading.format.is_none() => Read::NotTranscript,
        Ok(reading) => Read::Transcript(super::placed(reading, &file.path)),
        // Another JSON file in a directory reads as bad generic JSONL: what it is, is
        // asked only then.
        Err(_) if !file.named && format_of(&bytes).is_none() => Read::NotTranscript,
        Err(error) => Read::Refused(error),
    }
}

/// The regular file at `path` opened for reading, or why not. A name that is no regular
/// file (a device, a fifo, a socket, also behind a link) is refused before any open; the
/// open does not block (a fifo put in its place would otherwise hang the import) and is
/// checked again on its descriptor, with `owner`'s rules when given.
fn open_regular(
    path: &Path,
    owner: Option<&Owner>,
) -> std::result::Result<(File, Metadata), String> {
    use std::os::unix::fs::OpenOptionsExt;
    let named = std::fs::metadata(path).map_err(|e| format!("cannot read the file: {e}"))?;
    if !named.is_file() {
        return Err(not_regular(&named));
    }
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
        .map_err(|e| format!("cannot read the file: {e}"))?;
    let meta = file
        .metadata()
        .map_err(|e| format!("cannot read the file: {e}"))?;
    if !meta.is_file() {
        return Err(not_regular(&meta));
    }
    if let Some(owner) = owner {
        owner
            .check(&meta)
            .map_err(|why| format!("not read: {why}"))?;
    }
    Ok((file, meta))
}

/// The bytes of the open regular `file`, or why not: read with no line longer than
/// [`MAX_LINE`] (refused at the first such line, having held no more than it).
fn read_bounded(file: File, meta: &Metadata) -> std::result::Result<Vec<u8>, String> {
    use std::io::BufRead;
    let mut reader = std::io::BufReader::new(file);
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    let mut line = 1;
    loop {
        let start = bytes.len();
        // At most one byte past the bound is read into a line that is too long.
        let limit = u64::try_from(MAX_LINE).unwrap_or(u64::MAX) + 1;
        let read = std::io::Read::take(&mut reader, limit)
            .read_until(b'\n', &mut bytes)
            .map_err(|e| format!("cannot read the file: {e}"))?;
        if read == 0 {
            return Ok(bytes);
        }
        let body = bytes[start..]
            .strip_suffix(b"\n")
            .unwrap_or(&bytes[start..]);
        if body.len() > MAX_LINE {
            return Err(format!(
                "line {line} is longer than {} MiB: no transcript line is that long",
                MAX_LINE >> 20
            ));
        }
        reader
            .fill_buf()
            .map_err(|e| format!("cannot read the file: {e}"))?;
        line += 1;
    }
}

/// Why a path that is no regular file is not read.
pub(super) fn not_regular(meta: &std::fs::Metadata) -> String {
    use std::os::unix::fs::FileTypeExt;
    let kind = meta.file_type();
    let what = if kind.is_dir() {
        "a directory"
    } else if kind.is_fifo() {
        "a fifo"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_char_device() || kind.is_block_device() {
        "a device"
    } else {
        "not a regular file"
    };
    format!("{what}, not a transcript file: only regular files are read")
}

/// Stores what was read of `file` within the open load: a file the store refuses leaves
/// nothing behind (the loader keeps each transcript in a savepoint of its own).
fn store_file(
    loader: &mut dyn Loader,
    file: &Found,
    read: Read,
    summary: &mut Summary,
) -> Result<()> {
    let reading = match read {
        Read::Refused(error) => {
            summary.bad_files.push((file.path.clone(), error));
            return Ok(());
        }
        Read::NotTranscript => {
            summary.not_transcripts.push(file.path.clone());
            return Ok(());
        }
        Read::Transcript(reading) => reading,
    };
    summary.ignored += reading.ignored;
    if !reading.transcript.sessions.is_empty() {
        match loader.import(&reading.transcript) {
            Ok(imported) => {
                summary.sessions += imported.sessions;
                summary.entries += imported.entries;
                summary.skipped += imported.skipped;
            }
            Err(e) if e.kind == ErrorKind::Invalid => {
                let error = ReadError::whole_file(format!("the store refused it: {e}"));
                summary.bad_files.push((file.path.clone(), error));
                return Ok(());
            }
            Err(e) => return Err(e),
        }
    }
    summary.files += 1;
    Ok(())
}

/// The files at `paths`, in order, each once. Directories that cannot be walked into are
/// listed as bad files in `summary`, and so are named paths that are neither a regular
/// file nor a directory; links leading out of a directory are listed and not followed.
fn walk(paths: &[PathBuf], summary: &mut Summary) -> Result<Vec<Found>> {
    let mut found = Vec::new();
    let mut seen = HashSet::new();
    let mut add = |path: PathBuf, named: bool, found: &mut Vec<Found>| {
        let identity = path.canonicalize().unwrap_or_else(|_| path.clone());
        if seen.insert(identity) {
            found.push(Found { path, named });
        }
    };
    for path in paths {
        let metadata = std::fs::metadata(path).map_err(|e| {
            Error::not_found(format!(
                "cannot import {}: {e}; nothing was imported",
                path.display()
            ))
        })?;
        if metadata.is_file() {
            add(path.clone(), true, &mut found);
            continue;
        }
        if !metadata.is_dir() {
            summary
                .bad_files
                .push((path.clone(), ReadError::whole_file(not_regular(&metadata))));
            continue;
        }
        let root = path.canonicalize().unwrap_or_else(|_| path.clone());
        let outside = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let passed = std::sync::Arc::clone(&outside);
        // Links are followed where they stay inside the folder (a folder of links to its
        // own files); one leading out of it, or back above it, is passed over: what the
        // folder's writer links to is not theirs to have read.
        let walker = ignore::WalkBuilder::new(path)
            .standard_filters(false)
            .follow_links(true)
            .sort_by_file_path(Path::cmp)
            .filter_entry(move |entry| {
                if entry.file_type().is_some_and(|t| t.is_dir())
                    && opencode::is_piece_folder(entry.path())
                {
                    return false;
                }
                if !entry.path_is_symlink() {
                    return true;
                }
                match entry.path().canonicalize() {
                    Ok(target) if target.starts_with(&root) => true,
                    Ok(target) => {
                        crate::tree::lock(&passed).push((entry.path().to_path_buf(), target));
                        false
                    }
                    // A dangling link: nothing to read, nothing to say.
                    Err(_) => false,
                }
            })
            .build();
        for item in walker {
            match item {
                Ok(item) if item.file_type().is_some_and(|t| t.is_file()) => {
                    if is_transcript_name(item.path()) {
                        add(item.into_path(), false, &mut found);
                    }
                }
                Ok(_) => {}
                Err(e) => match loop_of(&e) {
                    Some((link, ancestor)) => summary.loops.push((link, ancestor)),
                    None => summary.bad_files.push((
                        path.clone(),
                        ReadError::whole_file(format!("cannot walk the directory: {e}")),
                    )),
                },
            }
        }
        summary.outside.append(&mut crate::tree::lock(&outside));
    }
    Ok(found)
}

/// The link and the directory it leads back to, when `error` is a loop.
fn loop_of(error: &ignore::Error) -> Option<(PathBuf, PathBuf)> {
    match error {
        ignore::Error::Loop { ancestor, child } => Some((child.clone(), ancestor.clone())),
        ignore::Error::WithPath { err, .. }
        | ignore::Error::WithDepth { err, .. }
        | ignore::Error::WithLineNumber { err, .. } => loop_of(err),
        _ => None,
    }
}

pub(super) fn is_transcript_name(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("jsonl" | "json")
    ) || matches!(
        path.file_name().and_then(|n| n.to_str()),
        Some(aider::FILE_NAME | opencode::DATABASE)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const CHAT: &str = concat!(
        r#"{"ts":"2025-03-01T10:00:00Z","role":"user","content":"Fix the rounding bug"}"#,
        "\n",
        r#"{"ts":"2025-03-01T10:00:05Z","role":"assistant","content":"Fixed."}"#,
        "\n"
    );

    fn run(store: &Store, paths: &[PathBuf]) -> (Summary, Vec<Progress>) {
        let mut seen = Vec::new();
        let summary = import_paths(store, paths, &mut |p| seen.push(p)).unwrap();
        (summary, seen)
    }

    #[test]
    fn walks_directories_reads_files_and_imports_once() {
        let dir = tempfile::tempdir().unwrap();
        let nested = dir.path().join("a/b");
        std::fs::create_dir_all(&nested).unwrap();
        std::fs::write(nested.join("chat.jsonl"), CHAT).unwrap();
        std::fs::write(dir.path().join("notes.txt"), "not a transcript").unwrap();
        std::fs::write(dir.path().join("package.json"), "{\n  \"name\": \"x\"\n}\n").unwrap();
        let store = Store::in_memory().unwrap();

        let (first, progress) = run(&store, &[dir.path().to_path_buf()]);
        assert_eq!(first.files, 1);
        assert_eq!((first.sessions, first.entries, first.skipped), (1, 2, 0));
        assert!(first.bad_files.is_empty());
        assert_eq!(first.not_transcripts, [dir.path().join("package.json")]);
        assert_eq!(progress.first(), Some(&Progress::Found { files: 2 }));
        assert_eq!(progress.len(), 5);

        let (again, _) = run(
            &store,
            &[dir.path().to_path_buf(), nested.join("chat.jsonl")],
        );
        assert_eq!(
            (again.files, again.sessions, again.entries, again.skipped),
            (1, 0, 0, 2)
        );
    }

    #[test]
    fn links_inside_a_directory_are_followed_and_those_leading_out_are_passed_over() {
        let outer = tempfile::tempdir().unwrap();
        let elsewhere = outer.path().join("elsewhere");
        std::fs::create_dir(&elsewhere).unwrap();
        std::fs::write(elsewhere.join("secret.jsonl"), CHAT).unwrap();
        let dir = outer.path().join("given");
        std::fs::create_dir_all(dir.join("real")).unwrap();
        std::fs::write(dir.join("real/chat.jsonl"), CHAT).unwrap();
        let link = |to: &Path, name: &str| std::os::unix::fs::symlink(to, dir.join(name)).unwrap();
        link(&dir.join("real/chat.jsonl"), "linked.jsonl");
        link(&dir.join("real"), "folder");
        link(&dir, "loop");
        link(&elsewhere.join("secret.jsonl"), "out.jsonl");
        link(outer.path(), "up");
        link(Path::new("/dev/zero"), "zero.jsonl");
        let store = Store::in_memory().unwrap();

        let (summary, _) = run(&store, std::slice::from_ref(&dir));
        assert_eq!(
            (summary.files, summary.sessions, summary.entries),
            (1, 1, 2),
            "the same file through two links is read once; nothing from outside"
        );
        assert!(summary.bad_files.is_empty(), "{:?}", summary.bad_files);
        assert_eq!(summary.loops, [(dir.join("loop"), dir.clone())]);
        let root = outer.path().canonicalize().unwrap();
        let mut outside = summary.outside.clone();
        outside.sort();
        assert_eq!(
            outside,
            [
                (dir.join("out.jsonl"), root.join("elsewhere/secret.jsonl")),
                (dir.join("up"), root.clone()),
                (dir.join("zero.jsonl"), PathBuf::from("/dev/zero")),
            ]
        );
    }

    #[test]
    fn devices_fifos_and_overlong_lines_are_refused_without_hanging() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe.jsonl");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let long = dir.path().join("long.jsonl");
        let line = format!(r#"{{"role":"user","content":"{}"}}"#, "x".repeat(MAX_LINE));
        std::fs::write(&long, format!("{CHAT}{line}\n")).unwrap();
        let store = Store::in_memory().unwrap();
        let named = [PathBuf::from("/dev/zero"), fifo.clone(), long.clone()];
        let (summary, _) = run(&store, &named);
        let why: Vec<(PathBuf, String)> = summary
            .bad_files
            .iter()
            .map(|(path, error)| (path.clone(), error.to_string()))
            .collect();
        assert_eq!(why.len(), 3, "{why:?}");
        assert!(why[0].1.contains("a device"), "{why:?}");
        assert!(why[1].1.contains("a fifo"), "{why:?}");
        assert!(why[2].1.contains("line 3 is longer than 64 MiB"), "{why:?}");
        assert_eq!(summary.entries, 0);
    }

    #[test]
    fn a_refused_file_changes_nothing_and_the_others_still_import() {
        let dir = tempfile::tempdir().unwrap();
        let good = dir.path().join("good.jsonl");
        let bad = dir.path().join("bad.jsonl");
        std::fs::write(&good, CHAT).unwrap();
        std::fs::write(&bad, format!("{CHAT}{{\"role\":\"user\"}}\n")).unwrap();
        let store = Store::in_memory().unwrap();
        let (summary, _) = run(&store, &[bad.clone(), good]);
        assert_eq!(summary.files, 1);
        assert_eq!(summary.entries, 2);
        assert_eq!(summary.bad_files.len(), 1);
        assert_eq!(summary.bad_files[0].0, bad);
        assert_eq!(
            summary.bad_files[0].1.bad_lines,
            [(3, "no `content`".to_string())]
        );
    }

    #[test]
    fn a_missing_path_stops_before_anything_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let good = dir.path().join("good.jsonl");
        std::fs::write(&good, CHAT).unwrap();
        let store = Store::in_memory().unwrap();
        let error =
            import_paths(&store, &[good, dir.path().join("gone")], &mut |_| {}).unwrap_err();
        assert_eq!(error.kind, ErrorKind::NotFound);
        assert!(error.message.contains("gone") && error.message.contains("nothing was imported"));
    }

    #[test]
    fn in_a_folder_only_the_importers_own_files_no_one_else_may_write_are_read() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let mine = dir.path().join("mine.jsonl");
        let open_to_all = dir.path().join("open.jsonl");
        let theirs = dir.path().join("theirs.jsonl");
        for path in [&mine, &open_to_all, &theirs] {
            std::fs::write(path, CHAT.replace("rounding", &path.to_string_lossy())).unwrap();
        }
        std::fs::set_permissions(&open_to_all, std::fs::Permissions::from_mode(0o666)).unwrap();
        // As root (as the daemon often runs), a file given away is another user's.
        let root = Owner::this_process().uid == 0;
        if root {
            std::os::unix::fs::chown(&theirs, Some(4242), None).unwrap();
        }
        let store = Store::in_memory().unwrap();
        let (summary, _) = run(&store, &[dir.path().to_path_buf()]);
        let refused: Vec<String> = summary
            .bad_files
            .iter()
            .map(|(path, error)| format!("{}: {error}", path.display()))
            .collect();
        assert_eq!(summary.files, if root { 1 } else { 2 }, "{refused:?}");
        assert!(
            refused[0].contains("open.jsonl: not read: others may write it"),
            "{refused:?}"
        );
        if root {
            assert!(refused[1].contains("theirs.jsonl: not read: it is owned by uid 4242"));
        }
        // Named on its own, a file is read whoever owns it: the user chose it.
        let (named, _) = run(&Store::in_memory().unwrap(), &[theirs]);
        assert_eq!(named.files, 1);
    }
}
