//! Opening the SQLite file: connection settings (WAL, busy timeout, foreign keys) and the
//! schema migrations that run on open. The schema version lives in `PRAGMA user_version`;
//! migration N brings a store from version N-1 to N, inside one transaction with the version
//! bump, so a crash mid-migration leaves the old version intact.

use std::time::Duration;

use rusqlite::{Connection, TransactionBehavior};

use crate::error::{Error, Result};

/// How long a request waits for another process (a second mount, the CLI) to release the
/// store before giving up with "busy".
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// The page size of a new store, in bytes.
const PAGE_SIZE: i64 = 16 * 1024;

/// The migrations, in order; the store's version is how many of them it has run. Append
/// only: a released migration never changes, or existing stores would diverge from new ones.
pub(super) const MIGRATIONS: &[&str] = &[
    super::tasks::SCHEMA,
    super::edits::SCHEMA,
    super::settings::SCHEMA,
    super::memory::SCHEMA,
    super::memory::BULK_SCHEMA,
    super::memory::KEYS_SCHEMA,
    super::runs::SCHEMA,
    super::edits::CHECKOUTS,
    super::settings::CHECKOUTS,
    super::runs::CHECKOUTS,
    // 11: PostgreSQL's announcement of every change (postgres/changes.sql); SQLite's
    // data_version already tells of every writer.
    "",
    super::edits::PARTS,
    super::memory::FILES_SCHEMA,
    // 14: PostgreSQL's entries' words written by homespace (memory/postgres/words.sql);
    // FTS5 cuts its own.
    "",
    // 15: PostgreSQL's index of the outstanding tasks in listing order
    // (tasks/outstanding.pg.sql); SQLite sorts them in-process as fast as it would walk one.
    "",
    // 16: PostgreSQL's memory columns compressed with LZ4 (memory/postgres/compression.sql);
    // SQLite does not compress.
    "",
    // 17: the planner's statistics of PostgreSQL's entries' words
    // (memory/postgres/statistics.sql); FTS5 counts a word's entries from its own index.
    "",
    super::runs::TRACES,
    super::runs::PROBING,
    super::runs::COUNTS,
    super::runs::COLLECTED,
];

/// Connection settings, applied on every open (they are not stored in the file, except WAL).
pub(super) fn configure(conn: &Connection, on_disk: bool) -> Result<()> {
    conn.busy_timeout(BUSY_TIMEOUT)?;
    // Views run a dozen distinct statements (one per filter and status); the default cache
    // of 16 would evict and re-prepare them on every view.
    conn.set_prepared_statement_cache_capacity(128);
    // WAL: readers (another process, the CLI) never block the writer and vice versa, and a
    // killed daemon leaves the file consistent. NORMAL sync is safe in WAL mode: a power cut
    // can lose the last commits, never corrupt the store. In-memory stores have no journal.
    if on_disk {
        // Only a new, empty file takes it (and only before WAL mode is on); a store made
        // with 4 KiB pages keeps them. Memory's rows are long texts and its full-text index
        // is large: with 16 KiB pages `homespace import` writes fewer pages (and WAL
        // frames) and runs faster, and the file is smaller.
        conn.pragma_update(None, "page_size", PAGE_SIZE)?;
        let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(Error::internal(format!(
                "the store cannot use WAL mode (got {mode}); is it on a network filesystem?"
            )));
        }
        conn.pragma_update(None, "synchronous", "NORMAL")?;
    }
    // Off by default in SQLite; the schema relies on it (a task cannot depend on a task
    // that is gone).
    conn.pragma_update(None, "foreign_keys", true)?;
    Ok(())
}

