//! Folders of `source/` made and removed as a user expects, on a real mount: an extra or a
//! dependency group emptied and removed (`rm`, `rmdir`, `rm -r`) leaves pyproject.toml as
//! one would by hand, its emptied table gone with it; `mkdir` in a package makes a
//! subpackage that lists, imports and is removed again by `rmdir`.

mod common;

use std::path::Path;

use common::Mount;

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

const PYPROJECT: &str = r#"# The scratch project
[project]
name = "scratch"
version = "0.1.0"
dependencies = [
    "attrs>=23",  # data classes
]

# Optional features
[project.optional-dependencies]
test = [
    "pytest>=8",
    "pytest-cov",
]

[dependency-groups]
dev = ["ruff>=0.6", "mypy"]  # the linters

[tool.ruff]
line-length = 100
"#;

/// A flat-layout project with one package, `scratch/`, a folder of data in it, a
/// namespace package `plugins/` (no `__init__.py`), and the lists above.
fn scratch_project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "pyproject.toml", PYPROJECT);
    write(root, "scratch/__init__.py", "\"\"\"Scratch work.\"\"\"\n");
    write(root, "scratch/notes.py", "def note():\n    return 1\n");
    write(root, "scratch/templates/page.html", "<p></p>\n");
    write(root, "plugins/extra.py", "def hook():\n    pass\n");
    dir
}

fn pyproject(mount: &Mount) -> String {
    std::fs::read_to_string(mount.project.join("pyproject.toml")).unwrap()
}

#[test]
fn emptying_and_removing_an_extra_and_a_group_leaves_no_empty_table() {
    let project = scratch_project();
    let mount = Mount::of(project.path(), &[]);
    let (ok, said) = mount.sh("rmdir $HS/source/deps/optional/test");
    assert!(!ok && said.contains("Directory not empty"), "{said}");
    assert_eq!(pyproject(&mount), PYPROJECT);
    let (ok, said) = mount
        .sh("rm $HS/source/deps/optional/test/pytest $HS/source/deps/optional/test/pytest-cov");
    assert!(ok, "{said}");
    assert_eq!(
        pyproject(&mount),
        PYPROJECT.replace(
            "test = [\n    \"pytest>=8\",\n    \"pytest-cov\",\n]",
            "test = [\n]"
        ),
        "the extra is empty, and still there"
    );
    let (ok, said) = mount.sh("rmdir $HS/source/deps/optional/test");
    assert!(ok, "{said}");
    let without_extras = PYPROJECT.replace(
        "# Optional features\n[project.optional-dependencies]\ntest = [\n    \"pytest>=8\",\n    \"pytest-cov\",\n]\n\n",
        "",
    );
    assert_eq!(pyproject(&mount), without_extras, "the table went with it");

    // `rm -r` of a group: its generated files go with the folder, every package is removed,
    // then the group, then its table.
    let (ok, said) = mount.sh("rm -r $HS/source/deps/groups/dev");
    assert!(ok, "rm -r exits 0: {said}");
    assert_eq!(
        pyproject(&mount),
        without_extras.replace(
            "[dependency-groups]\ndev = [\"ruff>=0.6\", \"mypy\"]  # the linters\n\n",
            ""
        )
    );
    let entry = mount.read("source/deps/groups/_entry.md");
    assert!(entry.contains("rm -r"), "{entry}");
    let (ok, listed) = mount.sh("ls $HS/source/deps/groups/");
    assert!(ok, "{listed}");
    assert_eq!(listed, "_entry.md\n_nav.txt\n");

    // The generated files of a folder that stays are still refused alone.
    let (ok, said) = mount.sh("rm $HS/source/deps/_entry.md");
    assert!(!ok && said.contains("Read-only file system"), "{said}");
    let (ok, said) = mount.sh("rm $HS/source/deps/optional/_nav.txt");
    assert!(!ok && said.contains("Read-only file system"), "{said}");
    let (ok, said) = mount.sh("rm -r $HS/source/deps/optional");
    assert!(!ok, "deps/optional/ itself stays: {said}");
    let (_, errors) = mount.sh("cat $HS/_errors.md");
    assert!(
        errors.contains("is generated and cannot be removed"),
        "{errors}"
    );
}

