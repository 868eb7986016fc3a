//! A session's digest: what can be read off its entries, computed, never invented — the
//! files it changed, the commands it ran and how many failed, the errors it hit, and the
//! sentences of user and assistant text that state decisions or pending work (the rule:
//! `sentences.rs`). Pure: entries in, facts out, each fact with the entry it came from.
//! Shown by `view.rs` at the top of the session's `_entry.md` and, while nobody wrote one,
//! as its `summary.md`; project files are linked to `source/` by `places.rs`.
//!
//! - Files: an editing tool call's files (`store::memory::touched`), relative to the
//!   session's working directory, each once, in the order first changed.
//! - Commands: tool calls of a shell tool (Claude Code's `Bash`, Codex's `shell`,
//!   `local_shell`, `exec_command`, Gemini's `run_shell_command`, chat exports' `bash`,
//!   `shell`, `run_command`, `terminal` …), their command taken from the arguments'
//!   `command` (a string, or words: `["bash", "-lc", "pytest"]` is `pytest`) or `cmd`, else
//!   the arguments as written.
//! - Failed: the tool_result answering a call (by `tool_use_id` or `call_id`; a result
//!   naming no call answers the oldest call naming none) has `is_error: true`, an
//!   `exit_code` other than 0 in its meta, or says so in its text as Codex writes it
//!   (`Exit code: 1`, `{"metadata": {"exit_code": 1}}`, `Process exited with code 1`).
//! - Errors: the first line of every failing result that names an error (else its first
//!   line that is not an exit code, a rule or blank), and error-level system entries; each
//!   text once.

mod places;
mod sentences;
pub mod view;

use std::collections::{HashMap, VecDeque};

use serde_json::Value;

use crate::model::transcript::{Channel, EntryRecord};
use crate::store::memory::EntryRow;
use crate::store::memory::touched::{files_changed, fold, relative_to, tool_and_arguments};
use crate::transcripts::is_injected;

pub use places::SourcePlaces;
pub use sentences::Stance;

/// Characters kept of a command, an error or a sentence: one line each.
const LINE_CHARS: usize = 160;

/// A fact and the entry (its seq) it was read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Noted {
    pub seq: i64,
    pub text: String,
}

/// A command a session ran.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    pub seq: i64,
    pub text: String,
    /// Whether the result answering it said it failed (`false` when no result came).
    pub failed: bool,
}

/// What a session's entries say it did, decided and left.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Digest {
    /// Paths relative to the session's folder (absolute when outside it).
    pub files: Vec<String>,
    pub commands: Vec<Command>,
    pub errors: Vec<Noted>,
    pub decisions: Vec<Noted>,
    pub pending: Vec<Noted>,
}

impl Digest {
    /// The digest of a session's `entries` (in seq order), which ran in `cwd`.
    pub fn of(entries: &[EntryRow], cwd: Option<&str>) -> Digest {
        let mut reading = Reading::new(cwd);
        for row in entries {
            reading.read(row);
        }
        reading.done()
    }

    /// Whether the entries gave nothing to show.
    pub fn is_empty(&self) -> bool {
        *self == Digest::default()
    }

    /// How many of its commands failed.
    pub fn failed(&self) -> usize {
        self.commands.iter().filter(|c| c.failed).count()
    }

    fn note_error(&mut self, seq: i64, line: String) {
        if !self.errors.iter().any(|e| e.text == line) {
            self.errors.push(Noted { seq, text: line });
        }
    }

    fn read_prose(&mut self, seq: i64, text: &str) {
        for (stance, sentence) in sentences::stated(text) {
            let sentence = one_line(&sentence);
            let list = match stance {
                Stance::Decision => &mut self.decisions,
                Stance::Pending => &mut self.pending,
            };
            if !list.iter().any(|n| n.text == sentence) {
                list.push(Noted {
                    seq,
                    text: sentence,
                });
            }
        }
    }
}

/// A digest being read off a session's entries, one at a time in seq order: a long
/// session's entries need not all be held at once.
pub struct Reading<'c> {
    digest: Digest,
    calls: Calls,
    cwd: Option<&'c str>,
}

