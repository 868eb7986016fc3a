//! Bulk loads into one table of a [`Tx`]: `COPY ... FROM STDIN` in PostgreSQL's binary
//! format, the way its documentation recommends to add many rows. The server neither
//! plans nor parses each row as it does an `INSERT`'s, and the rows stream in one round
//! trip; constraints and triggers apply as they do to an `INSERT`.

use postgres::binary_copy::BinaryCopyInWriter;
use postgres::types::{ToSql, Type};

use super::{Tx, failure};
use crate::error::Result;

/// The values of one row, in the order of the `COPY`'s columns.
pub type CopyRow<'v> = Vec<&'v (dyn ToSql + Sync)>;

impl Tx<'_> {
    /// Adds `rows` by `copy` (`COPY table (columns) FROM STDIN (FORMAT binary)`), whose
    /// columns have `types`; how many rows were added. When a row is refused, none is
    /// added and the statement fails as an `INSERT` would.
    pub fn copy_in(&self, copy: &str, types: &[Type], rows: &[CopyRow<'_>]) -> Result<u64> {
        let mut client = self.client.borrow_mut();
        let writer = client.copy_in(copy).map_err(|e| failure(self.shown, &e))?;
        let mut writer = BinaryCopyInWriter::new(writer, types);
        for row in rows {
            // Dropping the writer unfinished aborts the copy.
            writer.write(row).map_err(|e| failure(self.shown, &e))?;
        }
        writer.finish().map_err(|e| failure(self.shown, &e))
    }
}
