//! The transcript model: what a session and its entries are, as the readers
//! (`crate::transcripts`) make them from a tool's files and the store (`store::memory`)
//! keeps them. Plain data, shared by readers, store and the `memory/` resourcespace.

use std::fmt;

use super::{Meta, SessionId};
use crate::model::time::Time;

/// Who or what an entry is from. The seven channels `memory/_entry.md` documents.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Channel {
    User,
    Assistant,
    Thinking,
    ToolCall,
    ToolResult,
    System,
    Summary,
}

impl Channel {
    /// Every channel, in the order views list them.
    pub const ALL: [Channel; 7] = [
        Channel::User,
        Channel::Assistant,
        Channel::Thinking,
        Channel::ToolCall,
        Channel::ToolResult,
        Channel::System,
        Channel::Summary,
    ];

    /// A tool's call or output, not something said: memory search ranks what was said
    /// first (`store/memory/tiers.rs`).
    pub const TOOLS: [Channel; 2] = [Channel::ToolCall, Channel::ToolResult];

    /// The name in entry files and queries: `tool_call`.
    pub fn as_str(self) -> &'static str {
        match self {
            Channel::User => "user",
            Channel::Assistant => "assistant",
            Channel::Thinking => "thinking",
            Channel::ToolCall => "tool_call",
            Channel::ToolResult => "tool_result",
            Channel::System => "system",
            Channel::Summary => "summary",
        }
    }

    /// The channel named `name` (as `as_str` gives it).
    pub fn parse(name: &str) -> Option<Channel> {
        Channel::ALL.into_iter().find(|c| c.as_str() == name)
    }
}

impl fmt::Display for Channel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A session as an importer read it (or as `mkdir` starts it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionRecord {
    /// The session's id: the tool's own (Claude Code's `sessionId`, Codex's session id),
    /// else one derived from the file. Becomes the directory name, so the store takes
    /// only what [`SessionId::parse`] takes (readers make theirs with
    /// [`SessionId::derived`]).
    pub id: SessionId,
    /// The tool it came from: `claude-code`, `codex`, `jsonl`, `homespace` (recorded live).
    pub source: String,
    /// The times of its first and last entries, when known.
    pub started: Option<Time>,
    pub ended: Option<Time>,
    /// One line: the tool's title or summary, else the first user message, cut short.
    pub title: String,
    /// The working directory or project it ran in.
    pub cwd: Option<String>,
    pub model: Option<String>,
    /// The session this one continues, when the tool says so.
    pub continuation_of: Option<String>,
    /// The tool resumes a session under a new id by copying its entries, each keyed by an
    /// id of its own (Claude Code): a new id whose entries open a stored session joins it.
    /// Keys made from a line's text (Codex, generic JSONL) repeat by chance — two chats
    /// opening with the same system prompt — so those sessions never join another.
    pub resumes_by_copy: bool,
    /// Titles the reader gave this session before it knew a better one (the file's name,
    /// the first user message before the tool's own title came): a stored session titled
    /// with one of them takes `title` instead. Not stored.
    pub lesser_titles: Vec<String>,
}

impl SessionRecord {
    /// Session `id`, of which nothing else is known yet.
    pub fn new(id: SessionId) -> Self {
        SessionRecord {
            id,
            source: String::new(),
            started: None,
            ended: None,
            title: String::new(),
            cwd: None,
            model: None,
            continuation_of: None,
            resumes_by_copy: false,
            lesser_titles: Vec::new(),
        }
    }
}

/// One entry of a session as an importer read it.
#[derive(Debug, Clone, PartialEq)]
pub struct EntryRecord {
    /// What identifies this entry in its source, stable across imports of the same file
    /// (Claude Code's `uuid`; else a hash of the line): importing a file twice, or a
    /// second file that repeats entries of a session it continues, adds nothing.
    pub key: String,
    /// When it was written, when known.
    pub ts: Option<Time>,
    pub channel: Channel,
    pub content: String,
    pub tags: Vec<String>,
    /// Anything else worth keeping from the source (tool name, call id, sidechain, ...).
    pub meta: Meta,
}

/// One file's worth of memory: sessions with their entries, in file order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Transcript {
    pub sessions: Vec<(SessionRecord, Vec<EntryRecord>)>,
}
