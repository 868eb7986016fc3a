//! The files sessions changed, on SQLite ([`FilesSql`]): the rows of `files.sql`, read by
//! session, by path pattern (a scan of the table, which holds a row per file a session
//! changed, not per entry) and grouped by path.

use rusqlite::{Connection, OptionalExtension, params_from_iter, types::Value};

use super::read::{SESSION_COLUMNS, sql_limit};
use crate::error::Result;
use crate::model::time::Time;
use crate::model::transcript::{Channel, EntryRecord};
use crate::store::memory::changed::{ChangedFile, FileOrder, FilePattern};
use crate::store::memory::count;
use crate::store::memory::dialect::FilesSql;
use crate::store::memory::records::Changers;
use crate::store::memory::stored::{SESSION_WIDTH, session_at, time_of};
use crate::store::row::sqlite_rows;

fn changed_at(row: &rusqlite::Row<'_>, at: usize) -> Result<Option<Time>> {
    time_of(row, at, |e| {
        format!("a session's changed file: its stored {e}")
    })
}

impl FilesSql for Connection {
    fn backfill_pending(&self) -> Result<bool> {
        Ok(self
            .prepare_cached("SELECT 1 FROM memory_backfills WHERE name = 'session_files'")?
            .query_row([], |_| Ok(()))
            .optional()?
            .is_some())
    }

    fn tool_calls_after(&self, after: i64, limit: usize) -> Result<Vec<(i64, EntryRecord)>> {
        let sql = format!(
            "SELECT id, ts, meta, content FROM entries
             WHERE id > ?1 AND channel = 'tool_call' ORDER BY id LIMIT {}",
            sql_limit(limit)
        );
        let mut statement = self.prepare_cached(&sql)?;
        sqlite_rows(statement.query([after])?, |r| {
            let meta: String = r.get(2)?;
            Ok((
                r.get(0)?,
                EntryRecord {
                    key: String::new(),
                    ts: changed_at(r, 1)?,
                    channel: Channel::ToolCall,
                    content: r.get(3)?,
                    tags: Vec::new(),
                    meta: serde_json::from_str(&meta).unwrap_or_default(),
                },
            ))
        })
    }

    fn backfill_done(&self) -> Result<()> {
        self.prepare_cached("DELETE FROM memory_backfills WHERE name = 'session_files'")?
            .execute([])?;
        Ok(())
    }

    fn files_of(&self, session: i64) -> Result<Vec<(String, Option<Time>)>> {
        let mut statement = self.prepare_cached(
            "SELECT path, changed FROM session_files WHERE session = ?1
             ORDER BY changed IS NULL, changed DESC, path",
        )?;
        sqlite_rows(statement.query([session])?, |r| {
            Ok((r.get(0)?, changed_at(r, 1)?))
        })
    }

    fn sessions_changing(&self, pattern: &FilePattern, limit: usize) -> Result<Changers> {
        let mut values: Vec<Value> = Vec::new();
        let condition = pattern.condition("path", |v| {
            values.push(v.into());
            format!("?{}", values.len())
        });
        let sql = format!(
            "SELECT {SESSION_COLUMNS}, m.changed, count(*) OVER () FROM (
                SELECT session, max(changed) AS changed FROM session_files
                WHERE {condition} GROUP BY session
             ) m JOIN sessions s ON s.rowid = m.session
             ORDER BY m.changed IS NULL, m.changed DESC, s.rowid DESC LIMIT {}",
            sql_limit(limit)
        );
        let mut statement = self.prepare_cached(&sql)?;
        let rows = sqlite_rows(statement.query(params_from_iter(values))?, |r| {
            let total = count(r.get(SESSION_WIDTH + 1)?);
            Ok(((session_at(r, 0)?, changed_at(r, SESSION_WIDTH)?), total))
        })?;
        let total = rows.first().map_or(0, |(_, total)| *total);
        Ok((rows.into_iter().map(|(row, _)| row).collect(), total))
    }

    fn changed_files(&self, order: FileOrder, limit: usize) -> Result<Vec<ChangedFile>> {
        let order = match order {
            FileOrder::Recent => "max(changed) IS NULL, max(changed) DESC, path",
            FileOrder::Often => "count(*) DESC, max(changed) IS NULL, max(changed) DESC, path",
        };
        let sql = format!(
            "SELECT path, count(*), max(changed) FROM session_files
             GROUP BY path ORDER BY {order} LIMIT {}",
            sql_limit(limit)
        );
        let mut statement = self.prepare_cached(&sql)?;
        sqlite_rows(statement.query([])?, |r| {
            Ok(ChangedFile {
                path: r.get(0)?,
                sessions: count(r.get(1)?),
                latest: changed_at(r, 2)?,
            })
        })
    }
}
