//! What a test run's failures say to the agent fixing them: `runs/<n>/result.md` (the run in
//! a few lines, each failure with its failing line, the error and its suspects — the one
//! file read after starting a run) and `runs/<n>/failures/<test>.txt` (one failure: the
//! test's and the suspects' symbol files, the failing line of each project frame with a
//! few lines around it, and pytest's explanation, the assertion's diff among it, once).
//! Shorter than pytest's own traceback, and every place in it a path to open or edit.

use crate::model::count::plural;
use crate::resources::source::places::in_tree::tree_path;
use crate::resources::source::runner::Runner;
use crate::resources::source::runner::suspects::Suspect;
use crate::store::runs;
use crate::testrun::junit::Problem;
use crate::testrun::summary::Closing;
use crate::testrun::traceback::{self, Frame, Traceback};

/// What a run's views say before its failures, one note a line: the interpreter note its
/// output opens with, why pytest could not run at all, a refused start newer than the run;
/// and the counts only pytest's closing line holds.
#[derive(Debug, Default)]
pub(crate) struct RunNotes(Vec<String>, Closing);

impl RunNotes {
    pub(crate) fn count_from(&mut self, closing: Closing) {
        self.1 = closing;
    }

    /// [`summary`] of `run` counted as pytest counts it.
    pub(crate) fn summary(&self, run: &runs::Run) -> String {
        summary_with(run, &self.1)
    }

    pub(crate) fn push(&mut self, note: String) {
        self.0.push(note);
    }

    /// `note` before the others: what happened last is read first.
    pub(crate) fn lead_with(&mut self, note: String) {
        self.0.insert(0, note);
    }
}

impl IntoIterator for RunNotes {
    type Item = String;
    type IntoIter = std::vec::IntoIter<String>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

/// Lines of the test shown above its failing line in a failure file.
const CONTEXT: usize = 2;
/// Failures with distinct errors told in detail in `result.md` (the first, as `pytest -x`
/// would stop at); the next get a line each, and those whose error was told already are
/// counted.
const DETAILED: usize = 1;
/// Failures after the detailed ones listed with a line each; the rest are counted.
const LISTED: usize = 4;
/// Suspects of a detailed failure in `result.md`: the likeliest; its failure file has all.
const SUSPECTS_HERE: usize = 3;
/// Characters of a listed failure's message.
const MESSAGE_CHARS: usize = 90;
/// Characters of the message of a failure whose suspect was told above.
const SAME_CHARS: usize = 50;
/// Characters of the message and of each explanation line in `result.md`: reprs of big
/// values run long, and the failure file has them whole.
const LINE_CHARS: usize = 120;
/// Characters of a `where` line's value kept in `result.md`.
const VALUE_CHARS: usize = 24;
/// Explanation (`E`) lines of a failure in `result.md`: the failure file has them all.
const EXPLAINED: usize = 6;

impl Runner {
    /// A failure as its file shows it.
    pub(crate) fn failure_view(&self, run: &runs::Run, problem: &Problem) -> String {
        let tb = traceback::read(&problem.traceback);
        let evidence = self.evidence(run);
        let message = first_line(&problem.message);
        let mut text = format!("{} — {} in run {}\n", problem.id, problem.kind, run.id);
        // pytest's explanation below starts with the message: said once.
        if !tb.explanation.first().is_some_and(|e| e.contains(message)) {
            text.push_str(message);
            text.push('\n');
        }
        // The test's own frame is told by this line, not again below.
        let outermost = tb
            .frames
            .first()
            .filter(|f| self.project.is_test_file(&self.project.root.join(&f.file)));
        if let Some(file) = self.test_symbol_file(&problem.id) {
            let place = outermost
                .map(|f| format!(" ({}:{})", f.file, f.line))
                .unwrap_or_default();
            text.push_str(&format!("test: {file}{place}\n"));
        }
        match self.lacked(message) {
            Some(lacked) => {
                text.push_str(&self.lacking_lines(run, &lacked, &problem.traceback, ""));
            }
            None => {
                let suspects = self.suspects_of(&evidence, problem, &tb.frames);
                text.push_str(&suspects.none_said());
                text.push_str(&self.suspect_lines(&suspects.found, "suspect: ", true));
                text.extend(self.declared_but_missing(run, message, ""));
            }
        }
        text.push('\n');
        if tb.frames.is_empty() {
            // Not a traceback we can read: as pytest wrote it.
            text.push_str(&problem.traceback);
        } else {
            text.push_str(&self.frames_text(&tb, outermost.is_some()));
        }
        let more = format!(
            "cat {}",
            self.links
                .file(&tree_path(format!("tests/runs/{}/output.txt", run.id)))
        );
        crate::render::budget::prune(&text, self.budget, &more)
    }

