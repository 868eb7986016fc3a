//! The project's layout, listings and what they hide, on small projects made on disk.

use super::*;

fn names_in(project: &Project, dir: &Path) -> Vec<String> {
    project
        .list_dir(None, dir)
        .unwrap()
        .into_iter()
        .map(|e| e.name)
        .collect()
}

fn fixture() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for (path, text) in [
        ("src/pkg/__init__.py", "\"\"\"Pkg.\"\"\"\n"),
        ("src/pkg/mod.py", "def f():\n    pass\n"),
        ("src/pkg/data/t.html", "<p>\n"),
        ("src/pkg/__pycache__/mod.cpython-311.pyc", "x"),
        ("src/pkg/gen.py", "x = 1\n"),
        ("tests/test_mod.py", "def test_f():\n    pass\n"),
        ("docs/index.md", "# docs\n"),
        (".venv/pyvenv.cfg", "home = /usr\n"),
        ("build/lib/pkg/mod.py", ""),
        (".gitignore", "gen.py\n"),
    ] {
        let file = root.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, text).unwrap();
    }
    dir
}

#[test]
fn src_layout_with_tests_and_ignored_files() {
    let dir = fixture();
    let root = dir.path().canonicalize().unwrap();
    let project = Project::open(&root);
    assert_eq!(project.code_roots[0], root.join("src"));
    assert_eq!(project.test_dirs(), vec![root.join("tests")]);
    let top: Vec<String> = project
        .top_level(None)
        .into_iter()
        .map(|e| e.name)
        .collect();
    assert_eq!(
        top,
        vec!["pkg"],
        "docs/ has no Python, build/ and .venv/ are skipped"
    );
    let pkg = names_in(&project, &root.join("src/pkg"));
    assert_eq!(
        pkg,
        vec!["__init__.py", "data", "mod.py"],
        "gen.py is in .gitignore"
    );
    let files = project.python_files();
    assert_eq!(files.len(), 3, "{files:?}");
}

#[test]
fn symlinks_to_hidden_places_or_a_src_outside_are_not_followed() {
    let dir = fixture();
    let root = dir.path().canonicalize().unwrap();
    std::fs::create_dir_all(root.join(".git")).unwrap();
    std::fs::write(root.join(".git/config"), "[core]\n").unwrap();
    std::os::unix::fs::symlink(root.join(".git"), root.join("src/pkg/gitlink")).unwrap();
    std::os::unix::fs::symlink(root.join(".git/config"), root.join("src/pkg/config.txt")).unwrap();
    let project = Project::open(&root);
    let names = names_in(&project, &root.join("src/pkg"));
    assert!(!names.contains(&"gitlink".to_string()), "{names:?}");
    assert!(!names.contains(&"config.txt".to_string()), "{names:?}");

    let outside = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(outside.path().join("secret")).unwrap();
    std::fs::write(outside.path().join("secret/creds.py"), "KEY = 1\n").unwrap();
    let linked = tempfile::tempdir().unwrap();
    let linked_root = linked.path().canonicalize().unwrap();
    std::os::unix::fs::symlink(outside.path(), linked_root.join("src")).unwrap();
    let project = Project::open(&linked_root);
    assert_eq!(
        project.code_roots,
        vec![linked_root.clone()],
        "a src/ outside is not a code root"
    );
}

#[test]
fn symlinks_out_of_the_project_are_not_followed() {
    let dir = fixture();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.py"), "x = 1\n").unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::os::unix::fs::symlink(outside.path(), root.join("src/pkg/escape")).unwrap();
    std::os::unix::fs::symlink(root.join("src/pkg/mod.py"), root.join("src/pkg/alias.py")).unwrap();
    let project = Project::open(&root);
    let names = names_in(&project, &root.join("src/pkg"));
    assert!(!names.contains(&"escape".to_string()));
    assert!(names.contains(&"alias.py".to_string()), "links inside stay");
}

