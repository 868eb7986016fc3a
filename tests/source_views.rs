//! `source/` rendered without a mount: the core over fixture projects in a temp dir.
//! Covers layouts, symbol kinds, exact symbol files, dotted lookup, broken and non-UTF-8
//! modules, and live changes on disk.

use std::sync::Arc;

use homespace::app::{Options, build};
use homespace::model::TreePath;
use homespace::store::location::Location;
use homespace::tree::Space;
use homespace::tree::resource::ResourceExt;

fn project(files: &[(&str, &[u8])]) -> (tempfile::TempDir, Arc<Space>) {
    let dir = tempfile::tempdir().unwrap();
    for (path, content) in files {
        let file = dir.path().join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, content).unwrap();
    }
    let mut options = Options::new(dir.path().to_path_buf());
    options.store = Some(Location::File(dir.path().join(".homespace/store.db")));
    let space = build(&options, "/mnt/hs").unwrap();
    (dir, space)
}

fn render(space: &Space, path: &str) -> String {
    let components: Vec<String> = path
        .split('/')
        .filter(|c| !c.is_empty())
        .map(str::to_string)
        .collect();
    match space.render_path(&TreePath::from_names(&components)) {
        Ok(bytes) => String::from_utf8(bytes).unwrap(),
        Err(e) => panic!("{path}: {}", e.message),
    }
}

fn names(space: &Space, path: &str) -> Vec<String> {
    let components: Vec<String> = path
        .split('/')
        .filter(|c| !c.is_empty())
        .map(str::to_string)
        .collect();
    space
        .list(&TreePath::from_names(&components))
        .unwrap()
        .into_iter()
        .map(|c| c.name)
        .collect()
}

const MODULE: &str = r#""""Graph tools."""
from typing import TYPE_CHECKING, overload

if TYPE_CHECKING:
    class Hint:
        """Only for type checkers."""

try:
    import fast
    def speed():
        return 1
except ImportError:
    def speed():
        return 0


class Graph[T]:
    """A graph of T."""

    class Node:
        def label(self):
            return f"{self!r:>{10}}"

    # the size of the graph
    @property
    def size(self) -> int:
        return 0

    @size.setter
    def size(self, value: int) -> None:
        pass

    async def walk(self):
        yield None


type Alias = list[int]


@overload
def pick(x: int) -> int: ...
@overload
def pick(x: str) -> str: ...
def pick(x):
    return f"{x["k"]}"
"#;

#[test]
fn symbols_of_every_kind_are_files() {
    let (_dir, space) = project(&[
        ("graphs/__init__.py", b"\"\"\"Graphs.\"\"\"\n"),
        ("graphs/core.py", MODULE.as_bytes()),
    ]);
    let core = names(&space, "source/graphs/core");
    for name in [
        "Hint.py",
        "speed.py",
        "speed@2.py",
        "Graph.py",
        "Graph",
        "pick.py",
        "pick@2.py",
        "pick@3.py",
    ] {
        assert!(
            core.contains(&name.to_string()),
            "{name} missing from {core:?}"
        );
    }
    let graph = names(&space, "source/graphs/core/Graph");
    for name in ["Node.py", "Node", "size.py", "size@2.py", "walk.py"] {
        assert!(
            graph.contains(&name.to_string()),
            "{name} missing from {graph:?}"
        );
    }
    assert_eq!(
        render(&space, "source/graphs/core/Graph/size.py"),
        "# the size of the graph\n@property\ndef size(self) -> int:\n    return 0\n"
    );
    assert_eq!(
        render(&space, "source/graphs/core/Graph/Node/label.py"),
        "def label(self):\n    return f\"{self!r:>{10}}\"\n"
    );
    assert_eq!(
        render(&space, "source/graphs.core.Graph.size@2.py"),
        render(&space, "source/graphs/core/Graph/size@2.py")
    );
    let entry = render(&space, "source/graphs/core");
    assert!(entry.contains("graphs.core — Graph tools."), "{entry}");
    assert!(entry.contains("| `Graph.py` `Graph/` | class |"), "{entry}");
    let class = render(&space, "source/graphs/core/Graph");
    assert!(class.contains("async method"), "{class}");
}

