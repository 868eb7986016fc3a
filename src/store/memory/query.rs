//! The memory search language, parsed into a [`Query`] before anything reaches SQLite.
//!
//! - free words: entries with all of them first, then those with some (`deploy failed`;
//!   see `tiers.rs`); a word ending in `*` matches as a prefix
//!   (`migrat*`); a word with punctuation inside is the phrase of its parts (`parse_amount`
//!   finds `parse amount`);
//! - `"a phrase"`: the words in that order, one term (never split into its words);
//! - filters: `channel:tool_call` (several: any of them), `tool:bash` (the entries calling
//!   that tool or holding its result; several: any of them), `tag:x` (several: all of them),
//!   `session:<id>`, `file:<path>` (the entries of the sessions that changed that file, or
//!   with `file:ledger/` any file under that folder; see `session_files.rs`),
//!   `since:2026-11-01`, `until:2026-11-20` (days, both included; or counted back from
//!   today in UTC: `since:7d`, `since:2w`, `until:1d`) and `re:<regex>` (Rust regex syntax,
//!   size-limited); a filter's value may be quoted: `re:"fn \w+"`.
//!
//! Like [`crate::store::fts`], user text never reaches FTS5 as syntax: every word is quoted
//! and only letters and digits are kept, so `*`, `NEAR`, `-`, `(`, `:` are plain text. A query
//! that cannot mean anything — an unknown filter, a bad day or channel, a bad regex, an
//! unclosed quote — is refused with a message saying what to write instead.

use regex::{Regex, RegexBuilder};

use super::changed::FilePattern;
use crate::error::{Error, Result};
use crate::model::time::{Time, is_day};
use crate::model::transcript::Channel;
use crate::store::fts::{self, Tier};

/// The bounds of a search, the same on every backend so each says the same of what it
/// looked at. Only this many of the most recent matches are ranked by relevance.
pub(super) const RANK: usize = 2_000;
/// Matches are counted up to this many.
pub(super) const COUNT_CAP: usize = 100_000;
/// Filters a full-text index cannot check are checked on this many of the most recent
/// matches of the words.
pub(super) const EXAMINE: usize = 10_000;

/// At most this many words and phrases; more only slow the match down.
const MAX_TERMS: usize = 16;

/// How large a compiled `re:` may grow (bytes), so a hostile pattern cannot take the
/// memory or the time of the process.
const REGEX_SIZE_LIMIT: usize = 1 << 20;

/// The filters a query knows, as the messages list them.
const FILTERS: &str = "channel:, tool:, tag:, session:, file:, since:, until:, re:";

/// One required term of a query: a word, or the phrase of several, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Phrase {
    /// Lowercase runs of letters and digits (never empty, never holding anything else:
    /// no quote, operator or space can reach a query built from them).
    pub words: Vec<String>,
    /// Whether the last word matches as a prefix (`migrat*`).
    pub prefix: bool,
}

/// A parsed query.
#[derive(Debug, Clone)]
pub struct Query {
    /// The words and phrases as an FTS5 expression (each quoted; all required, or some but
    /// not all as `tier` says); `None` when the query has none.
    pub fts: Option<String>,
    /// Which entries the words select: those with every term, or those with some.
    pub tier: Tier,
    /// Each term quoted for FTS5 (`"parse amount"*`), to build `fts` for either tier.
    fts_terms: Vec<String>,
    /// The words and phrases as the user wrote them (lowercase), for notes.
    pub terms: Vec<String>,
    /// The same words and phrases, each as its lowercase words, for a backend that builds
    /// its own query from them (PostgreSQL's tsquery) and for marking them in snippets.
    pub phrases: Vec<Phrase>,
    /// Entries of any of these channels (none: any channel).
    pub channels: Vec<Channel>,
    /// Entries of a call to, or a result from, any of these tools (lowercase; none: any).
    pub tools: Vec<String>,
    /// Entries with every one of these tags.
    pub tags: Vec<String>,
    pub session: Option<String>,
    /// Entries of the sessions that changed this file (or a file in this folder).
    pub file: Option<FilePattern>,
    /// Days, `YYYY-MM-DD`, both included.
    pub since: Option<String>,
    pub until: Option<String>,
    pub regex: Option<Regex>,
}

