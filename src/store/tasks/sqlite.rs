//! The SQLite backend of [`TaskRecords`]: each read one SQL statement, ordered and
//! `LIMIT`ed by SQLite over an index; the changes in `write.rs`; counters and `waiting`
//! kept by the triggers of `schema.sql`; search by the FTS5 table `tasks_fts`.

use rusqlite::{Connection, OptionalExtension, params};

use super::{Counts, Fields, Filter, Status, Task, TaskRecords, write};
use crate::error::{Error, Result};
use crate::store::fts::{self, Tier};

impl<'a> Filter<'a> {
    fn condition(self) -> &'static str {
        match self {
            // Literal, not bound: with SQLite's STAT4 a bound value in an indexed WHERE makes
            // the statement re-prepare on every run (20-60 µs per view query here).
            Filter::Status(Status::Open) => "t.status = 'open'",
            Filter::Status(Status::InProgress) => "t.status = 'in_progress'",
            Filter::Status(Status::Blocked) => "t.status = 'blocked'",
            Filter::Status(Status::Done) => "t.status = 'done'",
            Filter::Outstanding => "t.status IN ('open', 'in_progress', 'blocked')",
            Filter::Ready => "t.status = 'open' AND t.waiting = 0",
            Filter::Tag(_) => "t.id IN (SELECT task FROM task_tags WHERE tag = ?1)",
        }
    }

    /// The value of `?1`, for the filters that have one.
    fn argument(self) -> Option<&'a str> {
        match self {
            Filter::Tag(tag) => Some(tag),
            Filter::Status(_) | Filter::Outstanding | Filter::Ready => None,
        }
    }
}

/// The columns of a whole task, with its tags and dependencies gathered by SQLite (one
/// statement for a whole listing, not one query per task).
const COLUMNS: &str = "t.id, t.slug, t.title, t.status, t.priority, t.description, t.created,
    t.updated,
    (SELECT json_group_array(tag ORDER BY pos) FROM task_tags WHERE task = t.id),
    (SELECT json_group_array(d.slug ORDER BY k.pos)
        FROM task_deps k JOIN tasks d ON d.id = k.depends_on WHERE k.task = t.id)";

fn task_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<Task> {
    let status: String = row.get(3)?;
    let tags: String = row.get(8)?;
    let depends_on: String = row.get(9)?;
    Ok(Task {
        id: row.get(0)?,
        slug: row.get(1)?,
        fields: Fields {
            title: row.get(2)?,
            status: Status::parse(&status).ok_or_else(|| corrupt(3, "status", &status))?,
            priority: row.get(4)?,
            tags: serde_json::from_str(&tags).map_err(|_| corrupt(8, "tags", &tags))?,
            depends_on: serde_json::from_str(&depends_on)
                .map_err(|_| corrupt(9, "depends_on", &depends_on))?,
            description: row.get(5)?,
        },
        created: row.get(6)?,
        updated: row.get(7)?,
    })
}

/// A stored value the schema should have made impossible; reported, never papered over.
fn corrupt(column: usize, name: &str, value: &str) -> rusqlite::Error {
    rusqlite::Error::FromSqlConversionFailure(
        column,
        rusqlite::types::Type::Text,
        format!("task {name} {value:?} is not valid").into(),
    )
}

/// The first `?2` (replaced by the limit) outstanding tasks, taken from each status's index in order (where
/// `status IN (...)` would sort every outstanding task to keep ten).
const FIRST_OUTSTANDING: &str = "t.id IN (
    SELECT id FROM (SELECT id FROM tasks WHERE status = 'open' ORDER BY priority, slug LIMIT ?2)
    UNION ALL SELECT id FROM (
        SELECT id FROM tasks WHERE status = 'in_progress' ORDER BY priority, slug LIMIT ?2)
    UNION ALL SELECT id FROM (
        SELECT id FROM tasks WHERE status = 'blocked' ORDER BY priority, slug LIMIT ?2))";

impl TaskRecords for Connection {
    /// The task named `slug`.
    fn get(&self, slug: &str) -> Result<Option<Task>> {
        let sql = format!("SELECT {COLUMNS} FROM tasks t WHERE t.slug = ?1");
        Ok(self
            .prepare_cached(&sql)?
            .query_row([slug], task_from_row)
            .optional()?)
    }

    /// The task named `slug` if `filter` selects it (is it in `ready/`, in `tags/ui/`?).
    fn get_in(&self, filter: Filter<'_>, slug: &str) -> Result<Option<Task>> {
        // `?1` may be absent from the condition; SQLite leaves an unused number unbound.
        let sql = format!(
            "SELECT {COLUMNS} FROM tasks t WHERE t.slug = ?2 AND {}",
            filter.condition()
        );
        Ok(self
            .prepare_cached(&sql)?
            .query_row(params![filter.argument(), slug], task_from_row)
            .optional()?)
    }

    /// The tasks `filter` selects, by priority then name; at most `limit` of them.
    fn list(&self, filter: Filter<'_>, limit: Option<usize>) -> Result<Vec<Task>> {
        // The limit is written into the statement, not bound: with SQLite's STAT4 a bound limit
        // re-prepares the statement on every run. Limits come from our own code (a few values),
        // so the statement cache holds them all.
        let limit = limit.map_or(-1, |n| i64::try_from(n).unwrap_or(i64::MAX));
        let condition = match filter {
            Filter::Outstanding => FIRST_OUTSTANDING.replace("?2", &limit.to_string()),
            other => other.condition().to_string(),
        };
        let sql = format!(
            "SELECT {COLUMNS} FROM tasks t WHERE {condition} ORDER BY t.priority, t.slug LIMIT {limit}"
        );
        let mut statement = self.prepare_cached(&sql)?;
        let rows = if statement.parameter_count() == 0 {
            statement
                .query_map([], task_from_row)?
                .collect::<rusqlite::Result<_>>()?
        } else {
            statement
                .query_map(params![filter.argument()], task_from_row)?
                .collect::<rusqlite::Result<_>>()?
        };
        Ok(rows)
    }

