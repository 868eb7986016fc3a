//! Which sentences of a session state a decision, or work still pending: the rule the
//! digest reads user and assistant text by, with no model.
//!
//! What is read: the prose of user and assistant entries. Never read: thinking, tool calls
//! and their results, system and summary entries, context a tool put in the user's place
//! (`is_injected`: `<environment_context>`, `<command-name>`, an `AGENTS.md` preamble),
//! fenced code blocks, indented code, quoted lines (`> …`) and inline code spans — a
//! `TODO` in pasted code or a "decided" in quoted tool output is not what anyone said.
//!
//! What counts: a sentence (cut at `.`, `!` or `?` before a space, and at line ends; list
//! markers dropped) holding a cue phrase as whole words, in any case:
//! - pending or blocked: `pending`, `blocked`, `blocker`, `TODO`, `next step`, `still
//!   need(s)`, `left to do`, `follow-up`, `waiting on`, `not done yet`;
//! - a decision or a rejection: `decided`, `decide to`, `decision`, `chose`, `chosen`,
//!   `choose to`, `rejected`, `instead of`, `rather than`, `went with`, `go with`,
//!   `going with`, `settled on`, `opted`.
//!
//! A sentence with both is pending ("next step: decide the export format" decides nothing
//! yet). What does not count, and why:
//! - a question (ends with `?`): asking whether to use X instead of Y settles nothing;
//! - a sentence saying there is none (`no decision`, `nothing pending`, `not blocked`, `no
//!   blockers`);
//! - a sentence only saying what was used or done ("I used matplotlib for the chart
//!   only"): using something is what every session does, so it is context, not a choice;
//!   a choice is counted only when it is stated as one (a cue above). The rule does not
//!   guess at choices nobody named.

use std::sync::LazyLock;

use regex::Regex;

/// What a sentence states.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stance {
    Decision,
    Pending,
}

static PENDING: LazyLock<Regex> = LazyLock::new(|| {
    cue(&[
        "pending",
        "blocked",
        "blockers?",
        "todo",
        "next steps?",
        "still needs?",
        "left to do",
        "follow[- ]ups?",
        "waiting on",
        "not done yet",
    ])
});

static DECISION: LazyLock<Regex> = LazyLock::new(|| {
    cue(&[
        "decided",
        "decide to",
        "decisions?",
        "chose",
        "chosen",
        "choose to",
        "rejected",
        "instead of",
        "rather than",
        "went with",
        "go with",
        "going with",
        "settled on",
        "opted",
    ])
});

/// Sentences that say there is nothing of the kind.
static NONE: LazyLock<Regex> = LazyLock::new(|| {
    cue(&[
        "no decisions?",
        "nothing (?:is )?(?:pending|blocked|left to do)",
        "not blocked",
        "no blockers?",
        "no follow[- ]ups?",
        "no next steps?",
    ])
});

static INLINE_CODE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new("`[^`]*`").unwrap_or_else(|_| unreachable!("a fixed pattern")));

fn cue(phrases: &[&str]) -> Regex {
    let pattern = format!(r"(?i)\b(?:{})\b", phrases.join("|"));
    Regex::new(&pattern).unwrap_or_else(|_| unreachable!("fixed patterns"))
}

/// The sentences of `text` that state a decision or pending work, in order, as written
/// (one line each, inline code kept as it was).
pub fn stated(text: &str) -> Vec<(Stance, String)> {
    prose_lines(text)
        .iter()
        .flat_map(|line| sentences(line))
        .filter_map(|sentence| stance(&sentence).map(|s| (s, sentence)))
        .collect()
}

/// What `sentence` states, if anything (see the module's rule).
pub fn stance(sentence: &str) -> Option<Stance> {
    let sentence = sentence.trim();
    if sentence.ends_with('?') {
        return None;
    }
    let words = INLINE_CODE.replace_all(sentence, " ");
    if NONE.is_match(&words) {
        return None;
    }
    if PENDING.is_match(&words) {
        Some(Stance::Pending)
    } else if DECISION.is_match(&words) {
        Some(Stance::Decision)
    } else {
        None
    }
}

/// The lines of `text` that are prose: outside fenced code, not indented code, not quoted.
fn prose_lines(text: &str) -> Vec<&str> {
    let mut in_fence = false;
    let mut lines = Vec::new();
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            in_fence = !in_fence;
            continue;
        }
        let indented = line.starts_with("    ") || line.starts_with('\t');
        if in_fence || indented || trimmed.starts_with('>') {
            continue;
        }
        lines.push(trimmed);
    }
    lines
}

/// The sentences of one line, list markers dropped.
fn sentences(line: &str) -> Vec<String> {
    let line = strip_marker(line);
    let mut found = Vec::new();
    let mut start = 0;
    let chars: Vec<(usize, char)> = line.char_indices().collect();
    for (i, &(at, c)) in chars.iter().enumerate() {
        let ends = matches!(c, '.' | '!' | '?')
            && chars
                .get(i + 1)
                .is_some_and(|(_, next)| next.is_whitespace());
        if ends {
            let end = at + c.len_utf8();
            found.push(line[start..end].trim().to_string());
            start = end;
        }
    }
    found.push(line[start..].trim().to_string());
    found.retain(|s| s.chars().any(char::is_alphabetic));
    found
}

/// `- item`, `* item`, `1. item` → `item`.
fn strip_marker(line: &str) -> &str {
    if let Some(rest) = line
        .strip_prefix("- ")
        .or_else(|| line.strip_prefix("* "))
        .or_else(|| line.strip_prefix("+ "))
    {
        return rest.trim_start();
    }
    let digits = line.chars().take_while(char::is_ascii_digit).count();
    match line[digits..]
        .strip_prefix(". ")
        .or(line[digits..].strip_prefix(") "))
    {
        Some(rest) if digits > 0 => rest.trim_start(),
        _ => line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decisions_and_pending_work_are_told_by_their_cues() {
        let text = "We decided to round half-even. I used matplotlib for the chart only.\n\
                    - The export is still pending: it is blocked on the CSV dialect.\n\
                    Should we use floats instead of Decimal? Next step: decide the format.";
        let found = stated(text);
        assert_eq!(
            found,
            [
                (
                    Stance::Decision,
                    "We decided to round half-even.".to_string()
                ),
                (
                    Stance::Pending,
                    "The export is still pending: it is blocked on the CSV dialect.".to_string()
                ),
                (Stance::Pending, "Next step: decide the format.".to_string()),
            ]
        );
    }

    #[test]
    fn code_quotes_and_absences_are_not_read() {
        let text = "Here it is:\n```python\n# TODO: decide rounding\n```\n\
                    > we decided nothing\n    # TODO indented\n\
                    The `TODO` marker is gone. Nothing is pending. No blockers remain.";
        assert!(stated(text).is_empty(), "{:?}", stated(text));
        assert_eq!(
            sentences("1. Went with Decimal"),
            ["Went with Decimal".to_string()]
        );
        assert_eq!(stance("Went with Decimal"), Some(Stance::Decision));
    }
}