#[test]
fn module_files_are_exact_bytes() {
    let crlf = b"def f():\r\n    return 1\r\n";
    let (dir, space) = project(&[
        ("pkg/__init__.py", b""),
        ("pkg/m.py", crlf),
        ("pkg/data/x.bin", &[0, 159, 146, 150]),
    ]);
    assert_eq!(render(&space, "source/pkg/m.py").as_bytes(), crlf);
    assert_eq!(render(&space, "source/pkg/m/f.py").as_bytes(), crlf);
    let data = space
        .render_path(&TreePath::parse("source/pkg/data/x.bin"))
        .unwrap();
    assert_eq!(
        data,
        std::fs::read(dir.path().join("pkg/data/x.bin")).unwrap()
    );
}

#[test]
fn broken_and_non_utf8_modules_are_explained_not_fatal() {
    let (_dir, space) = project(&[
        ("pkg/__init__.py", b""),
        (
            "pkg/broken.py",
            b"def ok():\n    pass\n\ndef bad(:\n    pass\n",
        ),
        ("pkg/latin.py", b"# caf\xe9\ndef f():\n    pass\n"),
    ]);
    let broken = render(&space, "source/pkg/broken");
    assert!(broken.contains("Syntax errors"), "{broken}");
    assert!(broken.contains("line 4, column"), "{broken}");
    assert!(
        names(&space, "source/pkg/broken").contains(&"ok.py".to_string()),
        "symbols before the error stay"
    );
    let latin = render(&space, "source/pkg/latin");
    assert!(latin.contains("not UTF-8 (byte 0xe9 on line 1)"), "{latin}");
    let latin_bytes = space
        .render_path(&TreePath::parse("source/pkg/latin.py"))
        .unwrap();
    assert_eq!(
        latin_bytes, b"# caf\xe9\ndef f():\n    pass\n",
        "the module file stays exact"
    );
    let package = render(&space, "source/pkg");
    assert!(package.contains("has syntax errors"), "{package}");
}

#[test]
fn src_layout_tests_and_ignored_folders() {
    let (_dir, space) = project(&[
        ("src/app/__init__.py", b"\"\"\"The app.\"\"\"\n"),
        ("src/app/web.py", b"def serve():\n    pass\n"),
        ("tests/test_web.py", b"def test_serve():\n    pass\n"),
        (".venv/lib/x.py", b""),
        ("build/lib/app/web.py", b""),
        ("node_modules/x/y.py", b""),
        ("notes.py", b"\"\"\"Loose notes.\"\"\"\n"),
        (".gitignore", b"secret/\n"),
        ("secret/keys.py", b"KEY = 1\n"),
    ]);
    let root = names(&space, "source");
    assert!(
        root.contains(&"app".to_string()) && root.contains(&"tests".to_string()),
        "{root:?}"
    );
    assert!(
        root.contains(&"notes.py".to_string()),
        "top-level modules of the project root show too: {root:?}"
    );
    for hidden in [".venv", "build", "node_modules", "secret", "src"] {
        assert!(
            !root.contains(&hidden.to_string()),
            "{hidden} shown: {root:?}"
        );
    }
    assert!(names(&space, "source/tests/test_web").contains(&"test_serve.py".to_string()));
    let entry = render(&space, "source");
    assert!(entry.contains("src layout"), "{entry}");
    assert!(entry.contains("The app."), "{entry}");
}

