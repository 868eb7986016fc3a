//! Whether Python source would compile on the project's Python: [`validate`] reports, all
//! together and in position order, what CPython's `compile()` would refuse — syntax errors,
//! syntax the target version does not have yet (or any more), and the errors CPython raises
//! only while compiling (`return` outside a function, duplicate parameters, `nonlocal` at
//! module level, a late `from __future__` import, an irrefutable `case` before others, ...).
//! [`target_version`] finds that version for a project.
//!
//! Source is checked as a module of its own: a symbol file is checked standalone, dedented,
//! so every line and column is one of the file its author wrote. Nothing of the module around
//! it is assumed; where that matters (a `from __future__ import annotations` at the top of
//! the module) the check errs on the side of accepting the edit.

use std::fmt;
use std::io::Read as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::index::SyntaxProblem;
use super::lines::LineTable;
use super::parse;
use super::symbols::locate;

/// A Python language version, `major.minor`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Version {
    pub major: u8,
    pub minor: u8,
}

impl Version {
    /// The version assumed when neither the project nor an interpreter says.
    pub const FALLBACK: Version = Version::new(3, 10);

    pub const fn new(major: u8, minor: u8) -> Self {
        Version { major, minor }
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// Every problem CPython `target` would have compiling `source` as a module, sorted by
/// position, each with its 1-based line and column (in chars) and what is wrong or expected.
/// Empty when the source compiles. Semantic errors past the first syntax error are left out
/// (they would be judged on the parser's error recovery). Never panics.
pub fn validate(source: &str, target: Version) -> Vec<SyntaxProblem> {
    let problems = parse::validation_problems(source, (target.major, target.minor));
    if problems.is_empty() {
        return Vec::new();
    }
    locate(source, &LineTable::new(source), &problems)
}

/// The Python version edits to the project at `project_root` must compile on: the lowest
/// version its `pyproject.toml` allows (`[project] requires-python`, else Poetry's
/// `[tool.poetry.dependencies] python`); if that says nothing about a lower bound, the
/// version of the project's interpreter (`.venv`, `venv`, else `python3` on `PATH`); else
/// [`Version::FALLBACK`].
pub fn target_version(project_root: &Path) -> Version {
    declared_minimum(project_root)
        .or_else(|| interpreter_version(project_root))
        .unwrap_or(Version::FALLBACK)
}

fn declared_minimum(project_root: &Path) -> Option<Version> {
    let text = std::fs::read_to_string(project_root.join("pyproject.toml")).ok()?;
    let doc = text.parse::<toml_edit::DocumentMut>().ok()?;
    let project = doc
        .get("project")
        .and_then(|project| project.get("requires-python"));
    let poetry = || {
        doc.get("tool")
            .and_then(|tool| tool.get("poetry"))
            .and_then(|poetry| poetry.get("dependencies"))
            .and_then(|dependencies| dependencies.get("python"))
    };
    project
        .or_else(poetry)
        .and_then(|item| item.as_str())
        .and_then(minimum_version)
}

/// The lowest `major.minor` a version specifier allows, e.g. `>=3.10` → 3.10, `~=3.11` →
/// 3.11, `>3.9,<4` → 3.10, `==3.12.*` → 3.12; `None` when no clause bounds it from below
/// (`<4`, `!=3.9`, `*`) or nothing is readable.
///
/// A small tolerant reader rather than a PEP 440 crate: only lower bounds matter here, read to
/// the minor version, and the reader must accept what people actually write — spaces,
/// pre-release suffixes, Poetry's `^3.10` and `~3.10`, `||` alternatives (the lowest wins) —
/// where a strict parser would reject the whole string and lose the answer.
pub fn minimum_version(specifier: &str) -> Option<Version> {
    specifier
        .split("||")
        .filter_map(|alternative| {
            // All clauses of an alternative hold at once: its lowest version is the highest
            // of their lower bounds.
            alternative.split(',').filter_map(lower_bound).max()
        })
        .min()
}

/// The lower bound of one clause such as `>= 3.10`, `>3.9.1`, `~=3.11.2`, `==3.12.*`.
fn lower_bound(clause: &str) -> Option<Version> {
    let clause = clause.trim();
    let operator_end = clause
        .find(|c: char| c.is_ascii_digit() || c.is_whitespace())
        .unwrap_or(clause.len());
    let (operator, version) = clause.split_at(operator_end);
    let (major, minor, more) = release(version.trim())?;
    match operator {
        ">=" | "~=" | "==" | "===" | "^" | "~" | "" => Some(Version::new(major, minor)),
        // Above `3.9` (or `3.9.*`) means from 3.10; above `3.9.1` still allows 3.9.2.
        ">" if more => Some(Version::new(major, minor)),
        ">" => Some(Version::new(major, minor.saturating_add(1))),
        _ => None, // `<`, `<=`, `!=`: no lower bound
    }
}

/// `3.10.1rc1` → (3, 10, true): the major and minor release numbers (minor 0 if absent), and
/// whether a micro number follows them.
fn release(version: &str) -> Option<(u8, u8, bool)> {
    let digits_end = version
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(version.len());
    let mut parts = version[..digits_end]
        .split('.')
        .filter(|part| !part.is_empty());
    let major = parts.next()?.parse().ok()?;
    let minor = match parts.next() {
        Some(minor) => minor.parse().ok()?,
        None => 0,
    };
    Some((major, minor, parts.next().is_some()))
}

/// How long an interpreter may take to say its version (a cold start on a busy machine
/// takes well under a second).
const INTERPRETER_TIMEOUT: Duration = Duration::from_secs(5);

/// The version of the project's interpreter, asked once (`-I -S`: no site packages or
/// environment to slow it down or break it).
fn interpreter_version(project_root: &Path) -> Option<Version> {
    let python = super::interpreter::find(project_root, None).ok()?.path;
    let mut child = Command::new(python)
        .args([
            "-I",
            "-S",
            "-c",
            "import sys; print('%d.%d' % sys.version_info[:2])",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() < INTERPRETER_TIMEOUT => {
                std::thread::sleep(Duration::from_millis(5));
            }
            Ok(None) | Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    };
    if !status.success() {
        return None;
    }
    let mut output = String::new();
    child.stdout.take()?.read_to_string(&mut output).ok()?;
    let (major, minor, _) = release(output.trim())?;
    Some(Version::new(major, minor))
}

#[cfg(test)]
mod tests {
    use super::*;

    const PY310: Version = Version::new(3, 10);
    const PY312: Version = Version::new(3, 12);

    /// `line:column message` per problem, for compact comparisons.
    fn problems(source: &str, target: Version) -> Vec<String> {
        validate(source, target)
            .into_iter()
            .map(|p| format!("{}:{} {}", p.line, p.column, p.message))
            .collect()
    }

    fn only(source: &str, target: Version) -> String {
        let found = problems(source, target);
        assert_eq!(found.len(), 1, "{source:?}: {found:?}");
        found.into_iter().next().unwrap_or_default()
    }

    #[test]
    fn valid_code_has_no_problems() {
        let source = "\"\"\"Doc.\"\"\"\nfrom __future__ import annotations\nimport os\n\n\nclass A:\n    def f(self, a, *args, b=1, **kw):\n        for x in a:\n            if x:\n                break\n            continue\n        else:\n            pass\n        return [y for y in args]\n\n    async def g(self):\n        async with self.x as y:\n            await y\n        return [await z for z in self.zs]\n\n\ndef outer():\n    x = 1\n\n    def inner():\n        nonlocal x\n        global os\n        yield x\n\n    return inner\n\n\nmatch os.name:\n    case 'posix':\n        pass\n    case other:\n        pass\n";
        assert_eq!(problems(source, PY310), Vec::<String>::new());
        assert_eq!(problems("", PY310), Vec::<String>::new());
    }

    #[test]
    fn syntax_errors_say_what_was_expected() {
        let found = problems("def f(:\n    pass\n", PY312);
        assert!(!found.is_empty());
        assert!(found[0].starts_with("1:7 "), "{found:?}");
    }

    #[test]
    fn syntax_newer_than_the_target_is_refused_with_the_version_it_needs() {
        assert_eq!(
            only("type X = int\n", PY310),
            "1:1 Cannot use `type` alias statement on Python 3.10 (syntax was added in Python 3.12)"
        );
        assert!(problems("type X = int\n", PY312).is_empty());
        let generic = only("def f[T](x: T) -> T:\n    return x\n", PY310);
        assert!(
            generic.starts_with("1:6 Cannot use type parameter lists on Python 3.10"),
            "{generic}"
        );
        let matching = only("match x:\n    case 1:\n        pass\n", Version::new(3, 9));
        assert!(
            matching.contains("Cannot use `match` statement on Python 3.9"),
            "{matching}"
        );
        let with = only(
            "with (open(a) as f, open(b) as g):\n    pass\n",
            Version::new(3, 8),
        );
        assert!(
            with.contains("parentheses within a `with` statement"),
            "{with}"
        );
        let except_star = only("try:\n    pass\nexcept* E:\n    pass\n", PY310);
        assert!(except_star.contains("`except*`"), "{except_star}");
        let quotes = only("x = f\"{d[\"k\"]}\"\n", Version::new(3, 11));
        assert!(quotes.contains("Python 3.11"), "{quotes}");
    }

    #[test]
    fn statements_in_the_wrong_place() {
        assert_eq!(
            only("return 1\n", PY312),
            "1:1 `return` statement outside of a function"
        );
        assert_eq!(
            only("x = 1\nyield x\n", PY312),
            "2:1 `yield` statement outside of a function"
        );
        assert_eq!(
            only("await x\n", PY312),
            "1:1 `await` statement outside of a function"
        );
        assert_eq!(
            only("def f():\n    await x\n", PY312),
            "2:5 `await` outside of an asynchronous function"
        );
        assert_eq!(
            only("def f():\n    async for x in y:\n        pass\n", PY312),
            "2:5 `async for` outside of an asynchronous function"
        );
        assert_eq!(
            only("nonlocal x\n", PY312),
            "1:1 nonlocal declaration not allowed at module level"
        );
        assert_eq!(only("break\n", PY312), "1:1 `break` outside loop");
        assert_eq!(
            only("for x in y:\n    pass\nelse:\n    continue\n", PY312),
            "4:5 `continue` outside loop"
        );
        assert_eq!(
            only("while x:\n    def f():\n        break\n", PY312),
            "3:9 `break` outside loop"
        );
        assert_eq!(
            only("def f():\n    return [(yield x) for x in y]\n", PY312),
            "2:14 `yield` cannot be used inside a comprehension"
        );
        assert_eq!(
            only("def f():\n    class C:\n        yield 1\n", PY312),
            "3:9 `yield` cannot be used in a class body"
        );
        // The first iterable of a comprehension belongs to the enclosing function.
        assert!(problems("def f():\n    return [x for x in (yield)]\n", PY312).is_empty());
        assert!(problems("async def f():\n    return [await x for x in y]\n", PY312).is_empty());
        assert!(problems("def f():\n    return (await x for x in y)\n", PY312).is_empty());
        // A generator expression with `await` is an async generator, wherever it is; only its
        // first iterable is evaluated outside it.
        assert!(problems("g = ([await x for x in y] for z in w)\n", PY312).is_empty());
        assert_eq!(
            only("g = (x for x in await y)\n", PY312),
            "1:17 `await` statement outside of a function"
        );
        assert_eq!(
            only("g = (lambda: await x for z in w)\n", PY312),
            "1:14 `await` outside of an asynchronous function"
        );
        assert_eq!(
            only("[await x for x in y]\n", PY312),
            "1:2 `await` statement outside of a function"
        );
    }

    #[test]
    fn declarations_that_cannot_hold() {
        assert_eq!(
            only("def f(a, b, a):\n    pass\n", PY312),
            "1:13 Duplicate parameter \"a\""
        );
        assert_eq!(
            only("f = lambda a, a: 0\n", PY312),
            "1:15 Duplicate parameter \"a\""
        );
        assert_eq!(
            only("f(x=1, x=2)\n", PY312),
            "1:8 Duplicate keyword argument `x`"
        );
        assert_eq!(
            only("def f(x):\n    global x\n", PY312),
            "2:12 name `x` cannot refer to a parameter and a global variable"
        );
        assert_eq!(
            only("def f():\n    x = 1\n    global x\n", PY312),
            "2:5 name `x` is used prior to global declaration"
        );
        assert_eq!(
            only("def f():\n    def g():\n        nonlocal x\n", PY312),
            "3:18 no binding for nonlocal `x` found"
        );
        // A class gives its methods `__class__` (and `__classdict__` since 3.12), nothing else.
        let cell = "class C:\n    def f(self):\n        nonlocal __classdict__\n";
        assert!(problems(cell, PY312).is_empty());
        assert_eq!(
            only(cell, Version::new(3, 11)),
            "3:18 no binding for nonlocal `__classdict__` found"
        );
        assert!(problems(&cell.replace("dict", ""), Version::new(3, 11)).is_empty());
        // The same method as its own symbol file, without the class: still accepted.
        let file = "def f(self):\n    nonlocal __class__\n    __class__ = C\n";
        assert!(problems(file, PY312).is_empty());
        assert_eq!(
            only(
                "class C:\n    x = 1\n    def f(self):\n        nonlocal x\n",
                PY312
            ),
            "4:18 no binding for nonlocal `x` found"
        );
        // A class body is no enclosing scope for its methods; a `global` hides the binding.
        assert_eq!(
            problems(
                "def f():\n    x = 1\n    class C:\n        def g(self):\n            nonlocal x\n",
                PY312
            ),
            Vec::<String>::new()
        );
        assert_eq!(
            only(
                "def f():\n    global x\n    def g():\n        nonlocal x\n",
                PY312
            ),
            "4:18 no binding for nonlocal `x` found"
        );
        // Bindings of every kind, wherever they are in the enclosing function.
        for binding in [
            "x = 1",
            "x: int",
            "x += 1",
            "del x",
            "for x in y: pass",
            "with y as x: pass",
            "import x",
            "import x.y",
            "from y import x",
            "def x(): pass",
            "class x: pass",
            "[(x := 1) for _ in y]",
            "try: pass\n    except E as x: pass",
            "match y:\n        case [*x]: pass",
            "match y:\n        case {**x}: pass",
            "match y:\n        case x: pass",
        ] {
            let source = format!("def f():\n    def g():\n        nonlocal x\n    {binding}\n");
            assert_eq!(problems(&source, PY312), Vec::<String>::new(), "{source}");
        }
        assert_eq!(
            only(
                "from os import path\nfrom __future__ import annotations\n",
                PY312
            ),
            "2:1 __future__ imports must be at the top of the file"
        );
        assert!(problems("'''Doc.'''\nfrom __future__ import annotations\n", PY312).is_empty());
        assert_eq!(
            only("from __future__ import braces\n", PY312),
            "1:24 Future feature `braces` is not defined"
        );
    }

    #[test]
    fn patterns_and_targets() {
        assert_eq!(
            only(
                "match x:\n    case y:\n        pass\n    case 1:\n        pass\n",
                PY312
            ),
            "2:10 name capture `y` makes remaining patterns unreachable"
        );
        assert_eq!(
            only("match x:\n    case [a, a]:\n        pass\n", PY312),
            "2:14 multiple assignments to name `a` in pattern"
        );
        assert_eq!(
            only("*a = b\n", PY312),
            "1:1 starred assignment target must be in a list or tuple"
        );
        assert_eq!(
            only("(*a, *b) = c\n", PY312),
            "1:1 Two starred expressions in assignment"
        );
        assert_eq!(
            only("__debug__ = 1\n", PY312),
            "1:1 cannot assign to `__debug__`"
        );
        assert_eq!(
            only("[(x := 1) for x in y]\n", PY312),
            "1:3 assignment expression cannot rebind comprehension variable"
        );
        assert_eq!(
            only("async def f():\n    yield 1\n    return 2\n", PY312),
            "3:5 `return` with value in async generator"
        );
    }

    #[test]
    fn annotations_follow_the_future_import_and_the_version() {
        let walrus = "def f(x: (y := int)):\n    pass\n";
        assert!(problems(walrus, PY312).is_empty());
        let future = format!("from __future__ import annotations\n{walrus}");
        assert_eq!(
            only(&future, PY312),
            "2:11 named expression cannot be used within a type annotation"
        );
        assert_eq!(
            only(walrus, Version::new(3, 14)),
            "1:11 named expression cannot be used within a type annotation"
        );
    }

    #[test]
    fn every_problem_is_reported_in_position_order() {
        let source = "def f(a, a):\n    pass\n\n\ntype X = int\nreturn 1\nnonlocal y\n";
        assert_eq!(
            problems(source, PY310),
            [
                "1:10 Duplicate parameter \"a\"",
                "5:1 Cannot use `type` alias statement on Python 3.10 (syntax was added in Python 3.12)",
                "6:1 `return` statement outside of a function",
                "7:1 nonlocal declaration not allowed at module level",
            ]
        );
    }

    #[test]
    fn semantic_errors_after_a_syntax_error_are_left_out() {
        let found = problems("return 1\ndef f(:\n    return 2\nbreak\n", PY312);
        assert_eq!(found[0], "1:1 `return` statement outside of a function");
        assert!(found.len() >= 2, "{found:?}");
        assert!(found[1].starts_with("2:"), "{found:?}");
        assert!(
            found[1..].iter().all(|p| !p.contains("outside")),
            "{found:?}"
        );
    }

    #[test]
    fn a_method_file_is_checked_standalone_with_its_own_lines_and_columns() {
        // `def f(self, a, a)` as the dedented symbol file of a method, after a comment.
        let file = "# why\n@staticmethod\ndef f(self, a, a): return 1\n";
        assert_eq!(
            validate(file, PY312),
            [SyntaxProblem {
                line: 3,
                column: 16,
                message: "Duplicate parameter \"a\"".to_string(),
            }]
        );
        // Columns count chars, not bytes.
        assert_eq!(
            only("é = 1; return é\n", PY312),
            "1:8 `return` statement outside of a function"
        );
    }

    #[test]
    fn deep_nesting_is_survived_on_a_small_stack() {
        let levels = 30_000;
        let shapes = [
            format!("x = {}1\n", "1+".repeat(levels)),
            format!("x = {}{}\n", "[".repeat(levels), "]".repeat(levels)),
            format!("x = {}1\n", "lambda a, b=2: ".repeat(levels)),
            format!(
                "x = {}1{}\n",
                "[".repeat(levels),
                " for x in y]".repeat(levels)
            ),
            format!("x = {}1{}\n", "f(1, ".repeat(levels), ")".repeat(levels)),
            format!("x = {}1\n", "not ".repeat(levels)),
        ];
        let outcomes = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(move || {
                shapes
                    .iter()
                    .map(|source| validate(source, PY312).len())
                    .collect::<Vec<_>>()
            })
            .expect("spawn")
            .join()
            .expect("no panic");
        // CPython refuses a 201st level of brackets; the rest compile.
        assert_eq!(outcomes, [0, 1, 0, 1, 1, 0]);
    }

    #[test]
    fn brackets_nest_at_most_200_deep_as_in_cpython() {
        let nested = |levels: usize| format!("x = {}{}\n", "(".repeat(levels), ")".repeat(levels));
        assert!(problems(&nested(200), PY312).is_empty());
        assert_eq!(
            problems(&nested(201), PY312),
            ["1:205 too many nested parentheses (Python allows 200)"]
        );
    }

    #[test]
    fn minimum_versions_from_specifiers() {
        let v = |spec: &str| minimum_version(spec).map(|v| v.to_string());
        assert_eq!(v(">=3.10").as_deref(), Some("3.10"));
        assert_eq!(v(">= 3.8.1").as_deref(), Some("3.8"));
        assert_eq!(v("~=3.11").as_deref(), Some("3.11"));
        assert_eq!(v("~=3.11.2").as_deref(), Some("3.11"));
        assert_eq!(v(">3.9,<4").as_deref(), Some("3.10"));
        assert_eq!(v(">3.9.1").as_deref(), Some("3.9"));
        assert_eq!(v("==3.12.*").as_deref(), Some("3.12"));
        assert_eq!(v("<4, >=3.9, !=3.9.1").as_deref(), Some("3.9"));
        assert_eq!(v(">=3.10.0rc1").as_deref(), Some("3.10"));
        assert_eq!(v(">=3").as_deref(), Some("3.0"));
        assert_eq!(v("^3.10").as_deref(), Some("3.10"));
        assert_eq!(v(">=3.8,<3.9 || >=3.10").as_deref(), Some("3.8"));
        assert_eq!(v("<4"), None);
        assert_eq!(v("!=3.9"), None);
        assert_eq!(v("*"), None);
        assert_eq!(v(""), None);
        assert_eq!(v("banana"), None);
    }

    #[test]
    fn the_target_comes_from_pyproject_then_the_interpreter() {
        let dir = tempfile::tempdir().expect("tempdir");
        let write = |text: &str| {
            std::fs::write(dir.path().join("pyproject.toml"), text).expect("write");
        };
        write("[project]\nname = \"x\"\nrequires-python = \">3.9,<4\"\n");
        assert_eq!(target_version(dir.path()), Version::new(3, 10));
        write("[tool.poetry.dependencies]\npython = \"^3.11\"\n");
        assert_eq!(target_version(dir.path()), Version::new(3, 11));
        // Without a lower bound: the interpreter's version (or the fallback without one).
        write("[project]\nrequires-python = \"<4\"\n");
        let interpreter = interpreter_version(dir.path());
        assert_eq!(
            target_version(dir.path()),
            interpreter.unwrap_or(Version::FALLBACK)
        );
        if let Some(version) = interpreter {
            assert_eq!(version.major, 3, "{version}");
        }
        // A venv's interpreter is the project's.
        let bin = dir.path().join(".venv/bin");
        std::fs::create_dir_all(&bin).expect("mkdir");
        let fake = bin.join("python");
        std::fs::write(&fake, "#!/bin/sh\necho 3.13\n").expect("write");
        let mut permissions = std::fs::metadata(&fake).expect("stat").permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
        std::fs::set_permissions(&fake, permissions).expect("chmod");
        assert_eq!(target_version(dir.path()), Version::new(3, 13));
        std::fs::write(&fake, "#!/bin/sh\nexit 1\n").expect("write");
        assert_eq!(target_version(dir.path()), Version::FALLBACK);
        write("not toml [");
        assert_eq!(target_version(dir.path()), Version::FALLBACK);
    }
}
