//! A session read as a conversation: `conversation/<n>.md` pages hold the user's and the
//! assistant's turns in order, one line each (long turns cut), with each tool call folded to
//! one line (`tool: Read ledger/money.py`) and tool results, thinking and system text left
//! out — what was asked, done and decided, without the tool noise. A page covers
//! [`PER_PAGE`] entries of the session, so its lines always fit the view budget, and links
//! the next page.
//!
//! The same one-line turns give a search hit its context: the entries around it, so that a
//! decision and the reason given just before or after it arrive together (the overlapping
//! transcript windows of the design notes, cut to the few lines a search can afford).

use serde_json::Value;

use crate::model::Links;
use crate::model::transcript::Channel;
use crate::render::budget;
use crate::render::inert::line as cut_to;
use crate::resources::memory::names::session_dir;
use crate::store::memory::{EntryRow, SessionRow};

/// The directory of a session's conversation pages.
pub const CONVERSATION: &str = "conversation";
/// Entries of the session per page: with lines of at most `TURN_CHARS`, a page stays
/// well inside a 500-token view.
pub const PER_PAGE: usize = 12;
/// Characters of a user or assistant turn on one line.
const TURN_CHARS: usize = 120;
/// Characters of a folded tool call or result.
const TOOL_CHARS: usize = 80;
/// Entries read on each side of a search hit to find its context.
pub const AROUND: usize = 4;
/// Context lines of a hit: before it, after it.
const BEFORE: usize = 2;
const AFTER: usize = 3;

/// How many pages the conversation of a session of `entries` entries has (at least one).
pub fn pages(entries: usize) -> usize {
    entries.div_ceil(PER_PAGE).max(1)
}

/// The page of a conversation that holds entry `seq` (1-based).
pub fn page_holding(seq: i64) -> usize {
    usize::try_from(seq.max(1) - 1).unwrap_or(0) / PER_PAGE + 1
}

/// The file name of page `n`.
pub fn page_name(n: usize) -> String {
    format!("{n}.md")
}

/// The page number `file` names, if the session has it.
pub fn page_of(file: &str, entries: usize) -> Option<usize> {
    let n: usize = file.strip_suffix(".md")?.parse().ok()?;
    (n >= 1 && n <= pages(entries) && file == page_name(n)).then_some(n)
}

/// The first entry's seq and how many entries page `n` covers.
pub fn page_span(n: usize) -> (i64, usize) {
    (((n - 1) * PER_PAGE) as i64, PER_PAGE)
}

/// One line for entry `entry` as a conversation shows it: a user or assistant turn
/// (`#12 user: …`), a folded tool call (`#13 tool: Read ledger/money.py`); `None` for what a
/// conversation leaves out. With `results`, tool results show too (`#14 result: …`), as
/// a search hit's context does.
pub fn turn_line(entry: &EntryRow, results: bool) -> Option<String> {
    let record = &entry.record;
    let text = match record.channel {
        Channel::User | Channel::Assistant => format!(
            "{}: {}",
            record.channel,
            cut_to(&record.content, TURN_CHARS)
        ),
        Channel::ToolCall => format!("tool: {}", cut_to(&fold_call(&record.content), TOOL_CHARS)),
        Channel::ToolResult if results => {
            let output = result_text(&record.content);
            let first = output.lines().find(|l| !l.trim().is_empty());
            format!("result: {}", cut_to(first.unwrap_or("(empty)"), TOOL_CHARS))
        }
        _ => return None,
    };
    Some(format!("#{} {text}", entry.seq))
}

/// A tool call (`Read {"file_path": "ledger/money.py"}`, as the importers store it) as the
/// tool and what it was given in a few words: `Read ledger/money.py`.
pub fn fold_call(content: &str) -> String {
    let (name, input) = content
        .trim()
        .split_once(' ')
        .unwrap_or((content.trim(), ""));
    let Ok(value) = serde_json::from_str::<Value>(input.trim()) else {
        return format!("{name} {input}").trim().to_string();
    };
    let shown = match &value {
        Value::Object(fields) => [
            "file_path",
            "path",
            "command",
            "cmd",
            "pattern",
            "query",
            "url",
            "description",
            "prompt",
        ]
        .iter()
        .find_map(|key| fields.get(*key))
        .or_else(|| fields.values().find(|v| v.is_string()))
        .map(plain),
        other => Some(plain(other)),
    };
    match shown {
        Some(shown) if !shown.is_empty() => format!("{name} {shown}"),
        _ => name.to_string(),
    }
}

/// A tool result as its text: some tools wrap it in JSON (`{"output": "…", "metadata": …}`).
fn result_text(content: &str) -> String {
    let Ok(Value::Object(fields)) = serde_json::from_str::<Value>(content.trim()) else {
        return content.to_string();
    };
    ["output", "stdout", "content", "text", "result"]
        .iter()
        .find_map(|key| fields.get(*key))
        .map_or_else(|| content.to_string(), plain)
}

