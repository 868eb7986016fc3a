//! The files sessions changed, on every backend: noted on every write path, read by
//! session, by file or folder and grouped by file, filled once for an older store.

use super::*;
use crate::model::transcript::{Channel, SessionRecord, Transcript};
use crate::store::Store;
use crate::store::memory::changed::{FileOrder, FilePattern};
use crate::store::memory::testing::{self, at, entry, session};
use crate::store::testing::{for_each_backend, for_each_backend_from};

fn edit(key: &str, path: &str, ts: &str) -> EntryRecord {
    at(testing::edit(key, path), ts)
}

fn in_folder(id: &str, started: &str, cwd: &str) -> SessionRecord {
    SessionRecord {
        cwd: Some(cwd.into()),
        ..session(id, Some(started), &format!("session {id}"))
    }
}

fn sample() -> Transcript {
    Transcript {
        sessions: vec![
            (
                in_folder("early", "2026-11-01T09:00:00Z", "/home/a/proj"),
                vec![
                    edit("1", "/home/a/proj/ledger/money.py", "2026-11-01T09:01:00Z"),
                    edit("2", "/home/a/proj/ledger/money.py", "2026-11-01T09:05:00Z"),
                    edit("3", "/home/a/proj/README.md", "2026-11-01T09:02:00Z"),
                    at(
                        entry(
                            "4",
                            Channel::ToolCall,
                            r#"Read {"file_path":"/home/a/proj/x.py"}"#,
                        ),
                        "2026-11-01T09:03:00Z",
                    ),
                ],
            ),
            (
                in_folder("late", "2026-11-20T09:00:00Z", "/home/a/proj"),
                vec![edit("late-1", "ledger/tax.py", "2026-11-20T09:01:00Z")],
            ),
            (
                in_folder("elsewhere", "2026-11-10T09:00:00Z", "/tmp/other"),
                vec![edit(
                    "elsewhere-1",
                    "/srv/checkout/ledger/money.py",
                    "2026-11-10T09:01:00Z",
                )],
            ),
        ],
    }
}

fn names(store: &Store, file: &str) -> (Vec<String>, usize) {
    let (rows, total) = store.memory(|m| m.sessions_changing(file, 10)).unwrap();
    (
        rows.into_iter()
            .map(|(s, _)| s.record.id.into_string())
            .collect(),
        total,
    )
}

fn rowid(store: &Store, id: &str) -> i64 {
    store.memory(|m| m.session(id)).unwrap().unwrap().rowid
}

#[test]
fn a_session_keeps_each_file_it_changed_once_at_the_latest_change() {
    for_each_backend(|store| {
        store.change_memory(|m| m.import(&sample())).unwrap();
        let early = rowid(&store, "early");
        let files = store.memory(|m| m.files_of(early)).unwrap();
        assert_eq!(
            files,
            [
                (
                    "ledger/money.py".to_string(),
                    Some(Time::parse("2026-11-01T09:05:00Z").unwrap())
                ),
                (
                    "README.md".to_string(),
                    Some(Time::parse("2026-11-01T09:02:00Z").unwrap())
                ),
            ],
            "relative to the session's folder, the read left out"
        );
        // Importing again, and appending live, note nothing twice and keep the latest time.
        store.change_memory(|m| m.import(&sample())).unwrap();
        store
            .change_memory(|m| m.append(early, &edit("5", "README.md", "2026-11-02T10:00:00Z")))
            .unwrap();
        let files = store.memory(|m| m.files_of(early)).unwrap();
        assert_eq!(files.len(), 2);
        assert_eq!(files[0].0, "README.md", "the appended change is the latest");
    });
}

