//! The behaviour of changes, through [`crate::store::memory::MemoryRecords`], on
//! every backend.

use super::*;
use crate::error::ErrorKind;
use crate::model::transcript::Channel;
use crate::store::Store;
use crate::store::memory::records::SessionRow;
use crate::store::memory::testing::{
    assert_consistent, at, entry, execute, pairs, session, time, with_tags,
};
use crate::store::testing::for_each_backend;

fn transcript(sessions: Vec<(SessionRecord, Vec<EntryRecord>)>) -> Transcript {
    Transcript { sessions }
}

fn first() -> Transcript {
    transcript(vec![(
        session("s1", Some("2026-11-20T09:00:00Z"), "Fix the login"),
        vec![
            at(
                entry("a", Channel::User, "the login form fails"),
                "2026-11-20T09:00:00Z",
            ),
            at(
                entry("b", Channel::Assistant, "looking at auth.py"),
                "2026-11-20T09:01:00Z",
            ),
            with_tags(
                entry("c", Channel::ToolCall, "grep -n login auth.py"),
                &["grep"],
            ),
        ],
    )])
}

fn import(store: &Store, transcript: &Transcript) -> Result<Imported> {
    store.change_memory(|m| m.import(transcript))
}

fn get_session(store: &Store, id: &str) -> Option<SessionRow> {
    store.memory(|m| m.session(id)).unwrap()
}

fn seqs_and_keys(store: &Store, id: &str) -> Vec<(i64, String)> {
    store
        .memory(|m| {
            let row = m.session(id)?.unwrap();
            Ok(m.entries(row.rowid, 0, 100)?
                .into_iter()
                .map(|e| (e.seq, e.record.key))
                .collect())
        })
        .unwrap()
}

/// How many things match `query`.
fn matches(store: &Store, query: &str) -> usize {
    store.memory(|m| m.search(query, 10)).unwrap().1
}

#[test]
fn compacting_keeps_every_match_and_the_indexes_consistent() {
    for_each_backend(|store| {
        import(&store, &first()).unwrap();
        let before = store.memory(|m| m.search("login", 10)).unwrap();
        store.change_memory(|m| m.compact()).unwrap();
        let after = store.memory(|m| m.search("login", 10)).unwrap();
        assert_eq!(before.1, after.1, "the same matches");
        assert_eq!(before.0.len(), after.0.len());
        assert_consistent(&store);
    });
}

#[test]
fn importing_twice_adds_nothing() {
    for_each_backend(|store| {
        let once = import(&store, &first()).unwrap();
        assert_eq!(
            once,
            Imported {
                sessions: 1,
                entries: 3,
                skipped: 0
            }
        );
        let twice = import(&store, &first()).unwrap();
        assert_eq!(
            twice,
            Imported {
                sessions: 0,
                entries: 0,
                skipped: 3
            }
        );
        let row = get_session(&store, "s1").unwrap();
        assert_eq!((row.day.as_str(), row.entries), ("2026-11-20", 3));
        assert_eq!(row.record.ended, time("2026-11-20T09:01:00Z"));
        assert_eq!(
            seqs_and_keys(&store, "s1"),
            [(1, "a".into()), (2, "b".into()), (3, "c".into())]
        );
        assert_consistent(&store);
    });
}

