//! The bounded reads of PostgreSQL memory search — what the GIN index cannot answer: a
//! query of filters only, a `re:` pattern. As SQLite's `scan.rs`, entries are read newest
//! first and checked here, in Rust (a pattern is Rust regex syntax, as users are promised,
//! never PostgreSQL's `~`), within the same budget of rows and time ([`Budget`]); a scan
//! that stopped says why.
//!
//! Rows come in batches (keyset pages of the primary key, or lists of numbers), since a
//! statement's rows arrive whole: a batch holds at most [`BATCH`] rows, and a text longer
//! than [`INLINE_BYTES`] is fetched on its own, so a batch of large tool results does not
//! take the memory of the process.

use std::collections::HashMap;

use postgres::types::ToSql;
use regex::Regex;

use super::Span;
use crate::error::Result;
use crate::store::memory::query::Query;
use crate::store::memory::scan::{Budget, Located, Scanned};
use crate::store::postgres::Tx;

/// Rows per statement of a scan: each statement costs a round trip and a plan, so a long
/// scan wants large batches; the first is [`FIRST_BATCH`], for a scan that needs a few
/// hits, and each next one four times larger, up to this.
const BATCH: i64 = 2_000;
const FIRST_BATCH: i64 = 100;
/// Texts up to this many bytes come with their batch; longer ones are fetched alone (a
/// batch holds at most 64 MiB of text).
const INLINE_BYTES: i32 = 32 * 1024;

/// Entries within `span` that pass `query`'s filters and pattern, newest first, at most
/// `keep`; and how many pass among the entries read. With `count_all` false the scan
/// stops once it has `keep` (the caller counts another way).
///
/// With a `tag:`, only the entries of the tag index are read; the other filters are
/// checked here, so the budget counts every entry read, as in SQLite.
pub(super) fn entries(
    tx: &Tx<'_>,
    query: &Query,
    span: Span,
    keep: usize,
    count_all: bool,
) -> Result<(Scanned, usize)> {
    let (low, mut high) = span.bounds();
    // Only what the filters need is read (the day comes from the session, looked up once
    // per session): a scan reads up to MAX_ROWS entries.
    let days = query.since.is_some() || query.until.is_some();
    let columns = [
        ("e.channel", !query.channels.is_empty(), "NULL::TEXT"),
        ("e.ts", days, "NULL::TEXT"),
        ("e.tags", !query.tags.is_empty(), "NULL::TEXT"),
        ("e.session", days, "NULL::INTEGER"),
    ]
    .map(|(column, needed, none)| if needed { column } else { none })
    .join(", ");
    let text = if query.regex.is_some() {
        format!("CASE WHEN octet_length(e.content) <= {INLINE_BYTES} THEN e.content END")
    } else {
        "NULL".to_string()
    };
    let sql = match query.tags.first() {
        Some(_) => format!(
            "SELECT e.id, {columns}, {text}::TEXT FROM entry_tags t JOIN entries e ON e.id = t.entry
             WHERE t.tag = $4 AND t.entry BETWEEN $1 AND $2 ORDER BY t.entry DESC LIMIT $3"
        ),
        None => format!(
            "SELECT e.id, {columns}, {text}::TEXT FROM entries e
             WHERE e.id BETWEEN $1 AND $2 ORDER BY e.id DESC LIMIT $3"
        ),
    };
    let mut session_days: HashMap<i32, String> = HashMap::new();
    let mut scanned = Scanned::default();
    let mut total = 0;
    let mut budget = Budget::new();
    let mut batch = FIRST_BATCH;
    'pages: loop {
        let rows = match query.tags.first() {
            Some(tag) => tx.query(&sql, &[&low, &high, &batch, tag])?,
            None => tx.query(&sql, &[&low, &high, &batch])?,
        };
        let full = rows.len() as i64 == batch;
        batch = (batch * 4).min(BATCH);
        for row in rows {
            if !count_all && scanned.hits.len() >= keep {
                break 'pages;
            }
            if let Some(reason) = budget.spend() {
                scanned.cut = Some(reason);
                break 'pages;
            }
            scanned.read += 1;
            let id: i64 = row.get(0);
            high = id - 1;
            let channel: Option<String> = row.get(1);
            let ts: Option<String> = row.get(2);
            let tags: Option<String> = row.get(3);
            let day = match row.get::<_, Option<i32>>(4) {
                Some(session) => day_of(tx, &mut session_days, session)?,
                None => String::new(),
            };
            let (channel, tags) = (channel.unwrap_or_default(), tags.unwrap_or_default());
            if !query.passes(&channel, ts.as_deref(), &day, &tags) {
                continue;
            }
            let found = match &query.regex {
                Some(regex) => {
                    let text = match row.get::<_, Option<String>>(5) {
                        Some(text) => text,
                        None => content(tx, id)?,
                    };
                    match regex.find(&text) {
                        Some(m) => Some(m.range()),
                        None => continue,
                    }
                }
                None => None,
            };
            total += 1;
            if scanned.hits.len() < keep {
                scanned.hits.push((id, found));
            }
        }
        if !full {
            break;
        }
    }
    Ok((scanned, total))
}