impl Query {
    /// Whether the query restricts entries by something sessions do not have (a session's
    /// title or summary cannot match a `channel:`, `tool:` or `tag:` query).
    pub fn entries_only(&self) -> bool {
        !self.channels.is_empty() || !self.tools.is_empty() || !self.tags.is_empty()
    }

    /// Parses `text`; a malformed query is an [`Error::invalid`] saying why. Relative days
    /// (`since:7d`) count back from today, in UTC.
    pub fn parse(text: &str) -> Result<Query> {
        Query::parse_at(text, Time::now())
    }

    /// Parses `text` as asked at `now`: `since:7d` is the day seven days before `now`'s.
    pub fn parse_at(text: &str, now: Time) -> Result<Query> {
        let mut query = Query {
            fts: None,
            tier: Tier::Every,
            fts_terms: Vec::new(),
            terms: Vec::new(),
            phrases: Vec::new(),
            channels: Vec::new(),
            tools: Vec::new(),
            tags: Vec::new(),
            session: None,
            file: None,
            since: None,
            until: None,
            regex: None,
        };
        let mut expression = Vec::new();
        for token in tokens(text)? {
            match token {
                Token::Phrase(text) => query.add_terms(&mut expression, &text, false, true),
                Token::Filter(name, value) => query.add_filter(&name, value, now)?,
                Token::Text(text) => {
                    let (text, prefix) = match text.strip_suffix('*') {
                        Some(rest) => (rest.to_string(), true),
                        None => (text, false),
                    };
                    query.add_terms(&mut expression, &text, prefix, false);
                }
            }
        }
        if let (Some(since), Some(until)) = (&query.since, &query.until)
            && until < since
        {
            return Err(Error::invalid(format!(
                "until:{until} is before since:{since}: nothing can match"
            )));
        }
        query.fts = (!expression.is_empty()).then(|| expression.join(" "));
        query.fts_terms = expression;
        Ok(query)
    }

    /// The same query selecting the entries with some of its terms but not all: `None`
    /// when it has fewer than two terms.
    pub fn some_terms(&self) -> Option<Query> {
        let fts = fts::tiered(&self.fts_terms, Tier::Some, " OR ", " AND ", " NOT ")?;
        Some(Query {
            fts: Some(fts),
            tier: Tier::Some,
            ..self.clone()
        })
    }

    /// Adds the words of `text` as one term: a word, or the phrase of several.
    fn add_terms(&mut self, expression: &mut Vec<String>, text: &str, prefix: bool, quoted: bool) {
        let words: Vec<String> = words(text).map(str::to_lowercase).take(MAX_TERMS).collect();
        if words.is_empty() || expression.len() >= MAX_TERMS {
            return;
        }
        let phrase = words.join(" ");
        // A one-letter prefix would expand to most of the vocabulary.
        let star = if prefix && phrase.chars().count() > 1 {
            "*"
        } else {
            ""
        };
        expression.push(format!("\"{phrase}\"{star}"));
        self.terms.push(if quoted {
            format!("\"{phrase}\"")
        } else {
            format!("{phrase}{star}")
        });
        self.phrases.push(Phrase {
            words,
            prefix: !star.is_empty(),
        });
    }

    /// Whether an entry passes the filters a full-text index does not check: channel, tool
    /// (its meta's `tool`), tags (`tags`, the entry's JSON array) and days (its own time's
    /// day, else `day`, its session's).
    pub fn passes(
        &self,
        channel: &str,
        tool: Option<&str>,
        ts: Option<&str>,
        day: &str,
        tags: &str,
    ) -> bool {
        if !self.channels.is_empty() && !self.channels.iter().any(|c| c.as_str() == channel) {
            return false;
        }
        if !self.tools.is_empty()
            && !tool.is_some_and(|tool| self.tools.contains(&tool.to_lowercase()))
        {
            return false;
        }
        let day = ts.and_then(|t| t.get(..10)).unwrap_or(day);
        if self.since.as_deref().is_some_and(|since| day < since)
            || self.until.as_deref().is_some_and(|until| day > until)
        {
            return false;
        }
        if !self.tags.is_empty() {
            let tags: Vec<String> = serde_json::from_str(tags).unwrap_or_default();
            if !self.tags.iter().all(|t| tags.contains(t)) {
                return false;
            }
        }
        true
    }

