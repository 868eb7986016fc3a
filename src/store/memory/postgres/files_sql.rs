//! The files sessions changed, on PostgreSQL ([`FilesSql`]): SQLite's statements
//! (`../sqlite/files_sql.rs`) in PostgreSQL's words, text ordered by bytes (`COLLATE "C"`)
//! and missing times last, as SQLite orders them.

use postgres::Row;
use postgres::types::ToSql;

use super::read::{SESSION_COLUMNS, column};
use crate::error::Result;
use crate::model::time::Time;
use crate::model::transcript::{Channel, EntryRecord};
use crate::store::memory::changed::{ChangedFile, FileOrder, FilePattern};
use crate::store::memory::count;
use crate::store::memory::dialect::FilesSql;
use crate::store::memory::records::Changers;
use crate::store::memory::stored::{SESSION_WIDTH, session_at, time_of};
use crate::store::postgres::Tx;

fn changed_at(row: &Row, at: usize) -> Result<Option<Time>> {
    time_of(row, at, |e| {
        format!("a session's changed file: its stored {e}")
    })
}

fn limit_of(limit: usize) -> i64 {
    i64::try_from(limit).unwrap_or(i64::MAX)
}

impl FilesSql for Tx<'_> {
    fn backfill_pending(&self) -> Result<bool> {
        Ok(self
            .query_opt(
                "SELECT 1 FROM memory_backfills WHERE name = 'session_files'",
                &[],
            )?
            .is_some())
    }

    fn tool_calls_after(&self, after: i64, limit: usize) -> Result<Vec<(i64, EntryRecord)>> {
        let rows = self.query(
            "SELECT id, ts, meta, content FROM entries
             WHERE id > $1 AND channel = 'tool_call' ORDER BY id LIMIT $2",
            &[&after, &limit_of(limit)],
        )?;
        rows.iter()
            .map(|r| {
                let meta: String = column(r, 2)?;
                Ok((
                    column(r, 0)?,
                    EntryRecord {
                        key: String::new(),
                        ts: changed_at(r, 1)?,
                        channel: Channel::ToolCall,
                        content: column(r, 3)?,
                        tags: Vec::new(),
                        meta: serde_json::from_str(&meta).unwrap_or_default(),
                    },
                ))
            })
            .collect()
    }

    fn backfill_done(&self) -> Result<()> {
        self.execute(
            "DELETE FROM memory_backfills WHERE name = 'session_files'",
            &[],
        )?;
        Ok(())
    }

    fn files_of(&self, session: i64) -> Result<Vec<(String, Option<Time>)>> {
        let Ok(session) = i32::try_from(session) else {
            return Ok(Vec::new());
        };
        let rows = self.query(
            "SELECT path, changed FROM session_files WHERE session = $1
             ORDER BY changed COLLATE \"C\" DESC NULLS LAST, path COLLATE \"C\"",
            &[&session],
        )?;
        rows.iter()
            .map(|r| Ok((column(r, 0)?, changed_at(r, 1)?)))
            .collect()
    }

    fn sessions_changing(&self, pattern: &FilePattern, limit: usize) -> Result<Changers> {
        let mut values: Vec<String> = Vec::new();
        let condition = pattern.condition("path", |v| {
            values.push(v);
            format!("${}", values.len())
        });
        let limit = limit_of(limit);
        let mut params: Vec<&(dyn ToSql + Sync)> =
            values.iter().map(|v| v as &(dyn ToSql + Sync)).collect();
        params.push(&limit);
        let sql = format!(
            "SELECT {SESSION_COLUMNS}, m.changed, count(*) OVER () FROM (
                SELECT session, max(changed COLLATE \"C\") AS changed FROM session_files
                WHERE {condition} GROUP BY session
             ) m JOIN sessions s ON s.rowid = m.session
             ORDER BY m.changed COLLATE \"C\" DESC NULLS LAST, s.rowid DESC LIMIT ${}",
            params.len()
        );
        let rows = self.query(&sql, &params)?;
        let total = match rows.first() {
            Some(row) => count(column(row, SESSION_WIDTH + 1)?),
            None => 0,
        };
        let found = rows
            .iter()
            .map(|r| Ok((session_at(r, 0)?, changed_at(r, SESSION_WIDTH)?)))
            .collect::<Result<_>>()?;
        Ok((found, total))
    }

    fn changed_files(&self, order: FileOrder, limit: usize) -> Result<Vec<ChangedFile>> {
        let latest = "max(changed COLLATE \"C\")";
        let order = match order {
            FileOrder::Recent => format!("{latest} DESC NULLS LAST, path COLLATE \"C\""),
            FileOrder::Often => {
                format!("count(*) DESC, {latest} DESC NULLS LAST, path COLLATE \"C\"")
            }
        };
        let rows = self.query(
            &format!(
                "SELECT path, count(*), {latest} FROM session_files
                 GROUP BY path ORDER BY {order} LIMIT $1"
            ),
            &[&limit_of(limit)],
        )?;
        rows.iter()
            .map(|r| {
                Ok(ChangedFile {
                    path: column(r, 0)?,
                    sessions: count(column(r, 1)?),
                    latest: changed_at(r, 2)?,
                })
            })
            .collect()
    }
}
