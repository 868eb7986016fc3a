//! Tasks in the store: what a task is ([`Task`], [`Fields`], [`Status`]), which tasks a
//! view shows ([`Filter`]), and [`TaskRecords`], the one interface through which every
//! backend reads and changes them (SQLite: `sqlite.rs`). Every change keeps the
//! full-text index and the counters in step inside the caller's transaction, so neither
//! drifts from the tasks. Dependencies are stored by task id, so renaming a task renames it
//! in every `depends_on` at once, and a task others depend on cannot be deleted.
//!
//! Validation is not done here: callers pass fields already checked by
//! `resources::tasks::validate`.

mod postgres;
mod sqlite;
mod write;

use crate::error::Result;
pub use crate::store::fts::Tier;

/// Migration 1: tasks, their tags and dependencies, counters, and the full-text index.
pub(crate) const SCHEMA: &str = include_str!("schema.sql");
/// The same migration for PostgreSQL.
pub(crate) const PG_SCHEMA: &str = include_str!("schema.pg.sql");

/// Where a task lives; its directory under `tasks/`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Status {
    Open,
    InProgress,
    Blocked,
    Done,
}

impl Status {
    pub const ALL: [Status; 4] = [
        Status::Open,
        Status::InProgress,
        Status::Blocked,
        Status::Done,
    ];

    /// The name in JSON, in the store and of the directory.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Open => "open",
            Status::InProgress => "in_progress",
            Status::Blocked => "blocked",
            Status::Done => "done",
        }
    }

    /// For prose: `in progress`.
    pub fn label(self) -> &'static str {
        match self {
            Status::InProgress => "in progress",
            other => other.as_str(),
        }
    }

    pub fn parse(name: &str) -> Option<Status> {
        Status::ALL.into_iter().find(|s| s.as_str() == name)
    }
}

/// What a writer of a task file decides; everything but the managed `id`, `created`,
/// `updated`. Two equal `Fields` mean an update changes nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fields {
    pub title: String,
    pub status: Status,
    pub priority: u8,
    pub tags: Vec<String>,
    /// Names (slugs) of the tasks this one waits for, in the writer's order.
    pub depends_on: Vec<String>,
    pub description: String,
}

/// A stored task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Task {
    pub id: i64,
    /// The task's name: its file is `<slug>.json`.
    pub slug: String,
    pub fields: Fields,
    /// RFC 3339 UTC times, set by the store.
    pub created: String,
    pub updated: String,
}

/// Which tasks a view shows. Every filter orders by priority (0 first), then name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Filter<'a> {
    Status(Status),
    /// Not done: open, in progress or blocked.
    Outstanding,
    /// Open, and every dependency done.
    Ready,
    Tag(&'a str),
}

/// Tasks per status, and how many are ready.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub open: usize,
    pub in_progress: usize,
    pub blocked: usize,
    pub done: usize,
    pub ready: usize,
}

impl Counts {
    pub fn of(&self, status: Status) -> usize {
        match status {
            Status::Open => self.open,
            Status::InProgress => self.in_progress,
            Status::Blocked => self.blocked,
            Status::Done => self.done,
        }
    }
    pub fn outstanding(&self) -> usize {
        self.open + self.in_progress + self.blocked
    }
    pub fn total(&self) -> usize {
        self.outstanding() + self.done
    }
}