#[test]
fn files_and_folders_find_the_sessions_that_changed_them_newest_first() {
    for_each_backend(|store| {
        store.change_memory(|m| m.import(&sample())).unwrap();
        assert_eq!(
            names(&store, "ledger/money.py"),
            (vec!["elsewhere".into(), "early".into()], 2),
            "another checkout's absolute path matches by its ending"
        );
        assert_eq!(
            names(&store, "./ledger//money.py"),
            names(&store, "ledger/money.py")
        );
        assert_eq!(
            names(&store, "ledger/"),
            (vec!["late".into(), "elsewhere".into(), "early".into()], 3)
        );
        assert_eq!(
            names(&store, "money.py").1,
            2,
            "a path's end after a slash matches"
        );
        assert_eq!(names(&store, "oney.py").1, 0, "part of a name does not");
        assert_eq!(names(&store, "ledger/money").1, 0);
        assert!(store.memory(|m| m.sessions_changing("/", 10)).is_err());
        let (one, total) = store.memory(|m| m.sessions_changing("ledger/", 1)).unwrap();
        assert_eq!((one.len(), total), (1, 3), "cut, and counted in all");
    });
}

#[test]
fn the_files_listed_by_recency_and_by_how_many_sessions_changed_them() {
    for_each_backend(|store| {
        store.change_memory(|m| m.import(&sample())).unwrap();
        let paths = |order| -> Vec<(String, usize)> {
            store
                .memory(|m| m.changed_files(order, 10))
                .unwrap()
                .into_iter()
                .map(|f| (f.path, f.sessions))
                .collect()
        };
        assert_eq!(paths(FileOrder::Recent)[0], ("ledger/tax.py".into(), 1));
        assert_eq!(
            paths(FileOrder::Often)[0],
            ("ledger/tax.py".into(), 1),
            "one session each: then the latest"
        );
        assert_eq!(paths(FileOrder::Often).len(), 4);
        store.change_memory(|m| m.forget("early")).unwrap();
        assert_eq!(
            paths(FileOrder::Often).len(),
            2,
            "a forgotten session's files go"
        );
    });
}

#[test]
fn a_store_holding_entries_before_the_table_is_filled_once() {
    // Rows as migration 12 left them: a session in /p that edited two files.
    let rows = r#"
        INSERT INTO sessions (rowid, id, source, day, cwd, title)
            VALUES (1, 'old', 'claude', '2026-10-01', '/p', 'old work');
        INSERT INTO entries (id, session, seq, channel, key, ts, meta, content) VALUES
            (4294967297, 1, 1, 'tool_call', 'a', '2026-10-01T08:00:00Z',
             '{"tool":"Edit"}', 'Edit {"file_path":"/p/ledger/money.py"}'),
            (4294967298, 1, 2, 'tool_call', 'b', '2026-10-01T08:01:00Z',
             '{"tool":"Write"}', 'Write {"file_path":"/p/docs/a.md"}'),
            (4294967299, 1, 3, 'user', 'c', NULL, '{}', 'Edit {"file_path":"x"}');
    "#;
    for_each_backend_from(12, rows, |store| {
        let files = store.memory(|m| m.files_of(1)).unwrap();
        let paths: Vec<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(paths, ["docs/a.md", "ledger/money.py"]);
        assert_eq!(names(&store, "ledger/money.py").0, ["old"]);
        let again = store.change_memory(|m| m.fill_changed_files()).unwrap();
        assert_eq!(again, None, "done once");
    });
}

#[test]
fn patterns_match_in_code_as_in_sql() {
    let file = FilePattern::parse("ledger/money.py").unwrap();
    assert!(file.matches("ledger/money.py") && file.matches("/srv/x/ledger/money.py"));
    assert!(!file.matches("old_ledger/money.py") && !file.matches("ledger/money.pyc"));
    let folder = FilePattern::parse("ledger/").unwrap();
    assert!(folder.matches("ledger/a/b.py") && folder.matches("/srv/ledger/a.py"));
    assert!(!folder.matches("ledgers/a.py") && !folder.matches("ledger"));
}

#[test]
fn a_colon_stands_for_a_slash_as_a_search_file_name_cannot_hold_one() {
    assert_eq!(
        FilePattern::parse("ledger:money.py").unwrap(),
        FilePattern::parse("ledger/money.py").unwrap()
    );
    assert_eq!(
        FilePattern::parse("src:ledger:").unwrap(),
        FilePattern::parse("src/ledger/").unwrap()
    );
}
