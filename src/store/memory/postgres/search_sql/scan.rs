//! The bounded reads of PostgreSQL memory search — what the GIN index cannot answer: a
//! query of filters only, a `re:` pattern. `../../scan.rs` checks the filters and the
//! pattern (Rust regex syntax, as users are promised, never PostgreSQL's `~`) within its
//! budget of rows and time; this reads the rows it asks for.
//!
//! Rows come in batches (keyset pages of the primary key, or lists of numbers), since a
//! statement's rows arrive whole: a batch holds at most [`BATCH`] rows, and a text longer
//! than [`INLINE_BYTES`] is fetched on its own, so a batch of large tool results does not
//! take the memory of the process.

use std::collections::HashMap;

use postgres::types::ToSql;

use crate::error::Result;
use crate::store::memory::dialect::ScanRow;
use crate::store::memory::query::Query;
use crate::store::memory::span::Span;
use crate::store::postgres::Tx;

/// Rows per statement of a scan: each statement costs a round trip and a plan, so a long
/// scan wants large batches; the first is [`FIRST_BATCH`], for a scan that needs a few
/// hits, and each next one four times larger, up to this.
const BATCH: i64 = 2_000;
const FIRST_BATCH: i64 = 100;
/// Texts up to this many bytes come with their batch; longer ones are fetched alone (a
/// batch holds at most 64 MiB of text).
const INLINE_BYTES: i32 = 32 * 1024;

/// Entries within `span`, newest first, handed to `visit` until it says stop: with a
/// `tag:`, only the entries of the tag index. Only what the filters need is read (the day
/// comes from the session, looked up once per session): a scan reads many entries.
pub(super) fn entries(
    tx: &Tx<'_>,
    query: &Query,
    span: Span,
    visit: &mut dyn FnMut(ScanRow) -> Result<bool>,
) -> Result<()> {
    let (low, mut high) = span.bounds();
    let days = query.since.is_some() || query.until.is_some();
    let tool = super::meta_tool();
    let columns = [
        ("e.channel", !query.channels.is_empty(), "NULL::TEXT"),
        ("e.ts", days, "NULL::TEXT"),
        ("e.tags", !query.tags.is_empty(), "NULL::TEXT"),
        ("e.session", days, "NULL::INTEGER"),
        (tool.as_str(), !query.tools.is_empty(), "NULL::TEXT"),
    ]
    .map(|(column, needed, none)| if needed { column } else { none })
    .join(", ");
    let text = if query.regex.is_some() {
        format!("CASE WHEN octet_length(e.content) <= {INLINE_BYTES} THEN e.content END")
    } else {
        "''".to_string()
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
    let mut batch = FIRST_BATCH;
    loop {
        let rows = match query.tags.first() {
            Some(tag) => tx.query(&sql, &[&low, &high, &batch, tag])?,
            None => tx.query(&sql, &[&low, &high, &batch])?,
        };
        let full = rows.len() as i64 == batch;
        batch = (batch * 4).min(BATCH);
        for row in rows {
            let id: i64 = row.get(0);
            high = id - 1;
            let day = match row.get::<_, Option<i32>>(4) {
                Some(session) => day_of(tx, &mut session_days, session)?,
                None => String::new(),
            };
            let read = ScanRow {
                id,
                channel: row.get::<_, Option<String>>(1).unwrap_or_default(),
                tool: row.get(5),
                ts: row.get(2),
                tags: row.get::<_, Option<String>>(3).unwrap_or_default(),
                day,
                text: row.get(6),
            };
            if !visit(read)? {
                return Ok(());
            }
        }
        if !full {
            return Ok(());
        }
    }
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

/// The content of each of `ids` that exists, in the order of `ids`, handed to `visit`
/// until it says stop; a batch of [`BATCH`] per statement.
pub(super) fn contents(
    tx: &Tx<'_>,
    ids: &[i64],
    visit: &mut dyn FnMut(i64, &str) -> bool,
) -> Result<()> {
    let sql = format!(
        "SELECT id, CASE WHEN octet_length(content) <= {INLINE_BYTES} THEN content END
         FROM entries WHERE id = ANY($1)"
    );
    for batch in ids.chunks(BATCH as usize) {
        let ids_param: &(dyn ToSql + Sync) = &batch;
        let mut texts: HashMap<i64, Option<String>> = tx
            .query(&sql, &[ids_param])?
            .into_iter()
            .map(|r| (r.get(0), r.get(1)))
            .collect();
        for &id in batch {
            let text = match texts.remove(&id) {
                Some(Some(text)) => text,
                Some(None) => content(tx, id)?,
                None => continue,
            };
            if !visit(id, &text) {
                return Ok(());
            }
        }
    }
    Ok(())
}

/// One entry's content, fetched alone (it is large).
pub(super) fn content(tx: &Tx<'_>, id: i64) -> Result<String> {
    Ok(tx
        .query_opt("SELECT content FROM entries WHERE id = $1", &[&id])?
        .map(|r| r.get(0))
        .unwrap_or_default())
}
