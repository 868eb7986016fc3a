//! The owner and permission bits a path shows: what the views, the error log and the
//! tree's access checks compare (the checks themselves are the tree's, `tree::access`).

/// The owner and permission bits a path shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Perm {
    pub uid: u32,
    pub gid: u32,
    /// Permission bits (`0o644`), without the file type.
    pub mode: u32,
}
