//! Tests of `tasks/` through the `Resource` trait: whole texts of the main views, every
//! way a write is refused (each leaving the store exactly as it was), moves, renames and
//! removal, and search.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, UNIX_EPOCH};

use super::*;
use crate::model::Entry;
use crate::store::testing::for_each_backend;
use crate::tree::glance::Glance;
use crate::tree::resource::ReadNow;

/// A resource over an in-memory store whose clock moves one minute per reading, from
/// 2025-03-01T12:00:00Z.
pub(super) fn fixture() -> Tasks {
    fixture_on(Arc::new(Store::in_memory().unwrap()))
}

/// The same over `store`.
pub(super) fn fixture_on(store: Arc<Store>) -> Tasks {
    let minutes = Arc::new(AtomicU64::new(0));
    let clock: Clock = Arc::new(move || {
        let n = minutes.fetch_add(1, Ordering::SeqCst);
        UNIX_EPOCH + Duration::from_secs(1_740_830_400 + 60 * n)
    });
    Tasks::with_clock(store, Links::new("/mnt/hs"), clock)
}

pub(super) fn text(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap()
}

/// Every task's file, by status directory: what a user could observe of the store.
pub(super) fn snapshot(tasks: &Tasks) -> Vec<(String, String)> {
    let mut seen = Vec::new();
    for status in Status::ALL {
        for child in tasks.list_now(&[status.as_str()]).unwrap() {
            let content = text(tasks.read_now(&[status.as_str(), &child.name]).unwrap());
            seen.push((format!("{}/{}", status.as_str(), child.name), content));
        }
    }
    seen
}

/// An entry laid out as plain text, so a test compares it whole.
fn show(entry: &Entry) -> String {
    let mut out = format!("# {}\n", entry.title);
    for line in &entry.about {
        out += &format!("{line}\n");
    }
    out += "\n| command | does | returns |\n";
    for f in &entry.functions {
        out += &format!("| `{}` | {} | {} |\n", f.command, f.does, f.returns);
    }
    for section in &entry.sections {
        out += &format!("\n## {}\n", section.heading);
        if section.items.is_empty() {
            out += &format!("{}\n", section.empty);
        }
        for item in &section.items {
            out += &format!("- {item}\n");
        }
    }
    out += "\nAdvanced:\n";
    for line in &entry.advanced {
        out += &format!("- {line}\n");
    }
    out
}

/// Prints both texts whole when they differ, so the difference can be read.
macro_rules! eqnice {
    ($expected:expr, $actual:expr) => {{
        let (expected, actual): (&str, &str) = (&$expected, &$actual);
        if expected != actual {
            panic!("\n--- expected ---\n{expected}\n--- actual ---\n{actual}\n---");
        }
    }};
}

pub(super) fn put(tasks: &Tasks, path: &[&str], json: &str) {
    tasks
        .write(path, json.as_bytes(), None)
        .unwrap_or_else(|e| panic!("writing {path:?}: {}", e.message));
}

/// Four tasks: schema (done), login (open, needs schema), deploy (open, needs login),
/// docs (blocked).
pub(super) fn sample_on(store: Arc<Store>) -> Tasks {
    let tasks = fixture_on(store);
    put(
        &tasks,
        &["done", "schema.json"],
        r#"{"title": "Design the schema", "priority": 1, "tags": ["db"]}"#,
    );
    put(
        &tasks,
        &["open", "fix-login.json"],
        r#"{"title": "Fix the login form", "priority": 1, "tags": ["ui", "auth"], "depends_on": ["schema"]}"#,
    );
    put(
        &tasks,
        &["deploy.json"],
        r#"{"title": "Deploy", "priority": 0, "depends_on": ["fix-login"]}"#,
    );
    put(
        &tasks,
        &["blocked", "docs.json"],
        r#"{"title": "Write the docs", "priority": 3, "tags": ["ui"]}"#,
    );
    tasks
}

fn refused(tasks: &Tasks, path: &[&str], content: &[u8]) -> Error {
    let before = snapshot(tasks);
    let error = tasks.write(path, content, None).unwrap_err();
    assert_eq!(snapshot(tasks), before, "a refused write changed the store");
    error
}

