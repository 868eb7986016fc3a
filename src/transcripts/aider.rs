//! Aider's chat history, `.aider.chat.history.md` in the project (its git root): markdown
//! that aider only ever appends to.
//!
//! `# aider chat started at <YYYY-MM-DD HH:MM:SS>` opens a session; `#### ` lines are what
//! the user typed (consecutive ones are one multi-line input) → user; `> ` lines are
//! aider's own output (each line one tool_result, meta `tool` = `aider`, with the lines
//! after it up to a blank one, as markdown continues a quote); the rest is the assistant's
//! reply. Aider ends every line it writes for the user or itself with two spaces (a
//! markdown hard break), and the model's text has none: so in a reply, a `> ` quote or a
//! `#### ` line (a heading, a `####` comment in code) without them stays the reply's.
//!
//! Tool calls: aider has none in its history, but two things it does are calls in all but
//! name, and memory needs them as such to tell what a session changed and ran:
//! - `> Applied edit to <path>` is an `edit {"file_path": <path>}` tool_call followed by
//!   that line as its result;
//! - `/run <command>`, `/test <command>` and `!<command>` are a `run` / `test` tool_call
//!   `{"command": …}` after the user's line, and the output lines up to the next input are
//!   its results (meta `tool`, `call_id`). The history does not tell errors from output, so
//!   `is_error` is always false.
//!
//! Times: aider writes the session's start in local time without a zone; it is read as
//! UTC (off by the writer's offset), and every entry of the session carries it, the only
//! time the file gives. The session's id is `aider-<that time>` (`-2`, … for a repeat in
//! one file); its `cwd` is the file's folder when an import reads it from its place
//! ([`placed`]); `Main model:` in the startup lines names its model; its title is the first
//! input that is not an aider command (`/add …`).
//!
//! Keys hash the session's opening line with the block's kind and text, and count repeats
//! (as `LineKeys` does): appending to the file keeps every key it gave.

use std::path::Path;

use serde_json::{Value, json};

use crate::model::Meta;
use crate::model::transcript::Channel;

use super::lines::{BadLines, LineKeys};
use super::reading::{self, Reading};
use super::sessions::Sessions;
use super::text;
use super::time::{Stamp, stamp};

pub const SOURCE: &str = "aider";

/// The name aider gives its history file.
pub const FILE_NAME: &str = ".aider.chat.history.md";

const OPENING: &str = "# aider chat started at ";

/// Whether `bytes` are an aider history: its first non-blank line opens a session.
pub fn is_history(bytes: &[u8]) -> bool {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let start = bytes.iter().position(|b| !b.is_ascii_whitespace());
    start.is_some_and(|start| bytes[start..].starts_with(OPENING.as_bytes()))
}

/// What a block of the history is.
#[derive(Clone, Copy, PartialEq)]
enum Block {
    Input,
    Output,
    Reply,
}

pub fn read(bytes: &[u8], bad: &mut BadLines) -> Sessions {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let mut reader = Reader {
        sessions: Sessions::new(SOURCE),
        keys: LineKeys::default(),
        session: None,
        ids: Vec::new(),
        block: None,
        text: Vec::new(),
        command: None,
    };
    for (index, line) in bytes.split(|&b| b == b'\n').enumerate() {
        let number = index + 1;
        match std::str::from_utf8(line) {
            Ok(line) => {
                if let Err(reason) = reader.line(line.trim_end_matches('\r')) {
                    bad.add(number, reason);
                }
            }
            Err(e) => bad.add(
                number,
                format!(
                    "not UTF-8 text (invalid byte at column {})",
                    e.valid_up_to() + 1
                ),
            ),
        }
    }
    reader.close_block();
    reader.sessions
}

/// `reading` of the history at `path`, its sessions placed in the file's folder: aider
/// writes its history in the project it works on.
pub fn placed(mut reading: Reading, path: &Path) -> Reading {
    let folder = std::path::absolute(path)
        .ok()
        .and_then(|p| Some(p.parent()?.to_string_lossy().into_owned()));
    if let Some(folder) = folder {
        for (session, _) in &mut reading.transcript.sessions {
            session.cwd.get_or_insert_with(|| folder.clone());
        }
    }
    reading
}

/// The session being read.
struct Session {
    id: String,
    opening: String,
    at: Option<Stamp>,
}

/// The command a `/run`-like input started, whose output follows it.
struct Command {
    tool: &'static str,
    call_id: String,
}

struct Reader {
    sessions: Sessions,
    keys: LineKeys,
    session: Option<Session>,
    /// Session ids given so far, so that a repeated opening gets an id of its own.
    ids: Vec<String>,
    block: Option<Block>,
    text: Vec<String>,
    command: Option<Command>,
}

