//! Names as real projects have them, on a real mount: dotted paths that reach what a
//! package's `__init__.py` defines or imports from its own modules, the project's name and
//! requirements from setup.cfg, which top-level folders are the project's packages, and
//! module descriptions.

mod common;

use std::path::Path;

use common::Mount;

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A project shaped like packaging 24.2: a function defined in a subpackage's
/// `__init__.py`, and a class with methods in the top package's `__init__.py` (as
/// cachetools keeps `LRUCache`).
fn packaging_like() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "pyproject.toml",
        "[project]\nname = \"packaging\"\nversion = \"24.2\"\n",
    );
    write(
        root,
        "src/packaging/__init__.py",
        "\"\"\"Core utilities.\"\"\"\n\n\nclass LRUCache:\n    def popitem(self):\n        return None\n",
    );
    write(root, "src/packaging/version.py", "VERSION = 1\n");
    write(
        root,
        "src/packaging/licenses/__init__.py",
        "\"\"\"SPDX license expressions.\"\"\"\n\n\ndef canonicalize_license_expression(raw):\n    return raw.lower()\n",
    );
    write(root, "src/packaging/licenses/_spdx.py", "LICENSES = {}\n");
    dir
}

#[test]
fn dotted_names_reach_what_a_packages_init_defines() {
    let project = packaging_like();
    let mount = Mount::of(project.path(), &[]);
    assert_eq!(
        mount.read("source/packaging.licenses.canonicalize_license_expression.py"),
        "def canonicalize_license_expression(raw):\n    return raw.lower()\n"
    );
    assert_eq!(
        mount.read("source/packaging.licenses.py"),
        std::fs::read_to_string(project.path().join("src/packaging/licenses/__init__.py")).unwrap()
    );
    assert_eq!(
        mount.read("source/packaging.LRUCache.popitem.py"),
        "def popitem(self):\n    return None\n"
    );
    // The spellings that already worked still do.
    assert_eq!(
        mount.read("source/packaging.licenses.__init__.canonicalize_license_expression.py"),
        mount.read("source/packaging.licenses.canonicalize_license_expression.py")
    );
    assert_eq!(mount.read("source/packaging.version.py"), "VERSION = 1\n");
    // What the tree lists is unchanged: the package's definitions stay under __init__/.
    let (ok, listed) = mount.sh("ls $HS/source/packaging/licenses/");
    assert!(ok, "{listed}");
    assert!(
        !listed.contains("canonicalize_license_expression"),
        "{listed}"
    );
}

#[test]
fn a_src_layout_lists_its_own_packages_and_shows_them_in_the_examples() {
    let project = packaging_like();
    let root = project.path();
    write(root, "docs/conf.py", "project = 'packaging'\n");
    write(root, "scripts/release.py", "def main():\n    pass\n");
    write(root, "testing/benchmark.py", "def bench():\n    pass\n");
    let mount = Mount::of(root, &[]);
    let page = mount.read("source/_entry.md");
    assert!(page.contains("`packaging/` | package"), "{page}");
    // The project's other folders show at their paths, as folders: beside src/ nothing is
    // a package of the project, and the examples name the package.
    let (ok, listed) = mount.sh("ls $HS/source/");
    assert!(ok, "{listed}");
    for folder in ["docs/", "scripts/", "testing/"] {
        assert!(page.contains(&format!("`{folder}`")), "{folder}: {page}");
        assert!(
            listed.contains(folder.trim_end_matches('/')),
            "{folder}: {listed}"
        );
        assert!(!page.contains(&format!("`{folder}` | namespace")), "{page}");
    }
    assert!(!page.contains("docs/conf"), "{page}");
    assert_eq!(mount.read("source/docs/conf.py"), "project = 'packaging'\n");
    assert!(page.contains("source/packaging/"), "{page}");
}

#[test]
fn a_module_is_described_by_its_first_line_of_prose_not_a_directive() {
    let project = packaging_like();
    write(
        project.path(),
        "src/packaging/specifiers.py",
        "\"\"\"\n.. testsetup::\n\n    from packaging.specifiers import Specifier\n\nHandling of version specifiers.\n\"\"\"\n",
    );
    let mount = Mount::of(project.path(), &[]);
    let page = mount.read("source/packaging/_entry.md");
    assert!(page.contains("Handling of version specifiers."), "{page}");
    assert!(!page.contains("testsetup"), "{page}");
}

