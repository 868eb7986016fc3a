//! Checking what a writer sends as a task file, before anything is stored. Every problem
//! is collected — one line each, naming the field — so a single failed write tells the
//! writer everything to fix: syntax (line, column), unknown fields (with "did you mean"),
//! types and ranges, names of tags, and dependencies that are unknown or would make a cycle.

use std::collections::{HashMap, HashSet, VecDeque};

use serde_json::{Map, Value};

use crate::error::Result;
use crate::resources::json::{self, shown};
use crate::resources::tasks::problems::Problems;
use crate::store::tasks::{Status, TaskRecords};

/// Largest task file accepted; past it the write fails with `EFBIG`.
pub const MAX_BYTES: usize = 1 << 20;
pub const MAX_TITLE_CHARS: usize = 200;
pub const MAX_SLUG_CHARS: usize = 64;
pub const MAX_TAG_CHARS: usize = 32;
/// The default priority when a task file has none.
pub const DEFAULT_PRIORITY: u8 = 2;
/// The smallest valid task file, for messages.
const EXAMPLE: &str = r#"{"title": "Fix the login form"}"#;

/// The fields a writer may set, in the order task files show them.
const WRITABLE: [&str; 6] = [
    "title",
    "status",
    "priority",
    "tags",
    "depends_on",
    "description",
];
/// Fields the store manages: accepted and ignored, so a copy of an old file (`cp`) works.
const MANAGED: [&str; 3] = ["id", "created", "updated"];

/// Names writers reach for, and the field they mean.
const SYNONYMS: [(&str, &str); 12] = [
    (
        "name",
        "the file name is the task's name: rename it with mv",
    ),
    (
        "slug",
        "the file name is the task's name: rename it with mv",
    ),
    ("labels", "did you mean \"tags\"?"),
    ("state", "did you mean \"status\"?"),
    ("body", "did you mean \"description\"?"),
    ("notes", "did you mean \"description\"?"),
    ("details", "did you mean \"description\"?"),
    ("summary", "did you mean \"title\"?"),
    ("deps", "did you mean \"depends_on\"?"),
    ("dependencies", "did you mean \"depends_on\"?"),
    ("blocked_by", "did you mean \"depends_on\"?"),
    ("prio", "did you mean \"priority\"?"),
];

/// The writable fields of a task file as written. `status` is `None` when the file has none
/// (the directory or the stored task decides).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Draft {
    pub title: String,
    pub status: Option<Status>,
    pub priority: u8,
    pub tags: Vec<String>,
    pub depends_on: Vec<String>,
    pub description: String,
    /// The fields the store manages (`id`, `created`, `updated`) as written: a new task
    /// takes its own (a copy of another task's file is a new task), an existing one must
    /// keep the values it has.
    pub managed: Vec<(String, Value)>,
}

/// Why a name cannot be a task file, or `None` when `name` is `<slug>.json` with a valid slug.
pub fn file_name_problem(name: &str) -> Option<String> {
    let Some(slug) = name.strip_suffix(".json") else {
        return Some(format!(
            "{name:?} is not a task file name: tasks are named <slug>.json, e.g. fix-login.json"
        ));
    };
    slug_problem(slug).map(|why| format!("{name:?} is not a task file name: {why}"))
}

/// Why `slug` cannot name a task, or `None`.
pub fn slug_problem(slug: &str) -> Option<String> {
    if is_word(slug, MAX_SLUG_CHARS) {
        None
    } else {
        Some(format!(
            "a task name is 1–{MAX_SLUG_CHARS} lowercase letters, digits and dashes, not \
             starting with a dash (e.g. fix-login), got {slug:?}"
        ))
    }
}

/// Lowercase ASCII letters, digits and dashes, 1 to `max` of them, not starting with a
/// dash (`-rf.json` is read as options by every shell tool it is given to).
fn is_word(s: &str, max: usize) -> bool {
    !s.is_empty()
        && s.len() <= max
        && !s.starts_with('-')
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// A task file read as far as it could be: the fields (the valid part of them) and every
/// problem found. The write is refused unless `problems` is empty.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parsed {
    pub draft: Draft,
    pub problems: Problems,
}

