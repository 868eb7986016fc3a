//! Settings documents once kept in the store, by name (`source` for
//! `source/meta/settings.toml`), by either backend ([`SettingRecords`]). Settings now live
//! in the checkout (`.homespace/settings.toml`, the owner's alone): anyone who may write a
//! store could otherwise choose what the owner's daemon runs. What was stored is still read
//! — without the settings that run something — until the checkout writes its own file, and
//! a store copy carries it.
//!
//! Each document belongs to the checkout that wrote it (`resources::source::checkout`);
//! those from before they were kept per checkout (migration 9) have the empty key and hold
//! for every checkout that has not written its own.

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

/// Migration 3 for PostgreSQL.
pub(crate) const PG_SCHEMA: &str = "
CREATE TABLE settings (
    name TEXT PRIMARY KEY,
    text TEXT NOT NULL
);
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

/// Migration 9 for PostgreSQL.
pub(crate) const PG_CHECKOUTS: &str = "
ALTER TABLE settings ADD COLUMN checkout TEXT NOT NULL DEFAULT '';
ALTER TABLE settings DROP CONSTRAINT settings_pkey;
ALTER TABLE settings ADD PRIMARY KEY (checkout, name);
";

/// One stored settings document, as a copy of the whole store carries it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setting {
    /// Whose: the checkout that wrote it, `''` from before settings were kept per checkout.
    pub checkout: String,
    pub name: String,
    pub text: String,
}

/// The settings documents of a store, whichever backend holds them. `checkout` is whose.
pub trait SettingRecords {
    /// The stored text of `checkout`'s settings `name`, else the one from before settings
    /// were kept per checkout, if any was written.
    fn get(&self, checkout: &str, name: &str) -> Result<Option<String>>;
    /// Store `text` as `checkout`'s settings `name`.
    fn put(&self, checkout: &str, name: &str, text: &str) -> Result<()>;
    /// Every checkout's settings documents, by checkout and name: what a copy of the whole
    /// store carries.
    fn every(&self) -> Result<Vec<Setting>>;
}

/// The query of [`SettingRecords::every`], the same on both backends.
const EVERY: &str = "SELECT checkout, name, text FROM settings ORDER BY checkout, name";

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
        let mut statement = self.prepare(EVERY)?;
        let settings = statement
            .query_map([], |r| {
                Ok(Setting {
                    checkout: r.get(0)?,
                    name: r.get(1)?,
                    text: r.get(2)?,
                })
            })?
            .collect::<rusqlite::Result<_>>()?;
        Ok(settings)
    }
}

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
        Ok(self
            .query(EVERY, &[])?
            .iter()
            .map(|r| Setting {
                checkout: r.get(0),
                name: r.get(1),
                text: r.get(2),
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use crate::store::testing::{for_each_backend, for_each_backend_from};

    /// Two checkouts' keys, as `resources::source::checkout::key` makes them.
    const HERE: &str = "build-1:/work/app";
    const THERE: &str = "build-2:/work/app";

    #[test]
    fn settings_read_back_as_written_and_the_last_write_counts() {
        for_each_backend(|store| {
            let read = || {
                store
                    .records(|db| db.settings().get(HERE, "source"))
                    .unwrap()
            };
            assert_eq!(read(), None);
            for text in ["a = 1\n", "# só\nb = 2\n"] {
                store
                    .change_records(|db| db.settings().put(HERE, "source", text))
                    .unwrap();
                assert_eq!(read().as_deref(), Some(text));
            }
        });
    }

    #[test]
    fn each_checkout_reads_its_own_settings_else_those_from_before_checkouts() {
        let before = "INSERT INTO settings (name, text) VALUES ('source', 'old = 1');";
        for_each_backend_from(7, before, |store| {
            let read = |checkout: &str| {
                store
                    .records(|db| db.settings().get(checkout, "source"))
                    .unwrap()
            };
            let put = |checkout: &str, text: &str| {
                store
                    .change_records(|db| db.settings().put(checkout, "source", text))
                    .unwrap()
            };
            assert_eq!(read(HERE).as_deref(), Some("old = 1"));
            put(HERE, "here = 1");
            assert_eq!(read(HERE).as_deref(), Some("here = 1"), "its own first");
            assert_eq!(read(THERE).as_deref(), Some("old = 1"));
            put(THERE, "there = 1");
            put(THERE, "there = 2");
            assert_eq!(read(THERE).as_deref(), Some("there = 2"));
            assert_eq!(read(HERE).as_deref(), Some("here = 1"));
            let other = store
                .records(|db| db.settings().get("build-3:/work/app", "source"))
                .unwrap();
            assert_eq!(other.as_deref(), Some("old = 1"), "the old ones are kept");
            let every = store.records(|db| db.settings().every()).unwrap();
            let whose: Vec<(&str, &str)> = every
                .iter()
                .map(|s| (s.checkout.as_str(), s.text.as_str()))
                .collect();
            assert_eq!(
                whose,
                [("", "old = 1"), (HERE, "here = 1"), (THERE, "there = 2")]
            );
        });
    }

    #[test]
    fn a_checkout_never_reads_another_checkouts_settings() {
        for_each_backend(|store| {
            store
                .change_records(|db| db.settings().put(HERE, "source", "here = 1"))
                .unwrap();
            let there = store
                .records(|db| db.settings().get(THERE, "source"))
                .unwrap();
            assert_eq!(there, None);
        });
    }
}
