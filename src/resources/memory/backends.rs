//! Differential test: the same memory, stored the same way in SQLite and in PostgreSQL,
//! shows the same under `memory/` — every listing, view and entry file of `sessions/` (with
//! each conversation page) and `tags/`, the summary, the dashboard and the hits of a
//! filtered search with their context, and `files/` — byte for byte. Only the views ranked by
//! related sessions (`recall`, `related.md`) are left out: ranking need not match to the
//! byte across backends (each has its own full-text engine), and their own tests cover
//! them.

use std::cell::RefCell;
use std::sync::Arc;

use crate::model::SessionId;
use crate::model::time::Time;
use crate::model::transcript::{Channel, EntryRecord, SessionRecord, Transcript};
use crate::model::{Kind, Links};
use crate::resources::memory::Memory;
use crate::store::Store;
use crate::store::testing::for_each_backend;
use crate::tree::resource::ReadNow;
use crate::tree::resource::Resource;
use crate::tree::resource::Search;

fn session(id: &str, started: Option<&str>, title: &str) -> SessionRecord {
    SessionRecord {
        source: "claude-code".into(),
        started: started.map(|t| Time::parse(t).unwrap()),
        title: title.into(),
        resumes_by_copy: true,
        ..SessionRecord::new(SessionId::parse(id).unwrap())
    }
}

fn entry(key: &str, channel: Channel, content: &str, tags: &[&str]) -> EntryRecord {
    EntryRecord {
        key: key.into(),
        ts: None,
        channel,
        content: content.into(),
        tags: tags.iter().map(|t| t.to_string()).collect(),
        meta: serde_json::json!({"tool": "Bash", "n": 1})
            .try_into()
            .unwrap(),
    }
}

