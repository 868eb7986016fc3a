//! The vocabulary the tree, the renderer, the resources, the store and the transcript
//! readers share, and nothing else: what a path is ([`Kind`], [`Node`], [`Ownership`]) and
//! the owner and modes it shows ([`Perm`]), a directory's members ([`Child`]), search hits,
//! the entry view model ([`Entry`]), each resourcespace's share of the root ([`RootPart`]),
//! a recorded [`Failure`], how views link to places ([`Links`]), the names the tree
//! reserves ([`names`]), times as they are kept and shown ([`time`]) and the clock they are
//! taken from ([`clock`]), counts as people read them ([`count`]), a place in the tree
//! ([`TreePath`]), the numbers the kernel names paths and open files by ([`Ino`], [`Fh`]),
//! and memory's transcripts: sessions and entries ([`transcript`]), an entry's [`Meta`] and
//! a session's id ([`SessionId`]). It imports none of them, so each can import it without a
//! circle.

pub mod clock;
pub mod count;
pub mod entry;
pub mod failure;
pub mod ids;
pub mod links;
pub mod meta;
pub mod names;
pub mod node;
pub mod path;
pub mod perm;
pub mod root;
pub mod session_id;
pub mod time;
pub mod transcript;

pub use entry::{Detail, Entry, Function, Lighter, Section};
pub use failure::Failure;
pub use ids::{Fh, Ino};
pub use links::Links;
pub use meta::Meta;
pub use node::{Child, Definition, Hit, Hits, Kind, Node, Ownership};
pub use path::TreePath;
pub use perm::Perm;
pub use root::{RootPart, Verb};
pub use session_id::SessionId;
