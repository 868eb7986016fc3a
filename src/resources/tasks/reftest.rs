//! Reference-model test: random sequences of creates, updates, moves, renames and deletes —
//! valid and invalid — applied both to a plain `BTreeMap` model and to the `Tasks` resource.
//! After every step the listings of the status directories and `ready/`, and every task's
//! content, must match the model; a step the model refuses must fail with the same kind of
//! error and change nothing; `id` and `created` never change, and `updated` moves exactly
//! when the model says the task changed.

use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;
use serde_json::{Value, json};

use super::tests::{fixture, fixture_on, snapshot};
use super::*;
use crate::tree::resource::ReadNow;

const SLUGS: [&str; 5] = ["a", "b", "c", "d", "e"];
const TITLES: [&str; 3] = ["Fix it", "Ship the \"thing\"", ""];
const DESCRIPTIONS: [&str; 3] = ["", "line one\nline two", "ünïcode"];
const TAGS: [&str; 3] = ["ui", "db", "ops"];

/// What a writer puts in a task file; may be invalid (empty title, priority 5, unknown or
/// cyclic dependencies, a status that contradicts the directory).
#[derive(Debug, Clone)]
struct Spec {
    title: &'static str,
    status: Option<Status>,
    priority: u8,
    tags: Vec<&'static str>,
    depends_on: Vec<&'static str>,
    description: &'static str,
}

#[derive(Debug, Clone)]
enum Op {
    Write {
        dir: Option<Status>,
        slug: &'static str,
        spec: Spec,
    },
    Garbage {
        dir: Option<Status>,
        slug: &'static str,
        content: Vec<u8>,
    },
    Move {
        slug: &'static str,
        to: Status,
        via_root: bool,
    },
    Rename {
        slug: &'static str,
        to: &'static str,
    },
    Delete {
        slug: &'static str,
        via_root: bool,
    },
}

fn status() -> impl Strategy<Value = Status> {
    prop::sample::select(Status::ALL.to_vec())
}

fn slug() -> impl Strategy<Value = &'static str> {
    prop::sample::select(SLUGS.to_vec())
}

fn spec() -> impl Strategy<Value = Spec> {
    (
        prop::sample::select(TITLES.to_vec()),
        prop::option::weighted(0.3, status()),
        0u8..=5,
        prop::sample::subsequence(TAGS.to_vec(), 0..=2),
        prop::sample::subsequence(SLUGS.to_vec(), 0..=2),
        prop::sample::select(DESCRIPTIONS.to_vec()),
    )
        .prop_map(
            |(title, status, priority, tags, depends_on, description)| Spec {
                title,
                status,
                priority,
                tags,
                depends_on,
                description,
            },
        )
}

fn op() -> impl Strategy<Value = Op> {
    let garbage = prop::sample::select(vec![
        b"{\"title\": \"x\",}".to_vec(),
        b"".to_vec(),
        b"{\"title\": \"\xff\"}".to_vec(),
        b"{\"titel\": \"x\"}".to_vec(),
        b"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]".to_vec(),
    ]);
    prop_oneof![
        5 => (prop::option::of(status()), slug(), spec())
            .prop_map(|(dir, slug, spec)| Op::Write { dir, slug, spec }),
        1 => (prop::option::of(status()), slug(), garbage)
            .prop_map(|(dir, slug, content)| Op::Garbage { dir, slug, content }),
        2 => (slug(), status(), any::<bool>())
            .prop_map(|(slug, to, via_root)| Op::Move { slug, to, via_root }),
        1 => (slug(), slug()).prop_map(|(slug, to)| Op::Rename { slug, to }),
        1 => (slug(), any::<bool>()).prop_map(|(slug, via_root)| Op::Delete { slug, via_root }),
    ]
}

#[derive(Debug, Clone, PartialEq)]
struct ModelTask {
    fields: Fields,
    /// Bumped whenever the task's file content (other than `updated`) or name changes.
    version: u64,
}

/// The model: tasks by name, nothing else.
#[derive(Debug, Default)]
struct Model {
    tasks: BTreeMap<String, ModelTask>,
}

