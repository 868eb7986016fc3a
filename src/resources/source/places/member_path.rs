//! [`MemberPath`]: where a symbol file or a class's members directory lies inside its
//! module's directory (`Account/debit.py`), as walked from the module down. It finds the
//! symbol again in a module changed on disk, and names it in a change's message as Python
//! does (`Account.debit`).

use std::fmt;

/// The names walked inside a module: `["Account", "debit.py"]`; none for the module's
/// own members directory.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MemberPath(Vec<String>);

impl MemberPath {
    /// `name` inside this members directory.
    pub fn join(&self, name: &str) -> MemberPath {
        let mut names = self.0.clone();
        names.push(name.to_string());
        MemberPath(names)
    }

    /// Whether this is the module's own members directory.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The names from the module down.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(String::as_str)
    }

    /// The last name, `.py` left off: the symbol's own (`debit`).
    pub fn stem(&self) -> &str {
        self.0
            .last()
            .map(|n| n.trim_end_matches(".py"))
            .unwrap_or_default()
    }

    /// The qualified name of the symbol file this is, `.py` left off: `Account.debit`.
    pub fn qualname(&self) -> String {
        let parents = &self.0[..self.0.len().saturating_sub(1)];
        qualified(parents.iter().map(String::as_str), self.stem())
    }

    /// The qualified name of member `name` of this directory: `Account.deposit` for
    /// `deposit` in `Account/`.
    pub fn qualname_of(&self, name: &str) -> String {
        qualified(self.names(), name)
    }
}

fn qualified<'a>(parents: impl Iterator<Item = &'a str>, last: &'a str) -> String {
    parents
        .chain(std::iter::once(last))
        .collect::<Vec<_>>()
        .join(".")
}

/// The names joined by `/`, as under the module's directory.
impl fmt::Display for MemberPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.join("/"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_member_is_named_as_a_path_and_as_python_names_it() {
        let class = MemberPath::default().join("Account");
        let method = class.join("debit.py");
        assert_eq!(method.to_string(), "Account/debit.py");
        assert_eq!(method.qualname(), "Account.debit");
        assert_eq!(method.stem(), "debit");
        assert_eq!(class.qualname_of("deposit"), "Account.deposit");
        assert_eq!(MemberPath::default().qualname_of("main"), "main");
    }
}