    fn add_filter(&mut self, name: &str, value: String, now: Time) -> Result<()> {
        match name {
            "channel" => {
                let channel = Channel::parse(&value).ok_or_else(|| {
                    let names: Vec<&str> = Channel::ALL.iter().map(|c| c.as_str()).collect();
                    Error::invalid(format!(
                        "channel:{value} is not a channel; channels are {}",
                        names.join(", ")
                    ))
                })?;
                if !self.channels.contains(&channel) {
                    self.channels.push(channel);
                }
            }
            "tool" => {
                let tool = value.to_lowercase();
                if !self.tools.contains(&tool) {
                    self.tools.push(tool);
                }
            }
            "tag" => {
                if !self.tags.contains(&value) {
                    self.tags.push(value);
                }
            }
            "session" => once(&mut self.session, "session", value)?,
            "file" => {
                let file = FilePattern::parse(&value)?;
                match &self.file {
                    Some(old) if *old != file => {
                        return Err(Error::invalid(format!(
                            "a query takes one file: filter (got file:{} and file:{value}); \
                             a folder takes in every file under it: file:ledger/",
                            old.path
                        )));
                    }
                    _ => self.file = Some(file),
                }
            }
            "since" | "until" => {
                let value = match relative_days(&value) {
                    Some(days) => now.day_before(days).ok_or_else(|| {
                        Error::invalid(format!("{name}:{value} reaches before the year 1"))
                    })?,
                    None if is_day(&value) => value,
                    None => {
                        return Err(Error::invalid(format!(
                            "{name}:{value} is not a day; write it as {name}:2026-11-01, or \
                             count back from today: {name}:7d (days), {name}:2w (weeks)"
                        )));
                    }
                };
                let slot = if name == "since" {
                    &mut self.since
                } else {
                    &mut self.until
                };
                once(slot, name, value)?;
            }
            "re" => {
                if self.regex.is_some() {
                    return Err(Error::invalid(
                        "a query takes one re: filter; join the patterns with |",
                    ));
                }
                let regex = RegexBuilder::new(&value)
                    .size_limit(REGEX_SIZE_LIMIT)
                    .dfa_size_limit(REGEX_SIZE_LIMIT)
                    .build()
                    .map_err(|e| {
                        let why = e.to_string();
                        let why = why.lines().last().unwrap_or("").trim().to_string();
                        Error::invalid(format!("re:{value} is not a valid regex: {why}"))
                    })?;
                self.regex = Some(regex);
            }
            other => {
                return Err(Error::invalid(format!(
                    "{other}: is not a filter; filters are {FILTERS}. To search for the text \
                     itself, quote it: \"{other}:{value}\""
                )));
            }
        }
        Ok(())
    }
}

/// Sets a filter that can be given once (the same value twice is fine).
fn once(slot: &mut Option<String>, name: &str, value: String) -> Result<()> {
    match slot {
        Some(old) if *old != value => Err(Error::invalid(format!(
            "a query takes one {name}: filter (got {name}:{old} and {name}:{value})"
        ))),
        _ => {
            *slot = Some(value);
            Ok(())
        }
    }
}

/// The runs of letters and digits of `text`.
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
}

#[derive(Debug, PartialEq, Eq)]
enum Token {
    /// `"..."`: a phrase.
    Phrase(String),
    /// `name:value` (value unquoted).
    Filter(String, String),
    /// Anything else between spaces.
    Text(String),
}

/// Cuts `text` at spaces outside quotes.
fn tokens(text: &str) -> Result<Vec<Token>> {
    let mut tokens = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some(&(start, c)) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
            continue;
        }
        if c == '"' {
            chars.next();
            tokens.push(Token::Phrase(quoted(text, start, &mut chars)?));
            continue;
        }
        let mut end = text.len();
        while let Some(&(at, c)) = chars.peek() {
            if c.is_whitespace() {
                end = at;
                break;
            }
            chars.next();
            if c == ':' && is_filter_name(&text[start..at]) {
                // `name:"quoted value"`, or `name:value` up to the next space.
                if let Some(&(_, '"')) = chars.peek() {
                    chars.next();
                    let value = quoted(text, at + 1, &mut chars)?;
                    tokens.push(filter_or_text(
                        &text[start..at],
                        value,
                        &text[start..at + 1],
                    ));
                    end = usize::MAX;
                    break;
                }
            }
        }
        if end == usize::MAX {
            continue;
        }
        let word = &text[start..end];
        match word.split_once(':') {
            Some((name, value))
                if is_filter_name(name) && !value.is_empty() && !value.starts_with([':', '/']) =>
            {
                tokens.push(Token::Filter(name.to_string(), value.to_string()));
            }
            _ => tokens.push(Token::Text(word.to_string())),
        }
    }
    Ok(tokens)
}

