//! Settings documents kept in the store, by name (`source` for `source/meta/settings.toml`):
//! the exact text a user wrote, so reading it back gives the same bytes. Kept by either
//! backend ([`SettingRecords`]).

use rusqlite::{Connection, OptionalExtension, params};

use crate::error::Result;
use crate::store::pg::Tx;

/// Migration 3: the settings table.
pub(crate) const SCHEMA: &str = "
CREATE TABLE settings (
    name TEXT PRIMARY KEY,
    text TEXT NOT NULL
) WITHOUT ROWID;
";

/// The settings documents of a store, whichever backend holds them.
pub trait SettingRecords {
    /// The stored text of settings `name`, if any was written.
    fn get(&self, name: &str) -> Result<Option<String>>;
    /// Store `text` as settings `name`.
    fn put(&self, name: &str, text: &str) -> Result<()>;
}

/// Migration 3 for PostgreSQL.
pub(crate) const PG_SCHEMA: &str = "
CREATE TABLE settings (
    name TEXT PRIMARY KEY,
    text TEXT NOT NULL
);
";

impl SettingRecords for Connection {
    fn get(&self, name: &str) -> Result<Option<String>> {
        Ok(self
            .query_row("SELECT text FROM settings WHERE name = ?1", [name], |r| {
                r.get(0)
            })
            .optional()?)
    }

    fn put(&self, name: &str, text: &str) -> Result<()> {
        self.execute(
            "INSERT INTO settings (name, text) VALUES (?1, ?2) ON CONFLICT (name) DO UPDATE SET text = excluded.text",
            params![name, text],
        )?;
        Ok(())
    }
}

impl SettingRecords for Tx<'_> {
    fn get(&self, name: &str) -> Result<Option<String>> {
        let row = self.query_opt("SELECT text FROM settings WHERE name = $1", &[&name])?;
        Ok(row.map(|r| r.get(0)))
    }

    fn put(&self, name: &str, text: &str) -> Result<()> {
        self.execute(
            "INSERT INTO settings (name, text) VALUES ($1, $2)
             ON CONFLICT (name) DO UPDATE SET text = excluded.text",
            &[&name, &text],
        )?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::store::testing::for_each_backend;

    #[test]
    fn settings_read_back_as_written_and_the_last_write_counts() {
        for_each_backend(|store| {
            let read = || store.records(|db| db.settings().get("source")).unwrap();
            assert_eq!(read(), None);
            for text in ["a = 1\n", "# só\nb = 2\n"] {
                store
                    .change_records(|db| db.settings().put("source", text))
                    .unwrap();
                assert_eq!(read().as_deref(), Some(text));
            }
        });
    }
}
