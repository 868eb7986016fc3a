//! The generated side of `tasks/`: the entry views of its directories, the lines that
//! describe one task in listings and on the root dashboard, and the one-line summary.
//!
//! Each view asks the store for counts and for the first [`ENTRY_ITEMS`] tasks in order
//! (never all tasks; one statement on PostgreSQL, where each is a round trip), so reading
//! `_entry.md` costs the same with 10 tasks or 10,000. When there are
//! more, the section heading says how many and where the rest are; headings survive pruning.

use crate::error::Result;
use crate::model::count::{one_or_many, plural};
use crate::model::links::Links;
use crate::model::{Child, Kind, RootPart, Verb};
use crate::model::{Entry, Function, Section};
use crate::store::tasks::{Counts, Filter, Status, Task, TaskRecords};

/// Tasks shown in one section of an entry view: a budget of 500 tokens has room for about
/// this many one-line items (~20 tokens each) beside the functions table.
pub const ENTRY_ITEMS: usize = 8;
/// Tasks in the root entry, whose functions table is longer.
pub const ROOT_ITEMS: usize = 6;
/// Tasks on the root dashboard.
pub const DASHBOARD_ITEMS: usize = 3;
/// Characters of a task's title on the root dashboard.
const TITLE_CHARS: usize = 48;

/// `/mnt/hs/tasks/open/fix-login.json`: where `task` lives.
pub fn task_path(links: &Links, task: &Task) -> String {
    links.to(&format!(
        "tasks/{}/{}.json",
        task.fields.status.as_str(),
        task.slug
    ))
}

/// `P1 `/mnt/hs/tasks/open/fix-login.json` — Fix the login form [ui, auth]`.
pub fn task_line(links: &Links, task: &Task) -> String {
    format!(
        "P{} `{}` — {}{}",
        task.fields.priority,
        task_path(links, task),
        task.fields.title,
        tag_list(task)
    )
}

/// The member `<slug>.json` of a listing, described by priority, title, tags and size.
pub fn task_child(task: &Task, size: usize, lines: usize) -> Child {
    Child::new(
        format!("{}.json", task.slug),
        Kind::Document,
        format!(
            "P{} {}{} ({lines} lines, ~{} tokens)",
            task.fields.priority,
            task.fields.title,
            tag_list(task),
            size.div_ceil(4)
        ),
    )
}

fn tag_list(task: &Task) -> String {
    if task.fields.tags.is_empty() {
        String::new()
    } else {
        format!(" [{}]", task.fields.tags.join(", "))
    }
}

/// `7 outstanding (3 open, 1 in progress, 3 blocked), 2 done`, or `no tasks yet`.
pub fn state(counts: &Counts) -> String {
    if counts.total() == 0 {
        return "no tasks yet".to_string();
    }
    if counts.outstanding() == 0 {
        return format!("nothing outstanding, {} done", counts.done);
    }
    format!(
        "{} outstanding ({}), {} done",
        counts.outstanding(),
        outstanding_by_status(counts).join(", "),
        counts.done
    )
}

/// `3 open`, `1 in progress`, `2 blocked`: each outstanding status that has tasks.
fn outstanding_by_status(counts: &Counts) -> Vec<String> {
    [Status::Open, Status::InProgress, Status::Blocked]
        .into_iter()
        .filter(|s| counts.of(*s) > 0)
        .map(|s| format!("{} {}", counts.of(s), s.label()))
        .collect()
}

/// The root dashboard's line about tasks.
pub fn summary(conn: &dyn TaskRecords) -> Result<String> {
    let counts = conn.counts()?;
    let ready = if counts.open > 0 {
        format!(", {} ready to start", counts.ready)
    } else {
        String::new()
    };
    Ok(format!("outstanding work: {}{ready}", state(&counts)))
}

