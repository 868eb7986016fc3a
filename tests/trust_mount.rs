//! Nobody else runs code as the mount's owner (SPEC §10): another user — made by each test —
//! who may write the store, the project folder or a settings file plants a program that
//! would leave a mark if it ever ran; the owner then edits (the import check runs) and runs
//! the tests, and the mark must not appear. What the owner keeps is private by default.

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use common::planted::{assert_never_ran, chmod, owners_edit_and_run, plant};
use common::{Mount, OtherUser, example, succeed};

/// The example project in a folder others may enter, its project folder writable by
/// everyone when `open` (a shared checkout), mounted by root.
fn mount(open: bool) -> Mount {
    let dir = tempfile::tempdir().unwrap();
    chmod(dir.path(), 0o755);
    let project = dir.path().join("project");
    common::copy_dir(&example(), &project);
    if open {
        succeed(Command::new("chmod").args(["-R", "a+rwX"]).arg(&project));
    }
    Mount::at(dir, project, &[])
}

#[test]
fn settings_another_user_writes_to_the_store_never_run() {
    let user = OtherUser::new("store");
    let mount = mount(false);
    let (evil, mark) = plant(&mount, &user);
    // As the README once advised for sharing tasks: the store writable by others.
    for file in ["store.db", "store.db-wal", "store.db-shm"] {
        let file = mount.dir.path().join(file);
        if file.exists() {
            chmod(&file, 0o666);
        }
    }
    chmod(mount.dir.path(), 0o777);
    let settings = format!(
        "[import_check]\npython = \"{}\"\n\n[tests]\nargs = [\"-p\", \"evil\"]\n",
        evil.display()
    );
    let script = format!(
        "python3 - <<'EOF'\nimport sqlite3\ndb = sqlite3.connect('{}')\n\
         db.execute(\"INSERT OR REPLACE INTO settings (checkout, name, text) VALUES ('', 'source', ?)\", ({settings:?},))\n\
         db.execute(\"UPDATE settings SET text = ?\", ({settings:?},))\n\
         db.commit()\nEOF",
        mount.store.display()
    );
    let (ok, out) = mount.sh_as(&user, &script);
    assert!(ok, "the other user could not write the store: {out}");
    let result = owners_edit_and_run(&mount);
    assert!(result.contains("passed"), "{result}");
    assert_never_ran(&mark, &mount);
    let settings = mount.read("source/meta/settings.toml");
    assert!(!settings.contains("evil"), "{settings}");
}

/// Any user of a shared database may write any checkout's rows: settings planted there by
/// another agent never choose what the owner's daemon runs.
#[test]
fn settings_another_user_writes_to_a_shared_database_never_run() {
    let user = OtherUser::new("pg");
    let server = homespace_testkit::postgres::ScratchServer::start()
        .expect("a scratch PostgreSQL server (is postgresql installed?)");
    let url = server.database("team").unwrap();
    let dir = tempfile::tempdir().unwrap();
    chmod(dir.path(), 0o755);
    let project = dir.path().join("project");
    common::copy_dir(&example(), &project);
    let mount = common::Setup::at(dir, project).store(&url).mount();
    let (evil, mark) = plant(&mount, &user);
    let settings = format!(
        "[import_check]\npython = \"{}\"\n\n[tests]\nargs = [\"-p\", \"evil\"]\n",
        evil.display()
    );
    // Another agent's connection, for every checkout (the empty key) and this one's.
    let mut other = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    other
        .execute(
            "INSERT INTO settings (checkout, name, text) VALUES ('', 'source', $1)",
            &[&settings],
        )
        .unwrap();
    other
        .execute("UPDATE settings SET text = $1", &[&settings])
        .unwrap();
    let result = owners_edit_and_run(&mount);
    assert!(result.contains("passed"), "{result}");
    assert_never_ran(&mark, &mount);
}

