//! Memory filling itself: transcript files imported ([`import`], `homespace import` and
//! `memory/import/`) and followed as agents write them ([`follow`]). What a file holds the
//! readers of `crate::transcripts` say; how it is kept, `crate::store::memory`. This is
//! the one place that reads with the one and writes with the other.

pub mod follow;
pub mod import;

pub use import::{Progress, Summary, import_paths};

#[cfg(test)]
mod import_tests;