/// The day of session `session`, from `days` or looked up (and kept there).
fn day_of(tx: &Tx<'_>, days: &mut HashMap<i32, String>, session: i32) -> Result<String> {
    if let Some(day) = days.get(&session) {
        return Ok(day.clone());
    }
    let day: String = tx
        .query_opt("SELECT day FROM sessions WHERE rowid = $1", &[&session])?
        .map(|r| r.get(0))
        .unwrap_or_default();
    days.insert(session, day.clone());
    Ok(day)
}

/// Which of `ids` (newest first) have content matching `regex`, with the range of the first
/// match, within the scan budget.
pub(super) fn matching(
    tx: &Tx<'_>,
    ids: &[i64],
    regex: &Regex,
) -> Result<(Vec<Located<i64>>, Option<String>)> {
    let mut budget = Budget::new();
    let mut kept = Vec::new();
    for batch in ids.chunks(BATCH as usize) {
        for (id, text) in contents(tx, batch)? {
            if let Some(reason) = budget.spend() {
                return Ok((kept, Some(reason)));
            }
            if let Some(m) = regex.find(&text) {
                kept.push((id, m.range()));
            }
        }
    }
    Ok((kept, None))
}

/// What a scan of session titles and summaries found: the sessions' numbers and the text
/// that matched (with the match), most recent first; how many matched; why it stopped
/// early, if it did.
pub(super) type SessionsFound = (Vec<Located<(i64, String)>>, usize, Option<String>);

/// Sessions among `rowids` (in the order to read them) whose title or summary matches
/// `regex`, at most `keep` kept, within the scan budget.
pub(super) fn sessions(
    tx: &Tx<'_>,
    rowids: &[i32],
    regex: &Regex,
    keep: usize,
) -> Result<SessionsFound> {
    let mut budget = Budget::new();
    let (mut found, mut total) = (Vec::new(), 0);
    for batch in rowids.chunks(BATCH as usize) {
        let rows = tx.query(
            "SELECT rowid, title, coalesce(summary, '') FROM sessions WHERE rowid = ANY($1)",
            &[&batch],
        )?;
        let mut texts: HashMap<i32, (String, String)> = rows
            .into_iter()
            .map(|r| (r.get(0), (r.get(1), r.get(2))))
            .collect();
        for rowid in batch {
            let Some((title, summary)) = texts.remove(rowid) else {
                continue;
            };
            if let Some(reason) = budget.spend() {
                return Ok((found, total, Some(reason)));
            }
            for text in [title, summary] {
                if let Some(m) = regex.find(&text) {
                    total += 1;
                    if found.len() < keep {
                        let range = m.range();
                        found.push(((i64::from(*rowid), text), range));
                    }
                    break;
                }
            }
        }
    }
    Ok((found, total, None))
}

/// The content of each of `ids` that exists, in the order of `ids`.
pub(super) fn contents(tx: &Tx<'_>, ids: &[i64]) -> Result<Vec<(i64, String)>> {
    let sql = format!(
        "SELECT id, CASE WHEN octet_length(content) <= {INLINE_BYTES} THEN content END
         FROM entries WHERE id = ANY($1)"
    );
    let ids_param: &(dyn ToSql + Sync) = &ids;
    let mut texts: HashMap<i64, Option<String>> = tx
        .query(&sql, &[ids_param])?
        .into_iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    let mut out = Vec::new();
    for &id in ids {
        match texts.remove(&id) {
            Some(Some(text)) => out.push((id, text)),
            Some(None) => out.push((id, content(tx, id)?)),
            None => {}
        }
    }
    Ok(out)
}

/// One entry's content, fetched alone (it is large).
fn content(tx: &Tx<'_>, id: i64) -> Result<String> {
    Ok(tx
        .query_opt("SELECT content FROM entries WHERE id = $1", &[&id])?
        .map(|r| r.get(0))
        .unwrap_or_default())
}
