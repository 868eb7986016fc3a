//! Small text rules shared by the readers: titles, session ids, the text of content parts,
//! and what counts as context a tool injected rather than something a person wrote.

use serde_json::Value;

use crate::model::SessionId;

/// The longest title, in characters.
pub const TITLE_CHARS: usize = 120;

/// `text` as a title: one line (every run of white space becomes one space), at most
/// [`TITLE_CHARS`] characters, ending in `…` when cut.
pub fn title(text: &str) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() <= TITLE_CHARS {
        return line;
    }
    let mut cut: String = line.chars().take(TITLE_CHARS - 1).collect();
    cut.truncate(cut.trim_end().len());
    cut.push('…');
    cut
}

/// A session id made from a tool's id or a file's name, as [`SessionId::derived`] makes it.
pub fn session_id(raw: &str) -> String {
    SessionId::derived(raw).into_string()
}

/// The session id a file's name gives when its content names none: the name without its
/// folders and its extension (`rollout-2025-…-<uuid>.jsonl` gives the uuid at its end when
/// there is one).
pub fn id_from_file_name(file_name: &str) -> String {
    let base = file_name.rsplit(['/', '\\']).next().unwrap_or(file_name);
    let stem = base
        .strip_suffix(".jsonl")
        .or_else(|| base.strip_suffix(".json"))
        .unwrap_or(base);
    let tail = stem.len().checked_sub(36).and_then(|at| stem.get(at..));
    match tail.filter(|t| looks_like_uuid(t)) {
        Some(uuid) if stem.starts_with("rollout-") => session_id(uuid),
        _ => session_id(stem),
    }
}

fn looks_like_uuid(text: &str) -> bool {
    text.len() == 36
        && text.char_indices().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => c == '-',
            _ => c.is_ascii_hexdigit(),
        })
}

/// The text of a content value: a string as it is; an array of parts joined by blank
/// lines, each part a string or an object with a string `text` (parts without text, such
/// as images, are left out). `None` when `value` is neither a string nor an array.
pub fn content_text(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Array(parts) => {
            let texts: Vec<&str> = parts
                .iter()
                .filter_map(|part| match part {
                    Value::String(text) => Some(text.as_str()),
                    Value::Object(object) => object.get("text").and_then(Value::as_str),
                    _ => None,
                })
                .collect();
            Some(texts.join("\n\n"))
        }
        _ => None,
    }
}

/// Whether `text` is context a tool put in the user's place rather than what the user
/// typed: one tag-wrapped block (`<environment_context>…</environment_context>`,
/// `<command-name>…`, `<local-command-stdout>…`) or an `AGENTS.md` preamble. Such text
/// never becomes a title, and Codex's is filed under the system channel.
pub fn is_injected(text: &str) -> bool {
    let text = text.trim();
    if text.starts_with("# AGENTS.md instructions") {
        return true;
    }
    let Some(rest) = text.strip_prefix('<') else {
        return false;
    };
    let name_len = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ' ')))
        .unwrap_or(rest.len());
    name_len > 0 && rest[name_len..].starts_with('>')
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn titles_are_one_short_line() {
        assert_eq!(
            title("  Fix the\n\n  rounding\tbug "),
            "Fix the rounding bug"
        );
        let long = "word ".repeat(60);
        let cut = title(&long);
        assert_eq!(cut.chars().count(), TITLE_CHARS);
        assert!(cut.ends_with("word…"), "{cut}");
        let wide = "é".repeat(200);
        assert_eq!(title(&wide).chars().count(), TITLE_CHARS);
    }

    #[test]
    fn session_ids_are_safe_directory_names() {
        assert_eq!(session_id("4f35e220-c435-4cf7"), "4f35e220-c435-4cf7");
        assert_eq!(session_id("a/b c:d"), "a-b-c-d");
        assert_eq!(session_id(""), "session");
        assert_eq!(session_id(".."), "session..");
        assert_eq!(session_id(&"x".repeat(300)).len(), 128);
    }

    #[test]
    fn file_names_give_ids() {
        assert_eq!(
            id_from_file_name(
                "/h/.codex/sessions/2025/05/07/rollout-2025-05-07T17-24-21-5973b6c0-94b8-487b-a530-2aeb6098ae0e.jsonl"
            ),
            "5973b6c0-94b8-487b-a530-2aeb6098ae0e"
        );
        assert_eq!(id_from_file_name("notes/my chat.jsonl"), "my-chat");
        assert_eq!(id_from_file_name("x.json"), "x");
    }

    #[test]
    fn content_is_a_string_or_text_parts() {
        assert_eq!(content_text(&json!("hi")).as_deref(), Some("hi"));
        let parts = json!([{"type": "input_text", "text": "a"}, {"type": "image"}, "b"]);
        assert_eq!(content_text(&parts).as_deref(), Some("a\n\nb"));
        assert_eq!(content_text(&json!(3)), None);
    }

    #[test]
    fn recognises_injected_context() {
        assert!(is_injected(
            "<environment_context>\n  <cwd>/x</cwd>\n</environment_context>"
        ));
        assert!(is_injected("<command-name>/clear</command-name>"));
        assert!(is_injected("# AGENTS.md instructions for /repo\n..."));
        assert!(!is_injected("Please fix <b>this</b>"));
        assert!(!is_injected("a < b > c"));
        assert!(!is_injected("<3 thanks"));
    }
}
