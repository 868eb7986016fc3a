//! The PostgreSQL backend of [`EditRows`], and the edits table's PostgreSQL migration.

use super::{EDIT_COLUMNS, Edit, EditLine, EditRows, NewEdit, edit_of, line_of};
use crate::error::Result;
use crate::store::postgres::Tx;
use crate::store::row::limit;

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

impl EditRows for Tx<'_> {
    fn insert(&self, e: &NewEdit<'_>) -> Result<i64> {
        let at = e.at.to_string();
        let row = self.query_one(
            "INSERT INTO source_edits (checkout, at, path, what, before, after, part_of)
             VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id",
            &[
                &e.checkout,
                &at,
                &e.path,
                &e.what,
                &e.before,
                &e.after,
                &e.part_of,
            ],
        )?;
        Ok(row.get(0))
    }

    fn get(&self, checkout: &str, id: i64) -> Result<Option<Edit>> {
        let sql = format!(
            "SELECT {EDIT_COLUMNS} FROM source_edits WHERE id = $1 AND checkout IN ('', $2)"
        );
        let row = self.query_opt(&sql, &[&id, &checkout])?;
        row.as_ref().map(edit_of).transpose()
    }

    fn newest_changes(&self, checkout: &str, n: usize) -> Result<Vec<EditLine>> {
        let rows = self.query(
            "SELECT id, at, path || coalesce((SELECT ', ' || string_agg(p.path, ', ' ORDER BY p.id)
                     FROM source_edits p WHERE p.part_of = e.id), ''),
                 what
             FROM source_edits e WHERE checkout IN ('', $1) AND part_of IS NULL
             ORDER BY id DESC LIMIT $2",
            &[&checkout, &limit(n)],
        )?;
        rows.iter().map(line_of).collect()
    }

    fn count_changes(&self, checkout: &str) -> Result<i64> {
        let row = self.query_one(
            "SELECT count(*) FROM source_edits WHERE checkout IN ('', $1) AND part_of IS NULL",
            &[&checkout],
        )?;
        Ok(row.get(0))
    }

    fn change_numbered(&self, checkout: &str, number: i64) -> Result<Option<i64>> {
        if number < 1 {
            return Ok(None);
        }
        let row = self.query_opt(
            "SELECT id FROM source_edits WHERE checkout IN ('', $1) AND part_of IS NULL
             ORDER BY id LIMIT 1 OFFSET $2",
            &[&checkout, &(number - 1)],
        )?;
        Ok(row.map(|r| r.get(0)))
    }

    fn number_of_change(&self, checkout: &str, id: i64) -> Result<i64> {
        let row = self.query_one(
            "SELECT count(*) FROM source_edits
             WHERE checkout IN ('', $1) AND part_of IS NULL AND id <= $2",
            &[&checkout, &id],
        )?;
        Ok(row.get(0))
    }

    fn parts(&self, checkout: &str, id: i64) -> Result<Vec<Edit>> {
        let rows = self.query(
            &format!(
                "SELECT {EDIT_COLUMNS} FROM source_edits
                 WHERE part_of = $1 AND checkout IN ('', $2) ORDER BY id"
            ),
            &[&id, &checkout],
        )?;
        rows.iter().map(edit_of).collect()
    }

    fn every(&self, after: i64, n: usize) -> Result<Vec<Edit>> {
        let rows = self.query(
            &format!("SELECT {EDIT_COLUMNS} FROM source_edits WHERE id > $1 ORDER BY id LIMIT $2"),
            &[&after, &limit(n)],
        )?;
        rows.iter().map(edit_of).collect()
    }

    fn count_all(&self) -> Result<i64> {
        Ok(self
            .query_one("SELECT count(*) FROM source_edits", &[])?
            .get(0))
    }
}
