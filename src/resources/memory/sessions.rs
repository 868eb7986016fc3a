//! `memory/sessions/`: past sessions by the day they started. `<day>/` lists the sessions
//! of that day, one line each; `<day>/<session>/` holds the session's entries as exact
//! documents (`0001.json` …, zero-padded to the session's width), `summary.md` (a
//! document), `related.md` (the sessions most like it) and `conversation/<n>.md` (its
//! user and assistant turns in order, tools folded, a page per few entries; see
//! `conversation.rs`). `mkdir <day>/<name>` starts a
//! session (how an agent records its own, live); a new `*.json` in a session appends an
//! entry; only an entry's `tags` may change; nothing is deleted through the mount.

use std::sync::Arc;

use crate::error::{Error, ErrorKind, Result};
use crate::model::count::plural;
use crate::model::time::{Time, is_day};
use crate::model::transcript::Channel;
use crate::model::transcript::SessionRecord;
use crate::model::{Child, Entry, Kind, Links, Node, SessionId};
use crate::render::entry;
use crate::resources::memory::conversation::{self, CONVERSATION};
use crate::resources::memory::digest::{Digest, Reading, SourcePlaces, view};
use crate::resources::memory::views::{self, RELATED, SUMMARY, entry_name, session_dir};
use crate::resources::memory::{document, summary};
use crate::store::Store;
use crate::store::memory::{EntryRow, SessionRow};
use crate::tree::glance::{self, Glance, Memo};
use crate::tree::resource::Resource;
use crate::tree::resource::{Capabilities, Edit};

/// Sessions listed in `related.md`.
const RELATED_SESSIONS: usize = 5;

/// `memory/sessions/`.
pub struct Sessions {
    store: Arc<Store>,
    links: Links,
    budget: usize,
    /// Where the files sessions changed show under `source/`.
    places: SourcePlaces,
    /// The last digest made, by session and its number of entries, kept for the glance it
    /// was made in: a listing of a session sizes both its `_entry.md` and its
    /// `summary.md`, each drawn from a digest of every entry.
    digests: Memo<(i64, usize), Digest>,
    /// The session last named within a glance, and a run of its entries: a listing of a
    /// session stats and reads each entry it shows, which was two statements per entry
    /// (a round trip each on PostgreSQL).
    named: Memo<String, Option<SessionRow>>,
    entries: Memo<(i64, i64), Vec<EntryRow>>,
    /// One entry file and its session, by session name and number, read at once: a
    /// lookup (`cat`) stats the file, then reads it to size it.
    lone: Memo<(String, i64), Option<SessionEntry>>,
}

/// An entry and its session.
type SessionEntry = (SessionRow, EntryRow);

/// What a path under `memory/sessions/` is.
enum SessionPath<'p> {
    Root,
    Day(&'p str),
    Session(SessionRow),
    Summary(SessionRow),
    Related(SessionRow),
    Entry(SessionRow, i64),
    /// `conversation/`, and one of its pages.
    Conversation(SessionRow),
    Page(SessionRow, usize),
}

impl Sessions {
    pub fn new(store: Arc<Store>, links: Links, budget: usize, places: SourcePlaces) -> Self {
        Sessions {
            store,
            links,
            budget,
            places,
            digests: Memo::default(),
            named: Memo::default(),
            entries: Memo::default(),
            lone: Memo::default(),
        }
    }

    /// The digest of session `row`: its entries read in one statement, each as it arrives,
    /// once per glance.
    fn digest(&self, glance: &Glance, row: &SessionRow) -> Result<Arc<Digest>> {
        self.digests.get(glance, (row.rowid, row.entries), || {
            let mut reading = Reading::new(row.record.cwd.as_deref());
            self.store.memory(|m| {
                m.each_entry(row.rowid, 0, row.entries, &mut |entry| {
                    reading.read(&entry);
                    Ok(())
                })
            })?;
            Ok(reading.done())
        })
    }

