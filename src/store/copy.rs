//! `homespace store copy`: everything one store holds, copied into another — a team moving
//! its SQLite store to a shared PostgreSQL database, or back. Both are reached only through
//! the records' interfaces, so a copy goes any way between backends.
//!
//! Guarantees: the target must be empty (a copy never merges into work already there);
//! tasks keep their names, fields, dependencies and times; sessions keep their ids, records,
//! entries (keys, times, tags, metadata, exact content) and summaries; edits keep their
//! checkouts, times, files and contents; test runs their checkouts, status, times, counts,
//! output, problems, passing tests, traced passes and code snapshots (one stored copy per
//! snapshot, as in the source); settings their checkouts and exact text. The whole copy is one
//! transaction of the target, and what each store holds is counted before it commits: a
//! copy that fails anywhere — a row the target refuses (named in the message), counts that
//! differ, a killed process — leaves the target as empty as it was.

use std::collections::HashSet;

use crate::error::{Error, Result};
use crate::model::transcript::Transcript;
use crate::store::Store;
use crate::store::edits::EditRecords;
use crate::store::memory::{MemoryRecords, SessionRow};
use crate::store::records::Records;
use crate::store::runs::RunRecords;
use crate::store::settings::SettingRecords;
use crate::store::tasks::{Status, Task, TaskRecords};

/// Entries read from the source per statement.
const ENTRY_PAGE: usize = 5_000;
/// Edits (whole files before and after) read from the source at a time.
const EDIT_BATCH: usize = 100;
/// Test runs (with their whole output) read from the source at a time.
const RUN_BATCH: usize = 100;
/// Entries loaded into the target at a time.
const ENTRY_BATCH: usize = 50_000;

/// What a store holds, as a copy compares it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub tasks: usize,
    pub sessions: usize,
    pub entries: usize,
    pub summaries: usize,
    pub edits: usize,
    pub runs: usize,
    pub settings: usize,
}

impl Counts {
    /// Everything `store` holds.
    pub fn of(store: &Store) -> Result<Counts> {
        store.records(Counts::within)
    }

    /// Everything the records of one transaction hold.
    fn within(db: &dyn Records) -> Result<Counts> {
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
            runs: db.runs().count_every()?,
            settings: db.settings().every()?.len(),
        })
    }

    /// `tasks 3, sessions 2, entries 140, summaries 1, edits 7, runs 4, settings 1`.
    pub fn line(&self) -> String {
        format!(
            "tasks {}, sessions {}, entries {}, summaries {}, edits {}, runs {}, settings {}",
            self.tasks,
            self.sessions,
            self.entries,
            self.summaries,
            self.edits,
            self.runs,
            self.settings
        )
    }

    fn is_empty(&self) -> bool {
        *self == Counts::default()
    }
}

/// Copies everything `from` holds into `to`, which must be empty, in one transaction of
/// `to`; returns the counts both hold (equal, or the copy fails saying which differ, and
/// `to` keeps nothing of it). `progress` hears what is being copied, for a person watching.
pub fn copy(from: &Store, to: &Store, progress: &mut dyn FnMut(&str)) -> Result<Counts> {
    to.change_records(|db| {
        let there = Counts::within(db)?;
        if !there.is_empty() {
            return Err(Error::exists(format!(
                "the target store is not empty ({}); a copy never merges into a store in \
                 use: copy into a new database or file",
                there.line()
            )));
        }
        progress("tasks");
        copy_tasks(from, db.tasks())?;
        progress("memory");
        copy_memory(from, db.memory(), progress)?;
        progress("history, test runs and settings");
        copy_edits(from, db.edits())?;
        copy_runs(from, db.runs())?;
        copy_settings(from, db.settings())?;
        let (source, target) = (Counts::of(from)?, Counts::within(db)?);
        if source != target {
            return Err(Error::internal(format!(
                "the copy is incomplete, so nothing was kept: the source holds {}, the \
                 target would have held {}",
                source.line(),
                target.line()
            )));
        }
        progress("committing");
        Ok(target)
    })
}

/// Every task, each after the tasks it depends on (a dependency must exist to be named).
fn copy_tasks(from: &Store, to: &dyn TaskRecords) -> Result<()> {
    let mut pending: Vec<Task> = from.tasks(|db| {
        let mut all = Vec::new();
        for status in Status::ALL {
            all.extend(db.list(crate::store::tasks::Filter::Status(status), None)?);
        }
        Ok(all)
    })?;
    {
        let db = to;
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
                let copied = db
                    .insert(&task.slug, &task.fields, task.created)
                    .and_then(|id| {
                        if task.updated != task.created {
                            db.update(id, &task.slug, &task.fields, task.updated)?;
                        }
                        Ok(())
                    });
                copied.map_err(|e| e.context(&format!("task {}", task.slug)))?;
                done.insert(task.slug);
            }
            pending = waiting;
        }
        Ok(())
    }
}

