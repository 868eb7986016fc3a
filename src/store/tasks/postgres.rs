//! The PostgreSQL backend of [`TaskRecords`]: the same statements as SQLite's, in
//! PostgreSQL's words. Names order by bytes (`COLLATE "C"`), as SQLite orders them;
//! search is a tsvector of the task's words (cut as the query is: [`fts::words`]) under a
//! GIN index, matched by a prefix tsquery and ranked by `ts_rank_cd` with SQLite's bm25
//! column weights (name and title 4, tags 2, description 1).

use postgres::Row;
use postgres::types::ToSql;

use super::{Counts, Fields, Filter, Status, Task, TaskRecords};
use crate::error::{Error, Result};
use crate::store::fts::{self, Tier};
use crate::store::pg::Tx;

/// A whole task, its tags and dependencies gathered in the same statement.
const COLUMNS: &str = "t.id, t.slug, t.title, t.status, t.priority, t.description, t.created,
    t.updated,
    ARRAY(SELECT tag FROM task_tags WHERE task = t.id ORDER BY pos),
    ARRAY(SELECT d.slug FROM task_deps k JOIN tasks d ON d.id = k.depends_on
          WHERE k.task = t.id ORDER BY k.pos)";

/// The order of every listing.
const ORDER: &str = "ORDER BY t.priority, t.slug COLLATE \"C\"";

/// Weights of the D, C, B and A labels: description, tags, name and title.
const RANK_WEIGHTS: &str = "'{0.25, 0.5, 1.0, 1.0}'";

/// `filter` as a condition on `t`; a tag is parameter `$n`.
fn condition(filter: Filter<'_>, n: usize) -> String {
    match filter {
        Filter::Status(status) => format!("t.status = '{}'", status.as_str()),
        Filter::Outstanding => "t.status IN ('open', 'in_progress', 'blocked')".into(),
        Filter::Ready => "t.status = 'open' AND t.waiting = 0".into(),
        Filter::Tag(_) => format!("t.id IN (SELECT task FROM task_tags WHERE tag = ${n})"),
    }
}

/// The parameters `condition` takes.
fn arguments<'a>(filter: &'a Filter<'a>) -> Vec<&'a (dyn ToSql + Sync)> {
    match filter {
        Filter::Tag(tag) => vec![tag],
        _ => Vec::new(),
    }
}

fn task_from_row(row: &Row) -> Result<Task> {
    let status: String = row.get(3);
    let priority: i16 = row.get(4);
    Ok(Task {
        id: row.get(0),
        slug: row.get(1),
        fields: Fields {
            title: row.get(2),
            status: Status::parse(&status)
                .ok_or_else(|| Error::internal(format!("task status {status:?} is not valid")))?,
            priority: u8::try_from(priority)
                .map_err(|_| Error::internal(format!("task priority {priority} is not valid")))?,
            tags: row.get(8),
            depends_on: row.get(9),
            description: row.get(5),
        },
        created: row.get(6),
        updated: row.get(7),
    })
}

fn tasks_from(rows: Vec<Row>) -> Result<Vec<Task>> {
    rows.iter().map(task_from_row).collect()
}

fn size(n: i64) -> usize {
    usize::try_from(n).unwrap_or(0)
}

impl Tx<'_> {
    /// Store task `id`'s tags and dependencies, in the writer's order.
    fn put_lists(&self, id: i64, fields: &Fields) -> Result<()> {
        for (pos, tag) in (0i32..).zip(&fields.tags) {
            self.execute(
                "INSERT INTO task_tags (task, pos, tag) VALUES ($1, $2, $3)",
                &[&id, &pos, tag],
            )?;
        }
        for (pos, name) in (0i32..).zip(&fields.depends_on) {
            let added = self.execute(
                "INSERT INTO task_deps (task, pos, depends_on)
                 SELECT $1, $2, id FROM tasks WHERE slug = $3",
                &[&id, &pos, name],
            )?;
            if added != 1 {
                return Err(Error::internal(format!(
                    "task dependency {name:?} vanished during the write"
                )));
            }
        }
        Ok(())
    }

    /// Index task `id`'s words as it stands now.
    fn put_words(&self, id: i64) -> Result<()> {
        let row = self.query_one(
            "SELECT slug, title, description,
                    array_to_string(ARRAY(SELECT tag FROM task_tags WHERE task = $1), ' ')
             FROM tasks WHERE id = $1",
            &[&id],
        )?;
        let text = |i: usize| fts::word_text(&row.get::<_, String>(i));
        self.execute(
            "UPDATE tasks SET words =
                 setweight(to_tsvector('simple', $2), 'A')
                 || setweight(to_tsvector('simple', $3), 'A')
                 || setweight(to_tsvector('simple', $4), 'D')
                 || setweight(to_tsvector('simple', $5), 'C')
             WHERE id = $1",
            &[&id, &text(0), &text(1), &text(2), &text(3)],
        )?;
        Ok(())
    }
}