impl Reader {
    fn line(&mut self, line: &str) -> Result<(), String> {
        if let Some(when) = line.strip_prefix(OPENING) {
            self.close_block();
            return self.open_session(line, when.trim());
        }
        // Aider ends each line of its own (inputs, its output) with a markdown hard break;
        // in a reply, a `> ` quote or a `#### ` heading or comment the model wrote has none.
        let the_replys = self.block == Some(Block::Reply) && !line.ends_with("  ");
        if let Some(input) = line
            .strip_prefix("####")
            .filter(|rest| !the_replys && (rest.is_empty() || rest.starts_with(' ')))
        {
            if self.block != Some(Block::Input) {
                self.close_block();
                self.block = Some(Block::Input);
            }
            self.text
                .push(hard_break_dropped(input.strip_prefix(' ').unwrap_or(input)));
            return Ok(());
        }
        if let Some(output) = line.strip_prefix('>').filter(|_| !the_replys) {
            self.close_block();
            self.block = Some(Block::Output);
            self.text.push(hard_break_dropped(
                output.strip_prefix(' ').unwrap_or(output),
            ));
            return Ok(());
        }
        if line.trim().is_empty() {
            if self.block == Some(Block::Reply) {
                self.text.push(String::new());
            } else {
                self.close_block();
            }
            return Ok(());
        }
        match self.block {
            // Markdown's lazy continuation: the line belongs to the quote above it.
            Some(Block::Output) => self.text.push(hard_break_dropped(line)),
            Some(Block::Reply) => self.text.push(line.to_string()),
            _ => {
                self.close_block();
                self.block = Some(Block::Reply);
                self.text.push(line.to_string());
            }
        }
        Ok(())
    }

    fn open_session(&mut self, opening: &str, when: &str) -> Result<(), String> {
        let at = stamp(&Value::from(format!("{when}Z")))
            .map_err(|e| format!("the session's start {when:?} is no time: {e}"))?;
        let base = text::session_id(&format!("aider-{}", when.replace([' ', ':'], "-")));
        let repeats = self.ids.iter().filter(|id| **id == base).count();
        self.ids.push(base.clone());
        let id = match repeats {
            0 => base,
            n => format!("{base}-{}", n + 1),
        };
        let draft = self.sessions.session(&id);
        draft.saw_time(&at);
        self.command = None;
        self.session = Some(Session {
            id,
            opening: opening.to_string(),
            at: Some(at),
        });
        Ok(())
    }

    /// Turns the block read so far into entries.
    fn close_block(&mut self) {
        let (Some(block), Some(session)) = (self.block.take(), &self.session) else {
            self.text.clear();
            return;
        };
        let text = std::mem::take(&mut self.text).join("\n").trim().to_string();
        if text.is_empty() {
            return;
        }
        let kind = match block {
            Block::Input => "input",
            Block::Output => "output",
            Block::Reply => "reply",
        };
        let key = self
            .keys
            .key(&format!("{}\n{kind}\n{text}", session.opening));
        let (id, at) = (session.id.clone(), session.at);
        let entry = |key, channel, content, meta| reading::entry(key, at, channel, content, meta);
        match block {
            Block::Input => {
                let command = command_of(&text);
                if !text.starts_with('/') && !text.starts_with('!') {
                    self.sessions.session(&id).saw_user_text(&text);
                }
                self.sessions.push(
                    &id,
                    entry(key.clone(), Channel::User, text.clone(), Meta::default()),
                );
                self.command = command.map(|(tool, command)| {
                    let call = format!("{tool} {}", json!({ "command": command }));
                    let meta = Meta::call(tool, key.as_str());
                    self.sessions.push(
                        &id,
                        entry(format!("{key}.call"), Channel::ToolCall, call, meta),
                    );
                    Command { tool, call_id: key }
                });
            }
            Block::Output => {
                if let Some(model) = text
                    .strip_prefix("Main model: ")
                    .or_else(|| text.strip_prefix("Model: "))
                {
                    let model = model.split(" with ").next().unwrap_or(model).trim();
                    self.sessions.session(&id).saw_context(None, Some(model));
                }
                let mut meta = Meta::default();
                meta.set_tool("aider");
                meta.set_is_error(false);
                if let Some(path) = text.strip_prefix("Applied edit to ") {
                    let call = format!("edit {}", json!({ "file_path": path.trim() }));
                    let call_meta = Meta::call("edit", key.as_str());
                    self.sessions.push(
                        &id,
                        entry(format!("{key}.call"), Channel::ToolCall, call, call_meta),
                    );
                    meta = Meta::call("edit", key.as_str());
                    meta.set_is_error(false);
                } else if let Some(command) = &self.command {
                    meta = Meta::call(command.tool, command.call_id.as_str());
                    meta.set_is_error(false);
                }
                self.sessions
                    .push(&id, entry(key, Channel::ToolResult, text, meta));
            }
            Block::Reply => {
                self.command = None;
                self.sessions
                    .push(&id, entry(key, Channel::Assistant, text, Meta::default()));
            }
        }
    }
}

/// The tool and command of an input that runs one: `/run x`, `/test x`, `!x`.
fn command_of(input: &str) -> Option<(&'static str, &str)> {
    let (tool, rest) = if let Some(rest) = input.strip_prefix('!') {
        ("run", rest)
    } else if let Some(rest) = input.strip_prefix("/run ") {
        ("run", rest)
    } else if let Some(rest) = input.strip_prefix("/test ") {
        ("test", rest)
    } else {
        return None;
    };
    Some((tool, rest.trim())).filter(|(_, command)| !command.is_empty())
}

/// A line without the two trailing spaces aider writes as a markdown hard break.
fn hard_break_dropped(line: &str) -> String {
    line.strip_suffix("  ").unwrap_or(line).to_string()
}

#[cfg(test)]
#[path = "aider_tests.rs"]
mod tests;
