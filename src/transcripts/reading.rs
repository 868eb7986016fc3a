//! What reading gives, whichever format was read: the [`Format`] recognised, the
//! [`Reading`] made, or why a file was refused ([`ReadError`]); and an entry as the
//! readers that take no tags make it.

use std::fmt;

use crate::model::Meta;
use crate::model::count::plural;
use crate::model::time::Time;
use crate::model::transcript::{Channel, EntryRecord, Transcript};

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
    /// ([`opencode::read_path`](crate::transcripts::opencode::read_path)).
    OpenCode,
}

impl Format {
    /// Whether a file of this format can be read part by part as it grows
    /// ([`stream::Stream`](crate::transcripts::stream::Stream)); the others are read whole each time.
    pub fn reads_by_line(self) -> bool {
        matches!(self, Format::Jsonl | Format::ClaudeCode | Format::Codex)
    }
}

/// How many bad lines a [`ReadError`] lists; the rest are only counted.
pub const MAX_LISTED: usize = 20;

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
            write!(f, "{count} bad line{}: ", plural(count))?;
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

/// An entry without tags, as the readers of Gemini CLI, OpenCode and Aider make them.
pub(super) fn entry(
    key: String,
    ts: Option<Time>,
    channel: Channel,
    content: String,
    meta: Meta,
) -> EntryRecord {
    EntryRecord {
        key,
        ts,
        channel,
        content,
        tags: Vec::new(),
        meta,
    }
}