/// The tasks of a store, whichever backend holds them. Reads never change anything; the
/// changes run inside the store's write transaction (see [`crate::store::Store::write`]).
pub trait TaskRecords {
    /// The task named `slug`.
    fn get(&self, slug: &str) -> Result<Option<Task>>;
    /// The task named `slug` if `filter` selects it (is it in `ready/`, in `tags/ui/`?).
    fn get_in(&self, filter: Filter<'_>, slug: &str) -> Result<Option<Task>>;
    /// The tasks `filter` selects, by priority then name; at most `limit` of them.
    fn list(&self, filter: Filter<'_>, limit: Option<usize>) -> Result<Vec<Task>>;
    /// The names of the tasks `filter` selects, by priority then name (for `ls`).
    fn slugs(&self, filter: Filter<'_>) -> Result<Vec<String>>;
    /// How many tasks `filter` selects.
    fn count(&self, filter: Filter<'_>) -> Result<usize>;
    /// Tasks per status and the number ready, read from counters kept with the rows.
    fn counts(&self) -> Result<Counts>;
    /// Every tag in use with its number of tasks, by name.
    fn tags(&self) -> Result<Vec<(String, usize)>>;
    /// Which of `names` are tasks (a set, in any order).
    fn existing<'n>(&self, names: &[&'n str]) -> Result<Vec<&'n str>>;
    /// Every task's name; only for "did you mean" after a failed lookup.
    fn names(&self) -> Result<Vec<String>>;
    /// The dependencies, as (task, depends on) names, of `starts` and of every task they
    /// lead to through `depends_on` — all that a cycle through them could use, and no more.
    fn dependencies_from(&self, starts: &[&str]) -> Result<Vec<(String, String)>>;
    /// The names and statuses of the tasks that depend on task `id`.
    fn dependents(&self, id: i64) -> Result<Vec<(String, Status)>>;
    /// The tasks matching `query` as `tier` says, best first (a title or name match
    /// outweighs one in the description), at most `limit`, and how many match in all. The
    /// query is words and quoted phrases, never syntax: no query fails, and one without words
    /// matches nothing.
    fn matching(&self, query: &str, tier: Tier, limit: usize) -> Result<(Vec<Task>, usize)>;
    /// The tasks matching `query`: those with every term first, then those with some (each
    /// group best first); at most `limit`, and how many match any term. A task search is
    /// small, so both groups are counted.
    fn search(&self, query: &str, limit: usize) -> Result<(Vec<Task>, usize)> {
        let (mut found, every) = self.matching(query, Tier::Every, limit)?;
        let room = limit - found.len().min(limit);
        let (some, more) = self.matching(query, Tier::Some, room.max(1))?;
        found.extend(some.into_iter().take(room));
        Ok((found, every + more))
    }
    /// Creates task `slug`; every name in `fields.depends_on` must exist. Returns its id.
    fn insert(&self, slug: &str, fields: &Fields, now: &str) -> Result<i64>;
    /// Replaces the fields of task `id` and sets its `updated` time.
    fn update(&self, id: i64, slug: &str, fields: &Fields, now: &str) -> Result<()>;
    /// Gives task `id` a new name and status. The tasks that depend on it show the new
    /// name in their `depends_on`, so their `updated` time moves too.
    fn rename(&self, id: i64, slug: &str, status: Status, now: &str) -> Result<()>;
    /// Deletes task `id`. Fails while other tasks depend on it; callers check
    /// [`TaskRecords::dependents`] first to say which.
    fn delete(&self, id: i64) -> Result<()>;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;
    use crate::store::testing::for_each_backend;

    fn fields(title: &str, status: Status, priority: u8, tags: &[&str], deps: &[&str]) -> Fields {
        Fields {
            title: title.into(),
            status,
            priority,
            tags: tags.iter().map(|s| s.to_string()).collect(),
            depends_on: deps.iter().map(|s| s.to_string()).collect(),
            description: String::new(),
        }
    }

    fn sample(store: &Store) {
        store
            .change_tasks(|tx| {
                tx.insert(
                    "schema",
                    &fields("Design the schema", Status::Done, 1, &["db"], &[]),
                    "t0",
                )?;
                tx.insert(
                    "login",
                    &fields(
                        "Fix the login form",
                        Status::Open,
                        1,
                        &["ui", "auth"],
                        &["schema"],
                    ),
                    "t0",
                )?;
                tx.insert(
                    "deploy",
                    &fields("Deploy", Status::Open, 0, &[], &["login"]),
                    "t0",
                )?;
                tx.insert(
                    "docs",
                    &fields("Write docs", Status::Blocked, 3, &["ui"], &[]),
                    "t0",
                )?;
                Ok(())
            })
            .unwrap();
    }

    fn slugs(tasks: &[Task]) -> Vec<&str> {
        tasks.iter().map(|t| t.slug.as_str()).collect()
    }

    #[test]
    fn filters_select_and_order_by_priority() {
        for_each_backend(|store| {
            let store = &*store;
            sample(store);
            store
                .tasks(|c| {
                    assert_eq!(
                        slugs(&c.list(Filter::Status(Status::Open), None)?),
                        ["deploy", "login"]
                    );
                    assert_eq!(
                        slugs(&c.list(Filter::Outstanding, None)?),
                        ["deploy", "login", "docs"]
                    );
                    assert_eq!(slugs(&c.list(Filter::Outstanding, Some(1))?), ["deploy"]);
                    assert_eq!(slugs(&c.list(Filter::Ready, None)?), ["login"]);
                    assert_eq!(slugs(&c.list(Filter::Tag("ui"), None)?), ["login", "docs"]);
                    assert_eq!(c.count(Filter::Tag("ui"))?, 2);
                    let c = c.counts()?;
                    assert_eq!(
                        (c.open, c.in_progress, c.blocked, c.done, c.ready),
                        (2, 0, 1, 1, 1)
                    );
                    Ok(())
                })
                .unwrap();
        });
    }

    #[test]
    fn lists_keep_their_order_and_renames_follow() {
        for_each_backend(|store| {
            let store = &*store;
            sample(store);
            store
                .change_tasks(|tx| {
                    let login = tx.get("login")?.unwrap();
                    assert_eq!(login.fields.tags, ["ui", "auth"]);
                    tx.rename(login.id, "sign-in", Status::InProgress, "t1")
                })
                .unwrap();
            let deploy = store.tasks(|c| c.get("deploy")).unwrap().unwrap();
            assert_eq!(deploy.fields.depends_on, ["sign-in"]);
            assert_eq!(deploy.updated, "t1");
            let hits = store.tasks(|c| c.search("sign", 10)).unwrap();
            assert_eq!(slugs(&hits.0), ["sign-in"]);
        });
    }

    #[test]
    fn a_depended_on_task_cannot_be_deleted() {
        for_each_backend(|store| {
            let store = &*store;
            sample(store);
            let schema = store.tasks(|c| c.get("schema")).unwrap().unwrap();
            let login = ("login".to_string(), Status::Open);
            assert_eq!(store.tasks(|c| c.dependents(schema.id)).unwrap(), [login]);
            assert!(store.change_tasks(|tx| tx.delete(schema.id)).is_err());
            assert!(store.tasks(|c| c.get("schema")).unwrap().is_some());
        });
    }

    #[test]
    fn search_ranks_and_never_fails_on_hostile_queries() {
        for_each_backend(|store| {
            let store = &*store;
            sample(store);
            let (hits, total) = store.tasks(|c| c.search("login", 10)).unwrap();
            assert_eq!((slugs(&hits), total), (vec!["login"], 1));
            let (hits, total) = store.tasks(|c| c.search("UI", 1)).unwrap();
            assert_eq!((hits.len(), total), (1, 2));
            for query in [
                "\"",
                "*",
                "NEAR(a b)",
                "(",
                "-login",
                "a AND OR",
                "",
                "  ",
                "\"\"*",
                "^x",
                "x:y",
            ] {
                assert!(store.tasks(|c| c.search(query, 5)).is_ok(), "{query}");
            }
        });
    }
}
