//! The SQLite backend of [`SettingRecords`], and the settings table's SQLite migrations.

use rusqlite::{Connection, OptionalExtension, params};

use super::{EVERY, Setting, SettingRecords, setting_of};
use crate::error::Result;
use crate::store::row::sqlite_rows;

/// Migration 3: the settings table.
pub(crate) const SCHEMA: &str = "
CREATE TABLE settings (
    name TEXT PRIMARY KEY,
    text TEXT NOT NULL
) WITHOUT ROWID;
";

/// Migration 9: each document's checkout. SQLite cannot change a primary key in place, so
/// the table is copied into its new shape.
pub(crate) const CHECKOUTS: &str = "
CREATE TABLE settings_of_checkouts (
    checkout TEXT NOT NULL DEFAULT '',
    name     TEXT NOT NULL,
    text     TEXT NOT NULL,
    PRIMARY KEY (checkout, name)
) WITHOUT ROWID;
INSERT INTO settings_of_checkouts (name, text) SELECT name, text FROM settings;
DROP TABLE settings;
ALTER TABLE settings_of_checkouts RENAME TO settings;
";

impl SettingRecords for Connection {
    fn get(&self, checkout: &str, name: &str) -> Result<Option<String>> {
        // The checkout's own first: `checkout = ''` is 0 for it.
        Ok(self
            .query_row(
                "SELECT text FROM settings WHERE name = ?1 AND checkout IN ('', ?2)
                 ORDER BY checkout = '' LIMIT 1",
                params![name, checkout],
                |r| r.get(0),
            )
            .optional()?)
    }

    fn put(&self, checkout: &str, name: &str, text: &str) -> Result<()> {
        self.execute(
            "INSERT INTO settings (checkout, name, text) VALUES (?1, ?2, ?3)
             ON CONFLICT (checkout, name) DO UPDATE SET text = excluded.text",
            params![checkout, name, text],
        )?;
        Ok(())
    }

    fn every(&self) -> Result<Vec<Setting>> {
        sqlite_rows(self.prepare(EVERY)?.query([])?, setting_of)
    }
}