#[test]
fn a_session_is_continued_after_its_last_entry() {
    for_each_backend(|store| {
        import(&store, &first()).unwrap();
        let mut more = first();
        more.sessions[0].0.title = "Another title".into();
        // Filled in only where the stored session has nothing.
        more.sessions[0].0.model = Some("model-x".into());
        more.sessions[0].1.push(at(
            entry("d", Channel::User, "thanks"),
            "2026-11-21T10:00:00Z",
        ));
        // A key repeated inside one file is stored once.
        more.sessions[0]
            .1
            .push(entry("d", Channel::User, "thanks again"));
        // An earlier time widens the start, never the day.
        more.sessions[0].1.push(at(
            entry("z", Channel::User, "before"),
            "2026-11-19T23:00:00Z",
        ));
        let imported = import(&store, &more).unwrap();
        assert_eq!(
            imported,
            Imported {
                sessions: 0,
                entries: 2,
                skipped: 4
            }
        );
        let row = get_session(&store, "s1").unwrap();
        assert_eq!(row.record.title, "Fix the login", "a title is kept");
        assert_eq!(row.record.model.as_deref(), Some("model-x"));
        assert_eq!(
            (row.record.started, row.record.ended),
            (time("2026-11-19T23:00:00Z"), time("2026-11-21T10:00:00Z"))
        );
        assert_eq!(row.day, "2026-11-20", "a session never moves");
        assert_eq!(
            seqs_and_keys(&store, "s1")[3..],
            [(4, "d".to_string()), (5, "z".to_string())]
        );
        assert_consistent(&store);
    });
}

#[test]
fn a_resumed_session_joins_the_one_it_repeats() {
    for_each_backend(|store| {
        import(&store, &first()).unwrap();
        let mut resumed = first();
        resumed.sessions[0].0.id = SessionId::parse("s2").unwrap();
        resumed.sessions[0]
            .1
            .push(entry("e", Channel::User, "now the signup form"));
        let imported = import(&store, &resumed).unwrap();
        assert_eq!(
            imported,
            Imported {
                sessions: 0,
                entries: 1,
                skipped: 3
            }
        );
        assert!(get_session(&store, "s2").is_none());
        assert_eq!(seqs_and_keys(&store, "s1").len(), 4);
        // Later imports under the new id go to the same session, even without repeats.
        let later = transcript(vec![(
            session("s2", None, ""),
            vec![entry("f", Channel::Assistant, "done")],
        )]);
        let imported = import(&store, &later).unwrap();
        assert_eq!(
            imported,
            Imported {
                sessions: 0,
                entries: 1,
                skipped: 0
            }
        );
        assert_eq!(
            seqs_and_keys(&store, "s1").last().unwrap(),
            &(5, "f".to_string())
        );
        assert_consistent(&store);
    });
}

/// A session of `n` entries keyed `k1` ... `kn`.
fn numbered(id: &str, keys: impl Iterator<Item = usize>) -> Transcript {
    let entries = keys
        .map(|i| entry(&format!("k{i}"), Channel::User, &format!("step {i}")))
        .collect();
    transcript(vec![(
        session(id, Some("2026-11-20T09:00:00Z"), ""),
        entries,
    )])
}

#[test]
fn a_resumed_session_is_found_by_its_opening_even_after_new_entries() {
    for_each_backend(|store| {
        import(&store, &numbered("long", 1..=100)).unwrap();
        // Claude Code may put records of its own (a summary) before the copied history.
        let mut resumed = numbered("resumed", 1..=100);
        let copied = &mut resumed.sessions[0].1;
        copied.insert(0, entry("summary", Channel::Summary, "the story so far"));
        copied.push(entry("new", Channel::User, "and now"));
        let imported = import(&store, &resumed).unwrap();
        assert_eq!(
            imported,
            Imported {
                sessions: 0,
                entries: 2,
                skipped: 100
            }
        );
        assert_eq!(
            seqs_and_keys(&store, "long").len(),
            100,
            "the first 100 only"
        );
        assert!(get_session(&store, "resumed").is_none());
        assert_consistent(&store);
    });
}

#[test]
fn repeating_the_middle_of_a_session_and_not_its_opening_makes_a_new_one() {
    for_each_backend(|store| {
        import(&store, &numbered("long", 1..=100)).unwrap();
        // Only the first 32 entries of a session are looked up by key.
        let imported = import(&store, &numbered("tail", 33..=100)).unwrap();
        assert_eq!(imported.sessions, 1);
        assert_eq!(imported.entries, 68);
        // A file repeating any of them joins, and the session with most of them wins.
        let imported = import(&store, &numbered("overlap", 30..=40)).unwrap();
        assert_eq!(
            imported,
            Imported {
                sessions: 0,
                entries: 3,
                skipped: 8
            },
            "k30..k32 open `long`, k33..k40 open `tail`: it joins `tail`"
        );
        assert_eq!(seqs_and_keys(&store, "tail").len(), 71);
        let aliases = pairs(
            &store,
            "SELECT a.alias, s.id FROM session_aliases a JOIN sessions s ON s.rowid = a.session",
        );
        assert_eq!(aliases, [("overlap".to_string(), "tail".to_string())]);
        assert_consistent(&store);
    });
}

