//! `memory/`: the agent's past sessions — imported from transcripts or recorded live —
//! browsable by day (`sessions/`, each session also as a paged `conversation/`), by tag
//! (`tags/`), by the files they changed (`files/`), searchable with bm25 and snippets (`search/memory:<words>`; each hit with the
//! turns around it), and recalled: `recall` and each session's `related.md` list
//! the past sessions most like the latest one. Each part is a resourcespace of its own.

mod changed_files;
pub mod conversation;
pub mod digest;
pub mod document;
pub mod follow;
mod import;
mod names;
pub mod sessions;
pub mod summary;
mod tags;
pub mod views;

#[cfg(test)]
mod backends;
#[cfg(test)]
mod context_tests;
#[cfg(test)]
mod listing_tests;
#[cfg(test)]
mod reftest;

use std::sync::Arc;

use crate::error::{Error, ErrorKind, Result};
use crate::model::count::{one_or_many, plural};
use crate::model::transcript::Channel;
use crate::model::{Child, Entry, Hit, Hits, Kind, Links, Node, RootPart, Verb};
use crate::store::Store;
use crate::store::memory::changed::FileOrder;
use crate::tree::glance::Glance;
use crate::tree::lock;
use crate::tree::resource::{Capabilities, Live, Search};
use crate::tree::resource::{Outside, Resource};

/// Hits on a page of `search/memory:…`: each comes with the turns around it, and an agent
/// reads them one by one.
const PER_PAGE: usize = 3;
/// Hits fetched per hit shown, so that repeats of a text can be left out.
const REPEATS_FETCHED: usize = 3;
/// The recall view at the top of `memory/`.
const RECALL: &str = "recall";
/// Characters of a search hit's snippet at most (the store's snippets are shorter: this
/// only bounds what escaping may add).
const SNIPPET_CHARS: usize = 400;
/// Changed files looked at for a file a query names (the most often changed first).
const FILES_LOOKED: usize = 10_000;
/// Files named per word of a query that names a file.
const FILES_NAMED: usize = 2;
const RECENT_HERE: usize = 5;
/// Sessions `recall` lists.
const RECALLED: usize = 5;
/// Memory hits in a search of every area: each brings its context.
const GLANCE: usize = 2;

/// The memory resourcespace.
pub struct Memory {
    store: Arc<Store>,
    links: Links,
    budget: usize,
    children: Vec<Arc<dyn Resource>>,
    /// The transcripts to follow once mounted.
    following: Option<follow::Following>,
}

impl Memory {
    /// Memory of the project at `project`, whose files the sessions' digests link to.
    pub fn new(store: Arc<Store>, links: Links, budget: usize, project: &std::path::Path) -> Self {
        let children: Vec<Arc<dyn Resource>> = vec![
            Arc::new(sessions::Sessions::new(
                store.clone(),
                links.clone(),
                budget,
                digest::SourcePlaces::of(project),
            )),
            Arc::new(tags::Tags::new(store.clone(), links.clone())),
            Arc::new(changed_files::Files::new(store.clone(), links.clone())),
            Arc::new(import::Import::new(store.clone(), links.clone())),
        ];
        Memory {
            store,
            links,
            budget,
            children,
            following: None,
        }
    }

    /// Follows `following`'s transcripts once mounted.
    pub fn following(mut self, following: follow::Following) -> Self {
        self.following = Some(following);
        self
    }

    /// `memory/recall`: the sessions most like the most recent one.
    fn recall(&self) -> Result<String> {
        let recent = self.store.memory(|m| m.recent_sessions(1))?;
        let Some(latest) = recent.first() else {
            return Ok(format!(
                "home > memory > recall\n# Recall\nNo sessions yet: import transcripts into {}.\n",
                self.links.dir(&["memory", "import"])
            ));
        };
        let related = self.store.memory(|m| m.related(latest.rowid, RECALLED))?;
        Ok(views::related_from(
            "home > memory > recall",
            latest,
            &related,
            &self.links,
            self.budget,
        ))
    }
}

