//! Gemini CLI sessions, `~/.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl` (and
//! the whole-document `session-*.json` that versions before the JSONL log wrote, often
//! pretty-printed over many lines).
//!
//! A session is `sessionId`, `startTime`, `lastUpdated`, an optional `summary`, and its
//! `messages`, each `{"id", "timestamp", "type", "content"}`:
//! - `user` → user; `info`, `warning`, `error` → system (meta `level`);
//! - `gemini` → its `thoughts` (`subject`, `description`) as thinking, its `content` as
//!   assistant text, and each of its `toolCalls` (`id`, `name`, `args`, `status`, `result`,
//!   `resultDisplay`) as a tool_call (`<name> <args JSON>`, meta `tool`, `call_id`) and,
//!   once it has a result or a final status, a tool_result (meta `tool`, `call_id`,
//!   `status`, `is_error` when the status is `error`); `model` names the session's model.
//! - other types are skipped and counted.
//!
//! The JSONL log opens with `{"sessionId", "projectHash", "startTime", …}`; then a message
//! is appended whole each time it changes (a tool call gaining its result appends the
//! message again under the same `id`: the last version counts), `{"$set": {…}}` updates
//! the session's fields (a `messages` list there adds only messages not seen before: it
//! replays history, with tool output possibly masked), and `{"$rewindTo": id}` marks a
//! rewind. Rewound messages are kept: they were said, and an import made before the rewind
//! stored them anyway.
//!
//! `logs.json` beside `chats/` lists only the user's prompts: no transcript, passed over.
//!
//! The format says no working directory (only a hash of it). Newer versions name the
//! project's folder after the project and keep its path in `.project_root` beside
//! `chats/`: an import that reads the file from its place takes the session's `cwd` from
//! there ([`placed`]); elsewhere sessions have none.
//! Keys are the tool's ids (`<message id>`, `#thought<n>`, `#call:<call id>`,
//! `#result:<call id>`), stable however often the file is rewritten or grows.

use std::collections::HashMap;
use std::path::Path;

use serde_json::{Map, Value, json};

use crate::model::Meta;
use crate::model::transcript::{Channel, EntryRecord};

use super::lines::{BadLines, Line, kind, str_of};
use super::reading::{self, ReadError, Reading};
use super::sessions::Sessions;
use super::text;
use super::time::{Stamp, stamp};

pub const SOURCE: &str = "gemini-cli";

/// The longest `.project_root` read: one path.
const MAX_PROJECT_ROOT: u64 = 4096;

/// `reading` of the Gemini CLI session file at `path`, its sessions placed in the project
/// whose path the folder's `.project_root` holds (`<project>/.project_root` beside
/// `chats/`, where the file is or is below).
pub fn placed(mut reading: Reading, path: &Path) -> Reading {
    let chats = path
        .ancestors()
        .skip(1)
        .find(|dir| dir.file_name().is_some_and(|n| n == "chats"));
    let Some(root) = chats.and_then(Path::parent).and_then(project_root) else {
        return reading;
    };
    for (session, _) in &mut reading.transcript.sessions {
        session.cwd.get_or_insert_with(|| root.clone());
    }
    reading
}

/// The absolute path in `<dir>/.project_root`: a small regular file, not a link.
fn project_root(dir: &Path) -> Option<String> {
    let file = dir.join(".project_root");
    let meta = std::fs::symlink_metadata(&file).ok()?;
    if !meta.is_file() || meta.len() > MAX_PROJECT_ROOT {
        return None;
    }
    let text = std::fs::read_to_string(&file).ok()?;
    let root = text.trim();
    (root.starts_with('/') && !root.contains('\n')).then(|| root.to_string())
}

/// Whether a JSONL record is one only Gemini CLI's log writes.
pub fn is_record(o: &Map<String, Value>) -> bool {
    let has = |name: &str| o.contains_key(name);
    has("$set")
        || has("$rewindTo")
        || (!has("type") && has("sessionId") && has("projectHash"))
        || (str_of(o, "type") == Some("gemini") && has("id") && !has("sessionId"))
}

