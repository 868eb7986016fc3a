//! Loading many transcripts in one transaction (`homespace import`, a file copied into
//! `memory/import/`): entries go into the full-text index and the counters in one pass at
//! the end, not one by one as they are inserted.
//!
//! FTS5 writes its pending terms to a new index segment whenever a statement that writes
//! more than one table starts, and every entry insert is one (its triggers keep counters).
//! Indexing through the trigger therefore wrote a segment per file (or per 2,000 entries)
//! and merged them over and over: at a million entries that merging was most of an
//! import's time. Here the transaction carries the mark of `memory_bulk_load` (migration 5,
//! `bulk.sql`), which turns the entry trigger off; [`bulk_load`] then indexes every entry
//! the load added in one statement, in entry order (so FTS5 gathers the terms of the whole
//! load in memory and writes one segment), counts them in three more, and removes the mark
//! before the caller commits. Index and counters are still kept inside the writing
//! transaction, and the mark is never committed: a load that fails rolls back with its
//! transaction, and every other writer and reader only ever sees the trigger at work.

use std::collections::BTreeMap;

use rusqlite::{Connection, params};

use crate::error::{Error, Result};
use crate::model::transcript::Transcript;
use crate::store::memory::records::{Imported, Loader};
use crate::store::memory::write::store_transcript;
use crate::store::memory::{entry_id, session_range};

/// A bulk load in progress: see [`bulk_load`].
pub struct BulkLoad<'c> {
    conn: &'c Connection,
    /// Sessions the load appended to, with the last seq each had before it.
    touched: BTreeMap<i64, i64>,
}

/// Terms FTS5 gathers in memory before writing a segment during a bulk load, in bytes
/// (FTS5's `hashsize`; 1 MiB by default): about 50,000 entries of a hundred words.
const BULK_HASH_BYTES: i64 = 64 << 20;

/// Segments the entries' index may gather on one level before they are merged during a
/// bulk load (`crisismerge`; FTS5 allows 2,000 segments in all). The load does no other
/// merging (`automerge` 0): compacting (`write.rs`) merges once at the end.
const BULK_CRISIS_MERGE: i64 = 256;

/// Stores `transcript`, a bulk load of its own: sessions are continued, joined or made as
/// `../write.rs` (`store_transcript`) tells.
#[cfg(test)]
pub fn import(conn: &Connection, transcript: &Transcript) -> Result<Imported> {
    bulk_load(conn, |bulk| bulk.import(transcript))
}

/// Runs `load` with a [`BulkLoad`] on `conn`, inside the caller's transaction, and indexes
/// what it added. When `load` fails the caller must roll the transaction back (as
/// [`crate::store::Store::write`] does): nothing of the load may be committed.
pub fn bulk_load<T>(
    conn: &Connection,
    load: impl FnOnce(&mut BulkLoad<'_>) -> Result<T>,
) -> Result<T> {
    conn.prepare_cached("INSERT INTO memory_bulk_load (only) VALUES (1)")?
        .execute([])?;
    tune(conn, true)?;
    let mut bulk = BulkLoad {
        conn,
        touched: BTreeMap::new(),
    };
    let loaded = load(&mut bulk)?;
    bulk.index()?;
    tune(conn, false)?;
    conn.prepare_cached("DELETE FROM memory_bulk_load")?
        .execute([])?;
    Ok(loaded)
}

impl Loader for BulkLoad<'_> {
    /// Stores `transcript` within the load, as [`import`] does, in a savepoint of its own:
    /// a transcript the store refuses leaves nothing behind.
    fn import(&mut self, transcript: &Transcript) -> Result<Imported> {
        self.conn.execute_batch("SAVEPOINT transcript")?;
        let stored = self.store(transcript);
        let end = if stored.is_ok() {
            "RELEASE transcript"
        } else {
            "ROLLBACK TO transcript; RELEASE transcript"
        };
        self.conn.execute_batch(end)?;
        stored
    }
}

