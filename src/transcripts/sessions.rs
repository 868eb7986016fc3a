//! Sessions as a reader builds them: entries in file order, first and last times, and the
//! title chosen by one rule for every format.
//!
//! Title rule: the latest explicit title the source gives (Claude Code's `custom-title`,
//! Codex's thread name, a `title` field), else the latest tool summary (Claude Code's
//! `summary` records), else the first user message that is not injected context, else the
//! file's name; always one line of at most 120 characters.
//! Guarantees: a key appears once per session (a repeated one is dropped and counted, the
//! first kept); `started`/`ended` are the earliest and latest times seen, compared as
//! instants.

use std::collections::{HashMap, HashSet};

use crate::model::SessionId;
use crate::model::transcript::{EntryRecord, SessionRecord, Transcript};

use super::text;
use super::time::Stamp;

/// The sessions of one file, in order of first appearance.
#[derive(Debug)]
pub struct Sessions {
    source: &'static str,
    resumes_by_copy: bool,
    order: Vec<String>,
    drafts: HashMap<String, Draft>,
    /// Records read but not turned into entries (unknown kinds, duplicates, empty text).
    pub ignored: usize,
}

/// One session being built.
#[derive(Debug)]
pub struct Draft {
    pub record: SessionRecord,
    entries: Vec<EntryRecord>,
    keys: HashSet<String>,
    title: Option<String>,
    summary: Option<String>,
    first_user: Option<String>,
    first: Option<Stamp>,
    last: Option<Stamp>,
    /// The title the last take gave, once taken.
    taken_title: Option<String>,
}

impl Sessions {
    /// `source` names the tool (`claude-code`, `codex`, `jsonl`).
    pub fn new(source: &'static str) -> Sessions {
        Sessions {
            source,
            resumes_by_copy: false,
            order: Vec::new(),
            drafts: HashMap::new(),
            ignored: 0,
        }
    }

    /// Marks the sessions as resumed by copying (see `SessionRecord::resumes_by_copy`).
    pub fn resumed_by_copy(mut self) -> Sessions {
        self.resumes_by_copy = true;
        self
    }

    /// The session whose id is `raw_id` once made safe, started if new.
    pub fn session(&mut self, raw_id: &str) -> &mut Draft {
        let id = text::session_id(raw_id);
        if !self.drafts.contains_key(&id) {
            self.order.push(id.clone());
        }
        let (source, resumes_by_copy) = (self.source, self.resumes_by_copy);
        self.drafts.entry(id.clone()).or_insert_with(|| Draft {
            record: SessionRecord {
                source: source.to_string(),
                resumes_by_copy,
                ..SessionRecord::new(SessionId::derived(&id))
            },
            entries: Vec::new(),
            keys: HashSet::new(),
            title: None,
            summary: None,
            first_user: None,
            first: None,
            last: None,
            taken_title: None,
        })
    }

    /// Adds `entry` to the session `raw_id`; a key that session already has is dropped and
    /// counted as ignored.
    pub fn push(&mut self, raw_id: &str, entry: EntryRecord) {
        if !self.session(raw_id).push(entry) {
            self.ignored += 1;
        }
    }

    /// The sessions that have entries, each titled; `file_name` titles a session that has
    /// nothing better.
    pub fn finish(mut self, file_name: &str) -> Transcript {
        self.take(file_name)
    }

    /// What was read since the last take (of a file read as it grows): each session with
    /// the entries added since, and a session taken before whose title changed even with
    /// none. Its record says everything known so far (times, title, context), so the store
    /// widens what it holds; keys stay known, so a repeated one is still dropped.
    pub fn take(&mut self, file_name: &str) -> Transcript {
        let fallback = text::title(file_name.rsplit(['/', '\\']).next().unwrap_or(file_name));
        let mut sessions = Vec::new();
        for id in &self.order {
            if let Some(taken) = self.drafts.get_mut(id).and_then(|d| d.take(&fallback)) {
                sessions.push(taken);
            }
        }
        Transcript { sessions }
    }
}

impl Draft {
    /// Adds `entry` unless its key is taken, widening the time range to its time; false
    /// when the key was taken.
    pub fn push(&mut self, entry: EntryRecord) -> bool {
        if !self.keys.insert(entry.key.clone()) {
            return false;
        }
        if let Some(stamp) = &entry.ts {
            self.saw_time(stamp);
        }
        self.entries.push(entry);
        true
    }

    /// Widens the session's time range to include `stamp`.
    pub fn saw_time(&mut self, stamp: &Stamp) {
        if self.first.as_ref().is_none_or(|first| stamp < first) {
            self.first = Some(*stamp);
        }
        if self.last.as_ref().is_none_or(|last| stamp > last) {
            self.last = Some(*stamp);
        }
    }

    /// An explicit title; the latest one given wins.
    pub fn set_title(&mut self, title: &str) {
        if !title.trim().is_empty() {
            self.title = Some(title.to_string());
        }
    }

