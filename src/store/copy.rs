//! `homespace store copy`: everything one store holds, copied into another — a team moving
//! its SQLite store to a shared PostgreSQL database, or back. Both are reached only through
//! the records' interfaces, so a copy goes any way between backends.
//!
//! Guarantees: the target must be empty (a copy never merges into work already there);
//! tasks keep their names, fields, dependencies and times; sessions keep their ids, records,
//! entries (keys, times, tags, metadata, exact content) and summaries; edits keep their
//! checkouts, times, files and contents; settings their checkouts and exact text. Each part is copied in one
//! transaction of the target, and what each store holds is counted afterwards: a copy
//! whose counts differ is reported as failed.

use std::collections::HashSet;

use crate::error::{Error, Result};
use crate::store::Store;
use crate::store::memory::record::Transcript;
use crate::store::memory::{MemoryRecords, SessionRow};
use crate::store::tasks::{Status, Task};

/// Entries read from the source per statement.
const ENTRY_PAGE: usize = 5_000;
/// Edits (whole files before and after) copied per transaction.
const EDIT_BATCH: usize = 100;
/// Entries written to the target per transaction.
const ENTRY_BATCH: usize = 50_000;

/// What a store holds, as a copy compares it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub tasks: usize,
    pub sessions: usize,
    pub entries: usize,
    pub summaries: usize,
    pub edits: usize,
    pub settings: usize,
}

impl Counts {
    /// Everything `store` holds.
    pub fn of(store: &Store) -> Result<Counts> {
        store.records(|db| {
            let stats = db.memory().stats()?;
            let mut summaries = 0;
            for (day, _) in db.memory().days()? {
                summaries += db
                    .memory()
                    .sessions_on(&day)?
                    .iter()
                    .filter(|s| s.summary.is_some())
                    .count();
            }
            Ok(Counts {
                tasks: db.tasks().counts()?.total(),
                sessions: stats.sessions,
                entries: stats.entries,
                summaries,
                edits: db.edits().count_every()?,
                settings: db.settings().every()?.len(),
            })
        })
    }

    /// `tasks 3, sessions 2, entries 140, summaries 1, edits 7`.
    pub fn line(&self) -> String {
        format!(
            "tasks {}, sessions {}, entries {}, summaries {}, edits {}, settings {}",
            self.tasks, self.sessions, self.entries, self.summaries, self.edits, self.settings
        )
    }

    fn is_empty(&self) -> bool {
        *self == Counts::default()
    }
}

/// Copies everything `from` holds into `to`, which must be empty; returns the counts both
/// hold afterwards (equal, or the copy fails saying which differ). `progress` hears what
/// is being copied, for a person watching.
pub fn copy(from: &Store, to: &Store, progress: &mut dyn FnMut(&str)) -> Result<Counts> {
    let there = Counts::of(to)?;
    if !there.is_empty() {
        return Err(Error::exists(format!(
            "the target store is not empty ({}); a copy never merges into a store in use: \
             copy into a new database or file",
            there.line()
        )));
    }
    progress("tasks");
    copy_tasks(from, to)?;
    progress("memory");
    copy_memory(from, to, progress)?;
    progress("history and settings");
    copy_edits(from, to)?;
    copy_settings(from, to)?;
    let (source, target) = (Counts::of(from)?, Counts::of(to)?);
    if source != target {
        return Err(Error::internal(format!(
            "the copy is incomplete: the source holds {}, the target {}",
            source.line(),
            target.line()
        )));
    }
    Ok(target)
}

