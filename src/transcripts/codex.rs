//! Codex CLI rollout files (`~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl`).
//!
//! Each line is `{"timestamp", "type", "payload"}`:
//! - `session_meta`: the session's `id`, start `timestamp`, `cwd` and `forked_from_id`
//!   (→ `continuation_of`); one system entry says the session started, with `originator`,
//!   `cli_version`, `source`, `model_provider`, `git` and `instructions` in its meta.
//! - `turn_context`: `model` and `cwd` for the session; no entry.
//! - `response_item`, by payload `type`: `message` (role `assistant` → assistant; `user` →
//!   user, or system when it is injected context such as `<environment_context>`;
//!   `developer`/`system` → system), `reasoning` (summary text, else its content → thinking;
//!   encrypted-only reasoning has no text and makes no entry), `function_call` /
//!   `custom_tool_call` / `local_shell_call` / `web_search_call` → tool_call (name and
//!   arguments; `call_id` in meta), `function_call_output` / `custom_tool_call_output` →
//!   tool_result (`call_id`, the tool's name, and `is_error` when the output says it failed).
//! - `event_msg`: mostly the same conversation again, for the UI — `user_message`,
//!   `agent_message`, `agent_reasoning` repeat response items, so they make entries only in
//!   a file that has no `message` response items at all. `turn_aborted` and `error` are
//!   system entries (nothing else records them); `thread_name_updated` titles the session;
//!   the rest (token counts, task start/end, command ends) are skipped.
//! - `compacted`: its `message`, the summary that replaced earlier history → summary.
//!
//! Older rollouts (mid-2025) have no wrapper: a first line `{"id", "timestamp",
//! "instructions"}`, then bare response items and `{"record_type": "state"}` lines; they
//! are read the same way, without per-entry times.
//!
//! One session per file: the first `session_meta`'s id, else the uuid in the file's name.
//! Keys are line-hash keys (lines carry their timestamp, so they are distinct and stable).
//! Unknown line and item kinds are skipped and counted; a known kind missing what it needs
//! is a bad line.

use std::collections::HashMap;

use serde_json::{Map, Value};

use crate::model::Meta;
use crate::model::transcript::{Channel, EntryRecord};

use super::line_reader::LineReader;
use super::lines::{BadLines, Line, LineKeys, kind, required, str_of};
use super::sessions::Sessions;
use super::text;
use super::time::{Stamp, stamp};

pub const SOURCE: &str = "codex";

/// The wrapped line kinds of current rollouts.
pub const LINE_TYPES: [&str; 5] = [
    "session_meta",
    "response_item",
    "event_msg",
    "turn_context",
    "compacted",
];

/// Response item kinds, which old rollouts write as bare lines.
pub const ITEM_TYPES: [&str; 9] = [
    "message",
    "reasoning",
    "function_call",
    "function_call_output",
    "custom_tool_call",
    "custom_tool_call_output",
    "local_shell_call",
    "web_search_call",
    "compaction",
];

/// Whether `o` is the first line of an old rollout: `{"id", "timestamp", "instructions"}`.
pub fn is_old_meta(o: &Map<String, Value>) -> bool {
    !o.contains_key("type")
        && o.get("id").is_some_and(Value::is_string)
        && o.get("timestamp").is_some_and(Value::is_string)
        && o.contains_key("instructions")
}

/// The folder a rollout ran in, from its first line (`session_meta`'s `cwd`); `None` when
/// the line is no session meta.
pub fn cwd_of_first_line(line: &[u8]) -> Option<String> {
    let object: Map<String, Value> = serde_json::from_slice(line.trim_ascii()).ok()?;
    let meta = match object.get("type").and_then(Value::as_str) {
        Some("session_meta") => object.get("payload")?.as_object()?,
        _ if is_old_meta(&object) => &object,
        _ => return None,
    };
    str_of(meta, "cwd").map(str::to_string)
}