impl<'c> Reading<'c> {
    /// The reading of a session that ran in `cwd`.
    pub fn new(cwd: Option<&'c str>) -> Reading<'c> {
        Reading {
            digest: Digest::default(),
            calls: Calls::default(),
            cwd,
        }
    }

    /// Reads the session's next entry.
    pub fn read(&mut self, row: &EntryRow) {
        let entry = &row.record;
        for file in files_changed(entry) {
            let file = relative_to(&file, self.cwd);
            if !self.digest.files.contains(&file) {
                self.digest.files.push(file);
            }
        }
        match entry.channel {
            Channel::ToolCall => {
                if let Some(text) = command_of(entry) {
                    self.calls.called(entry, self.digest.commands.len());
                    self.digest.commands.push(Command {
                        seq: row.seq,
                        text: one_line(&text),
                        failed: false,
                    });
                } else {
                    self.calls.called(entry, usize::MAX);
                }
            }
            Channel::ToolResult if failed(entry) => {
                if let Some(command) = self
                    .calls
                    .answered(entry)
                    .and_then(|i| self.digest.commands.get_mut(i))
                {
                    command.failed = true;
                }
                if let Some(line) = error_line(&result_text(entry)) {
                    self.digest.note_error(row.seq, line);
                }
            }
            Channel::ToolResult => {
                self.calls.answered(entry);
            }
            Channel::System if entry.meta.level() == Some("error") => {
                if let Some(line) = error_line(&entry.content) {
                    self.digest.note_error(row.seq, line);
                }
            }
            Channel::User | Channel::Assistant if !is_injected(&entry.content) => {
                self.digest.read_prose(row.seq, &entry.content);
            }
            _ => {}
        }
    }

    /// The digest of the entries read.
    pub fn done(self) -> Digest {
        self.digest
    }
}

/// Which command each tool call is, so its result can be matched to it: by the call's id,
/// else in order among the calls that name none.
#[derive(Default)]
struct Calls {
    by_id: HashMap<String, usize>,
    unnamed: VecDeque<usize>,
}

impl Calls {
    /// `entry` is a call; `command` its index among the commands (`usize::MAX`: not one).
    fn called(&mut self, entry: &EntryRecord, command: usize) {
        match call_id(entry) {
            Some(id) => {
                self.by_id.insert(id.to_string(), command);
            }
            None => self.unnamed.push_back(command),
        }
    }

    /// The command `entry`, a result, answers.
    fn answered(&mut self, entry: &EntryRecord) -> Option<usize> {
        let index = match call_id(entry) {
            Some(id) => self.by_id.remove(id),
            None => self.unnamed.pop_front(),
        }?;
        (index != usize::MAX).then_some(index)
    }
}

fn call_id(entry: &EntryRecord) -> Option<&str> {
    entry.meta.call_id()
}

/// Shell tools, folded as `touched::fold` folds a tool's name.
const SHELL_TOOLS: [&str; 11] = [
    "bash",
    "shell",
    "localshell",
    "exec",
    "execcommand",
    "containerexec",
    "runcommand",
    "runshellcommand",
    "runterminalcmd",
    "runterminalcommand",
    "terminal",
];

/// The command a shell tool call ran; `None` for every other entry.
fn command_of(entry: &EntryRecord) -> Option<String> {
    let (tool, arguments) = tool_and_arguments(entry);
    if !SHELL_TOOLS.contains(&fold(tool).as_str()) {
        return None;
    }
    let arguments = arguments.trim();
    let command = match serde_json::from_str::<Value>(arguments) {
        Ok(Value::Object(object)) => ["command", "cmd"]
            .iter()
            .find_map(|field| object.get(*field))
            .and_then(command_text),
        Ok(other) => command_text(&other),
        Err(_) => None,
    };
    let command = command.unwrap_or_else(|| arguments.to_string());
    (!command.trim().is_empty()).then_some(command)
}

/// A command given as a string or as words (`["bash", "-lc", "pytest -q"]` is `pytest -q`).
fn command_text(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Array(words) => {
            let words: Vec<&str> = words.iter().filter_map(Value::as_str).collect();
            match words.as_slice() {
                [shell, flag, script]
                    if matches!(*shell, "bash" | "sh" | "zsh" | "/bin/bash" | "/bin/sh")
                        && flag.starts_with('-')
                        && flag.ends_with('c') =>
                {
                    Some(script.to_string())
                }
                _ => Some(words.join(" ")),
            }
        }
        _ => None,
    }
}