#[test]
fn changes_on_disk_show_at_the_next_access() {
    let (dir, space) = project(&[
        ("pkg/__init__.py", b""),
        ("pkg/m.py", b"def a():\n    pass\n"),
    ]);
    assert_eq!(
        names(&space, "source/pkg/m"),
        vec!["_entry.md", "_nav.txt", "a.py"]
    );
    let file = dir.path().join("pkg/m.py");
    // A different size makes the change visible even within the file system's mtime
    // granularity.
    std::fs::write(&file, "def a():\n    pass\n\n\ndef b():\n    return 2\n").unwrap();
    assert_eq!(
        names(&space, "source/pkg/m"),
        vec!["_entry.md", "_nav.txt", "a.py", "b.py"]
    );
    assert_eq!(
        render(&space, "source/pkg/m/b.py"),
        "def b():\n    return 2\n"
    );
    std::fs::write(dir.path().join("pkg/n.py"), "X = 1\n").unwrap();
    assert!(names(&space, "source/pkg").contains(&"n.py".to_string()));
}

#[test]
fn search_reports_module_lines_and_symbol_files() {
    let (_dir, space) = project(&[("pkg/__init__.py", b""), ("pkg/m.py", MODULE.as_bytes())]);
    let hits = render(&space, "search/source:return 0");
    assert!(
        hits.contains("pkg.m:14: return 0 — `/mnt/hs/source/pkg/m/speed@2.py`"),
        "{hits}"
    );
    let regex = render(&space, "search/source:re:def (label|walk)");
    assert!(
        regex.contains("/mnt/hs/source/pkg/m/Graph/Node/label.py"),
        "{regex}"
    );
    assert!(
        regex.contains("/mnt/hs/source/pkg/m/Graph/walk.py"),
        "{regex}"
    );
    // A malformed query gets a message, not a failure.
    let bad = render(&space, "search/source:re:(unclosed");
    assert!(bad.contains("is not valid"), "{bad}");
}

#[test]
fn creating_an_init_module_does_not_deadlock() {
    let (dir, space) = project(&[("pkg/__init__.py", b""), ("pkg/data/t.html", b"<p>\n")]);
    let source = space.resource_named("source").unwrap();
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let result = source.write(
            &["pkg", "data", "__init__.py"],
            b"\"\"\"Data.\"\"\"\n",
            None,
        );
        let _ = done.send(result.map_err(|e| e.message));
    });
    let result = finished
        .recv_timeout(std::time::Duration::from_secs(20))
        .expect("creating data/__init__.py returned");
    result.unwrap();
    assert_eq!(
        std::fs::read(dir.path().join("pkg/data/__init__.py")).unwrap(),
        b"\"\"\"Data.\"\"\"\n"
    );
}

#[test]
fn module_counts_say_what_they_count_and_a_missing_docstring_leaves_no_dash() {
    let (_dir, space) = project(&[
        ("pkg/__init__.py", b""),
        (
            "pkg/shapes.py",
            b"class Square:\n    def area(self):\n        return 1\n\n    def side(self):\n        return 1\n\n\ndef unit():\n    return Square()\n",
        ),
    ]);
    let entry = render(&space, "source/pkg/shapes/_entry.md");
    let title = entry.lines().nth(1).unwrap();
    assert!(
        title.starts_with("# pkg.shapes (1 class, 1 function, 2 methods, "),
        "methods are not functions, and no `— (` without a docstring: {title}"
    );
    let mut shown = names(&space, "source/pkg/shapes");
    shown.retain(|n| n.ends_with(".py"));
    assert_eq!(
        shown,
        ["Square.py", "unit.py"],
        "ls shows the one function beside the class"
    );
}

#[test]
fn a_symbol_that_cannot_be_dedented_is_shown_as_it_stands_and_its_entry_says_so() {
    let module = "class Report:\n    def render(self):\n        \"\"\"Render.\n\n        Indented with the code.\n        \"\"\"\n        return 1\n\n    def raw(self):\n        return '''\\\ncol 0\n'''\n\n    def odd(self):\n        return (1,\n2)\n";
    let (_dir, space) = project(&[("report.py", module.as_bytes())]);
    assert_eq!(
        render(&space, "source/report/Report/render.py"),
        "def render(self):\n    \"\"\"Render.\n\n    Indented with the code.\n    \"\"\"\n    return 1\n"
    );
    // A string's lines are its value: they stay at column 0, and the method dedents.
    assert_eq!(
        render(&space, "source/report/Report/raw.py"),
        "def raw(self):\n    return '''\\\ncol 0\n'''\n"
    );
    // A bracket's continuation left of the def cannot be dedented back: as it stands.
    assert_eq!(
        render(&space, "source/report/Report/odd.py"),
        "    def odd(self):\n        return (1,\n2)\n"
    );
    let entry = render(&space, "source/report/Report/_entry.md");
    assert!(
        entry.contains("Not dedented, shown as they stand in the module")
            && entry.contains("`odd.py`")
            && !entry.contains("`raw.py`.")
            && !entry.contains("`render.py`."),
        "{entry}"
    );
}

