//! The ranking rules of memory search that hold on every backend, above the search of one
//! parsed query (`bounded_search.rs`), so both answer alike:
//!
//! - **Every term first, then some.** A query of several words or phrases first selects
//!   the entries and sessions holding all of them; when those do not fill the hits asked
//!   for, the ones holding some but not all follow (ranked by bm25 over the terms they do
//!   hold, which favours those holding more). So a query with one word too many still
//!   ranks what it finds, and answers 0 only when no term matches. The second tier is only
//!   searched when needed, which keeps a query whose first tier fills the page as fast as
//!   before. When it is searched, a common word beside one that matches nothing costs most
//!   on PostgreSQL, which counts every match of an OR.
//! - **What was said, then tools.** Within a tier, a turn of the user or the assistant
//!   (its thinking, a summary) ranks before a tool's call or output
//!   (applied where each query's entries are ranked, `bounded_search.rs`): a
//!   question put to memory is answered by what was said and decided, where a tool's
//!   output mostly repeats files and commands that are read better where they live.
//! - **Sessions lead, then entries.** A session whose title or summary matches is the best
//!   lead, but a list of sessions is not an answer: the best [`LEADS`] sessions take the
//!   first and third places, the entries follow, and any other matching session comes after
//!   them. The places depend on nothing but the ranking, so the hits for a larger limit
//!   begin with those for a smaller one: pages cut from them never repeat or skip a hit.

use super::query::Query;
use super::records::{Found, MemoryHit};
use super::scan::thousands;
use crate::error::Result;

/// Sessions placed among the first hits.
const LEADS: usize = 2;

/// Searches `text` by the rules above, `answer` answering one parsed query (sessions and
/// entries apart, each best first, at most `limit` of each, with their totals and notes).
pub fn search(
    text: &str,
    limit: usize,
    mut answer: impl FnMut(&Query, usize) -> Result<Tiered>,
) -> Result<Found> {
    let query = Query::parse(text)?;
    let mut every = answer(&query, limit)?;
    let mut notes = std::mem::take(&mut every.notes);
    let (mut hits, mut total) = every.merged(limit);
    if hits.len() < limit
        && let Some(some) = query.some_terms()
    {
        let mut more = answer(&some, limit - hits.len())?;
        let more_notes = std::mem::take(&mut more.notes);
        let (mut found, more_total) = more.merged(limit - hits.len());
        for hit in &mut found {
            hit.all_terms = false;
        }
        if more_total > 0 {
            notes.push(format!(
                "{} hold every term, {} more hold some of them and follow",
                thousands(total),
                thousands(more_total)
            ));
        }
        notes.extend(more_notes);
        hits.extend(found);
        total += more_total;
    }
    notes.dedup();
    let note = (!notes.is_empty()).then(|| notes.join("; "));
    Ok((hits, total, note))
}

/// The answer to one parsed query.
#[derive(Debug, Default)]
pub struct Tiered {
    /// Sessions whose title or summary match, best first.
    pub sessions: Vec<MemoryHit>,
    pub session_total: usize,
    /// Entries, best first.
    pub entries: Vec<MemoryHit>,
    pub entry_total: usize,
    /// What bounded the search, or why it found nothing.
    pub notes: Vec<String>,
}

impl Tiered {
    /// The hits in the order of the rules above, at most `limit`, and how many match.
    fn merged(self, limit: usize) -> (Vec<MemoryHit>, usize) {
        let total = self.session_total + self.entry_total;
        let mut sessions = self.sessions.into_iter();
        let mut entries = self.entries.into_iter();
        let mut hits = Vec::new();
        for lead in sessions.by_ref().take(LEADS) {
            hits.push(lead);
            hits.extend(entries.next());
        }
        hits.extend(entries);
        hits.extend(sessions);
        hits.truncate(limit);
        (hits, total)
    }
}