/// Sessions over three days and today, one without any time (the import's day), tags in
/// mixed case, a resumed session that joins the one it repeats, a summary and a retag.
fn fill(store: &Store, now: &str) {
    let mut opening = vec![
        entry(
            "a1",
            Channel::User,
            "the login form fails",
            &["Auth", "bug"],
        ),
        entry("a2", Channel::Assistant, "looking at auth.py", &[]),
        entry(
            "a3",
            Channel::ToolCall,
            "grep -n login auth.py",
            &["grep", "_tool"],
        ),
    ];
    opening[1].ts = Some(Time::parse("2026-11-20T09:01:00Z").unwrap());
    let mut resumed = opening.clone();
    resumed.push(entry(
        "a4",
        Channel::ToolResult,
        "auth.py:12: def login",
        &["bug"],
    ));
    let transcripts = [
        vec![
            (
                session("s1", Some("2026-11-20T09:00:00Z"), "Fix the login"),
                opening,
            ),
            (
                session("s2", Some("2026-11-20T08:00:00Z"), "Earlier that day"),
                vec![entry("b1", Channel::System, "You are helpful", &["Zeta"])],
            ),
        ],
        vec![(session("s1-resumed", None, ""), resumed)],
        vec![
            (
                session("s3", Some("2026-11-21T10:00:00Z"), "Next day"),
                (1..=12)
                    .map(|i| entry(&format!("c{i}"), Channel::Thinking, "step", &["steps"]))
                    .collect(),
            ),
            (
                session("untimed", None, "No times known"),
                vec![entry("d1", Channel::Summary, "so far", &["alpha"])],
            ),
        ],
    ];
    // On the import's day too: a session without a start lists first there and last among
    // the most recent.
    let live = session("live", Some(now), "Recorded live");
    store.change_memory(|m| m.create_session(&live)).unwrap();
    for sessions in transcripts {
        store
            .change_memory(|m| m.import(&Transcript { sessions }))
            .unwrap();
    }
    let s1 = store.memory(|m| m.session("s1")).unwrap().unwrap();
    let s3 = store.memory(|m| m.session("s3")).unwrap().unwrap();
    // Files changed by two sessions: memory/files/ and file: answer alike.
    let edit = |key: &str, path: &str| EntryRecord {
        meta: serde_json::json!({"tool": "Edit"}).try_into().unwrap(),
        ..entry(
            key,
            Channel::ToolCall,
            &format!(r#"Edit {{"file_path":"{path}"}}"#),
            &[],
        )
    };
    store
        .change_memory(|m| {
            m.set_summary(s1.rowid, Some("# Summary\n\nCompleted Work: the login"))?;
            m.set_tags(s1.rowid, 2, &["reviewed".to_string(), "Auth".to_string()])?;
            m.append(s1.rowid, &edit("a5", "src/auth.py"))?;
            m.append(s3.rowid, &edit("c13", "src/auth.py"))?;
            m.append(s3.rowid, &edit("c14", "docs/steps.md"))
                .map(|_| ())
        })
        .unwrap();
}

/// Every listing, view and file under `path` of `resource`, as (path, what shows).
fn walk(resource: &dyn Resource, path: &mut Vec<String>, shown: &mut Vec<(String, String)>) {
    let at: Vec<&str> = path.iter().map(String::as_str).collect();
    let here = format!("{}/{}", resource.name(), at.join("/"));
    shown.push((
        format!("{here} (entry)"),
        format!("{:#?}", resource.entry_now(&at)),
    ));
    let names = resource.names_now(&at).unwrap();
    shown.push((format!("{here} (names)"), format!("{names:?}")));
    for (name, kind) in names {
        path.push(name.clone());
        if kind == Kind::Dir {
            walk(resource, path, shown);
        } else if name != "related.md" {
            let at: Vec<&str> = path.iter().map(String::as_str).collect();
            let bytes = resource.read_now(&at).unwrap();
            shown.push((
                format!("{here}/{name}"),
                String::from_utf8_lossy(&bytes).into_owned(),
            ));
        }
        path.pop();
    }
}

#[test]
fn memory_shows_the_same_on_both_backends() {
    let backends = RefCell::new(Vec::new());
    let now = crate::model::time::rfc3339_of(std::time::SystemTime::now());
    for_each_backend(|store: Arc<Store>| {
        fill(&store, &now);
        let memory = Memory::new(
            store,
            Links::new("/mnt/hs"),
            4_000,
            std::path::Path::new("/no-project"),
        );
        let mut shown = vec![
            ("memory (summary)".to_string(), memory.summary().unwrap()),
            (
                "memory (dashboard)".to_string(),
                format!("{:#?}", memory.root_part().unwrap()),
            ),
            (
                "memory (entry)".to_string(),
                format!("{:#?}", memory.entry_now(&[])),
            ),
            // Filters alone list entries newest first, whatever the ranking: the hits and
            // the turns around each are the same on both.
            (
                "search channel:user".to_string(),
                format!("{:#?}", memory.search("channel:user", 10)),
            ),
            (
                "search file:src/".to_string(),
                format!("{:#?}", memory.search("file:src/", 10)),
            ),
        ];
        for child in memory.children() {
            if child.name() != "import" {
                walk(child.as_ref(), &mut Vec::new(), &mut shown);
            }
        }
        backends.borrow_mut().push(shown);
    });
    let backends = backends.into_inner();
    let [sqlite, postgres] = &backends[..] else {
        panic!("two backends ran: {}", backends.len());
    };
    assert!(sqlite.len() > 40, "the walk saw the store: {sqlite:#?}");
    for ((path, on_sqlite), (other, on_postgres)) in sqlite.iter().zip(postgres) {
        assert_eq!(path, other, "the same paths in the same order");
        if on_sqlite != on_postgres {
            let differs = on_sqlite
                .lines()
                .zip(on_postgres.lines())
                .position(|(a, b)| a != b)
                .unwrap_or(0);
            let around = |text: &str| {
                let lines: Vec<&str> = text.lines().collect();
                lines[differs.saturating_sub(3)..(differs + 4).min(lines.len())].join("\n")
            };
            panic!(
                "{path} differs at line {}\n--- SQLite:\n{}\n--- PostgreSQL:\n{}",
                differs + 1,
                around(on_sqlite),
                around(on_postgres)
            );
        }
    }
    assert_eq!(sqlite.len(), postgres.len());
}
