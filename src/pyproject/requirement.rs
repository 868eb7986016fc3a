//! Dependency requirements as `source/deps/` files hold them: PEP 508 specifiers
//! (`requests>=2.31; python_version >= "3.9"`) parsed by `pep508_rs` (uv's parser; never
//! by hand), and PEP 503 normalised names (`Foo_Bar` is `foo-bar`), which name the files.

use std::str::FromStr;

use pep508_rs::{PackageName, Requirement as Pep508};

/// One valid requirement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Requirement {
    /// The normalised name of the package it requires.
    pub name: String,
    /// The requirement as written (trimmed).
    pub text: String,
}

/// Parses one requirement; the error says what is wrong and at which column.
pub fn parse(text: &str) -> Result<Requirement, String> {
    let text = text.trim();
    match Pep508::<pep508_rs::VerbatimUrl>::from_str(text) {
        Ok(requirement) => Ok(Requirement {
            name: requirement.name.to_string(),
            text: text.to_string(),
        }),
        // The error's own Display draws the input with a caret, and asserts on spans it
        // did not expect: the message and a column are all a one-line error needs.
        Err(e) => {
            let column = text
                .get(..e.start)
                .map_or(1, |before| before.chars().count() + 1);
            Err(format!("column {column}: {}", e.message))
        }
    }
}

/// The normalised form of a package name, or why it is none.
pub fn normalize(name: &str) -> Result<String, String> {
    PackageName::from_str(name)
        .map(|name| name.to_string())
        .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requirements_keep_their_text_and_name_their_package_normalised() {
        let r = parse("  Foo_Bar[socks] >= 2.31 ; python_version >= \"3.9\" \n").unwrap();
        assert_eq!(r.name, "foo-bar");
        assert_eq!(r.text, "Foo_Bar[socks] >= 2.31 ; python_version >= \"3.9\"");
        assert_eq!(
            parse("pkg @ https://example.com/pkg.whl").unwrap().name,
            "pkg"
        );
        assert_eq!(normalize("Zope.Interface").unwrap(), "zope-interface");
        assert!(normalize("not a name").is_err());
    }

    #[test]
    fn invalid_requirements_say_what_and_where() {
        let err = parse("requests >= ").unwrap_err();
        assert!(err.starts_with("column "), "{err}");
        let err = parse("requests; python_version >> '3'").unwrap_err();
        assert!(err.contains("column"), "{err}");
        assert!(parse("").is_err());
        assert!(parse("requests==2.*.1").is_err());
    }
}