#[test]
fn folders_are_called_what_they_are_the_same_way_everywhere() {
    let (_dir, space) = project(&[
        ("app/__init__.py", b"\"\"\"The app.\"\"\"\n"),
        ("app/templates/page.html", b"<p/>\n"),
        ("app/plugins/extra.py", b"X = 1\n"),
        ("docs/conf.py", b"project = 'x'\n"),
        ("docs/_static/style.css", b"p {}\n"),
    ]);
    let root = render(&space, "source/_entry.md");
    assert!(
        root.contains("| `app/` | package | The app. (1 module, 1 subpackage, 1 folder) |"),
        "{root}"
    );
    // A folder at a flat layout's top without __init__.py holds scripts (docs/conf.py),
    // not a namespace package; inside a package, it is one.
    assert!(
        root.contains("| `docs/` | folder | 1 module, 1 folder |"),
        "{root}"
    );
    let docs = render(&space, "source/docs/_entry.md");
    assert!(
        docs.contains("docs — folder (1 module, 1 folder)"),
        "{docs}"
    );
    assert!(docs.contains("| `_static/` | folder |"), "{docs}");
    let app = render(&space, "source/app/_entry.md");
    assert!(
        app.contains("| `plugins/` | namespace package | 1 module |")
            && app.contains("| `templates/` | folder | 1 file |"),
        "{app}"
    );
    let nav = render(&space, "source/_nav.txt");
    assert!(!nav.contains("_static/ — package"), "{nav}");
    // A folder of no module offers to read what it holds, not a module it does not have.
    let templates = render(&space, "source/app/templates/_entry.md");
    assert!(
        templates.contains("templates — folder (1 file)")
            && templates.contains("`cat /mnt/hs/source/app/templates/page.html` | read a file |")
            && !templates.contains("__init__"),
        "{templates}"
    );
}

#[test]
fn names_for_ls_and_nav_are_the_listing_without_descriptions() {
    let (_dir, space) = project(&[
        (
            "app/__init__.py",
            b"\"\"\"The app.\"\"\"\nclass A:\n    def f(self): pass\n",
        ),
        ("app/core.py", b"def g(): pass\n"),
        ("app/templates/page.html", b"<p/>\n"),
        ("app/plugins/extra.py", b"X = 1\n"),
        ("tests/test_app.py", b"def test_a(): pass\n"),
        ("top.py", b"Y = 2\n"),
    ]);
    for path in [
        "source",
        "source/app",
        "source/app/plugins",
        "source/app/templates",
        "source/app/core",
        "source/app/__init__/A",
        "source/tests",
        "source/tests/test_app",
    ] {
        let components: Vec<String> = path.split('/').map(str::to_string).collect();
        let listed: Vec<(String, homespace::model::Kind)> = space
            .list(&TreePath::from_names(&components))
            .unwrap()
            .into_iter()
            .map(|c| (c.name, c.kind))
            .collect();
        assert_eq!(
            space.names(&TreePath::from_names(&components)).unwrap(),
            listed,
            "{path}"
        );
    }
}

/// An overloaded method (stubs before the implementation) and an overloaded function
/// (stubs after it), each with a different spelling of `overload`.
const OVERLOADED: &str = r#""""Compiling templates."""
import typing
import typing as t
import typing_extensions
from typing import overload


