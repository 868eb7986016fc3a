//! Settings documents kept in the store, by name (`source` for `source/meta/settings.toml`):
//! the exact text a user wrote, so reading it back gives the same bytes.

use rusqlite::{Connection, OptionalExtension, params};

use crate::error::Result;

/// Migration 3: the settings table.
pub(crate) const SCHEMA: &str = "
CREATE TABLE settings (
    name TEXT PRIMARY KEY,
    text TEXT NOT NULL
) WITHOUT ROWID;
";

/// The stored text of settings `name`, if any was written.
pub fn get(conn: &Connection, name: &str) -> Result<Option<String>> {
    Ok(conn
        .query_row("SELECT text FROM settings WHERE name = ?1", [name], |r| {
            r.get(0)
        })
        .optional()?)
}

/// Store `text` as settings `name`.
pub fn put(conn: &Connection, name: &str, text: &str) -> Result<()> {
    conn.execute(
        "INSERT INTO settings (name, text) VALUES (?1, ?2) ON CONFLICT (name) DO UPDATE SET text = excluded.text",
        params![name, text],
    )?;
    Ok(())
}