/// The session in `bytes` when they are one whole JSON document of Gemini CLI (the files
/// before the JSONL log): `Some(Err)` when they look like one but are not whole JSON, `None`
/// when they are something else (JSONL, another JSON file).
pub fn document(bytes: &[u8]) -> Option<Result<Map<String, Value>, String>> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let start = bytes.iter().position(|b| !b.is_ascii_whitespace())?;
    if bytes[start] != b'{' {
        return None;
    }
    let first_line = bytes[start..].split(|&b| b == b'\n').next()?;
    let whole = match serde_json::from_slice::<Value>(first_line) {
        // A line that is a whole object: JSONL, unless it is the whole file.
        Ok(_)
            if bytes[start + first_line.len()..]
                .iter()
                .any(|b| !b.is_ascii_whitespace()) =>
        {
            return None;
        }
        Ok(value) => Ok(value),
        Err(_) => serde_json::from_slice::<Value>(&bytes[start..]),
    };
    match whole {
        Ok(Value::Object(o)) if o.contains_key("sessionId") && o.contains_key("messages") => {
            Some(Ok(o))
        }
        Ok(_) => None,
        // Pretty-printed (its second line is no JSON object, as a log's would be), and
        // Gemini's by its fields.
        Err(e)
            if !second_line_is_object(&bytes[start..])
                && contains(bytes, b"\"projectHash\"")
                && contains(bytes, b"\"messages\"") =>
        {
            Some(Err(format!(
                "a Gemini CLI session that is not whole JSON: {} at line {}, column {}",
                reason_of(&e),
                e.line(),
                e.column()
            )))
        }
        Err(_) => None,
    }
}

