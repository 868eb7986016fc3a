//! An sdist's `PKG-INFO` at the project's top (core metadata, RFC 822 style): the fields
//! a project without pyproject.toml's `[project]` is named and versioned by.

use std::path::Path;

/// Field `field` (`Name`, `Version`) of the PKG-INFO an sdist holds at its top, if given.
pub fn field(project: &Path, field: &str) -> Option<String> {
    let text = std::fs::read_to_string(project.join("PKG-INFO")).ok()?;
    let prefix = format!("{field}:");
    text.lines()
        .find_map(|l| l.strip_prefix(prefix.as_str()))
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
}
