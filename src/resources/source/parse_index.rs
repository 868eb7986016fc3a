//! The parse index: what parsing each module yielded (its [`ModuleIndex`]), kept on disk
//! across mounts and keyed by the file's identity, so that a remount parses only the
//! modules that changed since.
//!
//! It is a cache of this machine's files, so it lives in a SQLite file of its own beside the
//! mount's log ([`crate::app::Options::parse_index`]), never in the store: a team's
//! PostgreSQL store would fill with one machine's inode numbers, and rows written during
//! warm-up would count as changes of a SQLite store, which every view watches. Losing it
//! costs parses, nothing else: every failure to read or write it is logged once and the
//! module is parsed.
//!
//! A row is trusted on size, mtime, inode and ctime alone only when the file was older than
//! the moment it was read by more than a timestamp's granularity; otherwise ("racy", as git
//! says), or when any of them differs, the content's hash decides.

use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rusqlite::{Connection, OptionalExtension, params};
use sha2::{Digest, Sha256};

use crate::python::ModuleIndex;
use crate::tree::lock;

/// What rows of this format hold. Goes up whenever [`ModuleIndex`] or what
/// `index_module` puts in it changes, so that an index written by another homespace is
/// dropped, never misread.
const FORMAT: &str = "8";

/// How close to the moment it was read a file's mtime may be before that mtime cannot tell
/// two versions apart: whole seconds on some filesystems (two on FAT), and a write in the
/// same tick as the read keeps the stamp.
const RACY: Duration = Duration::from_secs(2);

/// Which version of a file: what `stat` says of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Identity {
    pub size: u64,
    /// Modification time in nanoseconds since the epoch.
    pub mtime_ns: i64,
    /// A write by rename (atomic saves) gives a new inode.
    pub ino: u64,
    /// Change time in nanoseconds: moves with every write, and with `touch -r` that sets the
    /// mtime back.
    pub ctime_ns: i64,
}

impl Identity {
    pub fn of(meta: &std::fs::Metadata) -> Identity {
        Identity {
            size: meta.len(),
            mtime_ns: meta.mtime() * 1_000_000_000 + meta.mtime_nsec(),
            ino: meta.ino(),
            ctime_ns: meta.ctime() * 1_000_000_000 + meta.ctime_nsec(),
        }
    }

    /// Whether the file may still have changed within its mtime's tick when read at
    /// `read_at`.
    fn racy(&self, read_at: SystemTime) -> bool {
        let read_ns = read_at
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX));
        let window = i64::try_from(RACY.as_nanos()).unwrap_or(i64::MAX);
        self.mtime_ns >= read_ns.saturating_sub(window)
    }
}

/// The parse index of one mount, opened at its first use.
#[derive(Debug, Default)]
pub struct ParseIndex {
    /// Where it is kept; none: every module is parsed.
    file: OnceLock<PathBuf>,
    db: OnceLock<Option<Mutex<Connection>>>,
    /// Whether a failure was logged already: one line says it, not one per module (two
    /// mounts of one project warming up at once may keep each other busy).
    failed: AtomicBool,
}

/// A parse kept under a stamp that vouches for it, as [`ParseIndex::stamped`] reads it.
pub struct Stamped {
    pub path: PathBuf,
    /// The file's identity when it was parsed: the parse holds while the file still is it.
    pub identity: Identity,
    parse: Vec<u8>,
}

impl Stamped {
    /// The parse, decoded.
    pub fn index(&self) -> Option<ModuleIndex> {
        postcard::from_bytes(&self.parse).ok()
    }
}

/// A row as stored.
struct Row {
    identity: Identity,
    racy: bool,
    hash: Vec<u8>,
    /// The [`ModuleIndex`], in postcard's compact encoding: a third of JSON's size and
    /// several times faster to decode, and a remount decodes every module's.
    parse: Vec<u8>,
}

impl ParseIndex {
    /// The index kept in `file`.
    pub fn new(file: PathBuf) -> ParseIndex {
        let index = ParseIndex::default();
        index.keep_in(file);
        index
    }