#[test]
fn an_empty_store_says_how_to_begin() {
    for_each_backend(|store| {
        let tasks = fixture_on(store);
        eqnice!(
        "# tasks — no tasks yet
Each task is a file <slug>.json in the directory of its status.

| command | does | returns |
| `echo '{\"title\": \"…\"}' > /mnt/hs/tasks/open/<slug>.json` | create (only title is required) | the task, with id and times |
| `cat /mnt/hs/tasks/open/<slug>.json` | read | its exact JSON |
| `cp edited.json /mnt/hs/tasks/open/<slug>.json` | update (the whole file) | if refused, every problem at once |
| `mv /mnt/hs/tasks/open/<slug>.json /mnt/hs/tasks/done/` | change status; `mv` to <new>.json renames | depends_on follows a rename |
| `rm /mnt/hs/tasks/open/<slug>.json` | delete | refused while others depend on it |
| `cat \"/mnt/hs/search/tasks:<words>\"` | search titles, descriptions, tags | ranked tasks with paths |

## Outstanding by priority
no tasks yet: create one with `echo '{\"title\": \"…\"}' > /mnt/hs/tasks/open/fix-login.json`

## Also here
- `/mnt/hs/tasks/ready/` — 0 ready to start: open, dependencies done
- `/mnt/hs/tasks/tags/` — a directory per tag

Advanced:
- Fields: title (1–200 chars), status (default: the directory), priority (0 highest to 4, default 2), tags, depends_on (task names), description; id, created, updated are set by the store.
- Names: <slug>.json (a-z, 0-9, -; up to 64). `/mnt/hs/tasks/<slug>.json` reaches a task in any status. Files up to 1 MiB.
- Without a mount: `homespace render /tasks/_entry.md`
",
        show(&tasks.entry_now(&[]).unwrap())
    );
        assert_eq!(tasks.summary().unwrap(), "outstanding work: no tasks yet");
        assert_eq!(
            tasks.root_part().unwrap().state,
            ["Tasks: none outstanding."]
        );
        assert_eq!(tasks.list_now(&["open"]).unwrap(), vec![]);
    });
}

#[test]
fn the_root_entry_lists_outstanding_work_by_priority() {
    for_each_backend(|store| {
        let tasks = sample_on(store);
        let entry = show(&tasks.entry_now(&[]).unwrap());
        let (head, _) = entry.split_once("\n| command").unwrap();
        eqnice!(
            "# tasks — 3 outstanding (2 open, 1 blocked), 1 done
Each task is a file <slug>.json in the directory of its status.
",
            head
        );
        let (_, contents) = entry.split_once("## Outstanding").unwrap();
        let (contents, _) = contents.split_once("Advanced:").unwrap();
        eqnice!(
            " by priority
- P0 `/mnt/hs/tasks/open/deploy.json` — Deploy
- P1 `/mnt/hs/tasks/open/fix-login.json` — Fix the login form [ui, auth]
- P3 `/mnt/hs/tasks/blocked/docs.json` — Write the docs [ui]

## Also here
- `/mnt/hs/tasks/ready/` — 1 ready to start: open, dependencies done
- `/mnt/hs/tasks/tags/` — a directory per tag

",
            contents
        );
        assert_eq!(
            tasks.summary().unwrap(),
            "outstanding work: 3 outstanding (2 open, 1 blocked), 1 done, 1 ready to start"
        );
        let root = tasks.root_part().unwrap();
        assert_eq!(
            root.state,
            [
                "Tasks: 3 outstanding (`/mnt/hs/tasks/<name>.json`):",
                "- P0 deploy — Deploy",
                "- P1 fix-login — Fix the login form",
                "- P3 docs — Write the docs",
            ]
        );
        assert_eq!(root.place, "tasks/ (2 open, 1 blocked, 1 done)");
    });
}

