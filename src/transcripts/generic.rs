//! Generic JSONL: one entry per line, for transcripts of any tool.
//!
//! A line: `content` (a string, or an array of strings / `{"text": …}` parts) and `role`
//! (`user`, `assistant`, `system`, `developer` → system, `tool` → tool_result) or
//! `channel` (one of the seven channels; wins over `role`). Optional: `ts` or `timestamp`
//! (RFC 3339 with an offset, or Unix seconds/milliseconds), `tags` (strings), `meta` (an
//! object), `id` (the entry's key), `session` or `session_id` (else the session is the
//! file's name and a hash of its first user or assistant line: two chats in files of one
//! name stay two), and `title`, `cwd`, `model` for the session. Other fields are kept in the
//! entry's meta. A line with `title` but neither content nor role is a session header.
//! Every other shape is a bad line.
//!
//! Chat exports (OpenAI's message shape) read too: an assistant line's `tool_calls`
//! (`{"id", "function": {"name", "arguments"}}`) are tool_call entries of their own, after
//! the assistant's text when it has any (`content` may then be null or empty), and a
//! `tool` line answering one (`tool_call_id`) is a tool_result whose meta names the tool.

use std::collections::HashMap;

use serde_json::{Map, Value};

use crate::model::Meta;
use crate::model::transcript::{Channel, EntryRecord};

use super::line_reader::LineReader;
use super::lines::{BadLines, Line, LineKeys, kind};
use super::sessions::Sessions;
use super::text;
use super::time::stamp;

/// Fields this reader consumes; any other is kept in the entry's meta.
const KNOWN: [&str; 14] = [
    "tool_calls",
    "ts",
    "timestamp",
    "role",
    "channel",
    "content",
    "tags",
    "meta",
    "id",
    "session",
    "session_id",
    "title",
    "cwd",
    "model",
];

