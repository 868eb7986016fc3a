//! homespace: a Python project, an agent's tasks and its memory of past sessions as a
//! self-describing resource tree, mounted with FUSE.
//!
//! Layout, one line per top-level module (the binaries: `main.rs` with `cli/`, the command
//! line; `bin/homespace-bench/`, the benchmark):
//! - [`model`] — the vocabulary shared by the tree, the views and the resources: kinds of
//!   paths, directory members, the entry view model, each resourcespace's share of the
//!   root, failures, links, reserved names, tree paths, inode and handle numbers, and
//!   memory's transcript model (sessions, entries, their meta, session ids). Imports none
//!   of them.
//! - [`error`] — the one error type: its kind (mapped to an errno) and a message saying what
//!   failed, why, and where to go instead.
//! - [`tree`] — the filesystem as plain calls (`Space`, one per kernel operation, each
//!   taking a request struct): routing of paths to resources, inodes, open files, editors'
//!   temp files, opens that wait for a running test run, the error log. Knows nothing of
//!   FUSE.
//! - [`render`] — generated views: entry views, navigation, the error log, the root
//!   dashboard, and the budget every view is pruned to.
//! - [`resources`] — the resourcespaces: `source/`, `tasks/`, `memory/`, `search/`.
//! - [`store`] — the store behind tasks, memory, edits, settings and test runs: a SQLite
//!   file or a PostgreSQL database shared by many mounts.
//! - [`python`] — Python source as symbols (the Ruff parser behind our own types), what a
//!   line calls, which interpreter may run.
//! - [`pyproject`] — pyproject.toml's dependency lists and tables, read and changed byte
//!   for byte.
//! - [`testrun`] — running the project's tests with pytest, reading their JUnit XML and
//!   their tracebacks.
//! - [`transcripts`] — reading Claude Code, Codex, Gemini CLI, OpenCode, Aider and generic
//!   JSONL transcripts into the transcript model ([`model::transcript`]); stores nothing.
//! - [`memory`] — importing transcript files into the store and following them live.
//! - [`trust`] — whether a file is the mount owner's alone, before it may say what runs.
//! - [`app`] — building a `Space` from the command line's options.
//! - [`fuse`] — the only module that speaks FUSE: the session, its requests, detaching, and
//!   (`fuse/passthrough.rs`) opens handed to the kernel as the project file itself.
//! - [`daemon`] — the daemon's life: mounting, waiting for the mount, stale mounts and
//!   unmounting (`mount`), the running mounts as `homespace status` lists them (`mounts`),
//!   telling systemd how the mount is doing (`service`).
//! - [`log`] — the daemon's log: a timestamped line per event.

pub mod app;
pub mod daemon;
pub mod error;
pub mod fuse;
pub mod log;
pub mod memory;
pub mod model;
pub mod pyproject;
pub mod python;
pub mod render;
pub mod resources;
pub mod store;
pub mod testrun;
pub mod transcripts;
pub mod tree;
pub mod trust;