/// Every session with its entries and summary, oldest day first, loaded in batches of
/// about [`ENTRY_BATCH`] entries (what is read of the source at a time).
fn copy_memory(from: &Store, to: &dyn MemoryRecords, progress: &mut dyn FnMut(&str)) -> Result<()> {
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

/// Imports `batch` into `to`, with each session's summary. A session the target refuses
/// is named.
fn store_sessions(to: &dyn MemoryRecords, batch: Vec<(SessionRow, Transcript)>) -> Result<()> {
    if batch.is_empty() {
        return Ok(());
    }
    let named = |row: &SessionRow| format!("session {} of {}", row.record.id, row.day);
    to.bulk_load(&mut |loader| {
        for (row, transcript) in &batch {
            let imported = loader
                .import(transcript)
                .map_err(|e| e.context(&named(row)))?;
            if imported.entries != row.entries || imported.sessions != 1 {
                return Err(Error::internal(format!(
                    "{} was copied as {} sessions with {} of its {} entries",
                    named(row),
                    imported.sessions,
                    imported.entries,
                    row.entries
                )));
            }
        }
        Ok(())
    })?;
    for (row, _) in &batch {
        if let Some(summary) = &row.summary {
            let copied = to
                .session(row.record.id.as_str())?
                .ok_or_else(|| Error::internal(format!("{} was not copied", named(row))))?;
            to.set_summary(copied.rowid, Some(summary))
                .map_err(|e| e.context(&format!("the summary of {}", named(row))))?;
        }
    }
    Ok(())
}

/// Every recorded edit of every checkout, oldest first (so the target numbers them in the
/// same order), each kept as its checkout's and in its change (the first edit of a change
/// comes before the others, so its new number is known when they are copied).
fn copy_edits(from: &Store, to: &dyn EditRecords) -> Result<()> {
    let mut after = 0;
    let mut renumbered: std::collections::HashMap<i64, i64> = std::collections::HashMap::new();
    loop {
        let edits = from.records(|db| db.edits().every(after, EDIT_BATCH))?;
        let Some(last) = edits.last() else {
            return Ok(());
        };
        after = last.id;
        for edit in &edits {
            let part_of = edit
                .part_of
                .map(|p| renumbered.get(&p).copied().unwrap_or(p));
            let id = to
                .record(
                    &edit.checkout,
                    edit.at,
                    &edit.path,
                    &edit.what,
                    edit.before.as_deref(),
                    edit.after.as_deref(),
                    part_of,
                )
                .map_err(|e| e.context(&format!("edit {} of {}", edit.id, edit.checkout)))?;
            renumbered.insert(edit.id, id);
        }
    }
}

/// Every test run of every checkout, oldest first, whole.
fn copy_runs(from: &Store, to: &dyn RunRecords) -> Result<()> {
    let mut after = 0;
    loop {
        let runs = from.records(|db| db.runs().every(after, RUN_BATCH))?;
        let Some(last) = runs.last() else {
            return Ok(());
        };
        after = last.run.id;
        for run in &runs {
            to.restore(run)
                .map_err(|e| e.context(&format!("test run {} of {}", run.run.id, run.checkout)))?;
        }
    }
}

/// Every checkout's settings documents, exact.
fn copy_settings(from: &Store, to: &dyn SettingRecords) -> Result<()> {
    for setting in from.records(|db| db.settings().every())? {
        to.put(&setting.checkout, &setting.name, &setting.text)
            .map_err(|e| e.context(&format!("the settings of {}", setting.checkout)))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::time::Time;
    use crate::model::transcript::{Channel, Transcript};
    use crate::store::memory::testing::{at, entry, session, with_tags};
    use crate::store::postgres::scratch::ScratchServer;
    use crate::store::tasks::Fields;
    use crate::testrun::coverage::Traced;
    use crate::testrun::coverage::{Coverage, TestLines, TestOutcome};
    use crate::testrun::junit::{Problem, Report};
    use crate::testrun::probe::{Fix, Probing};
    use crate::testrun::run::{Outcome, Status as RunStatus};
    use crate::testrun::snapshot::Snapshot;

    const HERE: &str = "build-1:/work/app";

    /// A SQLite store holding some of every kind of record: tasks with a dependency, two
    /// sessions (one summarized), an edit, three runs (failed with problems, passing tests,
    /// a traced pass and a snapshot; abandoned, with the same snapshot; running) and
    /// settings.
    fn filled(path: &std::path::Path, title: &str) -> Store {
        let store = Store::open(path).unwrap();
        store
            .change_tasks(|db| {
                let fields = |title: &str, depends: &[&str]| Fields {
                    title: title.into(),
                    status: Status::Open,
                    priority: 1,
                    tags: vec!["bug".into()],
                    depends_on: depends.iter().map(|d| d.to_string()).collect(),
                    description: "why\nand how".into(),
                };
                let id = db.insert(
                    "schema",
                    &fields("Design", &[]),
                    "2026-11-01T10:00:00Z".parse().unwrap(),
                )?;
                db.update(
                    id,
                    "schema",
                    &fields("Design it", &[]),
                    "2026-11-02T10:00:00Z".parse().unwrap(),
                )?;
                db.insert(
                    "fix",
                    &fields("Fix", &["schema"]),
                    "2026-11-03T10:00:00Z".parse().unwrap(),
                )?;
                Ok(())
            })
            .unwrap();
        let transcript = Transcript {
            sessions: vec![
                (
                    session("s1", Some("2026-11-20T09:00:00Z"), title),
                    vec![
                        at(
                            entry("a", Channel::User, "the login fails"),
                            "2026-11-20T09:00:00Z",
                        ),
                        with_tags(entry("b", Channel::ToolCall, "grep -n login"), &["grep"]),
                    ],
                ),
                (
                    session("s2", None, "No times"),
                    vec![entry("c", Channel::Assistant, "done")],
                ),
            ],
        };
        store
            .change_memory(|m| {
                m.import(&transcript)?;
                let s1 = m.session("s1")?.expect("s1");
                m.set_summary(s1.rowid, Some("## Completed Work\n- fixed\n"))
            })
            .unwrap();
        store
            .change_records(|db| {
                db.edits().record(
                    HERE,
                    "2026-11-21T10:00:00Z".parse().unwrap(),
                    "src/a.py",
                    "replace module a",
                    Some(b"X = 1\n"),
                    Some(b"X = 2\n"),
                    None,
                )?;
                let failed = db
                    .runs()
                    .start(HERE, "python3 -m pytest", Time::from_unix(1), 41)?;
                db.runs().finish(
                    failed,
                    Time::from_unix(2),
                    &Outcome {
                        status: RunStatus::Failed,
                        report: Report {
                            passed: 3,
                            failed: 1,
                            errors: 1,
                            skipped: 0,
                            passed_tests: vec![
                                "tests.test_a.test_z".into(),
                                "tests.test_a.TestB.test_w[1-2]".into(),
                                "tests.test_b.test_v".into(),
                            ],
                            problems: vec![
                                Problem {
                                    id: "tests.test_a.test_x".into(),
                                    kind: "failure",
                                    message: "assert 1 == 2".into(),
                                    traceback: "Traceback\n  line 3".into(),
                                },
                                Problem {
                                    id: "tests.test_a.test_y".into(),
                                    kind: "error",
                                    message: "no db".into(),
                                    traceback: "fixture".into(),
                                },
                            ],
                        },
                        output: "1 failed, 3 passed, 1 error\n".into(),
                        seconds: 1.25,
                        traced: Some(traced()),
                    },
                )?;
                db.runs().keep_snapshot(failed, &code())?;
                let abandoned =
                    db.runs()
                        .start(HERE, "python3 -m pytest -x", Time::from_unix(3), 42)?;
                db.runs().abandon(abandoned, Time::from_unix(4))?;
                db.runs().keep_snapshot(abandoned, &code())?;
                db.runs()
                    .start("", "python3 -m pytest", Time::from_unix(5), 43)?;
                db.settings().put(HERE, "source", "[nav]\ndepth = 3\n")
            })
            .unwrap();
        store
    }

    /// What the failing run's traced pass recorded.
    fn traced() -> Traced {
        let ran = |test: &str, outcome, lines: Vec<u32>| TestLines {
            test: test.into(),
            outcome,
            files: [("src/a.py".to_string(), lines)].into_iter().collect(),
        };
        Traced {
            coverage: Coverage {
                tests: vec![
                    ran(
                        "tests/test_a.py::test_x",
                        TestOutcome::Failed,
                        vec![1, 2, 3, 7],
                    ),
                    ran("tests/test_a.py::test_z", TestOutcome::Passed, vec![1, 9]),
                ],
            },
            files: vec!["tests/test_a.py".into()],
            seconds: 0.375,
            probing: Some(Probing {
                test: "tests/test_a.py::test_x".into(),
                tried: 12,
                lines: 4,
                of: 4,
                seconds: 0.5,
                finished: true,
                found: vec![Fix {
                    file: "src/a.py".into(),
                    line: 7,
                    was: "if x < 1:".into(),
                    now: "if x <= 1:".into(),
                    fixes: vec!["tests/test_a.py::test_x".into()],
                }],
                ..Probing::default()
            }),
        }
    }

    /// The code both finished runs tested.
    fn code() -> Snapshot {
        let mut code = Snapshot::default();
        code.add("src/a.py::".into(), "X = 2\n");
        code
    }

    /// Every row of every table of the SQLite store at `path` but the full-text index's
    /// own, as text, sorted within each table.
    fn rows(path: &std::path::Path) -> Vec<(String, Vec<String>)> {
        let conn = rusqlite::Connection::open(path).unwrap();
        let tables: Vec<String> = conn
            .prepare(
                "SELECT name FROM sqlite_master WHERE type = 'table'
                 AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '%fts%' ORDER BY name",
            )
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        tables
            .into_iter()
            .map(|table| {
                let mut statement = conn.prepare(&format!("SELECT * FROM \"{table}\"")).unwrap();
                let columns = statement.column_count();
                let mut rows: Vec<String> = statement
                    .query_map([], |r| {
                        Ok((0..columns)
                            .map(|i| format!("{:?}", r.get_ref(i).unwrap()))
                            .collect::<Vec<_>>()
                            .join(" | "))
                    })
                    .unwrap()
                    .collect::<rusqlite::Result<_>>()
                    .unwrap();
                rows.sort();
                (table, rows)
            })
            .collect()
    }

    #[test]
    fn a_copy_to_postgres_and_back_keeps_every_row() {
        let dir = tempfile::tempdir().unwrap();
        let (first, back) = (dir.path().join("first.db"), dir.path().join("back.db"));
        let original = filled(&first, "Fix the login");
        let server = ScratchServer::start().unwrap();
        let shared = Store::connect(&server.database("moved").unwrap()).unwrap();
        let there = copy(&original, &shared, &mut |_| {}).unwrap();
        assert_eq!(
            there,
            Counts {
                tasks: 2,
                sessions: 2,
                entries: 3,
                summaries: 1,
                edits: 1,
                runs: 3,
                settings: 1
            }
        );
        let home = copy(&shared, &Store::open(&back).unwrap(), &mut |_| {}).unwrap();
        assert_eq!(home, there);
        drop(original);
        let (before, after) = (rows(&first), rows(&back));
        let held = |table: &str| {
            before
                .iter()
                .find(|(t, _)| t == table)
                .map_or(0, |(_, rows)| rows.len())
        };
        assert_eq!(
            [
                held("test_problems"),
                held("test_passes"),
                held("test_traces"),
                held("test_snapshots")
            ],
            [2, 3, 2, 1],
            "the runs' problems, passing tests, traces, and one snapshot for two runs"
        );
        let runs = Store::open(&back)
            .unwrap()
            .records(|db| db.runs().every(0, 10))
            .unwrap();
        assert_eq!(
            (&runs[0].traced, &runs[0].snapshot, &runs[1].snapshot),
            (&Some(traced()), &Some(code()), &Some(code()))
        );
        for ((table, was), (_, is)) in before.iter().zip(&after) {
            assert_eq!(was, is, "table {table}");
        }
        assert_eq!(before.len(), after.len());
    }

    #[test]
    fn a_copy_that_fails_keeps_nothing_and_names_the_row() {
        let dir = tempfile::tempdir().unwrap();
        // An older homespace let SQLite keep a NUL in a title; PostgreSQL cannot.
        let first = dir.path().join("first.db");
        let original = filled(&first, "Fix the login");
        rusqlite::Connection::open(&first)
            .unwrap()
            .execute(
                "UPDATE sessions SET title = 'Fix' || char(0) || 'it' WHERE id = 's1'",
                [],
            )
            .unwrap();
        let server = ScratchServer::start().unwrap();
        let url = server.database("moved").unwrap();
        let shared = Store::connect(&url).unwrap();
        let failed = copy(&original, &shared, &mut |_| {}).unwrap_err();
        assert!(
            failed.message.contains("session s1 of 2026-11-20"),
            "{}",
            failed.message
        );
        assert!(failed.message.contains("NUL"), "{}", failed.message);
        assert_eq!(
            Counts::of(&shared).unwrap(),
            Counts::default(),
            "the tasks went too"
        );
        // So the copy can be tried again once the row is mended.
        drop(original);
        let mended = filled(&dir.path().join("mended.db"), "Fix the login");
        copy(&mended, &shared, &mut |_| {}).unwrap();
    }
}