pub fn read(lines: &[Line<'_>], bad: &mut BadLines, file_name: &str) -> Sessions {
    let mut reader = Reader::new(file_name);
    reader.read_all(lines, bad);
    reader.end(bad);
    reader.into_sessions()
}

/// State carried from line to line, and from one part of a growing file to the next.
pub struct Reader {
    sessions: Sessions,
    keys: LineKeys,
    calls: Calls,
    /// The file's name as an id: the first part of the id of a session no line names.
    stem: String,
    /// That session's id, once its first user or assistant line decided it.
    default_id: Option<String>,
    /// The lines before it (system prompts, headers) that name no session: held until it
    /// is decided, then read in their place.
    held: Vec<Held>,
}

/// A line held back, as read.
struct Held {
    number: usize,
    raw: String,
    object: Map<String, Value>,
}

impl Reader {
    pub fn new(file_name: &str) -> Reader {
        Reader {
            sessions: Sessions::new("jsonl"),
            keys: LineKeys::default(),
            calls: Calls::new(),
            stem: text::id_from_file_name(file_name),
            default_id: None,
            held: Vec::new(),
        }
    }

    /// Decides the id of the session no line names from `raw`, its first user or assistant
    /// line (or its first line, when it has none), and reads the lines held until then.
    fn decide(&mut self, raw: &str, bad: &mut BadLines) {
        self.default_id = Some(format!("{}-{}", self.stem, &line_hash(raw)[..8]));
        let default_id = self.default_id.clone().unwrap_or_default();
        for held in std::mem::take(&mut self.held) {
            let line = Line {
                number: held.number,
                raw: &held.raw,
                object: held.object,
            };
            let read = read_line(
                &line,
                &mut self.sessions,
                &mut self.keys,
                &mut self.calls,
                &default_id,
            );
            if let Err(reason) = read {
                bad.add(line.number, reason);
            }
        }
    }
}

/// Whether a line naming no session opens a chat rather than being one of its turns: a
/// system or developer prompt, or a header. Many chats open with the same prompt, so it
/// cannot tell one chat from another.
fn is_preamble(object: &Map<String, Value>) -> bool {
    let role = object.get("role").and_then(Value::as_str);
    let channel = object.get("channel").and_then(Value::as_str);
    matches!(role, Some("system" | "developer"))
        || channel == Some("system")
        || (role.is_none() && channel.is_none() && !object.contains_key("content"))
}

impl LineReader for Reader {
    /// A session no line names is a chat of its own, told apart by its content: its id is
    /// the file's name and a hash of its first user or assistant line, so two chats in
    /// files of the same name (`a/transcript.jsonl`, `b/transcript.jsonl`) stay two.
    fn read_all(&mut self, lines: &[Line<'_>], bad: &mut BadLines) {
        for line in lines {
            let names_session = ["session", "session_id"]
                .iter()
                .any(|name| line.object.get(*name).is_some_and(|v| !v.is_null()));
            if self.default_id.is_none() && !names_session {
                if is_preamble(&line.object) {
                    self.held.push(Held {
                        number: line.number,
                        raw: line.raw.to_string(),
                        object: line.object.clone(),
                    });
                    continue;
                }
                self.decide(line.raw, bad);
            }
            if let Err(reason) = self.line(line) {
                bad.add(line.number, reason);
            }
        }
    }

    fn line(&mut self, line: &Line<'_>) -> Result<(), String> {
        let default_id = self.default_id.clone().unwrap_or_else(|| self.stem.clone());
        read_line(
            line,
            &mut self.sessions,
            &mut self.keys,
            &mut self.calls,
            &default_id,
        )
    }

    /// A file of preamble only (nothing said yet) is read as it is once it is complete.
    fn end(&mut self, bad: &mut BadLines) {
        if let Some(first) = self.held.first().map(|held| held.raw.clone()) {
            self.decide(&first, bad);
        }
    }

    fn sessions(&mut self) -> &mut Sessions {
        &mut self.sessions
    }
}

/// A hex hash of a line, for ids: the same line always gives the same.
fn line_hash(raw: &str) -> String {
    let mut keys = LineKeys::default();
    keys.key(raw)
}

/// The tools called so far, by call id: a result names its call, not its tool.
type Calls = HashMap<String, String>;

fn read_line(
    line: &Line<'_>,
    sessions: &mut Sessions,
    keys: &mut LineKeys,
    calls: &mut Calls,
    default_id: &str,
) -> Result<(), String> {
    let object = &line.object;
    let session_id = match object.get("session").or_else(|| object.get("session_id")) {
        None | Some(Value::Null) => default_id.to_string(),
        Some(value) => scalar(value).ok_or("`session` must be a string or a number")?,
    };
    let session_field = |name: &str| -> Result<Option<&str>, String> {
        match object.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(text)) => Ok(Some(text)),
            Some(other) => Err(format!("`{name}` must be a string, not a {}", kind(other))),
        }
    };
    let (title, cwd, model) = (
        session_field("title")?,
        session_field("cwd")?,
        session_field("model")?,
    );
    let has_speaker = object.contains_key("role") || object.contains_key("channel");
    if !object.contains_key("content") && !has_speaker && title.is_some() {
        let draft = sessions.session(&session_id);
        draft.set_title(title.unwrap_or_default());
        draft.saw_context(cwd, model);
        return Ok(());
    }
    let channel = channel_of(object)?;
    let tool_calls = tool_calls_of(object)?;
    let content = match object.get("content") {
        None | Some(Value::Null) if !tool_calls.is_empty() => String::new(),
        None => return Err("no `content`".to_string()),
        Some(value) => text::content_text(value)
            .ok_or("`content` must be a string or an array of text parts")?,
    };
    let time = match object.get("ts").or_else(|| object.get("timestamp")) {
        None | Some(Value::Null) => None,
        Some(value) => Some(stamp(value)?),
    };
    let tags = tags_of(object)?;
    let mut meta = meta_of(object)?;
    if let Some(tool) = object
        .get("tool_call_id")
        .and_then(Value::as_str)
        .and_then(|id| calls.get(id))
    {
        meta.default_tool(tool);
    }
    let key = match object.get("id") {
        None | Some(Value::Null) => keys.key(line.raw),
        Some(value) => scalar(value).ok_or("`id` must be a string or a number")?,
    };
    let draft = sessions.session(&session_id);
    if let Some(title) = title {
        draft.set_title(title);
    }
    draft.saw_context(cwd, model);
    if channel == Channel::User {
        draft.saw_user_text(&content);
    }
    // The calls' keys follow the line's: stable across imports of the same file.
    let call_entries: Vec<EntryRecord> = tool_calls
        .into_iter()
        .enumerate()
        .map(|(n, call)| {
            if let Some(id) = &call.id {
                calls.insert(id.clone(), call.name.clone());
            }
            let mut meta = Meta::default();
            meta.set_tool(call.name.as_str());
            if let Some(id) = call.id {
                meta.set_call_id(id);
            }
            EntryRecord {
                key: format!("{key}.call{}", n + 1),
                ts: time,
                channel: Channel::ToolCall,
                content: format!("{} {}", call.name, call.arguments)
                    .trim_end()
                    .to_string(),
                tags: tags.clone(),
                meta,
            }
        })
        .collect();
    if !content.is_empty() || call_entries.is_empty() {
        let entry = EntryRecord {
            key,
            ts: time,
            channel,
            content,
            tags,
            meta,
        };
        sessions.push(&session_id, entry);
    }
    for entry in call_entries {
        sessions.push(&session_id, entry);
    }
    Ok(())
}

