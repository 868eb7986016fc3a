//! A followed folder that another local user can write into, on a real mount whose daemon
//! runs as root (issue 42): only the owner's own regular files are imported — another
//! user's file, a link to the owner's private file, a link to a device are set aside, said
//! in `_errors.md` and counted in `memory/_entry.md` — and a sparse file of several GiB
//! with one endless line leaves the daemon's memory bounded and its later lines imported.
//! Waited for by polling the mount, never by sleeping a set time.

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use common::{Mount, OtherUser};

/// A mount of the example following only `folder`, with a home of its own (so no real
/// agent's folder is followed).
fn following(folder: &Path) -> Mount {
    let home = tempfile::tempdir().unwrap().keep();
    let mount = common::Setup::copy_of(&common::example())
        .env(&[("HOME", home)])
        .mount();
    mount.follow_only(folder);
    wait_for(&mount, "following the shared folder", || {
        mount.log_text().contains("following 1 transcript folder")
    });
    mount
}

/// A folder anyone may add files to (as `/tmp` is: world-writable and sticky), where
/// another user can reach it.
fn shared_folder() -> tempfile::TempDir {
    let dir = tempfile::Builder::new()
        .prefix("hs-shared")
        .tempdir_in("/tmp")
        .unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o1777)).unwrap();
    dir
}

/// A generic JSONL transcript of one session `id` with two turns.
fn chat(id: &str) -> String {
    format!(
        concat!(
            r#"{{"session":"{id}","ts":"2025-03-01T10:00:00Z","role":"user","content":"Fix the rounding bug in {id}"}}"#,
            "\n",
            r#"{{"session":"{id}","ts":"2025-03-01T10:00:05Z","role":"assistant","content":"Fixed {id}."}}"#,
            "\n"
        ),
        id = id
    )
}

/// Runs `args` as `user`, with `input` on its standard input.
fn as_user(user: &OtherUser, args: &[&str], input: &str) {
    use std::io::Write;
    let mut child = Command::new("runuser")
        .args(["-u", &user.name, "--"])
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    assert!(child.wait().unwrap().success(), "{args:?} as {}", user.name);
}

fn wait_for(mount: &Mount, what: &str, done: impl FnMut() -> bool) {
    mount.wait_for(what, Duration::from_secs(30), done);
}

/// Waits until `_errors.md` says `file` was set aside, and returns what it says.
fn set_aside(mount: &Mount, file: &str) -> String {
    wait_for(mount, &format!("{file} set aside in _errors.md"), || {
        mount.read("_errors.md").contains(file)
    });
    mount.read("_errors.md")
}

/// Writes an owner's own transcript `id` and waits until memory holds it: the follower
/// still answers after whatever it was given before.
fn owners_own_still_imported(mount: &Mount, folder: &Path, id: &str) {
    std::fs::write(folder.join(format!("{id}.jsonl")), chat(id)).unwrap();
    wait_for(mount, "the owner's own transcript", || {
        mount.read("memory/_entry.md").contains(id)
    });
}

#[test]
fn another_users_file_in_a_followed_folder_is_not_imported() {
    let folder = shared_folder();
    let mount = following(folder.path());
    let other = OtherUser::new("fw");
    let theirs = folder.path().join("theirs.jsonl");
    as_user(
        &other,
        &["tee", &theirs.to_string_lossy()],
        &chat("planted-session"),
    );
    let errors = set_aside(&mount, "theirs.jsonl");
    assert!(
        errors.contains(&format!("owned by uid {}", other.uid)),
        "{errors}"
    );
    owners_own_still_imported(&mount, folder.path(), "owners-session");
    let memory = mount.read("memory/_entry.md");
    assert!(
        !memory.contains("planted-session") && memory.contains("1 session,"),
        "another user's transcript became a session:\n{memory}"
    );
    assert!(
        memory.contains("file set aside") && memory.contains("theirs.jsonl"),
        "memory/_entry.md says what was set aside:\n{memory}"
    );
    assert!(
        !mount.read("_entry.md").contains("planted-session"),
        "the planted session is not the latest"
    );
}