#[test]
fn sessions_of_tools_that_do_not_resume_by_copying_never_join() {
    for_each_backend(|store| {
        let chat = |id: &str, question: &str| {
            let mut t = transcript(vec![(
                session(id, None, ""),
                vec![
                    entry(
                        "system-prompt",
                        Channel::System,
                        "You are a helpful assistant.",
                    ),
                    entry(question, Channel::User, question),
                ],
            )]);
            t.sessions[0].0.resumes_by_copy = false;
            t
        };
        import(&store, &chat("one", "2+2?")).unwrap();
        let imported = import(&store, &chat("two", "a colour?")).unwrap();
        assert_eq!(
            imported,
            Imported {
                sessions: 1,
                entries: 2,
                skipped: 0
            },
            "the same opening line is a coincidence, not a resumed session"
        );
        assert_consistent(&store);
    });
}

#[test]
fn a_session_without_times_lands_on_the_import_day() {
    for_each_backend(|store| {
        let t = transcript(vec![(
            session("x", None, "t"),
            vec![entry("k", Channel::User, "hi")],
        )]);
        import(&store, &t).unwrap();
        let today = Time::now().to_string()[..10].to_string();
        let row = get_session(&store, "x").unwrap();
        assert_eq!((row.day, row.record.started), (today, None));
    });
}

#[test]
fn a_bad_entry_rolls_the_whole_file_back() {
    for_each_backend(|store| {
        let mut bad = first();
        // Meta that is no JSON object cannot be made (`Meta` is one): a NUL spoils it.
        bad.sessions[0].1[2].content = "x\0y".into();
        let err = import(&store, &bad).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Invalid);
        assert!(err.message.contains("NUL"), "{}", err.message);
        assert_eq!(store.memory(|m| m.stats()).unwrap().sessions, 0);
        let bad_id = transcript(vec![(session("../x", None, ""), vec![])]);
        let err = import(&store, &bad_id).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Invalid);
        // A refused file leaves the store able to take the next.
        import(&store, &first()).unwrap();
        assert_consistent(&store);
    });
}

/// A NUL in text is refused by every store (PostgreSQL's text cannot keep one, and a
/// SQLite store must stay copyable there), plainly — the rest of the file with it; a
/// NUL escaped inside JSON meta is kept.
#[test]
fn a_nul_in_text_is_refused_plainly_by_every_store() {
    for_each_backend(|store| {
        let mut file = first();
        file.sessions[0].1[1].content = "a\0b".into();
        file.sessions[0].1[2].meta = serde_json::json!({"output": "x\0y"}).try_into().unwrap();
        let err = import(&store, &file).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Invalid);
        assert!(
            err.message.contains("NUL") && err.message.contains("entry \"b\""),
            "{}",
            err.message
        );
        assert_eq!(store.memory(|m| m.stats()).unwrap().entries, 0);
        let mut titled = first();
        titled.sessions[0].0.title = "Fix\0it".into();
        let err = import(&store, &titled).unwrap_err();
        assert!(err.message.contains("session s1"), "{}", err.message);
        let mut tagged = first();
        tagged.sessions[0].1[0].tags = vec!["a\0".into()];
        assert!(
            import(&store, &tagged)
                .unwrap_err()
                .message
                .contains("a tag")
        );

        file.sessions[0].1[1].content = "ab".into();
        import(&store, &file).unwrap();
        let row = get_session(&store, "s1").unwrap();
        let meta = store.memory(|m| m.entry(row.rowid, 3)).unwrap().unwrap();
        assert_eq!(meta.record.meta, serde_json::json!({"output": "x\0y"}));
        let refused = store
            .change_memory(|m| m.set_summary(row.rowid, Some("a\0")))
            .unwrap_err();
        assert!(
            refused.message.contains("the summary"),
            "{}",
            refused.message
        );
        assert_consistent(&store);
    });
}

