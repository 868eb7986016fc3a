//! Bulk loads of memory on PostgreSQL (`homespace import`, a file copied into
//! `memory/import/`, `homespace store copy`): many transcripts in the caller's transaction,
//! each in a savepoint of its own, so a transcript the store refuses leaves nothing behind
//! and the load goes on with the next one. A statement PostgreSQL refuses would otherwise
//! abort the whole transaction.
//!
//! Unlike SQLite's `bulk.rs` there is nothing to switch off and catch up on at the end: the
//! words of every entry are indexed as it is added and the counters are kept by
//! per-statement triggers, and `write.rs` copies thousands of entries per statement, so a
//! load updates each counter once per batch.

use crate::error::Result;
use crate::model::transcript::Transcript;
use crate::store::memory::records::{Imported, Loader};
use crate::store::memory::write::store_transcript;
use crate::store::postgres::Tx;

/// A bulk load in progress on one transaction.
struct BulkLoad<'t, 'c> {
    tx: &'t Tx<'c>,
}

impl Loader for BulkLoad<'_, '_> {
    fn import(&mut self, transcript: &Transcript) -> Result<Imported> {
        self.tx
            .savepoint(|| store_transcript(self.tx, transcript, &mut |_, _| {}))
    }
}

/// Runs `load` with a [`Loader`] on `tx`, inside the caller's transaction. When `load`
/// fails the caller rolls the transaction back (as `Store::change_memory` does).
pub fn bulk_load(tx: &Tx<'_>, load: &mut dyn FnMut(&mut dyn Loader) -> Result<()>) -> Result<()> {
    load(&mut BulkLoad { tx })
}
