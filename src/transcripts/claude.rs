//! Claude Code session files (`~/.claude/projects/<project>/<session>.jsonl`, and their
//! subagents' `agent-*.jsonl`).
//!
//! Records by `type`:
//! - `user` / `assistant`: `uuid`, `sessionId`, `timestamp`, `parentUuid`, `cwd`,
//!   `isSidechain`, `message` (`content` a string or blocks; `model` for the assistant).
//!   Blocks: `text` (user, assistant — or system for `isMeta` messages, summary for
//!   `isCompactSummary` ones), `thinking` → thinking, `tool_use` → tool_call (`name` and
//!   the input as JSON), `tool_result` → tool_result (its text; `is_error` in meta). Other
//!   blocks (images, redacted thinking) are not entries.
//! - `system`: its `content` → system (`subtype`, `level` in meta); without content, none.
//! - `summary`: `summary` and `leafUuid` → summary, in the session holding that uuid (else
//!   the file's first session; none when the file has no messages), and titles it.
//! - `custom-title`: `customTitle` titles its session.
//! - anything else (`file-history-snapshot`, `queue-operation`, `progress`, …): skipped
//!   and counted, never bad — new kinds appear with new versions of the tool.
//!
//! Keys: the record's `uuid`; with content blocks, `uuid#n` for the n-th block (from 1).
//! Records without a uuid (summaries) get the line-hash key. Entries of sidechain records
//! are tagged `sidechain`. A session whose first record's `parentUuid` is a uuid of another
//! session in the same file continues that session (`continuation_of`).

use std::collections::HashMap;

use serde_json::{Map, Value, json};

use crate::model::Meta;
use crate::model::transcript::{Channel, EntryRecord};

use super::line_reader::LineReader;
use super::lines::{BadLines, Line, LineKeys, kind, required, str_of};
use super::sessions::Sessions;
use super::text;
use super::time::{Stamp, stamp};

/// The tool's name for itself in `SessionRecord::source`.
pub const SOURCE: &str = "claude-code";

/// The record kinds this reader turns into entries or session fields.
pub const KNOWN_TYPES: [&str; 5] = ["user", "assistant", "system", "summary", "custom-title"];

/// What the whole file says before any entry is made.
#[derive(Default)]
struct FileFacts {
    /// uuid → raw session id, for summaries and continuations.
    session_of: HashMap<String, String>,
    /// Raw session ids in order of their first record, with that record's `parentUuid`.
    first_parent: Vec<(String, Option<String>)>,
}