/// Parses and checks `content` as a task file. `Err` is a file that is not a JSON object at
/// all (empty, not UTF-8, bad syntax, too deep): nothing more can be checked.
pub fn parse(content: &[u8]) -> Result<Parsed, Problems> {
    let value = json::decode(content, EXAMPLE).map_err(Problems::one)?;
    let Value::Object(object) = value else {
        return Err(Problems::one(format!(
            "a task file holds one JSON object such as {EXAMPLE}, got {}",
            shown(&value)
        )));
    };
    let mut problems = Problems::default();
    for key in object.keys() {
        if !WRITABLE.contains(&key.as_str()) && !MANAGED.contains(&key.as_str()) {
            problems.push(unknown_field(key));
        }
    }
    let draft = Draft {
        title: title(&object, &mut problems),
        status: status(&object, &mut problems),
        priority: priority(&object, &mut problems),
        tags: names(&object, "tags", &mut problems),
        depends_on: names(&object, "depends_on", &mut problems),
        managed: MANAGED
            .iter()
            .filter_map(|key| Some((key.to_string(), object.get(*key)?.clone())))
            .collect(),
        description: match object.get("description") {
            None => String::new(),
            Some(Value::String(s)) => s.clone(),
            Some(other) => {
                problems.push(format!(
                    "\"description\" must be a string, got {}",
                    shown(other)
                ));
                String::new()
            }
        },
    };
    Ok(Parsed { draft, problems })
}

fn title(object: &Map<String, Value>, problems: &mut Problems) -> String {
    match object.get("title") {
        None => problems.push(format!(
            "\"title\" is missing: every task needs a title (1–{MAX_TITLE_CHARS} characters)"
        )),
        Some(Value::String(s)) => {
            let chars = s.chars().count();
            if s.trim().is_empty() {
                problems.push(format!(
                    "\"title\" is blank: every task needs a title (1–{MAX_TITLE_CHARS} characters)"
                ));
            } else if chars > MAX_TITLE_CHARS {
                problems.push(format!(
                    "\"title\" must be 1–{MAX_TITLE_CHARS} characters, got {chars}"
                ));
            } else if s.chars().any(char::is_control) {
                problems
                    .push("\"title\" must be one line: put details in \"description\"".to_string());
            } else {
                return s.clone();
            }
        }
        Some(other) => problems.push(format!("\"title\" must be a string, got {}", shown(other))),
    }
    String::new()
}

fn status(object: &Map<String, Value>, problems: &mut Problems) -> Option<Status> {
    let value = object.get("status")?;
    let names = Status::ALL.map(Status::as_str);
    if let Some(status) = value.as_str().and_then(Status::parse) {
        return Some(status);
    }
    let hint = value
        .as_str()
        .and_then(|s| closest(&s.replace([' ', '-'], "_").to_lowercase(), names))
        .map(|n| format!(" (did you mean {n:?}?)"))
        .unwrap_or_default();
    problems.push(format!(
        "\"status\" must be one of {}, got {}{hint}",
        names.join(", "),
        shown(value)
    ));
    None
}

fn priority(object: &Map<String, Value>, problems: &mut Problems) -> u8 {
    match object.get("priority") {
        None => DEFAULT_PRIORITY,
        Some(value) => match value.as_u64().and_then(|p| u8::try_from(p).ok()) {
            Some(p) if p <= 4 => p,
            _ => {
                problems.push(format!(
                    "\"priority\" must be an integer 0 (highest) to 4, got {}",
                    shown(value)
                ));
                DEFAULT_PRIORITY
            }
        },
    }
}

/// `tags` or `depends_on`: a list of distinct lowercase names. Only the valid ones are kept,
/// so the dependency check can still run on them.
fn names(object: &Map<String, Value>, field: &str, problems: &mut Problems) -> Vec<String> {
    let (max, what) = if field == "tags" {
        (MAX_TAG_CHARS, "a tag")
    } else {
        (MAX_SLUG_CHARS, "a task name")
    };
    let items = match object.get(field) {
        None => return Vec::new(),
        Some(Value::Array(items)) => items,
        Some(other) => {
            problems.push(format!(
                "{field:?} must be a list of strings such as [\"ui\"], got {}",
                shown(other)
            ));
            return Vec::new();
        }
    };
    let mut kept: Vec<String> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        match item.as_str() {
            Some(name) if is_word(name, max) => {
                if kept.iter().any(|k| k == name) {
                    problems.push(format!("{field:?}: {name:?} is listed twice"));
                } else {
                    kept.push(name.to_string());
                }
            }
            _ => problems.push(format!(
                "{field:?}[{i}]: {what} is 1–{max} lowercase letters, digits and dashes, got {}",
                shown(item)
            )),
        }
    }
    kept
}