/// One tool call of a chat export's assistant line.
struct ToolCall {
    id: Option<String>,
    name: String,
    /// As the export wrote them: a JSON text, usually.
    arguments: String,
}

/// The `tool_calls` of a line (none when it has no such field).
fn tool_calls_of(object: &Map<String, Value>) -> Result<Vec<ToolCall>, String> {
    let Some(value) = object.get("tool_calls").filter(|v| !v.is_null()) else {
        return Ok(Vec::new());
    };
    let shape =
        "`tool_calls` must be an array of {\"id\", \"function\": {\"name\", \"arguments\"}}";
    let items = value.as_array().ok_or(shape)?;
    items
        .iter()
        .map(|item| {
            let function = item.get("function").ok_or(shape)?;
            let name = function
                .get("name")
                .and_then(Value::as_str)
                .filter(|name| !name.is_empty())
                .ok_or(shape)?;
            let arguments = match function.get("arguments") {
                None | Some(Value::Null) => String::new(),
                Some(Value::String(text)) => text.clone(),
                Some(other) => other.to_string(),
            };
            Ok(ToolCall {
                id: item.get("id").and_then(scalar),
                name: name.to_string(),
                arguments,
            })
        })
        .collect()
}

fn channel_of(object: &Map<String, Value>) -> Result<Channel, String> {
    if let Some(value) = object.get("channel") {
        let name = value.as_str().ok_or("`channel` must be a string")?;
        return Channel::parse(name).ok_or_else(|| {
            let names: Vec<&str> = Channel::ALL.iter().map(|c| c.as_str()).collect();
            format!("unknown channel {name:?} (one of {})", names.join(", "))
        });
    }
    match object.get("role") {
        None => Err("no `role` or `channel`".to_string()),
        Some(Value::String(role)) => match role.as_str() {
            "user" => Ok(Channel::User),
            "assistant" => Ok(Channel::Assistant),
            "system" | "developer" => Ok(Channel::System),
            "tool" => Ok(Channel::ToolResult),
            other => Err(format!(
                "unknown role {other:?} (user, assistant, system, developer or tool; or give a `channel`)"
            )),
        },
        Some(other) => Err(format!("`role` must be a string, not a {}", kind(other))),
    }
}

fn tags_of(object: &Map<String, Value>) -> Result<Vec<String>, String> {
    let Some(value) = object.get("tags").filter(|v| !v.is_null()) else {
        return Ok(Vec::new());
    };
    let items = value
        .as_array()
        .ok_or("`tags` must be an array of strings")?;
    items
        .iter()
        .map(|item| match item.as_str() {
            Some(tag) if !tag.is_empty() && !tag.contains(['/', '\0']) => Ok(tag.to_string()),
            Some(tag) => Err(format!(
                "tag {tag:?} cannot name a directory (empty, or has '/')"
            )),
            None => Err("`tags` must be an array of strings".to_string()),
        })
        .collect()
}

