//! The store of a mount: tasks, memory sessions, edit history, settings and test runs — the
//! single source of truth for everything that is not a project file (there is no second
//! copy, JSONL or cache, to drift). Either a SQLite file (`<project>/.homespace/store.db`
//! by default, its connection in `sqlite/`) or a PostgreSQL database that many mounts share
//! (`postgres/`). Each kind of record is an area (`tasks/`, `edits/`, `settings/`, `runs/`,
//! `memory/`) with one interface both backends answer; in `tasks/`, `edits/`, `settings/`
//! and `runs/` its `mod.rs` holds the rules once, over the SQL primitives each backend
//! answers in its own dialect (`sqlite.rs`, `postgres.rs`). `records.rs` finds each area's
//! interface for a transaction, and `row.rs` reads a row of either backend.
//!
//! Guarantees: every change goes through [`Store::change_records`] (or, on SQLite,
//! [`Store::write`]), one transaction that commits whole or not at all; reads go through
//! [`Store::records`] (or [`Store::read`]) and never change anything; other processes on
//! the same store (a second mount, the CLI) wait instead of failing.

pub mod copy;
pub mod edits;
pub mod fts;
pub mod location;
pub mod memory;
pub mod postgres;
pub mod records;
mod row;
pub mod runs;
pub mod settings;
mod sqlite;
pub mod tasks;
#[cfg(test)]
pub mod testing;

use std::path::Path;
use std::sync::{Mutex, MutexGuard, PoisonError};

use rusqlite::{Connection, TransactionBehavior};

use crate::error::{Error, ErrorKind, Result};
use memory::MemoryRecords;
use records::Records;
use tasks::TaskRecords;

/// The parts of the store that are on PostgreSQL so far, by SQLite's migration numbers.
const PG_MIGRATIONS: &[postgres::Migration] = &[
    (1, tasks::PG_SCHEMA),
    (2, edits::PG_SCHEMA),
    (3, settings::PG_SCHEMA),
    (4, memory::PG_SCHEMA),
    (5, ""),
    (6, ""),
    (7, runs::PG_SCHEMA),
    (8, edits::CHECKOUTS),
    (9, settings::PG_CHECKOUTS),
    (10, runs::CHECKOUTS),
    (11, postgres::CHANGES),
    (12, edits::PARTS),
    (13, memory::PG_FILES_SCHEMA),
    (14, memory::PG_WORDS_SCHEMA),
    (15, tasks::PG_OUTSTANDING),
    (16, memory::PG_COMPRESSION_SCHEMA),
    (17, memory::PG_STATISTICS_SCHEMA),
    (18, runs::PG_TRACES),
    (19, runs::PG_PROBING),
    (20, runs::PG_COUNTS),
    (21, runs::PG_COLLECTED),
];

/// The page cache of a bulk load, in KiB (allocated only as pages are used).
const BULK_CACHE_KIB: i64 = 128 * 1024;

/// The store of one mount.
///
/// One connection behind a `std::sync::Mutex`: a `rusqlite::Connection` is `Send` but not
/// `Sync`, and FUSE serves requests from several threads. One connection also makes one
/// writer path — SQLite allows a single writer anyway, so a pool would only add lock waits
/// inside SQLite. Our queries are short (indexed, `LIMIT`ed), so holding the lock for one
/// costs little. The lock is a plain blocking mutex, not an async one, because it is never
/// held across an `.await` — nothing in the store is async.
///
/// With a PostgreSQL backend ([`Store::connect`]) every record goes there; only
/// [`Store::read`] and [`Store::write`], which hand out the SQLite connection itself (to
/// SQLite's own tests and tools), are refused on it.
#[derive(Debug)]
pub struct Store {
    backend: Backend,
}

#[derive(Debug)]
enum Backend {
    Sqlite(Mutex<Connection>),
    // Boxed: its configuration is large, and a store is made once per mount.
    Postgres(Box<postgres::Postgres>),
}