    /// The session's entry view, its digest given as many lines as the budget leaves once
    /// the rest of the view is in: fewer items of each list, then shorter ones, then the
    /// counts alone.
    fn session_entry(
        &self,
        row: &SessionRow,
        digest: &Digest,
        channels: &[(Channel, usize)],
        tags: &[(String, usize)],
    ) -> Entry {
        let dir = format!("memory/sessions/{}/{}", row.day, row.record.id);
        let rest = match row.summary {
            None => self.links.to(&format!("{dir}/{SUMMARY}")),
            Some(_) => format!("{}{CONVERSATION}/", session_dir(row, &self.links)),
        };
        let path = [
            "memory",
            "sessions",
            row.day.as_str(),
            row.record.id.as_str(),
        ];
        let mut fitted = None;
        for shown in view::Shown::LIGHTER {
            let opening = view::opening(digest, row, &self.places, &self.links, &rest, shown);
            let entry = views::session(row, opening, channels, tags, &self.links);
            let text = entry::render(&entry, &path, None, &self.links, usize::MAX / 8);
            let fits = crate::render::budget::fits(&text, self.budget);
            fitted = Some(entry);
            if fits {
                break;
            }
        }
        fitted.unwrap_or_else(|| views::session(row, Vec::new(), channels, tags, &self.links))
    }

    fn place<'p>(&self, glance: Option<&Glance>, path: &[&'p str]) -> Result<SessionPath<'p>> {
        match path {
            [] => Ok(SessionPath::Root),
            [day] if is_day(day) => Ok(SessionPath::Day(day)),
            [day, id, rest @ ..] if is_day(day) => {
                let row = self
                    .session_named(glance, id)?
                    .filter(|row| row.day == *day)
                    .ok_or_else(|| self.missing(path))?;
                match rest {
                    [] => Ok(SessionPath::Session(row)),
                    [SUMMARY] => Ok(SessionPath::Summary(row)),
                    [RELATED] => Ok(SessionPath::Related(row)),
                    [CONVERSATION] => Ok(SessionPath::Conversation(row)),
                    [CONVERSATION, page] => match conversation::page_of(page, row.entries) {
                        Some(n) => Ok(SessionPath::Page(row, n)),
                        None => Err(self.missing(path)),
                    },
                    [file] => match entry_seq(file, &row) {
                        Some(seq) => Ok(SessionPath::Entry(row, seq)),
                        None => Err(self.missing(path)),
                    },
                    _ => Err(self.missing(path)),
                }
            }
            _ => Err(self.missing(path)),
        }
    }

    /// The session named `id`; within a glance, as the glance first found it (a write,
    /// with none, finds it as it is).
    fn session_named(&self, glance: Option<&Glance>, id: &str) -> Result<Option<SessionRow>> {
        let Some(glance) = glance else {
            return self.store.memory(|m| m.session(id));
        };
        let row = (self.named).get(glance, id.to_string(), || {
            self.store.memory(|m| m.session(id))
        })?;
        Ok(row.as_ref().clone())
    }

    /// The entry file `file` of session `id` of `day`, numbered `seq`, rendered: within a
    /// listing ([`Glance::in_listing`]), from a run of the entries around it; else on its
    /// own ([`Sessions::lone_entry`]).
    fn read_entry(
        &self,
        glance: &Glance,
        path: &[&str],
        (day, id): (&str, &str),
        file: &str,
        seq: i64,
    ) -> Result<Vec<u8>> {
        if !glance.in_listing() {
            let found = self.lone_entry(glance, path, (day, id), file, seq)?;
            let (_, entry) = found.as_ref().as_ref().ok_or_else(|| self.missing(path))?;
            return document::render(seq, &entry.record);
        }
        let row = self
            .session_named(Some(glance), id)?
            .filter(|row| row.day == day && entry_seq(file, row) == Some(seq))
            .ok_or_else(|| self.missing(path))?;
        let after = (seq - 1) / glance::RUN as i64 * glance::RUN as i64;
        let run = self.entries.get(glance, (row.rowid, after), || {
            self.store
                .memory(|m| m.entries(row.rowid, after, glance::RUN))
        })?;
        let entry = run
            .iter()
            .find(|e| e.seq == seq)
            .ok_or_else(|| self.missing(path))?;
        document::render(seq, &entry.record)
    }

    /// The entry file `file` of session `id` of `day`, numbered `seq`, with its session:
    /// both asked for at once (one round trip to a remote store), once per glance, so the
    /// stat and the read of a lookup share them; then `file` checked against the session
    /// as [`Sessions::place`] checks it.
    fn lone_entry(
        &self,
        glance: &Glance,
        path: &[&str],
        (day, id): (&str, &str),
        file: &str,
        seq: i64,
    ) -> Result<Arc<Option<SessionEntry>>> {
        let found = self.lone.get(glance, (id.to_string(), seq), || {
            let found = self.store.memory(|m| m.session_entry(id, seq))?;
            Ok(found.and_then(|(row, entry)| Some((row, entry?))))
        })?;
        match found.as_ref() {
            Some((row, _)) if row.day == day && entry_seq(file, row) == Some(seq) => Ok(found),
            _ => Err(self.missing(path)),
        }
    }

    fn missing(&self, path: &[&str]) -> Error {
        Error::not_found(format!(
            "{} does not exist: {} lists the days with sessions",
            self.links.to(&shown(path)),
            self.links.to("memory/sessions/_entry.md")
        ))
    }
}

