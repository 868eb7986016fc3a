//! `/_errors.md`: recent failures, newest first, each with time, operation, path and the
//! human-readable message; pruned to the budget like every view.
//!
//! Each entry is capped before pruning — its first line (what failed, why, where to go
//! instead) kept whole up to half the view, a few problem lines under it, each cut short —
//! because pruning cuts whole entries: one write with ten thousand problems, or one
//! very long name, would otherwise be a single item too big to keep, and the newest failure
//! (the one the reader came for) would vanish with everything else. The full messages are
//! in the daemon log. Paths and messages arrive printable (see `tree::errlog`).

use crate::model::Failure;
use crate::model::time::rfc3339_of;
use crate::render::budget;

/// Problem lines shown per entry after its first line; the rest are counted.
const MAX_LINES: usize = 8;
/// Characters of one line of an entry, at most.
const LINE_CHARS: usize = 300;
/// A word (a path, a quoted name) of a line that is too long is cut down to no fewer
/// characters than this before the line itself is cut.
const MIN_WORD_CHARS: usize = 40;
/// Room kept in an entry for its `+N more problems` line.
const MORE_CHARS: usize = 60;

/// Render the error log: `failures`, newest first, within `budget` tokens.
pub fn render(failures: &[Failure], budget: usize) -> String {
    let mut out = String::from("home > _errors.md\n");
    out.push_str(&format!(
        "# Recent errors — {} kept, newest first\n",
        failures.len()
    ));
    if failures.is_empty() {
        out.push_str("\nNo operation has failed since the mount started.\n");
        return out;
    }
    out.push('\n');
    let allowance = entry_chars(budget);
    for failure in failures {
        out.push_str(&entry(failure, allowance));
    }
    let more = format!(
        "the _entry.md of the directory where it happened, or {}",
        "the daemon log"
    );
    budget::prune(&out, budget, &more)
}

/// The most characters one entry may take: half the view, so the newest entry always fits
/// beside the headings and a pruning marker.
fn entry_chars(budget: usize) -> usize {
    budget.saturating_mul(4) / 2
}

/// One failure as a list item: `- time op path: first line`, then its other lines indented,
/// as many as fit in `allowance` characters (and at most [`MAX_LINES`]), and how many more.
/// A list of problems is shown from its top; other text (a traceback) from its end, where
/// the error is.
fn entry(failure: &Failure, allowance: usize) -> String {
    let line_chars = LINE_CHARS.min(allowance.saturating_sub(MORE_CHARS).max(MORE_CHARS));
    // Blank lines inside a message would end the list item; they carry nothing.
    let mut lines = failure.message.lines().filter(|l| !l.trim().is_empty());
    let first = lines.next().unwrap_or_default();
    let again = match failure.repeats {
        0 => String::new(),
        n => format!(" (×{}, first at {})", n + 1, rfc3339_of(failure.first)),
    };
    // The first line says what failed, why and where to go instead: kept whole up to the
    // entry's own allowance, so a suggestion is never cut in its middle; the problem lines
    // under it (one per problem) are capped as before.
    let first_chars = allowance.saturating_sub(MORE_CHARS).max(line_chars);
    let mut out = fit_line(
        &format!(
            "- {} {} {}{again}: {first}",
            rfc3339_of(failure.at),
            failure.op,
            failure.path
        ),
        first_chars,
    );
    out.push('\n');
    let rest: Vec<&str> = lines.collect();
    let from_top = rest.first().is_none_or(|l| l.starts_with("- "));
    let room = allowance.saturating_sub(out.chars().count() + MORE_CHARS);
    let mut kept = if from_top {
        fitting(rest.iter(), line_chars, room)
    } else {
        fitting(rest.iter().rev(), line_chars, room)
    };
    let hidden = rest.len() - kept.len();
    if !from_top {
        kept.reverse();
        if hidden > 0 {
            out.push_str(&format!(
                "  - +{hidden} earlier lines; the daemon log has them all\n"
            ));
        }
    }
    for line in &kept {
        out.push_str(line);
        out.push('\n');
    }
    if from_top && hidden > 0 {
        out.push_str(&format!(
            "  - +{hidden} more problems; the daemon log has them all\n"
        ));
    }
    out
}

