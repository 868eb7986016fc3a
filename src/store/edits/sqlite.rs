//! The SQLite backend of [`EditRows`], and the edits table's SQLite migration.

use rusqlite::{Connection, OptionalExtension, params};

use super::{EDIT_COLUMNS, Edit, EditLine, EditRows, NewEdit, edit_of, line_of};
use crate::error::Result;
use crate::store::row::{limit, sqlite_rows};

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

impl EditRows for Connection {
    fn insert(&self, e: &NewEdit<'_>) -> Result<i64> {
        let at = e.at.to_string();
        self.execute(
            "INSERT INTO source_edits (checkout, at, path, what, before, after, part_of)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![e.checkout, at, e.path, e.what, e.before, e.after, e.part_of],
        )?;
        Ok(self.last_insert_rowid())
    }

    fn get(&self, checkout: &str, id: i64) -> Result<Option<Edit>> {
        let sql = format!(
            "SELECT {EDIT_COLUMNS} FROM source_edits WHERE id = ?1 AND checkout IN ('', ?2)"
        );
        let mut statement = self.prepare(&sql)?;
        let row = statement.query_row(params![id, checkout], |r| Ok(edit_of(r)));
        row.optional()?.transpose()
    }

    fn newest_changes(&self, checkout: &str, n: usize) -> Result<Vec<EditLine>> {
        let mut statement = self.prepare(
            "SELECT id, at, path || coalesce((SELECT ', ' || group_concat(p.path, ', ')
                     FROM (SELECT path FROM source_edits WHERE part_of = e.id ORDER BY id) p), ''),
                 what
             FROM source_edits e WHERE checkout IN ('', ?1) AND part_of IS NULL
             ORDER BY id DESC LIMIT ?2",
        )?;
        sqlite_rows(statement.query(params![checkout, limit(n)])?, line_of)
    }

    fn count_changes(&self, checkout: &str) -> Result<i64> {
        Ok(self.query_row(
            "SELECT count(*) FROM source_edits WHERE checkout IN ('', ?1) AND part_of IS NULL",
            [checkout],
            |r| r.get(0),
        )?)
    }

    fn change_numbered(&self, checkout: &str, number: i64) -> Result<Option<i64>> {
        if number < 1 {
            return Ok(None);
        }
        Ok(self
            .query_row(
                "SELECT id FROM source_edits WHERE checkout IN ('', ?1) AND part_of IS NULL
                 ORDER BY id LIMIT 1 OFFSET ?2",
                params![checkout, number - 1],
                |r| r.get(0),
            )
            .optional()?)
    }

    fn number_of_change(&self, checkout: &str, id: i64) -> Result<i64> {
        Ok(self.query_row(
            "SELECT count(*) FROM source_edits
             WHERE checkout IN ('', ?1) AND part_of IS NULL AND id <= ?2",
            params![checkout, id],
            |r| r.get(0),
        )?)
    }

    fn parts(&self, checkout: &str, id: i64) -> Result<Vec<Edit>> {
        let mut statement = self.prepare(&format!(
            "SELECT {EDIT_COLUMNS} FROM source_edits
             WHERE part_of = ?1 AND checkout IN ('', ?2) ORDER BY id"
        ))?;
        sqlite_rows(statement.query(params![id, checkout])?, edit_of)
    }

    fn every(&self, after: i64, n: usize) -> Result<Vec<Edit>> {
        let mut statement = self.prepare(&format!(
            "SELECT {EDIT_COLUMNS} FROM source_edits WHERE id > ?1 ORDER BY id LIMIT ?2"
        ))?;
        sqlite_rows(statement.query(params![after, limit(n)])?, edit_of)
    }

    fn count_all(&self) -> Result<i64> {
        Ok(self.query_row("SELECT count(*) FROM source_edits", [], |r| r.get(0))?)
    }
}