    /// `result.md`: the run's outcome, its failures with their suspects.
    pub(crate) fn result_view(
        &self,
        run: &runs::Run,
        problems: &[Problem],
        about: &RunNotes,
    ) -> String {
        let dir = self
            .links
            .folder(&tree_path(format!("tests/runs/{}", run.id)));
        let mut text = format!("run {} — {}\n", run.id, about.summary(run));
        for line in &about.0 {
            text.push_str(line);
            text.push('\n');
        }
        if run.status == "running" {
            text.push_str(&format!(
                "Still running: read {dir}result.md again to wait for its end.\n"
            ));
        }
        if run.status == "collected" {
            text.push_str(&self.collected(run, &dir));
        }
        let evidence = self.evidence(run);
        // Where the first suspect's code goes, and the code.
        let mut code_here: Option<(usize, String)> = None;
        let mut told: Vec<&str> = Vec::new();
        // The suspects named in detail: a later failure with the same one just says so.
        let mut named: Vec<String> = Vec::new();
        let mut others: Vec<String> = Vec::new();
        let mut same = 0;
        // The failing tests a one-token change in a told suspect made pass, as the report
        // names them: their lines say so rather than their messages again.
        let mut fixed: Vec<String> = Vec::new();
        for problem in problems {
            let message = first_line(&problem.message);
            // One failure in detail per distinct error: the others most likely share it.
            if told.contains(&message) {
                same += 1;
                continue;
            }
            told.push(message);
            let tb = traceback::read(&problem.traceback);
            let word = if problem.kind == "error" {
                "ERROR"
            } else {
                "FAILED"
            };
            if told.len() > DETAILED {
                if others.len() < LISTED {
                    // A test that lacked a fixture or a module has no suspect: its
                    // message says what it lacked.
                    let first = match self.lacked(message) {
                        Some(_) => None,
                        None => self
                            .suspects_of(&evidence, problem, &tb.frames)
                            .found
                            .into_iter()
                            .next(),
                    };
                    let line = match first {
                        _ if fixed.contains(&problem.id) => format!(
                            "- {}: passes with the same one-token change",
                            short_id(&problem.id)
                        ),
                        Some(s) if named.contains(&s.file) => format!(
                            "- {}: same suspect, {}",
                            short_id(&problem.id),
                            crate::render::one_line(message, SAME_CHARS)
                        ),
                        Some(s) => format!(
                            "- {}: {} — suspect: {}",
                            short_id(&problem.id),
                            crate::render::one_line(message, MESSAGE_CHARS),
                            self.links.file(&tree_path(&s.file))
                        ),
                        None => format!(
                            "- {}: {}",
                            short_id(&problem.id),
                            crate::render::one_line(message, MESSAGE_CHARS)
                        ),
                    };
                    others.push(line);
                } else {
                    same += 1;
                }
                continue;
            }
            text.push_str(&format!(
                "\n{word} {}: {}\n",
                problem.id,
                crate::render::one_line(&without_addresses(message), LINE_CHARS)
            ));
            let test_frame = tb
                .frames
                .iter()
                .rev()
                .find(|f| self.project.is_test_file(&self.project.root.join(&f.file)));
            if let Some(frame) = test_frame
                && let Some(line) = frame.code.iter().find(|l| l.starts_with('>'))
            {
                text.push_str(&format!(
                    "  {}:{}: {}\n",
                    frame.file,
                    frame.line,
                    line[1..].trim()
                ));
            }
            let explained = tb.explanation.iter().skip(1).filter(|l| !is_noise(l));
            for line in explained.take(EXPLAINED) {
                let line = without_addresses(line);
                text.push_str(&format!("  {}\n", shortened(&line, LINE_CHARS)));
            }
            if let Some(lacked) = self.lacked(message) {
                text.push_str(&self.lacking_lines(run, &lacked, &problem.traceback, "  "));
                continue;
            }
            let suspects = self.suspects_of(&evidence, problem, &tb.frames);
            text.push_str(&suspects.none_said());
            let mut suspects = suspects.found;
            named.extend(suspects.iter().map(|s| s.file.clone()));
            let found = suspects.len();
            suspects = told_here(suspects, problems.len());
            fixed.extend(
                suspects
                    .iter()
                    .filter_map(|s| s.fix.as_ref())
                    .flat_map(|fix| fix.fixes.iter().map(|t| super::ranked::junit_id_of(t))),
            );
            let weaker = found - suspects.len();
            for suspect in &suspects {
                text.push_str(&self.suspect_lines(
                    std::slice::from_ref(suspect),
                    "  suspect: ",
                    false,
                ));
                for (line, code) in self.hot_lines(suspect) {
                    text.push_str(&format!("    {line}: {code}\n"));
                }
            }
            if weaker > 0 {
                text.push_str(&format!(
                    "  {weaker} weaker suspect{}: its failure file lists {}\n",
                    plural(weaker),
                    if weaker == 1 { "it" } else { "them" }
                ));
            }
            text.extend(self.declared_but_missing(run, message, "  "));
            // The first suspect's code, put here once the rest is written if it fits in
            // what the view has left: what the agent would read next.
            if let Some(first) = suspects.first()
                && let Some(code) = self.places.symbol_text(&first.file)
            {
                code_here = Some((
                    text.len(),
                    format!("\n{}, as it is now:\n{code}", first.dotted),
                ));
            }
        }
        // The other failures, `listed` of them a line each, the rest counted.
        let rest = |listed: usize| {
            let mut rest = String::new();
            if listed > 0 {
                rest.push_str("\nAlso failing:\n");
                for line in &others[..listed] {
                    rest.push_str(line);
                    rest.push('\n');
                }
            }
            let unlisted = others.len() - listed;
            if unlisted > 0 {
                rest.push_str(&format!(
                    "\n{} more failing: `cat {dir}_entry.md`\n",
                    same + unlisted
                ));
            } else if same > 0 {
                rest.push_str(&format!(
                    "\n{same} more failing, most with an error told above: `cat {dir}_entry.md`\n"
                ));
            }
            if !problems.is_empty() {
                rest.push_str(&format!("\nEach failure: {dir}failures/<test>.txt\n"));
            }
            rest
        };
        let text = with_code(text, code_here, others.len(), rest, self.budget);
        crate::render::budget::prune(&text, self.budget, &format!("cat {dir}_entry.md"))
    }