#[test]
fn a_link_to_the_owners_private_file_is_not_imported() {
    let folder = shared_folder();
    let mount = following(folder.path());
    // The owner's private transcript, in a folder of the owner's alone.
    let private = mount.dir.path().join("private");
    std::fs::create_dir(&private).unwrap();
    let secret = private.join("secret.jsonl");
    std::fs::write(&secret, chat("owners-secret")).unwrap();
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o600)).unwrap();
    std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o700)).unwrap();
    // Another user links to it from the shared folder, after the mount started.
    let other = OtherUser::new("fl");
    let evil = folder.path().join("evil.jsonl");
    as_user(
        &other,
        &[
            "ln",
            "-s",
            &secret.to_string_lossy(),
            &evil.to_string_lossy(),
        ],
        "",
    );
    let errors = set_aside(&mount, "evil.jsonl");
    assert!(errors.contains("symbolic link"), "{errors}");
    owners_own_still_imported(&mount, folder.path(), "owners-session");
    let memory = mount.read("memory/_entry.md");
    assert!(
        !memory.contains("owners-secret") && memory.contains("1 session,"),
        "the linked file was imported:\n{memory}"
    );
}

#[test]
fn a_link_to_a_device_and_a_fifo_are_set_aside_unopened_without_hanging() {
    let folder = shared_folder();
    let mount = following(folder.path());
    let tty = folder.path().join("tty.jsonl");
    std::os::unix::fs::symlink("/dev/ptmx", &tty).unwrap();
    let errors = set_aside(&mount, "tty.jsonl");
    // Refused as a link, before any open: a device opened even for a moment acts (a
    // pseudo-terminal is made, a tape rewinds).
    assert!(errors.contains("symbolic link"), "{errors}");
    let fifo = folder.path().join("fifo.jsonl");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let errors = set_aside(&mount, "fifo.jsonl");
    assert!(errors.contains("a fifo"), "{errors}");
    owners_own_still_imported(&mount, folder.path(), "owners-session");
}

#[test]
fn a_sparse_file_of_gibs_with_one_endless_line_leaves_memory_bounded_and_later_lines_imported() {
    let folder = shared_folder();
    let mount = following(folder.path());
    let big: PathBuf = folder.path().join("big.jsonl");
    // Three GiB of NUL bytes and no line end, holding no disk space.
    assert!(
        Command::new("truncate")
            .args(["-s", "3G"])
            .arg(&big)
            .status()
            .unwrap()
            .success()
    );
    let errors = set_aside(&mount, "big.jsonl");
    assert!(errors.contains("line 1: longer than 64 MiB"), "{errors}");
    // The endless line ends; the lines after it are the owner's turns.
    use std::io::Write;
    let mut file = std::fs::OpenOptions::new().append(true).open(&big).unwrap();
    file.write_all(format!("\n{}", chat("after-the-long-line")).as_bytes())
        .unwrap();
    drop(file);
    wait_for(&mount, "the lines after the long one", || {
        mount
            .read("memory/_entry.md")
            .contains("after-the-long-line")
    });
    let memory = mount.read("memory/_entry.md");
    assert!(memory.contains("1 session, 2 entries"), "{memory}");
    // Bounded: the largest line held is 64 MiB, not the file's 3 GiB.
    let peak = mount.daemon_peak_rss_kib();
    assert!(peak < 400 << 10, "the daemon's peak memory: {peak} KiB");
    let now = mount.daemon_rss_kib();
    assert!(now < 300 << 10, "the daemon's memory: {now} KiB");
    assert!(
        mount.read("_entry.md").contains("memory/"),
        "the mount still answers"
    );
}

/// Writes `value` as the JSON file `rel` under `storage`, making its folders.
fn json_at(storage: &Path, rel: &str, value: &str) {
    let path = storage.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, value).unwrap();
}

/// A text part of OpenCode's storage: `id` of message `msg_1` of session `ses_own`.
fn text_part(id: &str, text: &str) -> String {
    format!(
        r#"{{"id":"{id}","sessionID":"ses_own","messageID":"msg_1","type":"text","text":"{text}"}}"#
    )
}