impl Model {
    /// Whether `from` reaches `to` following `depends_on`.
    fn reaches(&self, from: &str, to: &str, seen: &mut BTreeSet<String>) -> bool {
        if from == to {
            return true;
        }
        if !seen.insert(from.to_string()) {
            return false;
        }
        let next = self
            .tasks
            .get(from)
            .map(|t| t.fields.depends_on.clone())
            .unwrap_or_default();
        next.iter().any(|n| self.reaches(n, to, seen))
    }

    fn write(&mut self, dir: Option<Status>, slug: &str, spec: &Spec) -> Result<(), ErrorKind> {
        let existing = self.tasks.get(slug);
        if let (Some(task), Some(dir)) = (existing, dir)
            && task.fields.status != dir
        {
            return Err(ErrorKind::Exists);
        }
        let mut valid = !spec.title.is_empty() && spec.priority <= 4;
        if let (Some(written), Some(dir)) = (spec.status, dir) {
            valid &= written == dir;
        }
        for dep in &spec.depends_on {
            valid &= *dep != slug
                && self.tasks.contains_key(*dep)
                && !self.reaches(dep, slug, &mut BTreeSet::new());
        }
        if !valid {
            return Err(ErrorKind::Invalid);
        }
        let fields = Fields {
            title: spec.title.to_string(),
            status: spec
                .status
                .or(dir)
                .or(existing.map(|t| t.fields.status))
                .unwrap_or(Status::Open),
            priority: spec.priority,
            tags: spec.tags.iter().map(|s| s.to_string()).collect(),
            depends_on: spec.depends_on.iter().map(|s| s.to_string()).collect(),
            description: spec.description.to_string(),
        };
        match self.tasks.get_mut(slug) {
            Some(task) if task.fields == fields => {}
            Some(task) => {
                task.fields = fields;
                task.version += 1;
            }
            None => {
                self.tasks
                    .insert(slug.to_string(), ModelTask { fields, version: 0 });
            }
        }
        Ok(())
    }

    fn garbage(&self, dir: Option<Status>, slug: &str) -> Result<(), ErrorKind> {
        match (self.tasks.get(slug), dir) {
            (Some(task), Some(dir)) if task.fields.status != dir => Err(ErrorKind::Exists),
            _ => Err(ErrorKind::Invalid),
        }
    }

    fn move_to(&mut self, slug: &str, to: Status) -> Result<(), ErrorKind> {
        let task = self.tasks.get_mut(slug).ok_or(ErrorKind::NotFound)?;
        if task.fields.status != to {
            task.fields.status = to;
            task.version += 1;
        }
        Ok(())
    }

    fn rename(&mut self, slug: &str, to: &str) -> Result<(), ErrorKind> {
        if !self.tasks.contains_key(slug) {
            return Err(ErrorKind::NotFound);
        }
        if slug == to {
            return Ok(());
        }
        if self.tasks.contains_key(to) {
            return Err(ErrorKind::Exists);
        }
        let mut task = self.tasks.remove(slug).ok_or(ErrorKind::NotFound)?;
        task.version += 1;
        self.tasks.insert(to.to_string(), task);
        for other in self.tasks.values_mut() {
            if other.fields.depends_on.iter().any(|d| d == slug) {
                for d in &mut other.fields.depends_on {
                    if d == slug {
                        *d = to.to_string();
                    }
                }
                other.version += 1;
            }
        }
        Ok(())
    }

    fn delete(&mut self, slug: &str) -> Result<(), ErrorKind> {
        if !self.tasks.contains_key(slug) {
            return Err(ErrorKind::NotFound);
        }
        if self
            .tasks
            .values()
            .any(|t| t.fields.depends_on.iter().any(|d| d == slug))
        {
            return Err(ErrorKind::Invalid);
        }
        self.tasks.remove(slug);
        Ok(())
    }