impl Store {
    /// Opens (creating it and its directory if needed) the store at `path`, in WAL mode,
    /// and migrates its schema to the current version. A store made here is the owner's
    /// alone (0600, a new folder 0700): it holds transcripts, which may be private
    /// (SQLite gives its WAL and shared-memory files the same mode).
    pub fn open(path: &Path) -> Result<Store> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            crate::trust::private_dir(dir, false).map_err(|e| {
                Error::internal(format!(
                    "cannot create the store's directory {}: {e}",
                    dir.display()
                ))
            })?;
        }
        use std::os::unix::fs::OpenOptionsExt;
        let made = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(path);
        if let Err(e) = made
            && e.kind() != std::io::ErrorKind::AlreadyExists
        {
            return Err(Error::internal(format!(
                "cannot create the store {}: {e}",
                path.display()
            )));
        }
        let conn = Connection::open(path).map_err(|e| {
            Error::internal(format!("cannot open the store {}: {e}", path.display()))
        })?;
        Self::with_connection(conn, true)
    }

    /// Connects to the PostgreSQL store at `url` and migrates its schema.
    pub fn connect(url: &str) -> Result<Store> {
        Store {
            backend: Backend::Postgres(Box::new(postgres::Postgres::connect(url, PG_MIGRATIONS)?)),
        }
        .backfilled()
    }

    /// A private store in memory, for tests.
    pub fn in_memory() -> Result<Store> {
        let conn = Connection::open_in_memory()?;
        Self::with_connection(conn, false)
    }

    fn with_connection(mut conn: Connection, on_disk: bool) -> Result<Store> {
        sqlite::configure(&conn, on_disk)?;
        sqlite::migrate(&mut conn)?;
        Store {
            backend: Backend::Sqlite(Mutex::new(conn)),
        }
        .backfilled()
    }

    /// The store, with what its migrations left to the code done: the files sessions
    /// changed, read off the entries stored before the store kept them (once; a store
    /// that needs nothing pays one indexed read).
    fn backfilled(self) -> Result<Store> {
        self.change_memory(|m| m.fill_changed_files())?;
        Ok(self)
    }

    /// Runs `read` on the connection. Reads never change anything.
    pub fn read<T>(&self, read: impl FnOnce(&Connection) -> Result<T>) -> Result<T> {
        let conn = self.lock()?;
        read(&conn)
    }

    /// Runs `change` in one transaction: committed if it returns `Ok`, rolled back (nothing
    /// changed) if it returns `Err`. `BEGIN IMMEDIATE` takes SQLite's write lock up front, so
    /// another process holding it makes us wait (busy timeout) rather than fail half-way
    /// when a read lock cannot be upgraded.
    pub fn write<T>(&self, change: impl FnOnce(&Connection) -> Result<T>) -> Result<T> {
        let mut conn = self.lock()?;
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let value = change(&tx)?;
        tx.commit()?;
        Ok(value)
    }

    /// Runs `read` on the store's records, whichever backend holds them. Each statement
    /// sees the store as committed when it began (a read of several statements may see a
    /// change land between them, on either backend). Reads never change anything.
    pub fn records<T>(&self, read: impl FnOnce(&dyn Records) -> Result<T>) -> Result<T> {
        match &self.backend {
            Backend::Sqlite(_) => self.read(|conn| read(conn)),
            Backend::Postgres(pg) => pg.read(|tx| read(tx)),
        }
    }

    /// Runs `change` on the store's records in one transaction: committed if it returns
    /// `Ok`, rolled back (nothing changed) if it returns `Err`; changes from every process
    /// on the store follow one another.
    pub fn change_records<T>(&self, change: impl FnOnce(&dyn Records) -> Result<T>) -> Result<T> {
        match &self.backend {
            Backend::Sqlite(_) => self.write(|conn| change(conn)),
            Backend::Postgres(pg) => pg.write(|tx| change(tx)),
        }
    }

    /// Runs `read` on the store's tasks (see [`Store::records`]).
    pub fn tasks<T>(&self, read: impl FnOnce(&dyn TaskRecords) -> Result<T>) -> Result<T> {
        self.records(|db| read(db.tasks()))
    }

    /// Runs `change` on the store's tasks in one transaction (see [`Store::change_records`]).
    pub fn change_tasks<T>(&self, change: impl FnOnce(&dyn TaskRecords) -> Result<T>) -> Result<T> {
        self.change_records(|db| change(db.tasks()))
    }

    /// Runs `read` on the store's memory (see [`Store::records`]).
    pub fn memory<T>(&self, read: impl FnOnce(&dyn MemoryRecords) -> Result<T>) -> Result<T> {
        self.records(|db| read(db.memory()))
    }

    /// Runs `change` on the store's memory in one transaction (see
    /// [`Store::change_records`]).
    pub fn change_memory<T>(
        &self,
        change: impl FnOnce(&dyn MemoryRecords) -> Result<T>,
    ) -> Result<T> {
        self.change_records(|db| change(db.memory()))
    }

    /// A number that changes whenever another connection (another process: the CLI, a
    /// second mount) committed a change to the store; this connection's own changes leave
    /// it as it is.
    pub fn data_version(&self) -> Result<i64> {
        match &self.backend {
            Backend::Sqlite(conn) => Ok(conn
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .query_row("PRAGMA data_version", [], |r| r.get(0))?),
            // Heard by LISTEN/NOTIFY (see postgres/listen.rs).
            Backend::Postgres(pg) => Ok(pg.version()),
        }
    }

    /// Prepare this connection for a bulk load (`homespace import`): a page cache large
    /// enough that a file's transaction does not spill index pages to the WAL again and
    /// again, and statement journals in memory (every multi-row insert keeps one; on disk
    /// each page it touches is written to a temporary file first). Not for the daemon,
    /// whose memory must stay small.
    /// PostgreSQL's server keeps its own caches: nothing to prepare there.
    pub fn for_bulk_load(&self) -> Result<()> {
        if let Backend::Postgres(_) = self.backend {
            return Ok(());
        }
        let conn = self.lock()?;
        conn.pragma_update(None, "cache_size", -BULK_CACHE_KIB)?;
        conn.pragma_update(None, "temp_store", "MEMORY")?;
        Ok(())
    }

    /// The connection. A panic in another request while it held the lock poisons the mutex;
    /// the connection itself is still sound (an unfinished transaction rolls back when its
    /// guard drops), so we keep serving instead of failing every later request.
    fn lock(&self) -> Result<MutexGuard<'_, Connection>> {
        match &self.backend {
            Backend::Sqlite(conn) => Ok(conn.lock().unwrap_or_else(PoisonError::into_inner)),
            Backend::Postgres(pg) => Err(Error::internal(format!(
                "{pg:?}: this needs a SQLite store's own connection, and this store is on \
                 PostgreSQL"
            ))),
        }
    }
}

