//! The helpers homespace's tests and its benchmark share, written once: copying a project
//! ([`copy`]), waiting for a condition until a deadline ([`poll`]), mounting and unmounting
//! by the mountpoint's device ([`mount`]), a daemon's memory ([`daemon`]), timing and
//! page-cache dropping ([`timing`]), appending to a file as a writer does ([`grow`]), and a private PostgreSQL server ([`postgres`]).
//!
//! Test infrastructure only: the library takes it as a dev-dependency, never as a
//! dependency, so none of it ships in `homespace`.

pub mod copy;
pub mod daemon;
pub mod grow;
pub mod mount;
pub mod poll;
pub mod postgres;
pub mod timing;