fn second_line_is_object(bytes: &[u8]) -> bool {
    let mut lines = bytes.split(|&b| b == b'\n').map(<[u8]>::trim_ascii);
    lines.next();
    lines
        .find(|line| !line.is_empty())
        .is_none_or(|line| line.starts_with(b"{"))
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// serde's message without its own "at line … column …".
fn reason_of(e: &serde_json::Error) -> String {
    let text = e.to_string();
    text.rsplit_once(" at line ")
        .map_or(text.clone(), |(reason, _)| reason.to_string())
}

/// Reads a whole-document session; its problems are the file's (no line numbers).
pub fn read_document(o: &Map<String, Value>, file_name: &str) -> Result<Sessions, ReadError> {
    let mut reader = Reader::new(o, file_name);
    reader.metadata(o).map_err(ReadError::whole_file)?;
    let messages = match o.get("messages") {
        Some(Value::Array(messages)) => messages,
        Some(other) => {
            return Err(ReadError::whole_file(format!(
                "`messages` must be an array, not a {}",
                kind(other)
            )));
        }
        None => return Err(ReadError::whole_file("no `messages`")),
    };
    let mut bad = BadLines::default();
    for (n, message) in messages.iter().enumerate() {
        let result = match message {
            Value::Object(m) => reader.message(m),
            other => Err(format!("a JSON {} where a message belongs", kind(other))),
        };
        if let Err(reason) = result {
            bad.add(n + 1, reason);
        }
    }
    if bad.is_empty() {
        return Ok(reader.sessions);
    }
    // Numbered by message, not by line: the document may be on one line or many.
    let mut error = bad.into_error();
    for (n, reason) in &mut error.bad_lines {
        *reason = format!("message {n}: {reason}");
        *n = 0;
    }
    Err(error)
}

/// Reads a JSONL log: the last version of each message, in order of first appearance.
pub fn read(lines: &[Line<'_>], bad: &mut BadLines, file_name: &str) -> Sessions {
    let header = lines
        .iter()
        .find(|line| line.object.contains_key("projectHash"))
        .map(|line| &line.object);
    let mut reader = Reader::new(header.unwrap_or(&Map::new()), file_name);
    let mut order: Vec<String> = Vec::new();
    let mut latest: HashMap<String, (usize, &Map<String, Value>)> = HashMap::new();
    let mut keep = |id: &str, number: usize, m, replace: bool| {
        if !latest.contains_key(id) {
            order.push(id.to_string());
        } else if !replace {
            return;
        }
        latest.insert(id.to_string(), (number, m));
    };
    for line in lines {
        let o = &line.object;
        if let Some(set) = o.get("$set") {
            let Value::Object(set) = set else {
                bad.add(line.number, "`$set` must be an object");
                continue;
            };
            if let Err(reason) = reader.metadata(set) {
                bad.add(line.number, reason);
            }
            for m in set
                .get("messages")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if let Some((id, m)) = m.as_object().and_then(|m| Some((str_of(m, "id")?, m))) {
                    keep(id, line.number, m, false);
                }
            }
        } else if o.contains_key("$rewindTo") {
            reader.sessions.ignored += 1;
        } else if o.contains_key("projectHash") {
            if let Err(reason) = reader.metadata(o) {
                bad.add(line.number, reason);
            }
        } else {
            match o.get("id") {
                Some(Value::String(id)) => keep(id, line.number, o, true),
                None if !o.contains_key("type") => reader.sessions.ignored += 1,
                _ => bad.add(line.number, "a message's `id` must be a string"),
            }
        }
    }
    for id in &order {
        let (number, m) = latest[id];
        if let Err(reason) = reader.message(m) {
            bad.add(number, reason);
        }
    }
    reader.sessions
}

struct Reader {
    sessions: Sessions,
    session: String,
}

impl Reader {
    fn new(header: &Map<String, Value>, file_name: &str) -> Reader {
        let session = str_of(header, "sessionId")
            .map(str::to_string)
            .unwrap_or_else(|| text::id_from_file_name(file_name));
        Reader {
            sessions: Sessions::new(SOURCE),
            session,
        }
    }

    /// The session's own fields: its times widen its span, `summary` titles it.
    fn metadata(&mut self, o: &Map<String, Value>) -> Result<(), String> {
        let draft = self.sessions.session(&self.session);
        for field in ["startTime", "lastUpdated"] {
            if let Some(value) = o.get(field).filter(|v| !v.is_null()) {
                let at = stamp(value).map_err(|e| format!("`{field}`: {e}"))?;
                draft.saw_time(&at);
            }
        }
        if let Some(summary) = str_of(o, "summary") {
            draft.set_summary(summary);
        }
        Ok(())
    }

    fn message(&mut self, m: &Map<String, Value>) -> Result<(), String> {
        let id = match m.get("id") {
            Some(Value::String(id)) if !id.is_empty() => id.as_str(),
            None | Some(Value::Null) => return Err("no `id`".to_string()),
            Some(_) => return Err("`id` must be a non-empty string".to_string()),
        };
        let kind_of = str_of(m, "type").ok_or("no `type` (user, gemini, info, error, …)")?;
        let at = time_of(m, "timestamp")?;
        let content = match m.get("content") {
            None | Some(Value::Null) => String::new(),
            Some(value) => text::content_text(value)
                .ok_or("`content` must be a string or an array of parts")?,
        };
        let entry = |key, channel, content, meta| reading::entry(key, at, channel, content, meta);
        match kind_of {
            "user" => {
                self.sessions.session(&self.session).saw_user_text(&content);
                self.push(entry(id.into(), Channel::User, content, Meta::default()));
            }
            "info" | "warning" | "error" => {
                let mut meta = Meta::default();
                meta.insert(Meta::LEVEL, kind_of);
                self.push(entry(id.into(), Channel::System, content, meta));
            }
            "gemini" => {
                let model = str_of(m, "model");
                self.sessions
                    .session(&self.session)
                    .saw_context(None, model);
                let thoughts = m.get("thoughts").and_then(Value::as_array);
                for (n, thought) in thoughts.into_iter().flatten().enumerate() {
                    let text = thought_text(thought);
                    let ts = thought.get("timestamp").and_then(|t| stamp(t).ok()).or(at);
                    let mut e = entry(
                        format!("{id}#thought{}", n + 1),
                        Channel::Thinking,
                        text,
                        Meta::default(),
                    );
                    e.ts = ts;
                    self.push(e);
                }
                let mut meta = Meta::default();
                if let Some(model) = model {
                    meta.insert("model", model);
                }
                self.push(entry(id.into(), Channel::Assistant, content, meta));
                let calls = match m.get("toolCalls") {
                    None | Some(Value::Null) => &Vec::new(),
                    Some(Value::Array(calls)) => calls,
                    Some(other) => {
                        return Err(format!(
                            "`toolCalls` must be an array, not a {}",
                            kind(other)
                        ));
                    }
                };
                for call in calls {
                    let call = call.as_object().ok_or("a tool call must be an object")?;
                    self.tool_call(id, call, at)?;
                }
            }
            _ => self.sessions.ignored += 1,
        }
        Ok(())
    }

    fn tool_call(
        &mut self,
        message: &str,
        call: &Map<String, Value>,
        at: Option<Stamp>,
    ) -> Result<(), String> {
        let name = str_of(call, "name").ok_or("a tool call has no `name`")?;
        let call_id = str_of(call, "id").ok_or("a tool call has no `id`")?;
        let at = time_of(call, "timestamp")?.or(at);
        let args = call.get("args").cloned().unwrap_or_else(|| json!({}));
        let status = str_of(call, "status");
        self.push(reading::entry(
            format!("{message}#call:{call_id}"),
            at,
            Channel::ToolCall,
            format!("{name} {args}"),
            Meta::call(name, call_id),
        ));
        let result = call.get("result").filter(|r| !r.is_null());
        let finished = matches!(status, Some("success" | "error" | "cancelled"));
        if result.is_none() && !finished {
            return Ok(());
        }
        let output = result
            .map(result_text)
            .filter(|t| !t.is_empty())
            .or_else(|| str_of(call, "resultDisplay").map(str::to_string))
            .or_else(|| status.map(str::to_string))
            .unwrap_or_default();
        let mut meta = Meta::call(name, call_id);
        meta.insert("status", status);
        meta.set_is_error(status == Some("error"));
        self.push(reading::entry(
            format!("{message}#result:{call_id}"),
            at,
            Channel::ToolResult,
            output,
            meta,
        ));
        Ok(())
    }

    /// Adds `entry` unless it has no text (an assistant turn that only called tools).
    fn push(&mut self, entry: EntryRecord) {
        if entry.content.trim().is_empty() {
            self.sessions.ignored += 1;
        } else {
            self.sessions.push(&self.session, entry);
        }
    }
}

fn time_of(o: &Map<String, Value>, field: &str) -> Result<Option<Stamp>, String> {
    match o.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(value) => stamp(value)
            .map(Some)
            .map_err(|e| format!("`{field}`: {e}")),
    }
}

