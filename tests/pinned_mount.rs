//! What runs is pinned (SPEC §10, issue 42): another user who may write a shared folder
//! around the project — a sticky one, as shared scratch folders are — cannot choose what
//! runs as the mount's owner by a link swapped after the check, a venv's `home`, a
//! `.python-version` or a pytest configuration above the project; nor can a selector
//! smuggle pytest options in from a file. Each test plants a program that leaves a mark
//! if it runs; the owner edits (the import check runs) and runs the tests.

mod common;

use std::path::PathBuf;

use common::planted::{assert_never_ran, chmod, owners_edit_and_run, user_folder};
use common::{Mount, OtherUser, example};

/// A temp dir others may enter, with the example project at `<dir>/<path>` (its folders
/// the owner's, 0755), and `<dir>/shared`, sticky and writable by everyone.
fn placed(path: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    chmod(dir.path(), 0o755);
    let shared = dir.path().join("shared");
    std::fs::create_dir(&shared).unwrap();
    chmod(&shared, 0o1777);
    let project = dir.path().join(path);
    common::copy_dir(&example(), &project);
    (dir, project)
}

#[test]
fn a_pytest_configuration_another_user_puts_above_the_project_is_never_read() {
    let user = OtherUser::new("ini");
    let (dir, project) = placed("shared/project");
    // A project whose pyproject.toml has no pytest table: pytest would look further up.
    let pyproject = project.join("pyproject.toml");
    let text = std::fs::read_to_string(&pyproject).unwrap();
    let table = text.find("[tool.pytest.ini_options]").unwrap();
    let rest = text[table..].find("\n\n").unwrap() + table;
    std::fs::write(&pyproject, format!("{}{}", &text[..table], &text[rest..])).unwrap();
    let mount = Mount::at(dir, project, &[]);
    let mark = user_folder(&mount, &user).join("ran");
    let shared = mount.dir.path().join("shared");
    let (ok, out) = mount.sh_as(
        &user,
        &format!(
            "printf '[pytest]\\n' > {shared}/pytest.ini \
             && printf 'open(%s, \"w\").close()\\n' \"'{mark}'\" > {shared}/conftest.py",
            shared = shared.display(),
            mark = mark.display()
        ),
    );
    assert!(ok, "{out}");
    let result = owners_edit_and_run(&mount);
    assert_never_ran(&mark, &mount);
    assert!(result.contains("passed"), "{result}");
    assert!(
        result.contains("--confcutdir=."),
        "the command says so: {result}"
    );
}

#[test]
fn arguments_from_a_file_never_reach_pytest() {
    let mount = Mount::example();
    // A folder of the owner's that `--basetemp` would empty.
    let kept = mount.dir.path().join("kept");
    std::fs::create_dir(&kept).unwrap();
    std::fs::write(kept.join("precious.txt"), "mine\n").unwrap();
    std::fs::write(
        mount.project.join("ARGS"),
        format!("--basetemp={}\n", kept.display()),
    )
    .unwrap();
    for selector in ["@ARGS", "-k @ARGS"] {
        let (ok, out) = mount.sh(&format!(
            "echo '{selector}' > \"$HS/source/tests/run\" || true; \
             for i in $(seq 1200); do \
               [ -e \"$HS/source/tests/runs/latest/_entry.md\" ] || break; \
               grep -q 'still running' \"$HS/source/tests/runs/latest/_entry.md\" || break; \
               sleep 0.1; \
             done"
        ));
        assert!(ok, "{out}");
        assert!(
            kept.join("precious.txt").exists(),
            "{selector}: pytest took arguments from the file"
        );
        let errors = mount.read("_errors.md");
        assert!(
            errors.contains("`@ARGS` (pytest would read more arguments from the file \"ARGS\""),
            "{selector}: {errors}"
        );
    }
}