impl Draft {
    /// The problems with this draft's dependencies as task `slug`'s, against the store:
    /// names that are not tasks, a task depending on itself, and cycles (spelled out).
    /// `task_list` is where tasks are listed, for the message.
    pub fn dependency_problems(
        &self,
        conn: &dyn TaskRecords,
        slug: &str,
        task_list: &str,
    ) -> Result<Vec<String>> {
        let depends_on = &self.depends_on;
        let mut problems = Vec::new();
        let others: Vec<&str> = depends_on
            .iter()
            .map(String::as_str)
            .filter(|d| *d != slug)
            .collect();
        if depends_on.iter().any(|d| d == slug) {
            problems.push(format!(
                "\"depends_on\": a task cannot depend on itself ({slug:?})"
            ));
        }
        let found: HashSet<&str> = conn.existing(&others)?.into_iter().collect();
        let missing: Vec<&str> = others
            .iter()
            .copied()
            .filter(|d| !found.contains(d))
            .collect();
        if !missing.is_empty() {
            let known = conn.names()?;
            for name in &missing {
                let hint = closest(name, known.iter().map(String::as_str))
                    .map(|k| format!("did you mean {k:?}? "))
                    .unwrap_or_default();
                problems.push(format!(
                    "\"depends_on\": no task named {name:?} ({hint}tasks are listed in {task_list})"
                ));
            }
        }
        let targets: Vec<&str> = others.into_iter().filter(|d| found.contains(d)).collect();
        if !targets.is_empty() {
            let mut graph: HashMap<String, Vec<String>> = HashMap::new();
            for (from, to) in conn.dependencies_from(&targets)? {
                if from != slug {
                    graph.entry(from).or_default().push(to);
                }
            }
            for target in targets {
                if let Some(path) = path_between(&graph, target, slug) {
                    problems.push(format!(
                        "\"depends_on\": {target:?} would make a cycle: {slug} -> {}",
                        path.join(" -> ")
                    ));
                }
            }
        }
        Ok(problems)
    }
}

/// The shortest dependency path from `from` to `to` (both included), if any.
fn path_between(graph: &HashMap<String, Vec<String>>, from: &str, to: &str) -> Option<Vec<String>> {
    let mut came_from: HashMap<&str, &str> = HashMap::new();
    let mut queue = VecDeque::from([from]);
    let mut seen = HashSet::from([from]);
    while let Some(at) = queue.pop_front() {
        if at == to {
            let mut path = vec![at.to_string()];
            let mut step = at;
            while let Some(previous) = came_from.get(step) {
                path.push(previous.to_string());
                step = previous;
            }
            path.reverse();
            return Some(path);
        }
        for next in graph.get(at).into_iter().flatten() {
            if seen.insert(next.as_str()) {
                came_from.insert(next.as_str(), at);
                queue.push_back(next.as_str());
            }
        }
    }
    None
}

fn unknown_field(key: &str) -> String {
    if let Some((_, hint)) = SYNONYMS
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case(key))
    {
        return format!("unknown field {key:?} ({hint})");
    }
    match closest(&key.to_lowercase(), WRITABLE) {
        Some(field) => format!("unknown field {key:?} (did you mean {field:?}?)"),
        None => format!(
            "unknown field {key:?} (a task has {}; id, created and updated are set by the store)",
            WRITABLE.join(", ")
        ),
    }
}

