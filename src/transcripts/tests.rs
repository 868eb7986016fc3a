//! The readers on the fixture files of `tests/fixtures/transcripts/`: realistic files of
//! each format, a resumed Claude Code session and a file with three bad lines.

use std::collections::HashSet;

use serde_json::json;

use super::*;
use crate::model::transcript::{Channel, EntryRecord, SessionRecord};
use crate::store::memory::testing::time;

const CLAUDE: &[u8] = include_bytes!("../../tests/fixtures/transcripts/claude-code-session.jsonl");
const RESUMED: &[u8] = include_bytes!("../../tests/fixtures/transcripts/claude-code-resumed.jsonl");
const CODEX_NAME: &str = "rollout-2025-09-14T08-12-03-0199441c-7a3e-7b21-9c4d-5e6f7a8b9c0d.jsonl";
const CODEX: &[u8] = include_bytes!(
    "../../tests/fixtures/transcripts/rollout-2025-09-14T08-12-03-0199441c-7a3e-7b21-9c4d-5e6f7a8b9c0d.jsonl"
);
const GENERIC: &[u8] = include_bytes!("../../tests/fixtures/transcripts/generic.jsonl");
const BAD: &[u8] = include_bytes!("../../tests/fixtures/transcripts/bad.jsonl");

fn only_session(bytes: &[u8], name: &str) -> (SessionRecord, Vec<EntryRecord>) {
    let mut transcript = read(bytes, name).unwrap();
    assert_eq!(transcript.sessions.len(), 1, "{:#?}", transcript.sessions);
    transcript.sessions.remove(0)
}

fn channels(entries: &[EntryRecord]) -> Vec<Channel> {
    entries.iter().map(|e| e.channel).collect()
}

fn keys(entries: &[EntryRecord]) -> Vec<&str> {
    entries.iter().map(|e| e.key.as_str()).collect()
}

#[test]
fn formats_are_recognised_from_content_alone() {
    assert_eq!(format_of(CLAUDE), Some(Format::ClaudeCode));
    assert_eq!(format_of(RESUMED), Some(Format::ClaudeCode));
    assert_eq!(format_of(CODEX), Some(Format::Codex));
    assert_eq!(format_of(GENERIC), Some(Format::Jsonl));
    assert_eq!(format_of(BAD), Some(Format::Jsonl));
    assert_eq!(format_of(b""), None);
    assert_eq!(format_of(b"{\n  \"name\": \"ledger\"\n}\n"), None);
    assert_eq!(format_of(b"{\"version\": 1, \"entries\": []}"), None);
    // The name says nothing: a Codex rollout under a Claude-looking name is still Codex.
    let reading = read_counted(CODEX, "7c1e0f52.jsonl").unwrap();
    assert_eq!(reading.format, Some(Format::Codex));
}

