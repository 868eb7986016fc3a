//! Through [`crate::store::memory::MemoryRecords`], on both backends: each must find,
//! order, bound and refuse as these say, though ranks and snippets may differ.
use super::*;
use crate::error::ErrorKind;
use crate::model::transcript::{EntryRecord, SessionRecord, Transcript};
use crate::store::Store;
use crate::store::memory::Found;
use crate::store::memory::testing::{at, edit, entry, session, with_tags};
use crate::store::testing::for_each_backend;

fn sample(store: &Store) {
    let transcript = Transcript {
        sessions: vec![
            (
                session(
                    "deploy",
                    Some("2026-11-10T09:00:00Z"),
                    "Deploy the billing service",
                ),
                vec![
                    entry("d1", Channel::User, "please deploy billing to staging"),
                    entry(
                        "d2",
                        Channel::ToolCall,
                        "kubectl rollout status deploy/billing",
                    ),
                    at(
                        entry(
                            "d3",
                            Channel::ToolResult,
                            "error: rollout failed, image pull backoff",
                        ),
                        "2026-11-11T10:00:00Z",
                    ),
                    with_tags(
                        entry("d4", Channel::Assistant, "the registry token expired"),
                        &["incident"],
                    ),
                ],
            ),
            (
                session("login", Some("2026-11-20T09:00:00Z"), "Fix the login form"),
                vec![
                    entry(
                        "l1",
                        Channel::User,
                        "the login form rejects valid passwords",
                    ),
                    entry("l2", Channel::ToolCall, "grep -rn check_password src/"),
                    with_tags(
                        entry(
                            "l3",
                            Channel::Assistant,
                            "check_password compares bytes to str: a failed comparison",
                        ),
                        &["incident", "auth"],
                    ),
                ],
            ),
        ],
    };
    store.change_memory(|m| m.import(&transcript)).unwrap();
}

fn search(store: &Store, query: &str, limit: usize) -> Result<Found> {
    store.memory(|m| m.search(query, limit))
}

fn found(store: &Store, query: &str) -> (Vec<String>, usize, Option<String>) {
    let (hits, total, note) = search(store, query, 10).unwrap();
    let names = hits
        .iter()
        .map(|h| match h.seq {
            Some(seq) => format!("{}/{seq}", h.session_id),
            None => h.session_id.clone(),
        })
        .collect();
    (names, total, note)
}

fn names(store: &Store, query: &str) -> Vec<String> {
    found(store, query).0
}

#[test]
fn words_match_entries_and_sessions_with_snippets() {
    for_each_backend(|store| {
        sample(&store);
        let (hits, total, note) = search(&store, "billing", 10).unwrap();
        assert_eq!((total, note), (3, None));
        assert_eq!(hits[0].seq, None, "the session about it comes first");
        assert_eq!(hits[0].snippet, "Deploy the **billing** service");
        assert_eq!((hits[0].day.as_str(), hits[0].width), ("2026-11-10", 4));
        // What was said before a tool's call, which holds the word as often.
        assert_eq!(hits[1].channel, Some(Channel::User));
        assert_eq!(hits[2].channel, Some(Channel::ToolCall));
        assert_eq!(hits[2].snippet, "kubectl rollout status deploy/**billing**");
        // Entries with every word come first; case and punctuation do not matter.
        assert_eq!(names(&store, "FAILED rollout")[0], "deploy/3");
        assert_eq!(names(&store, "check_password bytes")[0], "login/3");
        assert_eq!(names(&store, "\"failed comparison\""), ["login/3"]);
        assert!(names(&store, "\"comparison failed\"").is_empty());
        assert_eq!(names(&store, "regist*"), ["deploy/4"]);
        assert_eq!(names(&store, "status/deploy/bill*"), ["deploy/2"]);
        // Tags are searched as words too.
        assert_eq!(names(&store, "auth"), ["login/3"]);
    });
}

#[test]
fn a_hit_on_a_tag_shows_what_the_entry_said_not_the_tags_json() {
    for_each_backend(|store| {
        sample(&store);
        let (hits, _, _) = search(&store, "auth", 10).unwrap();
        assert_eq!(hits.len(), 1);
        let snippet = &hits[0].snippet;
        assert!(
            snippet.contains("check_password compares bytes"),
            "{snippet}"
        );
        assert!(
            !snippet.contains('[') && !snippet.contains("\"auth\""),
            "{snippet}"
        );
    });
}

