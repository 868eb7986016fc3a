//! The bounded scans of memory search: what the full-text index cannot answer — a query of
//! filters only (`channel:summary`), a `re:` pattern — is answered by reading entries newest
//! first, checking the filters and the pattern in Rust, and stopping after [`MAX_ROWS`]
//! entries or [`MAX_TIME`], whichever comes first. A scan that stopped says so
//! ([`Scanned::cut`]), so a search never takes unbounded time and never hides that it did
//! not look everywhere.
//!
//! The scans are written once for every backend, over the rows each reads
//! ([`SearchSql::scan`], [`SearchSql::contents`], [`SearchSql::session_texts`]). Also here:
//! [`narrowed`], a `re:` checked on the index's matches of the words, and [`excerpt`], the
//! snippet of a hit the full-text index did not find.

use std::collections::HashMap;
use std::ops::Range;
use std::time::{Duration, Instant};

use regex::Regex;

use super::dialect::{SearchSql, SessionText};
use super::query::Query;
use super::span::Span;
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

/// Entries within `span` that pass `query`'s filters and pattern, newest first, at most
/// `keep` of them; and how many pass among the entries read. With `count_all` false the
/// scan stops once it has `keep` (the caller counts another way).
///
/// With a `tag:`, only the entries of the tag index are read; the other filters are
/// checked here, so the budget counts every entry read.
pub(super) fn entries<D: SearchSql>(
    index: &D,
    query: &Query,
    span: Span,
    keep: usize,
    count_all: bool,
) -> Result<(Scanned, usize)> {
    let mut scanned = Scanned::default();
    let mut total = 0;
    let mut budget = Budget::new();
    index.scan(query, span, &mut |row| {
        if !count_all && scanned.hits.len() >= keep {
            return Ok(false);
        }
        if let Some(reason) = budget.spend() {
            scanned.cut = Some(reason);
            return Ok(false);
        }
        scanned.read += 1;
        if !query.passes(
            &row.channel,
            row.tool.as_deref(),
            row.ts.as_deref(),
            &row.day,
            &row.tags,
        ) {
            return Ok(true);
        }
        let found = match &query.regex {
            Some(regex) => {
                let text = match row.text {
                    Some(text) => text,
                    None => index.content(row.id)?,
                };
                match regex.find(&text) {
                    Some(m) => Some(m.range()),
                    None => return Ok(true),
                }
            }
            None => None,
        };
        total += 1;
        if scanned.hits.len() < keep {
            scanned.hits.push((row.id, found));
        }
        Ok(true)
    })?;
    Ok((scanned, total))
}

/// An entry or a text, with the byte range of a pattern's first match in it.
pub(super) type Located<T> = (T, Range<usize>);

/// Which of `ids` (newest first) have content matching `regex`, with the range of the first
/// match, within the scan budget.
pub(super) fn matching<D: SearchSql>(
    index: &D,
    ids: &[i64],
    regex: &Regex,
) -> Result<(Vec<Located<i64>>, Option<String>)> {
    let mut budget = Budget::new();
    let mut kept = Vec::new();
    let mut cut = None;
    index.contents(ids, &mut |id, text| {
        if let Some(reason) = budget.spend() {
            cut = Some(reason);
            return false;
        }
        if let Some(m) = regex.find(text) {
            kept.push((id, m.range()));
        }
        true
    })?;
    Ok((kept, cut))
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

/// What a scan of session titles and summaries found: the sessions and the text that
/// matched (with the match), in the order read; how many matched; why it stopped early, if
/// it did.
pub(super) type SessionsFound = (Vec<Located<(SessionText, String)>>, usize, Option<String>);

/// Sessions read a statement at a time.
const SESSION_BATCH: usize = 2_000;

/// Sessions among `rowids` (in the order to read them) whose title or summary matches
/// `regex`, at most `keep` kept, within the scan budget.
pub(super) fn sessions<D: SearchSql>(
    index: &D,
    rowids: &[i64],
    regex: &Regex,
    keep: usize,
) -> Result<SessionsFound> {
    let mut budget = Budget::new();
    let (mut found, mut total) = (Vec::new(), 0);
    for batch in rowids.chunks(SESSION_BATCH) {
        for session in index.session_texts(batch)? {
            if let Some(reason) = budget.spend() {
                return Ok((found, total, Some(reason)));
            }
            let matched = [&session.title, &session.summary]
                .into_iter()
                .find_map(|text| regex.find(text).map(|m| (text.clone(), m.range())));
            if let Some((text, range)) = matched {
                total += 1;
                if found.len() < keep {
                    found.push(((session, text), range));
                }
            }
        }
    }
    Ok((found, total, None))
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
