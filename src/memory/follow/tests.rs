//! Live import as an agent's transcript grows: the follower alone (each look by hand), and
//! the inotify loop on real folders (waited for by polling the store, never by sleeping).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use homespace_testkit::grow::append;

use super::watch::{Event, Watch};
use super::*;
use crate::transcripts::places::Place;
use crate::transcripts::trusted::Owner;

const CLAUDE: &str = include_str!("../../../tests/fixtures/transcripts/claude-code-session.jsonl");
const CODEX: &str = include_str!(
    "../../../tests/fixtures/transcripts/rollout-2025-09-14T08-12-03-0199441c-7a3e-7b21-9c4d-5e6f7a8b9c0d.jsonl"
);

fn store() -> Arc<Store> {
    Arc::new(Store::in_memory().unwrap())
}

fn entries(store: &Store) -> usize {
    store.memory(|m| m.stats()).unwrap().entries
}

/// The Claude Code fixture without its opening summary line (a summary names a message
/// that comes later, which a file read as it grows cannot know yet).
fn claude_lines() -> Vec<String> {
    CLAUDE
        .lines()
        .filter(|l| !l.contains("\"type\":\"summary\""))
        .map(|l| format!("{l}\n"))
        .collect()
}

#[test]
fn a_growing_file_stores_what_each_append_added_as_a_whole_import_would() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    let lines = claude_lines();
    let (store, mut follower) = (store(), Follower::new(store()));
    let mut seen = 0;
    for line in &lines {
        // Half a line first: it waits for its line end.
        let (head, tail) = line.split_at(line.len() / 2);
        append(&path, head);
        let caught = follower.look(&path, None).unwrap();
        assert_eq!(caught.imported.entries, 0, "half a line stored");
        append(&path, tail);
        let caught = follower.look(&path, None).unwrap();
        assert!(caught.bad.is_none(), "{:?}", caught.bad);
        seen += caught.imported.entries;
        assert_eq!(entries(&follower.store), seen);
    }
    // The same lines imported whole give the same entries and session.
    let transcript = crate::transcripts::read(lines.concat().as_bytes(), "s.jsonl").unwrap();
    store.change_memory(|m| m.import(&transcript)).unwrap();
    assert_eq!(entries(&store), seen);
    let title = |store: &Store| {
        store.memory(|m| m.recent_sessions(1)).unwrap()[0]
            .record
            .title
            .clone()
    };
    assert_eq!(title(&follower.store), title(&store));
    assert!(seen > 5, "the fixture has entries");
}

#[test]
fn a_bad_line_is_reported_once_and_the_lines_around_it_are_stored() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    let lines = claude_lines();
    let mut follower = Follower::new(store());
    append(&path, &lines[..3].concat());
    append(&path, "{\"type\": \"user\", oops\n");
    append(&path, &lines[3..5].concat());
    let caught = follower.look(&path, None).unwrap();
    let bad = caught.bad.expect("the bad line is reported");
    assert_eq!(bad.bad_lines.len(), 1);
    assert_eq!(bad.bad_lines[0].0, 4, "{bad}");
    let stored = entries(&follower.store);
    assert!(stored > 0);
    append(&path, &lines[5..].concat());
    let caught = follower.look(&path, None).unwrap();
    assert!(
        caught.bad.is_none(),
        "reported a second time: {:?}",
        caught.bad
    );
    assert!(entries(&follower.store) > stored);
}

#[test]
fn a_replaced_file_and_a_restart_store_only_what_is_new() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    let lines = claude_lines();
    let store = store();
    let mut follower = Follower::new(store.clone());
    append(&path, &lines[..6].concat());
    follower.look(&path, None).unwrap();
    let first = entries(&store);
    // Rewritten under the same name (an editor's save): read from its start again.
    let staged = dir.path().join("s.tmp");
    std::fs::write(&staged, lines.concat()).unwrap();
    std::fs::rename(&staged, &path).unwrap();
    let caught = follower.look(&path, None).unwrap();
    assert_eq!(
        caught.imported.skipped, first,
        "the entries held are skipped"
    );
    let all = entries(&store);
    assert!(all > first);
    // A new follower (the mount restarted) reads everything and adds nothing.
    let caught = Follower::new(store.clone()).look(&path, None).unwrap();
    assert_eq!((caught.imported.entries, entries(&store)), (0, all));
}