    /// Keep the index in `file` from now on (before its first use; later, this does
    /// nothing).
    pub fn keep_in(&self, file: PathBuf) {
        let _ = self.file.set(file);
    }

    /// The parse of `path` kept for this content, if any: `identity` is the file's now,
    /// `bytes` what was read at `read_at`.
    pub fn lookup(
        &self,
        path: &Path,
        identity: &Identity,
        bytes: &[u8],
        read_at: SystemTime,
    ) -> Option<ModuleIndex> {
        let mut row = self.with(|db| row(db, path))??;
        if row.identity.size != identity.size {
            return None;
        }
        if row.identity != *identity || row.racy {
            if row.hash != hash(bytes) {
                return None;
            }
            // The same content under a new stamp: trust the stamp from now on, if it can be.
            row.identity = *identity;
            row.racy = identity.racy(read_at);
            self.with(|db| write(db, path, &row));
        }
        postcard::from_bytes(&row.parse).ok()
    }

    /// The index kept for `path` when its stamp alone vouches for it: the same identity,
    /// recorded when the file was already older than a timestamp's granularity. Costs no
    /// read of the module; `None` sends the caller to [`ParseIndex::lookup`].
    pub fn by_stamp(&self, path: &Path, identity: &Identity) -> Option<ModuleIndex> {
        let row = self.with(|db| row(db, path))??;
        if row.identity != *identity || row.racy {
            return None;
        }
        postcard::from_bytes(&row.parse).ok()
    }

    /// Every parse whose stamp alone vouches for it (see [`ParseIndex::by_stamp`]), with the
    /// identity it was kept under, still encoded ([`Stamped::index`] decodes): what warming
    /// up loads in one pass over the index instead of a query per module. Read on a
    /// connection of its own, so that requests asking meanwhile do not wait for it.
    pub fn stamped(&self) -> Vec<Stamped> {
        let Some(file) = self.file.get() else {
            return Vec::new();
        };
        // Made (and its format checked) by the shared connection first.
        if self.with(|_| Ok(())).is_none() {
            return Vec::new();
        }
        let read = Connection::open_with_flags(file, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .and_then(|db| {
                let mut rows = db.prepare(
                    "SELECT path, size, mtime_ns, ino, ctime_ns, parse FROM parses WHERE racy = 0",
                )?;
                rows.query_map([], |row| {
                    Ok(Stamped {
                        path: PathBuf::from(std::ffi::OsStr::from_bytes(
                            &row.get::<_, Vec<u8>>(0)?,
                        )),
                        identity: identity_at(row, 1)?,
                        parse: row.get(5)?,
                    })
                })?
                .collect::<rusqlite::Result<Vec<Stamped>>>()
            });
        read.unwrap_or_else(|e| {
            self.failed(&e);
            Vec::new()
        })
    }

    /// Keep `index`, parsed from `bytes` of `path` (read at `read_at`, when it was
    /// `identity`).
    pub fn keep(
        &self,
        path: &Path,
        identity: &Identity,
        bytes: &[u8],
        read_at: SystemTime,
        index: &ModuleIndex,
    ) {
        let Ok(parse) = postcard::to_allocvec(index) else {
            return;
        };
        let row = Row {
            identity: *identity,
            racy: identity.racy(read_at),
            hash: hash(bytes),
            parse,
        };
        self.with(|db| write(db, path, &row));
    }

    /// Run `query` on the open index; `None` when there is none or the query failed
    /// (logged: a parse index that fails only costs parses).
    fn with<T>(&self, query: impl FnOnce(&Connection) -> rusqlite::Result<T>) -> Option<T> {
        let db = self
            .db
            .get_or_init(|| self.file.get().and_then(|file| open(file)).map(Mutex::new))
            .as_ref()?;
        match query(&lock(db)) {
            Ok(value) => Some(value),
            Err(e) => {
                self.failed(&e);
                None
            }
        }
    }

    /// Log `e`, the first failure only.
    fn failed(&self, e: &rusqlite::Error) {
        if !self.failed.swap(true, Ordering::Relaxed) {
            crate::log::line(&format!(
                "the parse index failed: {e}; the modules it misses are parsed (said once)"
            ));
        }
    }
}

fn row(db: &Connection, path: &Path) -> rusqlite::Result<Option<Row>> {
    // Asked once per module on every remount: prepared once per connection.
    db.prepare_cached(
        "SELECT size, mtime_ns, ino, ctime_ns, racy, hash, parse FROM parses WHERE path = ?1",
    )?
    .query_row([path.as_os_str().as_bytes()], |row| {
        Ok(Row {
            identity: identity_at(row, 0)?,
            racy: row.get(4)?,
            hash: row.get(5)?,
            parse: row.get(6)?,
        })
    })
    .optional()
}

/// The identity in columns `first` to `first + 3` of `row`: size, mtime, inode, ctime.
fn identity_at(row: &rusqlite::Row<'_>, first: usize) -> rusqlite::Result<Identity> {
    Ok(Identity {
        size: row.get::<_, i64>(first)? as u64,
        mtime_ns: row.get(first + 1)?,
        ino: row.get::<_, i64>(first + 2)? as u64,
        ctime_ns: row.get(first + 3)?,
    })
}

fn write(db: &Connection, path: &Path, row: &Row) -> rusqlite::Result<usize> {
    db.execute(
        "INSERT OR REPLACE INTO parses (path, size, mtime_ns, ino, ctime_ns, racy, hash, parse)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        params![
            path.as_os_str().as_bytes(),
            row.identity.size as i64,
            row.identity.mtime_ns,
            row.identity.ino as i64,
            row.identity.ctime_ns,
            row.racy,
            row.hash,
            row.parse
        ],
    )
}