/// Brings the schema up to date. Two processes opening a fresh store at once are
/// serialized by the immediate transaction; the second sees the first one's version.
pub(super) fn migrate(conn: &mut Connection) -> Result<()> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let stored: i64 = tx.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    let latest = MIGRATIONS.len();
    let version = usize::try_from(stored).unwrap_or(usize::MAX);
    if version > latest {
        return Err(Error::internal(format!(
            "the store has schema version {stored}, newer than this homespace knows \
             ({latest}): update homespace or use another --store"
        )));
    }
    for migration in &MIGRATIONS[version..] {
        tx.execute_batch(migration)?;
    }
    if version < latest {
        tx.pragma_update(
            None,
            "user_version",
            i64::try_from(latest).unwrap_or(i64::MAX),
        )?;
    }
    tx.commit()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migrations_run_once_and_set_the_version() {
        let mut conn = Connection::open_in_memory().unwrap();
        configure(&conn, false).unwrap();
        migrate(&mut conn).unwrap();
        migrate(&mut conn).unwrap();
        let version: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(version, MIGRATIONS.len() as i64);
    }

    #[test]
    fn new_stores_get_large_pages_and_old_ones_keep_theirs() {
        let dir = tempfile::tempdir().unwrap();
        let page_size = |path: &std::path::Path| -> i64 {
            let mut conn = Connection::open(path).unwrap();
            configure(&conn, true).unwrap();
            migrate(&mut conn).unwrap();
            conn.query_row("PRAGMA page_size", [], |r| r.get(0))
                .unwrap()
        };
        let new = dir.path().join("new.db");
        assert_eq!(page_size(&new), PAGE_SIZE);
        assert_eq!(page_size(&new), PAGE_SIZE, "reopened");
        let old = dir.path().join("old.db");
        let conn = Connection::open(&old).unwrap();
        conn.execute_batch("CREATE TABLE t (x); INSERT INTO t VALUES (1);")
            .unwrap();
        drop(conn);
        assert_eq!(page_size(&old), 4096, "an existing file keeps its pages");
    }

    #[test]
    fn migration_6_rebuilds_the_key_indexes_of_a_store_with_entries() {
        let mut conn = Connection::open_in_memory().unwrap();
        configure(&conn, false).unwrap();
        for migration in &MIGRATIONS[..5] {
            conn.execute_batch(migration).unwrap();
        }
        conn.pragma_update(None, "user_version", 5).unwrap();
        conn.execute_batch(&format!(
            "INSERT INTO sessions (rowid, id, source, day) VALUES (1, 'old', 'generic', '2026-01-01');
             WITH RECURSIVE n(seq) AS (SELECT 1 UNION ALL SELECT seq + 1 FROM n WHERE seq < 40)
             INSERT INTO entries (id, session, seq, channel, key, content)
             SELECT {}, 1, seq, 'user', 'k' || seq, 'text' FROM n;",
            crate::store::memory::entry_id_sql("1", "seq")
        ))
        .unwrap();
        migrate(&mut conn).unwrap();
        let plan: String = conn
            .query_row(
                "EXPLAIN QUERY PLAN SELECT session FROM entries WHERE seq <= 32 AND key = 'k3'",
                [],
                |r| r.get(3),
            )
            .unwrap();
        assert!(plan.contains("entries_opening_keys"), "{plan}");
        let opening: i64 = conn
            .query_row(
                "SELECT count(*) FROM entries INDEXED BY entries_opening_keys
                 WHERE seq <= 32 AND key > ''",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(opening, 32, "the existing entries are in the new index");
        let again = conn.execute(
            "INSERT INTO entries (id, session, seq, channel, key, content)
             VALUES (?1, 1, 41, 'user', 'k7', 'again')",
            [crate::store::memory::entry_id(1, 41)],
        );
        assert!(
            again.is_err_and(|e| e.to_string().contains("UNIQUE")),
            "a session still holds a key once"
        );
    }

    #[test]
    fn a_store_from_a_newer_version_is_refused() {
        let mut conn = Connection::open_in_memory().unwrap();
        conn.pragma_update(None, "user_version", 999).unwrap();
        let err = migrate(&mut conn).unwrap_err();
        assert!(err.message.contains("newer"), "{}", err.message);
    }
}
