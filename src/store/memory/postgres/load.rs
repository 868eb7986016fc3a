//! Bulk loads of memory on PostgreSQL (`homespace import`, a file copied into
//! `memory/import/`, `homespace store copy`): many transcripts in the caller's transaction,
//! each in a savepoint of its own, so a transcript the store refuses leaves nothing behind
//! and the load goes on with the next one. A statement PostgreSQL refuses would otherwise
//! abort the whole transaction.
//!
//! Unlike SQLite's `bulk.rs` there is nothing to switch off and catch up on at the end: the
//! words of every entry are a generated column (indexed as it is inserted) and the
//! counters are kept by per-statement triggers, and `write.rs` inserts thousands of entries
//! per statement, so a load updates each counter once per batch.

use super::write::store_transcript;
use crate::error::Result;
use crate::store::memory::record::Transcript;
use crate::store::memory::records::{Imported, Loader};
use crate::store::postgres::Tx;

/// A bulk load in progress on one transaction.
struct BulkLoad<'t, 'c> {
    tx: &'t Tx<'c>,
}

impl Loader for BulkLoad<'_, '_> {
    fn import(&mut self, transcript: &Transcript) -> Result<Imported> {
        self.tx.savepoint(|| store_transcript(self.tx, transcript))
    }
}

/// Runs `load` with a [`Loader`] on `tx`, inside the caller's transaction. When `load`
/// fails the caller rolls the transaction back (as `Store::change_memory` does).
pub fn bulk_load(tx: &Tx<'_>, load: &mut dyn FnMut(&mut dyn Loader) -> Result<()>) -> Result<()> {
    load(&mut BulkLoad { tx })
}

#[cfg(test)]
mod tests {
    //! How fast a load is, on both backends, as an ignored test that prints what it
    //! measures (a test never asserts a wall-clock time):
    //! `cargo test --release --lib memory::postgres::load -- --ignored --nocapture`.

    use std::time::Instant;

    use crate::store::Store;
    use crate::store::memory::record::Transcript;
    use crate::store::memory::testing::generated;
    use crate::store::postgres::scratch::ScratchServer;

    /// Loads `files` in transactions of `per_load` files each, as `homespace import` does,
    /// and prints the rate; then again (everything skipped) and the compaction after.
    fn measure(backend: &str, store: &Store, files: &[Transcript], per_load: usize) {
        let entries: usize = files
            .iter()
            .flat_map(|t| &t.sessions)
            .map(|(_, e)| e.len())
            .sum();
        for pass in ["first", "again"] {
            let start = Instant::now();
            for load in files.chunks(per_load) {
                store
                    .change_memory(|m| {
                        m.bulk_load(&mut |loader| {
                            for file in load {
                                loader.import(file)?;
                            }
                            Ok(())
                        })
                    })
                    .unwrap();
            }
            let secs = start.elapsed().as_secs_f64();
            println!(
                "{backend:10} {pass}: {entries} entries in {secs:.2}s: {:.0} entries/s",
                entries as f64 / secs
            );
        }
        let start = Instant::now();
        store.change_memory(|m| m.compact()).unwrap();
        println!(
            "{backend:10} compact: {:.2}s",
            start.elapsed().as_secs_f64()
        );
        let stats = store.memory(|m| m.stats()).unwrap();
        assert_eq!(stats.entries, entries);
    }

    #[test]
    #[ignore]
    fn import_rate_on_both_backends() {
        for (shape, sessions, per_session, per_load) in [
            ("10 files of 10,000 entries, one load", 10, 10_000, 10),
            ("100 files of 1,000 entries, 50 per load", 100, 1_000, 50),
        ] {
            println!("{shape}:");
            let files: Vec<Transcript> = (0..sessions)
                .map(|s| generated(1, per_session, s * per_session))
                .collect();
            let dir = tempfile::tempdir().unwrap();
            let sqlite = Store::open(&dir.path().join("store.db")).unwrap();
            sqlite.for_bulk_load().unwrap();
            measure("SQLite", &sqlite, &files, per_load as usize);
            let server = ScratchServer::start().unwrap();
            let postgres = Store::connect(&server.database("bench").unwrap()).unwrap();
            measure("PostgreSQL", &postgres, &files, per_load as usize);
        }
    }
}