#[test]
fn a_status_directory_lists_its_tasks() {
    for_each_backend(|store| {
        let tasks = sample_on(store);
        eqnice!(
        "# tasks/open — 2 open tasks, highest priority P0

| command | does | returns |
| `echo '{\"title\": \"…\"}' > /mnt/hs/tasks/open/<slug>.json` | create a task here | the new task file |
| `cat /mnt/hs/tasks/open/<slug>.json` | read a task | its exact JSON |
| `mv /mnt/hs/tasks/open/<slug>.json /mnt/hs/tasks/in_progress/` | change its status (also blocked, done) | the file in that directory |
| `rm /mnt/hs/tasks/open/<slug>.json` | delete | refused while other tasks depend on it |

## Tasks by priority
- P0 `/mnt/hs/tasks/open/deploy.json` — Deploy
- P1 `/mnt/hs/tasks/open/fix-login.json` — Fix the login form [ui, auth]

Advanced:
- Fields: title (1–200 chars), status (default: the directory), priority (0 highest to 4, default 2), tags, depends_on (task names), description; id, created, updated are set by the store.
- Names: <slug>.json (a-z, 0-9, -; up to 64). `/mnt/hs/tasks/<slug>.json` reaches a task in any status. Files up to 1 MiB.
- Without a mount: `homespace render /tasks/open/_entry.md`
",
        show(&tasks.entry_now(&["open"]).unwrap())
    );
        let in_progress = show(&tasks.entry_now(&["in_progress"]).unwrap());
        assert!(
            in_progress.starts_with("# tasks/in_progress — no tasks in progress\n"),
            "{in_progress}"
        );
        assert!(in_progress.contains(
            "\n## Tasks by priority\nno tasks in progress — move one here: \
         `mv /mnt/hs/tasks/open/<slug>.json /mnt/hs/tasks/in_progress/`\n"
        ));
        let names: Vec<(String, String)> = tasks
            .list_now(&["open"])
            .unwrap()
            .into_iter()
            .map(|c| (c.name, c.about))
            .collect();
        assert_eq!(
            names,
            [
                (
                    "deploy.json".to_string(),
                    "P0 Deploy (13 lines, ~55 tokens)".to_string()
                ),
                (
                    "fix-login.json".to_string(),
                    "P1 Fix the login form [ui, auth] (16 lines, ~64 tokens)".to_string()
                ),
            ]
        );
    });
}

/// Within a glance (a listing with attributes, which looks at its entries in listing
/// order) a run of a folder's tasks is read from the store once, from the first one looked
/// at: a change another mount makes meanwhile shows in the next glance, and in any request
/// outside one.
#[test]
fn a_listing_reads_the_tasks_of_its_folder_once() {
    for_each_backend(|store| {
        let tasks = sample_on(Arc::clone(&store));
        let other_mount = fixture_on(store);
        let size_in =
            |glance: &Glance, path: &[&str]| tasks.stat(glance, path).unwrap().size.unwrap();
        let size = |path: &[&str]| size_in(&Glance::new(), path);
        let login = size(&["open", "fix-login.json"]);
        let glance = Glance::listing();
        // deploy.json (P0) comes first in the listing, fix-login.json (P1) next.
        size_in(&glance, &["open", "deploy.json"]);
        put(
            &other_mount,
            &["open", "fix-login.json"],
            r#"{"title": "Fix the login form and its error messages", "priority": 1, "tags": ["ui", "auth"], "depends_on": ["schema"]}"#,
        );
        assert_eq!(
            size_in(&glance, &["open", "fix-login.json"]),
            login,
            "as the listing's first look found it"
        );
        assert_eq!(
            text(tasks.read(&glance, &["open", "fix-login.json"]).unwrap()).len() as u64,
            login,
            "read as stat said"
        );
        drop(glance);
        assert!(
            size(&["open", "fix-login.json"]) > login,
            "outside a glance, as it is"
        );
        let next = Glance::listing();
        assert!(
            size_in(&next, &["open", "fix-login.json"]) > login,
            "the next glance looks again"
        );
        drop(next);
        // A lookup's glance (a file's stat and its size) reads the one task it asks for.
        let lookup = Glance::new();
        let now = size_in(&lookup, &["open", "fix-login.json"]);
        size_in(&lookup, &["open", "deploy.json"]);
        put(
            &other_mount,
            &["open", "fix-login.json"],
            r#"{"title": "Fix the login form", "priority": 1, "tags": ["ui", "auth"], "depends_on": ["schema"]}"#,
        );
        assert!(
            size_in(&lookup, &["open", "fix-login.json"]) < now,
            "no run of the folder kept by a glance that lists nothing"
        );
        drop(lookup);
        assert!(
            tasks.stat_now(&["open", "schema.json"]).is_err(),
            "a task elsewhere is still not here"
        );
    });
}

