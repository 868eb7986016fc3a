//! Memory in the store: sessions and their entries, with full-text indexes over entry
//! content and tags and over session titles and summaries, kept in the same transactions.
//! An entry's number keeps its session and seq, a session's entries one range of numbers
//! (`entry_number.rs`).
//!
//! Every backend is reached through [`MemoryRecords`] (`records.rs`), built once in
//! `dialect.rs` over the SQL each backend answers — SQLite in `sqlite/`, PostgreSQL in
//! `postgres/`. What is decided, is decided here, once:
//! - importing, merging and changing sessions and entries: `write.rs` (the checks of what
//!   may be stored: `rules.rs`; a stored row read back: `stored.rs`);
//! - search: `bounded_search.rs` over its query language `query.rs`, with the bounded scans
//!   of `scan.rs` and the ranking rules (every word first, where sessions go) of
//!   `tiers.rs`;
//! - related sessions: `related.rs`, choosing words by `likeness.rs`;
//! - the files each session changed (read off its tool calls by `touched.rs`):
//!   `session_files.rs`, with its plain data (patterns, changed files) in `changed.rs`.

mod backend;
mod bounded_search;
pub mod changed;
mod dialect;
mod entry_number;
mod likeness;
mod postgres;
mod query;
mod records;
mod related;
mod rules;
mod scan;
pub mod session_files;
mod span;
mod sqlite;
mod stored;
mod tiers;
pub mod touched;
mod write;

#[cfg(test)]
pub(crate) mod testing;

pub(crate) use entry_number::{
    MAX_SEQ, entry_id, entry_id_sql, session_of_sql, session_range, split_entry_id,
};
pub use query::counts_back_from_today;
pub use records::{
    EntryRow, Found, Imported, Loader, MemoryHit, MemoryReads, MemoryRecords, SessionRow, Stats,
};
// The SQLite backend, for this folder's tests.
#[cfg(test)]
use {bounded_search::search, sqlite::import, write::append};

/// Migrations 4 to 6 for SQLite.
pub(crate) use sqlite::{BULK_SCHEMA, KEYS_SCHEMA, SCHEMA};

/// Migrations 4 to 6 for PostgreSQL, in one step (5 and 6 tune SQLite's first version).
pub(crate) use postgres::SCHEMA as PG_SCHEMA;

/// Migration 13, the files sessions changed, for each backend.
pub(crate) use {postgres::FILES_SCHEMA as PG_FILES_SCHEMA, sqlite::FILES_SCHEMA};

/// Migration 14 for PostgreSQL: entries' words written by homespace (SQLite's FTS5 cuts its
/// own).
pub(crate) use postgres::WORDS_SCHEMA as PG_WORDS_SCHEMA;
/// Migrations 16 and 17 for PostgreSQL: memory's columns compressed with LZ4, and the
/// planner's statistics of the entries' words (SQLite's FTS5 needs neither).
pub(crate) use postgres::{
    COMPRESSION_SCHEMA as PG_COMPRESSION_SCHEMA, STATISTICS_SCHEMA as PG_STATISTICS_SCHEMA,
};

/// A stored count as a `usize` (counts are never negative; the schemas check).
pub(crate) fn count(n: i64) -> usize {
    usize::try_from(n).unwrap_or(0)
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
    fn entry_files_are_padded_to_four_digits_at_least() {
        assert_eq!(width(0), 4);
        assert_eq!(width(9_999), 4);
        assert_eq!(width(10_000), 5);
    }
}
