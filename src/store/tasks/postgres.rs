//! The PostgreSQL backend of [`TaskRows`]: the same statements as SQLite's, in
//! PostgreSQL's words. Names order by bytes (`COLLATE "C"`), as SQLite orders them;
//! search is a tsvector of the task's words (cut as the query is: [`fts::words`]) under a
//! GIN index, matched by a prefix tsquery and ranked by `ts_rank_cd` with SQLite's bm25
//! column weights (name and title 4, tags 2, description 1).

use postgres::types::ToSql;

use super::{Counters, Fields, Filter, Status, Task, TaskRows, condition, dependent_of, task_of};
use crate::error::{Error, Result};
use crate::model::time::Time;
use crate::store::fts::{self, Tier};
use crate::store::postgres::Tx;
use crate::store::row::{limit, size};

/// A whole task, its tags and dependencies gathered in the same statement as JSON arrays,
/// as SQLite gathers them.
const COLUMNS: &str = "t.id, t.slug, t.title, t.status, t.priority, t.description, t.created,
    t.updated,
    (SELECT coalesce(json_agg(tag ORDER BY pos), '[]')::text FROM task_tags WHERE task = t.id),
    (SELECT coalesce(json_agg(d.slug ORDER BY k.pos), '[]')::text
        FROM task_deps k JOIN tasks d ON d.id = k.depends_on WHERE k.task = t.id)";

/// The order of every listing.
const ORDER: &str = "ORDER BY t.priority, t.slug COLLATE \"C\"";

/// Weights of the D, C, B and A labels: description, tags, name and title.
const RANK_WEIGHTS: &str = "'{0.25, 0.5, 1.0, 1.0}'";

/// The parameters `condition` takes.
fn arguments<'a>(filter: &'a Filter<'a>) -> Vec<&'a (dyn ToSql + Sync)> {
    match filter {
        Filter::Tag(tag) => vec![tag],
        _ => Vec::new(),
    }
}

impl Tx<'_> {
    /// Runs `sql` with a task's `key` as `$1`, its `fields` as `$2` to `$5` and `now` as
    /// `$6`.
    fn with_row(
        &self,
        sql: &str,
        key: &(dyn ToSql + Sync),
        fields: &Fields,
        now: Time,
    ) -> Result<Vec<postgres::Row>> {
        self.query(
            sql,
            &[
                key,
                &fields.title,
                &fields.status.as_str(),
                &i16::from(fields.priority),
                &fields.description,
                &now.to_string(),
            ],
        )
    }
}