/// A project shaped like pluggy 1.5.0: its name and extras only in setup.cfg, a setup.py
/// that passes no requirements, and no `[project]` table.
fn setup_cfg_only() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("pluggy-1.5.0");
    write(
        &root,
        "setup.cfg",
        "[metadata]\nname = pluggy\n\n[options]\npackages =\n\tpluggy\ninstall_requires =\n\tattrs>=22 # for classes\n\n[options.extras_require]\ndev =\n\tpre-commit\n\ttox\ntesting =\n\tpytest\n\tpytest-benchmark\n",
    );
    write(
        &root,
        "setup.py",
        "from setuptools import setup\n\nsetup(use_scm_version=True)\n",
    );
    write(
        &root,
        "pyproject.toml",
        "[build-system]\nrequires = [\"setuptools\"]\n",
    );
    write(&root, "src/pluggy/__init__.py", "\"\"\"Plugins.\"\"\"\n");
    write(&root, "src/pluggy/_hooks.py", "def hookimpl():\n    pass\n");
    dir
}

#[test]
fn a_setup_cfg_project_is_named_and_its_requirements_shown_where_they_are() {
    let project = setup_cfg_only();
    let mount = Mount::of(&project.path().join("pluggy-1.5.0"), &[]);
    let page = mount.read("source/_entry.md");
    assert!(page.contains("# source — pluggy ("), "{page}");
    let deps = mount.read("source/deps/_entry.md");
    assert!(!deps.contains("setup.py"), "{deps}");
    assert!(deps.contains("setup.cfg.extras_require.testing/"), "{deps}");
    assert_eq!(
        mount.read("source/deps/setup.cfg.extras_require.testing/pytest-benchmark"),
        "pytest-benchmark\n"
    );
    assert_eq!(mount.read("source/deps/setup.cfg/attrs"), "attrs>=22\n");
    assert_eq!(
        mount.read("source/deps/setup.cfg.extras_require.dev/tox"),
        "tox\n"
    );
    // Read-only, and it says so when written to.
    let (ok, said) = mount.sh("echo tox > $HS/source/deps/setup.cfg.extras_require.dev/tox");
    assert!(!ok, "{said}");
}

#[test]
fn a_setup_py_that_names_the_project_plainly_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("toolz-1.0.0");
    write(
        &root,
        "setup.py",
        "from setuptools import setup\n\nsetup(\n    name='toolz',\n    packages=['toolz'],\n)\n",
    );
    write(
        &root,
        "toolz/__init__.py",
        "\"\"\"List processing tools.\"\"\"\n",
    );
    write(
        &root,
        "toolz/itertoolz.py",
        "def first(seq):\n    return next(iter(seq))\n",
    );
    let mount = Mount::of(&root, &[]);
    let page = mount.read("source/_entry.md");
    assert!(page.contains("# source — toolz ("), "{page}");
}

/// A project shaped like pluggy 1.5.0: its `__init__.py` defines nothing and re-exports
/// its API from private modules, relatively (`from ._hooks import HookimplMarker`) and
/// absolutely, as `__all__` lists it; one name is imported from a module that only
/// imports it back.
fn pluggy_like() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "pyproject.toml",
        "[project]\nname = \"pluggy\"\nversion = \"1.5.0\"\n",
    );
    write(
        root,
        "src/pluggy/__init__.py",
        "__all__ = [\"HookimplMarker\", \"PluginManager\"]\n\n\
         from ._hooks import HookimplMarker\n\
         from pluggy._manager import PluginManager\n\
         from ._cycle import Nowhere\n",
    );
    write(
        root,
        "src/pluggy/_hooks.py",
        "class HookimplMarker:\n    \"\"\"Mark a function as a hook implementation.\"\"\"\n\n    \
         def __call__(self, function):\n        return function\n",
    );
    write(
        root,
        "src/pluggy/_manager.py",
        "class PluginManager:\n    pass\n",
    );
    write(root, "src/pluggy/_cycle.py", "from pluggy import Nowhere\n");
    dir
}