/// A JSON value as plain words: a string as is, a list of strings joined (a command line).
fn plain(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Array(items) => items.iter().map(plain).collect::<Vec<_>>().join(" "),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// The context of entry `seq` among `around` (entries near it, in order): the nearest
/// lines before it and after it, in order. Around a user's or assistant's turn, the turns
/// said around it (a decision and its reason: the tool calls between are on the
/// conversation's page the hit links); around a tool call or result, the tools too (a run
/// of them one line), since what a command answered is what explains it.
pub fn context(around: &[EntryRow], seq: i64) -> (Vec<String>, Vec<String>) {
    let said = around
        .iter()
        .find(|e| e.seq == seq)
        .is_some_and(|e| matches!(e.record.channel, Channel::User | Channel::Assistant));
    let lines = |entries: Vec<&EntryRow>| {
        fold_tools(
            entries
                .into_iter()
                .filter(|e| !said || matches!(e.record.channel, Channel::User | Channel::Assistant))
                .filter_map(|e| turn_line(e, true))
                .collect(),
        )
    };
    let mut before = lines(around.iter().filter(|e| e.seq < seq).collect());
    before.drain(..before.len().saturating_sub(BEFORE));
    let mut after = lines(around.iter().filter(|e| e.seq > seq).collect());
    after.truncate(AFTER);
    (before, after)
}

/// Page `page` of session `row`'s conversation, from `entries` (those the page covers).
pub fn page(
    row: &SessionRow,
    page: usize,
    entries: &[EntryRow],
    links: &Links,
    budget: usize,
) -> String {
    let dir = format!("{}{CONVERSATION}/", session_dir(row, links));
    let last = pages(row.entries);
    let (from, _) = page_span(page);
    let to = (from as usize + PER_PAGE).min(row.entries);
    // No breadcrumb: the title names the session and the page, and every line is a turn.
    let mut out = String::new();
    if row.entries == 0 {
        out.push_str(&format!(
            "# Conversation of {} — no entries yet\n",
            row.record.id
        ));
        return out;
    }
    out.push_str(&format!(
        "# Conversation of {} — page {page} of {last}, entries {}–{to} of {}\n\n",
        row.record.id,
        from + 1,
        row.entries
    ));
    let lines: Vec<String> = entries.iter().filter_map(|e| turn_line(e, false)).collect();
    if lines.is_empty() {
        out.push_str(
            "No user or assistant turn here: tool results, thinking or system text only.\n",
        );
    }
    for line in fold_tools(lines) {
        out.push_str(&format!("- {line}\n"));
    }
    out.push('\n');
    if page < last {
        out.push_str(&format!("Next page: cat {dir}{}\n", page_name(page + 1)));
    } else {
        out.push_str("End of the conversation.\n");
    }
    if page > 1 {
        out.push_str(&format!(
            "Previous page: cat {dir}{}\n",
            page_name(page - 1)
        ));
    }
    budget::prune(&out, budget, &format!("cat {dir}{}", page_name(page)))
}

/// Consecutive tool calls (and results) folded into one line:
/// `#13 tool: Read a.py; result: …; tool: Bash pytest -q`.
fn fold_tools(lines: Vec<String>) -> Vec<String> {
    let tool = |line: &str| {
        let (_, text) = line.split_once(' ')?;
        (text.starts_with("tool: ") || text.starts_with("result: ")).then(|| text.to_string())
    };
    let mut out: Vec<String> = Vec::new();
    for line in lines {
        match (tool(&line), out.last_mut()) {
            (Some(text), Some(last)) if tool(last).is_some() => {
                last.push_str(&format!("; {text}"));
                // Its parts are inert already: only cut.
                *last = crate::render::one_line(last, TURN_CHARS + 10);
            }
            _ => out.push(line),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_calls_fold_to_the_tool_and_its_argument() {
        assert_eq!(
            fold_call(r#"Read {"file_path":"ledger/money.py","limit":40}"#),
            "Read ledger/money.py"
        );
        assert_eq!(
            fold_call(r#"shell {"command":["bash","-lc","pytest -q"]}"#),
            "shell bash -lc pytest -q"
        );
        assert_eq!(fold_call("TodoWrite {}"), "TodoWrite");
        assert_eq!(
            fold_call("grep -rn check_password src/"),
            "grep -rn check_password src/"
        );
    }

    #[test]
    fn pages_cover_every_entry_once() {
        assert_eq!(pages(0), 1);
        assert_eq!(pages(12), 1);
        assert_eq!(pages(13), 2);
        assert_eq!(page_of("2.md", 13), Some(2));
        assert_eq!(page_of("3.md", 13), None);
        assert_eq!(page_of("02.md", 13), None);
        assert_eq!(page_span(2), (12, 12));
    }
}