    /// The file names a directory lists, by priority then name.
    fn listing(&self, keep: impl Fn(&ModelTask) -> bool) -> Vec<String> {
        let mut names: Vec<(u8, String)> = self
            .tasks
            .iter()
            .filter(|(_, t)| keep(t))
            .map(|(slug, t)| (t.fields.priority, format!("{slug}.json")))
            .collect();
        names.sort();
        names.into_iter().map(|(_, name)| name).collect()
    }

    fn ready(&self, task: &ModelTask) -> bool {
        task.fields.status == Status::Open
            && task.fields.depends_on.iter().all(|d| {
                self.tasks
                    .get(d)
                    .is_some_and(|t| t.fields.status == Status::Done)
            })
    }
}

fn file(dir: Option<Status>, slug: &str) -> Vec<String> {
    let name = format!("{slug}.json");
    match dir {
        Some(status) => vec![status.as_str().to_string(), name],
        None => vec![name],
    }
}

fn content(spec: &Spec) -> Vec<u8> {
    let mut object = json!({
        "title": spec.title,
        "priority": spec.priority,
        "tags": spec.tags,
        "depends_on": spec.depends_on,
        "description": spec.description,
    });
    if let (Some(status), Value::Object(map)) = (spec.status, &mut object) {
        map.insert("status".into(), json!(status.as_str()));
    }
    serde_json::to_vec(&object).unwrap()
}

/// What the harness saw of each task last time: (model version, id, created, updated).
type Seen = BTreeMap<String, (u64, i64, String, String)>;

fn apply(
    tasks: &Tasks,
    model: &mut Model,
    op: &Op,
) -> (Result<(), ErrorKind>, Result<(), ErrorKind>) {
    let kind = |r: Result<()>| r.map_err(|e| e.kind);
    let status_of = |model: &Model, slug: &str| {
        model
            .tasks
            .get(slug)
            .map_or(Status::Open, |t| t.fields.status)
    };
    match op {
        Op::Write { dir, slug, spec } => {
            let path = file(*dir, slug);
            let path: Vec<&str> = path.iter().map(String::as_str).collect();
            (
                model.write(*dir, slug, spec),
                kind(tasks.write(&path, &content(spec), None)),
            )
        }
        Op::Garbage { dir, slug, content } => {
            let path = file(*dir, slug);
            let path: Vec<&str> = path.iter().map(String::as_str).collect();
            (
                model.garbage(*dir, slug),
                kind(tasks.write(&path, content, None)),
            )
        }
        Op::Move { slug, to, via_root } => {
            let from = file((!via_root).then(|| status_of(model, slug)), slug);
            let from: Vec<&str> = from.iter().map(String::as_str).collect();
            let name = format!("{slug}.json");
            let actual = kind(tasks.rename(&from, &[to.as_str(), &name]));
            (model.move_to(slug, *to), actual)
        }
        Op::Rename { slug, to } => {
            let status = status_of(model, slug).as_str();
            let (from, into) = (format!("{slug}.json"), format!("{to}.json"));
            let actual = kind(tasks.rename(&[status, &from], &[status, &into]));
            (model.rename(slug, to), actual)
        }
        Op::Delete { slug, via_root } => {
            let path = file((!via_root).then(|| status_of(model, slug)), slug);
            let path: Vec<&str> = path.iter().map(String::as_str).collect();
            (model.delete(slug), kind(tasks.remove(&path)))
        }
    }
}

fn names(children: Vec<Child>) -> Vec<String> {
    children.into_iter().map(|c| c.name).collect()
}