/// `memory/sessions/<path>`.
fn shown(path: &[&str]) -> String {
    format!("memory/sessions/{}", path.join("/"))
}

/// The number `file` would be the entry file of, in some session.
fn entry_number(file: &str) -> Option<i64> {
    let digits = file.strip_suffix(".json")?;
    // Digits only: `+001.json` would parse as entry 1, an unlisted alias of `001.json`.
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// The entry `file` names in `row`, if it is one of its entry files (exactly as listed).
fn entry_seq(file: &str, row: &SessionRow) -> Option<i64> {
    let seq = entry_number(file)?;
    let width = file.len() - ".json".len();
    (seq >= 1 && seq <= row.entries as i64 && width == row.width()).then_some(seq)
}

impl Resource for Sessions {
    fn name(&self) -> &'static str {
        "sessions"
    }

    fn summary(&self) -> Result<String> {
        let stats = self.store.memory(|m| m.stats())?;
        Ok(format!(
            "past sessions by day: {} session{}",
            stats.sessions,
            plural(stats.sessions)
        ))
    }

    fn stat(&self, glance: &Glance, path: &[&str]) -> Result<Node> {
        if let [day, id, file] = path
            && is_day(day)
            && let Some(seq) = entry_number(file)
            && !glance.in_listing()
        {
            self.lone_entry(glance, path, (day, id), file, seq)?;
            return Ok(Node::document(true));
        }
        match self.place(Some(glance), path)? {
            // Every day exists, empty until a session starts on it: `mkdir -p` of a new
            // session under today works.
            SessionPath::Root | SessionPath::Day(_) | SessionPath::Session(_) => {
                Ok(Node::dir(true))
            }
            SessionPath::Conversation(_) => Ok(Node::dir(false)),
            SessionPath::Summary(_) | SessionPath::Entry(..) => Ok(Node::document(true)),
            SessionPath::Related(_) | SessionPath::Page(..) => Ok(Node::view()),
        }
    }

    fn list(&self, glance: &Glance, path: &[&str]) -> Result<Vec<Child>> {
        match self.place(Some(glance), path)? {
            SessionPath::Root => Ok(self
                .store
                .memory(|m| m.days())?
                .into_iter()
                .map(|(day, n)| {
                    let about = format!("{n} session{}", plural(n));
                    Child::new(day, Kind::Dir, about)
                })
                .collect()),
            SessionPath::Day(day) => Ok(self
                .store
                .memory(|m| m.sessions_on(day))?
                .iter()
                .map(|row| Child::new(row.record.id.as_str(), Kind::Dir, views::session_line(row)))
                .collect()),
            SessionPath::Session(row) => {
                let mut children = vec![
                    Child::new(
                        SUMMARY,
                        Kind::Document,
                        "the session's summary: five sections",
                    ),
                    Child::new(RELATED, Kind::View, "the sessions most like this one"),
                    Child::new(
                        CONVERSATION,
                        Kind::Dir,
                        "the user and assistant turns in order, tools folded, paged",
                    ),
                ];
                children.extend(
                    (1..=row.entries as i64)
                        .map(|seq| Child::new(entry_name(&row, seq), Kind::Document, "")),
                );
                Ok(children)
            }
            SessionPath::Conversation(row) => Ok((1..=conversation::pages(row.entries))
                .map(|n| {
                    let (from, count) = conversation::page_span(n);
                    let to = (from as usize + count).min(row.entries);
                    let about = format!("entries {}–{to}", from + 1);
                    Child::new(conversation::page_name(n), Kind::View, about)
                })
                .collect()),
            _ => Err(Error::new(
                ErrorKind::NotADirectory,
                format!("{} is a file", self.links.to(&shown(path))),
            )),
        }
    }

    fn names(&self, glance: &Glance, path: &[&str]) -> Result<Vec<(String, Kind)>> {
        match self.place(Some(glance), path)? {
            // A session of 20,000 entries lists as fast as a small one: names from its
            // count, no rows read.
            SessionPath::Session(row) => {
                let mut names = vec![
                    (SUMMARY.to_string(), Kind::Document),
                    (RELATED.to_string(), Kind::View),
                    (CONVERSATION.to_string(), Kind::Dir),
                ];
                names.extend(
                    (1..=row.entries as i64).map(|seq| (entry_name(&row, seq), Kind::Document)),
                );
                Ok(names)
            }
            _ => Ok(Child::names(self.list(glance, path)?)),
        }
    }

    fn read(&self, glance: &Glance, path: &[&str]) -> Result<Vec<u8>> {
        if let [day, id, file] = path
            && is_day(day)
            && let Some(seq) = entry_number(file)
        {
            return self.read_entry(glance, path, (day, id), file, seq);
        }
        match self.place(Some(glance), path)? {
            SessionPath::Summary(row) => match &row.summary {
                Some(written) => Ok(written.clone().into_bytes()),
                None => {
                    let digest = self.digest(glance, &row)?;
                    Ok(view::extracted(&digest, &row, &self.places, &self.links).into_bytes())
                }
            },
            SessionPath::Related(row) => {
                let related = self
                    .store
                    .memory(|m| m.related(row.rowid, RELATED_SESSIONS))?;
                Ok(views::related(&row, &related, &self.links, self.budget).into_bytes())
            }
            SessionPath::Page(row, n) => {
                let (after, count) = conversation::page_span(n);
                let entries = self.store.memory(|m| m.entries(row.rowid, after, count))?;
                Ok(conversation::page(&row, n, &entries, &self.links, self.budget).into_bytes())
            }
            _ => Err(Error::new(
                ErrorKind::IsADirectory,
                format!(
                    "{} is a directory: read its _entry.md",
                    self.links.to(&shown(path))
                ),
            )),
        }
    }

    fn entry(&self, glance: &Glance, path: &[&str]) -> Result<Entry> {
        match self.place(Some(glance), path)? {
            SessionPath::Root => {
                let days = self.store.memory(|m| m.days())?;
                Ok(views::sessions_root(&days, &self.links))
            }
            SessionPath::Day(day) => {
                let rows = self.store.memory(|m| m.sessions_on(day))?;
                Ok(views::day(day, &rows, &self.links))
            }
            SessionPath::Session(row) => {
                let (channels, tags) = self
                    .store
                    .memory(|c| Ok((c.channel_counts(row.rowid)?, c.session_tags(row.rowid)?)))?;
                let digest = self.digest(glance, &row)?;
                Ok(self.session_entry(&row, &digest, &channels, &tags))
            }
            SessionPath::Conversation(row) => Ok(views::conversation(&row, &self.links)),
            _ => Err(Error::new(
                ErrorKind::NotADirectory,
                format!("{} is a file", self.links.to(&shown(path))),
            )),
        }
    }

    fn capabilities(&self) -> Capabilities<'_> {
        Capabilities {
            edit: Some(self),
            ..Capabilities::default()
        }
    }
}

