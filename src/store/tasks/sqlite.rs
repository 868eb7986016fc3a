//! The SQLite backend of [`TaskRows`]: each read one SQL statement, ordered and `LIMIT`ed
//! by SQLite over an index; counters and `waiting` kept by the triggers of `schema.sql`;
//! search by the FTS5 table `tasks_fts`. Statements are prepared once and cached.

use rusqlite::{Connection, OptionalExtension, params};

use super::{Fields, Filter, Status, Task, TaskRows, condition, dependent_of, task_of};
use crate::error::{Error, Result};
use crate::model::time::Time;
use crate::store::fts::{self, Tier};
use crate::store::row::{limit, size, sqlite_rows};

/// The columns of a whole task, with its tags and dependencies gathered by SQLite (one
/// statement for a whole listing, not one query per task).
const COLUMNS: &str = "t.id, t.slug, t.title, t.status, t.priority, t.description, t.created,
    t.updated,
    (SELECT json_group_array(tag ORDER BY pos) FROM task_tags WHERE task = t.id),
    (SELECT json_group_array(d.slug ORDER BY k.pos)
        FROM task_deps k JOIN tasks d ON d.id = k.depends_on WHERE k.task = t.id)";

/// The first `?2` (replaced by the limit) outstanding tasks, taken from each status's index in order (where
/// `status IN (...)` would sort every outstanding task to keep ten).
const FIRST_OUTSTANDING: &str = "t.id IN (
    SELECT id FROM (SELECT id FROM tasks WHERE status = 'open' ORDER BY priority, slug LIMIT ?2)
    UNION ALL SELECT id FROM (
        SELECT id FROM tasks WHERE status = 'in_progress' ORDER BY priority, slug LIMIT ?2)
    UNION ALL SELECT id FROM (
        SELECT id FROM tasks WHERE status = 'blocked' ORDER BY priority, slug LIMIT ?2))";

/// The value of `?1`, for the filters that have one.
fn argument<'a>(filter: Filter<'a>) -> Option<&'a str> {
    match filter {
        Filter::Tag(tag) => Some(tag),
        Filter::Status(_) | Filter::Outstanding | Filter::Ready => None,
    }
}

/// `filter` as a listing's condition: the outstanding tasks the first `limit` of each
/// status (`-1`: all).
fn listing(filter: Filter<'_>, limit: i64) -> String {
    match filter {
        Filter::Outstanding => FIRST_OUTSTANDING.replace("?2", &limit.to_string()),
        other => condition(other, "?1"),
    }
}