/// The candidate most like `word`, when it is close enough to be what was meant.
fn closest<'c>(word: &str, candidates: impl IntoIterator<Item = &'c str>) -> Option<&'c str> {
    candidates
        .into_iter()
        .map(|c| (strsim::jaro_winkler(word, c), c))
        .filter(|(score, _)| *score >= 0.85)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problems(json: &str) -> Vec<String> {
        match parse(json.as_bytes()) {
            Ok(parsed) => parsed.problems.into(),
            Err(fatal) => fatal.into(),
        }
    }

    fn draft(json: &[u8]) -> Draft {
        let parsed = parse(json).unwrap();
        assert_eq!(
            Vec::<String>::from(parsed.problems.clone()),
            Vec::<String>::new()
        );
        parsed.draft
    }

    #[test]
    fn a_minimal_task_gets_defaults() {
        let draft = draft(br#"{"title": "Fix the login form"}"#);
        assert_eq!(draft.title, "Fix the login form");
        assert_eq!((draft.status, draft.priority), (None, 2));
        assert!(draft.tags.is_empty() && draft.depends_on.is_empty());
    }

    #[test]
    fn managed_fields_are_kept_as_written_for_the_store_to_judge() {
        let draft = draft(br#"{"id": "x", "title": "T", "created": 1, "updated": null}"#);
        assert_eq!(draft.title, "T");
        assert_eq!(
            draft.managed,
            [
                ("id".to_string(), Value::from("x")),
                ("created".to_string(), Value::from(1)),
                ("updated".to_string(), Value::Null)
            ]
        );
    }

    #[test]
    fn syntax_errors_name_line_and_column() {
        assert_eq!(
            problems("{\n  \"title\": \"a\"\n  \"priority\": 1\n}"),
            ["line 3, column 3: expected `,` or `}` (the file must be JSON)"]
        );
    }

    #[test]
    fn every_field_problem_is_listed() {
        assert_eq!(
            problems(
                r#"{"titel": "x", "status": "in progress", "priority": "high",
                    "tags": ["UI", "ok", "ok"], "depends_on": "a", "description": 3, "name": 1}"#
            ),
            [
                "unknown field \"name\" (the file name is the task's name: rename it with mv)",
                "unknown field \"titel\" (did you mean \"title\"?)",
                "\"title\" is missing: every task needs a title (1–200 characters)",
                "\"status\" must be one of open, in_progress, blocked, done, got \"in progress\" \
                 (did you mean \"in_progress\"?)",
                "\"priority\" must be an integer 0 (highest) to 4, got \"high\"",
                "\"tags\"[0]: a tag is 1–32 lowercase letters, digits and dashes, got \"UI\"",
                "\"tags\": \"ok\" is listed twice",
                "\"depends_on\" must be a list of strings such as [\"ui\"], got \"a\"",
                "\"description\" must be a string, got 3",
            ]
        );
    }

    #[test]
    fn titles_are_one_line_of_1_to_200_characters() {
        let blank = "\"title\" is blank: every task needs a title (1–200 characters)";
        assert_eq!(problems(r#"{"title": " "}"#), [blank]);
        assert_eq!(problems(r#"{"title": ""}"#), [blank]);
        let long = format!(r#"{{"title": "{}"}}"#, "é".repeat(201));
        assert_eq!(
            problems(&long),
            ["\"title\" must be 1–200 characters, got 201"]
        );
        draft(format!(r#"{{"title": "{}"}}"#, "é".repeat(200)).as_bytes());
        assert_eq!(
            problems(r#"{"title": "a\nb"}"#),
            ["\"title\" must be one line: put details in \"description\""]
        );
    }

    #[test]
    fn priorities_are_integers_0_to_4() {
        for bad in ["5", "-1", "1.5", "null", "\"1\""] {
            let p = problems(&format!(r#"{{"title": "t", "priority": {bad}}}"#));
            assert_eq!(
                p,
                [format!(
                    "\"priority\" must be an integer 0 (highest) to 4, got {bad}"
                )]
            );
        }
    }

    #[test]
    fn a_file_that_is_not_an_object_is_refused() {
        assert_eq!(
            problems("[1]"),
            [
                "a task file holds one JSON object such as {\"title\": \"Fix the login form\"}, got [1]"
            ]
        );
        assert_eq!(
            problems(""),
            ["the file is empty: write a JSON object such as {\"title\": \"Fix the login form\"}"]
        );
    }

    #[test]
    fn file_names_are_slugs() {
        assert_eq!(file_name_problem("fix-login-2.json"), None);
        for bad in [
            "Fix.json", "fix", ".json", "..json", "...json", "-rf.json", "a_b.json", "ü.json",
        ] {
            assert!(file_name_problem(bad).is_some(), "{bad}");
        }
        assert!(file_name_problem(&format!("{}.json", "a".repeat(64))).is_none());
        assert!(file_name_problem(&format!("{}.json", "a".repeat(65))).is_some());
    }

    #[test]
    fn cycles_are_spelled_out() {
        let mut graph = HashMap::new();
        graph.insert("b".to_string(), vec!["c".to_string()]);
        graph.insert("c".to_string(), vec!["a".to_string()]);
        assert_eq!(path_between(&graph, "b", "a").unwrap(), ["b", "c", "a"]);
        assert_eq!(path_between(&graph, "a", "b"), None);
    }
}