impl BulkLoad<'_> {
    /// Stores `transcript` within the load.
    fn store(&mut self, transcript: &Transcript) -> Result<Imported> {
        let touched = &mut self.touched;
        store_transcript(self.conn, transcript, &mut |session, before| {
            let last = touched.entry(session).or_insert(before);
            *last = (*last).min(before);
        })
    }

    /// Indexes and counts the entries the load added, one statement each: FTS5 writes its
    /// pending terms out at the start of every statement that inserts many rows. Entries of
    /// a file rolled back to its savepoint are gone from the table, so they are neither
    /// indexed nor counted.
    fn index(&self) -> Result<()> {
        // In session order, so entry numbers only grow: FTS5 also writes its terms out
        // whenever a number goes back.
        let ranges: Vec<[i64; 2]> = self
            .touched
            .iter()
            .map(|(&session, &before)| [entry_id(session, before), session_range(session).1])
            .collect();
        let ranges = serde_json::to_string(&ranges)
            .map_err(|e| Error::internal(format!("cannot list entry ranges: {e}")))?;
        for statement in [INDEX, COUNT_SESSIONS, COUNT_CHANNELS, COUNT_ALL] {
            self.conn.prepare_cached(statement)?.execute([&ranges])?;
        }
        Ok(())
    }
}

/// The entries in the ranges of `?1` (a JSON array of `[after, last]` entry numbers), as
/// `e`: what every statement of [`BulkLoad::index`] reads. CROSS JOIN keeps the ranges the
/// outer loop: grouping by session, SQLite would otherwise walk the whole per-session key
/// index in order and test every stored entry against every range.
macro_rules! added_entries {
    () => {
        "json_each(?1) r CROSS JOIN entries e ON e.id > r.value ->> 0 AND e.id <= r.value ->> 1"
    };
}

/// The statements [`BulkLoad::index`] runs: what the trigger `entries_added` does entry by
/// entry outside a bulk load.
const INDEX: &str = concat!(
    "INSERT INTO entries_fts (rowid, content, tags) SELECT e.id, e.content, e.tags FROM ",
    added_entries!()
);
const COUNT_SESSIONS: &str = concat!(
    "WITH added AS (SELECT e.session, count(*) AS n FROM ",
    added_entries!(),
    " GROUP BY e.session)
    UPDATE sessions SET entry_count = entry_count + added.n
    FROM added WHERE sessions.rowid = added.session"
);
const COUNT_CHANNELS: &str = concat!(
    "INSERT INTO session_channels (session, channel, n)
    SELECT e.session, e.channel, count(*) FROM ",
    added_entries!(),
    " GROUP BY e.session, e.channel
    ON CONFLICT (session, channel) DO UPDATE SET n = n + excluded.n"
);
const COUNT_ALL: &str = concat!(
    "UPDATE memory_counts SET n = n + (SELECT count(*) FROM ",
    added_entries!(),
    ") WHERE name = 'entries'"
);

