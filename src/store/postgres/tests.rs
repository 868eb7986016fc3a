//! The PostgreSQL store against a private server: outages, lost commits, streamed reads,
//! changes heard from other stores, locales and migrations.

use super::*;
use crate::error::ErrorKind;

/// A schema for the tests of this file.
const TABLES: &[Migration] = &[(1, "CREATE TABLE kept (x INTEGER)"), (2, "")];

/// Writers keep inserting numbers while the server is stopped as an administrator does
/// and started again, over and over: every number answered as saved is there, every
/// number answered "try again" is not (a retry would make a duplicate), whatever the
/// moment the connection was cut — a commit whose answer was lost included.
#[test]
fn a_write_is_answered_by_what_happened_to_it_through_outages() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
    let server = scratch::ScratchServer::start().unwrap();
    let url = server.database("settle").unwrap();
    let store = Arc::new(Postgres::connect(&url, TABLES).unwrap());
    let (next, done) = (
        Arc::new(AtomicI32::new(0)),
        Arc::new(AtomicBool::new(false)),
    );
    let writers: Vec<_> = (0..3)
        .map(|_| {
            let (store, next, done) = (store.clone(), next.clone(), done.clone());
            std::thread::spawn(move || {
                let mut answers = Vec::new();
                while !done.load(Ordering::Relaxed) {
                    let n = next.fetch_add(1, Ordering::Relaxed);
                    let written =
                        store.write(|tx| tx.execute("INSERT INTO kept VALUES ($1)", &[&n]));
                    answers.push((n, written.map(|_| ()).map_err(|e| e.kind)));
                }
                answers
            })
        })
        .collect();
    // Eight outages: a commit cut before its answer comes about twice in four.
    for _ in 0..8 {
        std::thread::sleep(Duration::from_millis(150));
        server.shut_down().unwrap();
        std::thread::sleep(Duration::from_millis(50));
        server.resume().unwrap();
    }
    std::thread::sleep(Duration::from_millis(150));
    done.store(true, Ordering::Relaxed);
    let answers: Vec<(i32, Result<(), ErrorKind>)> = writers
        .into_iter()
        .flat_map(|w| w.join().unwrap())
        .collect();
    let kept: std::collections::HashSet<i32> = store
        .read(|tx| tx.query("SELECT x FROM kept", &[]))
        .unwrap()
        .iter()
        .map(|row| row.get(0))
        .collect();
    let (mut saved, mut refused, mut unknown) = (0, 0, 0);
    for (n, answer) in &answers {
        match answer {
            Ok(()) => {
                saved += 1;
                assert!(kept.contains(n), "{n} was answered as saved and is missing");
            }
            Err(ErrorKind::Unavailable) => {
                refused += 1;
                assert!(
                    !kept.contains(n),
                    "{n} was answered 'try again' and is stored"
                );
            }
            Err(other) => {
                assert_eq!(*other, ErrorKind::Internal, "{n}");
                unknown += 1;
            }
        }
    }
    eprintln!("{saved} saved, {refused} refused (EAGAIN), {unknown} not known");
    assert!(saved > 0 && refused > 0, "the outages came between writes");
}