fn check(tasks: &Tasks, model: &Model, seen: &mut Seen, renamed: Option<(&str, &str)>) {
    for status in Status::ALL {
        let listed = names(tasks.list_now(&[status.as_str()]).unwrap());
        assert_eq!(
            listed,
            model.listing(|t| t.fields.status == status),
            "{}/",
            status.as_str()
        );
    }
    assert_eq!(
        names(tasks.list_now(&["ready"]).unwrap()),
        model.listing(|t| model.ready(t)),
        "ready/"
    );
    // The counters against the model itself (ready/ above checks `waiting` too).
    let counts = tasks.store.tasks(|c| c.counts()).unwrap();
    let of = |status: Status| {
        model
            .tasks
            .values()
            .filter(|t| t.fields.status == status)
            .count()
    };
    let expected = crate::store::tasks::Counts {
        open: of(Status::Open),
        in_progress: of(Status::InProgress),
        blocked: of(Status::Blocked),
        done: of(Status::Done),
        ready: model.tasks.values().filter(|t| model.ready(t)).count(),
    };
    assert_eq!(counts, expected);
    if let Some((from, to)) = renamed
        && let Some(before) = seen.remove(from)
    {
        seen.insert(to.to_string(), before);
    }
    seen.retain(|slug, _| model.tasks.contains_key(slug));
    for (slug, task) in &model.tasks {
        let path = [
            task.fields.status.as_str().to_string(),
            format!("{slug}.json"),
        ];
        let bytes = tasks.read_now(&[&path[0], &path[1]]).unwrap();
        assert_eq!(tasks.read_now(&[&path[1]]).unwrap(), bytes);
        let file: Value = serde_json::from_slice(&bytes).unwrap();
        let expected = json!({
            "id": file["id"],
            "title": task.fields.title,
            "status": task.fields.status.as_str(),
            "priority": task.fields.priority,
            "tags": task.fields.tags,
            "depends_on": task.fields.depends_on,
            "description": task.fields.description,
            "created": file["created"],
            "updated": file["updated"],
        });
        assert_eq!(file, expected, "{slug}");
        let id = file["id"].as_i64().unwrap();
        let created = file["created"].as_str().unwrap().to_string();
        let updated = file["updated"].as_str().unwrap().to_string();
        if let Some((version, old_id, old_created, old_updated)) = seen.get(slug) {
            assert_eq!(
                (id, &created),
                (*old_id, old_created),
                "{slug}: id and created are kept"
            );
            assert_eq!(
                task.version == *version,
                updated == *old_updated,
                "{slug}: updated moves exactly when the task changes"
            );
        }
        seen.insert(slug.clone(), (task.version, id, created, updated));
        // Writing back what was read changes nothing.
        tasks.write(&[&path[0], &path[1]], &bytes, None).unwrap();
        assert_eq!(
            tasks.read_now(&[&path[1]]).unwrap(),
            bytes,
            "{slug}: round trip"
        );
    }
}

/// Apply `ops` to `tasks` and to the model, checking after every step.
fn behaves_like_the_model(tasks: &Tasks, ops: &[Op]) -> Result<(), TestCaseError> {
    let mut model = Model::default();
    let mut seen = Seen::new();
    for op in ops {
        let before = snapshot(tasks);
        let (expected, actual) = apply(tasks, &mut model, op);
        prop_assert_eq!(expected, actual, "{:?}", op);
        if actual.is_err() {
            prop_assert_eq!(
                &snapshot(tasks),
                &before,
                "a refused {:?} changed the store",
                op
            );
        }
        let renamed = match (op, actual) {
            (Op::Rename { slug, to }, Ok(())) => Some((*slug, *to)),
            _ => None,
        };
        check(tasks, &model, &mut seen, renamed);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn tasks_behave_like_the_model(ops in prop::collection::vec(op(), 1..40)) {
        behaves_like_the_model(&fixture(), &ops)?;
    }
}

/// The same on PostgreSQL: one private server, a new database for each case (fewer cases:
/// each costs a database).
#[test]
fn tasks_behave_like_the_model_on_postgres() {
    let server = crate::store::postgres::scratch::ScratchServer::start().unwrap();
    let made = std::sync::atomic::AtomicUsize::new(0);
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
        cases: 16,
        ..ProptestConfig::default()
    });
    let outcome = runner.run(&prop::collection::vec(op(), 1..40), |ops| {
        let n = made.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let url = server.database(&format!("case{n}")).unwrap();
        let store = std::sync::Arc::new(crate::store::Store::connect(&url).unwrap());
        behaves_like_the_model(&fixture_on(store), &ops)
    });
    if let Err(e) = outcome {
        panic!("{e}");
    }
}