#[test]
fn sessions_are_made_and_appended_to() {
    for_each_backend(|store| {
        let live = session("live", Some("2026-11-22T08:00:00Z"), "");
        let rowid = store.change_memory(|m| m.create_session(&live)).unwrap();
        let err = store
            .change_memory(|m| m.create_session(&session("live", None, "")))
            .unwrap_err();
        assert_eq!(err.kind, ErrorKind::Exists);
        let err = store
            .change_memory(|m| m.create_session(&session("a/b", None, "")))
            .unwrap_err();
        assert_eq!(err.kind, ErrorKind::Invalid);
        let e = at(entry("k1", Channel::User, "first"), "2026-11-22T08:05:00Z");
        assert_eq!(store.change_memory(|m| m.append(rowid, &e)).unwrap(), 1);
        let e2 = entry("k2", Channel::Assistant, "second");
        assert_eq!(store.change_memory(|m| m.append(rowid, &e2)).unwrap(), 2);
        let err = store.change_memory(|m| m.append(rowid, &e)).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Exists);
        let err = store
            .change_memory(|m| m.append(rowid + 1, &e))
            .unwrap_err();
        assert_eq!(err.kind, ErrorKind::NotFound);
        let row = get_session(&store, "live").unwrap();
        assert_eq!(row.entries, 2);
        assert_eq!(row.record.ended, time("2026-11-22T08:05:00Z"));
        assert_consistent(&store);
    });
}

#[test]
fn tags_and_summaries_keep_the_indexes_in_step() {
    for_each_backend(|store| {
        import(&store, &first()).unwrap();
        let rowid = get_session(&store, "s1").unwrap().rowid;
        let tags = vec!["urgent".to_string(), "auth".to_string()];
        let set = |seq: i64, tags: &[String]| store.change_memory(|m| m.set_tags(rowid, seq, tags));
        set(2, &tags).unwrap();
        set(2, &tags).unwrap();
        set(3, &[]).unwrap();
        assert_eq!(set(9, &tags).unwrap_err().kind, ErrorKind::NotFound);
        assert_eq!(set(0, &tags).unwrap_err().kind, ErrorKind::NotFound);
        assert_eq!(
            store.memory(|m| m.tags()).unwrap(),
            [("auth".to_string(), 1), ("urgent".to_string(), 1)]
        );
        assert_eq!(
            store
                .memory(|m| m.entry(rowid, 2))
                .unwrap()
                .unwrap()
                .record
                .tags,
            tags
        );
        let (hits, total, _) = store.memory(|m| m.search("urgent", 10)).unwrap();
        assert_eq!((total, hits[0].seq), (1, Some(2)));
        assert_eq!(matches(&store, "tag:grep"), 0);

        let summary = |text: Option<&str>| store.change_memory(|m| m.set_summary(rowid, text));
        summary(Some("Completed Work: rotated keys")).unwrap();
        let (hits, _, _) = store.memory(|m| m.search("rotated", 10)).unwrap();
        assert_eq!((hits.len(), hits[0].seq), (1, None));
        summary(None).unwrap();
        assert_eq!(matches(&store, "rotated"), 0);
        let err = store
            .change_memory(|m| m.set_summary(999, None))
            .unwrap_err();
        assert_eq!(err.kind, ErrorKind::NotFound);
        assert_consistent(&store);
    });
}

#[test]
fn entries_cannot_change_except_their_tags() {
    for_each_backend(|store| {
        import(&store, &first()).unwrap();
        let err = execute(&store, "UPDATE entries SET content = 'x'").unwrap_err();
        assert!(err.message.contains("cannot change"), "{}", err.message);
        execute(
            &store,
            "UPDATE entries SET tags = '[\"kept\"]' WHERE seq = 1",
        )
        .unwrap();
        assert_consistent(&store);
    });
}

