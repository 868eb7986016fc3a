//! Inode numbers: one per path, stable while the mount lives. A path keeps its number
//! while it exists (and after: numbers are never reused, so a stale handle can never reach
//! another file); a rename takes the number along, as the kernel takes the name. Also
//! remembers, per inode, the fingerprint of the content last served so that `mtime` moves
//! exactly when generated content changes.

use std::collections::BTreeMap;
use std::time::SystemTime;

use crate::model::Ino;

/// The fingerprint of some content: its hash and its length.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Print {
    hash: u64,
    len: u64,
}

/// The fingerprint of `content`.
pub fn print(content: &[u8]) -> Print {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    content.hash(&mut hasher);
    Print {
        hash: hasher.finish(),
        len: content.len() as u64,
    }
}

/// The root directory's inode number, fixed by FUSE.
pub const ROOT: Ino = Ino(1);

#[derive(Debug, Clone)]
struct Record {
    /// Components joined by `/`; empty for the root.
    path: String,
    /// Fingerprint and size of the content last served, and when it last changed.
    seen: Option<Print>,
    changed: SystemTime,
    /// Renamed over or moved away: the number names nothing any more.
    gone: bool,
}

/// The table of paths and their inode numbers.
#[derive(Debug)]
pub struct Inodes {
    /// Sorted, so that everything under a path is one range.
    by_path: BTreeMap<String, Ino>,
    records: Vec<Record>,
    born: SystemTime,
}

impl Inodes {
    pub fn new() -> Self {
        let born = SystemTime::now();
        let mut inodes = Inodes {
            by_path: BTreeMap::new(),
            records: Vec::new(),
            born,
        };
        inodes.ino_of("");
        inodes
    }

    /// The number of `path`, allocating one on first sight.
    pub fn ino_of(&mut self, path: &str) -> Ino {
        if let Some(&ino) = self.by_path.get(path) {
            return ino;
        }
        self.records.push(Record {
            path: path.to_string(),
            seen: None,
            changed: self.born,
            gone: false,
        });
        let ino = Ino(self.records.len() as u64);
        self.by_path.insert(path.to_string(), ino);
        ino
    }

    /// The path of `ino`, if it was handed out and still names something.
    pub fn path_of(&self, ino: Ino) -> Option<&str> {
        self.records
            .get(index(ino)?)
            .filter(|r| !r.gone)
            .map(|r| r.path.as_str())
    }

    /// `from` was renamed to `to`: its number (and those of everything under it) move
    /// with it, as the kernel moves its names. What `to` was numbered before keeps naming
    /// `to` for whoever looked it up just before (`sed -i` renames over a file that other
    /// readers are opening: they read the old content or the new one, never "no such
    /// file"), but a lookup of `to` gets `from`'s number; what was under `to` names
    /// nothing any more. A later lookup of `from` gets a new number.
    pub fn moved(&mut self, from: &str, to: &str) {
        let replaced: Vec<String> = self.under(to).map(|(p, _)| p.to_string()).collect();
        for path in replaced {
            if let Some(ino) = self.by_path.remove(&path)
                && path != to
                && let Some(record) = index(ino).and_then(|i| self.records.get_mut(i))
            {
                record.gone = true;
            }
        }
        let moving: Vec<String> = self.under(from).map(|(p, _)| p.to_string()).collect();
        for path in moving {
            let Some(ino) = self.by_path.remove(&path) else {
                continue;
            };
            let new = format!("{to}{}", &path[from.len()..]);
            if let Some(record) = index(ino).and_then(|i| self.records.get_mut(i)) {
                record.path = new.clone();
            }
            self.by_path.insert(new, ino);
        }
    }

    /// Note the content just served for `ino` and return its modification time: the time
    /// the content was first seen different from before.
    pub fn observe(&mut self, ino: Ino, print: Print) -> SystemTime {
        let born = self.born;
        let Some(record) = index(ino).and_then(|i| self.records.get_mut(i)) else {
            return born;
        };
        match record.seen {
            Some(seen) if seen == print => {}
            Some(_) => {
                record.seen = Some(print);
                record.changed = SystemTime::now();
            }
            // First sight: nothing tells when it last changed, and a document just
            // created must not look older than the mount.
            None => {
                record.seen = Some(print);
                record.changed = SystemTime::now();
            }
        }
        record.changed
    }

    /// The number of `path`, if it has one.
    pub fn get(&self, path: &str) -> Option<Ino> {
        self.by_path.get(path).copied()
    }