/// State carried from line to line, and from one part of a growing file to the next.
pub struct Reader {
    sessions: Sessions,
    /// The session's raw id, once the first lines named it.
    session: Option<String>,
    file_name: String,
    /// Whether the file has `message` response items (then message events repeat them).
    has_messages: bool,
    keys: LineKeys,
    /// call_id → tool name, so an output can say which tool it answers.
    tools: HashMap<String, String>,
}

pub fn read(lines: &[Line<'_>], bad: &mut BadLines, file_name: &str) -> Sessions {
    let mut reader = Reader::new(file_name);
    reader.read_all(lines, bad);
    reader.into_sessions()
}

impl Reader {
    pub fn new(file_name: &str) -> Reader {
        Reader {
            sessions: Sessions::new(SOURCE),
            session: None,
            file_name: file_name.to_string(),
            has_messages: false,
            keys: LineKeys::default(),
            tools: HashMap::new(),
        }
    }
}

impl LineReader for Reader {
    /// The session is named by the first `session_meta` of the first lines read (a
    /// rollout opens with it), else by the file; message events count as entries until
    /// a message item is seen.
    fn look_ahead(&mut self, lines: &[Line<'_>]) {
        for line in lines {
            let o = &line.object;
            let (kind, payload) = (o.get("type").and_then(Value::as_str), o.get("payload"));
            if self.session.is_none() {
                self.session = match kind {
                    Some("session_meta") => payload
                        .and_then(|p| p.get("id"))
                        .and_then(Value::as_str)
                        .map(str::to_string),
                    None if is_old_meta(o) => {
                        o.get("id").and_then(Value::as_str).map(str::to_string)
                    }
                    _ => None,
                };
            }
            let item_kind = match kind {
                Some("response_item") => {
                    payload.and_then(|p| p.get("type")).and_then(Value::as_str)
                }
                other => other,
            };
            self.has_messages |= item_kind == Some("message");
        }
        if self.session.is_none() && !lines.is_empty() {
            self.session = Some(text::id_from_file_name(&self.file_name));
        }
    }

    fn line(&mut self, line: &Line<'_>) -> Result<(), String> {
        Reader::line(self, line)
    }

    fn sessions(&mut self) -> &mut Sessions {
        &mut self.sessions
    }
}

impl Reader {
    /// The raw id of the file's session (the file's own until lines name it).
    fn session_id(&self) -> String {
        self.session
            .clone()
            .unwrap_or_else(|| text::id_from_file_name(&self.file_name))
    }

    fn line(&mut self, line: &Line<'_>) -> Result<(), String> {
        let o = &line.object;
        let kind_of_line = match o.get("type") {
            None if is_old_meta(o) => return self.session_meta(o, None, line.raw),
            None if o.contains_key("record_type") => {
                self.sessions.ignored += 1;
                return Ok(());
            }
            None => return Err("no `type` (every Codex rollout line has one)".to_string()),
            Some(Value::String(kind)) => kind.as_str(),
            Some(other) => return Err(format!("`type` must be a string, not a {}", kind(other))),
        };
        if ITEM_TYPES.contains(&kind_of_line) {
            return self.response_item(o, None, line.raw);
        }
        if !LINE_TYPES.contains(&kind_of_line) {
            self.sessions.ignored += 1;
            return Ok(());
        }
        let payload = match o.get("payload") {
            Some(Value::Object(payload)) => payload,
            _ => return Err(format!("`{kind_of_line}` line without a `payload` object")),
        };
        let time = match o.get("timestamp") {
            None | Some(Value::Null) => None,
            Some(value) => Some(stamp(value)?),
        };
        match kind_of_line {
            "session_meta" => self.session_meta(payload, time, line.raw),
            "response_item" => self.response_item(payload, time, line.raw),
            "event_msg" => self.event(payload, time, line.raw),
            "turn_context" => {
                let model = str_of(payload, "model");
                self.draft().saw_context(str_of(payload, "cwd"), model);
                if let Some(time) = &time {
                    self.draft().saw_time(time);
                }
                Ok(())
            }
            _ => {
                let message = str_of(payload, "message").ok_or("`compacted` without `message`")?;
                self.push(line.raw, time, Channel::Summary, message, Meta::default());
                Ok(())
            }
        }
    }

    fn session_meta(
        &mut self,
        payload: &Map<String, Value>,
        line_time: Option<Stamp>,
        raw: &str,
    ) -> Result<(), String> {
        let id = match payload.get("id") {
            Some(Value::String(id)) => id.as_str(),
            _ => return Err("`session_meta` without a string `id`".to_string()),
        };
        let started = match payload.get("timestamp") {
            None | Some(Value::Null) => line_time,
            Some(value) => Some(stamp(value)?),
        };
        let cwd = str_of(payload, "cwd");
        let mut meta = Meta::default();
        meta.insert("session_meta", id);
        for name in [
            "originator",
            "cli_version",
            "source",
            "model_provider",
            "git",
            "instructions",
        ] {
            if let Some(value) = payload.get(name).filter(|v| !v.is_null()) {
                meta.insert(name, value.clone());
            }
        }
        if text::session_id(id) == text::session_id(&self.session_id()) {
            let forked = str_of(payload, "forked_from_id").map(text::session_id);
            let draft = self.draft();
            draft.saw_context(cwd, None);
            if forked.is_some() {
                draft.record.continuation_of = forked;
            }
        }
        let by = [
            str_of(payload, "originator"),
            str_of(payload, "cli_version"),
        ]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" ");
        let mut content = format!("Codex session {id} started");
        if let Some(cwd) = cwd {
            content.push_str(&format!(" in {cwd}"));
        }
        if !by.is_empty() {
            content.push_str(&format!(" ({by})"));
        }
        self.push(raw, started, Channel::System, &content, meta);
        Ok(())
    }

    fn response_item(
        &mut self,
        item: &Map<String, Value>,
        time: Option<Stamp>,
        raw: &str,
    ) -> Result<(), String> {
        let kind_of_item = match item.get("type") {
            Some(Value::String(kind)) => kind.as_str(),
            _ => return Err("response item without a string `type`".to_string()),
        };
        let mut meta = Meta::default();
        let (channel, content) = match kind_of_item {
            "message" => {
                let role = required(item, "role")?;
                let content = item
                    .get("content")
                    .and_then(text::content_text)
                    .ok_or("message without `content` parts")?;
                if let Some(phase) = str_of(item, "phase") {
                    meta.insert("phase", phase);
                }
                let channel = match role {
                    "assistant" => Channel::Assistant,
                    "user" if text::is_injected(&content) => {
                        meta.insert("injected", true);
                        Channel::System
                    }
                    "user" => Channel::User,
                    "developer" | "system" => Channel::System,
                    other => return Err(format!("message with unknown role {other:?}")),
                };
                if channel != Channel::User && channel != Channel::Assistant {
                    meta.insert("role", role);
                }
                (channel, content)
            }
            "reasoning" => {
                let part_texts = |name: &str| -> Result<String, String> {
                    match item.get(name) {
                        None | Some(Value::Null) => Ok(String::new()),
                        Some(value @ Value::Array(_)) => {
                            Ok(text::content_text(value).unwrap_or_default())
                        }
                        Some(other) => Err(format!(
                            "reasoning `{name}` must be an array, not a {}",
                            kind(other)
                        )),
                    }
                };
                let summary = part_texts("summary")?;
                let content = part_texts("content")?;
                let text = if summary.trim().is_empty() {
                    content
                } else {
                    summary
                };
                (Channel::Thinking, text)
            }
            "function_call" | "custom_tool_call" => {
                let name = required(item, "name")?;
                let call_id = required(item, "call_id")?;
                let arguments = match item.get("arguments").or_else(|| item.get("input")) {
                    Some(Value::String(text)) => text.clone(),
                    None | Some(Value::Null) => String::new(),
                    Some(other) => other.to_string(),
                };
                self.tools.insert(call_id.to_string(), name.to_string());
                meta.set_tool(name);
                meta.set_call_id(call_id);
                (Channel::ToolCall, format!("{name} {arguments}"))
            }
            "local_shell_call" => {
                let command = item
                    .get("action")
                    .and_then(|a| a.get("command"))
                    .and_then(Value::as_array)
                    .ok_or("local_shell_call without `action.command`")?;
                let words: Vec<&str> = command.iter().filter_map(Value::as_str).collect();
                if let Some(call_id) = str_of(item, "call_id") {
                    self.tools.insert(call_id.to_string(), "local_shell".into());
                    meta.set_call_id(call_id);
                }
                meta.set_tool("local_shell");
                (
                    Channel::ToolCall,
                    format!("local_shell {}", words.join(" ")),
                )
            }
            "web_search_call" => {
                let action = item.get("action").cloned().unwrap_or(Value::Null);
                let what = ["query", "url"]
                    .into_iter()
                    .find_map(|name| action.get(name).and_then(Value::as_str))
                    .unwrap_or_default()
                    .to_string();
                meta.set_tool("web_search");
                (Channel::ToolCall, format!("web_search {what}"))
            }
            "function_call_output" | "custom_tool_call_output" => {
                let call_id = required(item, "call_id")?;
                let (content, failed, exit_code) = output_text(item.get("output"))?;
                meta.set_call_id(call_id);
                if let Some(code) = exit_code {
                    meta.set_exit_code(code);
                }
                if let Some(name) = self.tools.get(call_id) {
                    meta.set_tool(name);
                }
                if let Some(failed) = failed {
                    meta.set_is_error(failed);
                }
                (Channel::ToolResult, content)
            }
            _ => {
                self.sessions.ignored += 1;
                return Ok(());
            }
        };
        if channel == Channel::User {
            self.draft().saw_user_text(&content);
        }
        self.push(raw, time, channel, &content, meta);
        Ok(())
    }

    fn event(
        &mut self,
        payload: &Map<String, Value>,
        time: Option<Stamp>,
        raw: &str,
    ) -> Result<(), String> {
        let kind_of_event = match payload.get("type") {
            Some(Value::String(kind)) => kind.as_str(),
            _ => return Err("`event_msg` without a string payload `type`".to_string()),
        };
        let (channel, field) = match kind_of_event {
            "user_message" => (Channel::User, "message"),
            "agent_message" => (Channel::Assistant, "message"),
            "agent_reasoning" | "agent_reasoning_raw_content" => (Channel::Thinking, "text"),
            "turn_aborted" => {
                let reason = str_of(payload, "reason").unwrap_or("no reason given");
                let content = format!("turn aborted: {reason}");
                let mut meta = Meta::default();
                meta.insert("event", kind_of_event);
                self.push(raw, time, Channel::System, &content, meta);
                return Ok(());
            }
            "error" => {
                let message = required(payload, "message")?;
                let mut meta = Meta::default();
                meta.insert("event", kind_of_event);
                meta.insert(Meta::LEVEL, "error");
                self.push(raw, time, Channel::System, message, meta);
                return Ok(());
            }
            "thread_name_updated" => {
                if let Some(name) = str_of(payload, "thread_name").or(str_of(payload, "name")) {
                    self.draft().set_title(name);
                }
                return Ok(());
            }
            _ => {
                self.sessions.ignored += 1;
                return Ok(());
            }
        };
        let content = required(payload, field)?;
        if self.has_messages {
            // The same words are in a `message` response item already.
            self.sessions.ignored += 1;
            return Ok(());
        }
        if channel == Channel::User {
            self.draft().saw_user_text(content);
        }
        let mut meta = Meta::default();
        meta.insert("event", kind_of_event);
        self.push(raw, time, channel, content, meta);
        Ok(())
    }

    fn draft(&mut self) -> &mut super::sessions::Draft {
        let id = self.session_id();
        self.sessions.session(&id)
    }

    fn push(
        &mut self,
        raw: &str,
        time: Option<Stamp>,
        channel: Channel,
        content: &str,
        meta: Meta,
    ) {
        if content.trim().is_empty() {
            self.sessions.ignored += 1;
            return;
        }
        let entry = EntryRecord {
            key: self.keys.key(raw),
            ts: time,
            channel,
            content: content.to_string(),
            tags: Vec::new(),
            meta,
        };
        let id = self.session_id();
        self.sessions.push(&id, entry);
    }
}

/// A tool output's text and whether it says it failed: a string; an array of content
/// parts; or `{"content", "success"}`.
/// A tool output's text, whether it says it failed, and the exit code it gives: a
/// string; an array of content parts; or `{"content", "success"}`. A string that is itself
/// `{"output": …, "metadata": {"exit_code": …}}` (how Codex wraps a shell's output) gives
/// the output as text and the exit code, not the wrapper.
fn output_text(output: Option<&Value>) -> Result<(String, Option<bool>, Option<i64>), String> {
    match output {
        None | Some(Value::Null) => Ok((String::new(), None, None)),
        Some(Value::Object(o)) => {
            let content = o
                .get("content")
                .and_then(text::content_text)
                .ok_or("`output` object without `content`")?;
            let failed = o.get("success").and_then(Value::as_bool).map(|ok| !ok);
            Ok((content, failed, None))
        }
        Some(Value::String(text)) => Ok(match unwrapped(text) {
            Some((output, code)) => (output, code.map(|code| code != 0), code),
            None => (text.clone(), None, None),
        }),
        Some(value) => text::content_text(value)
            .map(|content| (content, None, None))
            .ok_or_else(|| format!("`output` must be text, not a {}", kind(value))),
    }
}

/// The output and exit code of a shell result Codex wrote as JSON text.
fn unwrapped(text: &str) -> Option<(String, Option<i64>)> {
    if !text.trim_start().starts_with('{') {
        return None;
    }
    let Value::Object(o) = serde_json::from_str::<Value>(text).ok()? else {
        return None;
    };
    let output = o.get("output")?.as_str()?.to_string();
    let code = o
        .get("metadata")
        .and_then(|m| m.get("exit_code"))
        .and_then(Value::as_i64);
    Some((output, code))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::transcript::Transcript;
    use crate::store::memory::testing::time;
    use crate::transcripts::lines::records;

    fn read_text(text: &str) -> Result<(Transcript, usize), Vec<(usize, String)>> {
        let mut bad = BadLines::default();
        let lines = records(text.as_bytes(), &mut bad);
        let sessions = read(&lines, &mut bad, "rollout-x.jsonl");
        let ignored = sessions.ignored;
        if bad.is_empty() {
            Ok((sessions.finish("rollout-x.jsonl"), ignored))
        } else {
            Err(bad.into_error().bad_lines)
        }
    }

    #[test]
    fn events_repeat_messages_only_when_there_are_no_message_items() {
        let with_items = [
            r#"{"timestamp":"2025-09-01T10:00:00.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}}"#,
            r#"{"timestamp":"2025-09-01T10:00:00.001Z","type":"event_msg","payload":{"type":"user_message","message":"hi","images":[]}}"#,
        ]
        .join("\n");
        let (transcript, ignored) = read_text(&with_items).unwrap();
        assert_eq!(transcript.sessions[0].1.len(), 1);
        assert_eq!(ignored, 1);
        assert_eq!(transcript.sessions[0].0.id, "rollout-x");

        let events_only = [
            r#"{"timestamp":"2025-09-01T10:00:00.001Z","type":"event_msg","payload":{"type":"user_message","message":"hi"}}"#,
            r#"{"timestamp":"2025-09-01T10:00:01.000Z","type":"event_msg","payload":{"type":"agent_message","message":"hello"}}"#,
            r#"{"timestamp":"2025-09-01T10:00:02.000Z","type":"event_msg","payload":{"type":"token_count","info":null}}"#,
        ]
        .join("\n");
        let (transcript, ignored) = read_text(&events_only).unwrap();
        let channels: Vec<Channel> = transcript.sessions[0].1.iter().map(|e| e.channel).collect();
        assert_eq!(channels, [Channel::User, Channel::Assistant]);
        assert_eq!(ignored, 1);
        assert_eq!(transcript.sessions[0].0.title, "hi");
    }

    #[test]
    fn reads_old_unwrapped_rollouts() {
        let old = [
            r#"{"id":"0197a1b2-0000-7000-8000-000000000abc","timestamp":"2025-06-10T08:00:00.000Z","instructions":null}"#,
            r#"{"record_type":"state"}"#,
            r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"Run the tests"}]}"#,
            r#"{"type":"function_call","name":"shell","arguments":"{\"command\":[\"pytest\"]}","call_id":"call_1"}"#,
            r#"{"type":"function_call_output","call_id":"call_1","output":{"content":"1 failed","success":false}}"#,
        ]
        .join("\n");
        let (transcript, _) = read_text(&old).unwrap();
        let (session, entries) = &transcript.sessions[0];
        assert_eq!(session.id, "0197a1b2-0000-7000-8000-000000000abc");
        assert_eq!(session.started, time("2025-06-10T08:00:00.000Z"));
        assert_eq!(session.title, "Run the tests");
        let channels: Vec<Channel> = entries.iter().map(|e| e.channel).collect();
        assert_eq!(
            channels,
            [
                Channel::System,
                Channel::User,
                Channel::ToolCall,
                Channel::ToolResult
            ]
        );
        assert_eq!(entries[3].meta["is_error"], true);
        assert_eq!(entries[3].meta["tool"], "shell");
    }

    #[test]
    fn a_shell_result_wrapped_as_json_text_reads_as_its_output_and_exit_code() {
        let text = [
            r#"{"timestamp":"2025-09-14T08:12:03.517Z","type":"session_meta","payload":{"id":"s1","timestamp":"2025-09-14T08:12:03.498Z","cwd":"/p"}}"#,
            r#"{"timestamp":"2025-09-14T08:12:04.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"pytest\"]}","call_id":"c1"}}"#,
            r#"{"timestamp":"2025-09-14T08:12:05.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"{\"output\":\"1 failed, 3 passed\\n\",\"metadata\":{\"exit_code\":1,\"duration_seconds\":0.4}}"}}"#,
            r#"{"timestamp":"2025-09-14T08:12:06.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"{not json but braces}"}}"#,
        ]
        .join("\n");
        let (transcript, _) = read_text(&text).unwrap();
        let entries = &transcript.sessions[0].1;
        let result = &entries[2];
        assert_eq!(
            result.content, "1 failed, 3 passed\n",
            "the wrapper is gone"
        );
        assert_eq!(result.meta["exit_code"], 1);
        assert_eq!(result.meta["is_error"], true);
        assert_eq!(
            entries[3].content, "{not json but braces}",
            "other text stays"
        );
    }

    #[test]
    fn known_kinds_missing_fields_are_bad_lines() {
        let text = [
            r#"{"timestamp":"2025-09-01T10:00:00Z","type":"response_item","payload":{"type":"function_call","name":"shell"}}"#,
            r#"{"timestamp":"2025-09-01T10:00:00Z","type":"response_item"}"#,
            r#"{"timestamp":"2025-09-01T10:00:00Z","type":"world_state","payload":{}}"#,
            r#"{"timestamp":"2025-09-01T10:00:00Z","type":"response_item","payload":{"type":"message","role":"narrator","content":[]}}"#,
        ]
        .join("\n");
        let bad = read_text(&text).unwrap_err();
        let numbers: Vec<usize> = bad.iter().map(|(n, _)| *n).collect();
        assert_eq!(numbers, [1, 2, 4]);
        assert_eq!(bad[0].1, "no `call_id`");
        assert!(bad[1].1.contains("without a `payload` object"));
        assert!(bad[2].1.contains("unknown role \"narrator\""));
    }
}
