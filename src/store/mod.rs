//! The SQLite store of the mount.