/// The first of `lines` (at most [`MAX_LINES`]), indented and fitted to `line_chars`, that
/// fit together in `room` characters.
fn fitting<'a>(
    lines: impl Iterator<Item = &'a &'a str>,
    line_chars: usize,
    room: usize,
) -> Vec<String> {
    let mut used = 0;
    lines
        .take(MAX_LINES)
        .map(|line| fit_line(&format!("  {line}"), line_chars))
        .take_while(|line| {
            used += line.chars().count() + 1;
            used <= room
        })
        .collect()
}

/// `text` within `max` characters. Its longest words (quoted names, then paths) are cut in
/// their middle first, as little as needed and to no fewer than [`MIN_WORD_CHARS`], so that
/// what a message says about a very long name stays visible; paths only when cutting the
/// other words was not enough (a path that can be pasted is worth more than the words
/// around it); only then is the line cut at its end with `…`. A line that fits is left
/// whole.
fn fit_line(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let words: Vec<&str> = text.split(' ').collect();
    let is_path = |word: &str| {
        word.trim_matches(['`', '"', '\'', ':', ',', '(', ')'])
            .starts_with('/')
    };
    let others_only = fitted(&words, max, &|word| !is_path(word));
    if others_only.chars().count() <= max {
        return others_only;
    }
    fitted(&words, max, &|_| true)
}

