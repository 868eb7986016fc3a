//! Refusals on a real mount (issue 8), driven by the shell scripts `tests/shell/says_no_*.sh`:
//! settings of the wrong type, the test runner's reserved names, `_errors.md` after odd
//! names and huge errors, `rmdir` of full directories, and `unmount` where nothing is mounted.

mod common;

use common::Mount;

#[test]
fn settings_with_a_table_given_a_plain_value_are_refused() {
    Mount::example().run_script("says_no_settings.sh");
}

#[test]
fn the_test_runner_names_never_become_project_files() {
    Mount::example().run_script("says_no_tests_run.sh");
}

#[test]
fn the_test_runner_names_are_refused_with_several_test_folders() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    common::copy_dir(&common::example(), &project);
    std::fs::create_dir_all(project.join("test")).unwrap();
    std::fs::write(
        project.join("test/test_more.py"),
        "def test_more():\n    assert True\n",
    )
    .unwrap();
    Mount::at(dir, project, &[]).run_script("says_no_tests_run_several.sh");
}

#[test]
fn the_error_log_stays_a_list_within_the_budget_whatever_failed() {
    Mount::example().run_script("says_no_errors_view.sh");
}

#[test]
fn each_kind_of_refusal_answers_the_errno_docs_errors_md_names() {
    Mount::example().run_script("says_no_errnos.sh");
}

#[test]
fn rmdir_of_a_full_directory_says_not_empty_and_unmount_says_not_mounted() {
    Mount::example().run_script("says_no_rmdir.sh");
}

#[test]
fn mounting_a_missing_project_fails_and_creates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let typo = dir.path().join("typo");
    let mountpoint = dir.path().join("mnt");
    let out = std::process::Command::new(common::BIN)
        .args(["mount", "--project"])
        .arg(&typo)
        .arg(&mountpoint)
        .output()
        .unwrap();
    // Should this ever mount again, leave no mount behind.
    if out.status.success() {
        let _ = std::process::Command::new(common::BIN)
            .arg("unmount")
            .arg(&mountpoint)
            .status();
    }
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success(),
        "mounting a missing project must fail"
    );
    assert!(
        said.contains("cannot be opened") && said.contains("--project"),
        "{said}"
    );
    assert!(
        !typo.exists(),
        "nothing is created where the project should be"
    );
}

/// Runs `homespace mount` of the example at `mountpoint` and unmounts it; what it said on
/// stderr.
fn mount_saying(mountpoint: &std::path::Path) -> String {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    common::copy_dir(&common::example(), &project);
    let out = std::process::Command::new(common::BIN)
        .args(["mount", "--project"])
        .arg(&project)
        .arg(mountpoint)
        .output()
        .unwrap();
    let _ = std::process::Command::new(common::BIN)
        .arg("unmount")
        .arg(mountpoint)
        .status();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn mount_says_when_it_makes_the_mountpoint_or_hides_what_it_holds() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("new").join("mnt");
    let said = mount_saying(&missing);
    assert!(said.contains("made the mountpoint"), "{said}");
    let full = dir.path().join("full");
    std::fs::create_dir(&full).unwrap();
    std::fs::write(full.join("notes.txt"), "mine").unwrap();
    let said = mount_saying(&full);
    assert!(
        said.contains("is not empty: its 1 entry is hidden"),
        "{said}"
    );
    assert_eq!(
        std::fs::read_to_string(full.join("notes.txt")).unwrap(),
        "mine"
    );
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    assert_eq!(mount_saying(&empty), "", "an empty folder needs no word");
}

#[test]
fn help_says_what_mountpoint_is_and_store_shows_examples() {
    let help = |args: &[&str]| {
        let out = std::process::Command::new(common::BIN)
            .args(args)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let mount = help(&["mount", "--help"]);
    assert!(mount.contains("The folder to mount at"), "{mount}");
    assert!(help(&["store", "--help"]).contains("Examples:"));
}