impl Resource for Memory {
    fn name(&self) -> &'static str {
        "memory"
    }

    fn children(&self) -> &[Arc<dyn Resource>] {
        &self.children
    }

    fn summary(&self) -> Result<String> {
        let stats = self.store.memory(|m| m.stats())?;
        Ok(match stats.sessions {
            0 => "past sessions: none stored yet".into(),
            n => format!(
                "past sessions: {n} session{}, {} entries, latest on {}",
                plural(n),
                stats.entries,
                stats.last_day.unwrap_or_default()
            ),
        })
    }

    /// The latest session in one line, how to recall, and how many sessions there are.
    fn root_part(&self) -> Result<RootPart> {
        let stats = self.store.memory(|m| m.stats())?;
        let latest = self.store.memory(|m| m.recent_sessions(1))?;
        let state = latest
            .iter()
            .map(|row| {
                format!(
                    "Latest session: `{}` — {}",
                    views::session_dir(row, &self.links),
                    views::cut_to(&row.record.title, 48)
                )
            })
            .collect();
        let recall = self.links.to("memory/recall");
        Ok(RootPart {
            state,
            verbs: vec![Verb::new(
                "recall similar past work",
                format!("cat {recall}"),
            )],
            place: format!(
                "memory/ ({} session{})",
                stats.sessions,
                plural(stats.sessions)
            ),
        })
    }

    fn stat(&self, _glance: &Glance, path: &[&str]) -> Result<Node> {
        match path {
            [] => Ok(Node::dir(false)),
            [RECALL] => Ok(Node::view()),
            _ => Err(Error::not_found(format!(
                "{} does not exist: {} says what memory holds",
                self.links.to(&format!("memory/{}", path.join("/"))),
                self.links.to("memory/_entry.md")
            ))),
        }
    }

    fn list(&self, glance: &Glance, path: &[&str]) -> Result<Vec<Child>> {
        self.stat(glance, path)?;
        Ok(vec![Child::new(
            RECALL,
            Kind::View,
            "past sessions most like the latest one",
        )])
    }

    fn read(&self, glance: &Glance, path: &[&str]) -> Result<Vec<u8>> {
        match path {
            [RECALL] => Ok(self.recall()?.into_bytes()),
            _ => Err(self.stat(glance, path).err().unwrap_or_else(|| {
                Error::new(
                    ErrorKind::IsADirectory,
                    "memory/ is a directory: read its _entry.md",
                )
            })),
        }
    }

    fn entry(&self, _glance: &Glance, _path: &[&str]) -> Result<Entry> {
        let (stats, recent) = self
            .store
            .memory(|m| Ok((m.stats()?, m.recent_sessions(RECENT_HERE)?)))?;
        let mut entry = views::root(&stats, &recent, &self.links);
        if let Some(following) = &self.following {
            entry.about.push(lock(&following.status).line());
        }
        Ok(entry)
    }

    fn capabilities(&self) -> Capabilities<'_> {
        Capabilities {
            search: Some(self),
            live: Some(self),
            ..Capabilities::default()
        }
    }
}

impl Search for Memory {
    fn glance_hits(&self) -> usize {
        GLANCE
    }

    /// Entry hits arrive with the turns around them (`conversation::context`): a decision
    /// and its reason are often neighbours, and one hit in context beats several bare ones.
    ///
    /// A text already shown by a better hit (the same prompt given in many sessions, a
    /// session's title that is its first message) is not shown again: the first hit says
    /// in how many more places it is, and the next distinct hit takes the place.
    fn search(&self, query: &str, limit: usize) -> Result<Hits> {
        // More than asked: repeats are dropped. Dropping a hit depends only on the hits
        // ranked before it, so pages cut from longer lists agree.
        let fetched = limit.saturating_mul(REPEATS_FETCHED);
        let (found, total, note) = self.store.memory(|m| m.search(query, fetched))?;
        // Whether a distinct hit was left for a later page, or the store had more to give.
        let mut cut = found.len() >= fetched;
        let mut hits: Vec<Hit> = Vec::new();
        // Each text shown, with the hit showing it; how many hits repeated each hit's text.
        let mut texts: Vec<(String, usize)> = Vec::new();
        let mut repeats: Vec<usize> = Vec::new();
        // Entries shown with their neighbours: a hit among them adds nothing.
        let mut windows: Vec<(String, i64)> = Vec::new();
        // Whether each hit shown holds every term of the query, and whether it was said
        // (not a tool's call or output).
        let mut whole: Vec<(bool, bool)> = Vec::new();
        for hit in found {
            let dir = format!("memory/sessions/{}/{}", hit.day, hit.session_id);
            // One hit, one line: a snippet may span lines of the entry; its text is the
            // transcript's, made inert.
            let snippet = crate::render::inert::line(&hit.snippet, SNIPPET_CHARS);
            // Compared by their letters and digits: a snippet cut elsewhere, with other
            // marks, is still the same text.
            let text: String = snippet
                .chars()
                .filter(|c| c.is_alphanumeric())
                .flat_map(char::to_lowercase)
                .collect();
            let repeat = |seen: &String| {
                !text.is_empty() && (seen.contains(text.as_str()) || text.contains(seen.as_str()))
            };
            if let Some(&(_, at)) = texts.iter().find(|(t, _)| repeat(t)) {
                repeats[at] += 1;
                continue;
            }
            if hits.len() >= limit {
                cut = true;
                continue;
            }
            if let Some(seq) = hit.seq
                && windows.iter().any(|(session, shown)| {
                    *session == hit.session_id
                        && (seq - shown).unsigned_abs() <= conversation::AROUND as u64
                })
            {
                continue;
            }
            texts.push((text, hits.len()));
            repeats.push(0);
            let tool = hit.channel.is_some_and(|c| Channel::TOOLS.contains(&c));
            whole.push((hit.all_terms, !tool));
            let Some(seq) = hit.seq else {
                hits.push(Hit::new(
                    self.links.to(&format!("{dir}/{}", views::SUMMARY)),
                    // The path names the session: the line need not.
                    format!("session title or summary: {snippet}"),
                ));
                continue;
            };
            // Read on its page of the conversation, where the turns around it are too:
            // markdown, a line a turn, where the entry file is the whole JSON record.
            let page = conversation::page_name(conversation::page_holding(seq));
            let mut shown = Hit::new(
                self.links
                    .to(&format!("{dir}/{}/{page}", conversation::CONVERSATION)),
                format!(
                    "#{seq} {}: {}",
                    hit.channel.map(|c| c.as_str()).unwrap_or("entry"),
                    snippet
                ),
            );
            let around = self.store.memory(|m| {
                let Some(row) = m.session(&hit.session_id)? else {
                    return Ok(Vec::new());
                };
                let after = (seq - 1 - conversation::AROUND as i64).max(0);
                m.entries(row.rowid, after, 2 * conversation::AROUND + 1)
            })?;
            (shown.before, shown.after) = conversation::context(&around, seq);
            windows.push((hit.session_id.clone(), seq));
            hits.push(shown);
        }
        // The hits holding every term end a page of their own: a precise query reads only
        // its matches, the looser ones a page away. Among them, what was said comes first
        // (the store ranks it so) and ends a page before tools' calls and output.
        let said = whole.iter().take_while(|(all, said)| *all && *said).count();
        let every = whole.iter().take_while(|(all, _)| *all).count();
        let tools: usize = (said..every).map(|n| 1 + repeats[n]).sum();
        for (hit, repeats) in hits.iter_mut().zip(repeats) {
            if repeats > 0 {
                let more = one_or_many(repeats, "hit", "hits");
                hit.line
                    .push_str(&format!(" (same text in {repeats} more {more})"));
            }
        }
        let mut notes: Vec<String> = self.files_named(query)?;
        notes.extend(note);
        if said > 0 && tools > 0 {
            notes.push(format!(
                "what was said first, then {tools} {} in tools' calls and output",
                one_or_many(tools, "hit", "hits")
            ));
        }
        let note = (!notes.is_empty()).then(|| notes.join("; "));
        Ok(Hits {
            hits,
            total,
            note,
            breaks: vec![said, every],
            per_page: Some(PER_PAGE),
            all_read: !cut,
        })
    }
}

