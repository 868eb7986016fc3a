//! Gemini CLI on fixtures shaped like its files: a whole-document session of the versions
//! before the JSONL log, and a JSONL log whose tool call is appended twice (running, then
//! with its result).

use std::collections::HashSet;

use crate::model::transcript::{Channel, EntryRecord};
use crate::store::memory::testing::time;
use crate::store::memory::touched::files_changed;
use crate::transcripts::{Format, format_of, read, read_counted};

use super::placed;

const DOCUMENT_NAME: &str = "session-2025-10-20T09-14-3f2a9c1e.json";
const LOG_NAME: &str = "session-2025-11-05T16-40-8d1e4b27.jsonl";
const DOCUMENT: &[u8] = include_bytes!(
    "../../tests/fixtures/transcripts/gemini/session-2025-10-20T09-14-3f2a9c1e.json"
);
const LOG: &[u8] = include_bytes!(
    "../../tests/fixtures/transcripts/gemini/session-2025-11-05T16-40-8d1e4b27.jsonl"
);

fn channels(entries: &[EntryRecord]) -> Vec<Channel> {
    entries.iter().map(|e| e.channel).collect()
}

#[test]
fn both_shapes_are_recognised_from_content() {
    assert_eq!(format_of(DOCUMENT), Some(Format::GeminiCli));
    assert_eq!(format_of(LOG), Some(Format::GeminiCli));
    assert_eq!(
        read_counted(DOCUMENT, "x.json").unwrap().format,
        Some(Format::GeminiCli)
    );
    assert_eq!(
        read_counted(LOG, "x.jsonl").unwrap().format,
        Some(Format::GeminiCli)
    );
}

#[test]
fn a_whole_document_session() {
    let transcript = read(DOCUMENT, DOCUMENT_NAME).unwrap();
    assert_eq!(transcript.sessions.len(), 1);
    let (session, entries) = &transcript.sessions[0];
    assert_eq!(session.id, "3f2a9c1e-6b7d-4e21-9a8f-0c5d2e7b4a19");
    assert_eq!(session.source, "gemini-cli");
    assert_eq!(
        session.title,
        "Keep zero-balance accounts in the CSV export"
    );
    assert_eq!(
        session.cwd, None,
        "Gemini CLI records only a hash of the project"
    );
    assert_eq!(session.model.as_deref(), Some("gemini-2.5-pro"));
    assert_eq!(
        (session.started, session.ended),
        (
            time("2025-10-20T09:14:02.311Z"),
            time("2025-10-20T09:16:48.902Z")
        )
    );
    use Channel::*;
    assert_eq!(
        channels(entries),
        [
            User, Thinking, ToolCall, ToolResult, Assistant, ToolCall, ToolResult, ToolCall,
            ToolResult, System, Assistant
        ]
    );
    assert_eq!(
        entries[1].content,
        "**Locating the export** I'll read ledger/export.py to see how rows are filtered."
    );
    let replace = &entries[5];
    assert!(
        replace.content.starts_with("replace {"),
        "{}",
        replace.content
    );
    assert_eq!(replace.meta["tool"], "replace");
    assert_eq!(
        replace.meta["call_id"],
        "replace-1760951721405-77ad0c3e21b9f"
    );
    assert_eq!(
        files_changed(replace),
        ["/home/dev/ledger/ledger/export.py"]
    );
    assert!(
        files_changed(&entries[2]).is_empty(),
        "a read changes nothing"
    );
    assert_eq!(entries[6].meta["tool"], "replace");
    assert_eq!(entries[6].meta["is_error"], false);
    assert!(entries[6].content.starts_with("Successfully modified file"));
    let failed = &entries[8];
    assert_eq!(failed.meta["tool"], "run_shell_command");
    assert_eq!(failed.meta["is_error"], true);
    assert!(
        failed.content.contains("exited with code 1"),
        "{}",
        failed.content
    );
    assert_eq!(failed.ts, time("2025-10-20T09:15:41.530Z"));
    assert_eq!(entries[9].meta["level"], "info");
}

