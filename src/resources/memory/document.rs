//! The bytes of a memory entry file and what a write to one may change. An entry file is
//! pretty JSON (`seq`, `ts`, `channel`, `content`, `tags`, `meta`, in that order, 2-space
//! indent, trailing newline) made only from stored fields, so it reads back the same every
//! time. Entries are a record of what happened: a write may change `tags` and nothing
//! else; a new file in a session appends an entry, its `seq` and `ts` assigned when
//! missing.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::error::{Error, Result};
use crate::model::Meta;
use crate::model::time::Time;
use crate::model::transcript::{Channel, EntryRecord};
use crate::resources::json;

/// A small valid new entry, shown when a write is empty.
pub const EXAMPLE: &str = r#"{"channel": "user", "content": "what happened"}"#;

/// Fields of an entry file, in file order.
const FIELDS: [&str; 6] = ["seq", "ts", "channel", "content", "tags", "meta"];

#[derive(Serialize)]
struct EntryFile<'a> {
    seq: i64,
    ts: Option<String>,
    channel: &'a str,
    content: &'a str,
    tags: &'a [String],
    meta: &'a Meta,
}

/// The exact content of entry `seq` of a session.
pub fn render(seq: i64, entry: &EntryRecord) -> Result<Vec<u8>> {
    let file = EntryFile {
        seq,
        ts: entry.ts.map(|t| t.to_string()),
        channel: entry.channel.as_str(),
        content: &entry.content,
        tags: &entry.tags,
        meta: &entry.meta,
    };
    let mut bytes = serde_json::to_vec_pretty(&file)
        .map_err(|e| Error::internal(format!("cannot write entry {seq} as JSON: {e}")))?;
    bytes.push(b'\n');
    Ok(bytes)
}

/// The tags a write to entry `seq` (stored as `stored`) asks for, or every problem with
/// it: not JSON, an unknown field, a changed field other than `tags`, bad tags.
pub fn retagged(
    seq: i64,
    stored: &EntryRecord,
    content: &[u8],
) -> std::result::Result<Vec<String>, Vec<String>> {
    let object = object(content)?;
    let mut problems = unknown_fields(&object);
    let now: Value =
        match serde_json::from_slice(&render(seq, stored).map_err(|e| vec![e.message])?) {
            Ok(value) => value,
            Err(e) => return Err(vec![format!("the stored entry cannot be read back: {e}")]),
        };
    for field in FIELDS.iter().filter(|f| **f != "tags") {
        if object.get(*field) != now.get(*field) {
            problems.push(format!(
                "\"{field}\" cannot change: an entry is a record of what happened; only \"tags\" may be edited"
            ));
        }
    }
    let tags = tags(object.get("tags"), &mut problems);
    if problems.is_empty() {
        Ok(tags)
    } else {
        Err(problems)
    }
}

/// A new entry from what a writer sent: `channel` and `content` required, `ts` (RFC 3339)
/// assigned now when missing, `seq` assigned by the store (a given one is ignored), `tags`
/// and `meta` optional.
pub fn new_entry(
    content: &[u8],
    key: String,
    now: Time,
) -> std::result::Result<EntryRecord, Vec<String>> {
    let object = object(content)?;
    let mut problems = unknown_fields(&object);
    let channel = match object.get("channel") {
        Some(Value::String(name)) => Channel::parse(name).or_else(|| {
            problems.push(format!(
                "\"channel\" must be one of {}, got {name:?}",
                channel_names()
            ));
            None
        }),
        Some(other) => {
            problems.push(format!(
                "\"channel\" must be a string, got {}",
                json::shown(other)
            ));
            None
        }
        None => {
            problems.push(format!(
                "\"channel\" is missing: one of {}",
                channel_names()
            ));
            None
        }
    };
    let text = match object.get("content") {
        Some(Value::String(text)) => text.clone(),
        Some(other) => {
            problems.push(format!(
                "\"content\" must be a string, got {}",
                json::shown(other)
            ));
            String::new()
        }
        None => {
            problems.push("\"content\" is missing: what was said or done, as text".into());
            String::new()
        }
    };
    let ts = match object.get("ts") {
        None | Some(Value::Null) => now,
        Some(given) => match given.as_str().map(Time::parse) {
            Some(Ok(ts)) => ts,
            _ => {
                problems.push(format!(
                    "\"ts\" must be a time like \"2026-11-23T12:00:00Z\", got {}",
                    json::shown(given)
                ));
                now
            }
        },
    };
    let meta = match object.get("meta") {
        None | Some(Value::Null) => Meta::default(),
        Some(Value::Object(meta)) => Meta::from(meta.clone()),
        Some(other) => {
            problems.push(format!(
                "\"meta\" must be an object, got {}",
                json::shown(other)
            ));
            Meta::default()
        }
    };
    let tags = tags(object.get("tags"), &mut problems);
    match (channel, problems.is_empty()) {
        (Some(channel), true) => Ok(EntryRecord {
            key,
            ts: Some(ts),
            channel,
            content: text,
            tags,
            meta,
        }),
        _ => Err(problems),
    }
}