#[test]
fn mkdir_in_a_package_makes_a_subpackage_that_imports_and_rmdir_removes_it() {
    let project = scratch_project();
    let mount = Mount::of(project.path(), &[]);
    let (ok, said) = mount.sh("mkdir $HS/source/scratch/sub");
    assert!(ok, "{said}");
    let init = mount.project.join("scratch/sub/__init__.py");
    assert_eq!(
        std::fs::read_to_string(&init).unwrap(),
        "",
        "a regular package"
    );
    let (ok, listed) = mount.sh("ls $HS/source/scratch/");
    assert!(ok && listed.lines().any(|l| l == "sub"), "{listed}");

    let (ok, said) = mount.sh(
        "printf 'def tool():\\n    return 2\\n' > $HS/source/scratch/sub/tool.py && \
         cat $HS/source/scratch.sub.tool.tool.py",
    );
    assert!(ok, "{said}");
    assert_eq!(
        said, "def tool():\n    return 2\n",
        "reached by its dotted name"
    );
    let imported = std::process::Command::new("python3")
        .args(["-c", "import scratch.sub.tool as t; print(t.tool())"])
        .current_dir(&mount.project)
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&imported.stdout), "2\n");

    // Full, it stays; emptied down to its `__init__.py`, rmdir removes it.
    let (ok, said) = mount.sh("rmdir $HS/source/scratch/sub");
    assert!(!ok && said.contains("Directory not empty"), "{said}");
    let (ok, said) = mount.sh("rm $HS/source/scratch/sub/tool.py && rmdir $HS/source/scratch/sub");
    assert!(ok, "{said}");
    assert!(!mount.project.join("scratch/sub").exists());
    let (_, listed) = mount.sh("ls $HS/source/scratch/");
    assert!(!listed.lines().any(|l| l == "sub"), "{listed}");

    // `rm -r` of a new subpackage removes it whole.
    let (ok, said) = mount.sh("mkdir $HS/source/scratch/other && rm -r $HS/source/scratch/other");
    assert!(ok, "rm -r exits 0: {said}");
    assert!(!mount.project.join("scratch/other").exists());
}

#[test]
fn mkdir_says_where_folders_can_be_made_and_how_packages_are_named() {
    let project = scratch_project();
    let mount = Mount::of(project.path(), &[]);
    let (ok, said) = mount.sh("mkdir $HS/source/scratch/my-sub");
    assert!(!ok && said.contains("Invalid argument"), "{said}");
    let (_, errors) = mount.sh("cat $HS/_errors.md");
    assert!(
        errors.contains("a package is named by a Python identifier") && errors.contains("my_sub"),
        "{errors}"
    );
    assert!(!mount.project.join("scratch/my-sub").exists());
    let (ok, said) = mount.sh("mkdir $HS/source/deps/tools");
    assert!(!ok && said.contains("Operation not permitted"), "{said}");
    let (ok, said) = mount.sh("mkdir $HS/source/scratch/notes/inner");
    assert!(!ok, "a module's folder holds its symbols: {said}");

    // In a folder of data, a folder is a folder, named as files are.
    let (ok, said) = mount.sh("mkdir $HS/source/scratch/templates/partial-pages");
    assert!(ok, "{said}");
    let made = mount.project.join("scratch/templates/partial-pages");
    assert!(made.is_dir() && std::fs::read_dir(&made).unwrap().next().is_none());
    // In a namespace package, a namespace package: the folder alone.
    let (ok, said) = mount.sh("mkdir $HS/source/plugins/more && ls $HS/source/plugins/");
    assert!(ok && said.lines().any(|l| l == "more"), "{said}");
    let made = mount.project.join("plugins/more");
    assert!(made.is_dir() && !made.join("__init__.py").exists());
    // At the top, a package of the project.
    let (ok, said) = mount.sh("mkdir $HS/source/tools && ls $HS/source/");
    assert!(ok && said.lines().any(|l| l == "tools"), "{said}");
    assert!(mount.project.join("tools/__init__.py").is_file());
}
