//! The daemon's life around the tree it serves: mounting (the background daemon, waiting
//! for the mount, stale mounts, unmounting), the running mounts as `homespace status`
//! lists them, and telling a service manager (systemd) how the mount is doing.

pub mod mount;
pub mod mounts;
pub mod service;
