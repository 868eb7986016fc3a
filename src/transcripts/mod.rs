//! Transcript readers: one file's bytes → a [`Transcript`] of sessions and entries (the
//! model of `crate::model::transcript`); they read, and never store. Formats are recognised from content, never from the file name:
//! generic JSONL and chat exports ([`generic`]), Claude Code session files ([`claude`]),
//! Codex CLI rollouts ([`codex`]), Gemini CLI sessions ([`gemini`]: a JSONL log, or one
//! JSON document over many lines) and Aider's markdown chat history ([`aider`]); the last
//! two are recognised before the file is read as lines of JSON. OpenCode keeps a session in
//! many files or in a database, so [`opencode`] reads from a path, not from bytes; what a
//! file's place says and its content does not (the project of a Gemini CLI session or an
//! Aider history) is added by [`placed`]. From disk: [`walk`] says which files a set of
//! paths names, [`file`] reads one, and only the owner's own regular files are opened
//! ([`trusted`]); [`places`] says where a project's agents write theirs. Storing what is
//! read is `crate::memory`'s.
//!
//! Guarantees:
//! - A file is read whole or not at all: any bad line (not JSON, not an object, a known
//!   kind of record without what it needs) refuses the file, and the [`ReadError`] lists
//!   the bad lines with their numbers and reasons (the first 20; the rest are counted).
//!   Records of kinds a format does not use (Claude Code's `file-history-snapshot`,
//!   Codex's `token_count` events, …) are skipped and counted, never bad.
//! - Reading the same bytes twice gives the same transcript, keys included; so do later
//!   versions of a file that only grew or was rewritten with more (Claude Code's `uuid`s,
//!   Gemini CLI's and OpenCode's ids; elsewhere a hash of the line, or of Aider's block,
//!   and which occurrence of it this is).
//! - Session ids are made by `crate::model::SessionId::derived`, so the store takes
//!   them; titles are one line of at most 120 characters; times are RFC 3339 UTC.
//!
//! ```
//! use homespace::transcripts::{self, Format};
//! let bytes = br#"{"ts": "2025-03-01T10:00:00Z", "role": "user", "content": "Fix the rounding bug"}"#;
//! assert_eq!(transcripts::format_of(bytes), Some(Format::Jsonl));
//! let transcript = transcripts::read(bytes, "chat.jsonl").unwrap();
//! assert_eq!(transcript.sessions[0].0.title, "Fix the rounding bug");
//! ```

pub mod aider;
pub mod claude;
pub mod codex;
pub mod file;
pub mod gemini;
pub mod generic;
mod line_reader;
mod lines;
pub mod opencode;
pub mod places;
mod sessions;
pub mod stream;
mod text;
mod time;
pub mod trusted;
pub mod walk;

/// Whether a user turn is context a tool injected, not what anyone typed (the digest
/// reads no such text).
pub use text::is_injected;

use std::fmt;

use serde_json::{Map, Value};

use crate::model::transcript::Transcript;

pub use lines::MAX_LISTED;

/// The transcript formats this module reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// One entry per line: `ts`, `role` or `channel`, `content`.
    Jsonl,
    /// Claude Code's `~/.claude/projects/<project>/<session>.jsonl`.
    ClaudeCode,
    /// Codex CLI's `~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`.
    Codex,
    /// Gemini CLI's `~/.gemini/tmp/<project>/chats/session-*.jsonl` (or `.json`).
    GeminiCli,
    /// Aider's `.aider.chat.history.md` (markdown, not JSON).
    Aider,
    /// OpenCode's database or JSON storage: read from a path, not from one file's bytes
    /// ([`opencode::read_path`]).
    OpenCode,
}

impl Format {
    /// Whether a file of this format can be read part by part as it grows
    /// ([`stream::Stream`]); the others are read whole each time.
    pub fn reads_by_line(self) -> bool {
        matches!(self, Format::Jsonl | Format::ClaudeCode | Format::Codex)
    }
}

/// Why a file was refused: its bad lines as (line number, reason), in line order, at most
/// [`MAX_LISTED`]; `more` counts the bad lines not listed. Line 0 stands for the file as a
/// whole (it could not be read, or the store refused it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadError {
    pub bad_lines: Vec<(usize, String)>,
    pub more: usize,
}

impl ReadError {
    /// A problem with the whole file rather than with one of its lines.
    pub fn whole_file(reason: impl Into<String>) -> ReadError {
        ReadError {
            bad_lines: vec![(0, reason.into())],
            more: 0,
        }
    }

    /// This error and `other`'s bad lines together, in line order, at most [`MAX_LISTED`].
    pub fn and(mut self, other: ReadError) -> ReadError {
        self.bad_lines.extend(other.bad_lines);
        self.bad_lines.sort_by_key(|(line, _)| *line);
        self.more += other.more + self.bad_lines.len().saturating_sub(MAX_LISTED);
        self.bad_lines.truncate(MAX_LISTED);
        self
    }

    /// How many lines are bad, listed or not.
    pub fn count(&self) -> usize {
        self.bad_lines.iter().filter(|(line, _)| *line > 0).count() + self.more
    }
}