class Environment:
    @typing.overload
    def compile(self, source: str, raw: typing.Literal[False] = False) -> bytes: ...

    @t.overload
    def compile(self, source: str, raw: typing.Literal[True]) -> str: ...

    def compile(self, source, raw=False):
        """Compile a template."""
        return source if raw else source.encode()


def convert(value):
    return value


@typing_extensions.overload
def convert(value: int) -> int: ...


@overload
def convert(value: str) -> str: ...
"#;

#[test]
fn the_plain_name_of_an_overloaded_function_reads_and_writes_its_implementation() {
    let (dir, space) = project(&[
        ("jinja/__init__.py", b""),
        ("jinja/environment.py", OVERLOADED.as_bytes()),
    ]);
    let implementation = "def compile(self, source, raw=False):\n    \"\"\"Compile a template.\"\"\"\n    return source if raw else source.encode()\n";
    assert_eq!(
        render(&space, "source/jinja.environment.Environment.compile.py"),
        implementation
    );
    assert_eq!(
        render(&space, "source/jinja/environment/Environment/compile.py"),
        implementation
    );
    assert_eq!(
        render(&space, "source/jinja/environment/Environment/compile@2.py"),
        "@typing.overload\ndef compile(self, source: str, raw: typing.Literal[False] = False) -> bytes: ...\n"
    );
    assert_eq!(
        render(&space, "source/jinja.environment.convert.py"),
        "def convert(value):\n    return value\n"
    );
    assert_eq!(
        render(&space, "source/jinja/environment/convert@3.py"),
        "@overload\ndef convert(value: str) -> str: ...\n"
    );
    let outline = render(&space, "source/jinja/environment/Environment");
    assert!(
        outline.contains("overloads `compile@2.py` `compile@3.py`"),
        "{outline}"
    );

    // A stub stays a stub and the implementation stays the implementation: either turned
    // would rename the files beside it, so the write is refused and the module kept.
    let source = space.resource_named("source").unwrap();
    let turned = source
        .write(
            &["jinja", "environment", "convert@2.py"],
            b"def convert(value: int) -> int:\n    return value\n",
            None,
        )
        .expect_err("a stub written without @overload is refused");
    assert!(
        turned.message.contains("`@overload` stub of `convert`")
            && turned.message.contains("`convert.py`"),
        "{}",
        turned.message
    );
    let turned = source
        .write(
            &["jinja", "environment", "Environment", "compile.py"],
            b"@overload\ndef compile(self, source: str) -> str: ...\n",
            None,
        )
        .expect_err("the implementation written as a stub is refused");
    assert!(
        turned
            .message
            .contains("implementation of the overloaded `compile`"),
        "{}",
        turned.message
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("jinja/environment.py")).unwrap(),
        OVERLOADED,
        "the refused writes changed nothing"
    );
    // Rewriting a stub as a stub is an edit like any other.
    source
        .write(
            &["jinja", "environment", "convert@2.py"],
            b"@typing_extensions.overload\ndef convert(value: int) -> float: ...\n",
            None,
        )
        .unwrap_or_else(|e| panic!("write convert@2.py: {}", e.message));
    assert_eq!(
        render(&space, "source/jinja/environment/convert@2.py"),
        "@typing_extensions.overload\ndef convert(value: int) -> float: ...\n"
    );
    source
        .write(
            &["jinja", "environment", "convert@2.py"],
            b"@typing_extensions.overload\ndef convert(value: int) -> int: ...\n",
            None,
        )
        .unwrap_or_else(|e| panic!("write convert@2.py back: {}", e.message));

    // Writing the plain name replaces the implementation and leaves the stubs as they were,
    // through the dotted path as through the folder.
    let source = space.resource_named("source").unwrap();
    source
        .write(
            &["jinja.environment.Environment.compile.py"],
            b"def compile(self, source, raw=False):\n    return source\n",
            None,
        )
        .unwrap_or_else(|e| panic!("write compile.py: {}", e.message));
    source
        .write(
            &["jinja", "environment", "convert.py"],
            b"def convert(value):\n    return str(value)\n",
            None,
        )
        .unwrap_or_else(|e| panic!("write convert.py: {}", e.message));
    let expected = OVERLOADED
        .replace(
            "        \"\"\"Compile a template.\"\"\"\n        return source if raw else source.encode()\n",
            "        return source\n",
        )
        .replace(
            "def convert(value):\n    return value\n",
            "def convert(value):\n    return str(value)\n",
        );
    assert_ne!(expected, OVERLOADED);
    let on_disk = std::fs::read_to_string(dir.path().join("jinja/environment.py")).unwrap();
    assert_eq!(on_disk, expected);
    assert_eq!(
        render(&space, "source/jinja.environment.Environment.compile.py"),
        "def compile(self, source, raw=False):\n    return source\n"
    );
}

