//! The generated side of `memory/`: entry views of its directories, the one line that
//! describes a session wherever it is listed, `related.md` and `recall`.

use crate::model::count::{one_or_many, plural};
use crate::model::time::Time;
use crate::model::transcript::Channel;
use crate::model::{Entry, Function, Links, Section};
use crate::render::{budget, inert};
use crate::resources::memory::conversation::{self, CONVERSATION};
use crate::resources::memory::document;
pub use crate::resources::memory::names::{entry_name, session_dir};
use crate::store::memory::{SessionRow, Stats};

/// The session files that are not entries.
pub const SUMMARY: &str = "summary.md";
pub const RELATED: &str = "related.md";

/// Rows of the functions table for a session directory: the reads that answer most. Its
/// entries, tags and appends are told under Advanced, shorter, so the digest keeps the room.
pub fn session_functions(row: &SessionRow, links: &Links) -> Vec<Function> {
    let dir = format!("memory/sessions/{}/{}", row.day, row.record.id);
    vec![
        Function::new(
            format!("cat {}", links.to(&format!("{dir}/{SUMMARY}"))),
            "read the summary",
            "five sections; write it to record one",
        ),
        Function::new(
            format!(
                "cat {}",
                links.to(&format!(
                    "{dir}/{CONVERSATION}/{}",
                    conversation::page_name(1)
                ))
            ),
            "read the conversation",
            "user and assistant turns in order, tools folded; pages link on",
        ),
        Function::new(
            format!(
                "cat \"{}\"",
                links.to(&format!("search/memory:session:{} <words>", row.record.id))
            ),
            "search this session",
            "ranked entries with snippets",
        ),
    ]
}

/// The Advanced lines of a session directory: its entries, what they take, `related.md`.
fn session_advanced(row: &SessionRow) -> Vec<String> {
    vec![
        format!(
            "`{}` … `{}` are its entries as exact JSON (seq, ts, channel, content, tags, meta); \
             only their tags change (`sed -i` their `\"tags\"`); a new `*.json` appends one: `{}`.",
            entry_name(row, 1),
            entry_name(row, row.entries.max(1) as i64),
            document::EXAMPLE
        ),
        format!(
            "`{RELATED}`: up to 5 sessions like this one, by the distinctive terms of its summary and last entries."
        ),
    ]
}

/// Characters of a title or an entry shown in a one-line item.
const LINE_CHARS: usize = 100;

/// `claude-code, 2026-11-20T10:00:00Z–11:42:10Z, 312 entries — Fix the login form`.
pub fn session_line(row: &SessionRow) -> String {
    format!("{} — {}", session_facts(row), cut(&row.record.title))
}

/// `claude-code, 2026-11-20T10:00:00Z–11:42:10Z, 312 entries`: where a session came from,
/// when it ran and how long it is.
fn session_facts(row: &SessionRow) -> String {
    let shown = |t: &Option<Time>| t.map(|t| t.to_string());
    let time = match (shown(&row.record.started), shown(&row.record.ended)) {
        (Some(start), Some(end)) if end.get(..10) == start.get(..10) && end != start => {
            format!("{start}–{}", end.get(11..).unwrap_or(&end))
        }
        (Some(start), _) => start,
        (None, _) => row.day.clone(),
    };
    format!(
        "{}, {time}, {} entr{}",
        row.record.source,
        row.entries,
        one_or_many(row.entries, "y", "ies"),
    )
}

/// A transcript's text (a title, an entry) as one inert line of `LINE_CHARS`.
pub fn cut(text: &str) -> String {
    cut_to(text, LINE_CHARS)
}

/// A transcript's text as one inert line ([`crate::render::inert`]) of at most `chars`
/// characters.
pub fn cut_to(text: &str, chars: usize) -> String {
    crate::render::inert::line(text, chars)
}