/// The rows of `sql`, with `filter`'s argument bound when the statement takes it.
fn filtered<T>(
    conn: &Connection,
    sql: &str,
    filter: Filter<'_>,
    read: impl Fn(&rusqlite::Row<'_>) -> Result<T>,
) -> Result<Vec<T>> {
    let mut statement = conn.prepare_cached(sql)?;
    let rows = if statement.parameter_count() == 0 {
        statement.query([])?
    } else {
        statement.query(params![argument(filter)])?
    };
    sqlite_rows(rows, |r| read(r))
}

impl TaskRows for Connection {
    fn get(&self, slug: &str) -> Result<Option<Task>> {
        let sql = format!("SELECT {COLUMNS} FROM tasks t WHERE t.slug = ?1");
        let mut statement = self.prepare_cached(&sql)?;
        let row = statement.query_row([slug], |r| Ok(task_of(r)));
        row.optional()?.transpose()
    }

    fn get_in(&self, filter: Filter<'_>, slug: &str) -> Result<Option<Task>> {
        // `?1` may be absent from the condition; SQLite leaves an unused number unbound.
        let sql = format!(
            "SELECT {COLUMNS} FROM tasks t WHERE t.slug = ?2 AND {}",
            condition(filter, "?1")
        );
        let mut statement = self.prepare_cached(&sql)?;
        let row = statement.query_row(params![argument(filter), slug], |r| Ok(task_of(r)));
        row.optional()?.transpose()
    }

    fn list(&self, filter: Filter<'_>, n: Option<usize>) -> Result<Vec<Task>> {
        // The limit is written into the statement, not bound: with SQLite's STAT4 a bound limit
        // re-prepares the statement on every run. Limits come from our own code (a few values),
        // so the statement cache holds them all.
        let limit = n.map_or(-1, limit);
        let sql = format!(
            "SELECT {COLUMNS} FROM tasks t WHERE {} ORDER BY t.priority, t.slug LIMIT {limit}",
            listing(filter, limit)
        );
        filtered(self, &sql, filter, |r| task_of(r))
    }

    /// From the task's own place in the order on, as PostgreSQL does: a listing with
    /// attributes asks for a run per batch of its entries.
    fn list_from(&self, filter: Filter<'_>, slug: &str, n: usize) -> Result<Vec<Task>> {
        let sql = format!(
            "SELECT {COLUMNS} FROM tasks t
             WHERE {} AND (t.priority, t.slug)
                 >= (SELECT s.priority, s.slug FROM tasks s WHERE s.slug = ?2)
             ORDER BY t.priority, t.slug LIMIT {}",
            condition(filter, "?1"),
            limit(n)
        );
        let mut statement = self.prepare_cached(&sql)?;
        let rows = statement.query(params![argument(filter), slug])?;
        let found: Vec<Task> = sqlite_rows(rows, task_of)?;
        // Not selected by `filter`, the task starts no run of it.
        Ok(match found.first() {
            Some(first) if first.slug == slug => found,
            _ => Vec::new(),
        })
    }

    fn slugs(&self, filter: Filter<'_>) -> Result<Vec<String>> {
        let sql = format!(
            "SELECT t.slug FROM tasks t WHERE {} ORDER BY t.priority, t.slug",
            listing(filter, -1)
        );
        filtered(self, &sql, filter, |r| Ok(r.get(0)?))
    }

    fn count(&self, filter: Filter<'_>) -> Result<usize> {
        let sql = format!(
            "SELECT count(*) FROM tasks t WHERE {}",
            condition(filter, "?1")
        );
        let n = filtered(self, &sql, filter, |r| Ok(r.get::<_, i64>(0)?))?;
        Ok(size(n.first().copied().unwrap_or(0)))
    }

    fn counters(&self) -> Result<Vec<(String, i64)>> {
        let mut statement = self.prepare_cached("SELECT name, n FROM task_counts")?;
        sqlite_rows(statement.query([])?, |r| Ok((r.get(0)?, r.get(1)?)))
    }

    fn tags(&self) -> Result<Vec<(String, usize)>> {
        let mut statement =
            self.prepare_cached("SELECT tag, count(*) FROM task_tags GROUP BY tag ORDER BY tag")?;
        sqlite_rows(statement.query([])?, |r| Ok((r.get(0)?, size(r.get(1)?))))
    }

    fn existing<'n>(&self, names: &[&'n str]) -> Result<Vec<&'n str>> {
        let mut statement = self.prepare_cached("SELECT 1 FROM tasks WHERE slug = ?1")?;
        let mut found = Vec::new();
        for name in names {
            if statement.exists([name])? {
                found.push(*name);
            }
        }
        Ok(found)
    }

    fn names(&self) -> Result<Vec<String>> {
        let mut statement = self.prepare_cached("SELECT slug FROM tasks ORDER BY slug")?;
        sqlite_rows(statement.query([])?, |r| Ok(r.get(0)?))
    }

    fn dependencies_from(&self, starts: &[&str]) -> Result<Vec<(String, String)>> {
        let starts = serde_json::to_string(starts)
            .map_err(|e| Error::internal(format!("task names as JSON: {e}")))?;
        let mut statement = self.prepare_cached(
            "WITH RECURSIVE reach (id) AS (
                 SELECT t.id FROM json_each(?1) j JOIN tasks t ON t.slug = j.value
                 UNION
                 SELECT k.depends_on FROM task_deps k JOIN reach r ON k.task = r.id)
             SELECT t.slug, d.slug FROM reach r
             JOIN task_deps k ON k.task = r.id
             JOIN tasks t ON t.id = k.task JOIN tasks d ON d.id = k.depends_on
             ORDER BY t.slug, k.pos",
        )?;
        sqlite_rows(statement.query([starts])?, |r| Ok((r.get(0)?, r.get(1)?)))
    }

    fn dependents(&self, id: i64) -> Result<Vec<(String, Status)>> {
        let mut statement = self.prepare_cached(
            "SELECT DISTINCT t.slug, t.status FROM task_deps k JOIN tasks t ON t.id = k.task
             WHERE k.depends_on = ?1 ORDER BY t.slug",
        )?;
        sqlite_rows(statement.query([id])?, dependent_of)
    }

    /// Ranked by bm25, a title or name match outweighing one in the description. The query
    /// is never passed to FTS5 as syntax: it is cut into words (letters and digits) and
    /// quoted phrases, each quoted as a prefix term, so `*`, `NEAR`, `(`, `-` are just text.
    fn matching(&self, query: &str, tier: Tier, n: usize) -> Result<(Vec<Task>, usize)> {
        let Some(expression) = fts::match_expression(query, tier) else {
            return Ok((Vec::new(), 0));
        };
        let total: i64 = self
            .prepare_cached("SELECT count(*) FROM tasks_fts WHERE tasks_fts MATCH ?1")?
            .query_row([&expression], |r| r.get(0))?;
        let sql = format!(
            "SELECT {COLUMNS} FROM tasks_fts f JOIN tasks t ON t.id = f.rowid
             WHERE tasks_fts MATCH ?1
             ORDER BY bm25(tasks_fts, 4.0, 4.0, 1.0, 2.0), t.priority, t.slug LIMIT ?2"
        );
        let mut statement = self.prepare_cached(&sql)?;
        let hits = sqlite_rows(statement.query(params![expression, limit(n)])?, task_of)?;
        Ok((hits, size(total)))
    }

    fn insert_row(&self, slug: &str, fields: &Fields, now: Time) -> Result<i64> {
        with_row(
            self,
            "INSERT INTO tasks (slug, title, status, priority, description, created, updated)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6)",
            &slug,
            fields,
            now,
        )?;
        Ok(self.last_insert_rowid())
    }

    fn update_row(&self, id: i64, fields: &Fields, now: Time) -> Result<()> {
        with_row(
            self,
            "UPDATE tasks SET title = ?2, status = ?3, priority = ?4, description = ?5, updated = ?6
             WHERE id = ?1",
            &id,
            fields,
            now,
        )
    }

    fn clear_lists(&self, id: i64) -> Result<()> {
        for_task(
            self,
            id,
            &[
                "DELETE FROM task_tags WHERE task = ?1",
                "DELETE FROM task_deps WHERE task = ?1",
            ],
        )
    }

    fn add_tag(&self, id: i64, pos: i32, tag: &str) -> Result<()> {
        self.prepare_cached("INSERT INTO task_tags (task, pos, tag) VALUES (?1, ?2, ?3)")?
            .execute(params![id, pos, tag])?;
        Ok(())
    }

    fn add_dependency(&self, id: i64, pos: i32, name: &str) -> Result<bool> {
        let added = self
            .prepare_cached(
                "INSERT INTO task_deps (task, pos, depends_on)
                 SELECT ?1, ?2, id FROM tasks WHERE slug = ?3",
            )?
            .execute(params![id, pos, name])?;
        Ok(added == 1)
    }

    fn index(&self, id: i64, slug: &str, fields: &Fields) -> Result<()> {
        for_task(self, id, &["DELETE FROM tasks_fts WHERE rowid = ?1"])?;
        self.prepare_cached(
            "INSERT INTO tasks_fts (rowid, name, title, description, tags)
             VALUES (?1, ?2, ?3, ?4, ?5)",
        )?
        .execute(params![
            id,
            slug,
            fields.title,
            fields.description,
            fields.tags.join(" ")
        ])?;
        Ok(())
    }

    fn slug_of(&self, id: i64) -> Result<String> {
        Ok(self
            .prepare_cached("SELECT slug FROM tasks WHERE id = ?1")?
            .query_row([id], |r| r.get(0))?)
    }

    fn set_name(&self, id: i64, slug: &str, status: Status, now: Time) -> Result<()> {
        let now = now.to_string();
        self.prepare_cached("UPDATE tasks SET slug = ?2, status = ?3, updated = ?4 WHERE id = ?1")?
            .execute(params![id, slug, status.as_str(), now])?;
        Ok(())
    }

    fn touch_dependents(&self, id: i64, now: Time) -> Result<()> {
        let now = now.to_string();
        self.prepare_cached(
            "UPDATE tasks SET updated = ?2
             WHERE id IN (SELECT task FROM task_deps WHERE depends_on = ?1)",
        )?
        .execute(params![id, now])?;
        Ok(())
    }

    fn index_name(&self, id: i64, slug: &str) -> Result<()> {
        self.prepare_cached("UPDATE tasks_fts SET name = ?2 WHERE rowid = ?1")?
            .execute(params![id, slug])?;
        Ok(())
    }

    /// The index entry first: a task others depend on fails (foreign key) and rolls back.
    fn remove(&self, id: i64) -> Result<()> {
        for_task(
            self,
            id,
            &[
                "DELETE FROM tasks_fts WHERE rowid = ?1",
                "DELETE FROM tasks WHERE id = ?1",
            ],
        )
    }
}

/// Runs `sql` with a task's `key` as `?1`, its `fields` as `?2` to `?5` and `now` as `?6`.
fn with_row(
    conn: &Connection,
    sql: &str,
    key: &dyn rusqlite::ToSql,
    fields: &Fields,
    now: Time,
) -> Result<()> {
    conn.prepare_cached(sql)?.execute(params![
        key,
        fields.title,
        fields.status.as_str(),
        fields.priority,
        fields.description,
        now.to_string()
    ])?;
    Ok(())
}

/// Runs each of `statements` on task `id` (`?1`), in order.
fn for_task(conn: &Connection, id: i64, statements: &[&str]) -> Result<()> {
    for sql in statements {
        conn.prepare_cached(sql)?.execute([id])?;
    }
    Ok(())
}