#[test]
fn ready_and_tags_follow_the_tasks() {
    for_each_backend(|store| {
        let tasks = sample_on(store);
        let ready = show(&tasks.entry_now(&["ready"]).unwrap());
        let (_, contents) = ready.split_once("## ").unwrap();
        eqnice!(
        "Ready by priority
- P1 `/mnt/hs/tasks/open/fix-login.json` — Fix the login form [ui, auth]

Advanced:
- Fields: title (1–200 chars), status (default: the directory), priority (0 highest to 4, default 2), tags, depends_on (task names), description; id, created, updated are set by the store.
- Names: <slug>.json (a-z, 0-9, -; up to 64). `/mnt/hs/tasks/<slug>.json` reaches a task in any status. Files up to 1 MiB.
- Without a mount: `homespace render /tasks/ready/_entry.md`
",
        contents
    );
        assert!(ready.starts_with(
            "# tasks/ready — 1 task ready to start\nOpen tasks whose dependencies are all done"
        ));
        assert_eq!(
            tasks.read_now(&["ready", "fix-login.json"]).unwrap(),
            tasks.read_now(&["open", "fix-login.json"]).unwrap()
        );
        assert!(
            !tasks
                .stat_now(&["ready", "fix-login.json"])
                .unwrap()
                .writable
        );
        assert_eq!(
            tasks.stat_now(&["ready", "deploy.json"]).unwrap_err().kind,
            ErrorKind::NotFound
        );

        tasks
            .rename(&["open", "fix-login.json"], &["done", "fix-login.json"])
            .unwrap();
        let ready: Vec<String> = tasks
            .list_now(&["ready"])
            .unwrap()
            .into_iter()
            .map(|c| c.name)
            .collect();
        assert_eq!(ready, ["deploy.json"]);

        let tags = show(&tasks.entry_now(&["tags"]).unwrap());
        let (_, contents) = tags.split_once("## ").unwrap();
        let (contents, _) = contents.split_once("\nAdvanced:").unwrap();
        eqnice!(
            "Tags, most used first
- `/mnt/hs/tasks/tags/ui/` — 2 tasks
- `/mnt/hs/tasks/tags/auth/` — 1 task
- `/mnt/hs/tasks/tags/db/` — 1 task
",
            contents
        );
        assert!(tags.starts_with("# tasks/tags — 3 tags\n"));
        let ui: Vec<String> = tasks
            .list_now(&["tags", "ui"])
            .unwrap()
            .into_iter()
            .map(|c| c.name)
            .collect();
        assert_eq!(ui, ["fix-login.json", "docs.json"]);
        let ui = show(&tasks.entry_now(&["tags", "ui"]).unwrap());
        assert!(
            ui.starts_with("# tasks/tags/ui — 2 tasks tagged ui\n"),
            "{ui}"
        );
        assert!(ui.contains(
            "- P1 `/mnt/hs/tasks/done/fix-login.json` — Fix the login form [ui, auth]\n"
        ));
        assert_eq!(
            tasks.stat_now(&["tags", "nope"]).unwrap_err().kind,
            ErrorKind::NotFound
        );
    });
}

#[test]
fn a_task_file_reads_back_exactly_and_rewriting_it_changes_nothing() {
    for_each_backend(|store| {
        let tasks = sample_on(store);
        let content = tasks.read_now(&["open", "fix-login.json"]).unwrap();
        eqnice!(
            r#"{
  "id": 2,
  "title": "Fix the login form",
  "status": "open",
  "priority": 1,
  "tags": [
    "ui",
    "auth"
  ],
  "depends_on": [
    "schema"
  ],
  "description": "",
  "created": "2025-03-01T12:01:00Z",
  "updated": "2025-03-01T12:01:00Z"
}
"#,
            text(content.clone())
        );
        assert_eq!(
            tasks.stat_now(&["open", "fix-login.json"]).unwrap().size,
            Some(content.len() as u64)
        );
        tasks
            .write(&["open", "fix-login.json"], &content, None)
            .unwrap();
        tasks.write(&["fix-login.json"], &content, None).unwrap();
        assert_eq!(tasks.read_now(&["fix-login.json"]).unwrap(), content);

        let edited = text(content).replace("\"priority\": 1", "\"priority\": 2");
        tasks
            .write(&["open", "fix-login.json"], edited.as_bytes(), None)
            .unwrap();
        let after = text(tasks.read_now(&["open", "fix-login.json"]).unwrap());
        assert!(after.contains("\"priority\": 2,"));
        assert!(after.contains("\"created\": \"2025-03-01T12:01:00Z\""));
        assert!(
            after.contains("\"updated\": \"2025-03-01T12:04:00Z\""),
            "{after}"
        );
    });
}