/// A quoted filter value: a filter, or plain text when it is empty (`tag:""`).
fn filter_or_text(name: &str, value: String, written: &str) -> Token {
    if value.is_empty() {
        Token::Text(written.to_string())
    } else {
        Token::Filter(name.to_string(), value)
    }
}

/// The text up to the closing quote of the quote at byte `open`.
fn quoted(
    text: &str,
    open: usize,
    chars: &mut std::iter::Peekable<std::str::CharIndices<'_>>,
) -> Result<String> {
    let mut value = String::new();
    for (_, c) in chars.by_ref() {
        if c == '"' {
            return Ok(value);
        }
        value.push(c);
    }
    let at = text[..open].chars().count() + 1;
    Err(Error::invalid(format!(
        "the quote at character {at} is not closed; close it, or leave quotes out"
    )))
}

/// `channel`, `re`: a name that can start a filter (what follows decides if it is one).
fn is_filter_name(name: &str) -> bool {
    !name.is_empty() && name.chars().all(|c| c.is_ascii_alphabetic() || c == '_')
}

/// Whether `text` has a `since:` or `until:` counted back from today (`since:7d`): what it
/// finds changes at midnight, with nothing in the store changing.
pub fn counts_back_from_today(text: &str) -> bool {
    tokens(text).is_ok_and(|tokens| {
        tokens.iter().any(|token| {
            matches!(token, Token::Filter(name, value)
                if (name == "since" || name == "until") && relative_days(value).is_some())
        })
    })
}

