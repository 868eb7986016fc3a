//! Transcript readers: one file's bytes → a [`Transcript`] of sessions and entries (the
//! model of `crate::model::transcript`); they read, and never store. Formats are recognised from content, never from the file name:
//! generic JSONL and chat exports ([`generic`]), Claude Code session files ([`claude`]),
//! Codex CLI rollouts ([`codex`]), Gemini CLI sessions ([`gemini`]: a JSONL log, or one
//! JSON document over many lines) and Aider's markdown chat history ([`aider`]); the last
//! two are recognised before the file is read as lines of JSON. OpenCode keeps a session in
//! many files or in a database, so [`opencode`] reads from a path, not from bytes; what a
//! file's place says and its content does not (the project of a Gemini CLI session or an
//! Aider history) is added by [`placed`]. From disk: [`walk`] says which files a set of
//! paths names, [`file`](mod@file) reads one, and only the owner's own regular files are opened
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
mod reading;
mod recognise;
mod sessions;
pub mod stream;
mod text;
mod time;
pub mod trusted;
pub mod walk;

/// Whether a user turn is context a tool injected, not what anyone typed (the digest
/// reads no such text).
pub use text::is_injected;

use crate::model::transcript::Transcript;

pub use reading::{Format, MAX_LISTED, ReadError, Reading};
pub use recognise::format_of;

/// What reading a file of `format` gave, once its `sessions` are read.
fn reading_of(format: Format, sessions: sessions::Sessions, file_name: &str) -> Reading {
    let ignored = sessions.ignored;
    Reading {
        format: Some(format),
        transcript: sessions.finish(file_name),
        ignored,
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
        return Ok(reading_of(Format::GeminiCli, sessions, file_name));
    }
    if aider::is_history(bytes) {
        let mut bad = lines::BadLines::default();
        let sessions = aider::read(bytes, &mut bad);
        if !bad.is_empty() {
            return Err(bad.into_error());
        }
        return Ok(reading_of(Format::Aider, sessions, file_name));
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
        return Ok(reading_of(Format::GeminiCli, sessions, file_name));
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
