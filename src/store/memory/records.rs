//! Memory as every backend keeps it: the rows a reader gets ([`SessionRow`], [`EntryRow`],
//! [`Stats`], [`MemoryHit`], [`Imported`]) and [`MemoryRecords`], the one interface through
//! which resources, the importer and the CLI read and change sessions and entries (built
//! over each backend's SQL in `dialect.rs`). A backend must pass the same tests; it need
//! not rank or cut snippets to the byte alike.

use super::changed::{ChangedFile, FileOrder};
use super::width;
use crate::error::Result;
use crate::model::time::Time;
use crate::model::transcript::{Channel, EntryRecord, SessionRecord, Transcript};

/// A stored session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionRow {
    /// The store's number for it (stable; never reused).
    pub rowid: i64,
    pub record: SessionRecord,
    /// Its directory: `sessions/<day>/`.
    pub day: String,
    /// How many entries it holds; they are seq 1 to `entries`.
    pub entries: usize,
    /// summary.md, when written.
    pub summary: Option<String>,
}

impl SessionRow {
    /// How many digits its entry file names are padded to (`0001.json`).
    pub fn width(&self) -> usize {
        width(self.entries)
    }
}

/// A stored entry: its place in the session and what was recorded.
#[derive(Debug, Clone, PartialEq)]
pub struct EntryRow {
    pub seq: i64,
    pub record: EntryRecord,
}

/// What the store holds, from counters (no rows are counted per call).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Stats {
    pub sessions: usize,
    pub entries: usize,
    /// The oldest and newest session days.
    pub first_day: Option<String>,
    pub last_day: Option<String>,
    /// Sessions per source, most first.
    pub sources: Vec<(String, usize)>,
}

/// One search hit: an entry, or a session whose title or summary matched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryHit {
    pub session_id: String,
    pub day: String,
    /// The entry; `None` when the session's title or summary matched.
    pub seq: Option<i64>,
    pub channel: Option<Channel>,
    /// A dozen words around the match, which is marked `**...**`.
    pub snippet: String,
    /// How many digits the session's entry file names are padded to.
    pub width: usize,
    /// It holds every term of the query (else some of them: see `tiers.rs`).
    pub all_terms: bool,
}

/// What an import did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Imported {
    /// Sessions it created (a session continued or joined is not new).
    pub sessions: usize,
    /// Entries it added.
    pub entries: usize,
    /// Entries it skipped because their session already held them.
    pub skipped: usize,
}

/// A search's answer: the hits, best first; how many match in all; and a note when the
/// search was bounded or found nothing to search for.
pub type Found = (Vec<MemoryHit>, usize, Option<String>);

/// The sessions that changed a file, each with the time of its latest change, and how
/// many there are in all.
pub type Changers = (Vec<(SessionRow, Option<Time>)>, usize);

/// The reads of memory a backend answers as they are, each one statement of its own (SQLite:
/// `sqlite/read.rs`; PostgreSQL: `postgres/read.rs`). Reads never change anything.
pub trait MemoryReads {
    /// Days that have sessions, newest first, with how many each has.
    fn days(&self) -> Result<Vec<(String, usize)>>;
    /// The sessions of `day`, in start order (sessions without a start first).
    fn sessions_on(&self, day: &str) -> Result<Vec<SessionRow>>;
    /// The session whose directory is named `id`.
    fn session(&self, id: &str) -> Result<Option<SessionRow>>;
    /// The session numbered `rowid`.
    fn session_by_rowid(&self, rowid: i64) -> Result<Option<SessionRow>>;
    /// The `limit` most recent sessions, newest first (by day, then start).
    fn recent_sessions(&self, limit: usize) -> Result<Vec<SessionRow>>;
    /// Up to `limit` entries of session `session` with a seq above `after_seq`, in seq order.
    fn entries(&self, session: i64, after_seq: i64, limit: usize) -> Result<Vec<EntryRow>> {
        let mut entries = Vec::new();
        self.each_entry(session, after_seq, limit, &mut |entry| {
            entries.push(entry);
            Ok(())
        })?;
        Ok(entries)
    }
    /// [`MemoryReads::entries`], each handed to `each` as it is read, until `each` fails:
    /// a session's 20,000 entries are worked on while a remote store is still sending
    /// them, and never all held at once. `each` must not read the store itself: on
    /// PostgreSQL the connection is busy with this read until it ends.
    fn each_entry(
        &self,
        session: i64,
        after_seq: i64,
        limit: usize,
        each: &mut dyn FnMut(EntryRow) -> Result<()>,
    ) -> Result<()>;
    /// Entry `seq` of session `session`.
    fn entry(&self, session: i64, seq: i64) -> Result<Option<EntryRow>>;
    /// The session whose directory is named `id`, with its entry `seq` if it has one: what
    /// reading an entry's file needs. A backend a round trip away answers both at once.
    fn session_entry(&self, id: &str, seq: i64) -> Result<Option<(SessionRow, Option<EntryRow>)>> {
        let Some(row) = self.session(id)? else {
            return Ok(None);
        };
        let entry = self.entry(row.rowid, seq)?;
        Ok(Some((row, entry)))
    }
    /// How many entries of `session` each channel has, in [`Channel::ALL`] order; channels
    /// without entries are left out.
    fn channel_counts(&self, session: i64) -> Result<Vec<(Channel, usize)>>;
    /// The tags of `session`'s entries with how many entries have each; most used first,
    /// then by name.
    fn session_tags(&self, session: i64) -> Result<Vec<(String, usize)>>;
    /// Every tag in use, by name, with how many entries have it.
    fn tags(&self) -> Result<Vec<(String, usize)>>;
    /// The `limit` most recently stored entries tagged `tag`, newest first, each with its
    /// session, and how many entries have the tag in all.
    fn tagged(&self, tag: &str, limit: usize) -> Result<(Vec<(SessionRow, EntryRow)>, usize)>;
    /// The store's counts, from counters kept with the rows.
    fn stats(&self) -> Result<Stats>;
}

