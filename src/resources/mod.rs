//! The resourcespaces mounted under the root, each implementing
//! [`crate::tree::resource::Resource`].

pub mod memory;
pub mod search;
pub mod source;
