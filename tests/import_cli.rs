//! `homespace import` as a user runs it: the fixture transcripts into a fresh store, the
//! summary line, a second import adding nothing, and a refused file named with its bad
//! lines and a non-zero exit.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/transcripts")
        .join(name)
}

const CODEX: &str = "rollout-2025-09-14T08-12-03-0199441c-7a3e-7b21-9c4d-5e6f7a8b9c0d.jsonl";

/// The four good fixtures: 15 + 10 + 13 + 6 entries, of which the resumed Claude Code
/// session repeats 4 of the session it continues.
fn good_fixtures() -> Vec<PathBuf> {
    [
        "claude-code-session.jsonl",
        "claude-code-resumed.jsonl",
        CODEX,
        "generic.jsonl",
    ]
    .into_iter()
    .map(fixture)
    .collect()
}

fn import(args: &[&Path]) -> Output {
    let output = Command::new(env!("CARGO_BIN_EXE_homespace"))
        .arg("import")
        .args(args)
        .output()
        .expect("run homespace import");
    eprintln!(
        "--- stdout\n{}--- stderr\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

fn import_into(store: &Path, paths: &[PathBuf]) -> Output {
    let mut args: Vec<&Path> = vec![Path::new("--store"), store];
    args.extend(paths.iter().map(PathBuf::as_path));
    import(&args)
}

/// The summary line without its time, which varies.
fn summary_line(output: &Output) -> String {
    let stdout = String::from_utf8_lossy(&output.stdout);
    let last = stdout.lines().last().unwrap_or_default().to_string();
    let (head, time) = last
        .rsplit_once(" in ")
        .expect("a summary line ending in ` in X.Y s`");
    assert!(
        time.ends_with(" s") && time.trim_end_matches(" s").parse::<f64>().is_ok(),
        "{last}"
    );
    head.to_string()
}

#[test]
fn imports_the_fixtures_then_adds_nothing_the_second_time() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store.db");

    let first = import_into(&store, &good_fixtures());
    assert!(first.status.success());
    assert_eq!(
        summary_line(&first),
        "imported 4 files: 3 sessions, 40 entries (4 already stored, 0 files refused)"
    );
    assert!(
        first.stderr.is_empty(),
        "no progress bar or notes off a terminal"
    );

    let again = import_into(&store, &good_fixtures());
    assert!(again.status.success());
    assert_eq!(
        summary_line(&again),
        "imported 4 files: 0 sessions, 0 entries (44 already stored, 0 files refused)"
    );
}

#[test]
fn a_refused_file_is_listed_with_its_bad_lines_and_the_exit_is_non_zero() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store.db");
    let output = import_into(&store, &[fixture("bad.jsonl"), fixture("generic.jsonl")]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        summary_line(&output),
        "imported 1 file: 1 session, 6 entries (0 already stored, 1 file refused)"
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("refused"), "{stderr}");
    assert!(stderr.contains("bad.jsonl (3 bad lines"), "{stderr}");
    let listed: Vec<&str> = stderr
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("line "))
        .filter_map(|l| l.split(':').next())
        .collect();
    assert_eq!(listed, ["3", "5", "8"], "{stderr}");

    // Nothing of the refused file is stored: importing the good one again adds nothing.
    let again = import_into(&store, &[fixture("generic.jsonl")]);
    assert_eq!(
        summary_line(&again),
        "imported 1 file: 0 sessions, 0 entries (6 already stored, 0 files refused)"
    );
}