/// The content hash that decides when the stamp cannot.
fn hash(bytes: &[u8]) -> Vec<u8> {
    Sha256::digest(bytes).to_vec()
}

/// Open (or make) the index in `file`, emptied if another format wrote it.
fn open(file: &Path) -> Option<Connection> {
    // The owner's alone, as the store is: it holds the project's signatures and docstrings,
    // wherever the store was put (SQLite gives its journal the same modes).
    let _ = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(file);
    let opened = Connection::open(file).and_then(|db| {
        // A cache: a commit need not reach the disk before the next one (WAL keeps what
        // was committed across a killed daemon; a lost tail only costs parses).
        db.pragma_update(None, "journal_mode", "WAL")?;
        db.pragma_update(None, "synchronous", "NORMAL")?;
        db.busy_timeout(Duration::from_secs(2))?;
        db.execute_batch(
            "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
             CREATE TABLE IF NOT EXISTS parses (
                 path BLOB PRIMARY KEY,
                 size INTEGER NOT NULL,
                 mtime_ns INTEGER NOT NULL,
                 ino INTEGER NOT NULL,
                 ctime_ns INTEGER NOT NULL,
                 racy INTEGER NOT NULL,
                 hash BLOB NOT NULL,
                 parse BLOB NOT NULL
             );",
        )?;
        let format: Option<String> = db
            .query_row("SELECT value FROM meta WHERE key = 'format'", [], |r| {
                r.get(0)
            })
            .optional()?;
        let ours = format!("{FORMAT} homespace {}", env!("CARGO_PKG_VERSION"));
        if format.as_deref() != Some(ours.as_str()) {
            db.execute("DELETE FROM parses", [])?;
            db.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES ('format', ?1)",
                [&ours],
            )?;
        }
        Ok(db)
    });
    match opened {
        Ok(db) => Some(db),
        Err(e) => {
            crate::log::line(&format!(
                "no parse index: {} cannot be opened ({e}); every module is parsed",
                file.display()
            ));
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::python::index_module;

    const SOURCE: &str = "def add(a, b):\n    return a + b\n";

    fn identity(size: u64, mtime_ns: i64, ino: u64) -> Identity {
        Identity {
            size,
            mtime_ns,
            ino,
            ctime_ns: mtime_ns,
        }
    }

    #[test]
    fn a_parse_is_found_again_for_the_same_file_and_not_for_another_content() {
        let dir = tempfile::tempdir().unwrap();
        let kept = ParseIndex::new(dir.path().join("parses.db"));
        let path = Path::new("/project/calc.py");
        let old = identity(SOURCE.len() as u64, 1_000_000_000, 7);
        let now = SystemTime::now();
        kept.keep(path, &old, SOURCE.as_bytes(), now, &index_module(SOURCE));

        // Reopened, as a remount does.
        let kept = ParseIndex::new(dir.path().join("parses.db"));
        let found = kept.lookup(path, &old, SOURCE.as_bytes(), now).unwrap();
        assert_eq!(found, index_module(SOURCE));

        // Same size and stamp, other bytes behind a new inode: the hash tells.
        let other = "def sub(a, b):\n    return a - b\n";
        let moved = identity(old.size, old.mtime_ns, 8);
        assert_eq!(kept.lookup(path, &moved, other.as_bytes(), now), None);
        // The same bytes behind it are still the same parse.
        assert!(kept.lookup(path, &moved, SOURCE.as_bytes(), now).is_some());
    }

    #[test]
    fn the_parses_a_stamp_vouches_for_are_read_in_one_pass() {
        let dir = tempfile::tempdir().unwrap();
        let kept = ParseIndex::new(dir.path().join("parses.db"));
        let now = SystemTime::now();
        let old = identity(SOURCE.len() as u64, 1_000_000_000, 7);
        kept.keep(
            Path::new("/p/old.py"),
            &old,
            SOURCE.as_bytes(),
            now,
            &index_module(SOURCE),
        );
        let fresh_ns = now.duration_since(UNIX_EPOCH).unwrap().as_nanos() as i64;
        let fresh = identity(SOURCE.len() as u64, fresh_ns, 8);
        kept.keep(
            Path::new("/p/racy.py"),
            &fresh,
            SOURCE.as_bytes(),
            now,
            &index_module(SOURCE),
        );

        let kept = ParseIndex::new(dir.path().join("parses.db"));
        let stamped = kept.stamped();
        assert_eq!(stamped.len(), 1, "a racy parse needs its content checked");
        assert_eq!(stamped[0].path, Path::new("/p/old.py"));
        assert_eq!(stamped[0].identity, old);
        assert_eq!(stamped[0].index(), Some(index_module(SOURCE)));
    }

    #[test]
    fn a_file_read_within_its_mtime_tick_is_checked_by_content_next_time() {
        let dir = tempfile::tempdir().unwrap();
        let kept = ParseIndex::new(dir.path().join("parses.db"));
        let path = Path::new("/project/calc.py");
        let now = SystemTime::now();
        let mtime = now.duration_since(UNIX_EPOCH).unwrap().as_nanos() as i64;
        let fresh = identity(SOURCE.len() as u64, mtime, 7);
        kept.keep(path, &fresh, SOURCE.as_bytes(), now, &index_module(SOURCE));
        // Rewritten in the same tick with the same size: every stamp alike, not the bytes.
        let same_size = "def add(a, b):\n    return a - b\n";
        assert_eq!(kept.lookup(path, &fresh, same_size.as_bytes(), now), None);
    }

    #[test]
    fn the_index_is_the_owners_alone() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("parses.db");
        let kept = ParseIndex::new(file.clone());
        let old = identity(SOURCE.len() as u64, 1_000_000_000, 7);
        let path = Path::new("/project/calc.py");
        kept.keep(
            path,
            &old,
            SOURCE.as_bytes(),
            SystemTime::now(),
            &index_module(SOURCE),
        );
        let mode = std::fs::metadata(&file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    #[test]
    fn an_index_of_another_format_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("parses.db");
        let path = Path::new("/project/calc.py");
        let old = identity(SOURCE.len() as u64, 1_000_000_000, 7);
        let now = SystemTime::now();
        ParseIndex::new(file.clone()).keep(
            path,
            &old,
            SOURCE.as_bytes(),
            now,
            &index_module(SOURCE),
        );
        let db = Connection::open(&file).unwrap();
        db.execute("UPDATE meta SET value = '0 homespace 0.0.0'", [])
            .unwrap();
        drop(db);
        let kept = ParseIndex::new(file);
        assert_eq!(kept.lookup(path, &old, SOURCE.as_bytes(), now), None);
    }
}
