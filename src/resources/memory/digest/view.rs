//! A digest as it is shown: the short lines that open a session's `_entry.md` (a few of
//! each list, `+N more` pointing where the rest is), and the whole of it under the five
//! sections of a summary, which `summary.md` shows while nobody wrote one — marked as
//! extracted, and written so that `summary::check` takes it back as it is.

use crate::model::Links;
use crate::model::count::one_or_many;
use crate::render::inert;
use crate::resources::memory::names::entry_name;
use crate::resources::memory::summary::{self, SECTIONS};
use crate::store::memory::SessionRow;

use super::{Digest, Noted, SourcePlaces};

/// How much of each list `_entry.md` shows: how many files, errors and sentences of each
/// kind, and how many characters of an error or a sentence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shown {
    files: usize,
    errors: usize,
    sentences: usize,
    chars: usize,
}

impl Shown {
    /// From the most shown to the counts alone: a view over its budget takes the next.
    pub const LIGHTER: [Shown; 8] = [
        Shown::of(4, 2, 3, 110),
        Shown::of(3, 1, 3, 90),
        Shown::of(2, 1, 2, 90),
        Shown::of(2, 1, 2, 70),
        Shown::of(2, 1, 1, 70),
        Shown::of(1, 1, 1, 60),
        Shown::of(1, 0, 1, 50),
        Shown::of(0, 0, 0, 0),
    ];

    const fn of(files: usize, errors: usize, sentences: usize, chars: usize) -> Shown {
        Shown {
            files,
            errors,
            sentences,
            chars,
        }
    }
}
/// How many commands and errors the extracted summary lists; decisions and pending work
/// are listed whole.
const COMMANDS_LISTED: usize = 20;
const ERRORS_LISTED: usize = 10;
/// Characters of a quoted sentence or error in the extracted summary (the digest keeps
/// 160; escapes and quotes may add some).
const QUOTED_CHARS: usize = 200;

/// The line that marks a summary as extracted, not written.
pub const EXTRACTED: &str = "> Extracted from this session's entries by homespace: nobody wrote \
                             this summary yet. To replace it, edit it (keep the five ## \
                             sections) and write it back.";

/// The lines that open the `_entry.md` of session `row`. `rest` is where every item is
/// (the extracted `summary.md`, or the conversation once a summary was written).
pub fn opening(
    digest: &Digest,
    row: &SessionRow,
    places: &SourcePlaces,
    links: &Links,
    rest: &str,
    shown: Shown,
) -> Vec<String> {
    let mut lines = Vec::new();
    let mut more = Vec::new();
    if !digest.files.is_empty() {
        let names: Vec<String> = digest
            .files
            .iter()
            .take(shown.files)
            .map(|file| file_link(file, places, links))
            .collect();
        lines.push(match names.is_empty() {
            true => format!("Files changed: {}.", digest.files.len()),
            false => format!(
                "Files changed ({}): {}.",
                digest.files.len(),
                names.join(", ")
            ),
        });
    }
    let failed: Vec<String> = digest
        .commands
        .iter()
        .filter(|c| c.failed)
        .take(3)
        .map(|c| format!("`{}`", entry_name(row, c.seq)))
        .collect();
    lines.push(format!(
        "Commands: {} run, {} failed{}.",
        digest.commands.len(),
        digest.failed(),
        match failed.is_empty() {
            true => String::new(),
            false => format!(" ({})", failed.join(", ")),
        }
    ));
    // Quoted, and said whose words they are: a sentence a transcript holds is what someone
    // (or something planted) said, never homespace's own statement.
    for (label, list, at_most, noun) in [
        (
            "Error (output)",
            &digest.errors,
            shown.errors,
            ("error", "errors"),
        ),
        (
            "Decided (said)",
            &digest.decisions,
            shown.sentences,
            ("decision", "decisions"),
        ),
        (
            "Pending (said)",
            &digest.pending,
            shown.sentences,
            ("pending", "pending"),
        ),
    ] {
        for noted in list.iter().take(at_most) {
            lines.push(format!(
                "{label}: {} — `{}`",
                inert::quoted(&noted.text, shown.chars),
                entry_name(row, noted.seq)
            ));
        }
        if list.len() > at_most {
            more.push(counted(list.len() - at_most, noun));
        }
    }
    if !more.is_empty() || digest.files.len() > shown.files {
        if digest.files.len() > shown.files {
            more.insert(
                0,
                counted(digest.files.len() - shown.files, ("file", "files")),
            );
        }
        lines.push(format!("More ({}): `cat {rest}`", more.join(", ")));
    }
    lines
}