#[test]
fn an_entry_made_just_after_a_listing_is_found_by_the_next_look() {
    let dir = fixture();
    let root = dir.path().canonicalize().unwrap();
    let project = Project::open(&root);
    let pkg = root.join("src/pkg");
    assert_eq!(
        project.shown_kind(None, &pkg, "mod.py"),
        Some(EntryKind::Module)
    );
    assert_eq!(project.shown_kind(None, &pkg, "gen.py"), None, "ignored");
    assert_eq!(project.shown_kind(None, &pkg, "data"), Some(EntryKind::Dir));
    // Made within the same clock tick as the listing could leave the folder's time
    // as it was: the listing of a folder that just changed is not kept.
    std::fs::write(pkg.join("new.py"), "").unwrap();
    assert_eq!(
        project.shown_kind(None, &pkg, "new.py"),
        Some(EntryKind::Module)
    );
    std::fs::write(pkg.join("newer.py"), "").unwrap();
    assert_eq!(
        project.shown_kind(None, &pkg, "newer.py"),
        Some(EntryKind::Module)
    );
    std::fs::remove_file(pkg.join("newer.py")).unwrap();
    assert_eq!(project.shown_kind(None, &pkg, "newer.py"), None);
    // Settled, then changed: the folder's new time lists it again.
    std::thread::sleep(LISTING_SETTLED * 2);
    assert_eq!(project.shown_kind(None, &pkg, "later.py"), None);
    std::fs::write(pkg.join("later.py"), "").unwrap();
    assert_eq!(
        project.shown_kind(None, &pkg, "later.py"),
        Some(EntryKind::Module)
    );
}

#[test]
fn within_a_glance_a_folder_is_looked_at_once_and_after_it_again() {
    let dir = fixture();
    let root = dir.path().canonicalize().unwrap();
    let project = Project::open(&root);
    let pkg = root.join("src/pkg");
    std::thread::sleep(LISTING_SETTLED * 2);
    let glance = crate::tree::glance::Glance::new();
    assert_eq!(
        project.shown_kind(Some(&glance), &pkg, "mod.py"),
        Some(EntryKind::Module)
    );
    std::fs::write(pkg.join("during.py"), "").unwrap();
    assert_eq!(
        project.shown_kind(Some(&glance), &pkg, "during.py"),
        None,
        "a glance answers as of its first look"
    );
    drop(glance);
    assert_eq!(
        project.shown_kind(None, &pkg, "during.py"),
        Some(EntryKind::Module),
        "the next request looks again"
    );
}

#[test]
fn a_folders_kind_is_told_by_what_it_shows() {
    let dir = fixture();
    let root = dir.path().canonicalize().unwrap();
    for (path, text) in [
        ("src/pkg/ns/deeper/m.py", ""),
        ("src/pkg/hidden/gen.py", "x = 1\n"),
    ] {
        let file = root.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, text).unwrap();
    }
    let project = Project::open(&root);
    let pkg = root.join("src/pkg");
    assert_eq!(project.dir_kind(None, &pkg), DirKind::Package);
    assert_eq!(
        project.dir_kind(None, &pkg.join("ns")),
        DirKind::Namespace,
        "Python one folder down"
    );
    assert_eq!(project.dir_kind(None, &pkg.join("data")), DirKind::Folder);
    // Its only module is ignored (gen.py): nothing of it shows, so no package either.
    assert_eq!(project.dir_kind(None, &pkg.join("hidden")), DirKind::Folder);
}