#[test]
fn a_venv_another_user_plants_in_the_project_never_runs() {
    let user = OtherUser::new("venv");
    let mount = mount(true);
    let (evil, mark) = plant(&mount, &user);
    let (ok, out) = mount.sh_as(
        &user,
        &format!(
            "mkdir -p \"$PROJECT/.venv/bin\" && cp {} \"$PROJECT/.venv/bin/python\"",
            evil.display()
        ),
    );
    assert!(ok, "{out}");
    let result = owners_edit_and_run(&mount);
    assert!(result.contains("passed"), "{result}");
    assert_never_ran(&mark, &mount);
    // The run says which interpreter it ran and why, as the log does.
    assert!(result.contains("homespace: interpreter "), "{result}");
    assert!(result.contains(".venv/bin/python is not run"), "{result}");
    let log = mount.log_text();
    assert!(log.contains(".venv/bin/python is not run"), "{log}");
}

#[test]
fn settings_in_a_folder_another_user_can_swap_are_set_aside() {
    let user = OtherUser::new("swap");
    let mount = mount(true);
    let (evil, mark) = plant(&mount, &user);
    // The project folder is everyone's: they move the owner's .homespace/ aside and put
    // their own settings in its place.
    let (ok, out) = mount.sh_as(
        &user,
        &format!(
            "cd \"$PROJECT\" && {{ mv .homespace .homespace-old 2>/dev/null || true; }} && mkdir -p .homespace \
             && printf '[import_check]\\npython = \"{}\"\\n' > .homespace/settings.toml",
            evil.display()
        ),
    );
    assert!(ok, "{out}");
    let result = owners_edit_and_run(&mount);
    assert!(result.contains("passed"), "{result}");
    assert_never_ran(&mark, &mount);
    let view = mount.read("source/meta/_entry.md");
    assert!(view.contains("**Not in force:**"), "{view}");
    assert!(
        view.contains(&format!("owned by uid {}", user.uid)),
        "{view}"
    );
    // Nor may the owner save them there: the place is not theirs alone.
    let (ok, out) = mount.sh(
        "printf '[import_check]\\npython = \"/usr/bin/python3\"\\n' > s.toml \
         && cp s.toml \"$HS/source/meta/settings.toml\"",
    );
    assert!(!ok, "saved where another user may change it: {out}");
}

#[test]
fn what_the_owner_keeps_is_private_by_default() {
    let user = OtherUser::new("private");
    let dir = tempfile::tempdir().unwrap();
    chmod(dir.path(), 0o755);
    let project = dir.path().join("project");
    common::copy_dir(&example(), &project);
    chmod(&project, 0o755);
    // The default store: `<project>/.homespace/store.db`, made by the mount.
    let store = project.join(".homespace/store.db");
    let mount = common::Setup::at(dir, project.clone())
        .store(store.clone())
        .args(&["--allow-other"])
        .mount();
    let mode = |path: &Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&project.join(".homespace")), 0o700);
    assert_eq!(mode(&store), 0o600);
    // `homespace mount` (in the background) makes its log beside the store, as private.
    let (ok, out) = mount.sh(&format!(
        "mkdir -p bg && \"$HOMESPACE\" mount --project {} --store {}/bg.db bg \
         && \"$HOMESPACE\" unmount bg",
        project.display(),
        project.join(".homespace").display()
    ));
    let bg = mount.dir.path().join("bg");
    if homespace::daemon::mount::is_mounted(&bg) {
        let _ = homespace::daemon::mount::unmount(&bg, true);
    }
    assert!(ok, "{out}");
    assert_eq!(mode(&project.join(".homespace/homespace.log")), 0o600);
    let (ok, _) = mount.sh_as(&user, &format!("cat {} > /dev/null", store.display()));
    assert!(!ok, "another user read the store");
    let (ok, _) = mount.sh_as(
        &user,
        &format!("ls {}", project.join(".homespace").display()),
    );
    assert!(!ok, "another user listed .homespace/");
    // Through the mount: the project as its modes allow, nothing of the private store.
    let (ok, out) = mount.sh_as(&user, "cat \"$HS/source/ledger/journal.py\" > /dev/null");
    assert!(ok, "a 644 module of a 755 project is readable: {out}");
    for private in ["tasks/_entry.md", "_entry.md", "memory/_entry.md"] {
        let (ok, _) = mount.sh_as(&user, &format!("cat \"$HS/{private}\" > /dev/null"));
        assert!(!ok, "another user read {private} of a private store");
    }
}

