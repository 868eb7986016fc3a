//! Who may use a mount (SPEC §10): with `--allow-other`, other users read what the modes of
//! the project and the store let them read and change nothing; with `--allow-other-write`
//! they change what the modes let them, and the project's code never runs for them. Each
//! test makes a real unprivileged user and runs the shell scripts
//! `tests/shell/access_others_*.sh` as that user.

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

use common::{Mount, OtherUser, example, succeed};

/// A copy of the example project in a directory other users can enter, mounted with
/// `args`; the store readable by others (made private, the owner opens it on purpose to
/// share tasks and memory); `open` makes the project and the store world-writable.
fn mount(args: &[&str], open: bool) -> Mount {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let project = dir.path().join("project");
    common::copy_dir(&example(), &project);
    if open {
        succeed(Command::new("chmod").args(["-R", "a+rwX"]).arg(&project));
    }
    let mut mount = Mount::at(dir, project, args);
    // The store exists once mounted; its modes are read when the mount starts.
    let modes = if open { "a+rw" } else { "a+r" };
    succeed(Command::new("chmod").arg(modes).arg(&mount.store));
    mount.restart(args);
    mount
}

/// Where pwn.py would leave its mark if the project's code ran.
fn marker(mount: &Mount) -> String {
    mount.dir.path().join("ran").display().to_string()
}

fn run_as(mount: &Mount, user: &OtherUser, script: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/shell")
        .join(script);
    let (ok, out) = mount.sh_as(
        user,
        &format!("MARKER={}; source {}", marker(mount), path.display()),
    );
    assert!(
        ok,
        "{script} failed:\n{out}\n--- daemon log ---\n{}",
        mount.log_text()
    );
}

fn checksums(project: &Path) -> String {
    let out = succeed(
        Command::new("sh")
            .arg("-c")
            .arg("find . -type f ! -path './.homespace/*' | sort | xargs sha256sum")
            .current_dir(project),
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn others_read_what_the_modes_allow_and_change_nothing() {
    let user = OtherUser::new("read");
    let mount = mount(&["--allow-other"], false);
    let accounts = mount.project.join("src/ledger/accounts.py");
    // An edit of the owner's, before the module is made private: history/1.diff; and a
    // test run, whose output quotes whatever files the tests touched.
    let (ok, out) = mount.sh(
        "sed -i 's/amount = parse_amount(amount)/amount = abs(parse_amount(amount))/' \
         \"$HS/source/ledger/accounts/Account/debit.py\" \
         && echo tests/test_journal.py > \"$HS/source/tests/run\" \
         && for i in $(seq 600); do \
              grep -q 'still running' \"$HS/source/tests/runs/latest/_entry.md\" || break; \
              sleep 0.1; \
            done",
    );
    assert!(ok, "{out}");
    std::fs::set_permissions(&accounts, std::fs::Permissions::from_mode(0o600)).unwrap();
    let before = checksums(&mount.project);
    run_as(&mount, &user, "access_others_read.sh");
    assert_eq!(checksums(&mount.project), before, "the project changed");
    // The owner still reads and edits it all.
    let (ok, out) = mount.sh(
        "cat \"$HS/source/ledger/accounts/Account/debit.py\" >/dev/null \
         && cat \"$HS/search/debit\" >/dev/null",
    );
    assert!(ok, "{out}");
}

#[test]
fn others_are_refused_by_homespace_where_the_modes_would_let_them() {
    let user = OtherUser::new("core");
    let mount = mount(&["--allow-other"], true);
    let before = checksums(&mount.project);
    run_as(&mount, &user, "access_others_core.sh");
    assert_eq!(checksums(&mount.project), before, "the project changed");
    // An `rm -rf` of theirs is refused path by path, yet leaves the owner's error log a
    // line per kind of change, not one per path.
    let (ok, _) = mount.sh_as(&user, "rm -rf \"$HS/source/ledger\" \"$HS/tasks/open\"");
    assert!(!ok, "the rm -rf was refused");
    let errors = std::fs::read_to_string(mount.path("_errors.md")).unwrap();
    let removals = errors
        .lines()
        .filter(|l| l.contains(&format!("uid {} tried to rm", user.uid)))
        .count();
    assert_eq!(removals, 1, "{errors}");
}

#[test]
fn with_allow_other_write_changes_land_but_never_run_code() {
    let user = OtherUser::new("write");
    let mount = mount(&["--allow-other", "--allow-other-write"], true);
    run_as(&mount, &user, "access_others_write.sh");
    // The same new module made by the owner is import-checked: it runs, so the test above
    // would have seen it run for the other user too.
    let (ok, out) = mount.sh(&format!(
        "pwn_module pwn2.py {} && cp pwn2.py \"$HS/source/ledger/pwn2.py\"",
        marker(&mount)
    ));
    assert!(ok, "{out}\n{}", mount.log_text());
    assert!(
        Path::new(&marker(&mount)).exists(),
        "the owner's change is import-checked"
    );
}

/// The example with `ledger/vault.py` kept at 600 (class `Secret`) and `ledger/private/`
/// at 700 (module `hidden.py`, function `found`), mounted with `--allow-other`.
fn mount_with_private_parts() -> Mount {
    let mut mount = mount(&["--allow-other"], false);
    let ledger = mount.project.join("src/ledger");
    let vault = ledger.join("vault.py");
    std::fs::write(&vault, "class Secret:\n    kept = 1\n").unwrap();
    std::fs::set_permissions(&vault, std::fs::Permissions::from_mode(0o600)).unwrap();
    let private = ledger.join("private");
    std::fs::create_dir(&private).unwrap();
    std::fs::write(private.join("__init__.py"), "").unwrap();
    std::fs::write(private.join("hidden.py"), "def found():\n    return 1\n").unwrap();
    std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o700)).unwrap();
    mount.restart(&["--allow-other"]);
    mount
}

