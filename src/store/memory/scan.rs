//! The bounded scans of memory search: what the full-text index cannot answer — a query of
//! filters only (`channel:summary`), a `re:` pattern — is answered by reading entries newest
//! first, checking the filters and the pattern in Rust, and stopping after [`MAX_ROWS`]
//! entries or [`MAX_TIME`], whichever comes first. A scan that stopped says so
//! ([`Scanned::cut`]), so a search never takes unbounded time and never hides that it did
//! not look everywhere.
//!
//! Also here, for every backend: [`narrowed`], a `re:` checked on the index's matches of
//! the words, and [`excerpt`], the snippet of a hit the full-text index did not find.

use std::collections::HashMap;
use std::ops::Range;
use std::time::{Duration, Instant};

use regex::Regex;
use rusqlite::{Connection, OptionalExtension, params};

use super::query::Query;
use super::read::count;
use crate::error::Result;

/// At most this many entries are read by one scan.
pub(super) const MAX_ROWS: usize = 200_000;
/// A scan stops after this long.
pub(super) const MAX_TIME: Duration = Duration::from_millis(250);
/// Words of context each side of a match in an [`excerpt`].
const CONTEXT_WORDS: usize = 6;
/// A match longer than this is cut in an excerpt.
const MATCH_CHARS: usize = 80;

/// What a scan found: entry numbers, newest first, and how far it read.
#[derive(Debug, Default)]
pub(super) struct Scanned {
    /// The matching entries, newest first, each with the byte range of the pattern's
    /// first match in its content (when there is a pattern).
    pub hits: Vec<(i64, Option<Range<usize>>)>,
    /// Entries read.
    pub read: usize,
    /// Why it stopped before the end, if it did.
    pub cut: Option<String>,
}

/// A row and time budget, checked once per row.
pub(super) struct Budget {
    started: Instant,
    rows: usize,
}

impl Budget {
    pub fn new() -> Budget {
        Budget {
            started: Instant::now(),
            rows: 0,
        }
    }

    /// Counts one row; `Some(reason)` once the budget is spent.
    pub fn spend(&mut self) -> Option<String> {
        self.rows += 1;
        if self.rows > MAX_ROWS {
            return Some(format!("stopped after {} entries", thousands(MAX_ROWS)));
        }
        // The clock is read every 64 rows: reading it costs more than checking a row.
        if self.rows.is_multiple_of(64) && self.started.elapsed() > MAX_TIME {
            return Some(format!(
                "stopped after {} ms ({} entries)",
                MAX_TIME.as_millis(),
                thousands(self.rows - 1)
            ));
        }
        None
    }
}

/// Entries numbered within `range` that pass `query`'s filters and pattern, newest first,
/// at most `keep` of them; and how many pass among the entries read. With `count_all`
/// false the scan stops once it has `keep` (the caller counts another way).
///
/// Entries are read from the tag index when the query has a `tag:` (only tagged entries are
/// read), else from the entries table; the other filters are checked here, so the budget
/// counts every entry read.
pub(super) fn entries(
    conn: &Connection,
    query: &Query,
    range: (i64, i64),
    keep: usize,
    count_all: bool,
) -> Result<(Scanned, usize)> {
    // The content is read only to match a pattern.
    let content = if query.regex.is_some() {
        "e.content"
    } else {
        "NULL"
    };
    let sql = match query.tags.first() {
        Some(_) => format!(
            "SELECT e.id, e.channel, e.ts, e.tags, s.day, {content} FROM entry_tags t
             JOIN entries e ON e.id = t.entry JOIN sessions s ON s.rowid = e.session
             WHERE t.entry BETWEEN ?1 AND ?2 AND t.tag = ?3 ORDER BY t.entry DESC"
        ),
        None => format!(
            "SELECT e.id, e.channel, e.ts, e.tags, s.day, {content} FROM entries e
             JOIN sessions s ON s.rowid = e.session
             WHERE e.id BETWEEN ?1 AND ?2 ORDER BY e.id DESC"
        ),
    };
    let mut statement = conn.prepare_cached(&sql)?;
    let mut rows = match query.tags.first() {
        Some(tag) => statement.query(params![range.0, range.1, tag])?,
        None => statement.query(params![range.0, range.1])?,
    };
    let mut scanned = Scanned::default();
    let mut total = 0;
    let mut budget = Budget::new();
    while let Some(row) = rows.next()? {
        if !count_all && scanned.hits.len() >= keep {
            break;
        }
        if let Some(reason) = budget.spend() {
            scanned.cut = Some(reason);
            break;
        }
        scanned.read += 1;
        let channel: String = row.get(1)?;
        let ts: Option<String> = row.get(2)?;
        let tags: String = row.get(3)?;
        let day: String = row.get(4)?;
        if !query.passes(&channel, ts.as_deref(), &day, &tags) {
            continue;
        }
        let found = match &query.regex {
            Some(regex) => {
                let text: String = row.get(5)?;
                match regex.find(&text) {
                    Some(m) => Some(m.range()),
                    None => continue,
                }
            }
            None => None,
        };
        total += 1;
        if scanned.hits.len() < keep {
            scanned.hits.push((row.get(0)?, found));
        }
    }
    Ok((scanned, total))
}