#[test]
fn a_directory_is_searched_and_the_store_defaults_to_the_project() {
    let project = tempfile::tempdir().unwrap();
    // The fixture files themselves: the folders beside them hold other agents' stores.
    let folder = tempfile::tempdir().unwrap();
    for file in std::fs::read_dir(fixture("")).unwrap() {
        let file = file.unwrap();
        if file.file_type().unwrap().is_file() {
            std::fs::copy(file.path(), folder.path().join(file.file_name())).unwrap();
        }
    }
    let output = import(&[Path::new("--project"), project.path(), folder.path()]);
    assert_eq!(output.status.code(), Some(1), "bad.jsonl is in the folder");
    assert_eq!(
        summary_line(&output),
        "imported 4 files: 3 sessions, 40 entries (4 already stored, 1 file refused)"
    );
    assert!(project.path().join(".homespace/store.db").is_file());
}

#[test]
fn a_missing_path_imports_nothing_and_says_which() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store.db");
    let missing = dir.path().join("no-such.jsonl");
    let output = import_into(&store, &[fixture("generic.jsonl"), missing]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("no-such.jsonl") && stderr.contains("nothing was imported"),
        "{stderr}"
    );
    let after = import_into(&store, &[fixture("generic.jsonl")]);
    assert_eq!(
        summary_line(&after),
        "imported 1 file: 1 session, 6 entries (0 already stored, 0 files refused)"
    );
}

#[test]
fn chats_opening_with_the_same_system_prompt_stay_separate_sessions() {
    let dir = tempfile::tempdir().unwrap();
    let chat = |name: &str, question: &str, answer: &str| {
        let path = dir.path().join(name);
        let lines = [
            r#"{"role":"system","content":"You are a helpful assistant."}"#.to_string(),
            format!(r#"{{"role":"user","content":"{question}"}}"#),
            format!(r#"{{"role":"assistant","content":"{answer}"}}"#),
        ];
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        path
    };
    let files = [
        chat("sums.jsonl", "What is 2+2?", "4"),
        chat("colours.jsonl", "Name a colour", "Blue"),
    ];
    let output = import_into(&dir.path().join("store.db"), &files);
    assert!(output.status.success());
    assert_eq!(
        summary_line(&output),
        "imported 2 files: 2 sessions, 6 entries (0 already stored, 0 files refused)"
    );
}

/// Kills the child when dropped: a test failing must not leave `--watch` running.
struct Killed(std::process::Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn watch_imports_files_and_lines_written_after_it_started_until_stopped() {
    let dir = tempfile::tempdir().unwrap();
    let (logs, out, err) = (
        dir.path().join("logs"),
        dir.path().join("out"),
        dir.path().join("err"),
    );
    std::fs::create_dir(&logs).unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_homespace"))
        .args(["import", "--watch", "--store"])
        .arg(dir.path().join("s.db"))
        .arg(&logs)
        .stdin(std::process::Stdio::null())
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap())
        .spawn()
        .unwrap();
    let _running = Killed(child);
    let read = |path: &Path| std::fs::read_to_string(path).unwrap_or_default();
    let wait_for = |what: &str, path: &Path, needle: &str| {
        let came = homespace_testkit::poll::poll_true(
            std::time::Duration::from_secs(20),
            std::time::Duration::from_millis(10),
            || read(path).contains(needle),
        );
        assert!(
            came,
            "waited too long for {what}: {}{}",
            read(&out),
            read(&err)
        );
    };
    wait_for("it to start", &err, "Ctrl-C stops");
    let chat = logs.join("chat.jsonl");
    let generic = std::fs::read_to_string(fixture("generic.jsonl")).unwrap();
    // The session's header line and its first entry, then the rest.
    let second_end = generic.match_indices('\n').nth(1).unwrap().0 + 1;
    let (head, tail) = generic.split_at(second_end);
    std::fs::write(&chat, head).unwrap();
    wait_for(
        "the new file",
        &out,
        "chat.jsonl: 1 new session, 1 entry added",
    );
    homespace_testkit::grow::append(&chat, &format!("oops\n{tail}"));
    wait_for(
        "the appended lines",
        &out,
        "chat.jsonl: 0 new sessions, 5 entries added",
    );
    wait_for("the bad line", &err, "line 3: invalid JSON");
}