#[test]
fn the_top_shows_every_file_and_folder_but_the_layouts_own_and_what_is_hidden() {
    let dir = fixture();
    let root = dir.path().canonicalize().unwrap();
    for (path, text) in [
        ("README.md", "# pkg\n"),
        (".github/workflows/ci.yml", "on: push\n"),
        (".git", "gitdir: ../.git/worktrees/pkg\n"),
        (".coverage", "x"),
        (".tox/py311/x", "x"),
    ] {
        let file = root.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, text).unwrap();
    }
    let project = Project::open(&root);
    let top: Vec<String> = project
        .top_entries(None)
        .into_iter()
        .map(|e| e.name)
        .collect();
    assert_eq!(
        top,
        vec![".github", ".gitignore", "README.md", "docs", "pkg"],
        "src/ and tests/ are the layout's; .git, .coverage, .tox, .venv and build/ hidden"
    );
    // The code alone is still the packages.
    let code: Vec<String> = project
        .top_level(None)
        .into_iter()
        .map(|e| e.name)
        .collect();
    assert_eq!(code, vec!["pkg"]);
}

#[test]
fn a_changed_gitignore_hides_from_the_next_listing() {
    let dir = fixture();
    let root = dir.path().canonicalize().unwrap();
    let project = Project::open(&root);
    assert!(names_in(&project, &root).contains(&"docs".to_string()));
    std::fs::write(root.join(".gitignore"), "gen.py\ndocs/\n").unwrap();
    project.reload_gitignore();
    assert!(!names_in(&project, &root).contains(&"docs".to_string()));
    assert!(
        names_in(&project, &root.join("src/pkg")).contains(&"mod.py".to_string()),
        "what it does not name stays"
    );
    std::fs::write(root.join(".gitignore"), "gen.py\n").unwrap();
    project.reload_gitignore();
    assert!(names_in(&project, &root).contains(&"docs".to_string()));
}

#[test]
fn a_folder_s_own_gitignore_hides_below_it_and_the_nearest_decides() {
    let dir = fixture();
    let root = dir.path().canonicalize().unwrap();
    for (path, text) in [
        ("docs/.gitignore", "_build/\n*.log\n"),
        ("docs/_build/index.html", "<p/>\n"),
        ("docs/run.log", "x\n"),
        ("docs/api/.gitignore", "!keep.log\n"),
        ("docs/api/keep.log", "x\n"),
        ("docs/api/other.log", "x\n"),
        ("src/pkg/gen/.gitignore", "*.py\n!__init__.py\n"),
        ("src/pkg/gen/__init__.py", ""),
        ("src/pkg/gen/made.py", ""),
        // The top's .gitignore hides gen.py everywhere; this folder takes its own back.
        ("src/pkg/kept/.gitignore", "!gen.py\n"),
        ("src/pkg/kept/gen.py", ""),
        ("src/pkg/kept/inner/gen.py", ""),
    ] {
        let file = root.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, text).unwrap();
    }
    let project = Project::open(&root);
    let docs = names_in(&project, &root.join("docs"));
    assert!(!docs.contains(&"_build".to_string()), "{docs:?}");
    assert!(!docs.contains(&"run.log".to_string()), "{docs:?}");
    assert!(docs.contains(&"index.md".to_string()), "{docs:?}");
    assert_eq!(
        names_in(&project, &root.join("docs/api")),
        [".gitignore", "keep.log"],
        "the nearest .gitignore re-includes keep.log; the one above still hides other.log"
    );
    assert_eq!(
        names_in(&project, &root.join("src/pkg/gen")),
        [".gitignore", "__init__.py"]
    );
    assert_eq!(
        names_in(&project, &root.join("src/pkg/kept")),
        [".gitignore", "gen.py", "inner"],
        "a folder's own `!gen.py` re-includes what the top's .gitignore hides"
    );
    assert!(names_in(&project, &root.join("src/pkg/kept/inner")).contains(&"gen.py".to_string()));
    // A change to one is seen once the layout is forgotten (the watcher does, on any
    // .gitignore's event).
    std::fs::write(root.join("docs/.gitignore"), "_build/\n").unwrap();
    project.forget_layout();
    assert!(names_in(&project, &root.join("docs")).contains(&"run.log".to_string()));
}