/// `**subject** description`, as the CLI shows a thought.
fn thought_text(thought: &Value) -> String {
    let part = |name: &str| {
        thought
            .get(name)
            .and_then(Value::as_str)
            .unwrap_or("")
            .trim()
    };
    match (part("subject"), part("description")) {
        ("", description) => description.to_string(),
        (subject, "") => format!("**{subject}**"),
        (subject, description) => format!("**{subject}** {description}"),
    }
}

/// The text of a tool's result: the `output` (or `error`) of its function responses, and
/// any text parts.
fn result_text(result: &Value) -> String {
    let parts = match result {
        Value::Array(parts) => parts.iter().collect(),
        other => vec![other],
    };
    let texts: Vec<String> = parts
        .into_iter()
        .filter_map(|part| match part {
            Value::String(text) => Some(text.clone()),
            Value::Object(o) => {
                if let Some(text) = str_of(o, "text") {
                    return Some(text.to_string());
                }
                let response = o.get("functionResponse")?.get("response")?;
                ["output", "error"]
                    .iter()
                    .find_map(|f| response.get(*f).and_then(Value::as_str))
                    .map(str::to_string)
                    .or_else(|| Some(response.to_string()))
            }
            _ => None,
        })
        .collect();
    texts.join("\n\n")
}

#[cfg(test)]
#[path = "gemini_tests.rs"]
mod tests;
