//! Directory listings held between `opendir` and `releasedir`. A listing is taken once,
//! when the directory is opened, and read in pieces by offset: the kernel asks for more
//! with the offset of the last entry it got, and a directory whose members change in
//! between must still be read consistently, with `.` and `..` first.

use std::collections::HashMap;
use std::sync::Mutex;

use crate::error::{Error, ErrorKind, Result};
use crate::model::Kind;
use crate::tree::lock;

/// One name in a directory listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirEntry {
    pub ino: u64,
    pub name: String,
    pub kind: Kind,
}

/// The listings of open directories, by handle.
#[derive(Debug, Default)]
pub struct Listings {
    open: Mutex<HashMap<u64, Listing>>,
    next: Mutex<u64>,
}

#[derive(Debug)]
struct Listing {
    /// The directory's own inode, for `.` and `..`.
    ino: u64,
    entries: Vec<DirEntry>,
}

impl Listings {
    /// Hold `entries` of directory `ino`; returns the handle to read them by.
    pub fn open(&self, ino: u64, entries: Vec<DirEntry>) -> u64 {
        let fh = {
            let mut next = lock(&self.next);
            *next += 1;
            *next
        };
        lock(&self.open).insert(fh, Listing { ino, entries });
        fh
    }

    /// The entries of listing `fh` after `offset` (the offset of each entry is its index
    /// plus one), `.` and `..` first, each with the offset the kernel asks from next.
    pub fn from(&self, fh: u64, offset: u64) -> Result<Vec<(u64, DirEntry)>> {
        let open = lock(&self.open);
        let listing = open.get(&fh).ok_or_else(|| {
            Error::new(
                ErrorKind::Invalid,
                format!("directory handle {fh} is not open"),
            )
        })?;
        let dot = |name: &str| DirEntry {
            ino: listing.ino,
            name: name.to_string(),
            kind: Kind::Dir,
        };
        let all = [dot("."), dot("..")]
            .into_iter()
            .chain(listing.entries.iter().cloned());
        Ok(all
            .enumerate()
            .skip(usize::try_from(offset).unwrap_or(usize::MAX))
            .map(|(index, entry)| (index as u64 + 1, entry))
            .collect())
    }

    /// Forget listing `fh`.
    pub fn close(&self, fh: u64) {
        lock(&self.open).remove(&fh);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str) -> DirEntry {
        DirEntry {
            ino: 9,
            name: name.into(),
            kind: Kind::Document,
        }
    }

    #[test]
    fn a_listing_is_read_in_pieces_from_the_offset_the_kernel_gives() {
        let listings = Listings::default();
        let fh = listings.open(2, vec![entry("a"), entry("b")]);
        let names = |offset| {
            listings
                .from(fh, offset)
                .unwrap()
                .into_iter()
                .map(|(next, e)| format!("{next}:{}", e.name))
                .collect::<Vec<_>>()
        };
        assert_eq!(names(0), ["1:.", "2:..", "3:a", "4:b"]);
        assert_eq!(names(3), ["4:b"]);
        assert!(names(9).is_empty());
        listings.close(fh);
        assert_eq!(listings.from(fh, 0).unwrap_err().errno(), libc::EINVAL);
    }
}
