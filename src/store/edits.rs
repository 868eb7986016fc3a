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
    pub at: String,
    pub path: String,
    pub what: String,
    pub before: Option<Vec<u8>>,
    pub after: Option<Vec<u8>>,
    /// The edit this one is part of (the first file of the same change), if any.
    pub part_of: Option<i64>,
}

/// The recorded edits of a store, whichever backend holds them. `checkout` is whose edits:
/// each call sees that checkout's and the ones from before edits were kept per checkout.
pub trait EditRecords {
    /// Record an edit of `checkout`, part of edit `part_of` when it is one more file of
    /// the same change; returns its number.
    #[allow(clippy::too_many_arguments)]
    fn record(
        &self,
        checkout: &str,
        at: &str,
        path: &str,
        what: &str,
        before: Option<&[u8]>,
        after: Option<&[u8]>,
        part_of: Option<i64>,
    ) -> Result<i64>;
    /// Edit number `id`, if recorded and `checkout`'s.
    fn get(&self, checkout: &str, id: i64) -> Result<Option<Edit>>;
    /// The newest `limit` changes of `checkout` without their contents — each as its first
    /// edit, the path naming every file it touched — and how many it has in all.
    fn newest(&self, checkout: &str, limit: usize) -> Result<(Vec<EditLine>, usize)>;
    /// The other edits of the change edit `id` stands for, in order.
    fn parts(&self, checkout: &str, id: i64) -> Result<Vec<Edit>>;
    /// Every checkout's edits numbered above `after`, oldest first, at most `limit`: what
    /// a copy of the whole store carries, each edit with its checkout.
    fn every(&self, after: i64, limit: usize) -> Result<Vec<Edit>>;
    /// How many edits the store holds, every checkout's.
    fn count_every(&self) -> Result<usize>;
}

/// The columns of an [`Edit`], in the order the backends read them.
const EDIT_COLUMNS: &str = "id, checkout, at, path, what, before, after, part_of";

/// An edit without its contents: (id, at, path, what).
pub type EditLine = (i64, String, String, String);

impl EditRecords for Connection {
    fn record(
        &self,
        checkout: &str,
        at: &str,
        path: &str,
        what: &str,
        before: Option<&[u8]>,
        after: Option<&[u8]>,
        part_of: Option<i64>,
    ) -> Result<i64> {
        self.execute(
            "INSERT INTO source_edits (checkout, at, path, what, before, after, part_of)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![checkout, at, path, what, before, after, part_of],
        )?;
        Ok(self.last_insert_rowid())
    }

    fn get(&self, checkout: &str, id: i64) -> Result<Option<Edit>> {
        Ok(self
            .query_row(
                &format!(
                    "SELECT {EDIT_COLUMNS} FROM source_edits
                     WHERE id = ?1 AND checkout IN ('', ?2)"
                ),
                params![id, checkout],
                edit_of,
            )
            .optional()?)
    }

    fn newest(&self, checkout: &str, limit: usize) -> Result<(Vec<EditLine>, usize)> {
        let mut statement = self.prepare(
            "SELECT id, at, path || coalesce((SELECT ', ' || group_concat(p.path, ', ')
                     FROM (SELECT path FROM source_edits WHERE part_of = e.id ORDER BY id) p), ''),
                 what
             FROM source_edits e WHERE checkout IN ('', ?1) AND part_of IS NULL
             ORDER BY id DESC LIMIT ?2",
        )?;
        let rows = statement
            .query_map(
                params![checkout, i64::try_from(limit).unwrap_or(i64::MAX)],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
            )?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        let total: i64 = self.query_row(
            "SELECT count(*) FROM source_edits WHERE checkout IN ('', ?1) AND part_of IS NULL",
            [checkout],
            |r| r.get(0),
        )?;
        Ok((rows, usize::try_from(total).unwrap_or(0)))
    }

    fn parts(&self, checkout: &str, id: i64) -> Result<Vec<Edit>> {
        let mut statement = self.prepare(&format!(
            "SELECT {EDIT_COLUMNS} FROM source_edits
             WHERE part_of = ?1 AND checkout IN ('', ?2) ORDER BY id"
        ))?;
        let parts = statement
            .query_map(params![id, checkout], edit_of)?
            .collect::<rusqlite::Result<_>>()?;
        Ok(parts)
    }

    fn every(&self, after: i64, limit: usize) -> Result<Vec<Edit>> {
        let mut statement = self.prepare(&format!(
            "SELECT {EDIT_COLUMNS} FROM source_edits WHERE id > ?1 ORDER BY id LIMIT ?2"
        ))?;
        let edits = statement
            .query_map(
                params![after, i64::try_from(limit).unwrap_or(i64::MAX)],
                edit_of,
            )?
            .collect::<rusqlite::Result<_>>()?;
        Ok(edits)
    }

    fn count_every(&self) -> Result<usize> {
        let total: i64 = self.query_row("SELECT count(*) FROM source_edits", [], |r| r.get(0))?;
        Ok(usize::try_from(total).unwrap_or(0))
    }
}

