//! `tasks/`: outstanding work, one JSON file per task, kanban by directory.
//!
//! ```text
//! tasks/
//!   open/ in_progress/ blocked/ done/   a task's file <slug>.json lives in its status's directory
//!   <slug>.json                         reaches any task directly (not listed)
//!   ready/                              open tasks whose dependencies are all done (read-only)
//!   tags/<tag>/                         tasks with that tag (read-only)
//! ```
//!
//! This file routes paths to the store. A write is validated as a whole (`validate`) and
//! then stored in one transaction, inside which dependencies are checked too, so a refused
//! write changes nothing. The files in `ready/` and `tags/` are read-only documents rather
//! than views: their bytes are the task's exact JSON (never pruned, same as in its status
//! directory) — it is the directory that is generated.

mod document;
mod filters;
mod problems;
mod validate;
mod views;

#[cfg(test)]
mod reftest;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod writers_tests;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::SystemTime;

use crate::error::{Error, ErrorKind, Result};
use crate::model::Entry;
use crate::model::count::one_or_many;
use crate::model::links::Links;
use crate::model::time::Time;
use crate::model::{Child, Hit, Hits, Kind, Node, RootPart};
use crate::store::Store;
use crate::store::tasks::{Fields, Filter, Status, Task, TaskRecords};
use crate::tree::glance::{Glance, Memo};
use crate::tree::resource::Resource;
use crate::tree::resource::{Capabilities, Edit, Search};
use problems::Problems;

pub use validate::MAX_BYTES;

/// The source of "now" for `created` and `updated`; tests pass a fixed or stepping one.
pub type Clock = Arc<dyn Fn() -> SystemTime + Send + Sync>;

/// The `tasks/` resourcespace over the mount's store.
pub struct Tasks {
    store: Arc<Store>,
    links: Links,
    clock: Clock,
    /// A run of the tasks of the folder being listed ([`crate::tree::glance::RUN`] of
    /// them), by name, read once per listing's glance from the
    /// first one asked for: a listing with attributes stats and reads each task it shows,
    /// a statement each (on PostgreSQL a round trip each, two per task).
    listed: Memo<String, HashMap<String, Task>>,
}

/// What a path under `tasks/` names. File names are kept raw: whether they are valid task
/// names matters differently to a lookup (not found) and to a create (refused, with the rule).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TaskPath<'p> {
    Root,
    StatusDir(Status),
    Ready,
    Tags,
    Tag(&'p str),
    File(Folder<'p>, &'p str),
}

/// The directory a task file is seen in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Folder<'p> {
    /// `tasks/<slug>.json`: any status.
    Root,
    Status(Status),
    Ready,
    Tag(&'p str),
}

impl<'p> Folder<'p> {
    /// The folder as a listing shows it, named, with the filter of its tasks; `None` for
    /// `tasks/` itself, which lists no task.
    fn listed(self) -> Option<(String, Filter<'p>)> {
        match self {
            Folder::Root => None,
            Folder::Status(status) => Some((status.as_str().to_string(), Filter::Status(status))),
            Folder::Ready => Some(("ready".to_string(), Filter::Ready)),
            Folder::Tag(tag) => Some((format!("tags/{tag}"), Filter::Tag(tag))),
        }
    }
}

/// Where `path` is, or `None` when nothing can be there.
fn locate<'p>(path: &[&'p str]) -> Option<TaskPath<'p>> {
    let status = path.first().and_then(|dir| Status::parse(dir));
    Some(match (path, status) {
        ([], _) => TaskPath::Root,
        ([_], Some(status)) => TaskPath::StatusDir(status),
        ([_, name], Some(status)) => TaskPath::File(Folder::Status(status), name),
        (["ready"], _) => TaskPath::Ready,
        (["tags"], _) => TaskPath::Tags,
        (["tags", tag], _) => TaskPath::Tag(tag),
        (["ready", name], _) => TaskPath::File(Folder::Ready, name),
        (["tags", tag, name], _) => TaskPath::File(Folder::Tag(tag), name),
        ([name], None) => TaskPath::File(Folder::Root, name),
        _ => return None,
    })
}

impl Tasks {
    /// The absolute path of `path` (inside tasks/) in the mount, as messages name it.
    fn shown(&self, path: &[&str]) -> String {
        if path.is_empty() {
            self.links.dir(&["tasks"])
        } else {
            self.links.to(&format!("tasks/{}", path.join("/")))
        }
    }

