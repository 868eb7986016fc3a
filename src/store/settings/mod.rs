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

mod postgres;
mod sqlite;

use crate::error::Result;
use crate::store::row::Row;

pub(crate) use postgres::{PG_CHECKOUTS, PG_SCHEMA};
pub(crate) use sqlite::{CHECKOUTS, SCHEMA};

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

/// A row of [`EVERY`].
fn setting_of(r: &impl Row) -> Result<Setting> {
    Ok(Setting {
        checkout: r.value(0)?,
        name: r.value(1)?,
        text: r.value(2)?,
    })
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