/// An sdist that keeps its tests inside the package (toolz keeps `toolz/tests/`) still has
/// the runner under `source/tests/`, whose view says where pytest finds the tests; the
/// project is named from PKG-INFO when no pyproject names it.
#[test]
fn a_project_with_its_tests_inside_the_package_still_runs_them_from_source_tests() {
    let (_dir, space) = project(&[
        (
            "PKG-INFO",
            b"Metadata-Version: 2.1\nName: tinytools\nVersion: 1.0\n",
        ),
        ("tinytools/__init__.py", b""),
        ("tinytools/core.py", b"def twice(x):\n    return 2 * x\n"),
        ("tinytools/tests/__init__.py", b""),
        (
            "tinytools/tests/test_core.py",
            b"from tinytools.core import twice\n\ndef test_twice():\n    assert twice(2) == 4\n",
        ),
    ]);
    assert!(names(&space, "source").contains(&"tests".to_string()));
    let tests = names(&space, "source/tests");
    assert!(
        tests.contains(&"run".to_string()) && tests.contains(&"runs".to_string()),
        "{tests:?}"
    );
    let entry = render(&space, "source/tests");
    assert!(entry.contains("(tinytools/tests/)"), "{entry}");
    assert!(
        entry.contains(
            "echo > /mnt/hs/source/tests/run; cat /mnt/hs/source/tests/runs/latest/result.md"
        ),
        "{entry}"
    );
    let root = render(&space, "");
    assert!(root.contains("# homespace — tinytools ("), "{root}");
    assert!(root.contains("1 test modules"), "{root}");
}

/// `def name` is a precise question: the line holding both words ends page 1, with the
/// definition's code, and the lines holding only `def` wait on page 2 rather than burying
/// the answer.
#[test]
fn a_page_of_source_hits_ends_after_the_lines_with_every_word() {
    let mut module = String::new();
    for n in 0..30 {
        module.push_str(&format!("def helper_{n}():\n    return {n}\n\n"));
    }
    module.push_str("def target():\n    return 0\n");
    let (_dir, space) = project(&[("pkg/__init__.py", b""), ("pkg/mod.py", module.as_bytes())]);
    let first = render(&space, "search/source:target def");
    assert!(first.contains("def target():"), "{first}");
    // The definition of the name asked for comes with its code: nothing else to open.
    assert!(
        first.contains("\n  def target():\n      return 0\n"),
        "{first}"
    );
    assert!(!first.contains("helper_"), "{first}");
    assert!(first.contains("page:2"), "the rest is a page away: {first}");
    let second = render(&space, "search/source:target def page:2");
    assert!(second.contains("helper_"), "{second}");
    // `def target` asks for the definition alone: where it is, and its code.
    let defined = render(&space, "search/source:def target");
    assert!(
        defined.ends_with("/source/pkg/mod/target.py\ndef target():\n    return 0\n"),
        "{defined}"
    );
    // Words that name no definition are searched as words.
    let words = render(&space, "search/source:def nothing_defined");
    assert!(
        words.contains("# Search: source:def nothing_defined"),
        "{words}"
    );
}

