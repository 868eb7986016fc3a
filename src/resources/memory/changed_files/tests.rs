//! `memory/files/` over a store with sessions that edited files.

use super::*;
use crate::model::SessionId;
use crate::model::transcript::{Channel, EntryRecord, SessionRecord, Transcript};
use crate::tree::resource::ReadNow;

fn edit(key: &str, path: &str, ts: &str) -> EntryRecord {
    EntryRecord {
        key: key.into(),
        ts: Some(Time::parse(ts).unwrap()),
        channel: Channel::ToolCall,
        content: format!(r#"Edit {{"file_path":"{path}"}}"#),
        tags: Vec::new(),
        meta: serde_json::json!({"tool": "Edit"}).try_into().unwrap(),
    }
}

fn session(id: &str, title: &str, started: &str) -> SessionRecord {
    SessionRecord {
        source: "claude-code".into(),
        title: title.into(),
        started: Some(Time::parse(started).unwrap()),
        cwd: Some("/home/a/proj".into()),
        ..SessionRecord::new(SessionId::parse(id).unwrap())
    }
}

fn files() -> Files {
    let store = Arc::new(Store::in_memory().unwrap());
    let transcript = Transcript {
        sessions: vec![
            (
                session("s-round", "Round cents half even", "2026-11-01T09:00:00Z"),
                vec![edit(
                    "r1",
                    "/home/a/proj/ledger/money.py",
                    "2026-11-01T09:05:00Z",
                )],
            ),
            (
                session("s-tax", "Tax lines", "2026-11-20T09:00:00Z"),
                vec![
                    edit("t1", "/home/a/proj/ledger/money.py", "2026-11-20T09:05:00Z"),
                    edit("t2", "/home/a/proj/ledger/tax.py", "2026-11-20T09:06:00Z"),
                ],
            ),
        ],
    };
    store.change_memory(|m| m.import(&transcript)).unwrap();
    Files::new(store, Links::new("/mnt/hs"))
}

#[test]
fn a_file_lists_every_session_that_changed_it_newest_first() {
    let files = files();
    let entry = files.entry_now(&["ledger", "money.py"]).unwrap();
    assert!(
        entry.title.contains("changed in 2 past sessions"),
        "{}",
        entry.title
    );
    assert_eq!(
        entry.sections[0].items,
        [
            "2026-11-20 `/mnt/hs/memory/sessions/2026-11-20/s-tax/` — Tax lines",
            "2026-11-01 `/mnt/hs/memory/sessions/2026-11-01/s-round/` — Round cents half even",
        ]
    );
    let folder = files.entry_now(&["ledger"]).unwrap();
    assert!(
        folder.title.contains("ledger/ — changed in 2"),
        "{}",
        folder.title
    );
    let names: Vec<String> = files
        .list_now(&["ledger"])
        .unwrap()
        .into_iter()
        .map(|c| c.name)
        .collect();
    assert_eq!(names, ["money.py", "tax.py"]);
    assert!(files.stat_now(&["ledger", "nothing.py"]).is_err());
    assert!(files.stat_now(&["ledger", "money.py"]).is_ok());
}

#[test]
fn the_top_lists_files_by_recency_and_by_sessions() {
    let files = files();
    let entry = files.entry_now(&[]).unwrap();
    assert_eq!(
        entry.sections[0].items[0],
        "`/mnt/hs/memory/files/ledger/tax.py/` — 1 session, latest 2026-11-20"
    );
    assert_eq!(
        entry.sections[1].items[0],
        "`/mnt/hs/memory/files/ledger/money.py/` — 2 sessions, latest 2026-11-20"
    );
    let top: Vec<String> = files
        .list_now(&[])
        .unwrap()
        .into_iter()
        .map(|c| c.name)
        .collect();
    assert_eq!(top, ["ledger"]);
}