/// What tasks/ puts on the root dashboard: the top outstanding tasks, how to record one,
/// and the counts.
pub fn root_part(conn: &dyn TaskRecords, links: &Links) -> Result<RootPart> {
    let counts = conn.counts()?;
    let top = conn.list(Filter::Outstanding, Some(DASHBOARD_ITEMS))?;
    let all = format!("`cat {}`", links.to("tasks/_entry.md"));
    let mut state = vec![match counts.outstanding() {
        0 => "Tasks: none outstanding.".to_string(),
        n if n > top.len() => format!(
            "Tasks: {n} outstanding, top {} (`{}<name>.json`; all: {all}):",
            top.len(),
            links.to("tasks/")
        ),
        n => format!(
            "Tasks: {n} outstanding (`{}<name>.json`):",
            links.to("tasks/")
        ),
    }];
    // Short lines: the dashboard has about 300 tokens for everything.
    state.extend(top.iter().map(|t| {
        format!(
            "- P{} {} — {}",
            t.fields.priority,
            t.slug,
            crate::render::one_line(&t.fields.title, TITLE_CHARS)
        )
    }));
    Ok(RootPart {
        state,
        verbs: vec![
            Verb::new(
                "record a task",
                create_command(links, Status::Open).replace("<slug>", "<name>"),
            )
            .changing(),
        ],
        place: format!("tasks/ ({})", state_short(&counts)),
    })
}

/// `3 open, 1 done` and the like, for the dashboard's places.
fn state_short(counts: &Counts) -> String {
    if counts.total() == 0 {
        return "none yet".into();
    }
    let mut parts = outstanding_by_status(counts);
    parts.push(format!("{} done", counts.done));
    parts.join(", ")
}

/// `echo '{"title": "…"}' > /mnt/hs/tasks/open/<slug>.json`
fn create_command(links: &Links, status: Status) -> String {
    format!(
        "echo '{{\"title\": \"…\"}}' > {}<slug>.json",
        links.dir(&["tasks", status.as_str()])
    )
}

fn no_tasks_yet(links: &Links) -> String {
    format!(
        "no tasks yet: create one with `{}`",
        create_command(links, Status::Open).replace("<slug>", "fix-login")
    )
}

/// A section of `shown`, the first of the `total` tasks that `filter` selects, by priority.
fn task_section(
    links: &Links,
    heading: &str,
    filter: Filter<'_>,
    (shown, total): (Vec<Task>, usize),
    empty: String,
) -> Result<Section> {
    let rest = match filter {
        Filter::Outstanding => "`ls` a status directory for all",
        _ => "`ls` for all",
    };
    let heading = if total > shown.len() {
        format!("{heading} (first {} of {total}; {rest})", shown.len())
    } else {
        heading.to_string()
    };
    Ok(Section {
        heading,
        table_header: None,
        items: shown.iter().map(|t| task_line(links, t)).collect(),
        empty,
        ..Section::default()
    })
}

/// `tasks/_entry.md`: counts, what can be done, outstanding work by priority, directories.
pub fn root_entry(conn: &dyn TaskRecords, links: &Links) -> Result<Entry> {
    let (counts, shown) = conn.counts_and_list(Filter::Outstanding, ROOT_ITEMS)?;
    let at = |rel: &str| links.to(&format!("tasks/{rel}"));
    let outstanding = task_section(
        links,
        "Outstanding by priority",
        Filter::Outstanding,
        (shown, counts.outstanding()),
        if counts.total() == 0 {
            no_tasks_yet(links)
        } else {
            format!("nothing outstanding: all {} tasks are done", counts.done)
        },
    )?;
    let directories = vec![
        format!(
            "`{}` — {} ready to start: open, dependencies done",
            links.dir(&["tasks", "ready"]),
            counts.ready
        ),
        format!("`{}` — a directory per tag", links.dir(&["tasks", "tags"])),
    ];
    Ok(Entry {
        title: format!("tasks — {}", state(&counts)),
        about: vec!["Each task is a file <slug>.json in the directory of its status.".to_string()],
        functions: vec![
            Function::new(
                create_command(links, Status::Open),
                "create (only title is required)",
                "the task, with id and times",
            ),
            Function::new(
                format!("cat {}", at("open/<slug>.json")),
                "read",
                "its exact JSON",
            ),
            Function::new(
                format!("cp edited.json {}", at("open/<slug>.json")),
                "update (the whole file)",
                "if refused, every problem at once",
            ),
            Function::new(
                format!("mv {} {}", at("open/<slug>.json"), at("done/")),
                "change status; `mv` to <new>.json renames",
                "depends_on follows a rename",
            ),
            Function::new(
                format!("rm {}", at("open/<slug>.json")),
                "delete",
                "refused while others depend on it",
            ),
            Function::new(
                format!("cat \"{}\"", links.to("search/tasks:<words>")),
                "search titles, descriptions, tags",
                "ranked tasks with paths",
            ),
        ],
        sections: vec![
            outstanding,
            Section {
                heading: "Also here".to_string(),
                table_header: None,
                items: directories,
                empty: String::new(),
                ..Section::default()
            },
        ],
        advanced: advanced(links, &[]),
    })
}

