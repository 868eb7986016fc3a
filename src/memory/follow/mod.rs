//! Live import: following transcript files as agents write them, and storing what each
//! change added. [`Follower`] knows how far it read each file; [`watch`] wakes it with
//! inotify; `crate::transcripts::places` says which folders a project's agents write to.
//!
//! Guarantees:
//! - A line-based transcript (Claude Code, Codex, JSONL) is read on from where the last
//!   read stopped, complete lines only (a line being written waits for its line end), so
//!   an append costs what it added, not the file; the entries it read are stored at once.
//! - A file of a format that is not read by line — Gemini CLI's log (a message is written
//!   again as it changes) and session documents, Aider's markdown history, OpenCode's
//!   database and storage — is read whole as `homespace import` reads it each time it
//!   changed, at most every [`WHOLE_AGAIN`] (a later look is asked for, `deferred`), and
//!   what the store holds already is skipped; a refusal is said once until it changes.
//! - A bad line is reported once, when it is read, and the lines around it are stored: a
//!   line-based file being written is never refused whole as `homespace import` refuses a
//!   file.
//! - Nothing is stored twice: a file replaced or cut shorter is read again from its start,
//!   and its entries already held are skipped by key, as on a restart, which reads every
//!   file again and so imports only what is new. A look whose store failed (the database
//!   away) is not lost: the file is read again from its start at the next look.
//! - A file of no transcript format (other JSON beside the transcripts) is passed over
//!   until it is replaced. A place may ask for one project's sessions only (Codex's and
//!   OpenCode's folders hold every project's): a session is stored only if its working
//!   folder is the project or lies inside it, and a Codex rollout run elsewhere is passed
//!   over for good from its first line.
//! - Only the owner's own regular files are read ([`trusted`]): a link, a device, a fifo,
//!   another user's file or one others may write is set aside without being read (a link
//!   or a device without being opened), and why is said once, until it changes. A file
//!   is read only from the very folder it is in below the place followed: the folders
//!   between are opened one by one, never through a link (`folder.rs`), so a watched
//!   folder moved away and replaced by a link is not read through. Every piece of an
//!   OpenCode session (each message and part) is held to the same rule, and one that
//!   fails is set aside and said while the rest of the session is read; its database is
//!   read only if it, its log and its folder are the owner's alone.
//! - Memory is bounded whatever a file's size: a line-based file is read in pieces of at
//!   most `pieces::BATCH` bytes of lines, each stored before the next is read, and a line
//!   longer than [`MAX_LINE`] is passed over as it streams by (reported as a bad line; the
//!   lines after it are read); a file read whole is read only up to [`MAX_WHOLE`].

mod pieces;
pub mod watch;

#[cfg(test)]
mod tests;

use std::collections::{HashMap, HashSet};
use std::fs::{File, Metadata};
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use crate::error::Result;
use crate::store::Store;
use crate::store::memory::Imported;

use crate::model::transcript::Transcript;
use crate::transcripts::file::{MAX_LINE, read_open};
use crate::transcripts::stream::Stream;
use crate::transcripts::trusted::{self, Owner};
use crate::transcripts::{ReadError, aider, codex, gemini, opencode};
use pieces::{Piece, Pieces};

/// What one look at a file found.
#[derive(Debug, Default)]
pub struct Caught {
    /// What was stored.
    pub imported: Imported,
    /// Lines read this time that are bad (each reported only this once).
    pub bad: Option<ReadError>,
    /// Why the file is set aside (not the owner's own regular file: a link, a device, a
    /// fifo, another user's, writable by others) or cannot be read, said once.
    pub unreadable: Option<String>,
    /// Why the file is not followed though it could be read (not a transcript, another
    /// project's rollout), said once.
    pub passed_over: Option<String>,
    /// A file read whole was read too recently: look again in [`WHOLE_AGAIN`].
    pub deferred: bool,
}

