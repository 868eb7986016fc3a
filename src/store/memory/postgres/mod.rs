//! The PostgreSQL dialect of memory: the schema (`schema.sql`) and the statements that
//! answer what `../dialect.rs` asks on a transaction of the store — reads (`read.rs`), row
//! changes (`write.rs`), bulk loads (`load.rs`), the files sessions changed
//! (`files_sql.rs`), the questions of search (`search_sql.rs`) and of related sessions
//! (`related.rs`), and an entry's words (`words.rs`). The tag index and every counter
//! follow the rows by triggers; the words of each row are indexed by GIN.

mod files_sql;
mod load;
mod read;
mod related;
mod search_sql;
mod words;
mod write;

/// Migrations 4 to 6 for PostgreSQL, in one step (5 and 6 tune SQLite's first version).
pub(crate) const SCHEMA: &str = include_str!("schema.sql");

/// Migration 13: the files each session changed, filled once for stores holding entries.
pub(crate) const FILES_SCHEMA: &str = include_str!("files.sql");

/// Migration 14: an entry's words are written by homespace, no longer generated.
pub(crate) const WORDS_SCHEMA: &str = include_str!("words.sql");
/// Migration 16: memory's long columns compressed with LZ4 where the server has it.
pub(crate) const COMPRESSION_SCHEMA: &str = include_str!("compression.sql");
/// Migration 17: the planner keeps ten times as many of the entries' words' frequencies.
pub(crate) const STATISTICS_SCHEMA: &str = include_str!("statistics.sql");