#[test]
fn a_view_others_read_never_quotes_the_traceback_of_a_private_module() {
    let user = OtherUser::new("banner");
    let mount = mount_with_private_parts();
    // An edit of the owner's that the import check refuses: its traceback quotes the
    // failing line of the 600 module. (The shell does not hear of it: a redirection's
    // close is not checked.)
    mount.sh(
        "printf 'class Secret:\\n    kept = 1\\nraise KeyError(\"PLANTED-7f3a\")\\n' \
         > \"$HS/source/ledger/vault.py\"",
    );
    let log = mount.log_text();
    assert!(
        log.contains("so the edit was undone") && log.contains("PLANTED-7f3a"),
        "the refusal quotes the failing line:\n{log}"
    );
    run_as(&mount, &user, "access_others_banner.sh");
}

#[test]
fn a_modules_view_never_quotes_the_failure_of_a_more_private_module_it_imports() {
    let user = OtherUser::new("kept");
    let mut mount = mount(&["--allow-other"], false);
    let ledger = mount.project.join("src/ledger");
    let vault = ledger.join("vault.py");
    std::fs::write(&vault, "raise KeyError('PLANTED-k2')\n").unwrap();
    std::fs::set_permissions(&vault, std::fs::Permissions::from_mode(0o600)).unwrap();
    std::fs::write(
        ledger.join("teller.py"),
        "from ledger import vault\n\n\ndef pay():\n    return 1\n",
    )
    .unwrap();
    mount.restart(&["--allow-other"]);
    // The owner's edit of the public module is kept: its import failed before as after.
    let (ok, out) = mount.sh(
        "sed -i 's/return 1/return 2/' \"$HS/source/ledger/teller/pay.py\" \
         && cat \"$HS/source/ledger/teller/_entry.md\"",
    );
    assert!(ok, "{out}\n{}", mount.log_text());
    assert!(
        out.contains("**Import fails**"),
        "the module's view says it fails: {out}"
    );
    let (ok, seen) = mount.sh_as(&user, "cat \"$HS/source/ledger/teller/_entry.md\"");
    assert!(ok, "{seen}");
    assert!(
        seen.contains("**Import fails**") && !seen.contains("PLANTED-k2"),
        "another user reads the failure's place, not the private module's text: {seen}"
    );
}

#[test]
fn a_dotted_name_answers_others_exactly_as_its_nested_path() {
    let user = OtherUser::new("dotted");
    let mount = mount_with_private_parts();
    run_as(&mount, &user, "access_others_dotted.sh");
    // The owner reaches all of it under every name.
    let (ok, out) = mount.sh(
        "S=\"$HS/source\"; for p in ledger.vault.Secret.py ledger/vault/Secret.py \
           ledger.private.hidden.py ledger/private/hidden.py ledger.private.hidden.found.py; do \
           stat \"$S/$p\" >/dev/null && cat \"$S/$p\" >/dev/null || exit 1; done \
         && ls \"$S/ledger.private.hidden\" >/dev/null",
    );
    assert!(ok, "{out}");
    // Right after the owner's lookup, the kernel has not kept the name for the other user.
    let (ok, out) = mount.sh(&format!(
        "S=\"$HS/source\"; ls \"$S/ledger.private.hidden\" >/dev/null && stat \"$S/ledger.private.hidden\" >/dev/null \
         && ! runuser -u {} -- stat \"$S/ledger.private.hidden\"",
        user.name
    ));
    assert!(
        ok && out.contains("Permission denied"),
        "the owner's lookup of a dotted folder past a 700 folder served another user: {out}"
    );
}

#[test]
fn allow_other_write_needs_allow_other() {
    let out = Command::new(common::BIN)
        .args(["mount", "--allow-other-write", "/tmp/nowhere"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--allow-other"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