    fn not_found(&self, path: &[&str]) -> Error {
        Error::not_found(format!("{} does not exist", self.shown(path)))
    }

    /// `/mnt/hs/tasks/open/x.json was not saved:` and one line per problem.
    fn not_saved(&self, path: &[&str], kind: ErrorKind, problems: &Problems) -> Error {
        Error::new(kind, problems.refusal(&self.shown(path)))
    }

    fn place<'p>(&self, path: &[&'p str]) -> Result<TaskPath<'p>> {
        locate(path).ok_or_else(|| self.not_found(path))
    }

    pub fn new(store: Arc<Store>, links: Links) -> Self {
        Self::with_clock(store, links, Arc::new(crate::model::clock::Clock::now))
    }

    /// Like [`Tasks::new`] with `clock` as the source of `created`/`updated` times.
    pub fn with_clock(store: Arc<Store>, links: Links, clock: Clock) -> Self {
        Tasks {
            store,
            links,
            clock,
            listed: Memo::default(),
        }
    }

    fn now(&self) -> Time {
        Time::of((self.clock)())
    }

    /// The task whose file is `name` as seen in `folder`, or not found — saying where the
    /// task is when it lives in another directory (`cat tasks/open/x.json` after a `mv`).
    /// One lookup by name answers both for a status directory, the common case (every
    /// new task's file is looked up before it exists). Within a listing's glance
    /// ([`Glance::in_listing`]) a run of the folder's tasks is read once, for the entries
    /// that follow.
    /// A write finds its task with no glance (`None`): it must see the task as it is.
    fn find(
        &self,
        conn: &dyn TaskRecords,
        glance: Option<&Glance>,
        path: &[&str],
        folder: Folder<'_>,
        name: &str,
    ) -> Result<Task> {
        let Some(slug) = name.strip_suffix(".json") else {
            return Err(self.not_found(path));
        };
        if let Some(glance) = glance.filter(|glance| glance.in_listing())
            && let Some((key, filter)) = folder.listed()
        {
            let listed = self.listed.get_where(
                glance,
                key,
                |run| run.contains_key(slug),
                || {
                    let tasks = conn.list_from(filter, slug, crate::tree::glance::RUN)?;
                    Ok(tasks.into_iter().map(|t| (t.slug.clone(), t)).collect())
                },
            )?;
            if let Some(task) = listed.get(slug) {
                return Ok(task.clone());
            }
        }
        let found = match folder {
            Folder::Root | Folder::Status(_) => conn.get(slug)?,
            Folder::Ready => conn.get_in(Filter::Ready, slug)?,
            Folder::Tag(tag) => conn.get_in(Filter::Tag(tag), slug)?,
        };
        match (folder, found) {
            (Folder::Status(dir), Some(elsewhere)) if elsewhere.fields.status != dir => {
                Err(Error::not_found(format!(
                    "{} does not exist: task {slug} is {} at {}",
                    self.shown(path),
                    elsewhere.fields.status.label(),
                    views::task_path(&self.links, &elsewhere)
                )))
            }
            (_, Some(task)) => Ok(task),
            (_, None) => Err(self.not_found(path)),
        }
    }

    /// The task at `path` that a write, rename or remove may change: in its status
    /// directory or at `tasks/<slug>.json`. `ready/` and `tags/` are read-only.
    fn writable_folder<'p>(&self, path: &[&'p str], verb: &str) -> Result<(Folder<'p>, &'p str)> {
        match self.place(path)? {
            TaskPath::File(folder @ (Folder::Root | Folder::Status(_)), name) => Ok((folder, name)),
            TaskPath::File(Folder::Ready | Folder::Tag(_), name) => Err(Error::read_only(format!(
                "cannot {verb} {}: {}/ is a read-only view of tasks; change the task in its \
                 status directory, or at {} which reaches it in any status",
                self.shown(path),
                self.shown(&path[..path.len() - 1]),
                self.links.to(&format!("tasks/{name}"))
            ))),
            _ => Err(Error::not_permitted(format!(
                "cannot {verb} {}: the directories of tasks/ are fixed (open, in_progress, \
                 blocked, done, ready, tags)",
                self.shown(path)
            ))),
        }
    }

    fn bytes(task: &Task) -> Result<Vec<u8>> {
        document::render(task)
    }

    fn child(task: &Task) -> Result<Child> {
        let bytes = Self::bytes(task)?;
        let lines = line_count(&bytes);
        Ok(views::task_child(task, bytes.len(), lines))
    }

    fn children(conn: &dyn TaskRecords, filter: Filter<'_>) -> Result<Vec<Child>> {
        conn.list(filter, None)?.iter().map(Self::child).collect()
    }

    /// Refuse a write based on an old version of the task: `base` (what the writer saw
    /// when it opened the file) must still be what the task reads as. Checked inside the
    /// store's transaction, so of two writers that opened the same version one lands and
    /// the other is told; neither update is lost silently.
    fn unchanged_since(
        &self,
        path: &[&str],
        existing: Option<&Task>,
        base: Option<&[u8]>,
    ) -> Result<()> {
        let Some(base) = base else {
            return Ok(());
        };
        let now = existing.map(Self::bytes).transpose()?;
        if now.as_deref() == Some(base) {
            return Ok(());
        }
        let what = match now {
            Some(_) => "it was changed by another writer after you opened it",
            None => "the task was removed or renamed after you opened it",
        };
        Err(Error::new(
            ErrorKind::Busy,
            format!(
                "{} was not saved: {what}. Read it again and make your change on what it \
                 holds now",
                self.shown(path)
            ),
        ))
    }

    /// Refuses a write of `task` made from a copy read before its last change, whatever
    /// tool wrote it (`cp` from a file saved earlier carries no open handle to compare):
    /// the copy says when it was read, in `"updated"`. Without `"updated"` a write is a
    /// plain overwrite.
    fn not_stale(
        &self,
        path: &[&str],
        task: &Task,
        written: &[(String, serde_json::Value)],
    ) -> Result<()> {
        let copy = written
            .iter()
            .find(|(key, _)| key == "updated")
            .and_then(|(_, value)| value.as_str());
        match copy {
            Some(copy) if copy != task.updated.to_string() => Err(Error::new(
                ErrorKind::Busy,
                format!(
                    "{} was not saved: it was changed by another writer after your copy was \
                     read (your copy says \"updated\": \"{copy}\", the task was updated at \
                     {}). Read it again and make your change on what it holds now",
                    self.shown(path),
                    task.updated
                ),
            )),
            _ => Ok(()),
        }
    }

    /// The whole write, inside the store's transaction: check everything, then store.
    fn save(
        &self,
        conn: &dyn TaskRecords,
        path: &[&str],
        folder: Folder<'_>,
        slug: &str,
        content: &[u8],
        base: Option<&[u8]>,
    ) -> Result<()> {
        let existing = conn.get(slug)?;
        self.unchanged_since(path, existing.as_ref(), base)?;
        if let (Some(task), Folder::Status(dir)) = (&existing, folder)
            && task.fields.status != dir
        {
            return Err(Error::exists(format!(
                "{} was not saved: task {slug} is in {}; write that file, or change its status \
                 with `mv {} {}`",
                self.shown(path),
                views::task_path(&self.links, task),
                views::task_path(&self.links, task),
                self.links.dir(&["tasks", dir.as_str()])
            )));
        }
        let parsed =
            validate::parse(content).map_err(|p| self.not_saved(path, ErrorKind::Invalid, &p))?;
        let mut problems = parsed.problems;
        let draft = parsed.draft;
        let status = match (draft.status, folder) {
            (Some(written), Folder::Status(dir)) if written != dir => {
                problems.push(format!(
                    "\"status\" is {:?} but the file is in {}: leave \"status\" out, or move \
                     the task with `mv {} {}`",
                    written.as_str(),
                    self.links.dir(&["tasks", dir.as_str()]),
                    self.shown(path),
                    self.links.dir(&["tasks", written.as_str()])
                ));
                dir
            }
            (Some(written), _) => written,
            (None, Folder::Status(dir)) => dir,
            (None, _) => existing.as_ref().map_or(Status::Open, |t| t.fields.status),
        };
        if let Some(task) = &existing {
            self.not_stale(path, task, &draft.managed)?;
            problems.extend(managed_problems(task, &draft.managed));
        }
        let task_list = self.links.to("tasks/_entry.md");
        problems.extend(draft.dependency_problems(conn, slug, &task_list)?);
        if !problems.is_empty() {
            return Err(self.not_saved(path, ErrorKind::Invalid, &problems));
        }
        let fields = Fields {
            title: draft.title,
            status,
            priority: draft.priority,
            tags: draft.tags,
            depends_on: draft.depends_on,
            description: draft.description,
        };
        match existing {
            // Same fields: nothing to do, and `updated` must not move (writing back what was
            // read changes nothing).
            Some(task) if task.fields == fields => Ok(()),
            Some(task) => conn.update(task.id, slug, &fields, self.now()),
            None => conn.insert(slug, &fields, self.now()).map(|_| ()),
        }
    }
}