/// `1 task`, `3 tasks`.
pub fn count_of(n: usize) -> String {
    format!("{n} task{}", plural(n))
}

fn advanced(links: &Links, dir: &[&str]) -> Vec<String> {
    let mut render = vec!["tasks"];
    render.extend_from_slice(dir);
    vec![
        "Fields: title (1–200 chars), status (default: the directory), priority (0 highest \
         to 4, default 2), tags, depends_on (task names), description; id, created, updated \
         are set by the store."
            .to_string(),
        format!(
            "Names: <slug>.json (a-z, 0-9, -; up to 64). `{}<slug>.json` reaches a task in any \
             status. Files up to 1 MiB.",
            links.dir(&["tasks"])
        ),
        format!(
            "Without a mount: `homespace render /{}/_entry.md`",
            render.join("/")
        ),
    ]
}

/// `tasks/open/_entry.md` and the other status directories.
pub fn status_entry(conn: &dyn TaskRecords, links: &Links, status: Status) -> Result<Entry> {
    let (counts, shown) = conn.counts_and_list(Filter::Status(status), ENTRY_ITEMS)?;
    let n = counts.of(status);
    let here = |name: &str| format!("{}{name}", links.dir(&["tasks", status.as_str()]));
    let what = match status {
        Status::Open => format!("{n} open {}", one_or_many(n, "task", "tasks")),
        Status::InProgress => format!("{n} {} in progress", one_or_many(n, "task", "tasks")),
        Status::Blocked => format!("{n} blocked {}", one_or_many(n, "task", "tasks")),
        Status::Done => format!("{n} done {}", one_or_many(n, "task", "tasks")),
    };
    let top = conn.list(Filter::Status(status), Some(1))?;
    let title = match top.first() {
        Some(first) if status != Status::Done => format!(
            "tasks/{} — {what}, highest priority P{}",
            status.as_str(),
            first.fields.priority
        ),
        _ if n == 0 => format!("tasks/{} — no tasks {}", status.as_str(), status.label()),
        _ => format!("tasks/{} — {what}", status.as_str()),
    };
    let empty = match status {
        Status::Open if counts.total() == 0 => no_tasks_yet(links),
        Status::Open => format!(
            "no open tasks: create one with `{}`",
            create_command(links, status)
        ),
        _ => format!(
            "no tasks {} — move one here: `mv {} {}`",
            status.label(),
            links.to("tasks/open/<slug>.json"),
            links.dir(&["tasks", status.as_str()])
        ),
    };
    let others: Vec<&str> = Status::ALL
        .into_iter()
        .filter(|s| *s != status)
        .map(Status::as_str)
        .collect();
    Ok(Entry {
        title,
        about: Vec::new(),
        functions: vec![
            Function::new(
                create_command(links, status),
                "create a task here",
                "the new task file",
            ),
            Function::new(
                format!("cat {}", here("<slug>.json")),
                "read a task",
                "its exact JSON",
            ),
            Function::new(
                format!(
                    "mv {} {}",
                    here("<slug>.json"),
                    links.dir(&["tasks", others[0]])
                ),
                format!("change its status (also {})", others[1..].join(", ")),
                "the file in that directory",
            ),
            Function::new(
                format!("rm {}", here("<slug>.json")),
                "delete",
                "refused while other tasks depend on it",
            ),
        ],
        sections: vec![task_section(
            links,
            "Tasks by priority",
            Filter::Status(status),
            (shown, n),
            empty,
        )?],
        advanced: advanced(links, &[status.as_str()]),
    })
}

