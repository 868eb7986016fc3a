//! Tasks in the store: what a task is ([`Task`], [`Fields`], [`Status`]), which tasks a
//! view shows ([`Filter`]), and [`TaskRecords`], the one interface through which every
//! backend reads and changes them: the rules of a change written once here, over what each
//! backend answers in its own SQL ([`TaskRows`]; SQLite: `sqlite.rs`, PostgreSQL:
//! `postgres.rs`). Every change keeps the full-text index and the counters in step inside
//! the caller's transaction, so neither drifts from the tasks. Dependencies are stored by task id, so renaming a task renames it
//! in every `depends_on` at once, and a task others depend on cannot be deleted.
//!
//! Validation is not done here: callers pass fields already checked by
//! `resources::tasks::validate`.

mod postgres;
mod sqlite;

use crate::error::{Error, Result};
use crate::model::time::Time;
pub use crate::store::fts::Tier;
use crate::store::row::{Row, size};

/// Migration 1: tasks, their tags and dependencies, counters, and the full-text index.
pub(crate) const SCHEMA: &str = include_str!("schema.sql");
/// The same migration for PostgreSQL.
pub(crate) const PG_SCHEMA: &str = include_str!("schema.pg.sql");
/// Migration 15, PostgreSQL only: the outstanding tasks kept in listing order.
pub(crate) const PG_OUTSTANDING: &str = include_str!("outstanding.pg.sql");

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
    /// Set by the store.
    pub created: Time,
    pub updated: Time,
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
    fn set(&mut self, status: Status, n: usize) {
        match status {
            Status::Open => self.open = n,
            Status::InProgress => self.in_progress = n,
            Status::Blocked => self.blocked = n,
            Status::Done => self.done = n,
        }
    }
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