#[test]
fn rollouts_of_another_project_and_other_json_are_passed_over() {
    let dir = tempfile::tempdir().unwrap();
    let mut follower = Follower::new(store());
    let rollout = dir.path().join("rollout.jsonl");
    std::fs::write(&rollout, CODEX).unwrap();
    let caught = follower
        .look(&rollout, Some(Path::new("/elsewhere")))
        .unwrap();
    assert!(caught.passed_over.unwrap().contains("/home/dev/ledger"));
    assert_eq!(entries(&follower.store), 0);
    let caught = follower
        .look(&rollout, Some(Path::new("/home/dev")))
        .unwrap();
    assert_eq!(caught.imported.entries, 0, "passed over until replaced");
    let ours = dir.path().join("ours.jsonl");
    std::fs::write(&ours, CODEX).unwrap();
    let caught = follower
        .look(&ours, Some(Path::new("/home/dev/ledger")))
        .unwrap();
    assert!(caught.imported.entries > 0);
    let other = dir.path().join("package.json");
    std::fs::write(&other, "{\"name\": \"x\"}\n").unwrap();
    let caught = follower.look(&other, None).unwrap();
    assert!(caught.passed_over.unwrap().contains("no transcript format"));
}

/// Runs a [`Watch`] over `places` on a thread until dropped.
struct Running {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<Vec<String>>>,
}

impl Running {
    fn start(store: Arc<Store>, places: Vec<Place>) -> Running {
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = stop.clone();
        let started = Arc::new(AtomicBool::new(false));
        let began = started.clone();
        let thread = std::thread::spawn(move || {
            let mut said = Vec::new();
            let mut watch = Watch::new(Follower::new(store));
            watch.run(
                &mut || (!stopped.load(Ordering::SeqCst)).then(|| places.clone()),
                &mut |event| {
                    if let Event::Started { .. } = event {
                        began.store(true, Ordering::SeqCst);
                    }
                    if let Event::Looked { caught, .. } = event
                        && let Some(bad) = &caught.bad
                    {
                        said.push(bad.to_string());
                    }
                },
            );
            said
        });
        wait_for("the watch to start", || started.load(Ordering::SeqCst));
        Running {
            stop,
            thread: Some(thread),
        }
    }

    /// What was reported bad, once stopped.
    fn stop(mut self) -> Vec<String> {
        self.stop.store(true, Ordering::SeqCst);
        self.thread.take().unwrap().join().unwrap()
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "waited too long for {what}"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn a_folder_made_later_and_files_appended_there_are_followed() {
    let dir = tempfile::tempdir().unwrap();
    let place: PathBuf = dir.path().join("projects").join("-p");
    let store = store();
    let running = Running::start(store.clone(), vec![Place::all(place.clone())]);
    // The place appears after the watch started, then a session is written line by line.
    std::fs::create_dir_all(dir.path().join("projects")).unwrap();
    std::fs::create_dir(&place).unwrap();
    let path = place.join("s.jsonl");
    let lines = claude_lines();
    // The first line is a file snapshot (no entry), the next the user's message.
    append(&path, &lines[..2].concat());
    wait_for("the first lines", || entries(&store) > 0);
    append(&path, "not json\n");
    for line in &lines[2..] {
        append(&path, line);
    }
    let whole = Store::in_memory().unwrap();
    let transcript = crate::transcripts::read(lines.concat().as_bytes(), "s.jsonl").unwrap();
    whole.change_memory(|m| m.import(&transcript)).unwrap();
    wait_for("every line", || entries(&store) == entries(&whole));
    // A second session file in a dated folder made now.
    std::fs::create_dir(place.join("sub")).unwrap();
    std::fs::write(place.join("sub").join("t.jsonl"), CODEX).unwrap();
    wait_for("the new file", || {
        store.memory(|m| m.stats()).unwrap().sessions == 2
    });
    let said = running.stop();
    assert_eq!(said.len(), 1, "the bad line is said once: {said:?}");
    assert!(said[0].contains("line 3"), "{said:?}");
}

/// Stores `text` read whole, as `homespace import` would: the entries a follower must reach.
fn whole_entries(text: &str, name: &str) -> usize {
    let store = Store::in_memory().unwrap();
    let transcript = crate::transcripts::read(text.as_bytes(), name).unwrap();
    store.change_memory(|m| m.import(&transcript)).unwrap();
    entries(&store)
}

#[test]
fn files_read_whole_are_read_again_as_they_grow_and_store_only_what_is_new() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/transcripts");
    for (fixture, name) in [
        (
            "gemini/session-2025-11-05T16-40-8d1e4b27.jsonl",
            "session-x.jsonl",
        ),
        ("aider/.aider.chat.history.md", ".aider.chat.history.md"),
    ] {
        let text = std::fs::read_to_string(fixtures.join(fixture)).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        let mut follower = Follower::new(store());
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        let half = lines.len() / 2;
        append(&path, &lines[..half].concat());
        follower.look(&path, None).unwrap();
        let first = entries(&follower.store);
        assert!(first > 0, "{fixture}: the first half stores entries");
        append(&path, &lines[half..].concat());
        let mut caught = follower.look(&path, None).unwrap();
        while caught.deferred {
            std::thread::sleep(WHOLE_AGAIN / 4);
            caught = follower.look(&path, None).unwrap();
        }
        assert!(caught.bad.is_none(), "{fixture}: {:?}", caught.bad);
        assert_eq!(
            entries(&follower.store),
            whole_entries(&text, name),
            "{fixture}: read again, it stores what a whole import stores, once"
        );
        assert_eq!(
            caught.imported.skipped, first,
            "{fixture}: the first half is skipped"
        );
    }
}

#[test]
fn lines_the_store_refuses_are_said_once_and_the_next_lines_still_come() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("chat.jsonl");
    let mut follower = Follower::new(store());
    let line = |n: usize, text: &str| {
        format!("{{\"ts\":\"2025-03-01T10:00:0{n}Z\",\"role\":\"user\",\"content\":\"{text}\"}}\n")
    };
    append(&path, &line(1, "first"));
    follower.look(&path, None).unwrap();
    // PostgreSQL's text cannot hold NUL, so no store takes it.
    append(&path, &line(2, "a \\u0000 b"));
    let refused = follower.look(&path, None).unwrap_err();
    assert!(refused.message.contains("NUL"), "{}", refused.message);
    append(&path, &line(3, "third"));
    let caught = follower.look(&path, None).unwrap();
    assert_eq!(
        caught.imported.entries, 1,
        "the refused line is not read again"
    );
    assert_eq!(entries(&follower.store), 2);
}