    /// The numbered paths at or under `path` (`""`: all), with their numbers.
    pub fn under<'a>(&'a self, path: &'a str) -> impl Iterator<Item = (&'a str, Ino)> + 'a {
        self.by_path
            .range::<str, _>((std::ops::Bound::Included(path), std::ops::Bound::Unbounded))
            .take_while(move |(p, _)| p.starts_with(path))
            .filter(move |(p, _)| {
                path.is_empty() || p.len() == path.len() || p[path.len()..].starts_with('/')
            })
            .map(|(p, &ino)| (p.as_str(), ino))
    }

    /// Every numbered path that starts with `prefix`, whole names or not (`source/pkg.`
    /// holds `source/pkg.mod/x.py`).
    pub fn starting_with<'a>(
        &'a self,
        prefix: &'a str,
    ) -> impl Iterator<Item = (&'a str, Ino)> + 'a {
        self.by_path
            .range::<str, _>((
                std::ops::Bound::Included(prefix),
                std::ops::Bound::Unbounded,
            ))
            .take_while(move |(p, _)| p.starts_with(prefix))
            .map(|(p, &ino)| (p.as_str(), ino))
    }

    /// How many paths have numbers (reported by the benchmark as a memory figure).
    pub fn len(&self) -> usize {
        self.records.len()
    }

    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }
}

/// Where the record of `ino` is: numbers are handed out from 1 in order.
fn index(ino: Ino) -> Option<usize> {
    usize::try_from(ino.0.checked_sub(1)?).ok()
}

impl Default for Inodes {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_renamed_path_takes_its_number_and_its_children_along() {
        let mut inodes = Inodes::new();
        let dir = inodes.ino_of("tasks/open");
        let task = inodes.ino_of("tasks/open/a.json");
        let replaced = inodes.ino_of("tasks/done/b.json");
        let inside = inodes.ino_of("tasks/done/b.json/x");
        inodes.moved("tasks/open/a.json", "tasks/done/b.json");
        assert_eq!(inodes.path_of(task), Some("tasks/done/b.json"));
        assert_eq!(inodes.ino_of("tasks/done/b.json"), task);
        assert_eq!(
            inodes.path_of(replaced),
            Some("tasks/done/b.json"),
            "the replaced file's number still names its place, for a reader who looked \
             it up before the rename"
        );
        assert_eq!(inodes.path_of(inside), None, "what was under it is gone");
        assert_ne!(inodes.ino_of("tasks/open/a.json"), task);
        inodes.moved("tasks/open", "tasks/later");
        assert_eq!(inodes.path_of(dir), Some("tasks/later"));
        let child = inodes.ino_of("tasks/later/x.json");
        inodes.moved("tasks/later", "tasks/open");
        assert_eq!(inodes.path_of(child), Some("tasks/open/x.json"));
    }

    #[test]
    fn everything_under_a_path_is_found_and_nothing_beside_it() {
        let mut inodes = Inodes::new();
        for path in [
            "tasks",
            "tasks/open",
            "tasks/open/a.json",
            "tasks-old",
            "tasksx/b",
        ] {
            inodes.ino_of(path);
        }
        let under: Vec<&str> = inodes.under("tasks").map(|(p, _)| p).collect();
        assert_eq!(under, ["tasks", "tasks/open", "tasks/open/a.json"]);
        assert_eq!(inodes.under("").count(), 6, "the root and all");
    }

    #[test]
    fn a_path_keeps_its_number() {
        let mut inodes = Inodes::new();
        assert_eq!(inodes.ino_of(""), ROOT);
        let a = inodes.ino_of("tasks/open");
        let b = inodes.ino_of("tasks/done");
        assert_ne!(a, b);
        assert_eq!(inodes.ino_of("tasks/open"), a);
        assert_eq!(inodes.path_of(a), Some("tasks/open"));
        assert_eq!(inodes.path_of(Ino(0)), None);
        assert_eq!(inodes.path_of(Ino(999)), None);
    }

    #[test]
    fn mtime_moves_only_when_content_changes() {
        let mut inodes = Inodes::new();
        let ino = inodes.ino_of("x");
        let first = inodes.observe(ino, print(b"one"));
        assert_eq!(inodes.observe(ino, print(b"one")), first);
        std::thread::sleep(std::time::Duration::from_millis(5));
        let second = inodes.observe(ino, print(b"two"));
        assert!(second > first);
        assert_eq!(inodes.observe(ino, print(b"two")), second);
    }
}