    /// A tool's summary of the session; the latest one given wins.
    pub fn set_summary(&mut self, summary: &str) {
        if !summary.trim().is_empty() {
            self.summary = Some(summary.to_string());
        }
    }

    /// Something the user wrote; the first that is not injected context titles the
    /// session when nothing better does.
    pub fn saw_user_text(&mut self, text: &str) {
        if self.first_user.is_none() && !text.trim().is_empty() && !text::is_injected(text) {
            self.first_user = Some(text.to_string());
        }
    }

    /// Sets `cwd` and `model` unless already known (the first seen wins).
    pub fn saw_context(&mut self, cwd: Option<&str>, model: Option<&str>) {
        let known = |field: &mut Option<String>, value: Option<&str>| {
            if field.is_none() {
                *field = value.filter(|v| !v.is_empty()).map(str::to_string);
            }
        };
        known(&mut self.record.cwd, cwd);
        known(&mut self.record.model, model);
    }

    /// The record as known now and the entries added since the last take; `None` when
    /// nothing is new (no entries, and no new title for a session taken before).
    fn take(&mut self, fallback: &str) -> Option<(SessionRecord, Vec<EntryRecord>)> {
        let candidates = [&self.title, &self.summary, &self.first_user];
        let titles: Vec<String> = candidates
            .into_iter()
            .flatten()
            .map(|t| text::title(t))
            .filter(|t| !t.is_empty())
            .collect();
        let chosen = titles
            .first()
            .cloned()
            .unwrap_or_else(|| fallback.to_string());
        let retitled = self
            .taken_title
            .as_ref()
            .is_some_and(|taken| *taken != chosen);
        if self.entries.is_empty() && !retitled {
            return None;
        }
        let mut record = self.record.clone();
        // A session read as it grows was stored under the titles known then: the store
        // replaces those with a better one, never a title of another origin.
        record.lesser_titles = titles
            .iter()
            .skip(1)
            .chain(std::iter::once(&fallback.to_string()))
            .filter(|t| **t != chosen)
            .cloned()
            .collect();
        record.title = chosen.clone();
        record.started = self.first;
        record.ended = self.last;
        self.taken_title = Some(chosen);
        Some((record, std::mem::take(&mut self.entries)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::transcript::Channel;
    use crate::store::memory::testing::time;
    use serde_json::json;

    fn entry(key: &str) -> EntryRecord {
        EntryRecord {
            key: key.to_string(),
            ts: None,
            channel: Channel::User,
            content: "x".to_string(),
            tags: Vec::new(),
            meta: json!({}).try_into().unwrap(),
        }
    }

    fn at(mut entry: EntryRecord, text: &str) -> EntryRecord {
        entry.ts = Some(super::super::time::stamp(&json!(text)).unwrap());
        entry
    }

    #[test]
    fn keeps_order_ids_times_and_drops_repeated_keys() {
        let mut sessions = Sessions::new("jsonl");
        sessions.push("b/1", at(entry("k1"), "2025-01-02T00:00:00Z"));
        sessions.push("a", entry("k1"));
        sessions.push("b/1", entry("k1"));
        sessions.push("b/1", at(entry("k2"), "2025-01-01T00:00:00.5Z"));
        assert_eq!(sessions.ignored, 1);
        let transcript = sessions.finish("dir/chat.jsonl");
        let ids: Vec<&str> = transcript
            .sessions
            .iter()
            .map(|(s, _)| s.id.as_str())
            .collect();
        assert_eq!(ids, ["b-1", "a"]);
        let (b, entries) = &transcript.sessions[0];
        assert_eq!(entries.len(), 2);
        assert_eq!(
            (b.started, b.ended),
            (time("2025-01-01T00:00:00.5Z"), time("2025-01-02T00:00:00Z"))
        );
        assert_eq!(b.title, "chat.jsonl");
        assert_eq!(b.source, "jsonl");
    }

    #[test]
    fn titles_prefer_explicit_then_summary_then_first_user_text() {
        let mut sessions = Sessions::new("jsonl");
        sessions.push("s", entry("k"));
        let s = sessions.session("s");
        s.saw_user_text("<command-name>/clear</command-name>");
        s.saw_user_text("Fix the\nbug");
        s.saw_user_text("later");
        assert_eq!(sessions.finish("f").sessions[0].0.title, "Fix the bug");

        let mut sessions = Sessions::new("jsonl");
        sessions.push("s", entry("k"));
        let s = sessions.session("s");
        s.saw_user_text("Fix the bug");
        s.set_summary("Rounding fix");
        assert_eq!(sessions.finish("f").sessions[0].0.title, "Rounding fix");

        let mut sessions = Sessions::new("jsonl");
        sessions.push("s", entry("k"));
        let s = sessions.session("s");
        s.set_summary("Rounding fix");
        s.set_title("Named by hand");
        assert_eq!(sessions.finish("f").sessions[0].0.title, "Named by hand");
    }
}