    /// `prefix<symbol file> (<module>:<lines>, [score <score>, ]<why>)`, a line each; the
    /// score only when `scored` and the suspect was ranked; under it, indented, the
    /// one-token change that made the failing test pass, when the probe found one.
    fn suspect_lines(&self, suspects: &[Suspect], prefix: &str, scored: bool) -> String {
        let indent = prefix.len() - prefix.trim_start().len() + 2;
        suspects
            .iter()
            .map(|s| {
                let score = match s.score {
                    Some(score) if scored => format!("score {score:.2}, "),
                    _ => String::new(),
                };
                let mut line = format!(
                    "{prefix}{} ({}, {score}{})\n",
                    self.links.file(&tree_path(&s.file)),
                    s.lines,
                    s.why
                );
                if let Some(fix) = &s.fix {
                    line.push_str(&format!("{:indent$}{}\n", "", fix_text(fix)));
                }
                line
            })
            .collect()
    }

    /// Each frame in the project with its failing line and a few above it; frames outside
    /// the project folded to a count; then pytest's explanation.
    fn frames_text(&self, tb: &Traceback, first_told: bool) -> String {
        let mut text = String::new();
        let mut outside = 0;
        for (n, frame) in tb.frames.iter().enumerate() {
            let path = self.project.root.join(&frame.file);
            if !path.starts_with(&self.project.root)
                || !path.is_file()
                || self.project.is_hidden(&path, false)
            {
                outside += 1;
                continue;
            }
            if outside > 0 {
                text.push_str(&folded(outside));
                outside = 0;
            }
            text.push_str(&frame_text(frame, n == 0 && first_told));
        }
        if outside > 0 {
            text.push_str(&folded(outside));
        }
        for line in tb
            .explanation
            .iter()
            .filter(|l| !l.trim_start_matches('E').trim().is_empty())
        {
            text.push_str(line);
            text.push('\n');
        }
        text
    }
}

/// An explanation line within `chars` characters: pytest's `+  where VALUE = CALL` keeps
/// its call (what made the value) and gives the value, already in the message above, only
/// its start; any other line is cut at its end.
fn shortened(line: &str, chars: usize) -> String {
    if line.chars().count() <= chars {
        return line.to_string();
    }
    if let Some((value, call)) = line.rsplit_once(" = ")
        && value.contains("+  where ")
    {
        let value = cut(value, VALUE_CHARS + value.find("where").unwrap_or(0));
        let room = chars.saturating_sub(value.chars().count() + 3);
        return format!("{value} = {}", cut(call, room));
    }
    cut(line, chars)
}

/// The suspects of a failure `result.md` tells, of those `found` (best first) for a run of
/// `failing` failures: the first [`SUSPECTS_HERE`], without those only their score ranks
/// when one before them has a reason; only the first when a one-token change in it made
/// every failing test pass, which leaves the others little to explain. The failure's file
/// lists them all.
fn told_here(found: Vec<Suspect>, failing: usize) -> Vec<Suspect> {
    let fixed_all = found
        .first()
        .and_then(|s| s.fix.as_ref())
        .is_some_and(|fix| fix.fixes.len() >= failing);
    if fixed_all {
        return found.into_iter().take(1).collect();
    }
    let mut told: Vec<Suspect> = Vec::new();
    for suspect in found.into_iter().take(SUSPECTS_HERE) {
        if suspect.reasoned || !told.iter().any(|s| s.reasoned) {
            told.push(suspect);
        }
    }
    told
}

/// `text` without the addresses of Python's default reprs: `<ledger.journal.Journal
/// object at 0x7f35d0f42190>` is `<ledger.journal.Journal object>`, which says all an
/// agent can use of it in fewer characters.
fn without_addresses(text: &str) -> std::borrow::Cow<'_, str> {
    static ADDRESS: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"(<[^<>\s]+ object) at 0x[0-9a-fA-F]+>")
            .unwrap_or_else(|_| unreachable!("a fixed pattern"))
    });
    ADDRESS.replace_all(text, "$1>")
}