impl TaskRecords for Tx<'_> {
    fn get(&self, slug: &str) -> Result<Option<Task>> {
        let sql = format!("SELECT {COLUMNS} FROM tasks t WHERE t.slug = $1");
        self.query_opt(&sql, &[&slug])?
            .as_ref()
            .map(task_from_row)
            .transpose()
    }

    fn get_in(&self, filter: Filter<'_>, slug: &str) -> Result<Option<Task>> {
        let mut params = arguments(&filter);
        let sql = format!(
            "SELECT {COLUMNS} FROM tasks t WHERE t.slug = ${} AND {}",
            params.len() + 1,
            condition(filter, 1)
        );
        params.push(&slug);
        self.query_opt(&sql, &params)?
            .as_ref()
            .map(task_from_row)
            .transpose()
    }

    fn list(&self, filter: Filter<'_>, limit: Option<usize>) -> Result<Vec<Task>> {
        let limit = limit.map_or("ALL".to_string(), |n| n.to_string());
        let sql = format!(
            "SELECT {COLUMNS} FROM tasks t WHERE {} {ORDER} LIMIT {limit}",
            condition(filter, 1)
        );
        tasks_from(self.query(&sql, &arguments(&filter))?)
    }

    fn slugs(&self, filter: Filter<'_>) -> Result<Vec<String>> {
        let sql = format!(
            "SELECT t.slug FROM tasks t WHERE {} {ORDER}",
            condition(filter, 1)
        );
        let rows = self.query(&sql, &arguments(&filter))?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }

    fn count(&self, filter: Filter<'_>) -> Result<usize> {
        let sql = format!(
            "SELECT count(*) FROM tasks t WHERE {}",
            condition(filter, 1)
        );
        Ok(size(self.query_one(&sql, &arguments(&filter))?.get(0)))
    }

    fn counts(&self) -> Result<Counts> {
        let mut counts = Counts::default();
        for row in self.query("SELECT name, n FROM task_counts", &[])? {
            let name: String = row.get(0);
            let n = size(i64::from(row.get::<_, i32>(1)));
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
        Ok(rows
            .iter()
            .map(|r| {
                let status: String = r.get(1);
                (r.get(0), Status::parse(&status).unwrap_or(Status::Open))
            })
            .collect())
    }

    fn matching(&self, query: &str, tier: Tier, limit: usize) -> Result<(Vec<Task>, usize)> {
        let Some(terms) = fts::prefix_query(query, tier) else {
            return Ok((Vec::new(), 0));
        };
        let total: i64 = self
            .query_one(
                "SELECT count(*) FROM tasks WHERE words @@ to_tsquery('simple', $1)",
                &[&terms],
            )?
            .get(0);
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let sql = format!(
            "SELECT {COLUMNS} FROM tasks t, to_tsquery('simple', $1) q
             WHERE t.words @@ q
             ORDER BY ts_rank_cd({RANK_WEIGHTS}, t.words, q) DESC, t.priority,
                      t.slug COLLATE \"C\"
             LIMIT $2"
        );
        let hits = tasks_from(self.query(&sql, &[&terms, &limit])?)?;
        Ok((hits, size(total)))
    }

    fn insert(&self, slug: &str, fields: &Fields, now: &str) -> Result<i64> {
        let id: i64 = self
            .query_one(
                "INSERT INTO tasks (slug, title, status, priority, description, created, updated)
                 VALUES ($1, $2, $3, $4, $5, $6, $6) RETURNING id",
                &[
                    &slug,
                    &fields.title,
                    &fields.status.as_str(),
                    &i16::from(fields.priority),
                    &fields.description,
                    &now,
                ],
            )?
            .get(0);
        self.put_lists(id, fields)?;
        self.put_words(id)?;
        Ok(id)
    }

    fn update(&self, id: i64, _slug: &str, fields: &Fields, now: &str) -> Result<()> {
        self.execute(
            "UPDATE tasks SET title = $2, status = $3, priority = $4, description = $5,
                              updated = $6
             WHERE id = $1",
            &[
                &id,
                &fields.title,
                &fields.status.as_str(),
                &i16::from(fields.priority),
                &fields.description,
                &now,
            ],
        )?;
        self.execute("DELETE FROM task_tags WHERE task = $1", &[&id])?;
        self.execute("DELETE FROM task_deps WHERE task = $1", &[&id])?;
        self.put_lists(id, fields)?;
        self.put_words(id)
    }

    fn rename(&self, id: i64, slug: &str, status: Status, now: &str) -> Result<()> {
        let old: String = self
            .query_one("SELECT slug FROM tasks WHERE id = $1", &[&id])?
            .get(0);
        self.execute(
            "UPDATE tasks SET slug = $2, status = $3, updated = $4 WHERE id = $1",
            &[&id, &slug, &status.as_str(), &now],
        )?;
        if old != slug {
            self.execute(
                "UPDATE tasks SET updated = $2
                 WHERE id IN (SELECT task FROM task_deps WHERE depends_on = $1)",
                &[&id, &now],
            )?;
            self.put_words(id)?;
        }
        Ok(())
    }

    fn delete(&self, id: i64) -> Result<()> {
        self.execute("DELETE FROM tasks WHERE id = $1", &[&id])?;
        Ok(())
    }
}