#[test]
fn several_words_rank_entries_by_how_many_match_instead_of_answering_nothing() {
    for_each_backend(|store| {
        sample(&store);
        // No entry or session holds all three words; "rollout" is in two entries.
        let (hits, total, note) = found(&store, "rollout money rounding");
        assert_eq!(hits, ["deploy/2", "deploy/3"]);
        assert_eq!(total, 2);
        assert_eq!(
            note.as_deref(),
            Some("0 hold every term, 2 more hold some of them and follow")
        );
        // Every word first, then those with some: the tool's output with "failed" and
        // "rollout" before the assistant's "failed" alone, though within a tier what
        // was said comes before a tool's call ("rollout" alone).
        let (hits, total, _) = found(&store, "failed rollout");
        assert_eq!(hits, ["deploy/3", "login/3", "deploy/2"]);
        assert_eq!(total, 3);
        // When every-word hits fill the page, nothing more is searched.
        let (hits, total, note) = search(&store, "failed rollout", 1).unwrap();
        assert_eq!((hits.len(), total, note), (1, 1, None));
        // A phrase stays one term, exact.
        assert_eq!(
            names(&store, "\"failed rollout\" zzz"),
            Vec::<String>::new()
        );
        assert_eq!(
            names(&store, "\"failed rollout\" zzz registry"),
            ["deploy/4"]
        );
        // Filters hold for every tier.
        assert_eq!(names(&store, "failed zzz channel:assistant"), ["login/3"]);
    });
}

#[test]
fn what_was_said_ranks_before_tools_calls_and_output_in_each_tier() {
    for_each_backend(|store| {
        let transcript = Transcript {
            sessions: vec![(
                session("timer", Some("2026-11-12T09:00:00Z"), "Expiry"),
                vec![
                    entry("t1", Channel::User, "which default timer do we keep?"),
                    entry(
                        "t2",
                        Channel::ToolResult,
                        "def __init__(self, timer=default_timer): timer timer timer",
                    ),
                    entry("t3", Channel::Assistant, "we keep the monotonic timer"),
                    entry("t4", Channel::ToolCall, "grep -rn timer src/"),
                    entry("t5", Channel::Thinking, "a wall clock timer can jump"),
                ],
            )],
        };
        store.change_memory(|m| m.import(&transcript)).unwrap();
        // The tool's output says "timer" most often and is the newest of the first tier,
        // yet the user's question leads it; in the second tier the assistant's and the
        // thinking's lines lead the tool's call.
        let (hits, total, _) = found(&store, "default timer");
        assert_eq!(total, 5);
        assert_eq!(hits[..2], ["timer/1", "timer/2"]);
        let mut said = hits[2..4].to_vec();
        said.sort();
        assert_eq!(said, ["timer/3", "timer/5"]);
        assert_eq!(hits[4], "timer/4");
        // A filter for tools leaves tools alone, ranked as before.
        assert_eq!(names(&store, "timer channel:tool_call"), ["timer/4"]);
    });
}

#[test]
fn pages_cut_from_one_ranking_never_repeat_a_hit() {
    for_each_backend(|store| {
        sample(&store);
        for query in ["the deploy login", "billing", "form failed the"] {
            let all = names(&store, query);
            for size in 1..=all.len() {
                let first = search(&store, query, size).unwrap().0.len();
                assert_eq!(
                    found_n(&store, query, size),
                    all[..first],
                    "{query} with {size}"
                );
            }
        }
    });
}

fn found_n(store: &Store, query: &str, limit: usize) -> Vec<String> {
    let (hits, _, _) = search(store, query, limit).unwrap();
    hits.iter()
        .map(|h| match h.seq {
            Some(seq) => format!("{}/{seq}", h.session_id),
            None => h.session_id.clone(),
        })
        .collect()
}