#[test]
fn another_users_part_in_an_opencode_storage_is_set_aside_and_the_session_read_without_it() {
    let folder = shared_folder();
    let mount = following(folder.path());
    // The owner's OpenCode storage (pre-1.2), one session of one user message; its part
    // folder is one another user may write in.
    let storage = folder.path().join("storage");
    json_at(&storage, "project/p.json", r#"{"id":"p"}"#);
    json_at(
        &storage,
        "message/ses_own/msg_1.json",
        r#"{"id":"msg_1","role":"user","time":{"created":1763632931020}}"#,
    );
    json_at(
        &storage,
        "part/msg_1/prt_1.json",
        &text_part("prt_1", "owners first words"),
    );
    std::fs::set_permissions(
        storage.join("part/msg_1"),
        std::fs::Permissions::from_mode(0o1777),
    )
    .unwrap();
    json_at(
        &storage,
        "session/p/ses_own.json",
        r#"{"id":"ses_own","directory":"/home/dev","title":"Owners session","time":{"created":1763632931020}}"#,
    );
    wait_for(&mount, "the owner's session", || {
        mount.read("memory/_entry.md").contains("1 session, 1 entr")
    });
    let other = OtherUser::new("fo");
    let theirs = storage.join("part/msg_1/prt_2.json");
    as_user(
        &other,
        &["tee", &theirs.to_string_lossy()],
        &text_part("prt_2", "planted words"),
    );
    set_aside(&mount, "prt_2.json");
    // The owner's next part reads the session again: with theirs set aside, said why.
    json_at(
        &storage,
        "part/msg_1/prt_3.json",
        &text_part("prt_3", "owners later words"),
    );
    wait_for(&mount, "the owner's later part", || {
        mount
            .read("memory/_entry.md")
            .contains("1 session, 2 entries")
    });
    let errors = set_aside(&mount, "prt_3.json");
    assert!(
        errors.contains("part/msg_1/prt_2.json: it is owned by uid"),
        "{errors}"
    );
    let memory = mount.read("memory/_entry.md");
    assert!(
        memory.contains("1 session, 2 entries"),
        "another user's part became an entry:\n{memory}"
    );
}

#[test]
fn an_opencode_database_that_is_a_link_is_not_opened() {
    // The owner's own folder, followed; a database of the owner's elsewhere, private.
    let folder = tempfile::tempdir().unwrap();
    let mount = following(folder.path());
    let private = tempfile::tempdir().unwrap();
    let secret = private.path().join("secret.db");
    let sql = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/transcripts/opencode/opencode.sql"),
    )
    .unwrap();
    rusqlite::Connection::open(&secret)
        .unwrap()
        .execute_batch(&sql)
        .unwrap();
    std::os::unix::fs::symlink(&secret, folder.path().join("opencode.db")).unwrap();
    set_aside(&mount, "opencode.db");
    // Its log, a regular file of the owner's, changes: the database beside it is read.
    std::fs::write(folder.path().join("opencode.db-wal"), "").unwrap();
    let errors = set_aside(&mount, "opencode.db-wal");
    assert!(
        errors.contains("opencode.db: it is a symbolic link"),
        "{errors}"
    );
    owners_own_still_imported(&mount, folder.path(), "owners-session");
    let memory = mount.read("memory/_entry.md");
    assert!(
        memory.contains("1 session,"),
        "the linked database was read:\n{memory}"
    );
}

#[test]
fn a_watched_folder_moved_away_and_replaced_by_a_link_is_not_read_through() {
    let folder = shared_folder();
    let mount = following(folder.path());
    // The owner's private transcript, in a folder of the owner's alone.
    let private = mount.dir.path().join("private");
    std::fs::create_dir(&private).unwrap();
    std::fs::write(private.join("secret.jsonl"), chat("owners-secret")).unwrap();
    std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o700)).unwrap();
    // Another user's folder in the followed one, watched once the owner's file in it is
    // imported.
    let other = OtherUser::new("fm");
    let sub = folder.path().join("sub");
    as_user(&other, &["mkdir", "-m", "777", &sub.to_string_lossy()], "");
    std::fs::write(sub.join("probe.jsonl"), chat("probe-session")).unwrap();
    wait_for(&mount, "the file in the other user's folder", || {
        mount.read("memory/_entry.md").contains("1 session,")
    });
    // They move it out of the followed folder (its watch keeps the name `sub`), put a
    // link to the owner's private folder in its place, and write in the moved folder.
    let away = shared_folder();
    let moved = away.path().join("moved");
    as_user(
        &other,
        &["mv", &sub.to_string_lossy(), &moved.to_string_lossy()],
        "",
    );
    as_user(
        &other,
        &[
            "ln",
            "-s",
            &private.to_string_lossy(),
            &sub.to_string_lossy(),
        ],
        "",
    );
    as_user(
        &other,
        &["tee", &moved.join("secret.jsonl").to_string_lossy()],
        "{}\n",
    );
    let errors = set_aside(&mount, "sub/secret.jsonl");
    assert!(
        errors.contains("the folder sub is a symbolic link"),
        "{errors}"
    );
    owners_own_still_imported(&mount, folder.path(), "owners-session");
    let memory = mount.read("memory/_entry.md");
    assert!(
        !memory.contains("owners-secret") && memory.contains("2 sessions,"),
        "the private transcript was read through the link:\n{memory}"
    );
}
