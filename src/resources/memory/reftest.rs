//! Reference-model test of memory writes: random sequences of new sessions, appended
//! entries, retags, content edits, summaries and removals — valid and invalid — applied to
//! a plain model (sessions holding lists of entries) and to `memory/sessions/` over a
//! store. After every step each session's listing, every entry's channel, content and tags,
//! and every summary must match the model; a step the model refuses must fail and change
//! nothing. On SQLite and on PostgreSQL.

use std::collections::BTreeMap;
use std::sync::Arc;

use proptest::prelude::*;
use serde_json::Value;

use crate::model::Links;
use crate::resources::memory::sessions::Sessions;
use crate::resources::memory::summary;
use crate::store::Store;
use crate::tree::resource::Edit;
use crate::tree::resource::ReadNow;

const DAY: &str = "2026-11-20";
const SESSIONS: [&str; 3] = ["s1", "s2", "s3"];
const CHANNELS: [&str; 4] = ["user", "assistant", "tool_call", "robot"];
const CONTENTS: [&str; 3] = ["hello", "ünïcode\nline two", ""];
const TAGS: [&str; 4] = ["db", "ui", "slow", "bad tag"];

#[derive(Debug, Clone, PartialEq)]
struct ModelEntry {
    channel: &'static str,
    content: &'static str,
    tags: Vec<&'static str>,
}

#[derive(Debug, Clone, Default)]
struct Model {
    sessions: BTreeMap<&'static str, (Vec<ModelEntry>, Option<String>)>,
}