fn object(content: &[u8]) -> std::result::Result<Map<String, Value>, Vec<String>> {
    match json::decode(content, EXAMPLE).map_err(|p| vec![p])? {
        Value::Object(object) => Ok(object),
        other => Err(vec![format!(
            "an entry is a JSON object such as {EXAMPLE}, got {}",
            json::shown(&other)
        )]),
    }
}

fn unknown_fields(object: &Map<String, Value>) -> Vec<String> {
    object
        .keys()
        .filter(|k| !FIELDS.contains(&k.as_str()))
        .map(|k| format!("unknown field {k:?}: an entry has {}", FIELDS.join(", ")))
        .collect()
}

/// Tags: an array of 1–40 character strings of letters, digits, `-`, `_`, `.`.
fn tags(value: Option<&Value>, problems: &mut Vec<String>) -> Vec<String> {
    let Some(value) = value else {
        return Vec::new();
    };
    let Value::Array(items) = value else {
        problems.push(format!(
            "\"tags\" must be an array of words, got {}",
            json::shown(value)
        ));
        return Vec::new();
    };
    let mut tags = Vec::new();
    for item in items {
        match item.as_str() {
            Some(tag) if valid_tag(tag) => {
                if !tags.iter().any(|t| t == tag) {
                    tags.push(tag.to_string());
                }
            }
            _ => problems.push(format!(
                "tag {} must be 1–40 letters, digits, '-', '_' or '.'",
                json::shown(item)
            )),
        }
    }
    tags
}

/// Whether `tag` can be a tag (and so a directory name under `memory/tags/`).
pub fn valid_tag(tag: &str) -> bool {
    (1..=40).contains(&tag.chars().count())
        && tag
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.'))
        && tag != "."
        && tag != ".."
}

fn channel_names() -> String {
    Channel::ALL.map(Channel::as_str).join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::memory::testing::time;

    fn entry() -> EntryRecord {
        EntryRecord {
            key: "k".into(),
            ts: Some(Time::parse("2026-11-20T10:00:00Z").unwrap()),
            channel: Channel::ToolCall,
            content: "ls -la".into(),
            tags: vec!["shell".into()],
            meta: serde_json::json!({"tool": "Bash"}).try_into().unwrap(),
        }
    }

    #[test]
    fn an_entry_file_has_a_fixed_shape_and_only_tags_may_change() {
        let text = String::from_utf8(render(3, &entry()).unwrap()).unwrap();
        assert_eq!(
            text,
            "{\n  \"seq\": 3,\n  \"ts\": \"2026-11-20T10:00:00Z\",\n  \"channel\": \"tool_call\",\n  \"content\": \"ls -la\",\n  \"tags\": [\n    \"shell\"\n  ],\n  \"meta\": {\n    \"tool\": \"Bash\"\n  }\n}\n"
        );
        assert_eq!(retagged(3, &entry(), text.as_bytes()).unwrap(), ["shell"]);
        let retag = text.replace("\"shell\"", "\"shell\", \"slow\"");
        assert_eq!(
            retagged(3, &entry(), retag.as_bytes()).unwrap(),
            ["shell", "slow"]
        );
        let edited = text
            .replace("ls -la", "rm -rf")
            .replace("tool_call", "user");
        let problems = retagged(3, &entry(), edited.as_bytes()).unwrap_err();
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(
            problems[0].contains("\"channel\" cannot change"),
            "{problems:?}"
        );
        assert!(
            problems[1].contains("\"content\" cannot change"),
            "{problems:?}"
        );
    }

    #[test]
    fn a_new_entry_needs_a_channel_and_content_and_gets_a_time() {
        let made = new_entry(
            br#"{"channel": "user", "content": "hi"}"#,
            "k".into(),
            Time::parse("2026-11-23T00:00:00Z").unwrap(),
        )
        .unwrap();
        assert_eq!(made.ts, time("2026-11-23T00:00:00Z"));
        let problems = new_entry(
            br#"{"channel": "robot", "tags": [""], "extra": 1}"#,
            "k".into(),
            Time::from_unix(0),
        )
        .unwrap_err();
        assert_eq!(problems.len(), 4, "{problems:?}");
    }
}
