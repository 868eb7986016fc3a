//! Whether and how a new module is imported in its package's `__init__.py` ("exposed"):
//! only in a package whose `__init__.py` already imports its own modules, never in a test
//! package, for a module pytest collects or for a private one (`_helpers`), and in the package's own style — `from . import
//! new` where it imports relatively, `from pkg import new` where it names itself. Removing
//! the module takes either line away again; renaming it renames the line.

use crate::python::{DottedName, ModuleName, NameKind, imports};

/// How a package's `__init__.py` imports its own modules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Style {
    /// `from . import x`, `from .x import y`.
    Relative,
    /// `from pkg import x`, `from pkg.x import y`, `import pkg.x`.
    Absolute,
}

/// The style of the package `package`'s `__init__.py`, from the names its index says it
/// binds (`names`), taken from its first import of one of its own modules; `None` when it
/// imports none of them (an empty `__init__.py`, or one that only imports other
/// packages): such a package does not expose its modules, so a new one is not exposed
/// either. From the index, so that a package's view says it without reading the file.
pub(crate) fn style(names: &[ModuleName], package: &DottedName) -> Option<Style> {
    let package = package.to_string();
    names.iter().find_map(|name| {
        // An import guarded by `try`/`if` (tabulate's `try: from .version import …`, for
        // running `__init__.py` as a script) is no habit to follow unguarded.
        let (NameKind::Import { .. }, false) = (&name.kind, name.guarded) else {
            return None;
        };
        let from = name.value.strip_prefix("from ");
        let target = from.or_else(|| name.value.strip_prefix("import "))?;
        if from.is_some_and(|m| m.starts_with('.') && !m.starts_with("..")) {
            return Some(Style::Relative);
        }
        let own = !package.is_empty()
            && target
                .strip_prefix(package.as_str())
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'));
        own.then_some(Style::Absolute)
    })
}

/// Whether `init` already imports the module `name` of `package`, or names from it (`from
/// .name import x`): a package copied in brings its `__init__.py` before the modules it
/// imports, and exposing them again would add a line the copy does not have.
pub(crate) fn imports_module(init: &str, package: &DottedName, name: &str) -> bool {
    let absolute = package.child(name).to_string();
    let within = |target: &str, module: &str| {
        target == module
            || target
                .strip_prefix(module)
                .is_some_and(|rest| rest.starts_with('.'))
    };
    imports(init).iter().any(|import| match import.level {
        1 => within(&import.target, name),
        0 => within(&import.target, &absolute),
        _ => false,
    })
}

/// Whether a new module `name` keeps out of its package's namespace: a private one
/// (`_helpers`, by Python's convention for names not to be used from outside).
pub(crate) fn is_private(name: &str) -> bool {
    name.starts_with('_')
}

/// Whether a new module of `package` is a test's: the package is a test package (`test`,
/// `tests`, `testing`) or pytest collects the module by its name (`is_test`).
pub(crate) fn is_tests(package: &DottedName, is_test: bool) -> bool {
    is_test || matches!(package.last(), Some("test" | "tests" | "testing"))
}

/// The import line exposing `name` in `package` in `style`.
pub(crate) fn line(style: &Style, package: &DottedName, name: &str) -> String {
    match style {
        Style::Relative => format!("from . import {name}"),
        Style::Absolute => format!("from {package} import {name}"),
    }
}

/// `init` with the line exposing `name`, placed after the last top-level import of the
/// package's own modules, else after its last top-level import, else after its docstring,
/// else at the top.
pub(crate) fn expose(init: &str, package: &DottedName, name: &str, style: &Style) -> String {
    let line = format!("{}\n", line(style, package, name));
    let own_absolute = format!("from {package}");
    let mut offset = 0;
    let mut after = None;
    let mut after_own = None;
    let mut in_docstring = false;
    for (number, text) in init.split_inclusive('\n').enumerate() {
        let start = offset;
        offset += text.len();
        let trimmed = text.trim_start();
        let top = !text.starts_with([' ', '\t']);
        if number == 0 && (trimmed.starts_with("\"\"\"") || trimmed.starts_with("'''")) {
            let quote = &trimmed[..3];
            in_docstring = trimmed.trim_end().len() < 6 || !trimmed.trim_end().ends_with(quote);
            after = Some(offset);
            continue;
        }
        if in_docstring {
            if trimmed.contains("\"\"\"") || trimmed.contains("'''") {
                in_docstring = false;
                after = Some(offset);
            }
            continue;
        }
        if top && (trimmed.starts_with("import ") || trimmed.starts_with("from ")) {
            // A parenthesised import continues to its closing parenthesis.
            let end = if text.contains('(') && !text.contains(')') {
                init[start..]
                    .find(')')
                    .map(|p| start + p + init[start + p..].find('\n').map_or(0, |n| n + 1))
                    .unwrap_or(offset)
            } else {
                offset
            };
            after = Some(end);
            let own = match style {
                Style::Relative => trimmed.starts_with("from ."),
                Style::Absolute => {
                    trimmed.starts_with(&format!("{own_absolute}."))
                        || trimmed.starts_with(&format!("{own_absolute} "))
                }
            };
            if own {
                after_own = Some(end);
            }
        }
    }
    let at = after_own.or(after).unwrap_or(0);
    let prefix = &init[..at];
    let newline = if prefix.is_empty() || prefix.ends_with('\n') {
        ""
    } else {
        "\n"
    };
    format!("{prefix}{newline}{line}{}", &init[at..])
}