impl fmt::Display for ReadError {
    /// `3 bad lines: line 2: invalid JSON: …; line 5: no `content`; …`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let count = self.count();
        if count > 0 {
            write!(f, "{count} bad line{}: ", if count == 1 { "" } else { "s" })?;
        }
        for (i, (line, reason)) in self.bad_lines.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            if *line == 0 {
                f.write_str(reason)?;
            } else {
                write!(f, "line {line}: {reason}")?;
            }
        }
        if self.more > 0 {
            write!(f, "; and {} more", self.more)?;
        }
        Ok(())
    }
}

impl std::error::Error for ReadError {}

/// What reading a file gave: its format, the transcript, and how many records were
/// skipped (kinds the format does not use, repeated keys, records with no text).
#[derive(Debug, Clone, PartialEq)]
pub struct Reading {
    /// `None` when no record looked like any format; the file was read as generic JSONL.
    pub format: Option<Format>,
    pub transcript: Transcript,
    pub ignored: usize,
}

impl Reading {
    fn of(format: Format, sessions: sessions::Sessions, file_name: &str) -> Reading {
        let ignored = sessions.ignored;
        Reading {
            format: Some(format),
            transcript: sessions.finish(file_name),
            ignored,
        }
    }
}

/// An entry without tags, as the readers of Gemini CLI, OpenCode and Aider make them.
fn entry(
    key: String,
    ts: Option<time::Stamp>,
    channel: crate::model::transcript::Channel,
    content: String,
    meta: crate::model::Meta,
) -> crate::model::transcript::EntryRecord {
    crate::model::transcript::EntryRecord {
        key,
        ts,
        channel,
        content,
        tags: Vec::new(),
        meta,
    }
}

/// `reading` of the file at `path`, with what the file's place says and its content does
/// not: the project of a Gemini CLI session (the `.project_root` beside `chats/`) or of an
/// Aider history (the folder it is in).
pub fn placed(reading: Reading, path: &std::path::Path) -> Reading {
    match reading.format {
        Some(Format::GeminiCli) => gemini::placed(reading, path),
        Some(Format::Aider) => aider::placed(reading, path),
        _ => reading,
    }
}

/// The format of `bytes`: the first record (in line order) that only one format writes
/// decides. `None` when no line is such a record (empty files, other JSON, not JSON).
pub fn format_of(bytes: &[u8]) -> Option<Format> {
    if gemini::document(bytes).is_some() {
        return Some(Format::GeminiCli);
    }
    if aider::is_history(bytes) {
        return Some(Format::Aider);
    }
    let mut ignore = lines::BadLines::default();
    lines::records(bytes, &mut ignore)
        .iter()
        .find_map(|line| format_of_record(&line.object))
}

fn format_of_record(o: &Map<String, Value>) -> Option<Format> {
    let has = |name: &str| o.contains_key(name);
    if gemini::is_record(o) {
        return Some(Format::GeminiCli);
    }
    match o.get("type").and_then(Value::as_str) {
        Some(kind) if codex::LINE_TYPES.contains(&kind) && has("payload") => {
            return Some(Format::Codex);
        }
        Some(_) if has("sessionId") || has("leafUuid") || has("messageId") && has("snapshot") => {
            return Some(Format::ClaudeCode);
        }
        _ => {}
    }
    if codex::is_old_meta(o) || has("record_type") {
        Some(Format::Codex)
    } else if has("content") && (has("role") || has("channel")) {
        Some(Format::Jsonl)
    } else {
        None
    }
}

/// Reads one file's `bytes`; `file_name` names sessions and titles that the content does
/// not. A file of no recognisable format is read as generic JSONL, so its bad lines say
/// what is wrong with them.
pub fn read(bytes: &[u8], file_name: &str) -> Result<Transcript, ReadError> {
    read_counted(bytes, file_name).map(|reading| reading.transcript)
}

/// [`read`], also saying the format and how many records were skipped.
pub fn read_counted(bytes: &[u8], file_name: &str) -> Result<Reading, ReadError> {
    // A whole JSON document over many lines is no JSONL: it is recognised before lines are.
    if let Some(document) = gemini::document(bytes) {
        let sessions = gemini::read_document(&document.map_err(ReadError::whole_file)?, file_name)?;
        return Ok(Reading::of(Format::GeminiCli, sessions, file_name));
    }
    if aider::is_history(bytes) {
        let mut bad = lines::BadLines::default();
        let sessions = aider::read(bytes, &mut bad);
        if !bad.is_empty() {
            return Err(bad.into_error());
        }
        return Ok(Reading::of(Format::Aider, sessions, file_name));
    }
    let mut stream = stream::Stream::new(file_name);
    let part = stream.read(bytes, Some(Format::Jsonl));
    if !part.read && stream.format() == Some(Format::GeminiCli) {
        // A message is written again as it changes: the file is read whole.
        let mut bad = lines::BadLines::default();
        let records = lines::records(bytes, &mut bad);
        let sessions = gemini::read(&records, &mut bad, file_name);
        if !bad.is_empty() {
            return Err(bad.into_error());
        }
        return Ok(Reading::of(Format::GeminiCli, sessions, file_name));
    }
    let rest = stream.finish();
    if part.bad.count() + rest.bad.count() > 0 {
        return Err(part.bad.and(rest.bad));
    }
    let mut transcript = part.transcript;
    transcript.sessions.extend(rest.transcript.sessions);
    Ok(Reading {
        format: stream.format(),
        transcript,
        ignored: part.ignored + rest.ignored,
    })
}

#[cfg(test)]
mod tests;