/// Whether `seen` comes true before a deadline far beyond any fair wait (a bound on
/// waiting, not a speed claim: the kernel's own cache would show the old text 60 s).
fn soon(seen: impl FnMut() -> bool) -> bool {
    homespace_testkit::poll::poll_true(Duration::from_secs(20), Duration::from_millis(50), seen)
}

#[test]
fn settings_another_user_writes_in_an_open_settings_folder_are_set_aside_whole() {
    let user = OtherUser::new("quiet");
    let mount = mount(false);
    let folder = mount.project.join(".homespace");
    std::fs::create_dir_all(&folder).unwrap();
    chmod(&folder, 0o777);
    let private = mount.dir.path().join("private");
    std::fs::create_dir(&private).unwrap();
    chmod(&private, 0o700);
    // Settings that run nothing: the import check off, a private folder followed.
    let (ok, out) = mount.sh_as(
        &user,
        &format!(
            "printf '[import_check]\\nenabled = false\\n\\n[memory]\\nwatch = [\"{}\"]\\n' \
             > \"$PROJECT/.homespace/settings.toml\"",
            private.display()
        ),
    );
    assert!(ok, "{out}");
    // An edit that breaks the module's import: the check, still on, undoes it.
    let (ok, out) = mount.sh("cat \"$HS/source/ledger/report.py\" > report.py \
         && echo 'import no_such_module_hs' >> report.py \
         && cp report.py \"$HS/source/ledger/report.py\"");
    assert!(
        !ok,
        "the broken edit was kept: another user's settings turned the import check off: {out}"
    );
    let module = std::fs::read_to_string(mount.project.join("src/ledger/report.py")).unwrap();
    assert!(!module.contains("no_such_module_hs"), "{module}");
    let view = mount.read("source/meta/_entry.md");
    assert!(
        view.contains("**Not in force:** none of the settings in"),
        "{view}"
    );
    assert!(
        view.contains(&format!("owned by uid {}", user.uid)),
        "{view}"
    );
    assert!(view.contains("import check on"), "{view}");
    let shown = mount.read("source/meta/settings.toml");
    assert!(
        shown.starts_with("# Not in force: none of the settings in"),
        "{shown}"
    );
}

#[test]
fn a_settings_change_outside_the_mount_shows_at_once() {
    let mount = mount(false);
    let (ok, out) = mount.sh(
        "sed 's/depth = 2/depth = 3/' \"$HS/source/meta/settings.toml\" > s.toml \
         && cp s.toml \"$HS/source/meta/settings.toml\"",
    );
    assert!(ok, "{out}");
    assert!(
        mount
            .read("source/meta/settings.toml")
            .contains("depth = 3")
    );
    assert!(
        mount
            .read("source/meta/_entry.md")
            .contains("`nav.depth` = 3")
    );
    // The owner edits the file outside the mount, in place.
    let file = mount.project.join(".homespace/settings.toml");
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, text.replace("depth = 3", "depth = 4")).unwrap();
    assert!(
        soon(|| mount
            .read("source/meta/settings.toml")
            .contains("depth = 4")),
        "{}",
        mount.read("source/meta/settings.toml")
    );
    // The file is read afresh at each open; the view follows once the watcher heard of it.
    assert!(
        soon(|| mount
            .read("source/meta/_entry.md")
            .contains("`nav.depth` = 4")),
        "{}",
        mount.read("source/meta/_entry.md")
    );
    // Then opens it to everyone: the mount says it is not in force.
    chmod(&file, 0o666);
    assert!(
        soon(|| mount
            .read("source/meta/settings.toml")
            .starts_with("# Not in force:")),
        "{}",
        mount.read("source/meta/settings.toml")
    );
    assert!(
        soon(|| mount
            .read("source/meta/_entry.md")
            .contains("**Not in force:**")),
        "{}",
        mount.read("source/meta/_entry.md")
    );
    let view = mount.read("source/meta/_entry.md");
    assert!(
        view.contains("settings.toml is writable by everyone"),
        "{view}"
    );
}
