//! What a backend of memory must answer — the SQL primitives, each a statement or a few in
//! its own dialect (SQLite: `sqlite/`; PostgreSQL: `postgres/`). The import and merge rules
//! (`write.rs`), the search orchestration (`bounded_search.rs`, `tiers.rs`), the
//! related-session scoring (`related.rs`) and the files sessions changed
//! (`session_files.rs`) are written once over them, and `backend.rs` makes every backend
//! that answers them a `MemoryRecords`, so the backends cannot drift apart in what they
//! decide, only in how they ask.
//!
//! Ranks a backend hands back are normalised so that higher is always better (SQLite's
//! `bm25()` is negated; PostgreSQL's `ts_rank_cd` already is).

use std::collections::BTreeSet;
use std::ops::Range;

use super::changed::{ChangedFile, FileOrder, FilePattern};
use super::query::Query;
use super::records::Changers;
use super::records::{Loader, MemoryHit};
use super::span::Span;
use crate::error::Result;
use crate::model::time::Time;
use crate::model::transcript::{Channel, EntryRecord, SessionRecord};

/// An entry or session number with its rank (higher is better).
pub type Ranked = (i64, f64);

/// The first and last times a session covers, when known.
pub type Times = (Option<Time>, Option<Time>);

/// Entries to insert, in their order.
pub type Batch<'a> = &'a [&'a EntryRecord];

/// Whether the entry whose channel is `column` holds something said (a turn of the user or
/// the assistant, its thinking, a summary), not a tool's call or output, as an SQL
/// expression both backends read alike (see `tiers.rs`).
pub fn said_sql(column: &str) -> String {
    let tools: Vec<String> = Channel::TOOLS
        .iter()
        .map(|c| format!("'{}'", c.as_str()))
        .collect();
    format!("{column} NOT IN ({})", tools.join(", "))
}

/// Matches of an index, newest first and ranked, and whether more matched than were looked
/// at.
pub type Filtered = (Vec<Ranked>, bool);

/// What a scan does with each row it reads: `false` to stop.
pub type Visit<'a> = &'a mut dyn FnMut(ScanRow) -> Result<bool>;

/// An entry, and where a pattern matched in its content.
pub type Hit = (i64, Option<Range<usize>>);

/// Which sessions hold which words: (the word's index, the session).
pub type Held = BTreeSet<(usize, i64)>;

/// About how many of the documents some terms are in: the sum of each term's document
/// frequency (an overestimate where terms meet in one document), of `documents` in all.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spread {
    pub matches: usize,
    pub documents: usize,
}

impl Spread {
    /// The share of the documents the terms are in, at most all of them.
    pub fn share(self) -> f64 {
        (self.matches as f64 / self.documents.max(1) as f64).min(1.0)
    }
}

/// The changes a backend makes to rows; the rules deciding which are in `write.rs`.
pub trait WriteSql {
    /// Entries one insert takes at most, and bytes of text (the batch ends early past it).
    const BATCH: usize;
    const BATCH_BYTES: usize;

