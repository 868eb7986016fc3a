//! What runs is pinned (SPEC §10, issue 42): another user who may write a shared folder
//! around the project — a sticky one, as shared scratch folders are — cannot choose what
//! runs as the mount's owner by a link swapped after the check, a venv's `home`, a
//! `.python-version` or a pytest configuration above the project; nor can a selector
//! smuggle pytest options in from a file. Each test plants a program that leaves a mark
//! if it runs; the owner edits (the import check runs) and runs the tests.

mod common;

use common::Mount;

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
