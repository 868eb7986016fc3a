//! What the project's code was when a run started, symbol by symbol: a fingerprint of each
//! function's, method's and class's own lines (and each module's top-level lines), kept
//! with the run so that a later failing run can tell which symbols changed since the last
//! run in which its failing tests passed — edits through the mount and outside it alike.
//!
//! Keys are `<file from the project's folder>::<qualified name>` (`src/calc/ops.py::Ops.div`;
//! a module's own lines are `src/calc/ops.py::`). Fingerprints are the first 16 hex digits
//! of the SHA-256 of the lines, stable across builds and machines. Each symbol also keeps
//! where it was (its first and last line), so that lines a run traced can be told as
//! symbols later, whatever was edited since.

use std::collections::BTreeMap;

use sha2::{Digest, Sha256};

/// Symbol key to its fingerprint and place, for every symbol of every project module.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Snapshot {
    pub symbols: BTreeMap<String, Print>,
}

/// One symbol's fingerprint and place.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Print {
    pub fingerprint: String,
    /// Its first and last line, 1-based; 0 for a module's own lines, which are anywhere.
    pub first: u32,
    pub last: u32,
}

impl Snapshot {
    /// The key of symbol `qualname` (dotted; empty for the module's own lines) of `file`.
    pub fn key(file: &str, qualname: &str) -> String {
        format!("{file}::{qualname}")
    }

    /// The fingerprint of `text`.
    pub fn fingerprint(text: &str) -> String {
        let digest = Sha256::digest(text.as_bytes());
        digest[..8].iter().map(|b| format!("{b:02x}")).collect()
    }

    /// Keeps `text` as the own lines of `key`, which has no place of its own (a module's).
    pub fn add(&mut self, key: String, text: &str) {
        self.add_at(key, text, 0, 0);
    }

    /// Keeps `text` as the own lines of `key`, a symbol from line `first` to `last`.
    pub fn add_at(&mut self, key: String, text: &str, first: u32, last: u32) {
        let fingerprint = Self::fingerprint(text);
        self.symbols.insert(
            key,
            Print {
                fingerprint,
                first,
                last,
            },
        );
    }

    /// The keys whose lines are not what they were in `before`: changed, or new. A symbol
    /// that only moved (lines added above it) has not changed.
    pub fn changed_since(&self, before: &Snapshot) -> Vec<&str> {
        self.symbols
            .iter()
            .filter(|(key, print)| {
                before
                    .symbols
                    .get(*key)
                    .is_none_or(|old| old.fingerprint != print.fingerprint)
            })
            .map(|(key, _)| key.as_str())
            .collect()
    }

    /// The symbols of `file` with their places, innermost last among those holding a line.
    pub fn symbols_of<'a>(&'a self, file: &'a str) -> impl Iterator<Item = (&'a str, &'a Print)> {
        let prefix = format!("{file}::");
        self.symbols
            .range(prefix.clone()..)
            .take_while(move |(key, _)| key.starts_with(&prefix))
            .filter(|(_, print)| print.first > 0)
            .map(move |(key, print)| (&key[file.len() + 2..], print))
    }

    /// One line per symbol, `<fingerprint> <first>-<last> <key>`: how the store keeps it.
    pub fn encode(&self) -> String {
        self.symbols
            .iter()
            .map(|(key, p)| format!("{} {}-{} {key}\n", p.fingerprint, p.first, p.last))
            .collect()
    }

    /// What [`Snapshot::encode`] wrote; a line that is not one is passed over.
    pub fn decode(text: &str) -> Snapshot {
        let symbols = text
            .lines()
            .filter_map(|line| {
                let (fingerprint, rest) = line.split_once(' ')?;
                let (place, key) = rest.split_once(' ')?;
                let (first, last) = place.split_once('-')?;
                Some((
                    key.to_string(),
                    Print {
                        fingerprint: fingerprint.to_string(),
                        first: first.parse().ok()?,
                        last: last.parse().ok()?,
                    },
                ))
            })
            .collect();
        Snapshot { symbols }
    }

    /// The fingerprint of the whole snapshot: runs of unchanged code share one stored copy.
    pub fn digest(&self) -> String {
        Self::fingerprint(&self.encode())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changed_symbols_are_told_from_the_ones_kept_and_survive_the_store() {
        let mut before = Snapshot::default();
        before.add(
            Snapshot::key("calc/ops.py", "add"),
            "def add(a, b):\n    return a + b\n",
        );
        before.add(
            Snapshot::key("calc/ops.py", "sub"),
            "def sub(a, b):\n    return a - b\n",
        );
        let mut now = before.clone();
        now.add(
            Snapshot::key("calc/ops.py", "sub"),
            "def sub(a, b):\n    return a + b\n",
        );
        now.add(
            Snapshot::key("calc/ops.py", "mul"),
            "def mul(a, b):\n    return a * b\n",
        );
        assert_eq!(
            now.changed_since(&before),
            ["calc/ops.py::mul", "calc/ops.py::sub"]
        );
        assert!(before.changed_since(&before).is_empty());
        // Moved down by an edit above it, the same lines: unchanged.
        let mut moved = now.clone();
        moved.add_at(
            Snapshot::key("calc/ops.py", "mul"),
            "def mul(a, b):\n    return a * b\n",
            20,
            21,
        );
        assert!(moved.changed_since(&now).is_empty());
        assert_eq!(
            moved
                .symbols_of("calc/ops.py")
                .map(|(q, p)| (q, p.first))
                .collect::<Vec<_>>(),
            [("mul", 20)]
        );
        assert_eq!(Snapshot::decode(&now.encode()), now);
        assert_ne!(now.digest(), before.digest());
        // A key may hold spaces (a path with one): the fingerprint never does.
        let mut spaced = Snapshot::default();
        spaced.add(Snapshot::key("my calc/ops.py", "add"), "x");
        assert_eq!(Snapshot::decode(&spaced.encode()), spaced);
    }
}
