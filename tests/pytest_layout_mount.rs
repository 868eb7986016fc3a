//! Tests found where pytest finds them, on a real mount of small projects shaped like real
//! ones (`tests/fixtures/pytest_layouts/`): pluggy's `tox.ini` `[pytest]` and its
//! `testing/` folder that is no package, toolz's tests inside the package, setup.cfg's
//! `[tool:pytest]`, pytest.ini; the layout found again when pytest's configuration changes,
//! and a failure's file and the names it gives leading somewhere on the mount.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::Mount;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/pytest_layouts")
        .join(name)
}

/// pytest's own closing counts (`1 failed, 2 passed`) of the project at `dir`.
fn direct_pytest(dir: &Path, pythonpath: &str) -> String {
    let out = Command::new("python3")
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .current_dir(dir)
        .env("PYTHONPATH", dir.join(pythonpath))
        // The fixture stays as committed.
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let last = text.lines().last().unwrap_or_default();
    last.split(" in ").next().unwrap_or_default().to_string()
}

#[test]
fn tox_ini_testpaths_make_testing_the_test_folder_and_its_failures_lead_somewhere() {
    let mount = Mount::of(&fixture("pluggy_like"), &[]);
    let (ok, out) = mount.sh(r#"S="$HS/source"
ls "$S/tests/"
echo ---
cat "$S/_entry.md"
echo ---
echo > "$S/tests/run"
cat "$S/tests/runs/latest/result.md"
echo ---
ls "$S/tests/runs/1/failures/"
echo ---
cat "$S/testing.test_pluginmanager.test_pm.py"
failure="$S/tests/runs/1/failures/testing.test_pluginmanager.test_pm.txt"
test_file=$(sed -n 's/^test: \([^ ]*\).*/\1/p' "$failure")
cat "$test_file"
echo ---
if (echo > "$S/testing/run") 2>/dev/null; then echo "stray run created"; fi
cat "$HS/_errors.md"
test ! -e "$PROJECT/testing/run" && echo "no stray run""#);
    assert!(ok, "{out}");
    let parts: Vec<&str> = out.split("---\n").collect();
    assert!(parts[0].contains("test_pluginmanager"), "{out}");
    assert!(parts[0].contains("run"), "{out}");
    assert!(
        !parts[1].contains("no test folder"),
        "the source view names testing/: {}",
        parts[1]
    );
    assert!(parts[1].contains("testing/"), "{}", parts[1]);
    let direct = direct_pytest(&fixture("pluggy_like"), "src");
    assert_eq!(direct, "1 failed, 2 passed");
    assert!(
        parts[2].contains(&format!("failed: {direct}")),
        "the mount counts what pytest counts ({direct}): {}",
        parts[2]
    );
    assert!(
        parts[3].contains("testing.test_pluginmanager.test_pm"),
        "{}",
        parts[3]
    );
    assert!(
        parts[4].matches("def test_pm(pm):").count() == 2,
        "pytest's dotted name of the test, and the failure's test: path, lead to it: {}",
        parts[4]
    );
    assert!(parts[5].contains("source/tests/run"), "{}", parts[5]);
    assert!(parts[5].contains("no stray run"), "{}", parts[5]);
}

#[test]
fn tests_inside_the_package_are_found_without_testpaths_and_run() {
    let mount = Mount::of(&fixture("toolz_like"), &[]);
    let (ok, out) = mount.sh(r#"S="$HS/source"
cat "$S/_entry.md"
echo ---
ls "$S/tests/"
echo ---
echo > "$S/tests/run"
head -1 "$S/tests/runs/latest/result.md"
echo ---
if (echo > "$S/toolz/tests/run") 2>/dev/null; then echo "stray run created"; fi
cat "$HS/_errors.md"
echo ---
cat "$HS/search/source:first_of_range"
echo ---
cat "$S/toolz.tests.test_itertoolz.test_first_of_range.py""#);
    assert!(ok, "{out}");
    let parts: Vec<&str> = out.split("---\n").collect();
    assert!(!parts[0].contains("no test folder"), "{}", parts[0]);
    assert!(parts[1].contains("run"), "{}", parts[1]);
    assert!(
        parts[0].contains("pytest finds the tests (toolz/tests/)"),
        "{}",
        parts[0]
    );
    assert_eq!(direct_pytest(&fixture("toolz_like"), "."), "2 passed");
    assert!(parts[2].contains("2 passed"), "{}", parts[2]);
    assert!(parts[3].contains("source/tests/run"), "{}", parts[3]);
    assert!(!mount.project.join("toolz/tests/run").exists());
    assert!(
        parts[4].contains("toolz.tests.test_itertoolz:"),
        "a hit names the module as pytest does: {}",
        parts[4]
    );
    assert!(
        parts[5].contains("def test_first_of_range():"),
        "and that name leads to the test: {}",
        parts[5]
    );
}

#[test]
fn setup_cfg_and_pytest_ini_say_where_the_tests_are() {
    let mount = Mount::of(&fixture("setup_cfg"), &[]);
    let (ok, out) = mount.sh(r#"ls "$HS/source/tests/"; cat "$HS/source/_entry.md""#);
    assert!(ok, "{out}");
    assert!(out.contains("test_checked"), "{out}");
    assert!(out.contains("checks/"), "{out}");
    // pytest.ini wins over tox.ini: suite/ is the test folder, tests/ is not pytest's.
    let mount = Mount::of(&fixture("pytest_ini"), &[]);
    let (ok, out) = mount.sh(r#"ls "$HS/source/tests/"
echo > "$HS/source/tests/run"
head -1 "$HS/source/tests/runs/latest/result.md""#);
    assert!(ok, "{out}");
    assert!(out.contains("suite"), "{out}");
    assert_eq!(direct_pytest(&fixture("pytest_ini"), "."), "1 passed");
    assert!(out.contains("1 passed"), "{out}");
}

#[test]
fn testpaths_added_while_mounted_take_effect_without_a_remount() {
    // A project whose tests pytest would not find, made before mounting: the layout a
    // mount has just looked at is taken as it is for a moment (LAYOUT_FRESH), and only the
    // change made while mounted is this test's.
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    common::copy_dir(&fixture("setup_cfg"), &project);
    std::fs::remove_file(project.join("setup.cfg")).unwrap();
    std::fs::rename(project.join("checks"), project.join("spec")).unwrap();
    std::fs::rename(
        project.join("spec/test_checked.py"),
        project.join("spec/check_checked.py"),
    )
    .unwrap();
    let mount = Mount::at(dir, project, &[]);
    let (ok, before) = mount.sh(r#"cat "$HS/source/_entry.md""#);
    assert!(ok && before.contains("no test folder"), "{before}");
    // An editor saving tox.ini beside the mount.
    let (ok, out) = mount.sh(
        r#"printf '[pytest]\ntestpaths = spec\npython_files = check_*.py\n' > "$PROJECT/tox.ini"
sleep 0.2
cat "$HS/source/_entry.md"
echo ---
ls "$HS/source/tests/"
echo > "$HS/source/tests/run"
head -1 "$HS/source/tests/runs/latest/result.md""#,
    );
    assert!(ok, "{out}");
    assert!(!out.contains("no test folder"), "{out}");
    assert!(out.contains("check_checked"), "{out}");
    assert!(out.contains("1 passed"), "{out}");
}

/// A test that lacks a fixture (a plugin not installed, a typo) or a module that is not
/// installed ran none of its code: it has no suspects (the project code a session fixture
/// ran in its setup explains nothing), and its failure says what is missing, which
/// declared package brings it and how to install it where the tests run.
#[test]
fn a_test_lacking_a_fixture_or_a_module_says_what_to_install_instead_of_suspects() {
    let mount = Mount::of(&fixture("plugin_needed"), &[]);
    let (ok, out) = mount.sh(r#"S="$HS/source"
echo tests/test_speed.py > "$S/tests/run"
cat "$S/tests/runs/latest/result.md"
echo ---
cat "$S/tests/runs/1/failures/tests.test_speed.test_fast.txt"
echo ---
cat "$S/tests/runs/1/failures/tests.test_speed.test_clock.txt"
echo ---
echo tests/test_clock.py > "$S/tests/run"
cat "$S/tests/runs/latest/result.md"
echo ---
echo tests/test_matchers.py > "$S/tests/run"
cat "$S/tests/runs/latest/result.md"
echo ---
echo tests/test_boxes.py > "$S/tests/run"
cat "$S/tests/runs/latest/result.md"
echo ---
echo tests/test_late.py > "$S/tests/run"
cat "$S/tests/runs/latest/result.md""#);
    assert!(ok, "{out}");
    let parts: Vec<&str> = out.split("---\n").collect();
    let (result, failure, wrapped, collected) = (parts[0], parts[1], parts[2], parts[3]);
    // The module's own name is not the package's: the command can be run as it stands.
    assert!(
        parts[4].contains("declares no package that provides it; the usual one is PyHamcrest: `")
            && parts[4].contains("-m pip install PyHamcrest`"),
        "{}",
        parts[4]
    );
    // A test that ran code before it reached the import keeps its suspects, and is told
    // which declared package brings the module (pyparsing's tests and railroad).
    assert!(
        parts[6].contains("suspect: ")
            && parts[6].contains("  `matchbox` is not installed for ")
            && parts[6].contains("which likely provides it: `"),
        "{}",
        parts[6]
    );
    // A declared package named after the module (railroad from railroad-diagrams).
    assert!(
        parts[5].contains(
            "the project declares matchbox-tools (extra tests), which likely provides it: `"
        ) && parts[5].contains("-m pip install matchbox-tools`"),
        "{}",
        parts[5]
    );
    assert!(result.contains("failed: 1 passed, 3 errors"), "{result}");
    assert!(
        result.contains(
            "ERROR tests.test_speed.test_fast: failed on setup: fixture 'stopwatch' not found"
        ),
        "the message names the fixture, not the test's place: {result}"
    );
    assert!(
        !result.contains("suspect"),
        "no suspect for a test that never ran: {result}"
    );
    assert!(
        result.contains("the project declares the pytest plugins pytest-stopwatch (extra tests)"),
        "{result}"
    );
    assert!(
        result.contains("-m pip install pytest-stopwatch`"),
        "{result}"
    );
    assert!(
        result.contains("test_scratch: failed on setup: fixture 'tmp_pth' not found"),
        "{result}"
    );
    assert!(!failure.contains("suspect"), "{failure}");
    assert!(failure.contains("no test code ran"), "{failure}");
    assert!(
        failure.contains("-m pip install pytest-stopwatch`"),
        "{failure}"
    );
    assert!(
        wrapped.contains("failed on setup: recursive dependency involving fixture 'clock'")
            && wrapped.contains(
                "no test code ran: the project's fixture `clock` asks for the fixture of its own name"
            )
            && wrapped.contains("-m pip install pytest-stopwatch`")
            && !wrapped.contains("did you mean")
            && !wrapped.contains("suspect"),
        "a fixture wrapping a plugin's that is not installed: {wrapped}"
    );
    assert!(
        collected.contains("No module named 'tickclock'"),
        "{collected}"
    );
    assert!(
        collected.contains("`tickclock` is not installed for ")
            && collected.contains("the project declares tickclock (extra tests)")
            && collected.contains("-m pip install tickclock`"),
        "{collected}"
    );
}

/// A suite pytest cannot run (dateutil 2.9.0 under pytest 9): a test module whose import
/// raises an error of several lines, and a conftest hook that fails, which pytest reports
/// as an internal error. The result says what each error was, not the link a message ends
/// with, nor "internal error", nor pytest's closing line as the reason.
#[test]
fn errors_that_stop_pytest_say_their_cause() {
    let mount = Mount::of(&fixture("pytest_broken"), &[]);
    let (ok, out) = mount.sh(r#"S="$HS/source"
echo > "$S/tests/run"
cat "$S/tests/runs/latest/result.md""#);
    assert!(ok, "{out}");
    assert!(
        out.contains("pytest ran no test: 1 error, and it stopped on an error of its own"),
        "{out}"
    );
    assert!(
        out.contains(
            "ERROR tests.test_late: collecting it failed: RuntimeError: this module cannot be imported\n"
        ),
        "{out}"
    );
    assert!(
        out.contains("pytest.internal: pytest's internal error: RuntimeError: no marks today"),
        "{out}"
    );
}

/// A conftest.py whose import fails keeps pytest from running any test: the result says
/// which file's import failed and why, not only pytest's last line, and how to install the
/// module the project declares.
#[test]
fn a_conftest_that_lacks_a_module_says_so_and_how_to_install_it() {
    let mount = Mount::of(&fixture("conftest_lacks"), &[]);
    let (ok, out) = mount.sh(r#"S="$HS/source"
echo > "$S/tests/run"
cat "$S/tests/runs/latest/result.md""#);
    assert!(ok, "{out}");
    assert!(
        out.contains(
            "pytest could not run the tests: importing tests/conftest.py failed: ModuleNotFoundError: No module named 'tickclock'"
        ),
        "{out}"
    );
    assert!(
        out.contains("`tickclock` is not installed for ")
            && out.contains("the project declares tickclock (extra tests)")
            && out.contains("-m pip install tickclock`"),
        "{out}"
    );
}

/// A project without tests (an sdist that leaves them out, a new project) gets its
/// `tests/` folder when the first test module or folder is written in source/tests/, and
/// its views and runs say so; a refused test module leaves no folder behind. A project that
/// keeps its tests beside its code is sent there instead.
#[test]
fn the_first_test_written_in_source_tests_starts_the_projects_tests_folder() {
    let mount = Mount::of(&fixture("no_tests"), &[]);
    let (ok, out) = mount.sh(r#"S="$HS/source"
fail() { echo "FAIL: $*"; exit 1; }
echo > "$S/tests/run"
grep -q "pytest found no test to run" "$S/tests/runs/latest/result.md" ||
  fail "a run of no test: $(cat "$S/tests/runs/latest/result.md")"
grep -q "a test module written in $S/tests/ starts its \`tests/\` folder" "$S/tests/runs/latest/result.md" ||
  fail "the run does not say how to start: $(cat "$S/tests/runs/latest/result.md")"
grep -q "None yet: a test module written here" "$S/tests/_entry.md" || fail "$(cat "$S/tests/_entry.md")"
grep -q "a test module written in \`$S/tests/\` starts one" "$S/_entry.md" || fail "$(cat "$S/_entry.md")"
printf 'def test_a(:\n' > "$S/tests/test_bad.py"
[ -e "$PROJECT/tests" ] && fail "a refused test module left tests/ behind"
mkdir "$S/tests/unit" || fail "mkdir in source/tests/"
printf 'import shelf\n\n\ndef test_shelve():\n    assert shelf.shelve(["b", "a"]) == ["a", "b"]\n' > "$S/tests/unit/test_shelf.py" ||
  fail "writing the first test module"
[ -f "$PROJECT/tests/unit/test_shelf.py" ] || fail "the test module is not in the project's tests/unit/"
ls "$S/tests/unit/test_shelf/" | grep -qx test_shelve.py || fail "the new module's test is not listed"
echo > "$S/tests/run"
head -1 "$S/tests/runs/latest/result.md""#);
    assert!(ok, "{out}");
    assert!(out.contains("passed: 1 passed"), "{out}");

    // Tests beside the code: a new test module belongs with them.
    let mount = Mount::of(&fixture("toolz_like"), &[]);
    let (ok, out) = mount.sh(r#"S="$HS/source"
printf 'def test_b():\n    pass\n' > "$S/tests/test_new.py" && echo "CREATED"
[ -e "$PROJECT/tests" ] && echo "MADE tests/"
grep -m1 "test_new.py was not created" "$HS/_errors.md"
grep "No test folder" "$S/tests/_entry.md""#);
    assert!(ok, "{out}");
    assert!(!out.contains("CREATED") && !out.contains("MADE"), "{out}");
    assert!(
        out.contains(
            "this project keeps its tests beside its code, in toolz/tests/; make it there: "
        ) && out.contains("/source/toolz/tests/"),
        "{out}"
    );
    assert!(
        out.contains("No test folder: the test modules are kept beside the code (toolz/tests/)"),
        "{out}"
    );
}

/// The tests the run is asked for may be named as the mount shows them: `tests/…` where
/// the test folder is `testing/` on disk, the absolute path of a test module or of a test's
/// own file under the mountpoint, the dotted name a failure is listed by. pytest is given
/// the project's paths and node ids, and runs just those tests.
#[test]
fn tests_named_as_the_mount_shows_them_run_as_pytest_names_them() {
    let mount = Mount::of(&fixture("pluggy_like"), &[]);
    let (ok, out) = mount.sh(r#"S="$HS/source"
for selector in "tests/test_pluginmanager.py" \
    "$S/tests/test_pluginmanager.py::test_register" \
    "$S/tests/test_pluginmanager/test_is_registered.py" \
    "testing.test_pluginmanager.test_pm" \
    "./tests/test_pluginmanager.py::test_pm" \
    "tests/test_pluginmanager.py -k register --deselect tests/test_pluginmanager.py::test_register"; do
  echo "$selector" > "$S/tests/run" || exit 1
  head -1 "$S/tests/runs/latest/result.md"
  grep -o " -m pytest .* '--rootdir" "$S/tests/runs/latest/_entry.md"
done"#);
    assert!(ok, "{out}");
    for (ran, told) in [
        (
            "failed: 1 failed, 2 passed",
            "-m pytest testing/test_pluginmanager.py '--rootdir",
        ),
        (
            "passed: 1 passed",
            "-m pytest testing/test_pluginmanager.py::test_register '--rootdir",
        ),
        (
            "passed: 1 passed",
            "-m pytest testing/test_pluginmanager.py::test_is_registered '--rootdir",
        ),
        (
            "failed: 1 failed",
            "-m pytest testing/test_pluginmanager.py::test_pm '--rootdir",
        ),
        (
            "passed: 1 passed, 2 deselected",
            "-m pytest testing/test_pluginmanager.py -k register --deselect testing/test_pluginmanager.py::test_register '--rootdir",
        ),
    ] {
        assert!(
            out.contains(ran) && out.contains(told),
            "{ran} / {told}:\n{out}"
        );
    }
    // `testing.test_pluginmanager.test_pm`, and the same written from source/ with `./`.
    assert_eq!(out.matches("::test_pm '--rootdir").count(), 2, "{out}");

    // A package's dotted name is its folder: given its __init__.py, pytest would collect
    // that file alone.
    let mount = Mount::of(&fixture("toolz_like"), &[]);
    let (ok, out) = mount.sh(r#"S="$HS/source"
echo toolz.tests > "$S/tests/run" || exit 1
head -1 "$S/tests/runs/latest/result.md"
grep -o " -m pytest .* '--rootdir" "$S/tests/runs/latest/_entry.md""#);
    assert!(ok, "{out}");
    assert!(out.contains("-m pytest toolz/tests '--rootdir"), "{out}");
    assert!(!out.contains("no test to run"), "{out}");
}

/// A project that is one of the modules pytest imports for itself (pluggy, iniconfig)
/// is run by pytest on its own copy: when a change breaks it, pytest breaks too, and the
/// result says so instead of leaving pytest's own errors unexplained.
#[test]
fn a_project_pytest_itself_runs_on_is_said_to_be_one_when_its_run_fails() {
    let mount = Mount::of(&fixture("pytest_runs_on"), &[]);
    let (ok, out) = mount.sh(r#"S="$HS/source"
echo > "$S/tests/run"
cat "$S/tests/runs/latest/result.md""#);
    assert!(ok, "{out}");
    assert!(
        out.contains("pytest itself runs on `iniconfig`, and imports this project's copy first"),
        "{out}"
    );
}