/// Every task, each after the tasks it depends on (a dependency must exist to be named).
fn copy_tasks(from: &Store, to: &Store) -> Result<()> {
    let mut pending: Vec<Task> = from.tasks(|db| {
        let mut all = Vec::new();
        for status in Status::ALL {
            all.extend(db.list(crate::store::tasks::Filter::Status(status), None)?);
        }
        Ok(all)
    })?;
    to.change_tasks(|db| {
        let mut done: HashSet<String> = HashSet::new();
        while !pending.is_empty() {
            let (ready, waiting): (Vec<Task>, Vec<Task>) = pending.into_iter().partition(|t| {
                t.fields
                    .depends_on
                    .iter()
                    .all(|dep| done.contains(dep.as_str()))
            });
            if ready.is_empty() {
                return Err(Error::internal(format!(
                    "tasks {} depend on tasks the source does not hold",
                    waiting
                        .iter()
                        .map(|t| t.slug.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )));
            }
            for task in ready {
                let id = db.insert(&task.slug, &task.fields, &task.created)?;
                if task.updated != task.created {
                    db.update(id, &task.slug, &task.fields, &task.updated)?;
                }
                done.insert(task.slug);
            }
            pending = waiting;
        }
        Ok(())
    })
}

/// Every session with its entries and summary, oldest day first, in batches of about
/// [`ENTRY_BATCH`] entries per transaction of the target.
fn copy_memory(from: &Store, to: &Store, progress: &mut dyn FnMut(&str)) -> Result<()> {
    let mut days = from.memory(|m| m.days())?;
    days.reverse();
    let mut batch: Vec<(SessionRow, Transcript)> = Vec::new();
    let mut batched = 0;
    let (mut sessions, total) = (0, from.memory(|m| m.stats())?.sessions);
    for (day, _) in days {
        for row in from.memory(|m| m.sessions_on(&day))? {
            let transcript = from.memory(|m| whole(m, &row))?;
            batched += row.entries;
            batch.push((row, transcript));
            if batched >= ENTRY_BATCH {
                sessions += batch.len();
                store_sessions(to, std::mem::take(&mut batch))?;
                progress(&format!("memory: {sessions} of {total} sessions"));
                batched = 0;
            }
        }
    }
    store_sessions(to, batch)
}

/// Session `row` and all its entries, as a transcript to import.
fn whole(memory: &dyn MemoryRecords, row: &SessionRow) -> Result<Transcript> {
    let mut entries = Vec::with_capacity(row.entries);
    let mut after = 0;
    loop {
        let page = memory.entries(row.rowid, after, ENTRY_PAGE)?;
        let Some(last) = page.last() else { break };
        after = last.seq;
        entries.extend(page.into_iter().map(|e| e.record));
    }
    Ok(Transcript {
        sessions: vec![(row.record.clone(), entries)],
    })
}

/// Imports `batch` into `to` in one transaction, with each session's summary.
fn store_sessions(to: &Store, batch: Vec<(SessionRow, Transcript)>) -> Result<()> {
    if batch.is_empty() {
        return Ok(());
    }
    to.change_memory(|m| {
        m.bulk_load(&mut |loader| {
            for (row, transcript) in &batch {
                let imported = loader.import(transcript)?;
                if imported.entries != row.entries || imported.sessions != 1 {
                    return Err(Error::internal(format!(
                        "session {} was copied as {} sessions with {} of its {} entries",
                        row.record.id, imported.sessions, imported.entries, row.entries
                    )));
                }
            }
            Ok(())
        })?;
        for (row, _) in &batch {
            if let Some(summary) = &row.summary {
                let copied = m.session(&row.record.id)?.ok_or_else(|| {
                    Error::internal(format!("session {} was not copied", row.record.id))
                })?;
                m.set_summary(copied.rowid, Some(summary))?;
            }
        }
        Ok(())
    })
}

/// Every recorded edit of every checkout, oldest first (so the target numbers them in the
/// same order), each kept as its checkout's.
fn copy_edits(from: &Store, to: &Store) -> Result<()> {
    let mut after = 0;
    loop {
        let edits = from.records(|db| db.edits().every(after, EDIT_BATCH))?;
        let Some(last) = edits.last() else {
            return Ok(());
        };
        after = last.id;
        to.change_records(|db| {
            for edit in &edits {
                db.edits().record(
                    &edit.checkout,
                    &edit.at,
                    &edit.path,
                    &edit.what,
                    edit.before.as_deref(),
                    edit.after.as_deref(),
                )?;
            }
            Ok(())
        })?;
    }
}

/// Every checkout's settings documents, exact.
fn copy_settings(from: &Store, to: &Store) -> Result<()> {
    let settings = from.records(|db| db.settings().every())?;
    to.change_records(|db| {
        for setting in &settings {
            db.settings()
                .put(&setting.checkout, &setting.name, &setting.text)?;
        }
        Ok(())
    })
}
