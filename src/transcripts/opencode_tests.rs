//! OpenCode on fixtures shaped like its stores: a JSON storage folder of OpenCode before
//! 1.2 (one session over many files) and the SQL of a 1.2+ database (two sessions, one under
//! OpenCode's placeholder title, one turn that failed, one tool call still pending).

use std::path::{Path, PathBuf};

use crate::model::transcript::{Channel, EntryRecord};
use crate::store::memory::testing::time;
use crate::store::memory::touched::files_changed;
use crate::transcripts::Format;

use super::{read_path, reads};

const DIR: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/transcripts/opencode"
);
const SESSION: &str =
    "session/4b0ea68d7af9a6031a7ffda7ad66e0cb83315750/ses_5b8d3f2a7ffe1Qx9LmN3pR7tVw.json";
const SQL: &str = include_str!("../../tests/fixtures/transcripts/opencode/opencode.sql");

fn channels(entries: &[EntryRecord]) -> Vec<Channel> {
    entries.iter().map(|e| e.channel).collect()
}

fn storage() -> PathBuf {
    Path::new(DIR).join("storage")
}

/// The fixture database, made from its SQL in `dir`.
fn database(dir: &Path) -> PathBuf {
    let path = dir.join("opencode.db");
    let db = rusqlite::Connection::open(&path).unwrap();
    db.execute_batch(SQL).unwrap();
    path
}

/// A copy of the fixture storage folder, to spoil.
fn storage_copy(dir: &Path) -> PathBuf {
    let copy = dir.join("storage");
    for file in ignore::WalkBuilder::new(storage())
        .standard_filters(false)
        .build()
    {
        let file = file.unwrap();
        let to = copy.join(file.path().strip_prefix(storage()).unwrap());
        if file.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&to).unwrap();
        } else {
            std::fs::copy(file.path(), &to).unwrap();
        }
    }
    copy
}

#[test]
fn a_session_of_the_json_storage_is_read_with_its_messages_and_parts() {
    let path = storage().join(SESSION);
    assert!(reads(&path));
    assert!(!reads(
        &storage().join("project/4b0ea68d7af9a6031a7ffda7ad66e0cb83315750.json")
    ));
    let reading = read_path(&path).unwrap();
    assert_eq!(reading.format, Some(Format::OpenCode));
    assert_eq!(
        reading.ignored, 5,
        "two step-starts, two step-finishes, a patch"
    );
    let (session, entries) = &reading.transcript.sessions[0];
    assert_eq!(reading.transcript.sessions.len(), 1);
    assert_eq!(session.id, "ses_5b8d3f2a7ffe1Qx9LmN3pR7tVw");
    assert_eq!(session.source, "opencode");
    assert_eq!(session.title, "Rename Ledger.post to Ledger.record");
    assert_eq!(session.cwd.as_deref(), Some("/home/dev/ledger"));
    assert_eq!(session.model.as_deref(), Some("claude-sonnet-4-5"));
    assert_eq!(
        (session.started, session.ended),
        (
            time("2025-10-09T10:02:01.020Z"),
            time("2025-10-09T10:03:36.020Z")
        )
    );
    use Channel::*;
    assert_eq!(
        channels(entries),
        [
            User, System, Thinking, ToolCall, ToolResult, ToolCall, ToolResult, ToolCall,
            ToolResult, ToolCall, ToolResult, ToolCall, ToolResult, Assistant
        ]
    );
    assert_eq!(entries[1].meta["synthetic"], true, "context OpenCode added");
    let edit = &entries[5];
    assert!(edit.content.starts_with("edit {"), "{}", edit.content);
    assert_eq!(edit.meta["tool"], "edit");
    assert_eq!(edit.meta["call_id"], "toolu_01JdS5uZ9vK3mM7nO1qR4tXy");
    assert_eq!(edit.key, "prt_a47c0d7b3005Zz1Aa2Bb3Cc4Dd.call");
    assert_eq!(files_changed(edit), ["/home/dev/ledger/ledger/core.py"]);
    assert!(
        files_changed(&entries[3]).is_empty(),
        "grep changes nothing"
    );
    assert_eq!(entries[6].content, "ledger/core.py", "no output: its title");
    assert_eq!(entries[6].meta["is_error"], false);
    let failed = &entries[8];
    assert_eq!(failed.meta["tool"], "edit");
    assert_eq!(failed.meta["is_error"], true);
    assert_eq!(failed.content, "Error: oldString not found in content");
    assert_eq!(failed.ts, time("2025-10-09T10:02:13.120Z"));
    assert_eq!(entries[12].meta["tool"], "bash");
    assert!(entries[12].content.contains("4 passed"));
}

