//! What the project's code was when a run started, symbol by symbol: a fingerprint of each
//! function's, method's and class's own lines (and each module's top-level lines), kept
//! with the run so that a later failing run can tell which symbols changed since the last
//! run in which its failing tests passed — edits through the mount and outside it alike.
//!
//! Keys are `<file from the project's folder>::<qualified name>` (`src/calc/ops.py::Ops.div`;
//! a module's own lines are `src/calc/ops.py::`). Fingerprints are the first 16 hex digits
//! of the SHA-256 of the lines, stable across builds and machines.

use std::collections::BTreeMap;

use sha2::{Digest, Sha256};

/// Symbol key to fingerprint, for every symbol of every project module.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Snapshot {
    pub symbols: BTreeMap<String, String>,
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

    /// Keeps `text` as the lines of `key`.
    pub fn add(&mut self, key: String, text: &str) {
        self.symbols.insert(key, Self::fingerprint(text));
    }

    /// The keys whose lines are not what they were in `before`: changed, or new.
    pub fn changed_since(&self, before: &Snapshot) -> Vec<&str> {
        self.symbols
            .iter()
            .filter(|(key, print)| before.symbols.get(*key) != Some(*print))
            .map(|(key, _)| key.as_str())
            .collect()
    }

    /// One line per symbol, `<fingerprint> <key>`: how the store keeps it.
    pub fn encode(&self) -> String {
        self.symbols
            .iter()
            .map(|(key, print)| format!("{print} {key}\n"))
            .collect()
    }

    /// What [`Snapshot::encode`] wrote; a line that is not one is passed over.
    pub fn decode(text: &str) -> Snapshot {
        let symbols = text
            .lines()
            .filter_map(|line| line.split_once(' '))
            .map(|(print, key)| (key.to_string(), print.to_string()))
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
        assert_eq!(Snapshot::decode(&now.encode()), now);
        assert_ne!(now.digest(), before.digest());
        // A key may hold spaces (a path with one): the fingerprint never does.
        let mut spaced = Snapshot::default();
        spaced.add(Snapshot::key("my calc/ops.py", "add"), "x");
        assert_eq!(Snapshot::decode(&spaced.encode()), spaced);
    }
}
