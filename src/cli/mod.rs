//! The command line's work beyond mounting, one file per command family; `main.rs` holds
//! the definitions clap parses and the dispatch.

pub mod docs;
pub mod memory;
pub mod prompt;
pub mod status;
pub mod store;
