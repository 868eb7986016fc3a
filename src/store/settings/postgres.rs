//! The PostgreSQL backend of [`SettingRecords`], and the settings table's PostgreSQL
//! migrations.

use super::{EVERY, Setting, SettingRecords, setting_of};
use crate::error::Result;
use crate::store::postgres::Tx;

/// Migration 3 for PostgreSQL.
pub(crate) const PG_SCHEMA: &str = "
CREATE TABLE settings (
    name TEXT PRIMARY KEY,
    text TEXT NOT NULL
);
";

/// Migration 9 for PostgreSQL.
pub(crate) const PG_CHECKOUTS: &str = "
ALTER TABLE settings ADD COLUMN checkout TEXT NOT NULL DEFAULT '';
ALTER TABLE settings DROP CONSTRAINT settings_pkey;
ALTER TABLE settings ADD PRIMARY KEY (checkout, name);
";

impl SettingRecords for Tx<'_> {
    fn get(&self, checkout: &str, name: &str) -> Result<Option<String>> {
        // The checkout's own first: false orders before true.
        let row = self.query_opt(
            "SELECT text FROM settings WHERE name = $1 AND checkout IN ('', $2)
             ORDER BY checkout = '' LIMIT 1",
            &[&name, &checkout],
        )?;
        Ok(row.map(|r| r.get(0)))
    }

    fn put(&self, checkout: &str, name: &str, text: &str) -> Result<()> {
        self.execute(
            "INSERT INTO settings (checkout, name, text) VALUES ($1, $2, $3)
             ON CONFLICT (checkout, name) DO UPDATE SET text = excluded.text",
            &[&checkout, &name, &text],
        )?;
        Ok(())
    }

    fn every(&self) -> Result<Vec<Setting>> {
        self.query(EVERY, &[])?.iter().map(setting_of).collect()
    }
}