/// Sets the entries' index up for a bulk load, or back to FTS5's defaults. The settings are
/// stored in the index, so they are made and undone inside the transaction.
fn tune(conn: &Connection, bulk: bool) -> Result<()> {
    let (hash, automerge, crisis) = if bulk {
        (BULK_HASH_BYTES, 0, BULK_CRISIS_MERGE)
    } else {
        (1 << 20, 4, 16)
    };
    conn.prepare_cached(
        "INSERT INTO entries_fts (entries_fts, rank)
         VALUES ('hashsize', ?1), ('automerge', ?2), ('crisismerge', ?3)",
    )?
    .execute(params![hash, automerge, crisis])?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;
    use crate::model::transcript::{Channel, EntryRecord, SessionRecord};
    use crate::store::Store;
    use crate::store::memory::testing::{assert_consistent, entry, session, with_tags};
    use crate::store::memory::{MemoryReads, SessionRow, append, import, search};
    use crate::store::testing::for_each_backend;

    fn get_session(conn: &Connection, id: &str) -> Result<Option<SessionRow>> {
        conn.session(id)
    }

    fn one(record: SessionRecord, entries: Vec<EntryRecord>) -> Transcript {
        Transcript {
            sessions: vec![(record, entries)],
        }
    }

    fn matches(store: &Store, query: &str) -> u64 {
        store.read(|c| search(c, query, 10)).unwrap().1 as u64
    }

    fn settings(store: &Store) -> Vec<(String, i64)> {
        store
            .read(|c| {
                let mut rows = c.prepare(
                    "SELECT k, v FROM entries_fts_config
                     WHERE k IN ('automerge', 'crisismerge', 'hashsize') ORDER BY k",
                )?;
                let found = rows
                    .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
                    .collect::<rusqlite::Result<_>>()?;
                Ok(found)
            })
            .unwrap()
    }

    fn count_of(store: &Store) -> (usize, usize) {
        let stats = store.memory(|m| m.stats()).unwrap();
        (stats.sessions, stats.entries)
    }

    /// What the importer relies on, on every backend: a transcript the store refuses
    /// leaves nothing of itself (not even the sessions before its bad one), and the load
    /// goes on and commits the others.
    #[test]
    fn a_refused_transcript_leaves_nothing_and_the_load_goes_on() {
        for_each_backend(|store| {
            let old = session("old", Some("2026-11-01T09:00:00Z"), "Earlier work");
            let first = one(old.clone(), vec![entry("a", Channel::User, "ledger alpha")]);
            store.change_memory(|m| m.import(&first)).unwrap();
            let mut refused = one(
                session("dropped", None, "Fourth"),
                vec![entry("d1", Channel::User, "delta never stored")],
            );
            let bad = entry("a3", Channel::User, "delta\0too");
            refused.sessions.push((old.clone(), vec![bad]));
            let mut outcomes = Vec::new();
            store
                .change_memory(|m| {
                    m.bulk_load(&mut |loader| {
                        outcomes.push(loader.import(&one(
                            session("new", Some("2026-11-02T09:00:00Z"), "Second"),
                            vec![
                                entry("b1", Channel::User, "bravo question"),
                                with_tags(
                                    entry("b2", Channel::Assistant, "bravo answer"),
                                    &["kept"],
                                ),
                            ],
                        )));
                        outcomes.push(loader.import(&refused));
                        outcomes.push(loader.import(&one(
                            old.clone(),
                            vec![
                                entry("a", Channel::User, "ledger alpha"),
                                entry("a2", Channel::ToolCall, "ledger charlie"),
                            ],
                        )));
                        Ok(())
                    })
                })
                .unwrap();
            let kinds: Vec<_> = outcomes
                .iter()
                .map(|o| o.as_ref().map_err(|e| e.kind))
                .collect();
            let imported = |sessions, entries, skipped| Imported {
                sessions,
                entries,
                skipped,
            };
            assert_eq!(
                kinds,
                [
                    Ok(&imported(1, 2, 0)),
                    Err(ErrorKind::Invalid),
                    Ok(&imported(0, 1, 1))
                ]
            );
            assert!(store.memory(|m| m.session("dropped")).unwrap().is_none());
            assert_eq!(count_of(&store), (2, 4));
            let old = store.memory(|m| m.session("old")).unwrap().unwrap();
            let keys: Vec<String> = store
                .memory(|m| m.entries(old.rowid, 0, 10))
                .unwrap()
                .into_iter()
                .map(|e| e.record.key)
                .collect();
            assert_eq!(
                keys,
                ["a", "a2"],
                "numbered on as if the refused one never was"
            );
            assert_eq!(store.memory(|m| m.tags()).unwrap(), [("kept".into(), 1)]);
            assert_consistent(&store);
        });
    }

    #[test]
    fn a_load_that_fails_keeps_nothing() {
        for_each_backend(|store| {
            let failed = store.change_memory(|m| {
                m.bulk_load(&mut |loader| {
                    loader.import(&one(
                        session("s", None, "Seventh"),
                        vec![entry("g", Channel::User, "golf")],
                    ))?;
                    Err(Error::invalid("stop here"))
                })
            });
            assert_eq!(failed.unwrap_err().kind, ErrorKind::Invalid);
            assert_eq!(count_of(&store), (0, 0));
            let again = one(
                session("s", None, "Seventh"),
                vec![entry("g", Channel::User, "golf")],
            );
            assert_eq!(
                store.change_memory(|m| m.import(&again)).unwrap().entries,
                1
            );
            assert_consistent(&store);
        });
    }

    fn marked(store: &Store) -> bool {
        store
            .read(|c| Ok(c.prepare("SELECT 1 FROM memory_bulk_load")?.exists([])?))
            .unwrap()
    }

    #[test]
    fn the_one_pass_statements_read_only_the_added_ranges() {
        let store = Store::in_memory().unwrap();
        let plans = store
            .read(|c| {
                let mut plans = Vec::new();
                for statement in [INDEX, COUNT_SESSIONS, COUNT_CHANNELS, COUNT_ALL] {
                    let mut plan = c.prepare(&format!("EXPLAIN QUERY PLAN {statement}"))?;
                    let steps = plan
                        .query_map(["[[1, 2]]"], |r| r.get::<_, String>(3))?
                        .collect::<rusqlite::Result<Vec<_>>>()?;
                    plans.push(steps.join("; "));
                }
                Ok(plans)
            })
            .unwrap();
        for plan in plans {
            assert!(
                plan.contains("SEARCH e USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)")
                    && !plan.contains("SCAN e"),
                "a bulk load's statement walks all entries: {plan}"
            );
        }
    }

    #[test]
    fn a_bulk_load_indexes_and_counts_exactly_what_it_kept() {
        let store = Store::in_memory().unwrap();
        let old = session("old", Some("2026-11-01T09:00:00Z"), "Earlier work");
        store
            .write(|c| {
                import(
                    c,
                    &one(old.clone(), vec![entry("a", Channel::User, "ledger alpha")]),
                )
            })
            .unwrap();
        store
            .write(|c| {
                bulk_load(c, |bulk| {
                    // A new session, the old one continued, then a file given up half way
                    // (as the importer does with a file the store refuses), then one more.
                    bulk.import(&one(
                        session("new", Some("2026-11-02T09:00:00Z"), "Second"),
                        vec![
                            entry("b1", Channel::User, "bravo question"),
                            with_tags(entry("b2", Channel::Assistant, "bravo answer"), &["kept"]),
                        ],
                    ))?;
                    bulk.import(&one(
                        old.clone(),
                        vec![
                            entry("a", Channel::User, "ledger alpha"),
                            entry("a2", Channel::ToolCall, "ledger charlie"),
                        ],
                    ))?;
                    c.execute_batch("SAVEPOINT file")?;
                    bulk.import(&one(
                        session("dropped", None, "Fourth"),
                        vec![entry("d1", Channel::User, "delta never stored")],
                    ))?;
                    bulk.import(&one(
                        old.clone(),
                        vec![entry("a3", Channel::User, "delta too")],
                    ))?;
                    c.execute_batch("ROLLBACK TO file; RELEASE file")?;
                    bulk.import(&one(
                        session("last", Some("2026-11-03T09:00:00Z"), "Fifth"),
                        vec![entry("e1", Channel::Thinking, "echo thought")],
                    ))
                })
            })
            .unwrap();
        assert_consistent(&store);
        assert!(!marked(&store), "the mark of the load is never committed");
        assert_eq!(
            settings(&store),
            [
                ("automerge".to_string(), 4),
                ("crisismerge".to_string(), 16),
                ("hashsize".to_string(), 1 << 20)
            ],
            "the index is back to FTS5's defaults"
        );
        for (word, n) in [
            ("bravo", 2),
            ("charlie", 1),
            ("echo", 1),
            ("alpha", 1),
            ("delta", 0),
        ] {
            assert_eq!(matches(&store, word), n, "{word}");
        }
        let old = store.read(|c| get_session(c, "old")).unwrap().unwrap();
        assert_eq!(old.entries, 2);
        assert!(store.read(|c| get_session(c, "dropped")).unwrap().is_none());
        // Outside a load the trigger indexes again.
        let rowid = store
            .read(|c| get_session(c, "last"))
            .unwrap()
            .unwrap()
            .rowid;
        store
            .write(|c| append(c, rowid, &entry("e2", Channel::User, "foxtrot")))
            .unwrap();
        assert_eq!(matches(&store, "foxtrot"), 1);
        assert_consistent(&store);
    }

    #[test]
    fn a_failed_bulk_load_leaves_nothing_and_the_triggers_at_work() {
        let store = Store::in_memory().unwrap();
        let failed = store.write(|c| {
            bulk_load(c, |bulk| {
                bulk.import(&one(
                    session("s", None, "Seventh"),
                    vec![entry("g", Channel::User, "golf")],
                ))?;
                Err::<(), _>(Error::invalid("stop here"))
            })
        });
        assert_eq!(failed.unwrap_err().kind, ErrorKind::Invalid);
        assert!(!marked(&store));
        assert!(store.read(|c| get_session(c, "s")).unwrap().is_none());
        store
            .write(|c| {
                import(
                    c,
                    &one(
                        session("s", None, "Seventh"),
                        vec![entry("g", Channel::User, "golf")],
                    ),
                )
            })
            .unwrap();
        assert_eq!(matches(&store, "golf"), 1);
        assert_consistent(&store);
    }
}