    /// The number of the session named `id`.
    fn session_number(&self, id: &str) -> Result<Option<i64>>;
    /// The name of session `rowid`.
    fn session_name(&self, rowid: i64) -> Result<Option<String>>;
    /// The session an earlier import joined `alias` to.
    fn alias_of(&self, alias: &str) -> Result<Option<i64>>;
    fn add_alias(&self, alias: &str, session: i64) -> Result<()>;
    /// The stored session whose opening entries (the first 32, which the opening keys'
    /// index holds) hold the most of `keys`; ties to the oldest session.
    fn opening_match(&self, keys: &[&str]) -> Result<Option<i64>>;
    /// Inserts session `record` spanning `times`, in the directory of `day`.
    fn insert_session(&self, record: &SessionRecord, times: Times, day: &str) -> Result<i64>;
    /// Widens session `rowid`'s span to cover `times` (times compare by bytes) and fills in
    /// the title, cwd, model and continuation it lacks from `record`.
    fn widen(&self, rowid: i64, record: &SessionRecord, times: Times) -> Result<()>;
    /// The highest entry number stored within `low..=high`.
    fn top_entry(&self, low: i64, high: i64) -> Result<Option<i64>>;
    /// Inserts, as seq `last + 1` on in their order, the entries of `batch` (checked; a
    /// meta is an object, or null for an empty one) whose key session `rowid` does not
    /// hold yet — every one when `held` is false; returns how many.
    fn add_entries(&self, rowid: i64, last: i64, held: bool, batch: Batch<'_>) -> Result<usize>;
    /// Sets the summary of session `rowid`; how many sessions changed.
    fn write_summary(&self, rowid: i64, text: Option<&str>) -> Result<usize>;
    /// Sets the tags (a JSON array) of entry `id` where they differ; how many changed.
    fn write_tags(&self, id: i64, tags: &str) -> Result<usize>;
    fn entry_exists(&self, id: i64) -> Result<bool>;
    /// Deletes session `rowid` and its entries.
    fn delete_session(&self, rowid: i64) -> Result<()>;
    /// See [`MemoryRecords::compact`].
    fn compact_indexes(&self) -> Result<()>;
    /// See [`MemoryRecords::bulk_load`]; the loader stores each transcript by
    /// `write::store_transcript`.
    fn load_in_bulk(&self, load: &mut dyn FnMut(&mut dyn Loader) -> Result<()>) -> Result<()>;
    /// The folder session `rowid` ran in, when known.
    fn session_cwd(&self, rowid: i64) -> Result<Option<String>>;
    /// Notes that session `rowid` changed each of `files` (each once) at the time given,
    /// keeping the later time where it is noted already (times compare by bytes).
    fn note_files(&self, rowid: i64, files: &[(String, Option<Time>)]) -> Result<()>;
}

/// The rows of the files sessions changed (`session_files.rs` decides what goes in them).
pub trait FilesSql {
    /// Whether the files of the entries stored before the table existed are still to note.
    fn backfill_pending(&self) -> Result<bool>;
    /// Up to `limit` tool calls numbered above `after`, in number order (their content,
    /// time and meta; no key).
    fn tool_calls_after(&self, after: i64, limit: usize) -> Result<Vec<(i64, EntryRecord)>>;
    /// Marks the backfill done.
    fn backfill_done(&self) -> Result<()>;
    /// The files session `session` changed, most recently changed first, then by path.
    fn files_of(&self, session: i64) -> Result<Vec<(String, Option<Time>)>>;
    /// Up to `limit` sessions that changed a file `pattern` matches, the most recent change
    /// first (then the newest session), each with the time of its latest change of one; and
    /// how many there are in all.
    fn sessions_changing(&self, pattern: &FilePattern, limit: usize) -> Result<Changers>;
    /// Up to `limit` of the files sessions changed, in `order` (then by path).
    fn changed_files(&self, order: FileOrder, limit: usize) -> Result<Vec<ChangedFile>>;
}

/// A row a bounded scan reads ([`SearchSql::scan`]): what the filters need (empty when the
/// query has no such filter) and the content when the query has a pattern.
#[derive(Debug, Default)]
pub struct ScanRow {
    pub id: i64,
    pub channel: String,
    /// The tool it calls or answers (its meta's `tool`), when the query filters by tool.
    pub tool: Option<String>,
    pub ts: Option<String>,
    pub tags: String,
    pub day: String,
    /// The content; `None` when too large to come with the row ([`SearchSql::content`]).
    pub text: Option<String>,
}

/// A session's name, place and texts, for hits on titles and summaries.
#[derive(Debug)]
pub struct SessionText {
    pub rowid: i64,
    pub id: String,
    pub day: String,
    pub entries: usize,
    pub title: String,
    pub summary: String,
}

/// The questions memory search asks of the full-text index; `bounded_search.rs` orders,
/// bounds and notes the answers.
pub trait SearchSql {
    /// Why `query` can match nothing here before asking (with the note to give, if any).
    fn unanswerable(&self, query: &Query) -> Option<Option<String>>;
    /// The index's expression for the query's words, `None` when it has none.
    fn expression(&self, query: &Query) -> Option<String>;
    /// The `n` most recent entries within `span` matching `expr`, newest first, ranked.
    fn recent_matches(&self, expr: &str, span: Span, n: usize) -> Result<Vec<Ranked>>;
    /// Which of the entries `ids` hold something said ([`said_sql`]), not a tool's call or
    /// output: asked of the best matches a batch at a time, until enough are known.
    fn said(&self, ids: &[i64]) -> Result<std::collections::HashSet<i64>>;
    /// How many entries within `span` match `expr`, counted up to `cap`.
    fn count_matches(&self, expr: &str, span: Span, cap: usize) -> Result<usize>;
    /// How many entries match `query`, from statistics, when counting would cost too much.
    fn estimated_matches(&self, query: &Query, span: Span) -> Result<Option<usize>>;
    /// The entries within `span` among the `examine` most recent matches of `expr` that
    /// pass `query`'s channel, tag and day filters, newest first, ranked; and whether at
    /// least `examine` matched (so older matches went unexamined).
    fn filtered(&self, expr: &str, query: &Query, span: Span, examine: usize) -> Result<Filtered>;
    /// Entries within `span`, newest first (only tagged ones when the query has a `tag:`),
    /// handed to `visit` until it says stop.
    fn scan(&self, query: &Query, span: Span, visit: Visit<'_>) -> Result<()>;
    /// One entry's content (empty when gone).
    fn content(&self, id: i64) -> Result<String>;
    /// The contents of those of `ids` that exist, in their order, handed to `visit` until
    /// it says stop.
    fn contents(&self, ids: &[i64], visit: &mut dyn FnMut(i64, &str) -> bool) -> Result<()>;
    /// The hits for entries `ids`, in that order: each with its snippet around the query's
    /// words when it has words and no range is given, else around the range, else its
    /// first words.
    fn entry_hits(&self, query: &Query, ids: &[Hit]) -> Result<Vec<MemoryHit>>;
    /// Entries tagged `tag`, from the counters.
    fn tag_count(&self, tag: &str) -> Result<usize>;
    /// Entries numbered `low..=high` tagged `tag`, from the tag index.
    fn tag_count_within(&self, tag: &str, low: i64, high: i64) -> Result<usize>;
    /// Entries of `channels` (of `session` only, when given), from the counters.
    fn channel_count(&self, channels: &[Channel], session: Option<i64>) -> Result<usize>;
    /// Entries stored, from the counters.
    fn stored_entries(&self) -> Result<usize>;
    /// Sessions whose title or summary match `expr`, within `query`'s session and days,
    /// best first; each with its snippet when the index cuts one.
    fn ranked_sessions(&self, expr: &str, query: &Query) -> Result<Vec<(i64, Option<String>)>>;
    /// Sessions within `query`'s session and days, most recent first (by day, then start).
    fn recent_session_numbers(&self, query: &Query) -> Result<Vec<i64>>;
    /// Those of `rowids` that exist, in their order.
    fn session_texts(&self, rowids: &[i64]) -> Result<Vec<SessionText>>;
    /// The snippet of a session whose title or summary matched `query`'s words, when
    /// [`SearchSql::ranked_sessions`] gave none.
    fn session_snippet(&self, query: &Query, session: &SessionText) -> String;
}

/// The questions related-session scoring asks; `related.rs` weighs the answers.
pub trait RelatedSql {
    /// The contents of session `session`'s last `n` entries, newest first.
    fn recent_texts(&self, session: i64, n: usize) -> Result<Vec<String>>;
    /// Entries and sessions stored: the documents of the indexes.
    fn documents(&self) -> Result<usize>;
    /// For each of `words`: the entries (counted up to `cap`) and sessions holding it,
    /// and how many of those are not session `me` or its entries.
    fn frequencies(&self, me: i64, words: &[&str], cap: usize) -> Result<Vec<(usize, usize)>>;
    /// Sessions whose title or summary hold any of `terms`, ranked.
    fn session_scores(&self, terms: &[String]) -> Result<Vec<Ranked>>;
    /// The `window` most recent entries holding any of `terms`, ranked; `spread` says
    /// about how many entries hold them, for a backend that chooses how to find them.
    fn entry_scores(&self, terms: &[String], spread: Spread, window: usize) -> Result<Vec<Ranked>>;
    /// Which sessions `among` hold which of `terms` in a title, a summary or one of the
    /// term's `n` most recent entries.
    fn holding(&self, terms: &[String], among: &BTreeSet<i64>, n: usize) -> Result<Held>;
}
