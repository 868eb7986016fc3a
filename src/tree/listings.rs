//! Directory listings held between `opendir` and `releasedir`. A listing is taken once,
//! at the first read after the directory is opened (an `opendir` whose listing the kernel
//! kept costs no listing), and read in pieces by offset: the kernel asks for more
//! with the offset of the last entry it got, and a directory whose members change in
//! between must still be read consistently, with `.` and `..` first.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::error::{Error, ErrorKind, Result};
use crate::model::{Fh, Ino, Kind};
use crate::tree::lock;

/// One name in a directory listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirEntry {
    pub ino: Ino,
    pub name: String,
    pub kind: Kind,
}

/// The listings of open directories, by handle.
#[derive(Debug, Default)]
pub struct Listings {
    open: Mutex<HashMap<Fh, Listing>>,
    next: Mutex<u64>,
    /// The last listing read without `opendir`, so that the reads after the first of a
    /// large directory do not list it again.
    unopened: Mutex<Option<Unopened>>,
}

/// A listing read without `opendir`.
#[derive(Debug)]
struct Unopened {
    ino: Ino,
    /// The tree's changes when it was taken: any change since makes it stale.
    generation: u64,
    entries: Arc<Vec<DirEntry>>,
}

#[derive(Debug)]
struct Listing {
    /// The directory's own inode, for `.` and `..`.
    ino: Ino,
    entries: Option<Vec<DirEntry>>,
}

impl Listings {
    /// Open directory `ino`; returns the handle to read its listing by.
    pub fn open(&self, ino: Ino) -> Fh {
        let fh = {
            let mut next = lock(&self.next);
            *next += 1;
            Fh(*next)
        };
        lock(&self.open).insert(fh, Listing { ino, entries: None });
        fh
    }

    /// The entries of listing `fh` after `offset` (the offset of each entry is its index
    /// plus one), `.` and `..` first, each with the offset the kernel asks from next.
    /// The first read takes the listing from `list` (given the directory's inode).
    pub fn from(
        &self,
        fh: Fh,
        offset: u64,
        list: impl FnOnce(Ino) -> Result<Vec<DirEntry>>,
    ) -> Result<Vec<(u64, DirEntry)>> {
        let unlisted = match lock(&self.open).get(&fh) {
            Some(listing) => listing.entries.is_none().then_some(listing.ino),
            None => return Err(not_open(fh)),
        };
        if let Some(ino) = unlisted {
            let entries = list(ino)?;
            if let Some(listing) = lock(&self.open).get_mut(&fh) {
                listing.entries.get_or_insert(entries);
            }
        }
        let open = lock(&self.open);
        let listing = open.get(&fh).ok_or_else(|| not_open(fh))?;
        Ok(slice(listing.ino, listing.entries.iter().flatten(), offset))
    }

    /// The entries of directory `ino` after `offset`, read without `opendir` (the kernel
    /// keeps listings, and asks only when it has none): taken afresh at offset 0, and
    /// reused for the later offsets of the same listing while `generation` (the tree's
    /// changes) stays the same.
    pub fn unopened(
        &self,
        ino: Ino,
        generation: u64,
        offset: u64,
        list: impl FnOnce(Ino) -> Result<Vec<DirEntry>>,
    ) -> Result<Vec<(u64, DirEntry)>> {
        let recent = lock(&self.unopened)
            .as_ref()
            .filter(|kept| offset > 0 && kept.ino == ino && kept.generation == generation)
            .map(|kept| Arc::clone(&kept.entries));
        let entries = match recent {
            Some(entries) => entries,
            None => {
                let entries = Arc::new(list(ino)?);
                *lock(&self.unopened) = Some(Unopened {
                    ino,
                    generation,
                    entries: Arc::clone(&entries),
                });
                entries
            }
        };
        Ok(slice(ino, entries.iter(), offset))
    }

    /// Forget listing `fh`.
    pub fn close(&self, fh: Fh) {
        lock(&self.open).remove(&fh);
    }
}

/// `entries` of directory `ino` after `offset` (the offset of each entry is its index plus
/// one), `.` and `..` first, each with the offset the kernel asks from next.
fn slice<'a>(
    ino: Ino,
    entries: impl Iterator<Item = &'a DirEntry>,
    offset: u64,
) -> Vec<(u64, DirEntry)> {
    let dot = |name: &str| DirEntry {
        ino,
        name: name.to_string(),
        kind: Kind::Dir,
    };
    [dot("."), dot("..")]
        .into_iter()
        .chain(entries.cloned())
        .enumerate()
        .skip(usize::try_from(offset).unwrap_or(usize::MAX))
        .map(|(index, entry)| (index as u64 + 1, entry))
        .collect()
}

fn not_open(fh: Fh) -> Error {
    Error::new(
        ErrorKind::Invalid,
        format!("directory handle {fh} is not open"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str) -> DirEntry {
        DirEntry {
            ino: Ino(9),
            name: name.into(),
            kind: Kind::Document,
        }
    }

    #[test]
    fn a_listing_is_read_in_pieces_from_the_offset_the_kernel_gives() {
        let listings = Listings::default();
        let fh = listings.open(Ino(2));
        let taken = std::cell::Cell::new(0);
        let list = |ino| {
            assert_eq!(ino, Ino(2));
            taken.set(taken.get() + 1);
            Ok(vec![entry("a"), entry("b")])
        };
        let names = |offset| {
            listings
                .from(fh, offset, list)
                .unwrap()
                .into_iter()
                .map(|(next, e)| format!("{next}:{}", e.name))
                .collect::<Vec<_>>()
        };
        assert_eq!(names(0), ["1:.", "2:..", "3:a", "4:b"]);
        assert_eq!(names(3), ["4:b"]);
        assert!(names(9).is_empty());
        assert_eq!(
            taken.get(),
            1,
            "the listing is taken once, at the first read"
        );
        listings.close(fh);
        let gone = listings.from(fh, 0, list).unwrap_err();
        assert_eq!(gone.errno(), libc::EINVAL);
    }
}