/// What a backend answers about the tasks, each a statement or two in its own SQL;
/// [`TaskRecords`] is what callers use, with the rules of a change written once above it.
pub trait TaskRows {
    /// The task named `slug`.
    fn get(&self, slug: &str) -> Result<Option<Task>>;
    /// The task named `slug` if `filter` selects it (is it in `ready/`, in `tags/ui/`?).
    fn get_in(&self, filter: Filter<'_>, slug: &str) -> Result<Option<Task>>;
    /// The tasks `filter` selects, by priority then name; at most `limit` of them.
    fn list(&self, filter: Filter<'_>, limit: Option<usize>) -> Result<Vec<Task>>;
    /// The tasks `filter` selects in listing order from the one named `slug` on (none when
    /// `filter` does not select it), at most `limit`: the next entries of a listing.
    fn list_from(&self, filter: Filter<'_>, slug: &str, limit: usize) -> Result<Vec<Task>> {
        let tasks = self.list(filter, None)?;
        Ok(tasks
            .into_iter()
            .skip_while(|t| t.slug != slug)
            .take(limit)
            .collect())
    }
    /// The names of the tasks `filter` selects, by priority then name (for `ls`).
    fn slugs(&self, filter: Filter<'_>) -> Result<Vec<String>>;
    /// How many tasks `filter` selects.
    fn count(&self, filter: Filter<'_>) -> Result<usize>;
    /// The counters kept with the rows, by name: a status's name, or `READY`.
    fn counters(&self) -> Result<Counters>;
    /// The counters and the first `limit` tasks `filter` selects: what a view of tasks
    /// shows. A backend where each statement is a round trip reads both in one.
    fn counters_and_list(&self, filter: Filter<'_>, limit: usize) -> Result<(Counters, Vec<Task>)> {
        Ok((self.counters()?, self.list(filter, Some(limit))?))
    }
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

    /// Adds the row of task `slug`, without its tags and dependencies; returns its id.
    fn insert_row(&self, slug: &str, fields: &Fields, now: Time) -> Result<i64>;
    /// Replaces the row of task `id`, not its tags and dependencies, updated `now`.
    fn update_row(&self, id: i64, fields: &Fields, now: Time) -> Result<()>;
    /// Removes task `id`'s tags and dependencies.
    fn clear_lists(&self, id: i64) -> Result<()>;
    /// Gives task `id` the tag `tag`, the `pos`th in the writer's order.
    fn add_tag(&self, id: i64, pos: i32, tag: &str) -> Result<()>;
    /// Makes task `id` depend on the task named `name`, the `pos`th in the writer's order;
    /// false if there is no such task.
    fn add_dependency(&self, id: i64, pos: i32, name: &str) -> Result<bool>;
    /// Indexes task `id`'s words for search, as `slug` and `fields` say.
    fn index(&self, id: i64, slug: &str, fields: &Fields) -> Result<()>;
    /// The name of task `id`.
    fn slug_of(&self, id: i64) -> Result<String>;
    /// Gives task `id` the name `slug` and `status`, updated `now`.
    fn set_name(&self, id: i64, slug: &str, status: Status, now: Time) -> Result<()>;
    /// Sets the `updated` time of the tasks that depend on task `id`.
    fn touch_dependents(&self, id: i64, now: Time) -> Result<()>;
    /// Indexes task `id` under its new name `slug`.
    fn index_name(&self, id: i64, slug: &str) -> Result<()>;
    /// Removes task `id` and its index entry; fails while other tasks depend on it.
    fn remove(&self, id: i64) -> Result<()>;
}

/// The counters kept with the rows, by name, with their values.
pub type Counters = Vec<(String, i64)>;

/// The counter of the tasks that are ready, beside one per status.
pub(crate) const READY: &str = "ready";

/// The tasks of a store, whichever backend holds them. Reads never change anything; the
/// changes run inside the store's write transaction (see [`crate::store::Store::write`]),
/// and each keeps the task's tags, dependencies and index in step with the task.
pub trait TaskRecords: TaskRows {
    /// Tasks per status and the number ready, read from counters kept with the rows.
    fn counts(&self) -> Result<Counts> {
        Ok(counts_of(self.counters()?))
    }

    /// [`TaskRecords::counts`], and the first `limit` tasks `filter` selects.
    fn counts_and_list(&self, filter: Filter<'_>, limit: usize) -> Result<(Counts, Vec<Task>)> {
        let (counters, tasks) = self.counters_and_list(filter, limit)?;
        Ok((counts_of(counters), tasks))
    }

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
    fn insert(&self, slug: &str, fields: &Fields, now: Time) -> Result<i64> {
        let id = self.insert_row(slug, fields, now)?;
        put_lists(self, id, fields)?;
        self.index(id, slug, fields)?;
        Ok(id)
    }

    /// Replaces the fields of task `id` and sets its `updated` time.
    fn update(&self, id: i64, slug: &str, fields: &Fields, now: Time) -> Result<()> {
        self.update_row(id, fields, now)?;
        self.clear_lists(id)?;
        put_lists(self, id, fields)?;
        self.index(id, slug, fields)
    }

    /// Gives task `id` a new name and status. The tasks that depend on it show the new
    /// name in their `depends_on`, so their `updated` time moves too.
    fn rename(&self, id: i64, slug: &str, status: Status, now: Time) -> Result<()> {
        let old = self.slug_of(id)?;
        self.set_name(id, slug, status, now)?;
        if old != slug {
            self.touch_dependents(id, now)?;
            self.index_name(id, slug)?;
        }
        Ok(())
    }

    /// Deletes task `id`. Fails while other tasks depend on it; callers check
    /// [`TaskRows::dependents`] first to say which.
    fn delete(&self, id: i64) -> Result<()> {
        self.remove(id)
    }
}

impl<T: TaskRows> TaskRecords for T {}

/// Stores task `id`'s tags and dependencies, in the writer's order.
fn put_lists(rows: &(impl TaskRows + ?Sized), id: i64, fields: &Fields) -> Result<()> {
    for (pos, tag) in (0i32..).zip(&fields.tags) {
        rows.add_tag(id, pos, tag)?;
    }
    for (pos, name) in (0i32..).zip(&fields.depends_on) {
        if !rows.add_dependency(id, pos, name)? {
            return Err(Error::internal(format!(
                "task dependency {name:?} vanished during the write"
            )));
        }
    }
    Ok(())
}

/// `filter` as a condition on the tasks `t`, a tag being the parameter `tag`. Statuses are
/// written into it, not bound: with SQLite's STAT4 a bound value in an indexed WHERE makes
/// the statement re-prepare on every run, a cost every view query would pay.
fn condition(filter: Filter<'_>, tag: &str) -> String {
    match filter {
        Filter::Status(status) => format!("t.status = '{}'", status.as_str()),
        Filter::Outstanding => format!(
            "t.status IN ('{}', '{}', '{}')",
            Status::Open.as_str(),
            Status::InProgress.as_str(),
            Status::Blocked.as_str()
        ),
        Filter::Ready => format!("t.status = '{}' AND t.waiting = 0", Status::Open.as_str()),
        Filter::Tag(_) => format!("t.id IN (SELECT task FROM task_tags WHERE tag = {tag})"),
    }
}

/// The counts the counters kept with the rows say.
fn counts_of(counters: Counters) -> Counts {
    let mut counts = Counts::default();
    for (name, n) in counters {
        let n = size(n);
        match Status::parse(&name) {
            Some(status) => counts.set(status, n),
            None if name == READY => counts.ready = n,
            None => {}
        }
    }
    counts
}

/// A whole task's row: id, slug, title, status, priority, description, created, updated,
/// then its tags and its dependencies' names, each a JSON array in the writer's order.
fn task_of(row: &impl Row) -> Result<Task> {
    let status: String = row.value(3)?;
    let priority: i16 = row.value(4)?;
    let list = |i: usize, what: &str| -> Result<Vec<String>> {
        let json: String = row.value(i)?;
        serde_json::from_str(&json)
            .map_err(|_| Error::internal(format!("task {what} {json:?} is not valid")))
    };
    Ok(Task {
        id: row.value(0)?,
        slug: row.value(1)?,
        fields: Fields {
            title: row.value(2)?,
            status: Status::parse(&status)
                .ok_or_else(|| Error::internal(format!("task status {status:?} is not valid")))?,
            priority: u8::try_from(priority)
                .map_err(|_| Error::internal(format!("task priority {priority} is not valid")))?,
            tags: list(8, "tags")?,
            depends_on: list(9, "depends_on")?,
            description: row.value(5)?,
        },
        created: time_of(row, 6)?,
        updated: time_of(row, 7)?,
    })
}

/// Column `i` of `row`, a time as the store writes it.
fn time_of(row: &impl Row, i: usize) -> Result<Time> {
    let text: String = row.value(i)?;
    Time::parse(&text).map_err(|e| Error::internal(format!("a stored task's {e}")))
}

/// A dependent's row: its name and status.
fn dependent_of(row: &impl Row) -> Result<(String, Status)> {
    let status: String = row.value(1)?;
    Ok((
        row.value(0)?,
        Status::parse(&status).unwrap_or(Status::Open),
    ))
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
                    Time::from_unix(0),
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
                    Time::from_unix(0),
                )?;
                tx.insert(
                    "deploy",
                    &fields("Deploy", Status::Open, 0, &[], &["login"]),
                    Time::from_unix(0),
                )?;
                tx.insert(
                    "docs",
                    &fields("Write docs", Status::Blocked, 3, &["ui"], &[]),
                    Time::from_unix(0),
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

    /// What a view reads at once is what it would read in two statements: on an empty
    /// store, and for filters that select some, all and none of the tasks.
    #[test]
    fn counters_and_a_list_read_at_once_are_those_read_apart() {
        for_each_backend(|store| {
            let store = &*store;
            let filters = [
                Filter::Outstanding,
                Filter::Status(Status::Open),
                Filter::Status(Status::InProgress),
                Filter::Ready,
                Filter::Tag("ui"),
            ];
            let same = |store: &Store| {
                for filter in filters {
                    let (together, apart) = store
                        .tasks(|c| {
                            Ok((
                                c.counters_and_list(filter, 2)?,
                                (c.counters()?, c.list(filter, Some(2))?),
                            ))
                        })
                        .unwrap();
                    let sorted = |mut v: Vec<(String, i64)>| {
                        v.sort();
                        v
                    };
                    assert_eq!(sorted(together.0), sorted(apart.0), "{filter:?}");
                    assert_eq!(together.1, apart.1, "{filter:?}");
                }
            };
            same(store);
            sample(store);
            same(store);
            let open = store.tasks(|c| c.counts_and_list(Filter::Status(Status::Open), 1));
            let (counts, shown) = open.unwrap();
            assert_eq!(shown.len(), 1, "at most the limit");
            assert!(counts.open > 1, "{counts:?}");
        });
    }

    /// A listing's next entries: the tasks a filter selects from one on, as the whole list
    /// has them (ties of priority in name order, byte by byte); none from a task the filter
    /// does not select, or from no task.
    #[test]
    fn a_list_from_a_task_is_the_whole_list_from_it() {
        for_each_backend(|store| {
            let store = &*store;
            sample(store);
            store
                .change_tasks(|tx| {
                    // A locale's order would put "ab" before "a-c"; bytes put it after.
                    for slug in ["b", "ab", "a-c", "a-b"] {
                        let task = fields(slug, Status::Open, 1, &["ui"], &[]);
                        tx.insert(slug, &task, Time::from_unix(0))?;
                    }
                    Ok(())
                })
                .unwrap();
            for filter in [
                Filter::Outstanding,
                Filter::Status(Status::Open),
                Filter::Tag("ui"),
            ] {
                let all = store.tasks(|c| c.list(filter, None)).unwrap();
                for (i, task) in all.iter().enumerate() {
                    for limit in [1, 2, 10] {
                        let from = store
                            .tasks(|c| c.list_from(filter, &task.slug, limit))
                            .unwrap();
                        let expected: Vec<Task> = all.iter().skip(i).take(limit).cloned().collect();
                        assert_eq!(from, expected, "{filter:?} from {} ({limit})", task.slug);
                    }
                }
            }
            let done = store
                .tasks(|c| c.list(Filter::Status(Status::Done), None))
                .unwrap();
            let elsewhere = &done[0].slug;
            let open = Filter::Status(Status::Open);
            assert!(
                store
                    .tasks(|c| c.list_from(open, elsewhere, 5))
                    .unwrap()
                    .is_empty()
            );
            assert!(
                store
                    .tasks(|c| c.list_from(open, "nothing", 5))
                    .unwrap()
                    .is_empty()
            );
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
                    tx.rename(login.id, "sign-in", Status::InProgress, Time::from_unix(1))
                })
                .unwrap();
            let deploy = store.tasks(|c| c.get("deploy")).unwrap().unwrap();
            assert_eq!(deploy.fields.depends_on, ["sign-in"]);
            assert_eq!(deploy.updated, Time::from_unix(1));
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