/// The largest file of a format read whole ([`Format::reads_by_line`](crate::transcripts::Format::reads_by_line) false) that is
/// read: each read holds it all.
pub const MAX_WHOLE: u64 = 256 << 20;

/// The least time between two whole reads of one file (an OpenCode database written at
/// every step of a session is read at most this often).
pub const WHOLE_AGAIN: Duration = Duration::from_millis(500);

/// A file of a format read whole each time it changes ([`Format::reads_by_line`](crate::transcripts::Format::reads_by_line)).
#[derive(Default)]
struct Whole {
    /// Its size and change time when last read.
    seen: Option<(u64, SystemTime)>,
    read_at: Option<Instant>,
    /// What was said of it last, so that a refusal is said once.
    said: Option<String>,
}

/// How far a file was read.
struct Followed {
    /// Device and inode: a file replaced under the same name is read from its start.
    identity: (u64, u64),
    /// Bytes read, up to the end of the last complete line (or into a long line).
    read_to: u64,
    /// Inside a line past the limit: read on to its end without keeping it.
    skipping: bool,
    stream: Stream,
    /// Not a transcript, or not this project's: not read again until replaced.
    passed_over: bool,
}

/// The files being followed, and how far each was read.
pub struct Follower {
    store: Arc<Store>,
    files: HashMap<PathBuf, Followed>,
    wholes: HashMap<PathBuf, Whole>,
    /// Files found unreadable or set aside and said so: said again only once read again.
    unreadable: HashSet<PathBuf>,
    /// Whose files are read ([`trusted`]).
    owner: Owner,
    /// The longest line read; a longer one is passed over.
    limit: usize,
}

impl Follower {
    pub fn new(store: Arc<Store>) -> Follower {
        Follower {
            store,
            files: HashMap::new(),
            wholes: HashMap::new(),
            unreadable: HashSet::new(),
            owner: Owner::this_process(),
            limit: MAX_LINE,
        }
    }

    /// The same follower with lines of at most `limit` bytes (tests: a long line without
    /// writing 64 MiB).
    #[cfg(test)]
    fn with_limit(mut self, limit: usize) -> Follower {
        self.limit = limit;
        self
    }

    /// Reads what `path` gained since the last look and stores it. `only_under`: the
    /// folder a session must have run in to be stored (Codex rollouts and OpenCode's
    /// database hold every project's). A file that vanished is forgotten; one that is not
    /// the owner's own regular file ([`trusted`]) is set aside, said once.
    pub fn look(&mut self, path: &Path, only_under: Option<&Path>) -> Result<Caught> {
        let root = path.parent().unwrap_or(Path::new("/"));
        self.look_below(root, path, only_under)
    }