/// What a write of `task` says of the fields the store manages that differs from them:
/// accepted and ignored, such a change would read as saved and never be.
fn managed_problems(task: &Task, written: &[(String, serde_json::Value)]) -> Vec<String> {
    written
        .iter()
        .filter_map(|(key, value)| {
            let kept = match key.as_str() {
                "id" => serde_json::Value::from(task.id),
                "created" => serde_json::Value::from(task.created.to_string()),
                // Another time is a stale copy (`not_stale`); only another type is wrong.
                "updated" if value.is_string() => return None,
                "updated" => serde_json::Value::from(task.updated.to_string()),
                _ => return None,
            };
            (*value != kept).then(|| {
                format!(
                    "\"{key}\" is the store's to keep and cannot be changed: it is {kept} \
                     (leave it as it is, or leave it out)"
                )
            })
        })
        .collect()
}

fn line_count(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| b == b'\n').count()
}

impl Resource for Tasks {
    fn name(&self) -> &'static str {
        "tasks"
    }

    fn summary(&self) -> Result<String> {
        self.store.tasks(views::summary)
    }

    fn root_part(&self) -> Result<RootPart> {
        self.store.tasks(|conn| views::root_part(conn, &self.links))
    }

    fn stat(&self, glance: &Glance, path: &[&str]) -> Result<Node> {
        match self.place(path)? {
            TaskPath::Root | TaskPath::StatusDir(_) => Ok(Node::dir(true)),
            TaskPath::Ready | TaskPath::Tags => Ok(Node::dir(false)),
            TaskPath::Tag(tag) => match self.store.tasks(|c| c.count(Filter::Tag(tag)))? {
                0 => Err(self.not_found(path)),
                _ => Ok(Node::dir(false)),
            },
            TaskPath::File(folder, name) => {
                let task = self
                    .store
                    .tasks(|c| self.find(c, Some(glance), path, folder, name))?;
                let writable = matches!(folder, Folder::Root | Folder::Status(_));
                Ok(Node {
                    size: Some(Self::bytes(&task)?.len() as u64),
                    ..Node::document(writable)
                })
            }
        }
    }

    fn list(&self, _glance: &Glance, path: &[&str]) -> Result<Vec<Child>> {
        self.store.tasks(|conn| match self.place(path)? {
            TaskPath::Root => {
                let counts = conn.counts()?;
                let mut children: Vec<Child> = Status::ALL
                    .into_iter()
                    .map(|s| Child::new(s.as_str(), Kind::Dir, views::count_of(counts.of(s))))
                    .collect();
                children.push(Child::new(
                    "ready",
                    Kind::Dir,
                    format!("{} ready to start", views::count_of(counts.ready)),
                ));
                children.push(Child::new("tags", Kind::Dir, "tasks by tag"));
                Ok(children)
            }
            TaskPath::StatusDir(status) => Self::children(conn, Filter::Status(status)),
            TaskPath::Ready => Self::children(conn, Filter::Ready),
            TaskPath::Tags => Ok(conn
                .tags()?
                .into_iter()
                .map(|(tag, n)| Child::new(tag, Kind::Dir, views::count_of(n)))
                .collect()),
            TaskPath::Tag(tag) => match Self::children(conn, Filter::Tag(tag))? {
                children if children.is_empty() => Err(self.not_found(path)),
                children => Ok(children),
            },
            TaskPath::File(..) => Err(Error::new(
                ErrorKind::NotADirectory,
                format!("{} is a task file, not a directory", self.shown(path)),
            )),
        })
    }

    fn names(&self, glance: &Glance, path: &[&str]) -> Result<Vec<(String, Kind)>> {
        let filter = match self.place(path)? {
            TaskPath::StatusDir(status) => Filter::Status(status),
            TaskPath::Ready => Filter::Ready,
            _ => {
                return Ok(Child::names(self.list(glance, path)?));
            }
        };
        let slugs = self.store.tasks(|conn| conn.slugs(filter))?;
        Ok(slugs
            .into_iter()
            .map(|s| (format!("{s}.json"), Kind::Document))
            .collect())
    }

    fn read(&self, glance: &Glance, path: &[&str]) -> Result<Vec<u8>> {
        match self.place(path)? {
            TaskPath::File(folder, name) => {
                let task = self
                    .store
                    .tasks(|c| self.find(c, Some(glance), path, folder, name))?;
                Self::bytes(&task)
            }
            _ => {
                self.stat(glance, path)?;
                Err(Error::new(
                    ErrorKind::IsADirectory,
                    format!("{} is a directory: read its _entry.md", self.shown(path)),
                ))
            }
        }
    }

    fn entry(&self, _glance: &Glance, path: &[&str]) -> Result<Entry> {
        let links = &self.links;
        self.store.tasks(|conn| match self.place(path)? {
            TaskPath::Root => views::root_entry(conn, links),
            TaskPath::StatusDir(status) => views::status_entry(conn, links, status),
            TaskPath::Ready => views::ready_entry(conn, links),
            TaskPath::Tags => views::tags_entry(conn, links),
            TaskPath::Tag(tag) => match conn.count(Filter::Tag(tag))? {
                0 => Err(self.not_found(path)),
                _ => views::tag_entry(conn, links, tag),
            },
            TaskPath::File(..) => Err(Error::new(
                ErrorKind::NotADirectory,
                format!("{} is a task file, not a directory", self.shown(path)),
            )),
        })
    }

    fn capabilities(&self) -> Capabilities<'_> {
        Capabilities {
            edit: Some(self),
            search: Some(self),
            ..Capabilities::default()
        }
    }
}