/// Whether a tool result says it failed (see the module's rule).
fn failed(entry: &EntryRecord) -> bool {
    if entry.meta.is_error() == Some(true) {
        return true;
    }
    if entry.meta.exit_codes().any(|code| code != 0) {
        return true;
    }
    let nonzero = |v: &Value| v.as_i64().is_some_and(|code| code != 0);
    if let Ok(Value::Object(output)) = serde_json::from_str::<Value>(entry.content.trim())
        && let Some(code) = output
            .get("metadata")
            .and_then(|m| m.get("exit_code"))
            .or_else(|| output.get("exit_code"))
    {
        return nonzero(code);
    }
    entry
        .content
        .lines()
        .take(3)
        .any(|line| exit_code_in(line).is_some_and(|code| code != 0))
}

/// The exit code a line such as `Exit code: 1` or `Process exited with code 1` states.
fn exit_code_in(line: &str) -> Option<i64> {
    let lower = line.trim().to_lowercase();
    let rest = [
        "exit code:",
        "exit code",
        "process exited with code",
        "error: exit code",
    ]
    .iter()
    .find_map(|prefix| lower.strip_prefix(prefix))?;
    rest.trim().trim_end_matches('.').parse().ok()
}

/// The text of a result: a Codex JSON output's `output`, else the content as it is.
fn result_text(entry: &EntryRecord) -> String {
    match serde_json::from_str::<Value>(entry.content.trim()) {
        Ok(Value::Object(output)) => output
            .get("output")
            .and_then(Value::as_str)
            .map_or_else(|| entry.content.clone(), str::to_string),
        _ => entry.content.clone(),
    }
}

/// The first line of `text` that names an error, else its first line that is not noise
/// (an exit code, a timing, a rule of `=` or `-`, a tag); `None` when all of it is noise.
fn error_line(text: &str) -> Option<String> {
    let lines: Vec<&str> = text
        .lines()
        .map(|line| strip_tags(line.trim()))
        .filter(|line| !is_noise(line))
        .collect();
    let names_error = |line: &&&str| {
        let lower = line.to_lowercase();
        [
            "error",
            "failed",
            "exception",
            "not found",
            "no such",
            "denied",
            "fatal",
        ]
        .iter()
        .any(|word| lower.contains(word))
            && !lower.starts_with("traceback")
    };
    lines
        .iter()
        .find(names_error)
        .or(lines.first())
        .map(|line| one_line(line))
}

fn is_noise(line: &str) -> bool {
    let lower = line.to_lowercase();
    line.is_empty()
        || exit_code_in(line).is_some()
        || [
            "wall time:",
            "output:",
            "command:",
            "chunk id:",
            "original token count:",
        ]
        .iter()
        .any(|prefix| lower.starts_with(prefix))
        || line.chars().all(|c| !c.is_alphanumeric())
        || line
            .trim_matches(|c: char| c == '=' || c == '-' || c == '_')
            .len()
            < line.len() / 2
}

/// `<tool_use_error>text</tool_use_error>` → `text`.
fn strip_tags(line: &str) -> &str {
    let mut line = line;
    if line.starts_with('<')
        && let Some(end) = line.find('>')
    {
        line = &line[end + 1..];
    }
    if let Some(start) = line.rfind("</") {
        line = &line[..start];
    }
    line.trim()
}

fn one_line(text: &str) -> String {
    crate::render::one_line(text, LINE_CHARS)
}

#[cfg(test)]
mod tests;