    /// As [`Follower::look`], for `path` lying below the followed folder `root`: the
    /// folders between them are opened one by one, never through a link
    /// ([`trusted::open_below`]), so a watched folder renamed away and replaced by a link
    /// is not read through.
    pub fn look_below(
        &mut self,
        root: &Path,
        path: &Path,
        only_under: Option<&Path>,
    ) -> Result<Caught> {
        if opencode::reads(path) || self.wholes.contains_key(path) {
            return self.look_whole(root, path, only_under);
        }
        let mut caught = Caught::default();
        let Some((mut file, meta)) = self.open(root, path, &mut caught) else {
            return Ok(caught);
        };
        let identity = (meta.dev(), meta.ino());
        let known = self
            .files
            .get(path)
            .is_some_and(|f| f.identity == identity && f.read_to <= meta.len());
        if !known {
            self.files.insert(
                path.to_path_buf(),
                Followed {
                    identity,
                    read_to: 0,
                    skipping: false,
                    stream: Stream::new(&path.to_string_lossy()),
                    passed_over: false,
                },
            );
        }
        let Some(followed) = self.files.get_mut(path) else {
            return Ok(caught);
        };
        if followed.passed_over || followed.read_to == meta.len() {
            return Ok(caught);
        }
        if followed.read_to == 0
            && let Some(folder) = only_under
            && let Some(elsewhere) = codex_elsewhere(&mut file, folder)
        {
            followed.passed_over = true;
            caught.passed_over = Some(elsewhere);
            return Ok(caught);
        }
        file.seek(SeekFrom::Start(followed.read_to))
            .map_err(|e| cannot_read(path, &e))?;
        let mut pieces = Pieces::new(file, self.limit, followed.skipping);
        loop {
            let Some(followed) = self.files.get_mut(path) else {
                return Ok(caught);
            };
            let bytes = match pieces.next_piece().map_err(|e| cannot_read(path, &e))? {
                Piece::End => return Ok(caught),
                Piece::Long { bytes, starts, .. } => {
                    if starts {
                        let number = followed.stream.skip_line();
                        let long = ReadError {
                            bad_lines: vec![(number, too_long(self.limit))],
                            more: 0,
                        };
                        caught.bad = Some(match caught.bad.take() {
                            Some(bad) => bad.and(long),
                            None => long,
                        });
                    }
                    followed.read_to += bytes;
                    followed.skipping = pieces.skipping();
                    continue;
                }
                Piece::Lines(bytes) => bytes,
            };
            if followed.read_to == 0
                && (aider::is_history(&bytes) || gemini::document(&bytes).is_some())
            {
                // Markdown, or one JSON document: read whole each time.
                self.files.remove(path);
                return self.look_whole(root, path, only_under);
            }
            let part = followed.stream.read(&bytes, None);
            if !part.read && followed.stream.format().is_some() {
                // A format read whole (Gemini CLI's log, Aider's history).
                self.files.remove(path);
                return self.look_whole(root, path, only_under);
            }
            if !part.read {
                // No record says which format this is: other JSON lines, not a transcript.
                followed.passed_over = true;
                caught.passed_over = Some("it is no transcript format homespace reads".into());
                return Ok(caught);
            }
            followed.read_to += bytes.len() as u64;
            if part.bad.count() > 0 {
                caught.bad = Some(match caught.bad.take() {
                    Some(bad) => bad.and(part.bad),
                    None => part.bad,
                });
            }
            match store_under(&self.store, part.transcript, only_under) {
                Ok(imported) => {
                    caught.imported.sessions += imported.sessions;
                    caught.imported.entries += imported.entries;
                    caught.imported.skipped += imported.skipped;
                }
                Err(error) => {
                    // Lines the store refuses (a NUL in a text) are said once and left
                    // behind; a store that failed otherwise (a database away) gets them
                    // again: the next look starts the file over, and the store skips what
                    // it holds.
                    if error.kind != crate::error::ErrorKind::Invalid {
                        self.files.remove(path);
                    }
                    return Err(error);
                }
            }
        }
    }

    /// `path` opened if it is the owner's own regular file ([`trusted::open`]); `None`
    /// when it is gone (forgotten) or set aside (said in `caught` once, until it changes).
    fn open(&mut self, root: &Path, path: &Path, caught: &mut Caught) -> Option<(File, Metadata)> {
        match trusted::open_below(root, path, &self.owner) {
            Ok(Some(opened)) => {
                self.unreadable.remove(path);
                Some(opened)
            }
            Ok(None) => {
                self.forget(path);
                None
            }
            Err(why) => {
                if self.unreadable.insert(path.to_path_buf()) {
                    caught.unreadable = Some(why);
                }
                None
            }
        }
    }