#[test]
fn a_definition_longer_than_the_budget_is_cut_at_a_line_saying_where_the_whole_is() {
    let mut module = String::from("def big():\n");
    for n in 0..400 {
        module.push_str(&format!("    value_{n} = {n}\n"));
    }
    let (_dir, space) = project(&[("pkg/__init__.py", b""), ("pkg/mod.py", module.as_bytes())]);
    let answer = render(&space, "search/def:big");
    assert!(answer.chars().count().div_ceil(4) <= 500, "{answer}");
    let mut lines = answer.lines();
    let path = lines.next().unwrap();
    assert!(path.ends_with("/source/pkg/mod/big.py"), "{answer}");
    assert_eq!(lines.next(), Some("def big():"), "{answer}");
    assert!(answer.contains("    value_0 = 0\n"), "{answer}");
    let last = answer.lines().last().unwrap();
    assert!(
        last.starts_with("[pruned: lines 1-")
            && last.ends_with(&format!("of 401 shown; the whole: cat {path}]")),
        "{answer}"
    );
}

/// A flat project whose top level has a module `history.py`, `meta.py` and a package
/// `deps/`: names source/ keeps for its own folders.
const NAMED_AS_SOURCES_OWN: &[(&str, &[u8])] = &[
    (
        "pyproject.toml",
        b"[project]\nname = \"clash\"\nversion = \"1\"\ndependencies = [\"requests>=2\"]\n",
    ),
    (
        "history.py",
        b"\"\"\"Events.\"\"\"\n\n\ndef record(event):\n    return event\n",
    ),
    ("meta.py", b"def version():\n    return 1\n"),
    ("deps/__init__.py", b"\"\"\"Dependency helpers.\"\"\"\n"),
    ("deps/x.py", b"def resolve(name):\n    return name\n"),
];

#[test]
fn modules_named_as_sources_own_folders_are_listed_once_and_the_entry_says_where() {
    let (_dir, space) = project(NAMED_AS_SOURCES_OWN);
    let listed = names(&space, "source");
    for name in [
        "history",
        "meta",
        "deps",
        "config",
        "tests",
        "history.py",
        "meta.py",
    ] {
        let times = listed.iter().filter(|n| *n == name).count();
        assert_eq!(times, 1, "{name} in {listed:?}");
    }
    assert!(listed.contains(&".deps".to_string()), "{listed:?}");
    // The plain names stay source/'s own folders.
    assert!(render(&space, "source/history/_entry.md").contains("routed edits"));
    assert!(render(&space, "source/deps/requests").contains("requests>=2"));

    let entry = render(&space, "source/_entry.md");
    for place in [
        "`history.py`'s symbols at `/mnt/hs/source/.history/`",
        "`meta.py`'s symbols at `/mnt/hs/source/.meta/`",
        "package `deps` at `/mnt/hs/source/.deps/`",
        "| `.deps/` | package |",
    ] {
        assert!(entry.contains(place), "{place}: {entry}");
    }

    // The project's own, by the spellings the views name.
    let module = render(&space, "source/.history/_entry.md");
    assert!(module.starts_with("home > source > .history\n"), "{module}");
    assert!(
        module.contains("`cat /mnt/hs/source/.history/record.py`"),
        "{module}"
    );
    assert!(!module.contains("source/history/record.py"), "{module}");
    let record = "def record(event):\n    return event\n";
    assert_eq!(render(&space, "source/.history/record.py"), record);
    assert_eq!(render(&space, "source/history.record.py"), record);
    assert_eq!(
        render(&space, "source/history.py"),
        "\"\"\"Events.\"\"\"\n\n\ndef record(event):\n    return event\n"
    );
    assert_eq!(
        render(&space, "source/.meta/version.py"),
        "def version():\n    return 1\n"
    );
    let resolve = "def resolve(name):\n    return name\n";
    assert_eq!(render(&space, "source/.deps/x.py"), resolve);
    assert_eq!(render(&space, "source/.deps/x/resolve.py"), resolve);
    assert_eq!(render(&space, "source/deps.x.resolve.py"), resolve);
    let package = render(&space, "source/.deps/_entry.md");
    assert!(
        package.contains("`cat /mnt/hs/source/.deps/x.py`"),
        "{package}"
    );
    assert!(
        render(&space, "search/source:resolve").contains("/mnt/hs/source/.deps/x/resolve.py"),
        "a search hit names the spelling that reaches the symbol"
    );
}