/// `memory/_entry.md`.
pub fn root(stats: &Stats, recent: &[SessionRow], links: &Links) -> Entry {
    let range = match (&stats.first_day, &stats.last_day) {
        (Some(first), Some(last)) if first != last => format!(", {first} to {last}"),
        (Some(day), _) => format!(", on {day}"),
        _ => String::new(),
    };
    let sources = stats
        .sources
        .iter()
        .map(|(source, n)| format!("{source} {n}"))
        .collect::<Vec<_>>()
        .join(", ");
    let mut about = vec![format!(
        "{} session{}, {} entries{range}{}",
        stats.sessions,
        plural(stats.sessions),
        stats.entries,
        if sources.is_empty() {
            String::new()
        } else {
            format!(" (from {sources})")
        }
    )];
    about.push(format!(
        "Channels of entries: {}.",
        Channel::ALL.map(Channel::as_str).join(", ")
    ));
    Entry {
        title: "memory — past sessions, searchable and recalled".into(),
        about,
        functions: vec![
            Function::new(
                format!("cat {}", links.to("memory/recall")),
                "recall what matters now",
                "past sessions most like the latest one",
            ),
            Function::new(
                format!("ls {}", links.dir(&["memory", "sessions"])),
                "browse sessions by day",
                "one directory per day",
            ),
            Function::new(
                format!("cat \"{}\"", links.to("search/memory:<words>")),
                "search every entry",
                "ranked hits with snippets; filters channel: tool: tag: session: file: (a path, : for /) since: until: (a day, or 7d back)",
            ),
            Function::new(
                format!("cat {}", links.to("memory/files/<path>/_entry.md")),
                "see who changed a file",
                "every past session that changed it, newest first",
            ),
            Function::new(
                format!("cp session.jsonl {}", links.dir(&["memory", "import"])),
                "import a transcript",
                "any agent's transcript or plain JSONL; once only",
            ),
            Function::new(
                format!("mkdir {}", links.to("memory/sessions/<YYYY-MM-DD>/<name>")),
                "record a session of your own",
                "then append entries as *.json",
            ),
        ],
        sections: vec![Section {
            heading: "Recent sessions".into(),
            items: recent
                .iter()
                .map(|row| format!("`{}` — {}", session_dir(row, links), session_line(row)))
                .collect(),
            empty: format!(
                "No sessions yet: copy transcripts into {} or run `homespace import PATH`.",
                links.dir(&["memory", "import"])
            ),
            ..Section::default()
        }],
        advanced: vec![
            "`homespace import [--store FILE] PATH...` imports files or whole folders (e.g. ~/.claude/projects); with `--watch` it follows them as agents write, without a mount.".into(),
            "`homespace forget SESSION` deletes one session; nothing is deleted through the mount.".into(),
        ],
    }
}

/// `memory/sessions/_entry.md`.
pub fn sessions_root(days: &[(String, usize)], links: &Links) -> Entry {
    Entry {
        title: format!(
            "memory/sessions — {} day{} with sessions",
            days.len(),
            plural(days.len())
        ),
        functions: vec![Function::new(
            format!("ls {}", links.dir(&["memory", "sessions", "<YYYY-MM-DD>"])),
            "list one day's sessions",
            "one line each",
        )],
        sections: vec![Section {
            heading: "Days, newest first".into(),
            items: days
                .iter()
                .map(|(day, n)| {
                    format!(
                        "`{}` — {n} session{}",
                        links.dir(&["memory", "sessions", day]),
                        plural(*n)
                    )
                })
                .collect(),
            empty: "No sessions yet.".into(),
            ..Section::default()
        }],
        ..Entry::default()
    }
}

/// `memory/sessions/<day>/_entry.md`.
pub fn day(day: &str, rows: &[SessionRow], links: &Links) -> Entry {
    Entry {
        title: format!(
            "memory/sessions/{day} — {} session{}",
            rows.len(),
            plural(rows.len())
        ),
        functions: vec![Function::new(
            format!(
                "mkdir {}",
                links.to(&format!("memory/sessions/{day}/<name>"))
            ),
            "start a session of your own",
            "a directory to append entries to",
        )],
        sections: vec![Section {
            heading: "Sessions".into(),
            items: rows
                .iter()
                .map(|row| format!("`{}` — {}", row.record.id, session_line(row)))
                .collect(),
            empty: "No session started on this day.".into(),
            ..Section::default()
        }],
        ..Entry::default()
    }
}