impl Edit for Sessions {
    fn can_create(&self, path: &[&str]) -> Result<()> {
        match path {
            [day, _, name] if is_day(day) && name.ends_with(".json") => {
                self.place(None, &path[..2]).map(|_| ())
            }
            _ => Err(Error::not_permitted(format!(
                "{} cannot be made: a session holds its entries (a new *.json appends one), \
                 summary.md and related.md; a new session is a directory: mkdir {}",
                self.links.to(&shown(path)),
                self.links.to("memory/sessions/<YYYY-MM-DD>/<name>")
            ))),
        }
    }

    fn write(&self, path: &[&str], content: &[u8], base: Option<&[u8]>) -> Result<()> {
        let at = shown(path);
        let refused = |problems: Vec<String>| {
            Error::invalid(format!("{at} was not saved:\n- {}", problems.join("\n- ")))
        };
        match self.place(None, path) {
            Ok(SessionPath::Entry(row, seq)) => self.store.change_memory(|c| {
                let stored = c.entry(row.rowid, seq)?.ok_or_else(|| self.missing(path))?;
                let now = document::render(seq, &stored.record)?;
                if base.is_some_and(|base| base != now.as_slice()) {
                    return Err(Error::new(
                        ErrorKind::Busy,
                        format!("{at} was not saved: its tags changed after you opened it; read it again"),
                    ));
                }
                let tags = document::retagged(seq, &stored.record, content).map_err(refused)?;
                c.set_tags(row.rowid, seq, &tags)
            }),
            Ok(SessionPath::Summary(row)) => {
                let text = view::unmarked(&summary::check(&at, content)?);
                self.store.change_memory(|m| m.set_summary(row.rowid, Some(&text)))
            }
            Ok(SessionPath::Related(_) | SessionPath::Page(..))
            | Ok(SessionPath::Root | SessionPath::Day(_) | SessionPath::Session(_) | SessionPath::Conversation(_)) => {
                Err(Error::read_only(format!("{at} cannot be written")))
            }
            Err(missing) => match path {
                [day, id, name] if is_day(day) && name.ends_with(".json") => {
                    let row = self
                        .store
                        .memory(|m| m.session(id))?
                        .filter(|row| row.day == *day)
                        .ok_or(missing)?;
                    let entry =
                        document::new_entry(content, fresh_key(), Time::now()).map_err(refused)?;
                    self.store
                        .change_memory(|m| m.append(row.rowid, &entry).map(|_| ()))
                }
                _ => Err(missing),
            },
        }
    }