#[test]
fn filters_narrow_entries() {
    for_each_backend(|store| {
        let store = &*store;
        sample(store);
        assert_eq!(names(store, "failed channel:tool_result"), ["deploy/3"]);
        assert_eq!(
            names(store, "failed channel:assistant channel:user"),
            ["login/3"]
        );
        assert_eq!(names(store, "failed tag:incident"), ["login/3"]);
        assert_eq!(found(store, "tag:incident").0, ["login/3", "deploy/4"]);
        assert_eq!(found(store, "tag:incident").1, 2);
        assert_eq!(names(store, "tag:incident tag:auth"), ["login/3"]);
        assert_eq!(names(store, "form session:login"), ["login", "login/1"]);
        assert_eq!(
            names(store, "session:deploy channel:tool_call"),
            ["deploy/2"]
        );
        // An entry's own time counts, else its session's day.
        assert_eq!(
            names(store, "failed since:2026-11-11"),
            ["login/3", "deploy/3"]
        );
        assert_eq!(
            names(store, "failed until:2026-11-10"),
            Vec::<String>::new()
        );
        assert_eq!(names(store, "the until:2026-11-10"), ["deploy", "deploy/4"]);
        let (hits, total, note) = found(store, "x session:nope");
        assert_eq!((hits.len(), total), (0, 0));
        assert_eq!(note.as_deref(), Some("no session is named nope"));
    });
}

#[test]
fn relative_days_count_back_from_today() {
    for_each_backend(|store| {
        let store = &*store;
        let now = crate::model::time::Time::now().unix().0.max(0) as u64;
        let days_ago =
            |days: u64| crate::model::time::Time::from_unix(now - days * 86_400).to_string();
        let (recent, old) = (days_ago(3), days_ago(10));
        let transcript = Transcript {
            sessions: vec![
                (
                    session("old", Some(old.as_str()), "An old rollback"),
                    vec![entry("o1", Channel::User, "roll the release back")],
                ),
                (
                    session("recent", Some(recent.as_str()), "A recent rollback"),
                    vec![entry("r1", Channel::User, "roll the release back again")],
                ),
            ],
        };
        store.change_memory(|m| m.import(&transcript)).unwrap();
        assert_eq!(names(store, "release since:7d"), ["recent/1"]);
        let mut both = names(store, "release since:2w");
        both.sort();
        assert_eq!(both, ["old/1", "recent/1"]);
        assert_eq!(names(store, "release until:1w"), ["old/1"]);
        assert_eq!(
            names(store, "release since:0d"),
            Vec::<String>::new(),
            "0d is today, and nothing was said today"
        );
        let refused = search(store, "release since:7x", 5).unwrap_err();
        assert_eq!(refused.kind, ErrorKind::Invalid);
        assert!(refused.message.contains("since:7d"), "{}", refused.message);
    });
}

#[test]
fn tool_filters_entries_calling_or_answering_a_tool() {
    for_each_backend(|store| {
        let store = &*store;
        let with_tool = |mut entry: EntryRecord, tool: &str| {
            entry.meta = serde_json::json!({ "tool": tool }).try_into().unwrap();
            entry
        };
        let transcript = Transcript {
            sessions: vec![(
                session("tools", Some("2026-11-12T09:00:00Z"), "Run the tests"),
                vec![
                    entry("t1", Channel::User, "run the tests please"),
                    with_tool(entry("t2", Channel::ToolCall, "pytest -q tests"), "Bash"),
                    with_tool(entry("t3", Channel::ToolResult, "2 tests failed"), "Bash"),
                    with_tool(
                        entry("t4", Channel::ToolCall, "read tests/test_money.py"),
                        "Read",
                    ),
                    entry("t5", Channel::Assistant, "the tests fail on rounding"),
                ],
            )],
        };
        store.change_memory(|m| m.import(&transcript)).unwrap();
        // Names compare as the agent types them, in any case.
        let sorted = |query: &str| {
            let mut found = names(store, query);
            found.sort();
            found
        };
        assert_eq!(sorted("tests tool:bash"), ["tools/2", "tools/3"]);
        assert_eq!(
            sorted("tests tool:Read tool:bash"),
            ["tools/2", "tools/3", "tools/4"]
        );
        assert_eq!(found(store, "tool:read").0, ["tools/4"]);
        assert_eq!(found(store, "tool:read").1, 1);
        assert_eq!(
            names(store, "tests tool:bash channel:tool_result"),
            ["tools/3"]
        );
        assert_eq!(names(store, "re:fail tool:bash"), ["tools/3"]);
        assert!(names(store, "tests tool:grep").is_empty());
    });
}