/// A read handed its rows as they arrive never hands one over twice: a connection lost
/// after the first row fails the read (it is not tried again from the start), while a
/// kept connection found dead before any row is replaced and the read answered whole.
#[test]
fn a_streamed_read_lost_midway_fails_and_hands_no_row_over_twice() {
    let server = scratch::ScratchServer::start().unwrap();
    let url = server.database("stream").unwrap();
    let store = Postgres::connect(&url, TABLES).unwrap();
    let backend = |store: &Postgres| -> i32 {
        let row = store.read(|tx| tx.query_one("SELECT pg_backend_pid()", &[]));
        row.unwrap().get(0)
    };
    let mut admin = postgres::Client::connect(&url, NoTls).unwrap();
    let mut end = |pid: i32| {
        admin
            .execute("SELECT pg_terminate_backend($1)", &[&pid])
            .unwrap();
    };
    let serving = backend(&store);
    let mut seen: Vec<i32> = Vec::new();
    let lost = store.read(|tx| {
        tx.for_each_row(
            "SELECT n FROM generate_series(1, 5000000) n",
            &[],
            &mut |row| {
                seen.push(row.get(0));
                if seen.len() == 1 {
                    end(serving);
                }
                Ok(())
            },
        )
    });
    assert!(lost.is_err(), "{} rows, then {lost:?}", seen.len());
    assert!(seen.len() < 5_000_000, "the rest never came");
    assert!(
        seen.iter().zip(1..).all(|(n, expected)| *n == expected),
        "each row once, in order"
    );
    end(backend(&store));
    let mut counted = 0;
    store
        .read(|tx| {
            tx.for_each_row("SELECT n FROM generate_series(1, 1000) n", &[], &mut |_| {
                counted += 1;
                Ok(())
            })
        })
        .unwrap();
    assert_eq!(
        counted, 1000,
        "a dead kept connection replaced, the read whole"
    );
}

#[test]
fn an_outage_fails_requests_at_once_and_the_store_comes_back_by_itself() {
    let server = scratch::ScratchServer::start().unwrap();
    let url = server.database("outage").unwrap();
    let store = Postgres::connect(&url, TABLES).unwrap();
    let version = |store: &Postgres| {
        store.read(|tx| tx.query("SELECT number FROM homespace_migrations", &[]))
    };
    version(&store).unwrap();
    server.stop().unwrap();
    // Twice: the lost connection, then a failed attempt to connect again.
    for _ in 0..2 {
        let error = version(&store).unwrap_err();
        assert_eq!(error.kind, ErrorKind::Unavailable, "{error}");
        assert!(error.message.contains("127.0.0.1"), "{error}");
        assert!(!error.message.contains("password"), "{error}");
    }
    server.resume().unwrap();
    version(&store).unwrap();
    store
        .write(|tx| tx.execute("UPDATE homespace_migrations SET number = number", &[]))
        .unwrap();
}

#[test]
fn a_change_by_another_store_is_heard_and_its_own_are_not() {
    let server = scratch::ScratchServer::start().unwrap();
    let url = server.database("listen").unwrap();
    // The store's own schema: what announces changes is its triggers.
    let (here, there) = (
        Postgres::connect(&url, super::super::PG_MIGRATIONS).unwrap(),
        Postgres::connect(&url, super::super::PG_MIGRATIONS).unwrap(),
    );
    let touch = |store: &Postgres| {
        store
            .write(|tx| tx.execute("UPDATE tasks SET title = title", &[]))
            .unwrap()
    };
    // A bound on waiting, not a speed claim: a missing notification must not hang.
    let wait_until = |what: &str, done: &dyn Fn() -> bool| {
        let started = std::time::Instant::now();
        while !done() {
            assert!(started.elapsed() < Duration::from_secs(20), "{what}");
            std::thread::sleep(Duration::from_millis(5));
        }
    };
    here.version();
    wait_until("the listener listens", &|| here.listening());
    let before = here.version();
    touch(&here);
    touch(&there);
    wait_until("another store's change is heard", &|| {
        here.version() != before
    });
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(here.version(), before + 1, "its own change is not counted");
    // Any other program's change is heard too (an administrator's psql).
    let before = here.version();
    let mut plain = postgres::Client::connect(&url, NoTls).unwrap();
    plain
        .batch_execute("DELETE FROM settings WHERE name = 'none'")
        .unwrap();
    wait_until("a plain client's change is heard", &|| {
        here.version() != before
    });
    // The database goes away and comes back: the listener connects again and counts
    // what it may have missed.
    let before = here.version();
    server.stop().unwrap();
    wait_until("the listener notices", &|| !here.listening());
    server.resume().unwrap();
    wait_until("the listener is back", &|| here.listening());
    assert!(here.version() > before);
    let before = here.version();
    touch(&there);
    wait_until("changes are heard again", &|| here.version() != before);
}