impl TaskRows for Tx<'_> {
    fn get(&self, slug: &str) -> Result<Option<Task>> {
        let sql = format!("SELECT {COLUMNS} FROM tasks t WHERE t.slug = $1");
        self.query_opt(&sql, &[&slug])?
            .as_ref()
            .map(task_of)
            .transpose()
    }

    fn get_in(&self, filter: Filter<'_>, slug: &str) -> Result<Option<Task>> {
        let mut params = arguments(&filter);
        let sql = format!(
            "SELECT {COLUMNS} FROM tasks t WHERE t.slug = ${} AND {}",
            params.len() + 1,
            condition(filter, "$1")
        );
        params.push(&slug);
        self.query_opt(&sql, &params)?
            .as_ref()
            .map(task_of)
            .transpose()
    }

    fn list(&self, filter: Filter<'_>, limit: Option<usize>) -> Result<Vec<Task>> {
        let limit = limit.map_or("ALL".to_string(), |n| n.to_string());
        let sql = format!(
            "SELECT {COLUMNS} FROM tasks t WHERE {} {ORDER} LIMIT {limit}",
            condition(filter, "$1")
        );
        self.query(&sql, &arguments(&filter))?
            .iter()
            .map(task_of)
            .collect()
    }

    /// From the task's own place in the order on: a listing of thousands reads what it
    /// shows, not all of them.
    fn list_from(&self, filter: Filter<'_>, slug: &str, limit: usize) -> Result<Vec<Task>> {
        let mut values = arguments(&filter);
        let at = format!("${}", values.len() + 1);
        values.push(&slug);
        let sql = format!(
            "SELECT {COLUMNS} FROM tasks t
             WHERE {} AND (t.priority, t.slug COLLATE \"C\")
                 >= (SELECT s.priority, s.slug COLLATE \"C\" FROM tasks s WHERE s.slug = {at})
             {ORDER} LIMIT {limit}",
            condition(filter, "$1")
        );
        let found: Vec<Task> = self
            .query(&sql, &values)?
            .iter()
            .map(task_of)
            .collect::<Result<_>>()?;
        // Not selected by `filter`, the task starts no run of it.
        Ok(match found.first() {
            Some(first) if first.slug == slug => found,
            _ => Vec::new(),
        })
    }

    fn slugs(&self, filter: Filter<'_>) -> Result<Vec<String>> {
        let sql = format!(
            "SELECT t.slug FROM tasks t WHERE {} {ORDER}",
            condition(filter, "$1")
        );
        let rows = self.query(&sql, &arguments(&filter))?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }

    fn count(&self, filter: Filter<'_>) -> Result<usize> {
        let sql = format!(
            "SELECT count(*) FROM tasks t WHERE {}",
            condition(filter, "$1")
        );
        Ok(size(self.query_one(&sql, &arguments(&filter))?.get(0)))
    }

    fn counters(&self) -> Result<Vec<(String, i64)>> {
        let rows = self.query("SELECT name, n::bigint FROM task_counts", &[])?;
        Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
    }

    /// One statement: the tasks' columns, then the counters' names and values as arrays
    /// on every row (one row of no task where the filter selects none).
    fn counters_and_list(&self, filter: Filter<'_>, limit: usize) -> Result<(Counters, Vec<Task>)> {
        let sql = format!(
            "SELECT t.*, c.names, c.ns
             FROM (SELECT array_agg(name) AS names, array_agg(n::bigint) AS ns FROM task_counts) c
             LEFT JOIN LATERAL (SELECT {COLUMNS} FROM tasks t WHERE {} {ORDER} LIMIT {limit}) t
             ON true",
            condition(filter, "$1")
        );
        let rows = self.query(&sql, &arguments(&filter))?;
        let Some(first) = rows.first() else {
            return Err(Error::internal("the task counters' row is missing"));
        };
        // Arrays of no counter are NULL; any other failure to read them is an error.
        let counters = |e: postgres::Error| Error::internal(format!("the task counters: {e}"));
        let names: Vec<String> = first
            .try_get::<_, Option<Vec<String>>>(10)
            .map_err(counters)?
            .unwrap_or_default();
        let values: Vec<i64> = first
            .try_get::<_, Option<Vec<i64>>>(11)
            .map_err(counters)?
            .unwrap_or_default();
        let tasks = rows
            .iter()
            .filter(|r| matches!(r.try_get::<_, Option<i64>>(0), Ok(Some(_))))
            .map(task_of)
            .collect::<Result<_>>()?;
        Ok((names.into_iter().zip(values).collect(), tasks))
    }

    fn tags(&self) -> Result<Vec<(String, usize)>> {
        let rows = self.query(
            "SELECT tag, count(*) FROM task_tags GROUP BY tag ORDER BY tag COLLATE \"C\"",
            &[],
        )?;
        Ok(rows.iter().map(|r| (r.get(0), size(r.get(1)))).collect())
    }

    fn existing<'n>(&self, names: &[&'n str]) -> Result<Vec<&'n str>> {
        let rows = self.query("SELECT slug FROM tasks WHERE slug = ANY($1)", &[&names])?;
        let found: std::collections::HashSet<String> = rows.iter().map(|r| r.get(0)).collect();
        Ok(names
            .iter()
            .copied()
            .filter(|n| found.contains(*n))
            .collect())
    }

    fn names(&self) -> Result<Vec<String>> {
        let rows = self.query("SELECT slug FROM tasks ORDER BY slug COLLATE \"C\"", &[])?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }

    fn dependencies_from(&self, starts: &[&str]) -> Result<Vec<(String, String)>> {
        let rows = self.query(
            "WITH RECURSIVE reach (id) AS (
                 SELECT id FROM tasks WHERE slug = ANY($1)
                 UNION
                 SELECT k.depends_on FROM task_deps k JOIN reach r ON k.task = r.id)
             SELECT t.slug, d.slug FROM reach r
             JOIN task_deps k ON k.task = r.id
             JOIN tasks t ON t.id = k.task JOIN tasks d ON d.id = k.depends_on
             ORDER BY t.slug COLLATE \"C\", k.pos",
            &[&starts],
        )?;
        Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
    }

    fn dependents(&self, id: i64) -> Result<Vec<(String, Status)>> {
        let rows = self.query(
            "SELECT t.slug, t.status FROM tasks t
             WHERE t.id IN (SELECT task FROM task_deps WHERE depends_on = $1)
             ORDER BY t.slug COLLATE \"C\"",
            &[&id],
        )?;
        rows.iter().map(dependent_of).collect()
    }

    fn matching(&self, query: &str, tier: Tier, n: usize) -> Result<(Vec<Task>, usize)> {
        let Some(terms) = fts::prefix_query(query, tier) else {
            return Ok((Vec::new(), 0));
        };
        let total: i64 = self
            .query_one(
                "SELECT count(*) FROM tasks WHERE words @@ to_tsquery('simple', $1)",
                &[&terms],
            )?
            .get(0);
        let sql = format!(
            "SELECT {COLUMNS} FROM tasks t, to_tsquery('simple', $1) q
             WHERE t.words @@ q
             ORDER BY ts_rank_cd({RANK_WEIGHTS}, t.words, q) DESC, t.priority,
                      t.slug COLLATE \"C\"
             LIMIT $2"
        );
        let rows = self.query(&sql, &[&terms, &limit(n)])?;
        let hits = rows.iter().map(task_of).collect::<Result<_>>()?;
        Ok((hits, size(total)))
    }

    fn insert_row(&self, slug: &str, fields: &Fields, now: Time) -> Result<i64> {
        let rows = self.with_row(
            "INSERT INTO tasks (slug, title, status, priority, description, created, updated)
             VALUES ($1, $2, $3, $4, $5, $6, $6) RETURNING id",
            &slug,
            fields,
            now,
        )?;
        let id = rows.first().map(|row| row.get(0));
        id.ok_or_else(|| Error::internal(format!("task {slug:?} was not numbered")))
    }

    fn update_row(&self, id: i64, fields: &Fields, now: Time) -> Result<()> {
        self.with_row(
            "UPDATE tasks SET title = $2, status = $3, priority = $4, description = $5,
                              updated = $6
             WHERE id = $1",
            &id,
            fields,
            now,
        )?;
        Ok(())
    }

    fn clear_lists(&self, id: i64) -> Result<()> {
        self.execute("DELETE FROM task_tags WHERE task = $1", &[&id])?;
        self.execute("DELETE FROM task_deps WHERE task = $1", &[&id])?;
        Ok(())
    }

    fn add_tag(&self, id: i64, pos: i32, tag: &str) -> Result<()> {
        self.execute(
            "INSERT INTO task_tags (task, pos, tag) VALUES ($1, $2, $3)",
            &[&id, &pos, &tag],
        )?;
        Ok(())
    }

    fn add_dependency(&self, id: i64, pos: i32, name: &str) -> Result<bool> {
        let added = self.execute(
            "INSERT INTO task_deps (task, pos, depends_on)
             SELECT $1, $2, id FROM tasks WHERE slug = $3",
            &[&id, &pos, &name],
        )?;
        Ok(added == 1)
    }

    /// The words are cut here as a query's are, and weighed by column.
    fn index(&self, id: i64, slug: &str, fields: &Fields) -> Result<()> {
        self.execute(
            "UPDATE tasks SET words =
                 setweight(to_tsvector('simple', $2), 'A')
                 || setweight(to_tsvector('simple', $3), 'A')
                 || setweight(to_tsvector('simple', $4), 'D')
                 || setweight(to_tsvector('simple', $5), 'C')
             WHERE id = $1",
            &[
                &id,
                &fts::word_text(slug),
                &fts::word_text(&fields.title),
                &fts::word_text(&fields.description),
                &fts::word_text(&fields.tags.join(" ")),
            ],
        )?;
        Ok(())
    }

    fn slug_of(&self, id: i64) -> Result<String> {
        Ok(self
            .query_one("SELECT slug FROM tasks WHERE id = $1", &[&id])?
            .get(0))
    }

    fn set_name(&self, id: i64, slug: &str, status: Status, now: Time) -> Result<()> {
        let now = now.to_string();
        self.execute(
            "UPDATE tasks SET slug = $2, status = $3, updated = $4 WHERE id = $1",
            &[&id, &slug, &status.as_str(), &now],
        )?;
        Ok(())
    }

    fn touch_dependents(&self, id: i64, now: Time) -> Result<()> {
        let now = now.to_string();
        self.execute(
            "UPDATE tasks SET updated = $2
             WHERE id IN (SELECT task FROM task_deps WHERE depends_on = $1)",
            &[&id, &now],
        )?;
        Ok(())
    }

    /// The name is one of the task's weighed words: the task is indexed again as it stands.
    fn index_name(&self, id: i64, slug: &str) -> Result<()> {
        let task = self.query_one(
            &format!("SELECT {COLUMNS} FROM tasks t WHERE t.id = $1"),
            &[&id],
        )?;
        let task = task_of(&task)?;
        self.index(id, slug, &task.fields)
    }

    /// The words go with the row.
    fn remove(&self, id: i64) -> Result<()> {
        self.execute("DELETE FROM tasks WHERE id = $1", &[&id])?;
        Ok(())
    }
}