#[test]
fn claude_code_session() {
    let reading = read_counted(CLAUDE, "7c1e0f52-3b8e-4d7a-9f61-2a5c8e4b9d10.jsonl").unwrap();
    assert_eq!(
        reading.ignored, 2,
        "the file-history snapshot and the queue operation"
    );
    let (session, entries) = &reading.transcript.sessions[0];
    assert_eq!(reading.transcript.sessions.len(), 1);
    assert_eq!(session.id, "7c1e0f52-3b8e-4d7a-9f61-2a5c8e4b9d10");
    assert_eq!(session.source, "claude-code");
    assert_eq!(
        session.title,
        "Fix negative amounts in credit account balances"
    );
    assert_eq!(session.cwd.as_deref(), Some("/home/dev/ledger"));
    assert_eq!(session.model.as_deref(), Some("claude-sonnet-4-5-20250929"));
    assert_eq!(
        (session.started, session.ended),
        (
            time("2025-10-02T14:03:11.204Z"),
            time("2025-10-02T14:05:09.441Z")
        )
    );
    assert_eq!(session.continuation_of, None);
    use Channel::*;
    assert_eq!(
        channels(entries),
        [
            Summary, User, Thinking, Assistant, ToolCall, ToolResult, ToolCall, User, Assistant,
            ToolResult, ToolCall, ToolResult, System, System, Assistant
        ]
    );
    let p = |n: u32| format!("1f0c{n:04}-5b2e-4c8a-9d3f-6e7a8b9c0d{n:02}");
    assert_eq!(
        entries[1].key,
        p(1),
        "a string message is keyed by its uuid"
    );
    assert_eq!(entries[2].key, format!("{}#1", p(2)), "blocks by uuid#n");
    assert!(
        entries[0].key.ends_with("-1"),
        "a summary has no uuid: line-hash key"
    );
    assert_eq!(entries[0].meta["leafUuid"], p(14));

    let bash = &entries[4];
    assert!(
        bash.content.starts_with("Bash {\"command\":\"grep -n"),
        "{}",
        bash.content
    );
    assert_eq!(bash.meta["tool"], "Bash");
    assert_eq!(bash.meta["tool_use_id"], "toolu_01Gk2mWq8sTn4Lp6Yb3Vc5Xd");
    let result = &entries[5];
    assert!(
        result
            .content
            .starts_with("41:    def debit(self, amount):")
    );
    assert_eq!(result.meta["tool"], "Bash");
    assert_eq!(result.meta["is_error"], false);
    assert_eq!(result.meta["parentUuid"], p(4));

    let sidechain: Vec<&EntryRecord> = entries.iter().filter(|e| e.tags == ["sidechain"]).collect();
    assert_eq!(sidechain.len(), 2);
    assert!(sidechain.iter().all(|e| e.meta["isSidechain"] == true));
    assert_eq!(entries[1].meta["isSidechain"], false);

    let failed_edit = &entries[11];
    assert_eq!(failed_edit.meta["is_error"], true);
    assert_eq!(failed_edit.meta["tool"], "Edit");
    assert_eq!(entries[12].meta["subtype"], "informational");
    assert_eq!(entries[12].meta["level"], "warning");
    assert_eq!(
        entries[13].meta["isMeta"], true,
        "isMeta user text is system"
    );
    assert_eq!(entries[14].meta["model"], "claude-sonnet-4-5-20250929");
    assert_eq!(entries[14].ts, time("2025-10-02T14:05:09.441Z"));
}

#[test]
fn a_resumed_claude_code_session_repeats_the_keys_of_the_one_it_continues() {
    let (first, first_entries) = only_session(CLAUDE, "first.jsonl");
    let (resumed, entries) = only_session(RESUMED, "second.jsonl");
    assert_eq!(resumed.id, "b3d94f0e-6a2c-4e15-8c7d-91f0a2e6c5b4");
    assert_eq!(
        resumed.title,
        "Negative amounts: debit and credit both fixed"
    );
    assert_eq!(
        resumed.started, first.started,
        "the copied entries keep their times"
    );
    assert_eq!(resumed.ended, time("2025-10-03T09:12:49.880Z"));
    let old: HashSet<&str> = keys(&first_entries).into_iter().collect();
    let repeated: Vec<&str> = keys(&entries)
        .into_iter()
        .filter(|k| old.contains(k))
        .collect();
    let p = |n: u32| format!("1f0c{n:04}-5b2e-4c8a-9d3f-6e7a8b9c0d{n:02}");
    assert_eq!(
        repeated,
        [
            p(1),
            format!("{}#1", p(2)),
            format!("{}#1", p(3)),
            format!("{}#1", p(4))
        ]
    );
    let new: Vec<&EntryRecord> = entries
        .iter()
        .filter(|e| !old.contains(e.key.as_str()))
        .collect();
    assert_eq!(
        channels(&new.iter().map(|e| (*e).clone()).collect::<Vec<_>>()),
        [
            Channel::Summary,
            Channel::User,
            Channel::Thinking,
            Channel::Assistant,
            Channel::ToolCall,
            Channel::ToolResult
        ]
    );
}