/// An entry or a text, with the byte range of a pattern's first match in it.
pub(super) type Located<T> = (T, Range<usize>);

/// Which of `ids` (newest first) have content matching `regex`, with the range of the first
/// match, within the scan budget.
pub(super) fn matching(
    conn: &Connection,
    ids: &[i64],
    regex: &Regex,
) -> Result<(Vec<Located<i64>>, Option<String>)> {
    let mut content = conn.prepare_cached("SELECT content FROM entries WHERE id = ?1")?;
    let mut budget = Budget::new();
    let mut kept = Vec::new();
    for &id in ids {
        if let Some(reason) = budget.spend() {
            return Ok((kept, Some(reason)));
        }
        let text: Option<String> = content.query_row([id], |r| r.get(0)).optional()?;
        if let Some(m) = text.as_deref().and_then(|t| regex.find(t)) {
            kept.push((id, m.range()));
        }
    }
    Ok((kept, None))
}

/// Narrows `found` — the index's matches of the words, newest first, with their scores —
/// to those whose content `regex` matches too, as a backend's `matching` reads and checks
/// them (bounded, as every scan), newest first; `total` becomes how many are kept. Returns
/// where the pattern matched in each, for snippets. The notes say when the pattern saw only
/// the most recent matches (`bound`, why not every match was looked at) or stopped early;
/// without a pattern, `bound` itself is the note.
pub(super) fn narrowed<S>(
    found: &mut Vec<(i64, S)>,
    total: &mut usize,
    bound: Option<String>,
    regex: Option<&Regex>,
    notes: &mut Vec<String>,
    matching: impl FnOnce(&[i64], &Regex) -> Result<(Vec<Located<i64>>, Option<String>)>,
) -> Result<HashMap<i64, Range<usize>>> {
    let Some(regex) = regex else {
        notes.extend(bound);
        return Ok(HashMap::new());
    };
    let ids: Vec<i64> = found.iter().map(|&(id, _)| id).collect();
    let (kept, cut) = matching(&ids, regex)?;
    if bound.is_some() {
        notes.push(format!(
            "re: was checked on the {} most recent matches of the words only",
            thousands(ids.len())
        ));
    }
    if let Some(reason) = cut {
        notes.push(format!("the re: check {reason}"));
    }
    let ranges: HashMap<i64, Range<usize>> = kept.into_iter().collect();
    found.retain(|(id, _)| ranges.contains_key(id));
    *total = found.len();
    Ok(ranges)
}

/// What a scan of session titles and summaries found.
#[derive(Debug, Default)]
pub(super) struct SessionsFound {
    /// The sessions' numbers and the text that matched, most recent first.
    pub found: Vec<Located<(i64, String)>>,
    /// How many matched.
    pub total: usize,
    /// Why the scan stopped early, if it did.
    pub cut: Option<String>,
}

