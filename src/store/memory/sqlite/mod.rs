//! The SQLite dialect of memory: the schema (`schema.sql`, tuned by `bulk.sql` and
//! `keys.sql`) and the statements that answer what `../dialect.rs` asks — reads
//! (`read.rs`), row changes (`write.rs`), bulk loads (`bulk.rs`), the files sessions
//! changed (`files_sql.rs`), the questions of search (`search_sql.rs`) and of related
//! sessions (`related.rs`) — each saying why its SQL is shaped as it is. The FTS5 tables
//! are external-content indexes, and they, the tag index and every counter follow the rows
//! by triggers, so no write can leave them out of step; a bulk load turns the entry trigger
//! off for its own transaction and indexes in one pass before committing.

mod bulk;
mod files_sql;
mod read;
mod related;
mod search_sql;
mod write;

#[cfg(test)]
pub(super) use bulk::import;

/// Migration 4: sessions, entries, the tag index, counters and full-text indexes.
pub(crate) const SCHEMA: &str = include_str!("schema.sql");

/// Migration 5: entries are indexed in one pass at the end of a bulk load.
pub(crate) const BULK_SCHEMA: &str = include_str!("bulk.sql");

/// Migration 6: the key index is kept per session; only opening entries are found by key.
pub(crate) const KEYS_SCHEMA: &str = include_str!("keys.sql");

/// Migration 13: the files each session changed, filled once for stores holding entries.
pub(crate) const FILES_SCHEMA: &str = include_str!("files.sql");
