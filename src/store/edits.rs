//! The history of routed edits of the project: every change homespace made to a project
//! file, with the file's content before and after, so `source/history/` can show each as a
//! diff and undo it. Kept by either backend of the store ([`EditRecords`]).

use rusqlite::{Connection, OptionalExtension, params};

use crate::error::Result;
use crate::store::pg::Tx;

/// Migration 2 for PostgreSQL.
pub(crate) const PG_SCHEMA: &str = "
CREATE TABLE source_edits (
    id      BIGSERIAL PRIMARY KEY,
    at      TEXT NOT NULL,
    path    TEXT NOT NULL,
    what    TEXT NOT NULL,
    before  BYTEA,
    after   BYTEA
);
";

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

/// The recorded edits of a store, whichever backend holds them.
pub trait EditRecords {
    /// Record an edit; returns its number.
    fn record(
        &self,
        at: &str,
        path: &str,
        what: &str,
        before: Option<&[u8]>,
        after: Option<&[u8]>,
    ) -> Result<i64>;
    /// Edit number `id`, if recorded.
    fn get(&self, id: i64) -> Result<Option<Edit>>;
    /// The newest `limit` edits without their contents, and how many there are in all.
    fn newest(&self, limit: usize) -> Result<(Vec<EditLine>, usize)>;
}

/// An edit without its contents: (id, at, path, what).
pub type EditLine = (i64, String, String, String);

impl EditRecords for Connection {
    fn record(
        &self,
        at: &str,
        path: &str,
        what: &str,
        before: Option<&[u8]>,
        after: Option<&[u8]>,
    ) -> Result<i64> {
        self.execute(
            "INSERT INTO source_edits (at, path, what, before, after) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![at, path, what, before, after],
        )?;
        Ok(self.last_insert_rowid())
    }

    fn get(&self, id: i64) -> Result<Option<Edit>> {
        Ok(self
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

    fn newest(&self, limit: usize) -> Result<(Vec<EditLine>, usize)> {
        let mut statement =
            self.prepare("SELECT id, at, path, what FROM source_edits ORDER BY id DESC LIMIT ?1")?;
        let rows = statement
            .query_map([i64::try_from(limit).unwrap_or(i64::MAX)], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        let total: i64 = self.query_row("SELECT COUNT(*) FROM source_edits", [], |r| r.get(0))?;
        Ok((rows, usize::try_from(total).unwrap_or(0)))
    }
}

impl EditRecords for Tx<'_> {
    fn record(
        &self,
        at: &str,
        path: &str,
        what: &str,
        before: Option<&[u8]>,
        after: Option<&[u8]>,
    ) -> Result<i64> {
        Ok(self
            .query_one(
                "INSERT INTO source_edits (at, path, what, before, after)
                 VALUES ($1, $2, $3, $4, $5) RETURNING id",
                &[&at, &path, &what, &before, &after],
            )?
            .get(0))
    }

    fn get(&self, id: i64) -> Result<Option<Edit>> {
        let row = self.query_opt(
            "SELECT id, at, path, what, before, after FROM source_edits WHERE id = $1",
            &[&id],
        )?;
        Ok(row.map(|r| Edit {
            id: r.get(0),
            at: r.get(1),
            path: r.get(2),
            what: r.get(3),
            before: r.get(4),
            after: r.get(5),
        }))
    }

    fn newest(&self, limit: usize) -> Result<(Vec<EditLine>, usize)> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = self.query(
            "SELECT id, at, path, what FROM source_edits ORDER BY id DESC LIMIT $1",
            &[&limit],
        )?;
        let total: i64 = self
            .query_one("SELECT count(*) FROM source_edits", &[])?
            .get(0);
        Ok((
            rows.iter()
                .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3)))
                .collect(),
            usize::try_from(total).unwrap_or(0),
        ))
    }
}

#[cfg(test)]
mod tests {
    use crate::store::testing::for_each_backend;

    #[test]
    fn edits_are_numbered_and_kept_whole() {
        for_each_backend(|store| {
            let first = store
                .change_records(|db| {
                    db.edits()
                        .record("t1", "src/a.py", "replace a.f", Some(b"old"), Some(b"new"))
                })
                .unwrap();
            let second = store
                .change_records(|db| {
                    db.edits()
                        .record("t2", "src/b.py", "create b", None, Some(b"x"))
                })
                .unwrap();
            assert_eq!((first, second), (1, 2));
            let edit = store.records(|db| db.edits().get(1)).unwrap().unwrap();
            assert_eq!(
                (edit.before.as_deref(), edit.after.as_deref()),
                (Some(&b"old"[..]), Some(&b"new"[..]))
            );
            let (rows, total) = store.records(|db| db.edits().newest(1)).unwrap();
            assert_eq!((rows[0].0, total), (2, 2));
            assert_eq!(store.records(|db| db.edits().get(9)).unwrap(), None);
        });
    }
}
