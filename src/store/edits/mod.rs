//! The history of routed edits of the project: every change homespace made to a project
//! file, with the file's content before and after, so `source/history/` can show each as a
//! diff and undo it. Kept by either backend of the store ([`EditRecords`]).
//!
//! Edits are of one checkout's files, so each belongs to the checkout that made it (the
//! key the source resource passes: `resources::source::checkout`) and another checkout
//! sharing the store never sees or undoes it. Edits recorded before they were kept per
//! checkout (migration 8) have the empty key and belong to every checkout: on SQLite they
//! are the mount's own (the store sits in its project), on PostgreSQL they were shared
//! already, and nothing tells whose they were.

mod postgres;
mod sqlite;

use crate::error::{Error, Result};
use crate::model::time::Time;
use crate::store::row::{Row, size};

pub(crate) use postgres::PG_SCHEMA;
pub(crate) use sqlite::SCHEMA;

/// Migration 8, the same on both backends: each edit's checkout.
pub(crate) const CHECKOUTS: &str = "
ALTER TABLE source_edits ADD COLUMN checkout TEXT NOT NULL DEFAULT '';
CREATE INDEX source_edits_of_checkout ON source_edits (checkout, id);
";

/// Migration 12, the same on both backends: which edit each is part of. One change to the
/// project may touch several files (a new module and the package's `__init__.py` that
/// imports it): its first file's edit stands for the change, and the others name it, so
/// the history lists, shows and undoes them together.
pub(crate) const PARTS: &str = "ALTER TABLE source_edits ADD COLUMN part_of BIGINT;";

/// One recorded edit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    pub id: i64,
    /// Whose: the checkout that made it, `''` from before edits were kept per checkout.
    pub checkout: String,
    pub at: Time,
    pub path: String,
    pub what: String,
    pub before: Option<Vec<u8>>,
    pub after: Option<Vec<u8>>,
    /// The edit this one is part of (the first file of the same change), if any.
    pub part_of: Option<i64>,
}

/// An edit to record: an [`Edit`] before the store numbers it.
#[derive(Debug, Clone, Copy)]
pub struct NewEdit<'a> {
    pub checkout: &'a str,
    pub at: Time,
    pub path: &'a str,
    pub what: &'a str,
    pub before: Option<&'a [u8]>,
    pub after: Option<&'a [u8]>,
    pub part_of: Option<i64>,
}

/// What a backend answers about the recorded edits; [`EditRecords`] is what callers use.
/// `checkout` is whose edits: each call sees that checkout's and the ones from before
/// edits were kept per checkout.
pub trait EditRows {
    /// Records `edit`; returns its number.
    fn insert(&self, edit: &NewEdit<'_>) -> Result<i64>;
    /// Edit number `id`, if recorded and `checkout`'s.
    fn get(&self, checkout: &str, id: i64) -> Result<Option<Edit>>;
    /// The newest `limit` changes of `checkout` without their contents — each as its first
    /// edit, the path naming every file it touched.
    fn newest_changes(&self, checkout: &str, limit: usize) -> Result<Vec<EditLine>>;
    /// How many changes `checkout` has (an edit that is part of another is not one).
    fn count_changes(&self, checkout: &str) -> Result<i64>;
    /// The edit that stands for `checkout`'s change number `number` (1 the oldest), if
    /// it has that many.
    fn change_numbered(&self, checkout: &str, number: i64) -> Result<Option<i64>>;
    /// The number of the change edit `id` stands for among `checkout`'s changes: how many
    /// of them are as old as it or older.
    fn number_of_change(&self, checkout: &str, id: i64) -> Result<i64>;
    /// The other edits of the change edit `id` stands for, in order.
    fn parts(&self, checkout: &str, id: i64) -> Result<Vec<Edit>>;
    /// Every checkout's edits numbered above `after`, oldest first, at most `limit`: what
    /// a copy of the whole store carries, each edit with its checkout.
    fn every(&self, after: i64, limit: usize) -> Result<Vec<Edit>>;
    /// How many edits the store holds, every checkout's.
    fn count_all(&self) -> Result<i64>;
}

/// The recorded edits of a store, whichever backend holds them.
pub trait EditRecords: EditRows {
    /// Record an edit of `checkout`, part of edit `part_of` when it is one more file of
    /// the same change; returns its number.
    #[allow(clippy::too_many_arguments)]
    fn record(
        &self,
        checkout: &str,
        at: Time,
        path: &str,
        what: &str,
        before: Option<&[u8]>,
        after: Option<&[u8]>,
        part_of: Option<i64>,
    ) -> Result<i64> {
        self.insert(&NewEdit {
            checkout,
            at,
            path,
            what,
            before,
            after,
            part_of,
        })
    }

    /// The newest `limit` changes of `checkout` (see [`EditRows::newest_changes`]) and how
    /// many it has in all.
    fn newest(&self, checkout: &str, limit: usize) -> Result<(Vec<EditLine>, usize)> {
        let lines = self.newest_changes(checkout, limit)?;
        Ok((lines, size(self.count_changes(checkout)?)))
    }