/// A generic JSONL line of a user's text, at second `n`.
fn chat_line(n: usize, text: &str) -> String {
    format!("{{\"ts\":\"2025-03-01T10:00:0{n}Z\",\"role\":\"user\",\"content\":\"{text}\"}}\n")
}

#[test]
fn a_link_made_in_a_followed_folder_is_set_aside_unopened_and_said_once() {
    let dir = tempfile::tempdir().unwrap();
    let private = dir.path().join("private");
    std::fs::create_dir(&private).unwrap();
    let secret = private.join("secret.jsonl");
    std::fs::write(&secret, chat_line(1, "the owner's secret")).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o600)).unwrap();
    std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o700)).unwrap();
    let followed = dir.path().join("followed");
    std::fs::create_dir(&followed).unwrap();
    let mut follower = Follower::new(store());
    for (name, target) in [
        ("evil.jsonl", secret.as_path()),
        ("tty.jsonl", Path::new("/dev/ptmx")),
    ] {
        let link = followed.join(name);
        std::os::unix::fs::symlink(target, &link).unwrap();
        let caught = follower.look(&link, None).unwrap();
        let why = caught.unreadable.expect("set aside, and said");
        assert!(why.contains("symbolic link"), "{why}");
        let again = follower.look(&link, None).unwrap();
        assert!(again.unreadable.is_none(), "said once");
    }
    assert_eq!(entries(&follower.store), 0);
}

#[test]
fn a_fifo_is_set_aside_without_hanging() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("chat.jsonl");
    let name = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
    // No writer ever comes: an open that blocked would hang this test.
    let caught = Follower::new(store()).look(&fifo, None).unwrap();
    assert!(caught.unreadable.unwrap().contains("a fifo"));
}

#[test]
fn another_users_file_is_set_aside_until_it_is_the_owners() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("theirs.jsonl");
    std::fs::write(&path, chat_line(1, "planted")).unwrap();
    let mut follower = Follower::new(store());
    let owner = follower.owner;
    follower.owner = Owner {
        uid: owner.uid + 1,
        gid: owner.gid,
    };
    let caught = follower.look(&path, None).unwrap();
    let why = caught.unreadable.expect("set aside, and said");
    assert!(why.contains("owned by uid"), "{why}");
    assert_eq!(entries(&follower.store), 0);
    // The owner's after all (as after a chown): read at the next look.
    follower.owner = owner;
    let caught = follower.look(&path, None).unwrap();
    assert_eq!(caught.imported.entries, 1);
}

#[test]
fn a_line_past_the_limit_is_passed_over_and_the_lines_after_it_are_stored() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("chat.jsonl");
    let limit = 1 << 20;
    let mut follower = Follower::new(store()).with_limit(limit);
    append(&path, &chat_line(1, "before"));
    // A long line still being written: passed over as far as it goes, said once.
    append(&path, &"x".repeat(limit + 10));
    let caught = follower.look(&path, None).unwrap();
    assert_eq!(caught.imported.entries, 1);
    let bad = caught.bad.expect("the long line is said");
    assert_eq!(bad.bad_lines[0].0, 2, "{bad}");
    assert!(bad.to_string().contains("passed over"), "{bad}");
    append(&path, &"x".repeat(limit));
    append(&path, &format!("\n{}", chat_line(3, "after")));
    let caught = follower.look(&path, None).unwrap();
    assert!(caught.bad.is_none(), "said once: {:?}", caught.bad);
    assert_eq!(caught.imported.entries, 1, "the line after it is stored");
    assert_eq!(entries(&follower.store), 2);
}