/// `summary.md` of session `row` while nobody wrote one: the digest under the five
/// sections, marked as extracted; the five empty sections when its entries give nothing
/// to extract. It passes `summary::check` as it is.
pub fn extracted(
    digest: &Digest,
    row: &SessionRow,
    places: &SourcePlaces,
    links: &Links,
) -> String {
    if digest.is_empty() {
        return summary::template(row.record.id.as_str());
    }
    let mut sections: [Vec<String>; 5] = Default::default();
    let [completed, pending, decisions, results, how] = &mut sections;
    if digest.files.is_empty() {
        completed.push("No files changed.".into());
    } else {
        completed.push(format!("Files changed ({}):", digest.files.len()));
        completed.extend(
            digest
                .files
                .iter()
                .map(|file| format!("- {}", file_link(file, places, links))),
        );
    }
    completed.push(format!(
        "Commands: {} run, {} failed{}",
        digest.commands.len(),
        digest.failed(),
        if digest.commands.is_empty() { "." } else { ":" }
    ));
    completed.extend(digest.commands.iter().take(COMMANDS_LISTED).map(|c| {
        format!(
            "- `{}`{} ({})",
            inert::code(&c.text),
            if c.failed { " — failed" } else { "" },
            entry_name(row, c.seq)
        )
    }));
    if digest.commands.len() > COMMANDS_LISTED {
        completed.push(format!(
            "- +{} more: `cat \"{}\"`",
            digest.commands.len() - COMMANDS_LISTED,
            links.to(&format!(
                "search/memory:session:{} channel:tool_call",
                row.record.id
            ))
        ));
    }
    pending.extend(listed(
        &digest.pending,
        "said",
        row,
        usize::MAX,
        "None stated.",
    ));
    decisions.extend(listed(
        &digest.decisions,
        "said",
        row,
        usize::MAX,
        "None stated.",
    ));
    results.extend(listed(
        &digest.errors,
        "output",
        row,
        ERRORS_LISTED,
        "No errors.",
    ));
    how.extend(how_it_went(digest, row));
    let mut text = summary::template(row.record.id.as_str());
    // The template's title line, then the mark, then the sections filled in.
    let title_end = text.find('\n').map_or(text.len(), |i| i + 1);
    text.truncate(title_end);
    text.push_str(&format!("\n{EXTRACTED}\n"));
    for (section, lines) in SECTIONS.iter().zip(&sections) {
        text.push_str(&format!("\n## {section}\n"));
        for line in lines {
            text.push_str(line);
            text.push('\n');
        }
    }
    debug_assert!(summary::check("summary.md", text.as_bytes()).is_ok());
    text
}

/// "How It Went", as far as the entries tell it: how long the session ran and in how many
/// entries, how its last command ended (the counts are under Completed Work), and how
/// many errors it hit — counted, never judged.
fn how_it_went(digest: &Digest, row: &SessionRow) -> Vec<String> {
    let span = match (row.record.started, row.record.ended) {
        (Some(started), Some(ended)) => {
            let secs = ended.unix().0.saturating_sub(started.unix().0).max(0);
            format!(" over {}", duration(secs))
        }
        _ => String::new(),
    };
    let mut lines = vec![format!(
        "{}{span}, from {}.",
        counted(row.entries, ("entry", "entries")),
        row.record.source
    )];
    if let Some(last) = digest.commands.last() {
        lines.push(format!(
            "The last command, `{}`, {} ({}).",
            inert::code(&last.text),
            if last.failed {
                "failed"
            } else {
                "did not fail"
            },
            entry_name(row, last.seq)
        ));
    }
    if !digest.errors.is_empty() {
        lines.push(format!(
            "{} hit (under Tool Results).",
            counted(digest.errors.len(), ("error", "errors"))
        ));
    }
    lines
}

/// `45 s`, `12 min`, `3 h 5 min`, `2 days`.
fn duration(secs: i64) -> String {
    match secs {
        s if s < 60 => format!("{s} s"),
        s if s < 3600 => format!("{} min", s / 60),
        s if s < 86_400 => match (s / 3600, (s % 3600) / 60) {
            (h, 0) => format!("{h} h"),
            (h, m) => format!("{h} h {m} min"),
        },
        s => counted((s / 86_400) as usize, ("day", "days")),
    }
}

/// A written summary without the mark of an extracted one (a writer who kept it did not
/// mean to say nobody wrote it).
pub fn unmarked(text: &str) -> String {
    if !text.contains(EXTRACTED) {
        return text.to_string();
    }
    text.replace(&format!("{EXTRACTED}\n"), "")
        .replace(EXTRACTED, "")
}

/// The items of `list` quoted, each with whose words they are (`said`, `output`) and
/// its entry.
fn listed(
    list: &[Noted],
    whose: &str,
    row: &SessionRow,
    at_most: usize,
    none: &str,
) -> Vec<String> {
    let mut lines: Vec<String> = list
        .iter()
        .take(at_most)
        .map(|n| {
            format!(
                "- {whose}: {} ({})",
                inert::quoted(&n.text, QUOTED_CHARS),
                entry_name(row, n.seq)
            )
        })
        .collect();
    if list.len() > at_most {
        lines.push(format!("- +{} more", list.len() - at_most));
    }
    if lines.is_empty() {
        lines.push(none.into());
    }
    lines
}

/// A changed file: its `source/` file, linked, when the project shows it; else its path
/// as plain text.
fn file_link(file: &str, places: &SourcePlaces, links: &Links) -> String {
    match places.place(file) {
        Some(place) => format!("`{}`", links.to(&place)),
        None => format!("{} (not under source/)", inert::line(file, QUOTED_CHARS)),
    }
}

/// `1 file`, `2 files`.
fn counted(n: usize, (one, many): (&str, &str)) -> String {
    format!("{n} {}", one_or_many(n, one, many))
}