/// `line` cut to `chars` characters with `…`, its indentation kept.
fn cut(line: &str, chars: usize) -> String {
    if line.chars().count() <= chars {
        return line.to_string();
    }
    let head: String = line.chars().take(chars.saturating_sub(1)).collect();
    format!("{head}…")
}

/// An explanation line that says nothing of this failure: blank, or pytest's hints about
/// its own options.
fn is_noise(line: &str) -> bool {
    let text = line.trim_start_matches('E').trim();
    // `+  and   Decimal('1') = Decimal('1')`: a value pytest shows as itself.
    let restated = text
        .strip_prefix("+  and")
        .and_then(|rest| rest.split_once(" = "))
        .is_some_and(|(shown, made)| shown.trim() == made.trim());
    text.is_empty() || restated || text.starts_with("Use -v") || text.starts_with("Omitting ")
}

/// A frame's place (unless `placed` already) and its failing line with a few above.
fn frame_text(frame: &Frame, placed: bool) -> String {
    let mut text = String::new();
    if !placed {
        text = format!(
            "{}:{}{}\n",
            frame.file,
            frame.line,
            frame
                .function
                .as_ref()
                .map(|f| format!(" in {f}"))
                .unwrap_or_default()
        );
    }
    for line in frame.around_failure(CONTEXT) {
        text.push_str(line);
        text.push('\n');
    }
    text
}

fn folded(frames: usize) -> String {
    format!("({frames} frame{} outside the project)\n", plural(frames))
}

/// `tests.test_calc.test_div` as `test_calc.test_div`: the module and the test are enough
/// beside the detailed failures.
fn short_id(id: &str) -> &str {
    let dots: Vec<usize> = id
        .split('[')
        .next()
        .unwrap_or(id)
        .match_indices('.')
        .map(|(i, _)| i)
        .collect();
    match dots.len() {
        0 | 1 => id,
        n => &id[dots[n - 2] + 1..],
    }
}

pub(crate) fn first_line(text: &str) -> &str {
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("")
}