    /// Reads `path` whole (as `homespace import` does) if it changed since the last read,
    /// and stores what is new: for formats not read by line.
    fn look_whole(
        &mut self,
        root: &Path,
        path: &Path,
        only_under: Option<&Path>,
    ) -> Result<Caught> {
        let mut caught = Caught::default();
        let Some((file, meta)) = self.open(root, path, &mut caught) else {
            return Ok(caught);
        };
        let whole = self.wholes.entry(path.to_path_buf()).or_default();
        let now = (
            meta.len(),
            meta.modified().unwrap_or(SystemTime::UNIX_EPOCH),
        );
        if whole.seen == Some(now) {
            return Ok(caught);
        }
        if whole.read_at.is_some_and(|at| at.elapsed() < WHOLE_AGAIN) {
            caught.deferred = true;
            return Ok(caught);
        }
        whole.seen = Some(now);
        whole.read_at = Some(Instant::now());
        // Pieces of an OpenCode session that are not the owner's own: set aside unread,
        // said once (until what is set aside changes), and the rest of the session read.
        let mut aside = None;
        let reading = match opencode::reads(path) {
            // A database or a storage folder: read by SQLite or file by file, not held.
            true => opencode::read_below(Some(root), path, Some(&self.owner)).map(|(read, set)| {
                aside = set;
                read
            }),
            false if meta.len() > MAX_WHOLE => Err(ReadError::whole_file(format!(
                "it is {} MiB, and a file of its format is read whole each time it changes: \
                 past {} MiB it is not read (no session is that long)",
                meta.len() >> 20,
                MAX_WHOLE >> 20
            ))),
            false => read_open(file, &meta, path),
        };
        match reading {
            Ok(reading) => {
                let said = aside.as_ref().map(ToString::to_string);
                if whole.said != said {
                    caught.bad = aside;
                }
                whole.said = said;
                let stored = store_under(&self.store, reading.transcript, only_under);
                if stored
                    .as_ref()
                    .is_err_and(|e| e.kind != crate::error::ErrorKind::Invalid)
                {
                    // Read again at the next look.
                    self.wholes.remove(path);
                }
                caught.imported = stored?;
            }
            Err(error) => {
                let text = error.to_string();
                if whole.said.as_ref() != Some(&text) {
                    whole.said = Some(text);
                    caught.bad = Some(error);
                }
            }
        }
        Ok(caught)
    }

    /// Forgets how far `path` was read (it was deleted or moved away).
    pub fn forget(&mut self, path: &Path) {
        self.files.remove(path);
        self.wholes.remove(path);
        self.unreadable.remove(path);
    }
}

/// Stores the sessions of `transcript` that ran in `only_under` (all without one).
fn store_under(
    store: &Store,
    mut transcript: Transcript,
    only_under: Option<&Path>,
) -> Result<Imported> {
    if let Some(folder) = only_under {
        transcript.sessions.retain(|(session, _)| {
            session
                .cwd
                .as_deref()
                .is_some_and(|cwd| Path::new(cwd).starts_with(folder))
        });
    }
    if transcript.sessions.is_empty() {
        return Ok(Imported::default());
    }
    store.change_memory(|memory| memory.import(&transcript))
}

/// Why a line past `limit` bytes is passed over.
fn too_long(limit: usize) -> String {
    format!(
        "longer than {} MiB: passed over without being read whole (no transcript line is \
         that long); the lines after it are read",
        limit >> 20
    )
}

fn cannot_read(path: &Path, e: &std::io::Error) -> crate::error::Error {
    crate::error::Error::internal(format!("cannot read {}: {e}", path.display()))
}

/// Why the rollout in `file` is not this project's: its first line, a `session_meta`,
/// names the folder it ran in, outside `folder`. `None` when it ran inside, or the file
/// is no rollout (then the readers decide).
fn codex_elsewhere(file: &mut std::fs::File, folder: &Path) -> Option<String> {
    use std::io::BufRead;
    let mut first = Vec::new();
    let limit = u64::try_from(MAX_LINE).unwrap_or(u64::MAX);
    std::io::BufReader::new(Read::take(&mut *file, limit))
        .read_until(b'\n', &mut first)
        .ok()?;
    let cwd = codex::cwd_of_first_line(&first)?;
    let ran_in = Path::new(&cwd);
    (!ran_in.starts_with(folder)).then(|| {
        format!(
            "a Codex rollout run in {cwd}, not in {}: another project's",
            folder.display()
        )
    })
}
