//! pyproject.toml as `source/deps/` (and later `source/config/`) show and change it:
//! pure functions over the file's text, knowing nothing of the mount.
//!
//! - PEP 508 requirements and PEP 503 names: `requirement.rs`;
//! - the dependency lists, read and changed: `deps.rs`;
//! - one document per table (`source/config/`): `config.rs`;
//! - byte-preserving edits of one TOML array: `splice.rs`.

pub mod config;
pub mod deps;
pub mod requirement;
pub mod splice;
