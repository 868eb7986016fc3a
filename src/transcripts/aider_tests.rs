//! Aider's chat history on a fixture written the way aider's `io.py` appends to it: two
//! sessions, edits, a `/run`, and a quote inside the assistant's reply.

use std::collections::HashSet;
use std::path::Path;

use crate::model::transcript::{Channel, EntryRecord};
use crate::store::memory::testing::time;
use crate::store::memory::touched::files_changed;
use crate::transcripts::{Format, format_of, placed, read, read_counted};

const HISTORY: &[u8] =
    include_bytes!("../../tests/fixtures/transcripts/aider/.aider.chat.history.md");
const PATH: &str = "/home/dev/ledger/.aider.chat.history.md";

fn channels(entries: &[EntryRecord]) -> Vec<Channel> {
    entries.iter().map(|e| e.channel).collect()
}

#[test]
fn the_history_is_recognised_by_its_first_heading() {
    assert_eq!(format_of(HISTORY), Some(Format::Aider));
    assert_eq!(
        read_counted(HISTORY, "notes.md").unwrap().format,
        Some(Format::Aider)
    );
    assert_eq!(
        format_of(b"# Notes\n\n# aider chat started at 2025-09-03 14:21:07\n"),
        None
    );
}

#[test]
fn sessions_inputs_replies_edits_and_commands() {
    let transcript = read(HISTORY, PATH).unwrap();
    assert_eq!(transcript.sessions.len(), 2);
    let (first, entries) = &transcript.sessions[0];
    assert_eq!(first.id, "aider-2025-09-03-14-21-07");
    assert_eq!(first.source, "aider");
    assert_eq!(
        first.title,
        "Round cents half to even instead of half up: the bank's statements do it that way."
    );
    assert_eq!(
        first.cwd, None,
        "the content does not say where it was written"
    );
    let reading = placed(read_counted(HISTORY, PATH).unwrap(), Path::new(PATH));
    assert_eq!(
        reading.transcript.sessions[1].0.cwd.as_deref(),
        Some("/home/dev/ledger")
    );
    assert_eq!(
        first.model.as_deref(),
        Some("anthropic/claude-sonnet-4-20250514")
    );
    assert_eq!(
        (first.started, first.ended),
        (time("2025-09-03T14:21:07Z"), time("2025-09-03T14:21:07Z"))
    );
    use Channel::*;
    let startup = [ToolResult; 6];
    let rest = [
        User, ToolResult, User, Assistant, ToolResult, ToolCall, ToolResult, ToolResult, User,
        ToolCall, ToolResult, ToolResult, User, Assistant, ToolResult, ToolCall, ToolResult,
        ToolResult,
    ];
    assert_eq!(channels(entries), [&startup[..], &rest[..]].concat());
    let input = &entries[8];
    assert_eq!(
        input.content,
        "Round cents half to even instead of half up:\nthe bank's statements do it that way."
    );
    let reply = &entries[9];
    assert!(reply.content.starts_with("I'll switch `round_cents`"));
    assert!(
        reply
            .content
            .ends_with("> Note: `ROUND_HALF_EVEN` is already imported from `decimal`."),
        "a quote in the reply stays in it: {}",
        reply.content
    );
    let edit = &entries[11];
    assert_eq!(edit.content, r#"edit {"file_path":"ledger/money.py"}"#);
    assert_eq!(edit.meta["tool"], "edit");
    assert_eq!(files_changed(edit), ["ledger/money.py"]);
    assert_eq!(entries[12].content, "Applied edit to ledger/money.py");
    assert_eq!(entries[12].meta["tool"], "edit");
    assert_eq!(entries[12].meta["call_id"], edit.meta["call_id"]);
    assert_eq!(entries[12].meta["is_error"], false);
    let run = &entries[15];
    assert_eq!(
        run.content,
        r#"run {"command":"python -m pytest -q tests/test_money.py"}"#
    );
    assert_eq!(entries[16].meta["tool"], "run");
    assert_eq!(entries[16].meta["call_id"], run.meta["call_id"]);
    assert_eq!(entries[13].meta["tool"], "aider");
    assert!(entries.iter().all(|e| e.ts == time("2025-09-03T14:21:07Z")));

    let (second, entries) = &transcript.sessions[1];
    assert_eq!(second.id, "aider-2025-09-04-09-02-44");
    assert_eq!(
        second.title,
        "Why does the report show -0.00 for empty accounts?"
    );
    assert_eq!(
        channels(entries),
        [
            ToolResult, ToolResult, ToolResult, User, Assistant, ToolResult
        ]
    );
}

#[test]
fn keys_hold_while_the_history_grows() {
    let keys = |bytes: &[u8]| -> HashSet<String> {
        read(bytes, PATH)
            .unwrap()
            .sessions
            .iter()
            .flat_map(|(_, entries)| entries.iter().map(|e| e.key.clone()))
            .collect()
    };
    let all = keys(HISTORY);
    let text = String::from_utf8_lossy(HISTORY);
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    for cut in [12, 30, lines.len() - 3] {
        let earlier = keys(lines[..cut].concat().as_bytes());
        assert!(!earlier.is_empty());
        assert!(earlier.is_subset(&all), "cut at line {cut}");
    }
}

#[test]
fn a_malformed_history_is_refused_saying_what_is_wrong() {
    let text = String::from_utf8_lossy(HISTORY).replace("2025-09-04 09:02:44", "yesterday");
    let error = read(text.as_bytes(), PATH).unwrap_err();
    assert_eq!(error.bad_lines.len(), 1, "{error}");
    let (line, reason) = &error.bad_lines[0];
    assert_eq!(*line, 58);
    assert!(
        reason.starts_with("the session's start \"yesterday\" is no time"),
        "{reason}"
    );
}
