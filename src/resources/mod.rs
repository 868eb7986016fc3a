//! The resourcespaces mounted under the root, each implementing
//! [`crate::tree::resource::Resource`], and what they share.

pub mod json;
pub mod memory;
pub mod search;
pub mod source;
pub mod tasks;