#[test]
fn status_comes_from_the_directory_unless_the_file_says_otherwise() {
    for_each_backend(|store| {
        let tasks = fixture_on(store);
        put(&tasks, &["blocked", "a.json"], r#"{"title": "A"}"#);
        assert!(
            text(tasks.read_now(&["blocked", "a.json"]).unwrap())
                .contains("\"status\": \"blocked\"")
        );
        put(&tasks, &["b.json"], r#"{"title": "B"}"#);
        assert!(tasks.stat_now(&["open", "b.json"]).is_ok());
        put(&tasks, &["b.json"], r#"{"title": "B", "status": "done"}"#);
        assert!(tasks.stat_now(&["done", "b.json"]).is_ok());
        put(&tasks, &["b.json"], r#"{"title": "B2"}"#);
        assert!(
            tasks.stat_now(&["done", "b.json"]).is_ok(),
            "omitting status keeps the stored one"
        );

        let error = refused(
            &tasks,
            &["open", "c.json"],
            br#"{"title": "C", "status": "done"}"#,
        );
        eqnice!(
        "/mnt/hs/tasks/open/c.json was not saved:
- \"status\" is \"done\" but the file is in /mnt/hs/tasks/open/: leave \"status\" out, or move the task with `mv /mnt/hs/tasks/open/c.json /mnt/hs/tasks/done/`",
        error.message
    );
        let error = refused(&tasks, &["open", "b.json"], br#"{"title": "B"}"#);
        assert_eq!(error.kind, ErrorKind::Exists);
        assert_eq!(
            tasks.can_create(&["open", "b.json"]).unwrap_err().kind,
            ErrorKind::Exists
        );
    });
}

#[test]
fn every_problem_of_one_write_is_reported_together() {
    for_each_backend(|store| {
        let tasks = sample_on(store);
        let error = refused(
        &tasks,
        &["open", "new-task.json"],
        br#"{"titel": "x", "status": "done", "priority": "high", "depends_on": ["nope", "fix-logn", "deploy"]}"#,
    );
        assert_eq!(error.kind, ErrorKind::Invalid);
        eqnice!(
            r#"/mnt/hs/tasks/open/new-task.json was not saved:
- unknown field "titel" (did you mean "title"?)
- "title" is missing: every task needs a title (1–200 characters)
- "priority" must be an integer 0 (highest) to 4, got "high"
- "status" is "done" but the file is in /mnt/hs/tasks/open/: leave "status" out, or move the task with `mv /mnt/hs/tasks/open/new-task.json /mnt/hs/tasks/done/`
- "depends_on": no task named "nope" (tasks are listed in /mnt/hs/tasks/_entry.md)
- "depends_on": no task named "fix-logn" (did you mean "fix-login"? tasks are listed in /mnt/hs/tasks/_entry.md)"#,
            error.message
        );
    });
}

#[test]
fn each_rejection_changes_nothing() {
    for_each_backend(|store| {
        let tasks = sample_on(store);
        let cases: [(&[&str], &[u8], ErrorKind, &str); 12] = [
        (&["open", "x.json"], b"{\"title\": \"a\",}", ErrorKind::Invalid, "- line 1, column 15: trailing comma"),
        (&["open", "x.json"], b"{\"title\": \"a\"} extra", ErrorKind::Invalid, "- line 1, column 16: trailing characters"),
        (&["open", "x.json"], b"", ErrorKind::Invalid, "- the file is empty"),
        (&["open", "x.json"], b"\n\n", ErrorKind::Invalid, "- the file is empty"),
        (&["open", "x.json"], b"{\"title\": \"\xc3\x28\"}", ErrorKind::Invalid, "- line 1, column 12: the content is not UTF-8 text"),
        (&["open", "x.json"], b"{\"title\": \"T\", \"tags\": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}", ErrorKind::Invalid, "nested deeper than 32 levels"),
        (&["open", "x.json"], br#"{"title": "T", "priority": 9}"#, ErrorKind::Invalid, "- \"priority\" must be an integer 0 (highest) to 4, got 9"),
        (&["open", "x.json"], br#"{"title": "T", "status": "closed"}"#, ErrorKind::Invalid, "- \"status\" must be one of open, in_progress, blocked, done, got \"closed\""),
        (&["open", "x.json"], br#"{"title": "T", "tags": "ui"}"#, ErrorKind::Invalid, "- \"tags\" must be a list of strings"),
        (&["schema.json"], br#"{"title": "S", "depends_on": ["deploy"]}"#, ErrorKind::Invalid,
            "- \"depends_on\": \"deploy\" would make a cycle: schema -> deploy -> fix-login -> schema"),
        (&["deploy.json"], br#"{"title": "D", "depends_on": ["deploy"]}"#, ErrorKind::Invalid,
            "- \"depends_on\": a task cannot depend on itself (\"deploy\")"),
        (&["open", "Bad Name.json"], br#"{"title": "T"}"#, ErrorKind::NotPermitted, "is not a task file name"),
    ];
        for (path, content, kind, message) in cases {
            let error = refused(&tasks, path, content);
            assert_eq!(error.kind, kind, "{path:?}: {}", error.message);
            assert!(
                error.message.contains(message),
                "{path:?}: {}",
                error.message
            );
        }
        let huge = format!(
            "{{\"title\": \"T\", \"description\": \"{}\"}}",
            "x".repeat(MAX_BYTES)
        );
        let error = refused(&tasks, &["open", "x.json"], huge.as_bytes());
        assert_eq!(error.kind, ErrorKind::TooBig);
        assert!(
            error.message.contains("over the limit of 1 MiB"),
            "{}",
            error.message
        );
        for view in [
            &["ready", "fix-login.json"][..],
            &["tags", "ui", "docs.json"],
        ] {
            let error = refused(&tasks, view, br#"{"title": "T"}"#);
            assert_eq!(error.kind, ErrorKind::ReadOnly, "{}", error.message);
        }
        assert_eq!(
            tasks.write(&["open"], b"{}", None).unwrap_err().kind,
            ErrorKind::NotPermitted
        );
    });
}

#[test]
fn only_slug_json_names_can_be_created() {
    for_each_backend(|store| {
        let tasks = sample_on(store);
        tasks.can_create(&["open", "fix-login-2.json"]).unwrap();
        tasks.can_create(&["new.json"]).unwrap();
        let error = tasks.can_create(&["open", "Fix_Login.json"]).unwrap_err();
        // EPERM for a bad name whatever the tool, as `mv` (docs/errors.md).
        assert_eq!(error.kind, ErrorKind::NotPermitted);
        assert_eq!(
            error.message,
            "cannot create /mnt/hs/tasks/open/Fix_Login.json: \"Fix_Login.json\" is not a task file name: a task \
         name is 1–64 lowercase letters, digits and dashes, not starting with a dash (e.g. fix-login), got \"Fix_Login\""
        );
        assert_eq!(
            tasks.can_create(&["notes.txt"]).unwrap_err().kind,
            ErrorKind::NotPermitted
        );
        assert_eq!(
            tasks.can_create(&["ready", "a.json"]).unwrap_err().kind,
            ErrorKind::ReadOnly
        );
        assert_eq!(
            tasks.mkdir(&["later"]).unwrap_err().kind,
            ErrorKind::NotPermitted
        );
        assert_eq!(tasks.mkdir(&["open"]).unwrap_err().kind, ErrorKind::Exists);
    });
}

#[test]
fn moving_between_directories_changes_the_status() {
    for_each_backend(|store| {
        let tasks = sample_on(store);
        tasks
            .rename(
                &["open", "fix-login.json"],
                &["in_progress", "fix-login.json"],
            )
            .unwrap();
        let moved = text(tasks.read_now(&["in_progress", "fix-login.json"]).unwrap());
        assert!(moved.contains("\"status\": \"in_progress\""));
        assert!(
            moved.contains("\"updated\": \"2025-03-01T12:04:00Z\""),
            "{moved}"
        );
        let gone = tasks.stat_now(&["open", "fix-login.json"]).unwrap_err();
        assert_eq!(gone.kind, ErrorKind::NotFound);
        assert_eq!(
            gone.message,
            "/mnt/hs/tasks/open/fix-login.json does not exist: task fix-login is in progress at \
         /mnt/hs/tasks/in_progress/fix-login.json"
        );
        // Moving onto itself is nothing.
        tasks
            .rename(&["fix-login.json"], &["in_progress", "fix-login.json"])
            .unwrap();
        assert_eq!(text(tasks.read_now(&["fix-login.json"]).unwrap()), moved);
    });
}

#[test]
fn renaming_a_task_renames_it_in_depends_on() {
    for_each_backend(|store| {
        let tasks = sample_on(store);
        tasks
            .rename(&["open", "fix-login.json"], &["open", "sign-in.json"])
            .unwrap();
        let deploy = text(tasks.read_now(&["deploy.json"]).unwrap());
        assert!(
            deploy.contains("\"depends_on\": [\n    \"sign-in\"\n  ]"),
            "{deploy}"
        );
        assert!(
            deploy.contains("\"updated\": \"2025-03-01T12:04:00Z\""),
            "{deploy}"
        );
        let error = tasks
            .rename(&["open", "sign-in.json"], &["done", "schema.json"])
            .unwrap_err();
        assert_eq!(error.kind, ErrorKind::Exists);
        assert_eq!(
            error.message,
            "cannot move /mnt/hs/tasks/open/sign-in.json to /mnt/hs/tasks/done/schema.json: task schema exists \
         (/mnt/hs/tasks/done/schema.json); choose another name or remove it first"
        );
        let error = tasks
            .rename(&["open", "sign-in.json"], &["ready", "sign-in.json"])
            .unwrap_err();
        assert_eq!(error.kind, ErrorKind::ReadOnly);
        let error = tasks
            .rename(&["open", "sign-in.json"], &["tags", "ui", "x.json"])
            .unwrap_err();
        assert_eq!(error.kind, ErrorKind::ReadOnly);
        let error = tasks
            .rename(&["open", "sign-in.json"], &["open", "Sign In.json"])
            .unwrap_err();
        assert_eq!(error.kind, ErrorKind::NotPermitted);
        assert!(
            error.message.contains("is not a task file name"),
            "{}",
            error.message
        );
        assert_eq!(
            tasks
                .rename(&["open", "nope.json"], &["done", "nope.json"])
                .unwrap_err()
                .kind,
            ErrorKind::NotFound
        );
    });
}

#[test]
fn a_task_others_depend_on_cannot_be_removed() {
    for_each_backend(|store| {
        let tasks = sample_on(store);
        let before = snapshot(&tasks);
        let error = tasks.remove(&["done", "schema.json"]).unwrap_err();
        assert_eq!(error.kind, ErrorKind::Invalid);
        eqnice!(
            "cannot remove /mnt/hs/tasks/done/schema.json: 1 task depends on it; remove \"schema\" from their \
         \"depends_on\" first: /mnt/hs/tasks/open/fix-login.json",
            error.message
        );
        assert_eq!(snapshot(&tasks), before);
        tasks.remove(&["deploy.json"]).unwrap();
        tasks.remove(&["open", "fix-login.json"]).unwrap();
        tasks.remove(&["done", "schema.json"]).unwrap();
        assert_eq!(
            tasks.remove(&["done", "schema.json"]).unwrap_err().kind,
            ErrorKind::NotFound
        );
        assert_eq!(
            tasks.remove(&["ready", "docs.json"]).unwrap_err().kind,
            ErrorKind::ReadOnly
        );
        assert_eq!(
            tasks.remove(&["open"]).unwrap_err().kind,
            ErrorKind::NotPermitted
        );
    });
}

#[test]
fn search_ranks_tasks_and_shrugs_off_hostile_queries() {
    for_each_backend(|store| {
        let tasks = sample_on(store);
        put(
            &tasks,
            &["open", "login-audit.json"],
            r#"{"title": "Audit", "description": "check the login logs"}"#,
        );
        let hits = tasks.search("login", 10).unwrap();
        assert_eq!(hits.total, 2);
        assert_eq!(
            hits.hits[0],
            Hit {
                path: "/mnt/hs/tasks/open/fix-login.json".into(),
                line: "P1 fix-login: Fix the login form".into(),
                ..Hit::default()
            }
        );
        assert_eq!(hits.hits[1].line, "P2 login-audit: Audit");
        let one = tasks.search("login", 1).unwrap();
        assert_eq!((one.hits.len(), one.total), (1, 2));
        for query in [
            "\"",
            "*",
            "NEAR(login form)",
            "(login",
            "-login",
            "login AND",
            "",
            "'; DROP TABLE tasks; --",
        ] {
            assert!(tasks.search(query, 5).is_ok(), "{query}");
        }
        // Operators are words like any other: no task has NEAR, so none has every word,
        // and the one with the other two comes first.
        let near = tasks.search("NEAR(login form)", 5).unwrap();
        assert_eq!(near.total, 2);
        assert_eq!(near.hits[0].line, "P1 fix-login: Fix the login form");
        assert_eq!(tasks.search("(login) form*", 5).unwrap().total, 2);
    });
}

#[test]
fn several_words_rank_tasks_by_how_many_match_instead_of_answering_nothing() {
    for_each_backend(|store| {
        let tasks = sample_on(store);
        put(
            &tasks,
            &["open", "login-audit.json"],
            r#"{"title": "Audit", "description": "check the login logs"}"#,
        );
        // No task has all three words; each has one or two of them.
        let hits = tasks.search("login form rounding", 10).unwrap();
        let lines: Vec<&str> = hits.hits.iter().map(|h| h.line.as_str()).collect();
        assert_eq!(
            lines,
            ["P1 fix-login: Fix the login form", "P2 login-audit: Audit"]
        );
        assert_eq!(hits.total, 2);
        // A task with every word comes before one with more matches of a single word.
        let hits = tasks.search("audit logs", 10).unwrap();
        assert_eq!(hits.hits[0].line, "P2 login-audit: Audit");
        // A quoted phrase is one term, kept whole: "form login" is in no task.
        assert_eq!(tasks.search("\"form login\"", 10).unwrap().total, 0);
        assert_eq!(tasks.search("\"login form\"", 10).unwrap().total, 1);
        assert_eq!(tasks.search("nothing here", 10).unwrap().total, 0);
    });
}

#[test]
fn task_search_filters_by_tag_and_status_and_explains_unknown_filters() {
    for_each_backend(|store| {
        let tasks = sample_on(store);
        let lines = |q: &str| -> Vec<String> {
            tasks
                .search(q, 10)
                .unwrap()
                .hits
                .into_iter()
                .map(|h| h.line)
                .collect()
        };
        assert_eq!(
            lines("tag:ui"),
            [
                "P1 fix-login: Fix the login form",
                "P3 docs: Write the docs"
            ]
        );
        assert_eq!(lines("write tag:ui"), ["P3 docs: Write the docs"]);
        assert_eq!(lines("tag:ui status:blocked"), ["P3 docs: Write the docs"]);
        // Nothing tagged so: the note says which tags there are.
        let none = tasks.search("tag:bug", 10).unwrap();
        assert_eq!(none.total, 0);
        assert_eq!(
            none.note.as_deref(),
            Some(
                "tags in use: auth, db, ui; a task search knows tag:<tag>, \
                 status:<open|in_progress|blocked|done>"
            )
        );
        let error = tasks.search("labels:bug", 5).unwrap_err();
        assert_eq!(error.kind, ErrorKind::Invalid);
        assert!(
            error.message.contains("it knows tag:<tag>, status:"),
            "{}",
            error.message
        );
    });
}

#[test]
fn nothing_ready_is_said_in_good_grammar_for_one_task_and_for_many() {
    for_each_backend(|store| {
        let tasks = fixture_on(store);
        let ready_says = |said: &str| {
            let ready = show(&tasks.entry_now(&["ready"]).unwrap());
            assert!(ready.contains(said), "{ready}");
        };
        put(
            &tasks,
            &["blocked", "docs.json"],
            r#"{"title": "Write the docs"}"#,
        );
        let waiting = |name: &str| format!(r#"{{"title": "{name}", "depends_on": ["docs"]}}"#);
        put(&tasks, &["open", "deploy.json"], &waiting("Deploy"));
        ready_says("nothing ready: the one open task waits for dependencies not yet done");
        put(&tasks, &["open", "announce.json"], &waiting("Announce"));
        ready_says("nothing ready: all 2 open tasks wait for dependencies not yet done");
    });
}