/// `tasks/ready/_entry.md`: what can be started now.
pub fn ready_entry(conn: &dyn TaskRecords, links: &Links) -> Result<Entry> {
    let (counts, shown) = conn.counts_and_list(Filter::Ready, ENTRY_ITEMS)?;
    let empty = match counts.open {
        0 => "nothing ready: there are no open tasks".to_string(),
        1 => "nothing ready: the one open task waits for dependencies not yet done".to_string(),
        n => format!("nothing ready: all {n} open tasks wait for dependencies not yet done"),
    };
    Ok(Entry {
        title: format!("tasks/ready — {} ready to start", count_of(counts.ready)),
        about: vec![
            "Open tasks whose dependencies are all done, by priority. Read-only: change a task \
             in its status directory."
                .to_string(),
        ],
        functions: vec![
            Function::new(
                format!("cat {}", links.to("tasks/ready/<slug>.json")),
                "read a task",
                "its exact JSON",
            ),
            Function::new(
                format!(
                    "mv {} {}",
                    links.to("tasks/open/<slug>.json"),
                    links.dir(&["tasks", "in_progress"])
                ),
                "start working on it",
                "it leaves ready/",
            ),
        ],
        sections: vec![task_section(
            links,
            "Ready by priority",
            Filter::Ready,
            (shown, counts.ready),
            empty,
        )?],
        advanced: advanced(links, &["ready"]),
    })
}

/// `tasks/tags/_entry.md`: the tags in use, most used first.
pub fn tags_entry(conn: &dyn TaskRecords, links: &Links) -> Result<Entry> {
    let mut tags = conn.tags()?;
    let total = tags.len();
    tags.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    tags.truncate(ENTRY_ITEMS);
    let heading = if total > tags.len() {
        format!(
            "Tags, most used first (first {} of {total}; `ls` for all)",
            tags.len()
        )
    } else {
        "Tags, most used first".to_string()
    };
    Ok(Entry {
        title: format!("tasks/tags — {total} {}", one_or_many(total, "tag", "tags")),
        about: vec!["Read-only: tags are set in a task's \"tags\" list.".to_string()],
        functions: vec![Function::new(
            format!("ls {}", links.to("tasks/tags/<tag>/")),
            "tasks with that tag",
            "their files, by priority",
        )],
        sections: vec![Section {
            heading,
            table_header: None,
            items: tags
                .iter()
                .map(|(tag, n)| {
                    format!(
                        "`{}` — {}",
                        links.dir(&["tasks", "tags", tag]),
                        count_of(*n)
                    )
                })
                .collect(),
            empty: "no tags yet: add \"tags\": [\"ui\"] to a task".to_string(),
            ..Section::default()
        }],
        advanced: advanced(links, &["tags"]),
    })
}

/// `tasks/tags/<tag>/_entry.md`.
pub fn tag_entry(conn: &dyn TaskRecords, links: &Links, tag: &str) -> Result<Entry> {
    let total = conn.count(Filter::Tag(tag))?;
    Ok(Entry {
        title: format!("tasks/tags/{tag} — {} tagged {tag}", count_of(total)),
        about: vec!["Read-only: change a task in its status directory.".to_string()],
        functions: vec![Function::new(
            format!("cat {}", links.to(&format!("tasks/tags/{tag}/<slug>.json"))),
            "read a task",
            "its exact JSON",
        )],
        sections: vec![task_section(
            links,
            "Tasks by priority",
            Filter::Tag(tag),
            (conn.list(Filter::Tag(tag), Some(ENTRY_ITEMS))?, total),
            format!("no tasks tagged {tag}"),
        )?],
        advanced: advanced(links, &["tags", tag]),
    })
}