#[test]
fn forgetting_removes_every_trace() {
    for_each_backend(|store| {
        import(&store, &first()).unwrap();
        let mut other = first();
        other.sessions[0].0.id = SessionId::parse("s2").unwrap();
        for e in &mut other.sessions[0].1 {
            e.key.push('2');
        }
        import(&store, &other).unwrap();
        // An alias of s1 goes with it.
        let mut resumed = first();
        resumed.sessions[0].0.id = SessionId::parse("s1-resumed").unwrap();
        import(&store, &resumed).unwrap();
        let forget = |id: &str| store.change_memory(|m| m.forget(id)).unwrap();
        assert!(forget("s1"));
        assert!(!forget("s1"));
        let s = store.memory(|m| m.stats()).unwrap();
        assert_eq!((s.sessions, s.entries), (1, 3));
        assert!(pairs(&store, "SELECT alias, alias FROM session_aliases").is_empty());
        // Two entries and the title of the session left.
        assert_eq!(matches(&store, "login"), 3);
        assert_consistent(&store);
        assert!(forget("s2"));
        assert_eq!(
            store.memory(|m| m.stats()).unwrap(),
            crate::store::memory::Stats::default()
        );
        assert_eq!(store.memory(|m| m.tags()).unwrap(), []);
        assert_consistent(&store);
    });
}

#[test]
fn a_batch_is_bounded_by_entries_and_by_bytes() {
    use crate::store::memory::dialect::WriteSql;
    use crate::store::postgres::Tx;
    const BATCH: usize = <Tx<'_> as WriteSql>::BATCH;
    const BATCH_BYTES: usize = <Tx<'_> as WriteSql>::BATCH_BYTES;
    let batch_end = |entries: &[&EntryRecord]| batch_end(entries, BATCH, BATCH_BYTES);
    let entry = |size: usize| EntryRecord {
        key: "k".into(),
        ts: None,
        channel: Channel::User,
        content: "x".repeat(size),
        tags: Vec::new(),
        meta: crate::model::Meta::default(),
    };
    let small = entry(10);
    let big = entry(BATCH_BYTES / 3);
    let huge = entry(BATCH_BYTES * 2);
    assert_eq!(batch_end(&vec![&small; BATCH + 7]), BATCH);
    assert_eq!(batch_end(&[&small; 3]), 3);
    assert_eq!(batch_end(&[&big; 10]), 2);
    assert_eq!(batch_end(&[&huge, &small]), 1, "one entry, however large");
    assert_eq!(batch_end(&[&small, &huge]), 1);
}

#[test]
fn a_better_title_replaces_the_ones_a_growing_file_gave_and_no_other() {
    for_each_backend(|store| {
        let mut record = session("s1", Some("2026-11-20T09:00:00Z"), "s1.jsonl");
        let one = |record: &SessionRecord, key: &str| {
            transcript(vec![(record.clone(), vec![entry(key, Channel::User, "x")])])
        };
        import(&store, &one(&record, "a")).unwrap();
        // The first user message came: it replaces the file's name.
        record.title = "Fix the login".into();
        record.lesser_titles = vec!["s1.jsonl".into()];
        import(&store, &one(&record, "b")).unwrap();
        assert_eq!(
            get_session(&store, "s1").unwrap().record.title,
            "Fix the login"
        );
        // The tool's own title came.
        record.title = "Login fixed".into();
        record.lesser_titles = vec!["Fix the login".into(), "s1.jsonl".into()];
        import(&store, &one(&record, "c")).unwrap();
        assert_eq!(
            get_session(&store, "s1").unwrap().record.title,
            "Login fixed"
        );
        // A title of another origin stays.
        record.title = "Something else".into();
        record.lesser_titles = vec!["s1.jsonl".into()];
        import(&store, &one(&record, "d")).unwrap();
        assert_eq!(
            get_session(&store, "s1").unwrap().record.title,
            "Login fixed"
        );
    });
}
