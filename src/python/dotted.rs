//! [`Dotted`]: a Python name in its parts — a module's dotted name (`ledger.accounts`), a
//! symbol's qualified name in its module (`Account.debit`), or both run together as a test
//! names it (`ledger.accounts.Account.debit`). It borrows the parts from where they were
//! parsed, so trying each prefix of a name while resolving it costs no allocation.
//! [`DottedName`] owns its parts: the name a place in the project is imported by, kept
//! with the place.

use std::fmt;
use std::path::PathBuf;

/// The parts of a dotted Python name, borrowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dotted<'a>(&'a [String]);

impl<'a> Dotted<'a> {
    /// The name made of `parts` (`["Account", "debit"]` is `Account.debit`).
    pub fn new(parts: &'a [String]) -> Self {
        Dotted(parts)
    }

    pub fn parts(self) -> &'a [String] {
        self.0
    }

    pub fn len(self) -> usize {
        self.0.len()
    }

    pub fn is_empty(self) -> bool {
        self.0.is_empty()
    }

    /// The first part and the name after it (`a` and `b.c` of `a.b.c`).
    pub fn split_first(self) -> Option<(&'a str, Dotted<'a>)> {
        let (head, rest) = self.0.split_first()?;
        Some((head, Dotted(rest)))
    }

    /// Its first `n` parts and the rest (`a.b` and `c` of `a.b.c` for 2).
    pub fn split_at(self, n: usize) -> (Dotted<'a>, Dotted<'a>) {
        let (head, rest) = self.0.split_at(n.min(self.0.len()));
        (Dotted(head), Dotted(rest))
    }

    /// Its non-empty prefixes, the whole name first (`a.b.c`, `a.b`, `a`): how a name is
    /// matched against modules and symbols, the most specific one winning.
    pub fn prefixes(self) -> impl Iterator<Item = Dotted<'a>> {
        (1..=self.0.len()).rev().map(move |n| Dotted(&self.0[..n]))
    }

    /// Where a module of this name lies under a code root, without `.py`: `a/b` for `a.b`.
    pub fn as_path(self) -> PathBuf {
        self.0.iter().collect()
    }
}

/// A dotted Python name that owns its parts: a package's or module's (`ledger.accounts`),
/// or none (a code root, a folder of tests that is no package).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct DottedName(Vec<String>);

impl DottedName {
    /// The name of parts `parts` (`["ledger", "io"]` is `ledger.io`).
    pub fn of(parts: Vec<String>) -> Self {
        DottedName(parts)
    }

    /// The name `name` inside this one (`ledger.io` inside `ledger`).
    pub fn child(&self, name: &str) -> DottedName {
        let mut parts = self.0.clone();
        parts.push(name.to_string());
        DottedName(parts)
    }

    /// Its parts, borrowed.
    pub fn as_dotted(&self) -> Dotted<'_> {
        Dotted(&self.0)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Its last part (`io` of `ledger.io`).
    pub fn last(&self) -> Option<&str> {
        self.0.last().map(String::as_str)
    }

    /// The name it is inside (`ledger` of `ledger.io`); none for a one-part name.
    pub fn parent(&self) -> Option<DottedName> {
        match self.0.split_last() {
            Some((_, parent)) if !parent.is_empty() => Some(DottedName(parent.to_vec())),
            _ => None,
        }
    }
}

impl fmt::Display for DottedName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.as_dotted().fmt(f)
    }
}

impl fmt::Display for Dotted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (n, part) in self.0.iter().enumerate() {
            if n > 0 {
                f.write_str(".")?;
            }
            f.write_str(part)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(dotted: &str) -> Vec<String> {
        dotted.split('.').map(str::to_string).collect()
    }

    #[test]
    fn a_name_shows_and_splits_as_python_spells_it() {
        let name = parts("ledger.accounts.Account");
        let dotted = Dotted::new(&name);
        assert_eq!(dotted.to_string(), "ledger.accounts.Account");
        let (module, rest) = dotted.split_at(2);
        assert_eq!(
            (module.to_string(), rest.to_string()),
            ("ledger.accounts".into(), "Account".into())
        );
        assert_eq!(module.as_path(), PathBuf::from("ledger/accounts"));
        let shown: Vec<String> = dotted.prefixes().map(|p| p.to_string()).collect();
        assert_eq!(
            shown,
            ["ledger.accounts.Account", "ledger.accounts", "ledger"]
        );
    }
}
