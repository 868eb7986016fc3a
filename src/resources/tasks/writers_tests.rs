//! Tests of `tasks/` with many writers: copies made stale by another writer, and stores
//! on one PostgreSQL database standing for mounts on different machines. Nothing a writer
//! saved is lost; a write over a change it did not see is refused and says so.

use std::sync::Arc;

use super::tests::{fixture_on, put, sample_on, text};
use super::*;
use crate::store::testing::for_each_backend;
use crate::tree::resource::ReadNow;

#[test]
fn two_writers_from_the_same_stale_copy_one_lands_the_other_is_told() {
    for_each_backend(|store| {
        let tasks = sample_on(store);
        let path = &["open", "deploy.json"];
        let seen = tasks.read_now(path).unwrap();
        let title = "Deploy";
        let first = String::from_utf8(seen.clone())
            .unwrap()
            .replacen(title, "Deploy (first)", 1);
        let second = String::from_utf8(seen.clone())
            .unwrap()
            .replacen(title, "Deploy (second)", 1);
        tasks.write(path, first.as_bytes(), Some(&seen)).unwrap();
        let error = tasks
            .write(path, second.as_bytes(), Some(&seen))
            .unwrap_err();
        assert_eq!(error.kind, ErrorKind::Busy, "{}", error.message);
        assert!(
            error
                .message
                .contains("changed by another writer after you opened it"),
            "{}",
            error.message
        );
        let now = String::from_utf8(tasks.read_now(path).unwrap()).unwrap();
        assert!(
            now.contains("(first)") && !now.contains("(second)"),
            "{now}"
        );
        // Written again from what it holds now, it lands.
        let again = now.replace("(first)", "(second)");
        tasks
            .write(path, again.as_bytes(), Some(now.as_bytes()))
            .unwrap();
        // A task removed meanwhile is not brought back by a writer that saw it.
        tasks
            .remove(path)
            .unwrap_or_else(|e| panic!("{}", e.message));
        let error = tasks
            .write(path, again.as_bytes(), Some(again.as_bytes()))
            .unwrap_err();
        assert!(
            error.message.contains("removed or renamed"),
            "{}",
            error.message
        );
    });
}

/// Two stores on one PostgreSQL database stand for two mounts on two machines.
fn two_on_one_database(server: &crate::store::postgres::scratch::ScratchServer) -> [Tasks; 2] {
    let url = server.database("team").unwrap();
    [(); 2].map(|_| fixture_on(Arc::new(Store::connect(&url).unwrap())))
}

#[test]
fn two_stores_on_one_database_lose_none_of_many_concurrent_creates() {
    let server = crate::store::postgres::scratch::ScratchServer::start().unwrap();
    let mounts = two_on_one_database(&server);
    std::thread::scope(|scope| {
        for (m, tasks) in mounts.iter().enumerate() {
            for w in 0..4 {
                scope.spawn(move || {
                    for i in 0..25 {
                        let name = format!("m{m}-w{w}-{i}.json");
                        put(tasks, &["open", &name], r#"{"title": "Concurrent"}"#);
                    }
                });
            }
        }
    });
    for tasks in &mounts {
        assert_eq!(tasks.list_now(&["open"]).unwrap().len(), 2 * 4 * 25);
        let counts = tasks.store.tasks(|db| db.counts()).unwrap();
        assert_eq!((counts.open, counts.ready), (200, 200));
    }
}

#[test]
fn a_write_from_a_stale_copy_on_another_store_is_refused() {
    let server = crate::store::postgres::scratch::ScratchServer::start().unwrap();
    let [here, there] = two_on_one_database(&server);
    let path = &["open", "deploy.json"];
    put(&here, path, r#"{"title": "Deploy"}"#);
    let seen_here = here.read_now(path).unwrap();
    let seen_there = there.read_now(path).unwrap();
    assert_eq!(seen_here, seen_there, "both see the task the same");
    let mine = text(seen_there.clone()).replace("Deploy", "Deploy (there)");
    there
        .write(path, mine.as_bytes(), Some(&seen_there))
        .unwrap();
    let stale = text(seen_here.clone()).replace("Deploy", "Deploy (here)");
    let error = here
        .write(path, stale.as_bytes(), Some(&seen_here))
        .unwrap_err();
    assert_eq!(error.kind, ErrorKind::Busy, "{}", error.message);
    assert!(text(here.read_now(path).unwrap()).contains("Deploy (there)"));
}

#[test]
fn concurrent_edits_from_two_stores_land_whole_or_are_refused_never_lost() {
    let server = crate::store::postgres::scratch::ScratchServer::start().unwrap();
    let mounts = two_on_one_database(&server);
    let path = &["open", "shared.json"];
    put(
        &mounts[0],
        path,
        r#"{"title": "Shared", "description": ""}"#,
    );
    let landed = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for (m, tasks) in mounts.iter().enumerate() {
            for w in 0..4 {
                let landed = &landed;
                scope.spawn(move || {
                    for i in 0..10 {
                        let seen = tasks.read_now(path).unwrap();
                        let task: serde_json::Value = serde_json::from_slice(&seen).unwrap();
                        let mut edited = task.clone();
                        let description = task["description"].as_str().unwrap();
                        edited["description"] = format!("{description} m{m}w{w}i{i}").into();
                        let bytes = serde_json::to_vec_pretty(&edited).unwrap();
                        match tasks.write(path, &bytes, Some(&seen)) {
                            Ok(()) => {
                                landed.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                            }
                            Err(e) => assert_eq!(e.kind, ErrorKind::Busy, "{}", e.message),
                        }
                    }
                });
            }
        }
    });
    let last: serde_json::Value =
        serde_json::from_slice(&mounts[1].read_now(path).unwrap()).unwrap();
    let marks = last["description"]
        .as_str()
        .unwrap()
        .split_whitespace()
        .count();
    let landed = landed.into_inner();
    assert!(landed > 0);
    assert_eq!(
        marks, landed,
        "every edit that landed is in the task, no other"
    );
}