#[test]
fn file_filters_the_entries_of_sessions_that_changed_the_file() {
    for_each_backend(|store| {
        let store = &*store;
        let in_proj = |id: &str, day: &str, title: &str| SessionRecord {
            cwd: Some("/p".into()),
            ..session(id, Some(day), title)
        };
        let transcript = Transcript {
            sessions: vec![
                (
                    in_proj("money", "2026-11-12T09:00:00Z", "Round the money"),
                    vec![
                        entry("m1", Channel::User, "round half even please"),
                        edit("m2", "/p/ledger/money.py"),
                    ],
                ),
                (
                    in_proj("tax", "2026-11-13T09:00:00Z", "Tax rounding"),
                    vec![
                        entry("x1", Channel::User, "round the tax too"),
                        edit("x2", "/p/ledger/tax.py"),
                    ],
                ),
                (
                    in_proj("docs", "2026-11-14T09:00:00Z", "Docs on rounding"),
                    vec![entry("o1", Channel::User, "document how we round")],
                ),
            ],
        };
        store.change_memory(|m| m.import(&transcript)).unwrap();
        let sorted = |query: &str| {
            let mut found = names(store, query);
            found.sort();
            found
        };
        assert_eq!(sorted("please file:ledger/money.py"), ["money/1"]);
        assert_eq!(sorted("rounding file:ledger/tax.py"), ["tax"], "titles too");
        assert_eq!(sorted("round file:ledger/"), ["money", "money/1", "tax/1"]);
        assert_eq!(
            found(store, "file:ledger/money.py").1,
            2,
            "filters only: the session whole"
        );
        assert_eq!(sorted("file:ledger/ channel:user"), ["money/1", "tax/1"]);
        assert_eq!(
            sorted("file:/srv/other/ledger/tax.py"),
            Vec::<String>::new()
        );
        assert_eq!(
            sorted("round file:ledger/ session:tax"),
            ["tax/1"],
            "with a session: only it"
        );
        let (hits, total, note) = found(store, "file:ledger/nothing.py");
        assert_eq!((hits.len(), total), (0, 0));
        assert_eq!(
            note.as_deref(),
            Some("no session changed ledger/nothing.py")
        );
        // Behind more recent matches of the words than a filter examines, the sessions that
        // changed the file are still searched.
        let noise: Vec<EntryRecord> = (0..EXAMINE + 10)
            .map(|i| entry(&format!("n{i}"), Channel::User, "round again"))
            .collect();
        let later = session("noise", Some("2026-11-30T09:00:00Z"), "Noise");
        store
            .change_memory(|m| {
                m.import(&Transcript {
                    sessions: vec![(later, noise)],
                })
            })
            .unwrap();
        assert_eq!(sorted("round file:ledger/money.py"), ["money", "money/1"]);
        let refused = search(store, "file:a.py file:b.py", 5).unwrap_err();
        assert_eq!(refused.kind, ErrorKind::Invalid);
    });
}

#[test]
fn patterns_scan_or_narrow() {
    for_each_backend(|store| {
        let store = &*store;
        sample(store);
        let (hits, _, _) = search(store, r"re:check_\w+\(?", 10).unwrap();
        assert_eq!(hits.len(), 2);
        assert_eq!(
            hits[0].snippet,
            "**check_password** compares bytes to str: a failed …"
        );
        assert_eq!(hits[1].snippet, "grep -rn **check_password** src/");
        assert_eq!(names(store, "failed re:roll\\w+"), ["deploy/3"]);
        assert_eq!(names(store, "re:(?i)^fix"), ["login"]);
        assert_eq!(names(store, "re:zzz"), Vec::<String>::new());
        // Rust's regex syntax, whichever backend: `\d`, `(?i)`, `\b`.
        assert_eq!(names(store, r"re:(?i)\bKUBECTL\b"), ["deploy/2"]);
        assert_eq!(names(store, r"registry re:\btoken\b"), ["deploy/4"]);
        // Filters alone list entries, newest first.
        assert_eq!(names(store, "channel:tool_call"), ["login/2", "deploy/2"]);
        assert_eq!(found(store, "channel:tool_call channel:user").1, 4);
        let (hits, total, _) = search(store, "channel:user", 1).unwrap();
        assert_eq!((hits.len(), total), (1, 2));
    });
}

