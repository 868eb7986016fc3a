//! A row either backend returned, read by column number: what lets each kind of record be
//! read back in one place for both backends, instead of once per backend.

use crate::error::{Error, Result};

/// A value both backends can hand back: the types SQLite and PostgreSQL agree on.
pub trait Value: rusqlite::types::FromSql + for<'a> postgres::types::FromSql<'a> {}

impl<T> Value for T where T: rusqlite::types::FromSql + for<'a> postgres::types::FromSql<'a> {}

/// One row of a result, from either backend.
pub trait Row {
    /// Column `i`, as `T`; a column whose stored type is not `T` is the store's fault, and
    /// says which column it was.
    fn value<T: Value>(&self, i: usize) -> Result<T>;
}

impl Row for rusqlite::Row<'_> {
    fn value<T: Value>(&self, i: usize) -> Result<T> {
        Ok(self.get(i)?)
    }
}

impl Row for postgres::Row {
    fn value<T: Value>(&self, i: usize) -> Result<T> {
        self.try_get(i)
            .map_err(|e| Error::internal(format!("store: column {i} of a row: {e}")))
    }
}

/// Every row of `rows`, each read by `read`: SQLite's rows come one by one.
pub fn sqlite_rows<'s, T>(
    mut rows: rusqlite::Rows<'s>,
    read: impl Fn(&rusqlite::Row<'s>) -> Result<T>,
) -> Result<Vec<T>> {
    let mut read_all = Vec::new();
    while let Some(row) = rows.next()? {
        read_all.push(read(row)?);
    }
    Ok(read_all)
}

/// A count or size as the backends store it (a non-negative `BIGINT`).
pub fn size(n: i64) -> usize {
    usize::try_from(n).unwrap_or(0)
}

/// A limit as the backends take it.
pub fn limit(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}
