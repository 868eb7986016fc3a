//! The history of routed edits of the project: every change homespace made to a project
//! file, with the file's content before and after, so `source/history/` can show each as a
//! diff and undo it. Stored in the same SQLite store as tasks.

use rusqlite::{Connection, OptionalExtension, params};

use crate::error::Result;

/// Migration 2: the edits table.
pub(crate) const SCHEMA: &str = "
CREATE TABLE source_edits (
    id      INTEGER PRIMARY KEY AUTOINCREMENT,
    at      TEXT NOT NULL,
    -- The file, relative to the project directory.
    path    TEXT NOT NULL,
    -- What happened, in a few words: `replace ledger.accounts.Account.debit`.
    what    TEXT NOT NULL,
    -- NULL before: the edit created the file; NULL after: it deleted the file.
    before  BLOB,
    after   BLOB
);
";

/// One recorded edit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    pub id: i64,
    pub at: String,
    pub path: String,
    pub what: String,
    pub before: Option<Vec<u8>>,
    pub after: Option<Vec<u8>>,
}

/// Record an edit; returns its number.
pub fn record(
    conn: &Connection,
    at: &str,
    path: &str,
    what: &str,
    before: Option<&[u8]>,
    after: Option<&[u8]>,
) -> Result<i64> {
    conn.execute(
        "INSERT INTO source_edits (at, path, what, before, after) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![at, path, what, before, after],
    )?;
    Ok(conn.last_insert_rowid())
}

/// Edit number `id`, if recorded.
pub fn get(conn: &Connection, id: i64) -> Result<Option<Edit>> {
    Ok(conn
        .query_row(
            "SELECT id, at, path, what, before, after FROM source_edits WHERE id = ?1",
            [id],
            |r| {
                Ok(Edit {
                    id: r.get(0)?,
                    at: r.get(1)?,
                    path: r.get(2)?,
                    what: r.get(3)?,
                    before: r.get(4)?,
                    after: r.get(5)?,
                })
            },
        )
        .optional()?)
}

/// An edit without its contents: (id, at, path, what).
pub type EditLine = (i64, String, String, String);

/// The newest `limit` edits without their contents, and how many there are in all.
pub fn newest(conn: &Connection, limit: usize) -> Result<(Vec<EditLine>, usize)> {
    let mut statement =
        conn.prepare("SELECT id, at, path, what FROM source_edits ORDER BY id DESC LIMIT ?1")?;
    let rows = statement
        .query_map([i64::try_from(limit).unwrap_or(i64::MAX)], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let total: i64 = conn.query_row("SELECT COUNT(*) FROM source_edits", [], |r| r.get(0))?;
    Ok((rows, usize::try_from(total).unwrap_or(0)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    #[test]
    fn edits_are_numbered_and_kept_whole() {
        let store = Store::in_memory().unwrap();
        let first = store
            .write(|c| {
                record(
                    c,
                    "t1",
                    "src/a.py",
                    "replace a.f",
                    Some(b"old"),
                    Some(b"new"),
                )
            })
            .unwrap();
        let second = store
            .write(|c| record(c, "t2", "src/b.py", "create b", None, Some(b"x")))
            .unwrap();
        assert_eq!((first, second), (1, 2));
        let edit = store.read(|c| get(c, 1)).unwrap().unwrap();
        assert_eq!(
            (edit.before.as_deref(), edit.after.as_deref()),
            (Some(&b"old"[..]), Some(&b"new"[..]))
        );
        let (rows, total) = store.read(|c| newest(c, 1)).unwrap();
        assert_eq!((rows[0].0, total), (2, 2));
        assert_eq!(store.read(|c| get(c, 9)).unwrap(), None);
    }
}
