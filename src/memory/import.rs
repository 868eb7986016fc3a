//! Importing transcript files into the store: walk the given paths
//! ([`transcripts::walk`](crate::transcripts::walk)), read each file ([`transcripts::file`](mod@crate::transcripts::file)), store it.
//!
//! Guarantees: a file is stored whole or not at all (each in a savepoint of its own); a
//! refused file changes nothing and is listed with its bad lines, and the others are still
//! imported; importing the same files again adds nothing (the readers' keys are stable and
//! the store skips keys it holds). A path that does not exist stops everything before any
//! file is read. Which files are read, and which are refused unread (hostile paths, other
//! users' files, overlong lines), the readers decide: see [`transcripts::walk`](crate::transcripts::walk) and
//! [`transcripts::file`](mod@crate::transcripts::file).

use std::path::PathBuf;
use std::sync::mpsc;
use std::time::Instant;

use crate::error::{Error, ErrorKind, Result};
use crate::model::count::plural;
use crate::store::Store;
use crate::store::memory::Loader;
use crate::transcripts::ReadError;
use crate::transcripts::file::{Read, read_file};
use crate::transcripts::trusted::Owner;
use crate::transcripts::walk::{Found, Walked, walk};

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

/// Entries stored per transaction: files are committed together, each in a savepoint of its
/// own, so that a directory of many small files does not commit (and rewrite the pages of
/// the keys' index, which random keys spread everywhere) once per file. A killed import
/// loses at most the batch it was in, never part of a file.
const BATCH_ENTRIES: usize = 50_000;

/// An import adding at least 1/`COMPACT_SHARE` of the store's entries merges the full-text
/// index afterwards.
const COMPACT_SHARE: usize = 10;

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
    let Walked {
        found,
        bad_files,
        loops,
        outside,
    } = walk(paths)?;
    let mut summary = Summary {
        bad_files,
        loops,
        outside,
        ..Summary::default()
    };
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
                    plural(summary.files)
                ),
            ));
        }
    }
    Ok(())
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

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::transcripts::file::MAX_LINE;

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