fn edit_of(r: &rusqlite::Row<'_>) -> rusqlite::Result<Edit> {
    Ok(Edit {
        id: r.get(0)?,
        checkout: r.get(1)?,
        at: r.get(2)?,
        path: r.get(3)?,
        what: r.get(4)?,
        before: r.get(5)?,
        after: r.get(6)?,
        part_of: r.get(7)?,
    })
}

fn pg_edit_of(r: &postgres::Row) -> Edit {
    Edit {
        id: r.get(0),
        checkout: r.get(1),
        at: r.get(2),
        path: r.get(3),
        what: r.get(4),
        before: r.get(5),
        after: r.get(6),
        part_of: r.get(7),
    }
}

impl EditRecords for Tx<'_> {
    fn record(
        &self,
        checkout: &str,
        at: &str,
        path: &str,
        what: &str,
        before: Option<&[u8]>,
        after: Option<&[u8]>,
        part_of: Option<i64>,
    ) -> Result<i64> {
        Ok(self
            .query_one(
                "INSERT INTO source_edits (checkout, at, path, what, before, after, part_of)
                 VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id",
                &[&checkout, &at, &path, &what, &before, &after, &part_of],
            )?
            .get(0))
    }

    fn get(&self, checkout: &str, id: i64) -> Result<Option<Edit>> {
        let row = self.query_opt(
            &format!(
                "SELECT {EDIT_COLUMNS} FROM source_edits
                 WHERE id = $1 AND checkout IN ('', $2)"
            ),
            &[&id, &checkout],
        )?;
        Ok(row.as_ref().map(pg_edit_of))
    }

    fn newest(&self, checkout: &str, limit: usize) -> Result<(Vec<EditLine>, usize)> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = self.query(
            "SELECT id, at, path || coalesce((SELECT ', ' || string_agg(p.path, ', ' ORDER BY p.id)
                     FROM source_edits p WHERE p.part_of = e.id), ''),
                 what
             FROM source_edits e WHERE checkout IN ('', $1) AND part_of IS NULL
             ORDER BY id DESC LIMIT $2",
            &[&checkout, &limit],
        )?;
        let total: i64 = self
            .query_one(
                "SELECT count(*) FROM source_edits WHERE checkout IN ('', $1) AND part_of IS NULL",
                &[&checkout],
            )?
            .get(0);
        Ok((
            rows.iter()
                .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3)))
                .collect(),
            usize::try_from(total).unwrap_or(0),
        ))
    }

    fn parts(&self, checkout: &str, id: i64) -> Result<Vec<Edit>> {
        let rows = self.query(
            &format!(
                "SELECT {EDIT_COLUMNS} FROM source_edits
                 WHERE part_of = $1 AND checkout IN ('', $2) ORDER BY id"
            ),
            &[&id, &checkout],
        )?;
        Ok(rows.iter().map(pg_edit_of).collect())
    }

    fn every(&self, after: i64, limit: usize) -> Result<Vec<Edit>> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = self.query(
            &format!("SELECT {EDIT_COLUMNS} FROM source_edits WHERE id > $1 ORDER BY id LIMIT $2"),
            &[&after, &limit],
        )?;
        Ok(rows.iter().map(pg_edit_of).collect())
    }

    fn count_every(&self) -> Result<usize> {
        let total: i64 = self
            .query_one("SELECT count(*) FROM source_edits", &[])?
            .get(0);
        Ok(usize::try_from(total).unwrap_or(0))
    }
}

#[cfg(test)]
mod tests {
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
                        "t1",
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
                    db.edits()
                        .record(HERE, "t2", "src/b.py", "create b", None, Some(b"x"), None)
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
        let before =
            "INSERT INTO source_edits (at, path, what) VALUES ('t0', 'old.py', 'delete old');";
        for_each_backend_from(7, before, |store| {
            let legacy = 1;
            let record = |checkout: &str, path: &str| {
                store
                    .change_records(|db| {
                        db.edits()
                            .record(checkout, "t", path, "create", None, Some(b"x"), None)
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
                        db.edits()
                            .record(HERE, "t", path, "create", None, Some(b"x"), part_of)
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