#[test]
fn changes_are_heard_while_they_keep_coming() {
    let server = scratch::ScratchServer::start().unwrap();
    let url = server.database("stream").unwrap();
    let (here, there) = (
        Postgres::connect(&url, super::super::PG_MIGRATIONS).unwrap(),
        Postgres::connect(&url, super::super::PG_MIGRATIONS).unwrap(),
    );
    here.version();
    while !here.listening() {
        std::thread::sleep(Duration::from_millis(5));
    }
    let before = here.version();
    // Another writer changes the store every 50 ms for 3 s: each change must be heard
    // as it comes, not once the changes stop.
    let streaming = std::sync::atomic::AtomicBool::new(true);
    let heard_while_streaming = std::thread::scope(|scope| {
        scope.spawn(|| {
            for _ in 0..60 {
                there
                    .write(|tx| tx.execute("UPDATE tasks SET title = title", &[]))
                    .unwrap();
                std::thread::sleep(Duration::from_millis(50));
            }
            streaming.store(false, std::sync::atomic::Ordering::SeqCst);
        });
        while streaming.load(std::sync::atomic::Ordering::SeqCst) {
            if here.version() != before {
                return true;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        false
    });
    assert!(
        heard_while_streaming,
        "no change was heard while they kept coming"
    );
}

/// A database made in the C locale (or without UTF-8) would keep `Été` unfound by
/// `été`, or drop `été` and `東京`: it is refused at connect, with how to make one that
/// works, and nothing is created in it.
#[test]
fn a_database_whose_locale_drops_words_is_refused_with_how_to_make_one() {
    let server = scratch::ScratchServer::start().unwrap();
    let admin = server.database("postgres").unwrap();
    let mut client = postgres::Client::connect(&admin, NoTls).unwrap();
    for (name, encoding) in [("c_locale", "UTF8"), ("ascii", "SQL_ASCII")] {
        client
            .batch_execute(&format!(
                "CREATE DATABASE {name} TEMPLATE template0 ENCODING '{encoding}' \
                 LC_COLLATE 'C' LC_CTYPE 'C'"
            ))
            .unwrap();
        let url = admin.replace("/postgres", &format!("/{name}"));
        let refused = Postgres::connect(&url, TABLES).unwrap_err();
        assert_eq!(refused.kind, ErrorKind::Invalid, "{refused}");
        assert!(refused.message.contains("createdb"), "{refused}");
        assert!(refused.message.contains("\"C\""), "{refused}");
        let mut there = postgres::Client::connect(&url, NoTls).unwrap();
        let made = there
            .query_one(
                "SELECT to_regclass('homespace_migrations') IS NOT NULL",
                &[],
            )
            .unwrap();
        assert!(!made.get::<_, bool>(0), "nothing is made in {name}");
    }
    // The scratch server's own databases are made in C.UTF-8, which keeps every word.
    let url = server.database("utf8").unwrap();
    Postgres::connect(&url, TABLES).unwrap();
}

#[test]
fn migrations_run_once_and_a_newer_store_is_refused() {
    let server = scratch::ScratchServer::start().unwrap();
    let url = server.database("migrations").unwrap();
    Postgres::connect(&url, TABLES).unwrap();
    let store = Postgres::connect(&url, TABLES).unwrap();
    let ran: Vec<i32> = store
        .read(|tx| tx.query("SELECT number FROM homespace_migrations ORDER BY 1", &[]))
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    let known: Vec<i32> = TABLES.iter().map(|(n, _)| *n).collect();
    assert_eq!(ran, known, "each ran once");
    store
        .write(|tx| tx.execute("INSERT INTO homespace_migrations VALUES (999)", &[]))
        .unwrap();
    let refused = Postgres::connect(&url, TABLES).unwrap_err();
    assert!(refused.message.contains("migration 999"), "{refused}");
}