impl Memory {
    /// For each word of `query` that names a file past sessions changed (`accounts.py`,
    /// `ledger/money.py`): the file's place under `memory/files/`, where the sessions that
    /// changed it are listed — what a question about a file is best answered by.
    fn files_named(&self, query: &str) -> Result<Vec<String>> {
        let words: Vec<&str> = query
            .split_whitespace()
            .map(|w| w.trim_matches('"'))
            .filter(|w| names_a_file(w))
            .collect();
        if words.is_empty() {
            return Ok(Vec::new());
        }
        let changed = self
            .store
            .memory(|m| m.changed_files(FileOrder::Often, FILES_LOOKED))?;
        let mut named = Vec::new();
        for word in words {
            let suffix = format!("/{word}");
            for file in changed
                .iter()
                .filter(|f| f.path == word || f.path.ends_with(&suffix))
                .take(FILES_NAMED)
            {
                named.push(format!(
                    "`{word}` is a file {} past session{} changed: `{}`",
                    file.sessions,
                    plural(file.sessions),
                    self.links.to(&format!("memory/files/{}/", file.path))
                ));
            }
        }
        Ok(named)
    }
}

/// Whether a query's word looks like a file name: a name, a dot, an extension with a
/// letter (`money.py`, `src/ledger/money.py`; not `3.14`, not a filter like `file:x`).
fn names_a_file(word: &str) -> bool {
    let Some((stem, extension)) = word.rsplit_once('.') else {
        return false;
    };
    !word.contains(':')
        && !stem.is_empty()
        && (1..=5).contains(&extension.len())
        && extension.chars().all(|c| c.is_ascii_alphanumeric())
        && extension.chars().any(|c| c.is_ascii_alphabetic())
        && stem
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '/' | '.'))
}

impl Live for Memory {
    fn start(&self, outside: Outside) {
        if let Some(following) = &self.following {
            follow::start(self.store.clone(), following.clone(), outside);
        }
    }
}

#[cfg(test)]
mod file_words {
    use super::names_a_file;

    #[test]
    fn words_that_look_like_file_names_are_told_apart() {
        for word in [
            "money.py",
            "accounts.py",
            "README.md",
            "pyproject.toml",
            "test_x.py",
        ] {
            assert!(names_a_file(word), "{word}");
        }
        for word in ["3.14", "rounding", "file:money.py", ".py", "e.g.", "v1.2.3"] {
            assert!(!names_a_file(word), "{word}");
        }
    }
}