/// Sessions whose title or summary matches `regex`, most recent first (at most `keep`),
/// among those `query`'s `session:` and days select.
pub(super) fn sessions(
    conn: &Connection,
    query: &Query,
    regex: &Regex,
    keep: usize,
) -> Result<SessionsFound> {
    let mut statement = conn.prepare_cached(
        "SELECT rowid, id, day, title, coalesce(summary, '') FROM sessions
         ORDER BY day DESC, started DESC, rowid DESC",
    )?;
    let mut rows = statement.query([])?;
    let mut budget = Budget::new();
    let mut out = SessionsFound::default();
    while let Some(row) = rows.next()? {
        if let Some(reason) = budget.spend() {
            out.cut = Some(reason);
            break;
        }
        let id: String = row.get(1)?;
        let day: String = row.get(2)?;
        if query.session.as_ref().is_some_and(|s| *s != id)
            || query
                .since
                .as_deref()
                .is_some_and(|since| day.as_str() < since)
            || query
                .until
                .as_deref()
                .is_some_and(|until| day.as_str() > until)
        {
            continue;
        }
        for column in [3, 4] {
            let text: String = row.get(column)?;
            if let Some(m) = regex.find(&text) {
                out.total += 1;
                if out.found.len() < keep {
                    out.found.push(((row.get(0)?, text.clone()), m.range()));
                }
                break;
            }
        }
    }
    Ok(out)
}

/// About a dozen words of `text` around `range` (the match, marked `**...**`), or its
/// first words when there is no match to show; `…` where it was cut.
pub(super) fn excerpt(text: &str, range: Option<Range<usize>>) -> String {
    let Some(range) = range.filter(|r| text.get(r.clone()).is_some()) else {
        let words: Vec<&str> = text
            .split_whitespace()
            .take(2 * CONTEXT_WORDS + 1)
            .collect();
        let more = text.split_whitespace().nth(2 * CONTEXT_WORDS + 1).is_some();
        return format!("{}{}", words.join(" "), if more { " …" } else { "" });
    };
    let before: Vec<&str> = text[..range.start].split_whitespace().collect();
    let after: Vec<&str> = text[range.end..].split_whitespace().collect();
    // A word the match starts or ends inside stays whole.
    let glued_before = !text[..range.start].ends_with(char::is_whitespace);
    let glued_after = !text[range.end..].starts_with(char::is_whitespace);
    let mut matched: String = text[range.clone()]
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    if matched.chars().count() > MATCH_CHARS {
        matched = matched.chars().take(MATCH_CHARS).collect::<String>() + "…";
    }
    let from = before.len().saturating_sub(CONTEXT_WORDS);
    let mut out = String::new();
    if from > 0 {
        out.push_str("… ");
    }
    out.push_str(&before[from..].join(" "));
    if !before.is_empty() && !glued_before {
        out.push(' ');
    }
    out.push_str("**");
    out.push_str(&matched);
    out.push_str("**");
    if !after.is_empty() && !glued_after {
        out.push(' ');
    }
    let to = after.len().min(CONTEXT_WORDS);
    out.push_str(&after[..to].join(" "));
    if to < after.len() {
        out.push_str(" …");
    }
    out
}

/// `200,000`.
pub(super) fn thousands(n: usize) -> String {
    crate::model::count::thousands(n as u64)
}

/// The number of entries in the store (a counter), for notes.
pub(super) fn stored_entries(conn: &Connection) -> Result<usize> {
    let n: i64 = conn
        .prepare_cached("SELECT n FROM memory_counts WHERE name = 'entries'")?
        .query_row([], |r| r.get(0))?;
    Ok(count(n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpts_mark_the_match_with_context() {
        let text = "one two three four five six seven eight nine ten eleven twelve thirteen";
        let at = text.find("seven").unwrap();
        assert_eq!(
            excerpt(text, Some(at..at + 5)),
            "one two three four five six **seven** eight nine ten eleven twelve thirteen"
        );
        let at = text.find("twelve").unwrap();
        assert_eq!(
            excerpt(text, Some(at + 2..at + 4)),
            "… seven eight nine ten eleven tw**el**ve thirteen"
        );
        assert_eq!(excerpt("a b", None), "a b");
        assert_eq!(
            excerpt(&"w ".repeat(20), None),
            format!("{} …", ["w"; 13].join(" "))
        );
        assert!(excerpt(&"x".repeat(500), Some(0..500)).contains("…**"));
    }

    #[test]
    fn numbers_are_grouped() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000), "1,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }
}