#[test]
fn a_message_or_part_file_reads_as_its_session() {
    let whole = read_path(&storage().join(SESSION)).unwrap();
    for piece in [
        "message/ses_5b8d3f2a7ffe1Qx9LmN3pR7tVw/msg_a47c0d7b3001Hf6Jk1Pw9Qe2Rs.json",
        "part/msg_a47c0e4c9001Zt3Xc7Vb5Nm8Lk/prt_a47c0e4c9003Tt7Uu8Vv9Ww0Xx.json",
    ] {
        let path = storage().join(piece);
        assert!(reads(&path), "{piece}");
        assert_eq!(read_path(&path).unwrap(), whole, "{piece}");
    }
}

#[test]
fn the_database_is_read_whole() {
    let dir = tempfile::tempdir().unwrap();
    let path = database(dir.path());
    assert!(reads(&path));
    let reading = read_path(&path).unwrap();
    assert_eq!(
        read_path(&dir.path().join("opencode.db-wal")).unwrap(),
        reading,
        "its log"
    );
    let sessions = &reading.transcript.sessions;
    assert_eq!(sessions.len(), 2);
    let (first, entries) = &sessions[0];
    assert_eq!(first.id, "ses_4f2a9c31bffeR2d8Gh5Jk0Lm3N");
    assert_eq!(
        first.title, "Add a --format json option to the balance command",
        "not the placeholder"
    );
    assert_eq!(first.cwd.as_deref(), Some("/home/dev/ledger"));
    assert_eq!(first.model.as_deref(), Some("gpt-5-codex"));
    assert_eq!(
        (first.started, first.ended),
        (
            time("2025-11-20T10:02:11.020Z"),
            time("2025-11-20T10:03:15.020Z")
        )
    );
    use Channel::*;
    assert_eq!(
        channels(entries),
        [
            User, Thinking, ToolCall, ToolResult, ToolCall, ToolResult, Assistant, User, System
        ]
    );
    assert_eq!(files_changed(&entries[2]), ["ledger/cli/balance.py"]);
    assert_eq!(
        files_changed(&entries[4]),
        ["/home/dev/ledger/ledger/cli/render_json.py"]
    );
    assert_eq!(entries[8].content, "APIError: Overloaded");
    assert_eq!(entries[8].meta["is_error"], true);
    let (second, entries) = &sessions[1];
    assert_eq!(second.title, "Explain the ledger's rounding");
    assert_eq!(channels(entries), [User, Assistant]);
}

#[test]
fn what_is_wrong_with_a_store_is_said() {
    let dir = tempfile::tempdir().unwrap();
    let copy = storage_copy(dir.path());
    let part = copy.join("part/msg_a47c0d7b3001Hf6Jk1Pw9Qe2Rs/prt_a47c0d7b3004Uu7Vv8Ww9Xx0Yy.json");
    std::fs::write(&part, "{\"id\": ").unwrap();
    let error = read_path(&copy.join(SESSION)).unwrap_err().to_string();
    assert!(
        error.starts_with(
            "part/msg_a47c0d7b3001Hf6Jk1Pw9Qe2Rs/prt_a47c0d7b3004Uu7Vv8Ww9Xx0Yy.json: invalid JSON"
        ),
        "{error}"
    );
    std::fs::write(&part, r#"{"id": "prt_x", "type": "tool", "tool": "grep"}"#).unwrap();
    let error = read_path(&copy.join(SESSION)).unwrap_err().to_string();
    assert!(
        error.ends_with("prt_a47c0d7b3004Uu7Vv8Ww9Xx0Yy.json: a tool part has no `callID`"),
        "{error}"
    );

    let other = dir.path().join("other");
    std::fs::create_dir(&other).unwrap();
    let db = rusqlite::Connection::open(other.join("opencode.db")).unwrap();
    db.execute_batch("CREATE TABLE session (id text); CREATE TABLE message (id text);")
        .unwrap();
    let error = read_path(&other.join("opencode.db"))
        .unwrap_err()
        .to_string();
    assert_eq!(error, "not an OpenCode database: it has no `part` table");
}
