//! Changes to tasks. Each keeps the task's tags, dependencies and full-text index row in
//! step with the task, inside the caller's transaction ([`crate::store::Store::write`]), so
//! a failure anywhere leaves all of them as they were. The counters and `waiting` follow by
//! the triggers of `schema.sql`.

use rusqlite::{Connection, params};

use super::{Fields, Status};
use crate::error::{Error, Result};

/// Creates task `slug`; every name in `fields.depends_on` must exist. Returns its id.
pub fn insert(conn: &Connection, slug: &str, fields: &Fields, now: &str) -> Result<i64> {
    conn.prepare_cached(
        "INSERT INTO tasks (slug, title, status, priority, description, created, updated)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6)",
    )?
    .execute(params![
        slug,
        fields.title,
        fields.status.as_str(),
        fields.priority,
        fields.description,
        now
    ])?;
    let id = conn.last_insert_rowid();
    put_lists(conn, id, fields)?;
    put_index(conn, id, slug, fields)?;
    Ok(id)
}

/// Replaces the fields of task `id` and sets its `updated` time.
pub fn update(conn: &Connection, id: i64, slug: &str, fields: &Fields, now: &str) -> Result<()> {
    conn.prepare_cached(
        "UPDATE tasks SET title = ?2, status = ?3, priority = ?4, description = ?5, updated = ?6
         WHERE id = ?1",
    )?
    .execute(params![
        id,
        fields.title,
        fields.status.as_str(),
        fields.priority,
        fields.description,
        now
    ])?;
    conn.prepare_cached("DELETE FROM task_tags WHERE task = ?1")?
        .execute([id])?;
    conn.prepare_cached("DELETE FROM task_deps WHERE task = ?1")?
        .execute([id])?;
    put_lists(conn, id, fields)?;
    put_index(conn, id, slug, fields)
}

/// Gives task `id` a new name and status. The tasks that depend on it show the new name
/// in their `depends_on`, so their `updated` time moves too.
pub fn rename(conn: &Connection, id: i64, slug: &str, status: Status, now: &str) -> Result<()> {
    let old: String = conn
        .prepare_cached("SELECT slug FROM tasks WHERE id = ?1")?
        .query_row([id], |r| r.get(0))?;
    conn.prepare_cached("UPDATE tasks SET slug = ?2, status = ?3, updated = ?4 WHERE id = ?1")?
        .execute(params![id, slug, status.as_str(), now])?;
    if old != slug {
        conn.prepare_cached(
            "UPDATE tasks SET updated = ?2
             WHERE id IN (SELECT task FROM task_deps WHERE depends_on = ?1)",
        )?
        .execute(params![id, now])?;
        conn.prepare_cached("UPDATE tasks_fts SET name = ?2 WHERE rowid = ?1")?
            .execute(params![id, slug])?;
    }
    Ok(())
}

/// Deletes task `id`. Fails (foreign key) while other tasks depend on it; callers check
/// [`super::dependents`] first to say which.
pub fn delete(conn: &Connection, id: i64) -> Result<()> {
    conn.prepare_cached("DELETE FROM tasks_fts WHERE rowid = ?1")?
        .execute([id])?;
    conn.prepare_cached("DELETE FROM tasks WHERE id = ?1")?
        .execute([id])?;
    Ok(())
}

fn put_lists(conn: &Connection, id: i64, fields: &Fields) -> Result<()> {
    let mut tag =
        conn.prepare_cached("INSERT INTO task_tags (task, pos, tag) VALUES (?1, ?2, ?3)")?;
    for (pos, name) in (0i64..).zip(&fields.tags) {
        tag.execute(params![id, pos, name])?;
    }
    let mut dep = conn.prepare_cached(
        "INSERT INTO task_deps (task, pos, depends_on) SELECT ?1, ?2, id FROM tasks WHERE slug = ?3",
    )?;
    for (pos, name) in (0i64..).zip(&fields.depends_on) {
        if dep.execute(params![id, pos, name])? != 1 {
            return Err(Error::internal(format!(
                "task dependency {name:?} vanished during the write"
            )));
        }
    }
    Ok(())
}

fn put_index(conn: &Connection, id: i64, slug: &str, fields: &Fields) -> Result<()> {
    conn.prepare_cached("DELETE FROM tasks_fts WHERE rowid = ?1")?
        .execute([id])?;
    conn.prepare_cached(
        "INSERT INTO tasks_fts (rowid, name, title, description, tags) VALUES (?1, ?2, ?3, ?4, ?5)",
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