/// `init` without the line(s) [`expose`] adds for `name`, in either style; `None` when
/// there is none.
pub(crate) fn unexpose(init: &str, package: &DottedName, name: &str) -> Option<String> {
    let exposing = [
        line(&Style::Relative, package, name),
        line(&Style::Absolute, package, name),
    ];
    let is_exposing = |l: &str| exposing.iter().any(|e| l.trim_end() == e);
    init.lines().any(is_exposing).then(|| {
        init.split_inclusive('\n')
            .filter(|l| !is_exposing(l))
            .collect()
    })
}

/// `init` with the line(s) [`expose`] added for `old` naming `new` instead, in place;
/// `None` when there is none.
pub(crate) fn renamed(init: &str, package: &DottedName, old: &str, new: &str) -> Option<String> {
    let styles = [Style::Relative, Style::Absolute];
    let mut found = false;
    let text = init
        .split_inclusive('\n')
        .map(|l| {
            let body = l.trim_end();
            match styles.iter().find(|s| body == line(s, package, old)) {
                Some(style) => {
                    found = true;
                    format!("{}{}", line(style, package, new), &l[body.len()..])
                }
                None => l.to_string(),
            }
        })
        .collect();
    found.then_some(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::python::index_module;

    fn pkg(name: &str) -> DottedName {
        DottedName::of(name.split('.').map(str::to_string).collect())
    }

    fn style_of(init: &str, package: &DottedName) -> Option<Style> {
        style(&index_module(init).names, package)
    }

    #[test]
    fn a_package_exposes_in_its_own_style_or_not_at_all() {
        let p = pkg("sqlparse");
        assert_eq!(
            style_of("", &p),
            None,
            "an empty __init__.py exposes nothing"
        );
        assert_eq!(style_of("import os\nfrom typing import Any\n", &p), None);
        assert_eq!(style_of("from .a import x\n", &p), Some(Style::Relative));
        assert_eq!(
            style_of(
                "from sqlparse import sql\nfrom sqlparse.engine import x\n",
                &p
            ),
            Some(Style::Absolute)
        );
        assert_eq!(style_of("import sqlparse.sql\n", &p), Some(Style::Absolute));
        // tabulate 0.9.0: its own module imported only under `try`, for running the file
        // as a script, where a relative import fails.
        assert_eq!(
            style_of(
                "import re\ntry:\n    from .version import version\nexcept ImportError:\n    version = None\n",
                &p
            ),
            None
        );
        // Another package whose name begins the same is not its own.
        assert_eq!(style_of("from sqlparsex import y\n", &p), None);
    }

    #[test]
    fn a_module_the_init_imports_already_is_not_exposed_again() {
        let p = pkg("pkg");
        assert!(imports_module("from .helper import twice\n", &p, "helper"));
        assert!(imports_module("from . import helper\n", &p, "helper"));
        assert!(imports_module(
            "from pkg.helper import twice\n",
            &p,
            "helper"
        ));
        assert!(!imports_module("from .helpers import x\n", &p, "helper"));
        assert!(!imports_module("from .other import helper\n", &p, "helper"));
    }

    #[test]
    fn test_packages_and_collected_modules_are_tests() {
        assert!(is_tests(&pkg("pyflakes.test"), false));
        assert!(is_tests(&pkg("tests"), false));
        assert!(is_tests(&pkg("pyflakes"), true));
        assert!(!is_tests(&pkg("pyflakes.checker_help"), false));
    }

    #[test]
    fn new_modules_are_imported_after_the_packages_own_imports() {
        let p = pkg("pkg");
        let relative = Style::Relative;
        assert_eq!(expose("", &p, "m", &relative), "from . import m\n");
        assert_eq!(
            expose(
                "\"\"\"Pkg.\"\"\"\n\nimport os\nfrom .a import (\n    x,\n)\n\n__all__ = []\n",
                &p,
                "m",
                &relative
            ),
            "\"\"\"Pkg.\"\"\"\n\nimport os\nfrom .a import (\n    x,\n)\nfrom . import m\n\n__all__ = []\n"
        );
        assert_eq!(
            expose("\"\"\"Doc\nmore.\n\"\"\"\nX = 1\n", &p, "m", &relative),
            "\"\"\"Doc\nmore.\n\"\"\"\nfrom . import m\nX = 1\n"
        );
        assert_eq!(
            expose(
                "from .a import x\nfrom .b import y\nimport os\nimport sys\n",
                &p,
                "m",
                &relative
            ),
            "from .a import x\nfrom .b import y\nfrom . import m\nimport os\nimport sys\n"
        );
        assert_eq!(
            expose(
                "import os\nfrom pkg import a\nfrom pkg.b import y\nimport sys\n",
                &p,
                "m",
                &Style::Absolute
            ),
            "import os\nfrom pkg import a\nfrom pkg.b import y\nfrom pkg import m\nimport sys\n"
        );
    }

    #[test]
    fn exposing_and_unexposing_are_inverse_in_either_style() {
        let p = pkg("pkg");
        let init = "\"\"\"Pkg.\"\"\"\n\nimport os\n\n__all__ = []\n";
        for style in [Style::Relative, Style::Absolute] {
            let exposed = expose(init, &p, "m", &style);
            assert_eq!(unexpose(&exposed, &p, "m").as_deref(), Some(init));
        }
        assert_eq!(unexpose(init, &p, "m"), None);
    }

    #[test]
    fn a_renamed_module_is_exposed_under_its_new_name_in_place() {
        let p = pkg("pkg");
        let init = "from .a import x\nfrom . import m\nfrom pkg import m\nimport os\n";
        assert_eq!(
            renamed(init, &p, "m", "n").as_deref(),
            Some("from .a import x\nfrom . import n\nfrom pkg import n\nimport os\n")
        );
        assert_eq!(renamed(init, &p, "a", "b"), None);
    }
}