#[derive(Debug, Clone)]
enum Op {
    Start(&'static str),
    Append {
        session: &'static str,
        channel: &'static str,
        content: &'static str,
        tags: Vec<&'static str>,
    },
    Retag {
        session: &'static str,
        seq: usize,
        tags: Vec<&'static str>,
    },
    Rewrite {
        session: &'static str,
        seq: usize,
        content: &'static str,
    },
    Summarise {
        session: &'static str,
        complete: bool,
    },
    Remove {
        session: &'static str,
        seq: usize,
    },
}

fn op() -> impl Strategy<Value = Op> {
    let session = proptest::sample::select(SESSIONS.to_vec());
    let tags = proptest::collection::vec(proptest::sample::select(TAGS.to_vec()), 0..3);
    prop_oneof![
        session.clone().prop_map(Op::Start),
        (
            session.clone(),
            proptest::sample::select(CHANNELS.to_vec()),
            proptest::sample::select(CONTENTS.to_vec()),
            tags.clone()
        )
            .prop_map(|(session, channel, content, tags)| Op::Append {
                session,
                channel,
                content,
                tags
            }),
        (session.clone(), 1..4usize, tags).prop_map(|(session, seq, tags)| Op::Retag {
            session,
            seq,
            tags
        }),
        (
            session.clone(),
            1..4usize,
            proptest::sample::select(CONTENTS.to_vec())
        )
            .prop_map(|(session, seq, content)| Op::Rewrite {
                session,
                seq,
                content
            }),
        (session.clone(), any::<bool>())
            .prop_map(|(session, complete)| Op::Summarise { session, complete }),
        (session, 1..4usize).prop_map(|(session, seq)| Op::Remove { session, seq }),
    ]
}

fn entry_path(session: &str, seq: usize) -> Vec<String> {
    vec![DAY.into(), session.into(), format!("{seq:04}.json")]
}

fn refs(path: &[String]) -> Vec<&str> {
    path.iter().map(String::as_str).collect()
}

fn valid_tags(tags: &[&'static str]) -> bool {
    tags.iter().all(|t| !t.contains(' '))
}

fn dedup(tags: &[&'static str]) -> Vec<&'static str> {
    let mut out = Vec::new();
    for tag in tags {
        if !out.contains(tag) {
            out.push(*tag);
        }
    }
    out
}

/// Apply `op` to the model; whether it should succeed.
fn apply(model: &mut Model, op: &Op) -> bool {
    match op {
        Op::Start(session) => {
            if model.sessions.contains_key(session) {
                return false;
            }
            model.sessions.insert(session, (Vec::new(), None));
            true
        }
        Op::Append {
            session,
            channel,
            content,
            tags,
        } => {
            let ok = *channel != "robot" && valid_tags(tags);
            match model.sessions.get_mut(session) {
                Some((entries, _)) if ok => {
                    entries.push(ModelEntry {
                        channel,
                        content,
                        tags: dedup(tags),
                    });
                    true
                }
                _ => false,
            }
        }
        Op::Retag { session, seq, tags } => {
            match model
                .sessions
                .get_mut(session)
                .and_then(|(e, _)| e.get_mut(seq - 1))
            {
                Some(entry) if valid_tags(tags) => {
                    entry.tags = dedup(tags);
                    true
                }
                _ => false,
            }
        }
        Op::Rewrite {
            session,
            seq,
            content,
        } => model
            .sessions
            .get(session)
            .and_then(|(e, _)| e.get(seq - 1))
            .is_some_and(|entry| entry.content == *content),
        Op::Summarise { session, complete } => match model.sessions.get_mut(session) {
            Some((_, summary)) if *complete => {
                *summary = Some(summary_text(session, true));
                true
            }
            _ => false,
        },
        Op::Remove { .. } => false,
    }
}

fn summary_text(session: &str, complete: bool) -> String {
    let text =
        summary::template(session).replace("## Tool Results\n", "## Tool Results\nAll green.\n");
    if complete {
        text
    } else {
        text.replace("## How It Went\n", "")
    }
}

/// Apply `op` to the resource; whether it succeeded.
fn perform(sessions: &Sessions, op: &Op) -> bool {
    match op {
        Op::Start(session) => sessions.mkdir(&[DAY, session]).is_ok(),
        Op::Append {
            session,
            channel,
            content,
            tags,
        } => {
            let body = serde_json::json!({"channel": channel, "content": content, "tags": tags});
            sessions
                .write(
                    &[DAY, session, "new.json"],
                    body.to_string().as_bytes(),
                    None,
                )
                .is_ok()
        }
        Op::Retag { session, seq, tags } => {
            rewrite(sessions, session, *seq, "tags", serde_json::json!(tags))
        }
        Op::Rewrite {
            session,
            seq,
            content,
        } => rewrite(sessions, session, *seq, "content", Value::from(*content)),
        Op::Summarise { session, complete } => sessions
            .write(
                &[DAY, session, "summary.md"],
                summary_text(session, *complete).as_bytes(),
                None,
            )
            .is_ok(),
        Op::Remove { session, seq } => sessions.remove(&refs(&entry_path(session, *seq))).is_ok(),
    }
}

/// Read entry `seq` of `session`, set `field` to `value`, write it back from what was read.
fn rewrite(sessions: &Sessions, session: &str, seq: usize, field: &str, value: Value) -> bool {
    let path = entry_path(session, seq);
    let Ok(bytes) = sessions.read_now(&refs(&path)) else {
        return false;
    };
    let mut entry: Value = serde_json::from_slice(&bytes).expect("an entry is JSON");
    entry[field] = value;
    sessions
        .write(&refs(&path), entry.to_string().as_bytes(), Some(&bytes))
        .is_ok()
}

/// Every session of the model, as the resource shows it.
fn check(model: &Model, sessions: &Sessions) -> Result<(), TestCaseError> {
    let listed: Vec<String> = sessions
        .names_now(&[DAY])
        .map(|names| names.into_iter().map(|(n, _)| n).collect())
        .unwrap_or_default();
    let expected: Vec<String> = model.sessions.keys().map(|s| s.to_string()).collect();
    let mut sorted = listed.clone();
    sorted.sort();
    prop_assert_eq!(sorted, expected);
    for (session, (entries, summary_written)) in &model.sessions {
        let files: Vec<String> = sessions
            .names_now(&[DAY, session])
            .expect("a session lists")
            .into_iter()
            .map(|(n, _)| n)
            .filter(|n| n.ends_with(".json"))
            .collect();
        prop_assert_eq!(files.len(), entries.len());
        for (index, entry) in entries.iter().enumerate() {
            let bytes = sessions
                .read_now(&refs(&entry_path(session, index + 1)))
                .expect("an entry reads");
            let value: Value = serde_json::from_slice(&bytes).expect("an entry is JSON");
            prop_assert_eq!(value["seq"].as_u64(), Some(index as u64 + 1));
            prop_assert_eq!(value["channel"].as_str(), Some(entry.channel));
            prop_assert_eq!(value["content"].as_str(), Some(entry.content));
            prop_assert_eq!(value["tags"].clone(), serde_json::json!(entry.tags));
        }
        let shown = sessions
            .read_now(&[DAY, session, "summary.md"])
            .expect("summary.md reads");
        let expected = summary_written
            .clone()
            .unwrap_or_else(|| summary::template(session));
        prop_assert_eq!(String::from_utf8_lossy(&shown).into_owned(), expected);
    }
    Ok(())
}

/// Applies `ops` to a new model and to `sessions`, checking after every step.
fn behaves_like_the_model(sessions: &Sessions, ops: &[Op]) -> Result<(), TestCaseError> {
    let mut model = Model::default();
    for op in ops {
        let expected = apply(&mut model, op);
        let done = perform(sessions, op);
        prop_assert_eq!(done, expected, "{:?}", op);
        check(&model, sessions)?;
    }
    Ok(())
}

fn sessions_on(store: Store) -> Sessions {
    Sessions::new(
        Arc::new(store),
        Links::new("/mnt/hs"),
        500,
        crate::resources::memory::digest::SourcePlaces::of(std::path::Path::new("/no-project")),
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn memory_writes_match_a_plain_model(ops in proptest::collection::vec(op(), 1..40)) {
        let store = Store::in_memory().expect("a store in memory");
        behaves_like_the_model(&sessions_on(store), &ops)?;
    }
}

/// The same on PostgreSQL: one private server, a new database for each case (fewer cases:
/// each costs a database).
#[test]
fn memory_writes_match_a_plain_model_on_postgres() {
    let server = crate::store::postgres::scratch::ScratchServer::start().expect("a scratch server");
    let made = std::sync::atomic::AtomicUsize::new(0);
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
        cases: 16,
        ..ProptestConfig::default()
    });
    let outcome = runner.run(&proptest::collection::vec(op(), 1..40), |ops| {
        let n = made.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let url = server.database(&format!("case{n}")).expect("a database");
        let store = Store::connect(&url).expect("the PostgreSQL store");
        behaves_like_the_model(&sessions_on(store), &ops)
    });
    if let Err(e) = outcome {
        panic!("{e}");
    }
}
