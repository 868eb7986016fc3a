//! Memory hits in context and the conversation view, through the `memory/` resource on both
//! backends: a hit brings the turns around it (a decision and its reason together), and a
//! session's conversation lists every user and assistant turn, tools folded, page by page
//! within the budget.

use std::sync::Arc;

use crate::model::Links;
use crate::model::transcript::{Channel, Transcript};
use crate::render::budget;
use crate::resources::memory::Memory;
use crate::resources::memory::conversation::PER_PAGE;
use crate::resources::memory::sessions::Sessions;
use crate::store::Store;
use crate::store::memory::testing::{entry, session};
use crate::store::testing::for_each_backend;
use crate::tree::resource::ReadNow;
use crate::tree::resource::Search;

/// A decision whose reason is given in the next entry, among tool calls and results.
fn decision(store: &Store) {
    let transcript = Transcript {
        sessions: vec![(
            session("money", Some("2026-11-20T09:00:00Z"), "Money type"),
            vec![
                entry(
                    "m1",
                    Channel::User,
                    "Should amounts be floats or something else?",
                ),
                entry(
                    "m2",
                    Channel::Assistant,
                    "We keep amounts as Decimal, never float.",
                ),
                entry(
                    "m3",
                    Channel::Assistant,
                    "Because 0.1 + 0.2 is not 0.3 in binary: cents would drift.",
                ),
                entry(
                    "m4",
                    Channel::ToolCall,
                    r#"Read {"file_path":"ledger/money.py"}"#,
                ),
                entry(
                    "m5",
                    Channel::ToolResult,
                    "def parse(value):\n    return Decimal(value)",
                ),
            ],
        )],
    };
    store.change_memory(|m| m.import(&transcript)).unwrap();
}

fn memory(store: Arc<Store>) -> Memory {
    Memory::new(
        store,
        Links::new("/mnt/hs"),
        budget::BUDGET_TOKENS,
        std::path::Path::new("/no-project"),
    )
}

#[test]
fn a_hit_brings_the_reason_given_in_the_next_entry() {
    for_each_backend(|store| {
        decision(&store);
        let memory = memory(store);
        let hits = memory.search("decimal float", 10).unwrap();
        let hit = &hits.hits[0];
        assert!(hit.line.starts_with("#2 assistant: "), "{hit:?}");
        // Read where the turns around it are: the conversation's page holding it.
        assert!(hit.path.ends_with("/money/conversation/1.md"), "{hit:?}");
        assert_eq!(
            hit.before,
            ["#1 user: Should amounts be floats or something else?"]
        );
        // What was said around it; the tool call after it is on that page.
        assert_eq!(
            hit.after,
            ["#3 assistant: Because 0.1 + 0.2 is not 0.3 in binary: cents would drift."]
        );
    });
}

