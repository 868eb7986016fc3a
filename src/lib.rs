//! homespace: a Python project, an agent's tasks and its memory of past sessions as a
//! self-describing resource tree, mounted with FUSE.
//!
//! Layout:
//! - [`model`] — the vocabulary shared by the tree, the views and the resources: kinds of
//!   paths, directory members, the entry view model, failures, links, reserved names.
//! - [`tree`] — the filesystem as plain calls (`Space`): routing of paths to resources,
//!   inodes, open files, editors' temp files, the error log. Knows nothing of FUSE.
//! - [`render`] — generated views: entry views, navigation, the error log, the dashboard,
//!   and the budget every view is pruned to.
//! - [`resources`] — the resourcespaces: `source/`, `tasks/`, `memory/`, `search/`.
//! - [`store`] — the SQLite store behind tasks and memory.
//! - [`pyproject`] — pyproject.toml's dependency lists, read and changed byte for byte.
//! - [`testrun`] — running the project's tests with pytest and reading their results.
//! - [`transcripts`] — reading Claude Code, Codex and generic JSONL transcripts into memory.
//! - [`fuse`] — the only module that speaks FUSE: the session, its requests, detaching.
//! - [`mount`] — mounting, waiting for the mount, stale mounts, unmounting.
//! - [`trust`] — whether a file is the mount owner's alone, before it may say what runs.
//! - [`app`] — building a `Space` from the command line's options.

pub mod app;
pub mod error;
pub mod fuse;
pub mod log;
pub mod model;
pub mod mount;
pub mod mounts;
pub mod passthrough;
pub mod pyproject;
pub mod python;
pub mod render;
pub mod resources;
pub mod service;
pub mod store;
pub mod testrun;
pub mod transcripts;
pub mod tree;
pub mod trust;
