//! Memory in the store: sessions and their entries, with full-text indexes over entry
//! content and tags and over session titles and summaries, kept in the same transactions.
//!
//! The schema (`schema.sql`) makes the rows the one source of truth: the FTS5 tables are
//! external-content indexes, and they, the tag index and every counter follow the rows by
//! triggers, so no write here can leave them out of step; an import turns the entry
//! trigger off for its own transaction and does its work in one pass before committing
//! (`bulk.sql`, `bulk.rs`). An entry's number is `(session << 32) + seq` ([`entry_id`]): a
//! session's entries are one range of numbers.
//!
//! Every backend is reached through [`MemoryRecords`] (`records.rs`). The SQLite backend
//! (`sqlite.rs`) is the functions of this folder:
//! - importing one transcript and many in one transaction (`bulk_load`): `bulk.rs`;
//! - storing a transcript and the other changes: `write.rs`;
//! - reading sessions, entries, tags and counts: `read.rs`;
//! - search and its query language: `search.rs`, `query.rs` (shared), `scan.rs`; the
//!   ranking rules both backends share (every word first, where sessions go): `tiers.rs`;
//! - related sessions: `related.rs`.

mod bulk;
mod likeness;
mod postgres;
mod query;
mod read;
pub mod record;
mod records;
mod related;
mod rules;
mod scan;
mod search;
mod sqlite;
mod tiers;
mod write;

#[cfg(test)]
mod bench;
#[cfg(test)]
pub(crate) mod testing;

pub use records::{EntryRow, Found, Imported, Loader, MemoryHit, MemoryRecords, SessionRow, Stats};
// The SQLite backend's functions, for this folder's tests.
#[cfg(test)]
use {
    bulk::import,
    read::{session, stats},
    related::related,
    search::search,
    write::append,
};

/// Migration 4: sessions, entries, the tag index, counters and full-text indexes.
pub(crate) const SCHEMA: &str = include_str!("schema.sql");

/// Migration 5: entries are indexed in one pass at the end of a bulk load.
pub(crate) const BULK_SCHEMA: &str = include_str!("bulk.sql");

/// Migration 6: the key index is kept per session; only opening entries are found by key.
pub(crate) const KEYS_SCHEMA: &str = include_str!("keys.sql");

/// Migrations 4 to 6 for PostgreSQL, in one step (5 and 6 tune SQLite's first version).
pub(crate) const PG_SCHEMA: &str = include_str!("postgres/schema.sql");

/// The largest seq a session can hold (an entry number keeps it in 32 bits).
const MAX_SEQ: i64 = 0xFFFF_FFFF;

/// The stored number of entry `seq` of session `session` (a session's rowid).
pub(crate) fn entry_id(session: i64, seq: i64) -> i64 {
    (session << 32) + seq
}

/// The session and seq of an entry number.
pub(crate) fn split_entry_id(id: i64) -> (i64, i64) {
    (id >> 32, id & MAX_SEQ)
}

/// The numbers every entry of `session` lies between (inclusive).
pub(crate) fn session_range(session: i64) -> (i64, i64) {
    (entry_id(session, 1), entry_id(session, MAX_SEQ))
}

/// How many digits the entry files of a session with `entries` entries are padded to:
/// `0001.json` up to 9,999 entries, then as many as the largest seq needs.
pub fn width(entries: usize) -> usize {
    entries.to_string().len().max(4)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_numbers_keep_session_and_seq() {
        let (lo, hi) = session_range(7);
        assert!(lo <= entry_id(7, 1) && entry_id(7, MAX_SEQ) <= hi);
        assert!(hi < entry_id(8, 1));
        assert_eq!(split_entry_id(entry_id(123_456, 42)), (123_456, 42));
        assert_eq!(width(0), 4);
        assert_eq!(width(9_999), 4);
        assert_eq!(width(10_000), 5);
    }
}