impl Edit for Tasks {
    fn write(&self, path: &[&str], content: &[u8], base: Option<&[u8]>) -> Result<()> {
        let (folder, name) = self.writable_folder(path, "write")?;
        // EPERM, as for `mv` to such a name (docs/errors.md): the name, not the content,
        // is what cannot be.
        if let Some(problem) = validate::file_name_problem(name) {
            return Err(self.not_saved(path, ErrorKind::NotPermitted, &Problems::one(problem)));
        }
        if content.len() > MAX_BYTES {
            return Err(self.not_saved(
                path,
                ErrorKind::TooBig,
                &Problems::one(format!(
                    "{} bytes is over the limit of 1 MiB ({MAX_BYTES} bytes) for a task file",
                    content.len()
                )),
            ));
        }
        let slug = name.trim_end_matches(".json");
        self.store
            .change_tasks(|conn| self.save(conn, path, folder, slug, content, base))
    }

    fn can_create(&self, path: &[&str]) -> Result<()> {
        let (folder, name) = self.writable_folder(path, "create")?;
        if let Some(problem) = validate::file_name_problem(name) {
            return Err(Error::not_permitted(format!(
                "cannot create {}: {problem}",
                self.shown(path)
            )));
        }
        let slug = name.trim_end_matches(".json");
        let Some(task) = self.store.tasks(|c| c.get(slug))? else {
            return Ok(());
        };
        match folder {
            Folder::Status(dir) if dir != task.fields.status => Err(Error::exists(format!(
                "cannot create {}: task {slug} exists in {}; to change its status: `mv {} {}`",
                self.shown(path),
                self.links.dir(&["tasks", task.fields.status.as_str()]),
                views::task_path(&self.links, &task),
                self.links.dir(&["tasks", dir.as_str()])
            ))),
            _ => Ok(()),
        }
    }