impl Runner {
    /// What a `--collect-only` run listed, as pytest printed it (test ids with `-q`, the
    /// tree of modules without), the first [`COLLECTED_LINES`] of it.
    fn collected(&self, run: &runs::Run, dir: &str) -> String {
        let output = self
            .runs
            .store
            .records(|db| db.runs().output(&self.runs.checkout, run.id))
            .ok()
            .flatten()
            .unwrap_or_default();
        let listed: Vec<&str> = output
            .lines()
            .filter(|l| !l.starts_with("homespace: ") && !l.trim().is_empty())
            .filter(|l| !l.starts_with('=') && !crate::testrun::summary::is_summary(l.trim()))
            .filter(|l| !PYTEST_HEADER.iter().any(|h| l.starts_with(h)))
            .collect();
        let mut text = String::from("\nCollected, none run (`--collect-only`):\n");
        for line in listed.iter().take(COLLECTED_LINES) {
            text.push_str(line);
            text.push('\n');
        }
        if listed.len() > COLLECTED_LINES {
            text.push_str(&format!(
                "… {} more lines in {dir}output.txt\n",
                listed.len() - COLLECTED_LINES
            ));
        }
        text
    }
}

/// How the lines of pytest's header start, which a collected run's listing leaves out.
const PYTEST_HEADER: &[&str] = &[
    "platform ",
    "cachedir: ",
    "rootdir: ",
    "configfile: ",
    "testpaths: ",
    "plugins: ",
    "collected ",
];

/// The lines of a `--collect-only` run's listing that `result.md` shows.
const COLLECTED_LINES: usize = 60;

/// `passed: 12 passed, 1 skipped (3.2 s)` and the like.
pub(crate) fn summary(run: &runs::Run) -> String {
    summary_with(run, &Closing::default())
}

/// [`summary`] counted as pytest's closing line counts: that line's counts as the run kept
/// them, the same in every view (`failed: 1 failed, 12 passed, 1 xfailed, 3 warnings (3.2
/// s)`); for a run without them (pytest gave no closing line, or the run was kept before
/// they were), the report's, with what `closing` adds: expected failures and unexpected
/// passes taken out of skipped and passed, as pytest counts them, then its other counts.
fn summary_with(run: &runs::Run, closing: &Closing) -> String {
    let took = run
        .seconds
        .map(|s| format!(" ({s:.1} s)"))
        .unwrap_or_default();
    if let Some(counts) = &run.counts
        && run.status != "running"
    {
        return format!("{}: {counts}{took}", run.status);
    }
    let mut counts = vec![format!(
        "{} passed",
        run.passed.saturating_sub(closing.xpassed)
    )];
    for (n, what) in [
        (run.failed, "failed"),
        (run.errors, "errors"),
        (run.skipped.saturating_sub(closing.xfailed), "skipped"),
        (closing.xfailed, "xfailed"),
        (closing.xpassed, "xpassed"),
    ] {
        if n > 0 {
            counts.push(format!("{n} {what}"));
        }
    }
    counts.extend(closing.others.iter().cloned());
    match run.status.as_str() {
        "running" => format!("running since {}", run.started),
        status => format!("{status}: {}{took}", counts.join(", ")),
    }
}

/// `text` and `rest(listed)` (the other failures, `listed` of them a line each) with
/// `code` (the first suspect's, and where it goes in `text`) put in: the code the agent
/// would read next comes before the lines of the other failures, which their count and
/// the run's `_entry.md` stand for, so as many of `others` are listed as fit beside it
/// in `budget`; all of them, without the code, when it does not fit at all.
fn with_code(
    text: String,
    code: Option<(usize, String)>,
    others: usize,
    rest: impl Fn(usize) -> String,
    budget: usize,
) -> String {
    let tokens = crate::render::budget::tokens;
    let fitted = code.and_then(|(at, code)| {
        (0..=others).rev().find_map(|listed| {
            let mut whole = text.clone();
            whole.insert_str(at, &code);
            whole.push_str(&rest(listed));
            (tokens(&whole) <= budget).then_some(whole)
        })
    });
    fitted.unwrap_or_else(|| text + &rest(others))
}

