//! Which format a transcript is in, from its content alone (never its file name): the
//! first record that only one format writes decides.

use serde_json::{Map, Value};

use super::reading::Format;
use super::{aider, codex, gemini, lines};

/// The format of `bytes`: the first record (in line order) that only one format writes
/// decides. `None` when no line is such a record (empty files, other JSON, not JSON).
pub fn format_of(bytes: &[u8]) -> Option<Format> {
    if gemini::document(bytes).is_some() {
        return Some(Format::GeminiCli);
    }
    if aider::is_history(bytes) {
        return Some(Format::Aider);
    }
    let mut ignore = lines::BadLines::default();
    lines::records(bytes, &mut ignore)
        .iter()
        .find_map(|line| format_of_record(&line.object))
}

pub(super) fn format_of_record(o: &Map<String, Value>) -> Option<Format> {
    let has = |name: &str| o.contains_key(name);
    if gemini::is_record(o) {
        return Some(Format::GeminiCli);
    }
    match o.get("type").and_then(Value::as_str) {
        Some(kind) if codex::LINE_TYPES.contains(&kind) && has("payload") => {
            return Some(Format::Codex);
        }
        Some(_) if has("sessionId") || has("leafUuid") || has("messageId") && has("snapshot") => {
            return Some(Format::ClaudeCode);
        }
        _ => {}
    }
    if codex::is_old_meta(o) || has("record_type") {
        Some(Format::Codex)
    } else if has("content") && (has("role") || has("channel")) {
        Some(Format::Jsonl)
    } else {
        None
    }
}