    /// The names of the tasks `filter` selects, by priority then name (for `ls`).
    fn slugs(&self, filter: Filter<'_>) -> Result<Vec<String>> {
        let condition = match filter {
            Filter::Outstanding => FIRST_OUTSTANDING.replace("?2", "-1"),
            other => other.condition().to_string(),
        };
        let sql =
            format!("SELECT t.slug FROM tasks t WHERE {condition} ORDER BY t.priority, t.slug");
        let mut statement = self.prepare_cached(&sql)?;
        let rows = if statement.parameter_count() == 0 {
            statement
                .query_map([], |r| r.get(0))?
                .collect::<rusqlite::Result<_>>()?
        } else {
            statement
                .query_map(params![filter.argument()], |r| r.get(0))?
                .collect::<rusqlite::Result<_>>()?
        };
        Ok(rows)
    }

    /// How many tasks `filter` selects.
    fn count(&self, filter: Filter<'_>) -> Result<usize> {
        let sql = format!("SELECT count(*) FROM tasks t WHERE {}", filter.condition());
        let mut statement = self.prepare_cached(&sql)?;
        let n: i64 = if statement.parameter_count() == 0 {
            statement.query_row([], |r| r.get(0))?
        } else {
            statement.query_row(params![filter.argument()], |r| r.get(0))?
        };
        Ok(usize::try_from(n).unwrap_or(0))
    }

    /// Tasks per status and the number ready, in two indexed queries.
    fn counts(&self) -> Result<Counts> {
        let mut counts = Counts::default();
        let mut statement = self.prepare_cached("SELECT name, n FROM task_counts")?;
        let rows =
            statement.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))?;
        for row in rows {
            let (name, n) = row?;
            let n = usize::try_from(n).unwrap_or(0);
            match name.as_str() {
                "open" => counts.open = n,
                "in_progress" => counts.in_progress = n,
                "blocked" => counts.blocked = n,
                "done" => counts.done = n,
                "ready" => counts.ready = n,
                _ => {}
            }
        }
        Ok(counts)
    }

    /// Every tag in use with its number of tasks, by name.
    fn tags(&self) -> Result<Vec<(String, usize)>> {
        let mut statement =
            self.prepare_cached("SELECT tag, count(*) FROM task_tags GROUP BY tag ORDER BY tag")?;
        let rows =
            statement.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))?;
        rows.map(|row| {
            let (tag, n) = row?;
            Ok((tag, usize::try_from(n).unwrap_or(0)))
        })
        .collect()
    }

    /// Which of `names` are tasks (a set, in any order).
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

    /// Every task's name; only for "did you mean" after a failed lookup.
    fn names(&self) -> Result<Vec<String>> {
        let mut statement = self.prepare_cached("SELECT slug FROM tasks ORDER BY slug")?;
        let rows = statement.query_map([], |r| r.get(0))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The dependencies, as (task, depends on) names, of `starts` and of every task they lead
    /// to through `depends_on` — all that a cycle through them could use, and no more.
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
        let rows = statement.query_map([starts], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The names and statuses of the tasks that depend on task `id`.
    fn dependents(&self, id: i64) -> Result<Vec<(String, Status)>> {
        let mut statement = self.prepare_cached(
            "SELECT DISTINCT t.slug, t.status FROM task_deps k JOIN tasks t ON t.id = k.task
             WHERE k.depends_on = ?1 ORDER BY t.slug",
        )?;
        let rows = statement.query_map([id], |r| {
            let status: String = r.get(1)?;
            Ok((r.get(0)?, Status::parse(&status).unwrap_or(Status::Open)))
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The tasks matching `query` as `tier` says, best first (bm25; a title or name match
    /// outweighs one in the description), at most `limit`, and how many match in all.
    ///
    /// The query is never passed to FTS5 as syntax: it is cut into words (letters and digits)
    /// and quoted phrases, each quoted as a prefix term, so `*`, `NEAR`, `(`, `-` are just
    /// text. A query without words matches nothing.
    fn matching(&self, query: &str, tier: Tier, limit: usize) -> Result<(Vec<Task>, usize)> {
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
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let hits = self
            .prepare_cached(&sql)?
            .query_map(params![expression, limit], task_from_row)?
            .collect::<rusqlite::Result<_>>()?;
        Ok((hits, usize::try_from(total).unwrap_or(0)))
    }

    fn insert(&self, slug: &str, fields: &Fields, now: &str) -> Result<i64> {
        write::insert(self, slug, fields, now)
    }

    fn update(&self, id: i64, slug: &str, fields: &Fields, now: &str) -> Result<()> {
        write::update(self, id, slug, fields, now)
    }

    fn rename(&self, id: i64, slug: &str, status: Status, now: &str) -> Result<()> {
        write::rename(self, id, slug, status, now)
    }

    fn delete(&self, id: i64) -> Result<()> {
        write::delete(self, id)
    }
}