/// `memory/sessions/<day>/<session>/_entry.md`: opened by the lines of its digest
/// (`opening`), then where and how it ran. The title is not repeated under the heading:
/// the digest has the room.
pub fn session(
    row: &SessionRow,
    opening: Vec<String>,
    channels: &[(Channel, usize)],
    tags: &[(String, usize)],
    links: &Links,
) -> Entry {
    let mut about = vec![format!("{}.", session_facts(row))];
    about.extend(opening);
    // Both are the transcript's word: inert like its text.
    let cwd = row.record.cwd.as_deref().map(inert::code);
    let model = row.record.model.as_deref().map(|m| cut_to(m, 60));
    match (cwd, model) {
        (Some(cwd), Some(model)) => about.push(format!("Ran in `{cwd}`, model {model}.")),
        (Some(cwd), None) => about.push(format!("Ran in `{cwd}`.")),
        (None, Some(model)) => about.push(format!("Model: {model}.")),
        (None, None) => {}
    }
    if let Some(previous) = &row.record.continuation_of {
        about.push(format!("Continues session {previous}."));
    }
    if !channels.is_empty() {
        about.push(format!(
            "Entries by channel: {}.",
            channels
                .iter()
                .map(|(c, n)| format!("{c} {n}"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if !tags.is_empty() {
        about.push(format!(
            "Tags: {}.",
            tags.iter()
                .map(|(t, n)| format!("{t} ({n})"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    // An extracted summary says no more than the lines above: only a written one is shown.
    let written = row
        .summary
        .as_deref()
        .map(|s| {
            // One line of the summary's own lines, without their list marks: the section
            // draws its own.
            let mut line = String::new();
            for point in s
                .lines()
                .filter(|l| !l.starts_with('#'))
                .map(|l| l.trim().trim_start_matches(['-', '*', '+']).trim())
                .filter(|l| !l.is_empty())
            {
                if !line.is_empty() {
                    line.push_str(if line.ends_with(['.', '!', '?', ':', ';']) {
                        " "
                    } else {
                        "; "
                    });
                }
                line.push_str(point);
            }
            cut(&line)
        })
        .filter(|s| !s.is_empty());
    let sections = match written {
        Some(summary) => vec![Section {
            heading: "Summary".into(),
            items: vec![summary],
            ..Section::default()
        }],
        None => Vec::new(),
    };
    Entry {
        title: format!("session {} — {}", row.record.id, cut(&row.record.title)),
        about,
        functions: session_functions(row, links),
        sections,
        advanced: session_advanced(row),
    }
}

/// `memory/sessions/<day>/<session>/conversation/_entry.md`: its pages.
pub fn conversation(row: &SessionRow, links: &Links) -> Entry {
    let dir = format!("{}{CONVERSATION}/", session_dir(row, links));
    let pages = conversation::pages(row.entries);
    Entry {
        title: format!("conversation of {} — {} pages", row.record.id, pages),
        about: vec![format!(
            "The user and assistant turns of {} entries in order, one line each, tool calls \
             folded to one line; a page per {} entries, each linking the next.",
            row.entries,
            conversation::PER_PAGE
        )],
        functions: vec![Function::new(
            format!("cat {dir}{}", conversation::page_name(1)),
            "read from the start",
            "the first turns and the link to page 2",
        )],
        ..Entry::default()
    }
}

/// `related.md` of session `row`: the sessions most like it, with what they share.
pub fn related(
    row: &SessionRow,
    related: &[(SessionRow, Vec<String>)],
    links: &Links,
    budget: usize,
) -> String {
    let crumb = format!(
        "home > memory > sessions > {} > {} > {RELATED}",
        row.day, row.record.id
    );
    related_from(&crumb, row, related, links, budget)
}

/// The sessions most like `row`, as the view at breadcrumb `crumb` shows them (a
/// session's `related.md`, or `memory/recall` for the latest session).
pub fn related_from(
    crumb: &str,
    row: &SessionRow,
    related: &[(SessionRow, Vec<String>)],
    links: &Links,
    budget: usize,
) -> String {
    let mut out = format!("{crumb}\n# Sessions like {}\n", row.record.id);
    out.push_str(
        "Ranked by how well they match the most distinctive words of its summary and last \
         entries, and by the files both changed.\n\n",
    );
    if related.is_empty() {
        out.push_str("No other session shares its distinctive terms.\n");
    }
    for (other, terms) in related {
        out.push_str(&format!(
            "- `{}` — {}\n  shares: {}\n",
            session_dir(other, links),
            session_line(other),
            terms.join(", ")
        ));
    }
    budget::prune(
        &out,
        budget,
        &format!("cat \"{}\"", links.to("search/memory:<words>")),
    )
}
