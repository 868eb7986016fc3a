//! The files each session changed, kept in the store: one row per (session, path) with the
//! latest time an entry changed it. What counts as changing a file is `touched.rs`'s; here
//! it is decided when rows are noted (every batch of entries written, by import, live
//! recording or merge, goes through `note`), how a store that held entries before the
//! table existed is filled once (`backfill`); what a `file:` pattern matches is
//! `changed.rs`'s.
//!
//! Paths are stored relative to the session's cwd when they lie under it, so a project
//! path (`ledger/money.py`) finds the sessions that ran in the project; a session run in
//! another checkout keeps its absolute path, which a pattern matches by its ending.

use std::collections::BTreeMap;

use super::dialect::{FilesSql, WriteSql};
use super::touched::{files_changed, relative_to};
use crate::error::Result;
use crate::model::time::Time;
use crate::model::transcript::EntryRecord;

/// Tool calls read per statement while backfilling.
const BACKFILL_BATCH: usize = 2_000;

/// Notes the files the entries of `batch` change as changed by session `rowid`, relative
/// to its cwd, each at the latest time the batch changes it. Entries a session already
/// held may be among them: noting a file again keeps the later time, so nothing counts
/// twice.
pub(super) fn note<D: WriteSql + ?Sized>(
    rows: &D,
    rowid: i64,
    batch: &[&EntryRecord],
) -> Result<()> {
    let changed = changes(batch.iter().copied());
    if changed.is_empty() {
        return Ok(());
    }
    let cwd = rows.session_cwd(rowid)?;
    let files: Vec<(String, Option<Time>)> = latest(changed, cwd.as_deref());
    rows.note_files(rowid, &files)
}

/// Fills the table from the entries stored before it existed, once: when the migration
/// asked for it, every tool call is read in number order and its files noted. Returns how
/// many tool calls were read, or `None` when there was nothing to do.
pub(super) fn backfill<D: WriteSql + FilesSql + ?Sized>(rows: &D) -> Result<Option<usize>> {
    if !rows.backfill_pending()? {
        return Ok(None);
    }
    let mut after = 0;
    let mut read = 0;
    loop {
        let calls = rows.tool_calls_after(after, BACKFILL_BATCH)?;
        let Some(&(last, _)) = calls.last() else {
            break;
        };
        after = last;
        read += calls.len();
        let mut by_session: BTreeMap<i64, Vec<&EntryRecord>> = BTreeMap::new();
        for (id, entry) in &calls {
            by_session
                .entry(super::split_entry_id(*id).0)
                .or_default()
                .push(entry);
        }
        for (session, entries) in by_session {
            note(rows, session, &entries)?;
        }
    }
    rows.backfill_done()?;
    Ok(Some(read))
}

/// Each path the entries change, with the times of the entries that change it.
fn changes<'e>(entries: impl Iterator<Item = &'e EntryRecord>) -> Vec<(String, Option<Time>)> {
    entries
        .flat_map(|entry| {
            files_changed(entry)
                .into_iter()
                .map(move |path| (path, entry.ts))
        })
        .collect()
}

/// Each path once, relative to `cwd`, at its latest time.
fn latest(changed: Vec<(String, Option<Time>)>, cwd: Option<&str>) -> Vec<(String, Option<Time>)> {
    let mut files: BTreeMap<String, Option<Time>> = BTreeMap::new();
    for (path, ts) in changed {
        let slot = files.entry(relative_to(&path, cwd)).or_insert(ts);
        if ts > *slot {
            *slot = ts;
        }
    }
    files.into_iter().collect()
}

#[cfg(test)]
mod tests;