/// six: one module at the top (`six.py`), its tests beside it, and a documentation folder
/// with a `conf.py` but no `__init__.py`. The root view's examples name the project's
/// module, not the documentation's configuration, nor setup.py or the tests.
#[test]
fn a_project_of_one_module_at_the_top_is_the_example_of_the_root_view() {
    let (_dir, space) = project(&[
        ("setup.cfg", b"[metadata]\nname = six\n"),
        ("setup.py", b"from setuptools import setup\nsetup()\n"),
        ("documentation/conf.py", b"project = 'six'\n"),
        (
            "six.py",
            b"\"\"\"Python 2 and 3.\"\"\"\n\n\ndef b(s):\n    return s\n",
        ),
        (
            "test_six.py",
            b"import six\n\n\ndef test_b():\n    assert six.b('x') == 'x'\n",
        ),
    ]);
    let root = render(&space, "source/_entry.md");
    assert!(
        root.contains("`cat /mnt/hs/source/six.py` | read a module"),
        "{root}"
    );
    assert!(root.contains("/mnt/hs/source/six.<Symbol>.py"), "{root}");
    assert!(!root.contains("documentation/conf"), "{root}");
    assert!(
        root.contains("| `documentation/` | folder |"),
        "a folder of scripts at a flat layout's top is no namespace package: {root}"
    );
    assert!(
        root.contains("deps/` — no pyproject.toml, and no dependencies declared elsewhere"),
        "no counts of a file that is not there: {root}"
    );
    // Without a module named after the project, the first that is code.
    let (_dir, space) = project(&[
        ("setup.py", b"from setuptools import setup\nsetup()\n"),
        ("documentation/conf.py", b"project = 'x'\n"),
        ("helpers.py", b"def h():\n    return 1\n"),
        ("test_helpers.py", b"def test_h():\n    pass\n"),
    ]);
    let root = render(&space, "source/_entry.md");
    assert!(
        root.contains("`cat /mnt/hs/source/helpers.py` | read a module"),
        "{root}"
    );
}

/// `def:` and `refs:` follow a re-exported name to its definition: through the binding
/// Python keeps (the fallback of `try: from ._speedups import …`, a C extension, is
/// `_native`'s), and never to the class of a misspelt method.
#[test]
fn a_re_exported_name_leads_to_its_definition_and_a_misspelt_one_to_none() {
    let (_dir, space) = project(&[
        (
            "pkg/__init__.py",
            b"try:\n    from ._speedups import escape\nexcept ImportError:\n    from ._native import escape\n",
        ),
        (
            "pkg/_native.py",
            b"def escape(s):\n    return s\n\n\nclass Markup:\n    def join(self, seq):\n        return seq\n",
        ),
        (
            "pkg/app.py",
            b"from pkg import escape\n\n\ndef page(s):\n    return escape(s)\n",
        ),
        ("pkg/api.py", b"from ._native import escape as quote\n"),
        (
            "pkg/view.py",
            b"from pkg.api import quote\n\n\ndef show(s):\n    return quote(s)\n",
        ),
    ]);
    let defined = render(&space, "search/def:pkg.escape");
    assert!(
        defined.contains("/source/pkg/_native/escape.py"),
        "{defined}"
    );
    let refs = render(&space, "search/refs:pkg.escape");
    assert!(
        refs.contains("`pkg._native.escape`, re-exported as `pkg.escape`")
            && refs.contains("pkg.app.page:5: return escape(s)"),
        "{refs}"
    );
    // Re-exported under another name: its users spell that one.
    let aliased = render(&space, "search/refs:pkg.api.quote");
    assert!(
        aliased.contains("pkg.view.show:5: return quote(s)"),
        "{aliased}"
    );
    let misspelt = render(&space, "search/def:pkg._native.Markup.jion");
    assert!(misspelt.contains("no definition"), "{misspelt}");
}