/// `words` joined, those `cut` allows cut in their middle to the largest cap at which the
/// line fits in `max` (never below [`MIN_WORD_CHARS`]); cut at its end when even that is
/// too long and every word may be cut.
fn fitted(words: &[&str], max: usize, cut: &dyn Fn(&str) -> bool) -> String {
    let cut_to = |cap: usize| {
        words
            .iter()
            .map(|word| match cut(word) {
                true => cut_middle(word, cap),
                false => word.to_string(),
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    let fits = |cap: usize| cut_to(cap).chars().count() <= max;
    let longest = words
        .iter()
        .filter(|w| cut(w))
        .map(|w| w.chars().count())
        .max()
        .unwrap_or(0);
    // The largest cap at which the line fits (the length only grows with the cap).
    let (mut low, mut high) = (MIN_WORD_CHARS, longest);
    if low > high || !fits(low) {
        return match words.iter().all(|w| cut(w)) {
            true => cut_end(&cut_to(MIN_WORD_CHARS), max),
            false => cut_to(MIN_WORD_CHARS),
        };
    }
    while low < high {
        let mid = (low + high).div_ceil(2);
        if fits(mid) {
            low = mid;
        } else {
            high = mid - 1;
        }
    }
    cut_to(low)
}

/// `text` cut to at most `max` characters, ending in `…` when cut.
fn cut_end(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut out: String = text.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// `text` cut to at most `max` characters by replacing its middle with `…`: a path keeps
/// where it starts and its file name.
fn cut_middle(text: &str, max: usize) -> String {
    let count = text.chars().count();
    if count <= max {
        return text.to_string();
    }
    let head = max.saturating_sub(1) / 3;
    let tail = max.saturating_sub(1) - head;
    let mut out: String = text.chars().take(head).collect();
    out.push('…');
    out.extend(text.chars().skip(count - tail));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::SystemTime;

    fn failure(path: &str, message: String) -> Failure {
        Failure {
            at: SystemTime::UNIX_EPOCH,
            op: "write".into(),
            path: path.into(),
            dir: "tasks/open".into(),
            message,
            repeats: 0,
            first: SystemTime::UNIX_EPOCH,
            quotes: Vec::new(),
        }
    }

    #[test]
    fn a_long_first_line_with_its_suggestion_is_kept_whole() {
        let why = "the file keeps what it held; ".repeat(18);
        let message = format!(
            "/mnt/hs/source/pyproject.toml was not saved: {why}write it again as valid TOML \
             (source/config/ shows each table)"
        );
        assert!(message.chars().count() > 600, "{}", message.len());
        let view = render(&[failure("source/pyproject.toml", message)], 500);
        assert!(
            view.contains("write it again as valid TOML (source/config/ shows each table)"),
            "{view}"
        );
        assert!(!view.contains('…'), "{view}");
    }

    #[test]
    fn an_entry_with_thousands_of_problems_shows_a_few_and_counts_the_rest() {
        let problems: Vec<String> = (0..10_000)
            .map(|i| format!("- unknown field `f{i}`"))
            .collect();
        let text = entry(
            &failure(
                "/hs/tasks/open/t.json",
                format!("t.json was not saved:\n{}", problems.join("\n")),
            ),
            1000,
        );
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines.len() <= MAX_LINES + 2, "{text}");
        assert!(text.chars().count() <= 1000, "{text}");
        let last = lines.last().copied().unwrap_or_default();
        assert!(
            last.starts_with("  - +") && last.contains("more problems"),
            "{text}"
        );
        assert!(
            lines
                .iter()
                .all(|l| l.starts_with("- ") || l.starts_with("  "))
        );
    }

    #[test]
    fn a_long_traceback_shows_its_end() {
        let mut message = String::from("importing m failed:\nTraceback (most recent call last):");
        for i in 0..20 {
            message.push_str(&format!("\n  File \"m.py\", line {i}, in <module>"));
        }
        message.push_str("\nNameError: name 'x' is not defined\n(turn this check off)");
        let text = entry(&failure("/hs/source/m.py", message), 1000);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[1], "  - +15 earlier lines; the daemon log has them all",
            "{text}"
        );
        assert_eq!(lines.len(), 2 + MAX_LINES, "{text}");
        assert!(
            text.ends_with("  NameError: name 'x' is not defined\n  (turn this check off)\n"),
            "{text}"
        );
    }

    #[test]
    fn long_lines_and_paths_are_cut() {
        let name = "a".repeat(250);
        let path = format!("/hs/tasks/open/{name}.json");
        let text = entry(
            &failure(&path, format!("{path} is bad: {}", "x ".repeat(450))),
            1000,
        );
        let first = text.lines().next().unwrap_or_default();
        assert_eq!(first.chars().count(), 1000 - MORE_CHARS, "{first}");
        assert!(first.ends_with('…'), "{first}");
        assert!(first.contains(" /hs/tasks/ope…aaa"), "{first}");
        assert!(
            first.contains("aaa.json: /hs/"),
            "the middle of the path is cut: {first}"
        );
        assert!(
            first.contains(".json is bad: x x"),
            "a long word in the message is cut in its middle: {first}"
        );
        assert_eq!(cut_middle("abcdefghij", 7), "ab…ghij");
        assert_eq!(cut_end("abcdefghij", 4), "abc…");
        assert_eq!(cut_end("abc", 4), "abc");
    }

    #[test]
    fn a_path_is_kept_whole_while_cutting_the_other_words_is_enough() {
        let path = "/tmp/.tmpAbC123/mnt/source/config/tool.ruff.lint.isort.toml";
        let name = "q".repeat(200);
        let line =
            format!("- 2026-11-26T06:00:00Z write {path}: \"{name}\" is not a setting of isort");
        let cut = fit_line(&line, 200);
        assert!(cut.chars().count() <= 200, "{cut}");
        assert!(cut.contains(path), "the path can be pasted: {cut}");
        assert!(cut.contains("is not a setting of isort"), "{cut}");
    }

    #[test]
    fn a_line_is_cut_only_as_much_as_needed() {
        let path = format!("/mnt/hs/source/{}/mod.py", "p".repeat(60));
        let fine = format!("see {path} for more");
        assert_eq!(
            fit_line(&fine, 300),
            fine,
            "a line that fits keeps its paths whole"
        );
        let name = "n".repeat(250);
        let long = format!("cannot create {name}: \"{name}\" is not a name, see {path}");
        let cut = fit_line(&long, 300);
        assert!(cut.chars().count() <= 300, "{cut}");
        assert!(cut.contains("is not a name, see /mnt/hs/source/"), "{cut}");
        assert!(!cut.ends_with('…'), "the words were enough: {cut}");
        let words = "w".repeat(45) + " ";
        let many = fit_line(&words.repeat(20), 300);
        assert_eq!(many.chars().count(), 300, "{many}");
        assert!(many.ends_with('…'), "{many}");
    }
}
