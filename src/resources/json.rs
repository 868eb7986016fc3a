//! Reading a JSON document a user wrote (a task, a memory entry): the checks every such
//! write needs before its fields are looked at — UTF-8, not empty, nesting depth, syntax —
//! each giving one message with the line and column, in words a user can act on.

use serde_json::Value;

/// Deepest nesting of arrays and objects accepted; documents here need 2 or 3. Checked
/// before parsing, so a hostile file cannot make the parser recurse deeply.
pub const MAX_DEPTH: usize = 32;

/// Decodes `content` as one JSON value, or says why it cannot be: the one problem that
/// stops reading. `example` is a small valid document, shown when the file is empty.
pub fn decode(content: &[u8], example: &str) -> Result<Value, String> {
    let text = match std::str::from_utf8(content) {
        Ok(text) => text,
        Err(e) => {
            let (line, column) = position(&content[..e.valid_up_to()]);
            return Err(format!(
                "line {line}, column {column}: the content is not UTF-8 text"
            ));
        }
    };
    if text.trim().is_empty() {
        return Err(format!(
            "the file is empty: write a JSON object such as {example}"
        ));
    }
    if let Some((line, column)) = too_deep(text.as_bytes()) {
        return Err(format!(
            "line {line}, column {column}: nested deeper than {MAX_DEPTH} levels"
        ));
    }
    serde_json::from_str(text).map_err(|e| syntax_problem(&e))
}

/// A JSON value as a message shows it: short, one line.
pub fn shown(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 40 {
        let cut: String = text.chars().take(37).collect();
        format!("{cut}...")
    } else {
        text
    }
}

/// `line 3, column 14: expected `,` or `}``, from serde_json's "... at line 3 column 14".
fn syntax_problem(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    let what = text.strip_suffix(&suffix).unwrap_or(&text);
    format!(
        "line {}, column {}: {what} (the file must be JSON)",
        e.line(),
        e.column()
    )
}

/// The 1-based line and column just after `bytes`.
fn position(bytes: &[u8]) -> (usize, usize) {
    let line = 1 + bytes.iter().filter(|&&b| b == b'\n').count();
    let line_start = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let column = 1 + String::from_utf8_lossy(&bytes[line_start..])
        .chars()
        .count();
    (line, column)
}

/// Where nesting first goes past [`MAX_DEPTH`], counting brackets outside strings. Checked
/// before parsing so a hostile file cannot make the parser recurse deeply.
fn too_deep(bytes: &[u8]) -> Option<(usize, usize)> {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for (i, &b) in bytes.iter().enumerate() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Some(position(&bytes[..i]));
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXAMPLE: &str = r#"{"title": "T"}"#;

    #[test]
    fn syntax_errors_name_line_and_column() {
        assert_eq!(
            decode(b"{\n  \"a\": 1\n  \"b\": 2\n}", EXAMPLE).unwrap_err(),
            "line 3, column 3: expected `,` or `}` (the file must be JSON)"
        );
        assert_eq!(
            decode(b"{\"a\": 1,}", EXAMPLE).unwrap_err(),
            "line 1, column 9: trailing comma (the file must be JSON)"
        );
    }

    #[test]
    fn bad_bytes_are_refused_with_a_reason() {
        assert_eq!(
            decode(b" \n", EXAMPLE).unwrap_err(),
            "the file is empty: write a JSON object such as {\"title\": \"T\"}"
        );
        assert_eq!(
            decode(b"{\"t\": \"\"}\n{\"t\": \"a\xff\"}", EXAMPLE).unwrap_err(),
            "line 2, column 9: the content is not UTF-8 text"
        );
        let deep = format!("{}{}", "[".repeat(40), "]".repeat(40));
        assert_eq!(
            decode(deep.as_bytes(), EXAMPLE).unwrap_err(),
            "line 1, column 33: nested deeper than 32 levels"
        );
        let brackets_in_a_string = format!(r#"{{"t": "{}\"{}"}}"#, "[".repeat(40), "{".repeat(40));
        assert!(decode(brackets_in_a_string.as_bytes(), EXAMPLE).is_ok());
        let at_the_limit = format!("{}{}", "[".repeat(32), "]".repeat(32));
        assert!(decode(at_the_limit.as_bytes(), EXAMPLE).is_ok());
    }

    #[test]
    fn values_are_shown_short() {
        assert_eq!(shown(&Value::from("high")), "\"high\"");
        assert_eq!(
            shown(&Value::from("x".repeat(100))),
            format!("\"{}...", "x".repeat(36))
        );
    }
}