#[test]
fn malformed_queries_are_refused_and_hostile_ones_are_text() {
    for_each_backend(|store| {
        let store = &*store;
        sample(store);
        for query in [
            "foo:bar",
            "channel:nope",
            "since:2026-02-30x",
            "re:(",
            "\"open",
        ] {
            let err = search(store, query, 5).unwrap_err();
            assert_eq!(err.kind, ErrorKind::Invalid, "{query}");
        }
        let long = "a".repeat(3_000);
        for query in [
            "\"\"",
            "*",
            "NEAR(a b)",
            "(",
            "-login",
            "a AND OR",
            "",
            "  ",
            "\"\"*",
            "^x",
            "x:",
            "{content}: x",
            "login:",
            "'; DROP TABLE entries; --",
            "é",
            "\u{301}",
            "a\"b",
            "**",
            "re:.*",
            "channel:user",
            "since:2026-11-01",
            // tsquery's syntax is text too.
            "'a' & !b | c <-> d :* \\ (e)",
            "login :* & !form",
            "x\u{0}y",
            "tag:a\u{0}b",
            "session:\"a\u{0}\" b",
            "x²",
            long.as_str(),
        ] {
            assert!(search(store, query, 5).is_ok(), "{query:?}");
        }
        assert_eq!(names(store, "login :* & !form"), ["login", "login/1"]);
        let (hits, total, note) = search(store, "  ", 5).unwrap();
        assert_eq!((hits.len(), total), (0, 0));
        assert_eq!(
            note.as_deref(),
            Some("the query has no words to search for")
        );
    });
}

#[test]
fn words_in_any_script_are_found() {
    for_each_backend(|store| {
        let transcript = Transcript {
            sessions: vec![(
                session("intl", None, "Été à Paris"),
                vec![entry("i1", Channel::User, "Überprüfung der Straße, 東京")],
            )],
        };
        store.change_memory(|m| m.import(&transcript)).unwrap();
        assert_eq!(names(&store, "été"), ["intl"]);
        assert_eq!(names(&store, "überprüfung"), ["intl/1"]);
        assert_eq!(names(&store, "STRASSE"), Vec::<String>::new());
        assert_eq!(names(&store, "straße"), ["intl/1"]);
    });
}

#[test]
fn very_common_words_rank_the_most_recent_matches() {
    for_each_backend(|store| {
        let entries: Vec<EntryRecord> = (0..RANK + 100)
            .map(|i| entry(&format!("k{i}"), Channel::User, &format!("common word {i}")))
            .collect();
        let transcript = Transcript {
            sessions: vec![(session("big", None, "big"), entries)],
        };
        store.change_memory(|m| m.import(&transcript)).unwrap();
        let (hits, total, note) = search(&store, "common", 3).unwrap();
        assert_eq!((hits.len(), total), (3, RANK + 100));
        assert_eq!(
            note.as_deref(),
            Some("2,100 matches: ranked the 2,000 most recent by relevance")
        );
        let (_, total, note) = search(&store, "common channel:user", 3).unwrap();
        assert_eq!((total, note), (RANK + 100, None));
        let (hits, total, note) = search(&store, "common re:\"word 2050$\"", 3).unwrap();
        assert_eq!(total, 1);
        assert_eq!(hits[0].snippet, "common **word 2050**");
        assert_eq!(
            note.as_deref(),
            Some("re: was checked on the 2,000 most recent matches of the words only")
        );
        // The oldest matches were not checked.
        assert_eq!(search(&store, "common re:\"word 7$\"", 3).unwrap().1, 0);
        // A scan reads every page, newest first, down to the oldest entry.
        let (hits, total, note) = search(&store, "re:\"word 5$\"", 3).unwrap();
        assert_eq!((total, note), (1, None));
        assert_eq!(hits[0].seq, Some(6));
        let (_, total, _) = search(&store, "channel:user re:word", 3).unwrap();
        assert_eq!(total, RANK + 100);
    });
}