#[test]
fn a_jsonl_log_keeps_the_last_version_of_each_message() {
    let reading = read_counted(LOG, LOG_NAME).unwrap();
    let (session, entries) = &reading.transcript.sessions[0];
    assert_eq!(session.id, "8d1e4b27-0f3a-4c6d-b5e9-2a7c1f0d3e58");
    assert_eq!(session.title, "Add --since to the report command");
    assert_eq!(session.model.as_deref(), Some("gemini-2.5-flash"));
    assert_eq!(
        (session.started, session.ended),
        (
            time("2025-11-05T16:40:11.020Z"),
            time("2025-11-05T16:41:02.641Z")
        )
    );
    use Channel::*;
    assert_eq!(
        channels(entries),
        [User, Thinking, ToolCall, ToolResult, Assistant, System]
    );
    assert_eq!(
        entries[0].content,
        "Add a --since option to the report command"
    );
    let write = &entries[2];
    assert_eq!(write.meta["tool"], "write_file");
    assert_eq!(
        files_changed(write),
        ["/home/dev/ledger/ledger/cli/report.py"]
    );
    assert!(
        entries[3]
            .content
            .starts_with("Successfully overwrote file")
    );
    assert_eq!(entries[5].meta["level"], "error");
}

#[test]
fn keys_hold_while_the_log_grows_and_the_document_is_rewritten() {
    let keys = |bytes: &[u8], name: &str| -> HashSet<String> {
        read(bytes, name).unwrap().sessions[0]
            .1
            .iter()
            .map(|e| e.key.clone())
            .collect()
    };
    let all = keys(LOG, LOG_NAME);
    assert_eq!(all.len(), 6);
    let text = String::from_utf8_lossy(LOG);
    // Cut just after the tool call was first written, still running: no result yet.
    let early: Vec<&str> = text.lines().take(4).collect();
    let before = keys(early.join("\n").as_bytes(), LOG_NAME);
    assert_eq!(before.len(), 3, "{before:?}");
    assert!(before.is_subset(&all));
    // The document rewritten with one message fewer keeps the keys of the rest.
    let mut document: serde_json::Value = serde_json::from_slice(DOCUMENT).unwrap();
    document["messages"].as_array_mut().unwrap().pop();
    let shorter = serde_json::to_vec_pretty(&document).unwrap();
    assert!(keys(&shorter, DOCUMENT_NAME).is_subset(&keys(DOCUMENT, DOCUMENT_NAME)));
}

#[test]
fn a_malformed_session_is_refused_saying_what_is_wrong() {
    let cut = &DOCUMENT[..DOCUMENT.len() / 2];
    let error = read(cut, DOCUMENT_NAME).unwrap_err().to_string();
    assert!(
        error.starts_with("a Gemini CLI session that is not whole JSON: EOF"),
        "{error}"
    );

    let mut document: serde_json::Value = serde_json::from_slice(DOCUMENT).unwrap();
    document["messages"][1]
        .as_object_mut()
        .unwrap()
        .remove("type");
    let error = read(
        &serde_json::to_vec_pretty(&document).unwrap(),
        DOCUMENT_NAME,
    )
    .unwrap_err()
    .to_string();
    assert!(error.starts_with("message 2: no `type`"), "{error}");

    let log = String::from_utf8_lossy(LOG).replace(
        r#""timestamp":"2025-11-05T16:40:35.007Z""#,
        r#""timestamp":"yesterday""#,
    );
    let error = read(log.as_bytes(), LOG_NAME).unwrap_err();
    assert_eq!(error.bad_lines.len(), 1);
    assert_eq!(error.bad_lines[0].0, 7);
    assert!(error.bad_lines[0].1.starts_with("`timestamp`:"), "{error}");
}

#[test]
fn a_session_in_a_named_project_folder_takes_its_cwd_from_project_root() {
    let dir = tempfile::tempdir().unwrap();
    let cwd_at = |folder: &str| {
        let path = dir.path().join(folder).join("chats").join(LOG_NAME);
        placed(read_counted(LOG, LOG_NAME).unwrap(), &path)
            .transcript
            .sessions[0]
            .0
            .cwd
            .clone()
    };
    std::fs::create_dir_all(dir.path().join("ledger/chats")).unwrap();
    std::fs::write(
        dir.path().join("ledger/.project_root"),
        "/home/dev/ledger\n",
    )
    .unwrap();
    assert_eq!(cwd_at("ledger").as_deref(), Some("/home/dev/ledger"));
    assert_eq!(
        cwd_at("9b0c4f6e"),
        None,
        "older versions' hash-named folders have none"
    );
}