#[test]
fn a_session_continuing_another_in_the_same_file_says_so() {
    let parent = json!({"type": "user", "uuid": "u1", "sessionId": "s-1", "parentUuid": null,
        "timestamp": "2025-10-02T14:00:00Z", "message": {"role": "user", "content": "start"}});
    let child = json!({"type": "user", "uuid": "u2", "sessionId": "s-2", "parentUuid": "u1",
        "timestamp": "2025-10-03T14:00:00Z", "message": {"role": "user", "content": "go on"}});
    let text = format!("{parent}\n{child}\n");
    let transcript = read(text.as_bytes(), "x.jsonl").unwrap();
    let continued: Vec<Option<&str>> = transcript
        .sessions
        .iter()
        .map(|(s, _)| s.continuation_of.as_deref())
        .collect();
    assert_eq!(continued, [None, Some("s-1")]);
}

#[test]
fn codex_rollout() {
    let reading = read_counted(CODEX, CODEX_NAME).unwrap();
    let (session, entries) = &reading.transcript.sessions[0];
    assert_eq!(session.id, "0199441c-7a3e-7b21-9c4d-5e6f7a8b9c0d");
    assert_eq!(session.source, "codex");
    assert_eq!(session.cwd.as_deref(), Some("/home/dev/ledger"));
    assert_eq!(session.model.as_deref(), Some("gpt-5-codex"));
    assert_eq!(
        (session.started, session.ended),
        (
            time("2025-09-14T08:12:03.498Z"),
            time("2025-09-14T08:13:02.100Z")
        )
    );
    assert_eq!(
        session.title,
        "Why does Ledger.transfer fail with two currencies? Make it raise a clear error instead."
    );
    use Channel::*;
    assert_eq!(
        channels(entries),
        [
            System, System, System, User, Thinking, ToolCall, ToolResult, ToolCall, ToolResult,
            ToolCall, ToolResult, Assistant, System
        ]
    );
    // Skipped: the four events repeating response items, token_count, the encrypted-only
    // reasoning, exec_command_end and task_complete.
    assert_eq!(reading.ignored, 7);
    let meta = &entries[0].meta;
    assert_eq!(meta["originator"], "codex_cli_rs");
    assert_eq!(meta["cli_version"], "0.36.0");
    assert_eq!(meta["git"]["branch"], "main");
    assert!(entries[0].content.contains("started in /home/dev/ledger"));
    assert_eq!(
        entries[1].meta["injected"], true,
        "<user_instructions> is context"
    );
    assert_eq!(
        entries[2].meta["injected"], true,
        "<environment_context> is context"
    );
    assert!(entries[4].content.starts_with("**Locating transfer**"));
    assert!(
        entries[5]
            .content
            .starts_with("shell {\"command\":[\"bash\",\"-lc\",\"sed")
    );
    assert_eq!(entries[5].meta["call_id"], "call_Xy7Qk2Lm9Np4Rs1Tu6Vw3Za");
    assert_eq!(entries[6].meta["tool"], "shell");
    assert!(
        entries[7]
            .content
            .starts_with("apply_patch *** Begin Patch")
    );
    assert_eq!(entries[8].meta["tool"], "apply_patch");
    assert_eq!(entries[10].meta["is_error"], true);
    assert!(entries[10].content.contains("NameError"));
    assert_eq!(entries[11].meta["phase"], "final_answer");
    assert_eq!(entries[12].content, "turn aborted: interrupted");
    assert!(entries.iter().all(|e| e.ts.is_some()));
}