#[test]
fn a_conversation_lists_every_turn_tools_folded_in_pages_that_link_on() {
    for_each_backend(|store| {
        let mut entries = Vec::new();
        for n in 1..=15 {
            entries.push(entry(
                &format!("u{n}"),
                Channel::User,
                &format!("question {n}"),
            ));
            entries.push(entry(
                &format!("c{n}"),
                Channel::ToolCall,
                &format!(r#"Bash {{"command":"pytest -k case{n}"}}"#),
            ));
            entries.push(entry(&format!("r{n}"), Channel::ToolResult, "1 passed"));
            entries.push(entry(&format!("t{n}"), Channel::Thinking, "hmm"));
            entries.push(entry(
                &format!("a{n}"),
                Channel::Assistant,
                &"answer ".repeat(60),
            ));
        }
        let transcript = Transcript {
            sessions: vec![(
                session("long", Some("2026-11-20T09:00:00Z"), "Long"),
                entries,
            )],
        };
        store.change_memory(|m| m.import(&transcript)).unwrap();
        let memory = Sessions::new(
            store,
            Links::new("/mnt/hs"),
            budget::BUDGET_TOKENS,
            crate::resources::memory::digest::SourcePlaces::of(std::path::Path::new("/no-project")),
        );
        let dir = ["2026-11-20", "long", "conversation"];
        let pages = memory.list_now(&dir).unwrap();
        assert_eq!(pages.len(), 75_usize.div_ceil(PER_PAGE));
        let mut all = String::new();
        for (n, page) in pages.iter().enumerate() {
            let path = [&dir[..], &[page.name.as_str()]].concat();
            let text = String::from_utf8(memory.read_now(&path).unwrap()).unwrap();
            assert!(budget::fits(&text, budget::BUDGET_TOKENS), "{text}");
            assert!(!text.contains("[pruned"), "{text}");
            assert!(
                !text.contains("1 passed") && !text.contains("hmm"),
                "{text}"
            );
            match pages.get(n + 1) {
                Some(next) => assert!(
                    text.contains(&format!(
                        "Next page: cat /mnt/hs/memory/sessions/2026-11-20/long/conversation/{}",
                        next.name
                    )),
                    "{text}"
                ),
                None => assert!(text.contains("End of the conversation."), "{text}"),
            }
            all.push_str(&text);
        }
        for n in 1..=15 {
            assert!(all.contains(&format!(": question {n}\n")), "question {n}");
            assert!(
                all.contains(&format!("tool: Bash pytest -k case{n}\n")),
                "tool {n}"
            );
        }
        assert_eq!(all.matches(" assistant: answer answer").count(), 15);
        // The session's entry view links the conversation.
        let session = memory.entry_now(&dir[..2]).unwrap();
        assert!(
            session
                .functions
                .iter()
                .any(|f| f.command.ends_with("/long/conversation/1.md")),
            "{session:?}"
        );
    });
}

#[test]
fn a_session_without_entries_has_one_page_saying_so() {
    for_each_backend(|store| {
        let record = session("fresh", Some("2026-11-20T09:00:00Z"), "Fresh");
        store.change_memory(|m| m.create_session(&record)).unwrap();
        let memory = Sessions::new(
            store,
            Links::new("/mnt/hs"),
            budget::BUDGET_TOKENS,
            crate::resources::memory::digest::SourcePlaces::of(std::path::Path::new("/no-project")),
        );
        let page = memory
            .read_now(&["2026-11-20", "fresh", "conversation", "1.md"])
            .unwrap();
        assert!(
            String::from_utf8(page)
                .unwrap()
                .ends_with("# Conversation of fresh — no entries yet\n")
        );
        assert!(
            memory
                .read_now(&["2026-11-20", "fresh", "conversation", "2.md"])
                .is_err()
        );
    });
}

/// The same prompt given in three sessions (an agent re-run on one chore) shows once,
/// saying where else it is, so the page has room for a hit with something new; a hit
/// already among the turns shown around a better one is not shown again.
#[test]
fn a_text_repeated_across_sessions_shows_once_and_the_next_distinct_hit_takes_its_place() {
    for_each_backend(|store| {
        let chore = |id: &str, day: &str| {
            (
                session(id, Some(day), "Chore"),
                vec![
                    entry(
                        &format!("{id}-1"),
                        Channel::User,
                        "Write the export amounts as integer cents in the CSV.",
                    ),
                    entry(&format!("{id}-2"), Channel::Assistant, "Done."),
                ],
            )
        };
        let mut sessions = vec![
            chore("chore-a", "2026-11-21T09:00:00Z"),
            chore("chore-b", "2026-11-22T09:00:00Z"),
            chore("chore-c", "2026-11-23T09:00:00Z"),
        ];
        sessions.push((
            session("why", Some("2026-11-20T09:00:00Z"), "Money type"),
            vec![
                entry("w1", Channel::User, "Should we switch to integer cents?"),
                entry(
                    "w2",
                    Channel::Assistant,
                    "Decision: no integer cents, exchange rates need four decimals.",
                ),
            ],
        ));
        store
            .change_memory(|m| m.import(&Transcript { sessions }))
            .unwrap();
        let hits = memory(store.clone()).search("integer cents", 3).unwrap();
        let lines: Vec<&str> = hits.hits.iter().map(|h| h.line.as_str()).collect();
        let chores = lines
            .iter()
            .filter(|l| l.contains("Write the export"))
            .count();
        assert_eq!(chores, 1, "{lines:#?}");
        assert!(
            lines
                .iter()
                .any(|l| l.contains("Write the export") && l.contains("(same text in 2 more hits)")),
            "the shown one says it is repeated: {lines:#?}"
        );
        assert!(
            hits.hits.iter().any(|h| h.path.contains("/why/")),
            "the decision's session has room: {lines:#?}"
        );
        // w1 and w2 are neighbours: whichever ranks first shows the other among its turns.
        let why = hits
            .hits
            .iter()
            .filter(|h| h.path.contains("/why/"))
            .count();
        assert_eq!(why, 1, "{lines:#?}");
        // Both distinct texts are shown: no page follows, though 5 entries matched.
        assert!(hits.all_read, "{lines:#?}");
        assert!(!memory(store).search("integer cents", 1).unwrap().all_read);
    });
}

#[test]
fn what_was_said_ends_a_page_before_tools_output_holding_every_term() {
    for_each_backend(|store| {
        decision(&store);
        let transcript = Transcript {
            sessions: vec![
                (
                    session("read", Some("2026-11-21T09:00:00Z"), "Reading"),
                    vec![entry(
                        "r1",
                        Channel::ToolResult,
                        "amounts = [Decimal(a) for a in amounts]  # Decimal amounts",
                    )],
                ),
                (
                    session("later", Some("2026-11-22T09:00:00Z"), "Later"),
                    vec![entry("l1", Channel::User, "are the amounts right now?")],
                ),
            ],
        };
        store.change_memory(|m| m.import(&transcript)).unwrap();
        let hits = memory(store).search("decimal amounts", 10).unwrap();
        let lines: Vec<&str> = hits.hits.iter().map(|h| h.line.as_str()).collect();
        // The decision, though the tool's output holds the words more often; then the
        // tool's output; then the turn holding only one of the words.
        assert!(lines[0].starts_with("#2 assistant: "), "{lines:?}");
        assert!(lines[1].starts_with("#1 tool_result: "), "{lines:?}");
        assert!(lines[2].starts_with("#1 user: "), "{lines:?}");
        assert_eq!(hits.breaks, [1, 2], "{lines:?}");
        let note = hits.note.unwrap_or_default();
        assert!(
            note.contains("what was said first, then 1 hit in tools' calls and output"),
            "{note}"
        );
    });
}
