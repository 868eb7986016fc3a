//! pyproject.toml as `source/deps/` (and later `source/config/`) show and change it:
//! pure functions over the file's text, knowing nothing of the mount.
//!
//! - PEP 508 requirements and PEP 503 names: `requirement.rs`;
//! - the dependency lists, read and changed: `deps.rs`;
//! - one document per table (`source/config/`): `config.rs`;
//! - byte-preserving edits of one TOML array: `splice.rs`;
//! - an sdist's PKG-INFO fields, where pyproject.toml has none: `pkg_info.rs`.

pub mod config;
pub mod deps;
pub mod pkg_info;
pub mod requirement;
pub mod splice;