/// SQLite failures are ours, not the user's — except a lock another process holds past the
/// busy timeout, which trying again may cure.
impl From<rusqlite::Error> for Error {
    fn from(e: rusqlite::Error) -> Self {
        let busy = matches!(
            e.sqlite_error_code(),
            Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
        );
        if busy {
            Error::new(
                ErrorKind::Busy,
                format!("the store is in use by another process; try again ({e})"),
            )
        } else {
            Error::internal(format!("store: {e}"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Migration 16: on a server built with LZ4 (the scratch server is Debian's), memory's
    /// long columns compress with it; a store made before keeps its rows and reads them.
    #[test]
    fn memory_columns_compress_with_lz4_where_the_server_has_it() {
        let server = postgres::scratch::ScratchServer::start().unwrap();
        let url = server.database("homespace").unwrap();
        let old: Vec<_> = PG_MIGRATIONS
            .iter()
            .copied()
            .filter(|(n, _)| *n < 16)
            .collect();
        postgres::Postgres::connect(&url, &old).unwrap();
        let mut client = ::postgres::Client::connect(&url, ::postgres::NoTls).unwrap();
        let has_lz4: bool = client
            .query_one(
                "SELECT 'lz4' = ANY (enumvals) FROM pg_settings
                 WHERE name = 'default_toast_compression'",
                &[],
            )
            .unwrap()
            .get(0);
        let compression = |client: &mut ::postgres::Client| -> Vec<String> {
            client
                .query(
                    "SELECT a.attrelid::regclass::text || '.' || a.attname || '=' || a.attcompression::text
                     FROM pg_attribute a
                     WHERE (a.attrelid, a.attname) IN (('entries'::regclass, 'content'),
                         ('entries'::regclass, 'meta'), ('entries'::regclass, 'words'),
                         ('sessions'::regclass, 'words'))
                     ORDER BY 1",
                    &[],
                )
                .unwrap()
                .iter()
                .map(|r| r.get(0))
                .collect()
        };
        assert!(
            compression(&mut client).iter().all(|c| c.ends_with('=')),
            "pglz before"
        );
        Store::connect(&url).unwrap();
        let after = compression(&mut client);
        assert_eq!(after.len(), 4, "{after:?}");
        let expected = if has_lz4 { "=l" } else { "=" };
        assert!(after.iter().all(|c| c.ends_with(expected)), "{after:?}");
    }

    #[test]
    fn a_failed_write_changes_nothing() {
        let store = Store::in_memory().unwrap();
        let result: Result<()> = store.write(|tx| {
            tx.execute(
                "INSERT INTO tasks (slug, title, status, priority, description, created, updated)
                 VALUES ('a', 'A', 'open', 2, '', 't', 't')",
                [],
            )?;
            Err(Error::invalid("no"))
        });
        assert_eq!(result.unwrap_err().kind, ErrorKind::Invalid);
        let count: i64 = store
            .read(|c| Ok(c.query_row("SELECT count(*) FROM tasks", [], |r| r.get(0))?))
            .unwrap();
        assert_eq!(count, 0);
    }

    #[test]
    fn open_creates_the_directory_and_reopens() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".homespace").join("store.db");
        {
            let store = Store::open(&path).unwrap();
            store
                .write(|tx| {
                    tx.execute(
                        "INSERT INTO tasks (slug, title, status, priority, description, created, updated)
                         VALUES ('a', 'A', 'open', 2, '', 't', 't')",
                        [],
                    )?;
                    Ok(())
                })
                .unwrap();
        }
        let store = Store::open(&path).unwrap();
        let mode: String = store
            .read(|c| Ok(c.query_row("PRAGMA journal_mode", [], |r| r.get(0))?))
            .unwrap();
        assert_eq!(mode, "wal");
        let count: i64 = store
            .read(|c| Ok(c.query_row("SELECT count(*) FROM tasks", [], |r| r.get(0))?))
            .unwrap();
        assert_eq!(count, 1);
    }

    #[test]
    fn a_second_process_waits_for_the_writer_instead_of_failing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("store.db");
        let first = Store::open(&path).unwrap();
        let second = Store::open(&path).unwrap();
        let insert = |store: &Store, slug: &str| {
            store.write(|tx| {
                tx.execute(
                    "INSERT INTO tasks (slug, title, status, priority, description, created, updated)
                     VALUES (?1, 'T', 'open', 2, '', 't', 't')",
                    [slug],
                )?;
                Ok(())
            })
        };
        let (started, wait) = std::sync::mpsc::channel();
        std::thread::scope(|scope| {
            scope.spawn(|| {
                first
                    .write(|tx| {
                        tx.execute(
                            "INSERT INTO tasks (slug, title, status, priority, description, created, updated)
                             VALUES ('a', 'A', 'open', 2, '', 't', 't')",
                            [],
                        )?;
                        started.send(()).unwrap();
                        // Hold the write lock while the other store tries to write.
                        std::thread::sleep(std::time::Duration::from_millis(200));
                        Ok(())
                    })
                    .unwrap();
            });
            wait.recv().unwrap();
            insert(&second, "b").unwrap();
        });
        let count: i64 = second
            .read(|c| Ok(c.query_row("SELECT count(*) FROM tasks", [], |r| r.get(0))?))
            .unwrap();
        assert_eq!(count, 2);
    }
}