/// The memory of a store, whichever backend holds it: its reads ([`MemoryReads`]), and
/// search, related sessions and changes, decided once for every backend over the SQL each
/// answers (`dialect.rs`). The changes run inside the store's write transaction
/// ([`crate::store::Store::change_memory`]), so a failure anywhere leaves the store as it
/// was, and every index and counter follows the rows inside that transaction.
pub trait MemoryRecords: MemoryReads {
    /// The hits for `query` (the language of `query.rs`), best first, at most `limit`. A
    /// malformed query is an `Error::invalid` saying why; no query fails otherwise.
    fn search(&self, query: &str, limit: usize) -> Result<Found>;
    /// Up to `limit` sessions most like session `session`, best first, each with the words
    /// it shares with it. Empty when the session is gone or has no distinctive words.
    fn related(&self, session: i64, limit: usize) -> Result<Vec<(SessionRow, Vec<String>)>>;

    /// Makes an empty session (`mkdir sessions/<day>/<id>`); returns its number.
    fn create_session(&self, record: &SessionRecord) -> Result<i64>;
    /// Appends `entry` to session `session` as its next seq, which it returns. Refused if
    /// the session holds an entry with the same key.
    fn append(&self, session: i64, entry: &EntryRecord) -> Result<i64>;
    /// Sets (or with `None`, removes) the summary of `session`.
    fn set_summary(&self, session: i64, text: Option<&str>) -> Result<()>;
    /// Sets the tags of entry `seq` of `session`.
    fn set_tags(&self, session: i64, seq: i64, tags: &[String]) -> Result<()>;
    /// Deletes session `id` and its entries, with every trace in the indexes. `false` if
    /// there was none.
    fn forget(&self, id: &str) -> Result<bool>;
    /// Tidies the indexes after a large load (cheaper searches afterwards); may take
    /// seconds at a million entries, so only for bulk loads.
    fn compact(&self) -> Result<()>;
    /// Stores many transcripts in the caller's transaction as one load: `load` is handed a
    /// [`Loader`] and stores what it wants through it. Sessions are continued, joined or
    /// made as `write.rs` describes; importing an entry again adds
    /// nothing.
    fn bulk_load(&self, load: &mut dyn FnMut(&mut dyn Loader) -> Result<()>) -> Result<()>;

    /// The files session `session` changed, most recently changed first.
    fn files_of(&self, session: i64) -> Result<Vec<(String, Option<Time>)>>;
    /// Up to `limit` sessions that changed `file` (a project path, or a folder ending in
    /// `/`: see [`super::changed::FilePattern`]), most recent change first, each with the time of its
    /// latest change; and how many there are in all. A path naming nothing is refused.
    fn sessions_changing(&self, file: &str, limit: usize) -> Result<Changers>;
    /// Up to `limit` of the files sessions changed, in `order`.
    fn changed_files(&self, order: FileOrder, limit: usize) -> Result<Vec<ChangedFile>>;
    /// Notes the files changed by the entries stored before the store kept them, once
    /// (after the migration that asks for it); how many tool calls it read, or `None` when
    /// there was nothing to do.
    fn fill_changed_files(&self) -> Result<Option<usize>>;

    /// Stores one transcript, as a load of its own.
    fn import(&self, transcript: &Transcript) -> Result<Imported> {
        let mut imported = Imported::default();
        self.bulk_load(&mut |loader| {
            imported = loader.import(transcript)?;
            Ok(())
        })?;
        Ok(imported)
    }
}

/// A bulk load in progress ([`MemoryRecords::bulk_load`]).
pub trait Loader {
    /// Stores `transcript` within the load. When it fails, nothing of it is kept and the
    /// load can go on with the next one (the transcript has a savepoint of its own).
    fn import(&mut self, transcript: &Transcript) -> Result<Imported>;
}