impl FileFacts {
    /// Notes what `lines` say (the next lines of the file, in order).
    fn add(&mut self, lines: &[Line<'_>]) {
        for line in lines {
            let o = &line.object;
            let message = matches!(str_of(o, "type"), Some("user" | "assistant" | "system"));
            let (Some(uuid), Some(session)) = (str_of(o, "uuid"), str_of(o, "sessionId")) else {
                continue;
            };
            if !message {
                continue;
            }
            if !self.first_parent.iter().any(|(s, _)| s == session) {
                let parent = str_of(o, "parentUuid").map(str::to_string);
                self.first_parent.push((session.to_string(), parent));
            }
            self.session_of
                .entry(uuid.to_string())
                .or_insert_with(|| session.to_string());
        }
    }
}

/// What one message or block makes: an entry's channel, content and meta.
type Piece = (Channel, String, Meta);

/// State carried from line to line, and from one part of a growing file to the next.
pub struct Reader {
    sessions: Sessions,
    facts: FileFacts,
    keys: LineKeys,
    /// tool_use id → tool name, so a result can say which tool it answers.
    tools: HashMap<String, String>,
}

impl Default for Reader {
    fn default() -> Reader {
        Reader::new()
    }
}

impl Reader {
    pub fn new() -> Reader {
        Reader {
            sessions: Sessions::new(SOURCE).resumed_by_copy(),
            facts: FileFacts::default(),
            keys: LineKeys::default(),
            tools: HashMap::new(),
        }
    }
}

pub fn read(lines: &[Line<'_>], bad: &mut BadLines) -> Sessions {
    let mut reader = Reader::new();
    reader.read_all(lines, bad);
    reader.into_sessions()
}

impl LineReader for Reader {
    /// A summary names its session by a uuid that may come later in the lines read
    /// together; one read as the file grows sees only the lines so far.
    fn look_ahead(&mut self, lines: &[Line<'_>]) {
        self.facts.add(lines);
    }

    fn line(&mut self, line: &Line<'_>) -> Result<(), String> {
        Reader::line(self, line)
    }

    fn sessions(&mut self) -> &mut Sessions {
        let facts = &self.facts;
        for (session, parent) in &facts.first_parent {
            let continued = parent
                .as_ref()
                .and_then(|p| facts.session_of.get(p))
                .filter(|other| *other != session);
            if let Some(other) = continued {
                self.sessions.session(session).record.continuation_of =
                    Some(text::session_id(other));
            }
        }
        &mut self.sessions
    }
}

impl Reader {
    fn line(&mut self, line: &Line<'_>) -> Result<(), String> {
        let o = &line.object;
        match o.get("type") {
            Some(Value::String(kind)) => match kind.as_str() {
                "user" | "assistant" => self.message(o, kind == "user"),
                "system" => self.system(o),
                "summary" => self.summary(o, line.raw),
                "custom-title" => {
                    let title = required(o, "customTitle")?;
                    let session = required(o, "sessionId")?;
                    self.sessions.session(session).set_title(title);
                    Ok(())
                }
                _ => {
                    self.sessions.ignored += 1;
                    Ok(())
                }
            },
            Some(other) => Err(format!("`type` must be a string, not a {}", kind(other))),
            None => Err("no `type` (every Claude Code record has one)".to_string()),
        }
    }

    fn message(&mut self, o: &Map<String, Value>, from_user: bool) -> Result<(), String> {
        let record = Record::of(o)?;
        let message = match o.get("message") {
            Some(Value::Object(message)) => message,
            _ => return Err("no `message` object".to_string()),
        };
        let model = str_of(message, "model").filter(|m| *m != "<synthetic>");
        let flag = |name: &str| o.get(name).and_then(Value::as_bool).unwrap_or(false);
        let (is_meta, compact) = (flag("isMeta"), flag("isCompactSummary"));
        let speaker = match (from_user, compact, is_meta) {
            (false, _, _) => Channel::Assistant,
            (true, true, _) => Channel::Summary,
            (true, false, true) => Channel::System,
            (true, false, false) => Channel::User,
        };
        let mut base = record.meta.clone();
        if let Some(model) = model {
            base.insert("model", model);
        }
        if is_meta {
            base.insert("isMeta", true);
        }
        if compact {
            base.insert("isCompactSummary", true);
        }
        let mut found: Vec<(String, Piece)> = Vec::new();
        match message.get("content") {
            Some(Value::String(content)) => {
                found.push((record.uuid.to_string(), (speaker, content.clone(), base)));
            }
            Some(Value::Array(blocks)) => {
                for (index, block) in blocks.iter().enumerate() {
                    let key = format!("{}#{}", record.uuid, index + 1);
                    match self.block(block, speaker, &base) {
                        Ok(Some(piece)) => found.push((key, piece)),
                        Ok(None) => self.sessions.ignored += 1,
                        Err(reason) => return Err(format!("block {}: {reason}", index + 1)),
                    }
                }
            }
            Some(other) => {
                return Err(format!(
                    "`message.content` must be a string or an array of blocks, not a {}",
                    kind(other)
                ));
            }
            None => return Err("no `message.content`".to_string()),
        }
        let draft = self.sessions.session(record.session);
        draft.saw_context(record.cwd, model);
        if let Some(time) = &record.time {
            draft.saw_time(time);
        }
        for (key, (channel, content, meta)) in found {
            if content.trim().is_empty() {
                self.sessions.ignored += 1;
                continue;
            }
            if channel == Channel::User && !content.starts_with("[Request interrupted") {
                self.sessions
                    .session(record.session)
                    .saw_user_text(&content);
            }
            let entry = record.entry(key, channel, content, meta);
            self.sessions.push(record.session, entry);
        }
        Ok(())
    }

    /// One content block as (channel, content, meta); `None` for blocks that are not
    /// entries (images, redacted thinking, kinds this reader does not know).
    fn block(
        &mut self,
        block: &Value,
        speaker: Channel,
        base: &Meta,
    ) -> Result<Option<Piece>, String> {
        let Value::Object(block) = block else {
            return Err(format!(
                "a JSON {} where a block object belongs",
                kind(block)
            ));
        };
        let mut meta = base.clone();
        let found = match str_of(block, "type") {
            None => return Err("no `type`".to_string()),
            Some("text") => (speaker, required(block, "text")?.to_string()),
            Some("thinking") => (Channel::Thinking, required(block, "thinking")?.to_string()),
            Some("tool_use") => {
                let name = required(block, "name")?;
                let input = block.get("input").cloned().unwrap_or_else(|| json!({}));
                meta.set_tool(name);
                if let Some(id) = str_of(block, "id") {
                    meta.set_tool_use_id(id);
                    self.tools.insert(id.to_string(), name.to_string());
                }
                (Channel::ToolCall, format!("{name} {input}"))
            }
            Some("tool_result") => {
                let content = match block.get("content") {
                    None | Some(Value::Null) => String::new(),
                    Some(value) => text::content_text(value).ok_or_else(|| {
                        format!(
                            "tool_result `content` must be a string or an array of parts, not a {}",
                            kind(value)
                        )
                    })?,
                };
                if let Some(id) = str_of(block, "tool_use_id") {
                    meta.set_tool_use_id(id);
                    if let Some(name) = self.tools.get(id) {
                        meta.set_tool(name);
                    }
                }
                let is_error = block.get("is_error").and_then(Value::as_bool);
                meta.set_is_error(is_error.unwrap_or(false));
                (Channel::ToolResult, content)
            }
            Some(_) => return Ok(None),
        };
        Ok(Some((found.0, found.1, meta)))
    }

    fn system(&mut self, o: &Map<String, Value>) -> Result<(), String> {
        let record = Record::of(o)?;
        let content = match o.get("content") {
            None | Some(Value::Null) => String::new(),
            Some(Value::String(content)) => content.clone(),
            Some(other) => {
                return Err(format!("`content` must be a string, not a {}", kind(other)));
            }
        };
        let draft = self.sessions.session(record.session);
        draft.saw_context(record.cwd, None);
        if let Some(time) = &record.time {
            draft.saw_time(time);
        }
        if content.trim().is_empty() {
            self.sessions.ignored += 1;
            return Ok(());
        }
        let mut meta = record.meta.clone();
        for name in ["subtype", Meta::LEVEL] {
            if let Some(value) = str_of(o, name) {
                meta.insert(name, value);
            }
        }
        let entry = record.entry(record.uuid.to_string(), Channel::System, content, meta);
        self.sessions.push(record.session, entry);
        Ok(())
    }

    fn summary(&mut self, o: &Map<String, Value>, raw: &str) -> Result<(), String> {
        let summary = required(o, "summary")?;
        let leaf = required(o, "leafUuid")?;
        let session = self
            .facts
            .session_of
            .get(leaf)
            .or_else(|| self.facts.first_parent.first().map(|(s, _)| s));
        let Some(session) = session else {
            // A file of summaries only describes sessions kept elsewhere.
            self.sessions.ignored += 1;
            return Ok(());
        };
        self.sessions.session(session).set_summary(summary);
        let entry = EntryRecord {
            key: self.keys.key(raw),
            ts: None,
            channel: Channel::Summary,
            content: summary.to_string(),
            tags: Vec::new(),
            meta: {
                let mut meta = Meta::default();
                meta.insert("leafUuid", leaf);
                meta
            },
        };
        self.sessions.push(session, entry);
        Ok(())
    }
}

/// The fields every user, assistant and system record carries.
struct Record<'a> {
    uuid: &'a str,
    session: &'a str,
    cwd: Option<&'a str>,
    time: Option<Stamp>,
    sidechain: bool,
    meta: Meta,
}

impl<'a> Record<'a> {
    fn of(o: &'a Map<String, Value>) -> Result<Record<'a>, String> {
        let uuid = required(o, "uuid")?;
        let session = required(o, "sessionId")?;
        let time = match o.get("timestamp") {
            None | Some(Value::Null) => None,
            Some(value) => Some(stamp(value)?),
        };
        let sidechain = match o.get("isSidechain") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(other) => {
                return Err(format!(
                    "`isSidechain` must be true or false, not a {}",
                    kind(other)
                ));
            }
        };
        let mut meta = Meta::default();
        meta.insert("uuid", uuid);
        if let Some(parent) = str_of(o, "parentUuid") {
            meta.insert("parentUuid", parent);
        }
        meta.insert("isSidechain", sidechain);
        if let Some(agent) = str_of(o, "agentId") {
            meta.insert("agentId", agent);
        }
        Ok(Record {
            uuid,
            session,
            cwd: str_of(o, "cwd"),
            time,
            sidechain,
            meta,
        })
    }

    fn entry(&self, key: String, channel: Channel, content: String, meta: Meta) -> EntryRecord {
        EntryRecord {
            key,
            ts: self.time,
            channel,
            content,
            tags: if self.sidechain {
                vec!["sidechain".to_string()]
            } else {
                Vec::new()
            },
            meta,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::transcript::Transcript;
    use crate::transcripts::lines::records;

    fn read_text(text: &str) -> Result<(Transcript, usize), Vec<(usize, String)>> {
        let mut bad = BadLines::default();
        let lines = records(text.as_bytes(), &mut bad);
        let sessions = read(&lines, &mut bad);
        let ignored = sessions.ignored;
        if bad.is_empty() {
            Ok((sessions.finish("s.jsonl"), ignored))
        } else {
            Err(bad.into_error().bad_lines)
        }
    }

    const SESSION: &str = "5e2f0a4c-1111-4c2e-9a57-000000000001";

    fn user(uuid: &str, parent: Option<&str>, content: Value) -> String {
        json!({"type": "user", "uuid": uuid, "parentUuid": parent, "sessionId": SESSION,
               "timestamp": "2025-06-01T09:00:00.000Z", "cwd": "/repo", "isSidechain": false,
               "message": {"role": "user", "content": content}})
        .to_string()
    }

    #[test]
    fn blocks_become_entries_keyed_by_uuid_and_position() {
        let assistant = json!({"type": "assistant", "uuid": "a1", "parentUuid": "u1",
            "sessionId": SESSION, "timestamp": "2025-06-01T09:00:05.000Z", "isSidechain": false,
            "message": {"model": "claude-sonnet-4-5", "role": "assistant", "content": [
                {"type": "thinking", "thinking": "Look first.", "signature": "x"},
                {"type": "image", "source": {}},
                {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "ls"}}]}});
        let result = user(
            "u2",
            Some("a1"),
            json!([{"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "text", "text": "a.py"}], "is_error": true}]),
        );
        let text = [
            user("u1", None, json!("List the files")),
            assistant.to_string(),
            result,
            json!({"type": "file-history-snapshot", "messageId": "u1", "snapshot": {}}).to_string(),
        ]
        .join("\n");
        let (transcript, ignored) = read_text(&text).unwrap();
        assert_eq!(ignored, 2, "the image block and the snapshot");
        let (session, entries) = &transcript.sessions[0];
        assert_eq!(session.id, SESSION);
        assert_eq!(session.source, "claude-code");
        assert_eq!(session.model.as_deref(), Some("claude-sonnet-4-5"));
        assert_eq!(session.cwd.as_deref(), Some("/repo"));
        assert_eq!(session.title, "List the files");
        let keys: Vec<&str> = entries.iter().map(|e| e.key.as_str()).collect();
        assert_eq!(keys, ["u1", "a1#1", "a1#3", "u2#1"]);
        assert_eq!(entries[1].channel, Channel::Thinking);
        assert_eq!(entries[2].channel, Channel::ToolCall);
        assert_eq!(entries[2].content, r#"Bash {"command":"ls"}"#);
        assert_eq!(entries[3].channel, Channel::ToolResult);
        assert_eq!(entries[3].content, "a.py");
        assert_eq!(entries[3].meta["is_error"], true);
        assert_eq!(entries[3].meta["tool"], "Bash");
    }

    #[test]
    fn a_bad_block_makes_its_line_bad_and_unknown_kinds_are_skipped() {
        let text = [
            user("u1", None, json!([{"type": "text"}])),
            json!({"type": "queue-operation", "operation": "enqueue"}).to_string(),
            json!({"uuid": "x"}).to_string(),
            json!({"type": "assistant", "uuid": "a", "sessionId": SESSION}).to_string(),
        ]
        .join("\n");
        let bad = read_text(&text).unwrap_err();
        let numbers: Vec<usize> = bad.iter().map(|(n, _)| *n).collect();
        assert_eq!(numbers, [1, 3, 4]);
        assert_eq!(bad[0].1, "block 1: no `text`");
        assert!(bad[1].1.starts_with("no `type`"));
        assert_eq!(bad[2].1, "no `message` object");
    }
}