/// What a one-token change that made a failing test pass is told as: `passes with line
/// 321 as `n += 1` (it is `n += 2`), and so do 6 more failing tests`.
fn fix_text(fix: &crate::testrun::probe::Fix) -> String {
    let change = if fix.now.is_empty() {
        format!("passes with a one-token change on line {}", fix.line)
    } else {
        format!(
            "passes with line {} as `{}` (it is `{}`)",
            fix.line,
            crate::render::one_line(&fix.now, 100),
            crate::render::one_line(&fix.was, 100)
        )
    };
    match fix.fixes.len().saturating_sub(1) {
        0 => change,
        1 => format!("{change}, and so does 1 more failing test"),
        more => format!("{change}, and so do {more} more failing tests"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_suspect_s_code_comes_before_the_lines_of_other_failures() {
        let text = "FAILED t: boom\n  suspect: a.py\n".to_string();
        let at = text.len();
        // 4 characters a token: 10 tokens of code, each listed failure 5.
        let code = Some((at, "c".repeat(40)));
        let rest = |listed: usize| "f".repeat(20 * listed);
        let shown = |budget: usize| {
            let whole = with_code(text.clone(), code.clone(), 3, rest, budget);
            (
                whole.contains("cccc"),
                whole.matches("f".repeat(20).as_str()).count(),
            )
        };
        let own = crate::render::budget::tokens(&text);
        // All fit; then the code and as many lines as fit; the code alone; no code.
        assert_eq!(shown(own + 25), (true, 3));
        assert_eq!(shown(own + 20), (true, 2));
        assert_eq!(shown(own + 10), (true, 0));
        assert_eq!(shown(own + 9), (false, 3));
    }

    #[test]
    fn a_long_where_line_keeps_the_call_that_made_the_value() {
        let line = "E        +  where {'assets:bank': Decimal('0.00'), 'assets:cash': Decimal('120.00'), 'equity:capital': Decimal('0.00')} = total(<Journal>, 'assets:cash')";
        let short = shortened(line, LINE_CHARS);
        assert!(short.chars().count() <= LINE_CHARS, "{short}");
        assert!(
            short.starts_with("E        +  where {'assets:bank'"),
            "{short}"
        );
        assert!(
            short.ends_with("= total(<Journal>, 'assets:cash')"),
            "{short}"
        );
        let other = format!("E   {}", "x".repeat(200));
        assert_eq!(shortened(&other, 50).chars().count(), 50);
        assert_eq!(shortened("E   short", 50), "E   short");
    }

    fn suspect(name: &str, reasoned: bool, fixes: usize) -> Suspect {
        Suspect {
            dotted: name.into(),
            file: format!("{name}.py"),
            lines: "m.py:1-2".into(),
            why: String::new(),
            score: Some(0.5),
            hot: Vec::new(),
            fix: (fixes > 0).then(|| crate::testrun::probe::Fix {
                file: "m.py".into(),
                line: 1,
                was: "a".into(),
                now: "b".into(),
                fixes: (0..fixes).map(|n| format!("t{n}")).collect(),
            }),
            reasoned,
        }
    }

    fn names(told: &[Suspect]) -> Vec<&str> {
        told.iter().map(|s| s.dotted.as_str()).collect()
    }

    #[test]
    fn result_md_tells_the_suspects_with_a_reason_and_only_the_fixed_one_when_it_fixed_all() {
        let found = || {
            vec![
                suspect("a", true, 0),
                suspect("b", false, 0),
                suspect("c", true, 0),
                suspect("d", true, 0),
            ]
        };
        assert_eq!(names(&told_here(found(), 2)), ["a", "c"]);
        let unreasoned = vec![suspect("a", false, 0), suspect("b", false, 0)];
        assert_eq!(
            names(&told_here(unreasoned, 1)),
            ["a", "b"],
            "with no reason anywhere, the scores rank"
        );
        let mut fixed = found();
        fixed[0] = suspect("a", true, 2);
        assert_eq!(names(&told_here(fixed.clone(), 2)), ["a"]);
        assert_eq!(
            names(&told_here(fixed, 3)),
            ["a", "c"],
            "a fix that left a failing test failing explains less"
        );
    }

    #[test]
    fn default_reprs_lose_their_addresses() {
        assert_eq!(
            without_addresses(
                "total(<ledger.journal.Journal object at 0x7fc0acfa9e50>, 'assets:cash')"
            ),
            "total(<ledger.journal.Journal object>, 'assets:cash')"
        );
        assert_eq!(
            without_addresses("<function typedkey at 0x7f461bf6f6a0>"),
            "<function typedkey at 0x7f461bf6f6a0>",
            "only an object's default repr: a function's name is what it says"
        );
    }

    #[test]
    fn pytest_hints_blank_lines_and_values_shown_as_themselves_are_noise() {
        assert!(is_noise("E         Use -v to get more diff"));
        assert!(is_noise(
            "E         Omitting 1 identical items, use -vv to show"
        ));
        assert!(is_noise("E"));
        assert!(is_noise(
            "E        +  and   Decimal('0.10') = Decimal('0.10')"
        ));
        assert!(!is_noise(
            "E        +  where Decimal('0.11') = parse_amount(0.1)"
        ));
        assert!(!is_noise("E        +  and   3 = len(x)"));
    }
}