/// The days a relative day counts back from today: `7d` is 7, `2w` is 14, `0d` today.
fn relative_days(value: &str) -> Option<u32> {
    let (count, unit) = value.split_at(value.len().checked_sub(1)?);
    if count.is_empty() || !count.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let count: u32 = count.parse().ok()?;
    match unit {
        "d" => Some(count),
        "w" => count.checked_mul(7),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;

    fn fts(text: &str) -> Option<String> {
        Query::parse(text).unwrap().fts
    }

    fn refused(text: &str) -> String {
        let err = Query::parse(text).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Invalid, "{text}");
        err.message
    }

    #[test]
    fn words_and_phrases_are_quoted() {
        assert_eq!(fts("Deploy failed"), Some("\"deploy\" \"failed\"".into()));
        assert_eq!(
            fts("\"the login form\" x"),
            Some("\"the login form\" \"x\"".into())
        );
        assert_eq!(fts("parse_amount()"), Some("\"parse amount\"".into()));
        assert_eq!(fts("migrat* a*"), Some("\"migrat\"* \"a\"".into()));
        assert_eq!(
            fts("NEAR(a b) AND -x ^y"),
            Some("\"near a\" \"b\" \"and\" \"x\" \"y\"".into())
        );
        assert_eq!(fts("*()- \"\""), None);
        assert_eq!(
            fts("std::fs http://x.org error:"),
            Some("\"std fs\" \"http x org\" \"error\"".into())
        );
        assert_eq!(
            fts(&"w ".repeat(100)).unwrap().matches('"').count(),
            2 * MAX_TERMS
        );
    }

    #[test]
    fn phrases_keep_words_and_prefixes() {
        let phrases = |text: &str| -> Vec<(Vec<String>, bool)> {
            Query::parse(text)
                .unwrap()
                .phrases
                .into_iter()
                .map(|p| (p.words, p.prefix))
                .collect()
        };
        let words = |w: &[&str]| w.iter().map(|w| w.to_string()).collect::<Vec<_>>();
        assert_eq!(
            phrases("Migrat* \"a b\" c_d* x* 'y' & z"),
            [
                (words(&["migrat"]), true),
                (words(&["a", "b"]), false),
                (words(&["c", "d"]), true),
                // A one-letter prefix is the word itself.
                (words(&["x"]), false),
                (words(&["y"]), false),
                (words(&["z"]), false),
            ]
        );
        assert!(phrases("*()- \"\" &|!:'").is_empty());
        assert_eq!(phrases(&"w ".repeat(100)).len(), MAX_TERMS);
    }

    #[test]
    fn relative_days_are_days_before_the_query_was_asked() {
        let at = |text: &str| crate::model::time::Time::parse(text).unwrap();
        let days = |query: &str, now: &str| {
            let q = Query::parse_at(query, at(now)).unwrap();
            (q.since, q.until)
        };
        let now = "2026-11-25T23:59:59Z";
        assert_eq!(days("since:7d", now).0.as_deref(), Some("2026-11-18"));
        assert_eq!(days("until:1d", now).1.as_deref(), Some("2026-11-24"));
        assert_eq!(days("since:2w", now).0.as_deref(), Some("2026-11-11"));
        assert_eq!(days("since:0d", now).0.as_deref(), Some("2026-11-25"));
        // Across a year and a leap day.
        assert_eq!(
            days("since:5d", "2026-01-03T00:00:00Z").0.as_deref(),
            Some("2025-12-29")
        );
        assert_eq!(
            days("since:1d", "2028-03-01T12:00:00Z").0.as_deref(),
            Some("2028-02-29")
        );
        for bad in [
            "since:d",
            "since:7x",
            "since:-7d",
            "until:1.5d",
            "since:7days",
        ] {
            let error = Query::parse_at(bad, at(now)).unwrap_err();
            assert!(
                error.message.contains(":7d (days)"),
                "{bad}: {}",
                error.message
            );
        }
        let error = Query::parse_at("since:1d until:7d", at(now)).unwrap_err();
        assert!(error.message.contains("before"), "{}", error.message);
    }

    #[test]
    fn a_query_counting_back_from_today_is_told_apart() {
        assert!(counts_back_from_today("deploy since:7d"));
        assert!(counts_back_from_today("until:2w channel:user"));
        assert!(!counts_back_from_today("deploy since:2026-11-01"));
        assert!(!counts_back_from_today("7d"));
        assert!(!counts_back_from_today("since:\"unclosed"));
    }

    #[test]
    fn filters_are_read() {
        let q = Query::parse(
            "deploy channel:tool_call channel:user tag:a tag:\"b c\" session:s-1 since:2026-11-01 \
             until:2026-11-20 re:\"fn \\w+\"",
        )
        .unwrap();
        assert_eq!(q.fts.as_deref(), Some("\"deploy\""));
        assert_eq!(q.channels, [Channel::ToolCall, Channel::User]);
        assert_eq!(q.tags, ["a", "b c"]);
        assert_eq!(q.session.as_deref(), Some("s-1"));
        assert_eq!(
            (q.since.as_deref(), q.until.as_deref()),
            (Some("2026-11-01"), Some("2026-11-20"))
        );
        assert!(q.regex.unwrap().is_match("fn main"));
        assert!(Query::parse("channel:user").unwrap().entries_only());
    }

    #[test]
    fn malformed_queries_say_why() {
        assert!(refused("foo:bar").contains("not a filter"));
        assert!(refused("foo:bar").contains("\"foo:bar\""));
        assert!(refused("channel:tools").contains("tool_call"));
        assert!(refused("since:yesterday").contains("since:2026-11-01"));
        assert!(refused("until:2026-13-01").contains("not a day"));
        assert!(refused("since:2026-11-02 until:2026-11-01").contains("before"));
        assert!(refused("re:(unclosed").contains("not a valid regex"));
        assert!(refused("re:a re:b").contains("one re:"));
        assert!(refused("session:a session:b").contains("one session:"));
        assert!(refused("say \"hello").contains("character 5"));
        assert!(refused("re:\"x").contains("not closed"));
        // A huge compiled regex is refused, not built.
        assert!(refused("re:\\w{1000}\\w{1000}").contains("not a valid regex"));
        // Quoted, a filter's text is searched for.
        assert_eq!(fts("\"foo:bar\""), Some("\"foo bar\"".into()));
    }
}