#[test]
fn generic_jsonl() {
    let (session, entries) = only_session(GENERIC, "tests/fixtures/transcripts/generic.jsonl");
    assert_eq!(session.id, "pairing-2025-11-03");
    assert_eq!(session.source, "jsonl");
    assert_eq!(session.title, "Pairing: ledger CSV export");
    assert_eq!(session.cwd.as_deref(), Some("/home/dev/ledger"));
    assert_eq!(session.model.as_deref(), Some("local-llm"));
    assert_eq!(
        (session.started, session.ended),
        (time("2025-11-03T14:00:00Z"), time("2025-11-03T14:00:20Z"))
    );
    use Channel::*;
    assert_eq!(
        channels(&entries),
        [User, Assistant, ToolCall, ToolResult, Assistant, Assistant]
    );
    assert_eq!(entries[0].tags, ["export", "csv"]);
    assert_eq!(
        entries[1].content,
        "I'll add Ledger.to_csv().\n\nIt writes account, debit, credit."
    );
    assert_eq!(entries[2].ts, time("2025-11-03T14:00:10Z"));
    assert_eq!(entries[3].ts, time("2025-11-03T14:00:12.500Z"));
    assert_eq!(entries[2].meta["tool"], "shell");
    // Two identical lines are two entries: same hash, another occurrence.
    let (a, b) = (&entries[4].key, &entries[5].key);
    assert_eq!(a.strip_suffix("-1"), b.strip_suffix("-2"));
}

#[test]
fn reading_twice_gives_identical_keys() {
    for (bytes, name) in [
        (CLAUDE, "a.jsonl"),
        (RESUMED, "b.jsonl"),
        (CODEX, CODEX_NAME),
        (GENERIC, "g.jsonl"),
    ] {
        let first = read(bytes, name).unwrap();
        let second = read(bytes, name).unwrap();
        assert_eq!(first, second, "{name}");
        for (_, entries) in &first.sessions {
            let unique: HashSet<&str> = keys(entries).into_iter().collect();
            assert_eq!(unique.len(), entries.len(), "{name}: keys are unique");
        }
        // A file that grew keeps the keys of what it had.
        let text = String::from_utf8_lossy(bytes);
        let half: Vec<&str> = text.lines().take(text.lines().count() / 2).collect();
        let earlier = read(half.join("\n").as_bytes(), name).unwrap();
        let all: HashSet<&str> = first
            .sessions
            .iter()
            .flat_map(|(_, entries)| keys(entries))
            .collect();
        for (_, entries) in &earlier.sessions {
            for key in keys(entries) {
                assert!(
                    all.contains(key),
                    "{name}: {key} is gone once the file grew"
                );
            }
        }
        assert!(!earlier.sessions.is_empty(), "{name}");
    }
}

#[test]
fn the_bad_file_is_refused_with_exactly_its_bad_lines() {
    let error = read(BAD, "bad.jsonl").unwrap_err();
    let numbers: Vec<usize> = error.bad_lines.iter().map(|(n, _)| *n).collect();
    assert_eq!(numbers, [3, 5, 8]);
    assert_eq!(error.more, 0);
    assert!(error.bad_lines[0].1.starts_with("invalid JSON"), "{error}");
    assert_eq!(error.bad_lines[1].1, "no `content`");
    assert!(
        error.bad_lines[2]
            .1
            .starts_with("unknown role \"narrator\"")
    );
    assert_eq!(error.count(), 3);
    let shown = error.to_string();
    assert!(
        shown.starts_with("3 bad lines: line 3: invalid JSON"),
        "{shown}"
    );
}

#[test]
fn a_file_of_no_known_format_is_read_as_generic_so_its_lines_say_what_is_wrong() {
    let error = read(b"{\"version\": 1}\nnot json\n", "x.jsonl").unwrap_err();
    let numbers: Vec<usize> = error.bad_lines.iter().map(|(n, _)| *n).collect();
    assert_eq!(numbers, [1, 2]);
    assert_eq!(error.bad_lines[0].1, "no `role` or `channel`");
    assert_eq!(read(b"", "empty.jsonl").unwrap().sessions.len(), 0);
}

#[test]
fn many_bad_lines_list_twenty_and_count_the_rest() {
    let text = "oops\n".repeat(25);
    let error = read(text.as_bytes(), "x.jsonl").unwrap_err();
    assert_eq!(error.bad_lines.len(), MAX_LISTED);
    assert_eq!(error.more, 5);
    assert_eq!(error.count(), 25);
    assert!(error.to_string().ends_with("; and 5 more"));
}