#[test]
fn dotted_names_reach_what_a_packages_init_imports_from_its_modules() {
    let project = pluggy_like();
    let mount = Mount::of(project.path(), &[]);
    let defined = mount.read("source/pluggy/_hooks/HookimplMarker.py");
    assert!(defined.starts_with("class HookimplMarker:"), "{defined}");
    assert_eq!(mount.read("source/pluggy.HookimplMarker.py"), defined);
    assert_eq!(
        mount.read("source/pluggy.HookimplMarker.__call__.py"),
        "def __call__(self, function):\n    return function\n"
    );
    assert_eq!(
        mount.read("source/pluggy.PluginManager.py"),
        "class PluginManager:\n    pass\n"
    );
    // A name imported from a module that imports it back is defined nowhere: one level is
    // followed, and the lookup ends.
    assert!(!mount.path("source/pluggy.Nowhere.py").exists());
    // A write through the re-exported name lands where the class is defined.
    let (ok, out) = mount.sh(
        r#"sed 's/Mark a function/Marks a function/' "$HS/source/pluggy.HookimplMarker.py" > new.py
        cat new.py > "$HS/source/pluggy.HookimplMarker.py""#,
    );
    assert!(ok, "{out}");
    let hooks = std::fs::read_to_string(mount.project.join("src/pluggy/_hooks.py")).unwrap();
    assert!(hooks.contains("Marks a function"), "{hooks}");
    let init = std::fs::read_to_string(mount.project.join("src/pluggy/__init__.py")).unwrap();
    assert!(!init.contains("class"), "{init}");
    // Search shows the definition at its own path.
    let (ok, found) = mount.sh(r#"cat "$HS/search/source:HookimplMarker""#);
    assert!(ok, "{found}");
    assert!(
        found.contains("/source/pluggy/_hooks/HookimplMarker.py"),
        "{found}"
    );
}

/// A flat project whose top level has modules `history.py` and `meta.py` and a package
/// `deps/` with a module inside: names source/ keeps for its own folders.
fn named_as_sources_own() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "pyproject.toml",
        "[project]\nname = \"clash\"\nversion = \"1\"\ndependencies = [\"requests>=2\"]\n",
    );
    write(root, "history.py", "def record(event):\n    return event\n");
    write(
        root,
        "meta.py",
        "VERSION = 1\n\n\ndef version():\n    return VERSION\n",
    );
    write(root, "deps/__init__.py", "");
    write(root, "deps/x.py", "def resolve(name):\n    return name\n");
    dir
}

#[test]
fn the_projects_history_meta_and_deps_are_listed_once_and_edited_through_their_dotted_names() {
    let project = named_as_sources_own();
    let mount = Mount::of(project.path(), &[]);
    let (ok, listed) = mount.sh("ls -A $HS/source/");
    assert!(ok, "{listed}");
    let listed: Vec<&str> = listed.lines().collect();
    let mut once = listed.clone();
    once.dedup();
    assert_eq!(once, listed, "every name once");
    for name in [".deps", "deps", "history", "history.py", "meta", "meta.py"] {
        assert!(listed.contains(&name), "{name} in {listed:?}");
    }

    let (ok, out) = mount.sh("cd $HS/source
         ls history/ | grep -qx undo
         cat deps/requests
         cat .history/record.py
         sed -i 's/return event/return [event]/' .history/record.py
         sed -i 's/VERSION = 1/VERSION = 2/' meta.py
         sed -i 's/return VERSION/return str(VERSION)/' .meta/version.py
         sed -i 's/return name/return name.lower()/' .deps/x/resolve.py
         sed -i '1i import os' .deps/x.py
         cat .deps/x.py");
    assert!(ok, "{out}");
    assert!(out.contains("requests>=2"), "{out}");
    assert!(
        out.starts_with("requests>=2\ndef record(event):\n"),
        "{out}"
    );
    let on_disk = |rel: &str| std::fs::read_to_string(mount.project.join(rel)).unwrap();
    assert_eq!(
        on_disk("history.py"),
        "def record(event):\n    return [event]\n"
    );
    assert_eq!(
        on_disk("meta.py"),
        "VERSION = 2\n\n\ndef version():\n    return str(VERSION)\n"
    );
    let x = "import os\ndef resolve(name):\n    return name.lower()\n";
    assert_eq!(on_disk("deps/x.py"), x);
    assert!(out.ends_with(x), "{out}");
    assert_eq!(
        mount.read("source/deps.x.resolve.py"),
        "def resolve(name):\n    return name.lower()\n"
    );
}