    fn remove(&self, path: &[&str]) -> Result<()> {
        // Only rmdir reaches here with a directory. The directories are fixed, but a full
        // one says so as ENOTEMPTY, what `rm -r` and file managers expect.
        if !matches!(self.place(path)?, TaskPath::File(..)) {
            let members = self.names(&Glance::new(), path)?;
            if !members.is_empty() {
                let mut dir = vec!["tasks"];
                dir.extend_from_slice(path);
                return Err(crate::resources::not_empty(
                    &self.links.dir(&dir),
                    &members,
                    "to delete a task, rm it in its status directory; the directories of tasks/ \
                     are fixed (open, in_progress, blocked, done, ready, tags) and stay even when \
                     empty",
                ));
            }
        }
        let (folder, name) = self.writable_folder(path, "remove")?;
        self.store.change_tasks(|conn| {
            let task = self.find(conn, None, path, folder, name)?;
            let dependents = conn.dependents(task.id)?;
            if !dependents.is_empty() {
                let names: Vec<String> = dependents
                    .iter()
                    .map(|(slug, status)| {
                        self.links
                            .to(&format!("tasks/{}/{slug}.json", status.as_str()))
                    })
                    .collect();
                // EINVAL, as for a write naming an unknown dependency: the removal would
                // leave the tasks inconsistent. ENOTEMPTY would read "Directory not empty"
                // on a file, and EBUSY suggests that trying again could work.
                return Err(Error::invalid(format!(
                    "cannot remove {}: {} on it; remove {:?} from their \"depends_on\" first: {}",
                    self.shown(path),
                    one_or_many(names.len(), "1 task depends", "tasks depend"),
                    task.slug,
                    names.join(", ")
                )));
            }
            conn.delete(task.id)
        })
    }