    /// How many edits the store holds, every checkout's.
    fn count_every(&self) -> Result<usize> {
        Ok(size(self.count_all()?))
    }
}

impl<T: EditRows> EditRecords for T {}

/// The columns of an [`Edit`], in the order [`edit_of`] reads them.
const EDIT_COLUMNS: &str = "id, checkout, at, path, what, before, after, part_of";

/// An edit without its contents: (id, at, path, what).
pub type EditLine = (i64, Time, String, String);

/// A row of [`EDIT_COLUMNS`].
fn edit_of(r: &impl Row) -> Result<Edit> {
    Ok(Edit {
        id: r.value(0)?,
        checkout: r.value(1)?,
        at: time_of(r, 2)?,
        path: r.value(3)?,
        what: r.value(4)?,
        before: r.value(5)?,
        after: r.value(6)?,
        part_of: r.value(7)?,
    })
}

/// A row of (id, at, path, what).
fn line_of(r: &impl Row) -> Result<EditLine> {
    Ok((r.value(0)?, time_of(r, 1)?, r.value(2)?, r.value(3)?))
}

/// Column `i` of `r`, a time as the store writes it.
fn time_of(r: &impl Row, i: usize) -> Result<Time> {
    let text: String = r.value(i)?;
    Time::parse(&text).map_err(|e| Error::internal(format!("a stored edit's {e}")))
}

#[cfg(test)]
mod tests {
    use crate::model::time::Time;
    use crate::store::testing::{for_each_backend, for_each_backend_from};

    /// Two checkouts' keys, as `resources::source::checkout::key` makes them.
    const HERE: &str = "build-1:/work/app";
    const THERE: &str = "build-2:/work/app";

    #[test]
    fn edits_are_numbered_and_kept_whole() {
        for_each_backend(|store| {
            let first = store
                .change_records(|db| {
                    db.edits().record(
                        HERE,
                        Time::from_unix(1),
                        "src/a.py",
                        "replace a.f",
                        Some(b"old"),
                        Some(b"new"),
                        None,
                    )
                })
                .unwrap();
            let second = store
                .change_records(|db| {
                    db.edits().record(
                        HERE,
                        Time::from_unix(2),
                        "src/b.py",
                        "create b",
                        None,
                        Some(b"x"),
                        None,
                    )
                })
                .unwrap();
            assert_eq!((first, second), (1, 2));
            let edit = store
                .records(|db| db.edits().get(HERE, 1))
                .unwrap()
                .unwrap();
            assert_eq!(
                (edit.before.as_deref(), edit.after.as_deref()),
                (Some(&b"old"[..]), Some(&b"new"[..]))
            );
            let (rows, total) = store.records(|db| db.edits().newest(HERE, 1)).unwrap();
            assert_eq!((rows[0].0, total), (2, 2));
            assert_eq!(store.records(|db| db.edits().get(HERE, 9)).unwrap(), None);
        });
    }

    #[test]
    fn each_checkout_sees_its_own_edits_and_those_from_before_checkouts() {
        let before = "INSERT INTO source_edits (at, path, what)
             VALUES ('2026-11-01T10:00:00Z', 'old.py', 'delete old');";
        for_each_backend_from(7, before, |store| {
            let legacy = 1;
            let record = |checkout: &str, path: &str| {
                store
                    .change_records(|db| {
                        db.edits().record(
                            checkout,
                            Time::from_unix(3),
                            path,
                            "create",
                            None,
                            Some(b"x"),
                            None,
                        )
                    })
                    .unwrap()
            };
            let here = record(HERE, "here.py");
            let there = record(THERE, "there.py");
            let seen = |checkout: &str| {
                let (rows, total) = store.records(|db| db.edits().newest(checkout, 10)).unwrap();
                let ids: Vec<i64> = rows.iter().map(|row| row.0).collect();
                (ids, total)
            };
            assert_eq!(seen(HERE), (vec![here, legacy], 2));
            assert_eq!(seen(THERE), (vec![there, legacy], 2));
            let get = |checkout: &str, id: i64| {
                store
                    .records(|db| db.edits().get(checkout, id))
                    .unwrap()
                    .map(|edit| edit.path)
            };
            assert_eq!(get(HERE, there), None, "another checkout's edit");
            assert_eq!(get(THERE, here), None);
            assert_eq!(get(THERE, there).as_deref(), Some("there.py"));
            assert_eq!(get(HERE, legacy).as_deref(), Some("old.py"));
            assert_eq!(get(THERE, legacy).as_deref(), Some("old.py"));
            // A copy of the whole store takes every checkout's, each with its checkout.
            let every = store.records(|db| db.edits().every(legacy, 10)).unwrap();
            let whose: Vec<(i64, &str)> =
                every.iter().map(|e| (e.id, e.checkout.as_str())).collect();
            assert_eq!(whose, [(here, HERE), (there, THERE)]);
            assert_eq!(store.records(|db| db.edits().count_every()).unwrap(), 3);
        });
    }

    #[test]
    fn the_files_of_one_change_are_listed_as_one() {
        for_each_backend(|store| {
            let record = |path: &str, part_of: Option<i64>| {
                store
                    .change_records(|db| {
                        db.edits().record(
                            HERE,
                            Time::from_unix(3),
                            path,
                            "create",
                            None,
                            Some(b"x"),
                            part_of,
                        )
                    })
                    .unwrap()
            };
            let module = record("pkg/new.py", None);
            let init = record("pkg/__init__.py", Some(module));
            let alone = record("pkg/other.py", None);
            let (rows, total) = store.records(|db| db.edits().newest(HERE, 10)).unwrap();
            let listed: Vec<(i64, &str)> = rows.iter().map(|r| (r.0, r.2.as_str())).collect();
            assert_eq!(
                listed,
                [
                    (alone, "pkg/other.py"),
                    (module, "pkg/new.py, pkg/__init__.py")
                ]
            );
            assert_eq!(total, 2);
            let parts = store.records(|db| db.edits().parts(HERE, module)).unwrap();
            assert_eq!(parts.iter().map(|e| e.id).collect::<Vec<_>>(), [init]);
            assert_eq!(parts[0].part_of, Some(module));
        });
    }
}