    fn remove(&self, path: &[&str]) -> Result<()> {
        self.place(None, path)?;
        Err(Error::not_permitted(format!(
            "{} was not removed: memory is append-only through the mount. To delete a whole \
             session: homespace forget <session-id>",
            self.links.to(&shown(path))
        )))
    }

    fn mkdir(&self, path: &[&str]) -> Result<()> {
        let [day, id] = path else {
            return Err(Error::not_permitted(format!(
                "{} cannot be made: a new session is mkdir {}",
                self.links.to(&shown(path)),
                self.links.to("memory/sessions/<YYYY-MM-DD>/<name>")
            )));
        };
        if !is_day(day) {
            return Err(Error::invalid(format!(
                "{} is not a day: sessions live under memory/sessions/<YYYY-MM-DD>/",
                self.links.to(&shown(&[day]))
            )));
        }
        // The store's rule, checked before anything is asked of the store.
        let name = SessionId::parse(id)?;
        if self.store.memory(|m| m.session(id))?.is_some() {
            return Err(Error::exists(format!(
                "a session named {id} exists already"
            )));
        }
        let record = SessionRecord {
            source: "homespace".into(),
            started: Some(today_or(day)),
            title: id.to_string(),
            ..SessionRecord::new(name)
        };
        self.store
            .change_memory(|m| m.create_session(&record).map(|_| ()))
    }
}

/// A key no other entry has: entries appended through the mount have no key of their own.
fn fresh_key() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static APPENDED: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let n = APPENDED.fetch_add(1, Ordering::SeqCst);
    format!("homespace:{nanos}:{}:{n}", std::process::id())
}

/// The start of a session made today: now; on another day: that day's midnight.
fn today_or(day: &str) -> Time {
    let now = Time::now();
    if now.to_string().starts_with(day) {
        return now;
    }
    Time::parse(&format!("{day}T00:00:00Z")).unwrap_or(now)
}

#[cfg(test)]
mod tests {
    use super::entry_number;

    #[test]
    fn an_entry_file_is_named_by_digits_alone() {
        assert_eq!(entry_number("0042.json"), Some(42));
        assert_eq!(entry_number("7.json"), Some(7));
        for name in [
            "+42.json", "-1.json", " 1.json", ".json", "1e2.json", "42.md",
        ] {
            assert_eq!(entry_number(name), None, "{name}");
        }
    }
}