    fn rename(&self, from: &[&str], to: &[&str]) -> Result<()> {
        let (from_folder, from_name) = self.writable_folder(from, "move")?;
        let (to_folder, to_name) = match self.place(to)? {
            TaskPath::File(Folder::Ready | Folder::Tag(_), _)
            | TaskPath::Ready
            | TaskPath::Tags
            | TaskPath::Tag(_) => {
                return Err(Error::read_only(format!(
                    "cannot move {} to {}: ready/ and tags/ are views that follow the tasks; to \
                     change a status, move the file to a status directory, e.g. `mv {} {}`",
                    self.shown(from),
                    self.shown(to),
                    self.shown(from),
                    self.links.dir(&["tasks", "in_progress"])
                )));
            }
            _ => self.writable_folder(to, "move to")?,
        };
        if let Some(problem) = validate::file_name_problem(to_name) {
            // EPERM, not EINVAL: coreutils `mv` reads EINVAL from rename(2) as "cannot move
            // a directory into itself" and prints that instead of the real reason.
            return Err(Error::not_permitted(format!(
                "cannot move {} to {}: {problem}",
                self.shown(from),
                self.shown(to)
            )));
        }
        let new_slug = to_name.trim_end_matches(".json");
        self.store.change_tasks(|conn| {
            let task = self.find(conn, None, from, from_folder, from_name)?;
            let status = match to_folder {
                Folder::Status(s) => s,
                _ => task.fields.status,
            };
            if new_slug != task.slug {
                if let Some(other) = conn.get(new_slug)? {
                    return Err(Error::exists(format!(
                        "cannot move {} to {}: task {new_slug} exists ({}); choose another name \
                         or remove it first",
                        self.shown(from),
                        self.shown(to),
                        views::task_path(&self.links, &other)
                    )));
                }
            } else if status == task.fields.status {
                return Ok(());
            }
            conn.rename(task.id, new_slug, status, self.now())
        })
    }

    fn mkdir(&self, path: &[&str]) -> Result<()> {
        match self.place(path) {
            Ok(TaskPath::Root | TaskPath::StatusDir(_) | TaskPath::Ready | TaskPath::Tags) => {
                Err(Error::exists(format!("{} exists", self.shown(path))))
            }
            _ => Err(Error::not_permitted(format!(
                "cannot make {}: tasks/ has fixed directories (open, in_progress, blocked, done, \
                 ready, tags); a tag directory appears when a task has that tag",
                self.shown(path)
            ))),
        }
    }
}

impl Search for Tasks {
    fn search(&self, query: &str, limit: usize) -> Result<Hits> {
        let (found, total, note) = self.store.tasks(|c| filters::search(c, query, limit))?;
        Ok(Hits {
            hits: found
                .iter()
                .map(|task| Hit {
                    path: views::task_path(&self.links, task),
                    line: format!(
                        "P{} {}: {}",
                        task.fields.priority, task.slug, task.fields.title
                    ),
                    ..Hit::default()
                })
                .collect(),
            total,
            note,
            ..Hits::default()
        })
    }
}