/// `meta` (an object), plus every field this reader does not consume, plus `role` when it
/// says more than the channel (`tool`, `developer`).
fn meta_of(object: &Map<String, Value>) -> Result<Meta, String> {
    let mut meta = match object.get("meta") {
        None | Some(Value::Null) => Meta::default(),
        Some(Value::Object(meta)) => Meta::from(meta.clone()),
        Some(other) => return Err(format!("`meta` must be an object, not a {}", kind(other))),
    };
    for (name, value) in object {
        if !KNOWN.contains(&name.as_str()) {
            meta.insert_new(name.as_str(), value.clone());
        }
    }
    if let Some(role @ ("tool" | "developer")) = object.get("role").and_then(Value::as_str) {
        meta.insert_new("role", role);
    }
    Ok(meta)
}

/// A string, or a number as its text.
fn scalar(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::transcript::Transcript;
    use crate::store::memory::testing::time;
    use crate::transcripts::lines::records;

    fn read_text(text: &str) -> Result<Transcript, Vec<(usize, String)>> {
        let mut bad = BadLines::default();
        let lines = records(text.as_bytes(), &mut bad);
        let sessions = read(&lines, &mut bad, "chats/day one.jsonl");
        if bad.is_empty() {
            Ok(sessions.finish("chats/day one.jsonl"))
        } else {
            Err(bad.into_error().bad_lines)
        }
    }

    #[test]
    fn reads_roles_channels_times_tags_and_meta() {
        let transcript = read_text(concat!(
            r#"{"ts":"2025-03-01T10:00:00+01:00","role":"user","content":"Add a test\nplease","tags":["tests"]}"#,
            "\n",
            r#"{"timestamp":1740822000,"role":"assistant","content":[{"type":"text","text":"Done."}],"name":"bot"}"#,
            "\n",
            r#"{"channel":"tool_call","content":"pytest -q","meta":{"tool":"Bash"}}"#,
            "\n",
            r#"{"role":"tool","content":"1 passed","id":"r-1"}"#,
        ))
        .unwrap();
        let (session, entries) = &transcript.sessions[0];
        // The file's name and a hash of its first user line: two chats in files of one
        // name stay two.
        assert!(
            session.id.as_str().starts_with("day-one-"),
            "{}",
            session.id
        );
        assert_eq!(session.source, "jsonl");
        assert_eq!(session.title, "Add a test please");
        assert_eq!(session.started, time("2025-03-01T09:00:00Z"));
        let channels: Vec<Channel> = entries.iter().map(|e| e.channel).collect();
        assert_eq!(
            channels,
            [
                Channel::User,
                Channel::Assistant,
                Channel::ToolCall,
                Channel::ToolResult
            ]
        );
        assert_eq!(entries[0].tags, ["tests"]);
        assert_eq!(entries[1].content, "Done.");
        assert_eq!(entries[1].meta["name"], "bot");
        assert_eq!(entries[2].meta["tool"], "Bash");
        assert_eq!(entries[3].key, "r-1");
        assert_eq!(entries[3].meta["role"], "tool");
    }

    #[test]
    fn chat_exports_put_tool_calls_and_results_on_their_channels() {
        let export = concat!(
            r#"{"role":"system","content":"You are a coding agent."}"#,
            "\n",
            r#"{"role":"user","content":"Why does the test fail?"}"#,
            "\n",
            r#"{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"run","arguments":"{\"cmd\":\"pytest -q\"}"}},{"id":"call_2","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"src/money.py\"}"}}]}"#,
            "\n",
            r#"{"role":"tool","tool_call_id":"call_1","content":"1 failed"}"#,
            "\n",
            r#"{"role":"tool","tool_call_id":"call_2","content":"def round_cents(x): ..."}"#,
            "\n",
            r#"{"role":"assistant","content":"Rounding is off; fixing it.","tool_calls":[{"id":"call_3","function":{"name":"edit","arguments":{"path":"src/money.py"}}}]}"#,
        );
        let transcript = read_text(export).unwrap();
        let (_, entries) = &transcript.sessions[0];
        let shown: Vec<(Channel, &str, Option<&str>)> = entries
            .iter()
            .map(|e| (e.channel, e.content.as_str(), e.meta["tool"].as_str()))
            .collect();
        assert_eq!(
            shown,
            [
                (Channel::System, "You are a coding agent.", None),
                (Channel::User, "Why does the test fail?", None),
                (Channel::ToolCall, r#"run {"cmd":"pytest -q"}"#, Some("run")),
                (
                    Channel::ToolCall,
                    r#"read_file {"path":"src/money.py"}"#,
                    Some("read_file")
                ),
                (Channel::ToolResult, "1 failed", Some("run")),
                (
                    Channel::ToolResult,
                    "def round_cents(x): ...",
                    Some("read_file")
                ),
                (Channel::Assistant, "Rounding is off; fixing it.", None),
                (
                    Channel::ToolCall,
                    r#"edit {"path":"src/money.py"}"#,
                    Some("edit")
                ),
            ]
        );
        assert_eq!(entries[2].meta["call_id"], "call_1");
        let keys: std::collections::BTreeSet<&str> =
            entries.iter().map(|e| e.key.as_str()).collect();
        assert_eq!(
            keys.len(),
            entries.len(),
            "every entry has a key of its own"
        );
        // The same file read again gives the same keys: importing it twice adds nothing.
        let again = read_text(export).unwrap();
        let again: Vec<&str> = again.sessions[0].1.iter().map(|e| e.key.as_str()).collect();
        let first: Vec<&str> = entries.iter().map(|e| e.key.as_str()).collect();
        assert_eq!(again, first);
        // A call without a name says what shape is expected.
        let bad = read_text(r#"{"role":"assistant","content":null,"tool_calls":[{"id":"x"}]}"#)
            .unwrap_err();
        assert!(bad[0].1.contains("tool_calls"), "{bad:?}");
    }

    #[test]
    fn sessions_and_headers_come_from_the_lines() {
        let transcript = read_text(concat!(
            r#"{"session":"s/1","title":"Planning","cwd":"/repo"}"#,
            "\n",
            r#"{"session":"s/1","role":"user","content":"hi"}"#,
            "\n",
            r#"{"session_id":7,"role":"user","content":"other"}"#,
        ))
        .unwrap();
        let ids: Vec<&str> = transcript
            .sessions
            .iter()
            .map(|(s, _)| s.id.as_str())
            .collect();
        assert_eq!(ids, ["s-1", "7"]);
        assert_eq!(transcript.sessions[0].0.title, "Planning");
        assert_eq!(transcript.sessions[0].0.cwd.as_deref(), Some("/repo"));
        assert_eq!(transcript.sessions[0].1.len(), 1);
    }

    #[test]
    fn every_bad_shape_is_a_bad_line_with_its_reason() {
        let bad = read_text(concat!(
            r#"{"role":"user","content":"fine"}"#,
            "\n",
            r#"{"content":"who?"}"#,
            "\n",
            r#"{"role":"robot","content":"x"}"#,
            "\n",
            r#"{"role":"user"}"#,
            "\n",
            r#"{"role":"user","content":"x","ts":"tuesday"}"#,
            "\n",
            r#"{"role":"user","content":"x","tags":["a/b"]}"#,
            "\n",
            r#"{"channel":"shout","content":"x"}"#,
            "\n",
            r#"{"role":"user","content":{"nested":true}}"#,
        ))
        .unwrap_err();
        let numbers: Vec<usize> = bad.iter().map(|(n, _)| *n).collect();
        assert_eq!(numbers, [2, 3, 4, 5, 6, 7, 8]);
        assert!(bad[0].1.contains("no `role` or `channel`"));
        assert!(bad[1].1.contains("unknown role \"robot\""));
        assert!(bad[2].1.contains("no `content`"));
        assert!(bad[3].1.contains("not RFC 3339"));
        assert!(bad[4].1.contains("cannot name a directory"));
        assert!(bad[5].1.contains("unknown channel \"shout\""));
        assert!(bad[6].1.contains("array of text parts"));
    }
}
