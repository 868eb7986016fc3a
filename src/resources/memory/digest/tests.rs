//! The digest of a fixture session (`tests/fixtures/digest/claude-code-digest.jsonl`): two
//! files edited, three commands of which one fails, one error, three decisions and two
//! pending items planted among a decoy, quoted and fenced cues, tool output, thinking and
//! injected context — and the shapes of other agents' commands and failures.

use serde_json::json;

use super::*;
use crate::model::Links;
use crate::model::transcript::SessionRecord;
use crate::resources::memory::summary;
use crate::store::memory::{EntryRow, SessionRow};

fn fixture() -> (SessionRecord, Vec<EntryRow>) {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/digest/claude-code-digest.jsonl"
    );
    let bytes = std::fs::read(path).unwrap();
    let mut transcript = crate::transcripts::read(&bytes, "claude-code-digest.jsonl").unwrap();
    let (record, entries) = transcript.sessions.remove(0);
    (record, rows(entries))
}

fn texts(list: &[Noted]) -> Vec<&str> {
    list.iter().map(|n| n.text.as_str()).collect()
}

#[test]
fn the_fixture_session_digests_to_exactly_what_it_did_and_said() {
    let (record, rows) = fixture();
    let digest = Digest::of(&rows, record.cwd.as_deref());
    assert_eq!(
        digest.files,
        ["src/ledger/accounts.py", "tests/test_accounts.py"]
    );
    let commands: Vec<(&str, bool)> = digest
        .commands
        .iter()
        .map(|c| (c.text.as_str(), c.failed))
        .collect();
    assert_eq!(
        commands,
        [
            ("grep -n \"def credit\" -A4 src/ledger/accounts.py", false),
            ("python -m pytest -q tests/test_accounts.py", true),
            ("python -m pytest -q", false),
        ]
    );
    assert_eq!(digest.failed(), 1);
    assert_eq!(
        texts(&digest.errors),
        ["E AssertionError: assert Decimal('-5.00') == Decimal('5.00')"]
    );
    assert_eq!(
        texts(&digest.decisions),
        [
            "We decided last week that amounts stay Decimal, never float.",
            "I chose to flip the sign in Account.credit instead of in parse_amount, because \
             parse_amount is shared with the CSV import.",
            "Agreed, and we rejected storing amounts as integer cents.",
        ]
    );
    assert_eq!(
        texts(&digest.pending),
        [
            "The CSV export of negative amounts is still pending: it is blocked on the dialect question.",
            "Next step: add a regression test for the CSV import.",
        ]
    );
    let everything = format!("{digest:?}");
    assert!(!everything.contains("matplotlib"), "the decoy is context");
    for seq in digest
        .decisions
        .iter()
        .chain(&digest.pending)
        .map(|n| n.seq)
    {
        let entry = &rows[seq as usize - 1].record;
        assert!(
            matches!(entry.channel, Channel::User | Channel::Assistant),
            "each sentence names the entry it was said in"
        );
    }
}

#[test]
fn the_extracted_summary_passes_the_check_and_links_project_files() {
    let (record, rows) = fixture();
    let digest = Digest::of(&rows, record.cwd.as_deref());
    let project = tempfile::tempdir().unwrap();
    for file in ["src/ledger/__init__.py", "src/ledger/accounts.py"] {
        std::fs::create_dir_all(project.path().join(file).parent().unwrap()).unwrap();
        std::fs::write(project.path().join(file), "X = 1\n").unwrap();
    }
    let places = SourcePlaces::of(project.path());
    let row = SessionRow {
        rowid: 1,
        record,
        day: "2025-11-05".into(),
        entries: rows.len(),
        summary: None,
    };
    let links = Links::new("/mnt/hs");
    let text = view::extracted(&digest, &row, &places, &links);
    assert!(
        summary::check("summary.md", text.as_bytes()).is_ok(),
        "{text}"
    );
    assert!(text.contains(view::EXTRACTED));
    assert!(
        text.contains("- `/mnt/hs/source/ledger/accounts.py`"),
        "{text}"
    );
    assert!(
        text.contains("- tests/test_accounts.py (not under source/)"),
        "a file the project lacks is plain text: {text}"
    );
    assert!(text.contains("Commands: 3 run, 1 failed:"));
    let decisions = text
        .split("## Key Decisions & Context\n")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .unwrap();
    assert_eq!(decisions.lines().count(), 3, "{decisions}");
    // How it went is told from the same entries: their number, the commands' outcome.
    let how = text.split("## How It Went\n").nth(1).unwrap();
    assert!(how.starts_with(&format!("{} entries", rows.len())), "{how}");
    assert!(how.contains("The last command, `"), "{how}");
    assert_eq!(view::unmarked(&text).matches(view::EXTRACTED).count(), 0);
}

fn entry(channel: Channel, content: &str, meta: serde_json::Value) -> EntryRecord {
    EntryRecord {
        key: content.into(),
        ts: None,
        channel,
        content: content.into(),
        tags: Vec::new(),
        meta: meta.try_into().unwrap(),
    }
}

fn rows(entries: Vec<EntryRecord>) -> Vec<EntryRow> {
    entries
        .into_iter()
        .enumerate()
        .map(|(i, record)| EntryRow {
            seq: i as i64 + 1,
            record,
        })
        .collect()
}

#[test]
fn codex_and_chat_export_commands_and_failures_are_read_as_they_write_them() {
    let entries = rows(vec![
        entry(
            Channel::ToolCall,
            r#"shell {"command":["bash","-lc","pytest -q"]}"#,
            json!({"tool": "shell", "call_id": "c1"}),
        ),
        entry(
            Channel::ToolCall,
            "local_shell ls -la",
            json!({"tool": "local_shell", "call_id": "c2"}),
        ),
        entry(
            Channel::ToolResult,
            r#"{"output":"ls: cannot access 'x': No such file or directory\n","metadata":{"exit_code":2}}"#,
            json!({"tool": "local_shell", "call_id": "c2"}),
        ),
        entry(
            Channel::ToolResult,
            "Exit code: 1\nWall time: 0.4 seconds\nOutput:\n1 failed, 3 passed",
            json!({"tool": "shell", "call_id": "c1"}),
        ),
        entry(
            Channel::ToolCall,
            "run_command cargo build",
            json!({"tool": "run_command"}),
        ),
        entry(Channel::ToolResult, "Finished", json!({"role": "tool"})),
        entry(
            Channel::ToolCall,
            r#"Read {"file_path":"a.py"}"#,
            json!({"tool": "Read", "tool_use_id": "t9"}),
        ),
        entry(
            Channel::ToolResult,
            "<tool_use_error>File does not exist.</tool_use_error>",
            json!({"tool": "Read", "tool_use_id": "t9", "is_error": true}),
        ),
        entry(
            Channel::System,
            "stream disconnected before completion",
            json!({"level": "error"}),
        ),
    ]);
    let digest = Digest::of(&entries, None);
    let commands: Vec<(&str, bool)> = digest
        .commands
        .iter()
        .map(|c| (c.text.as_str(), c.failed))
        .collect();
    assert_eq!(
        commands,
        [
            ("pytest -q", true),
            ("ls -la", true),
            ("cargo build", false)
        ]
    );
    assert_eq!(
        texts(&digest.errors),
        [
            "ls: cannot access 'x': No such file or directory",
            "1 failed, 3 passed",
            "File does not exist.",
            "stream disconnected before completion",
        ]
    );
}
