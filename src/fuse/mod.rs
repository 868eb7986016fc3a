//! The only module that speaks to the kernel. Three parts: the session ([`serve`]: mounting,
//! its options, the notifier, running until unmounted or signalled), the adapter (turns
//! each `fuser` request into one call on [`crate::tree::Space`] and its plain answer back
//! into a reply, with `attr` mapping the core's kinds to the kernel's file types once), and
//! [`detach`] (unmounting from outside). The core knows nothing of `fuser`.

mod adapter;
mod attr;
mod detach;
mod passthrough;
mod session;

pub use detach::{Detach, detach};
pub use session::{Serving, serve};
