//! Which project symbols a failing test most likely fails because of, ranked from what the
//! traced tests ran (spectrum-based fault localization), what changed since the failing
//! tests last passed, and the project frames of the failure's traceback.
//!
//! The formula is Ochiai, per line: `ef / sqrt(F * (ef + ep))`, where `ef` and `ep` are the
//! failing and passing traced tests that ran the line and `F` all failing traced tests.
//! Chosen over DStar because it is bounded (0 to 1, so a score reads as a strength), and
//! ranks as DStar does whenever every failing test ran the line, the usual case of one
//! fault; over Tarantula because it does not rank a line run by one failing test of many
//! as high as one run by all. A symbol (the innermost function, method or class holding a
//! line) scores its best own line; only lines the failure's own test ran count, so each
//! failure's suspects are among what it ran. Lines outside any symbol and the lines of test
//! files are never suspects.
//!
//! The order, each step breaking the ties of the one before:
//! 1. a symbol changed since the failing tests last passed comes first: a regression's
//!    likeliest cause is the change the failing tests ran;
//! 2. a symbol where a one-token change made the failing test pass (the probe,
//!    `probe.rs`), the one whose change made more of the run's failing tests pass first:
//!    a line a small change repairs most often holds the fault (mutation-based fault
//!    localization, as Metallaxis and MUSE have it), and it sees what the spectrum cannot,
//!    a wrong value in code every test runs;
//! 3. when the error was raised in project code (not by an assertion of the test), the
//!    symbols of the traceback's frames: the fault is where it raised or on the way there;
//!    and so for the frames of the run's other failures that raised in project code, as
//!    the failures of one run most often share one fault;
//! 4. code that formats values for the failure's message (`__repr__`, `__str__`,
//!    `__format__`, `_repr` helpers) not in the traceback comes last: every failure that
//!    shows an object runs it, which makes it look suspicious and never makes it the cause;
//! 5. the higher score;
//! 6. a symbol inside which the failing run took a way the passing ones did not (lines
//!    scored above its entry line) before one the failing tests ran whole or not at all
//!    differently: code only failures reach (a `__repr__` for the failure's message, the
//!    handler that raises) is more often the consequence than the cause;
//! 7. where the traceback raised, then a symbol it passed through, deepest first;
//! 8. the symbol more of the others scored as high call (name in their code): the callee
//!    before its callers, as a caller that only passes the failing input on scores as the
//!    code that mishandles it does;
//! 9. the symbol fewer traced tests ran: the more specific code;
//! 10. the symbol with more lines at its best score: with every line as likely to hold the
//!     fault, the one holding more suspicious lines;
//! 11. file and line, so that equal evidence always ranks the same way.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::coverage::{Coverage, TestOutcome};
use super::probe::Fix;

/// A symbol of a project file, as the ranking needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Span {
    /// `Account.debit`.
    pub qualname: String,
    /// Its lines, 1-based, inclusive.
    pub first: u32,
    pub last: u32,
    /// The names its code mentions (calls, reads): whom it may call.
    pub mentions: BTreeSet<String>,
}

/// Why a symbol ranks where it does, in the order its reader weighs them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Reason {
    /// Changed since the last run in which the failing tests passed.
    Changed,
    /// A one-token change in it made the failing test pass.
    Fixed,
    /// The traceback's deepest project frame.
    Raised,
    /// Run by failing tests and by no passing one.
    OnlyFailing,
    /// A project frame the traceback passed through.
    InTraceback,
    /// Run by the failing tests more than by passing ones.
    RanMore,
}

impl Reason {
    pub fn label(self) -> &'static str {
        match self {
            Reason::Changed => "changed since the last green run",
            Reason::Fixed => "a one-token change here made it pass",
            Reason::Raised => "raised here",
            Reason::OnlyFailing => "ran only by failing tests",
            Reason::InTraceback => "in the traceback",
            Reason::RanMore => "ran more by failing tests than passing ones",
        }
    }
}

/// A ranked symbol.
#[derive(Debug, Clone, PartialEq)]
pub struct Ranked {
    /// Its file, from the project's folder.
    pub file: String,
    pub span: Span,
    /// Ochiai of its best line.
    pub score: f64,
    /// Its lines that scored above its entry, at most two, ascending.
    pub hot: Vec<u32>,
    /// The strongest reason first.
    pub why: Vec<Reason>,
    /// Failing and passing traced tests that ran its best line.
    pub failing: usize,
    pub passing: usize,
    /// The change in it that made the most failing tests pass, if one did.
    pub fix: Option<Fix>,
}

/// What the ranking of one failure is made from.
pub struct Evidence<'a> {
    pub coverage: &'a Coverage,
    /// The traced test (node id) whose failure is ranked.
    pub test: &'a str,
    /// The symbols of a project file that is not a test file; `None` for any other file.
    pub spans: &'a dyn Fn(&str) -> Option<Vec<Span>>,
    /// Symbols changed since the failing tests last passed, as `(file, qualname)`.
    pub changed: &'a BTreeSet<(String, String)>,
    /// The traceback's frames in project files, outermost first, as `(file, line)`.
    pub frames: &'a [(String, u32)],
    /// The tracebacks of the run's other failures, the same way: where one of them raised
    /// in project code counts for this one too, as most failures of a run share a fault.
    pub others: &'a [Vec<(String, u32)>],
    /// The one-token changes that made this failure's test pass.
    pub fixes: &'a [&'a Fix],
}

/// Per line: how many failing and passing traced tests ran it.
type Counts = HashMap<(String, u32), (usize, usize)>;

/// A symbol of the failure's, and its lines the failing test ran with their scores.
type Scored = (Span, Vec<(u32, f64)>);

/// The symbols the failure of `evidence.test` most likely comes from, best first, at
/// most `most`; empty when that test was not traced failing.
pub fn rank(evidence: &Evidence<'_>, most: usize) -> Vec<Ranked> {
    let tests = &evidence.coverage.tests;
    let Some(failed) = tests
        .iter()
        .find(|t| t.test == evidence.test && t.outcome == TestOutcome::Failed)
    else {
        return Vec::new();
    };
    let failing_total = tests
        .iter()
        .filter(|t| t.outcome == TestOutcome::Failed)
        .count();
    let mut counts: Counts = HashMap::new();
    let mut ran_by: HashMap<(String, String), usize> = HashMap::new();
    let mut spans_of: BTreeMap<String, Option<Vec<Span>>> = BTreeMap::new();
    for test in tests.iter().filter(|t| t.outcome != TestOutcome::Skipped) {
        for (file, lines) in &test.files {
            let spans = spans_of
                .entry(file.clone())
                .or_insert_with(|| (evidence.spans)(file));
            let Some(spans) = spans else { continue };
            let mut symbols: BTreeSet<String> = BTreeSet::new();
            for &line in lines {
                let count = counts.entry((file.clone(), line)).or_default();
                match test.outcome {
                    TestOutcome::Failed => count.0 += 1,
                    _ => count.1 += 1,
                }
                if let Some(span) = innermost(spans, line) {
                    symbols.insert(span.qualname.clone());
                }
            }
            for symbol in symbols {
                *ran_by.entry((file.clone(), symbol)).or_default() += 1;
            }
        }
    }
    // The failure's own lines, by symbol: (file, qualname) -> (span, [(line, score)]).
    let mut by_symbol: BTreeMap<(String, String), Scored> = BTreeMap::new();
    for (file, lines) in &failed.files {
        let Some(Some(spans)) = spans_of.get(file) else {
            continue;
        };
        for &line in lines {
            let Some(span) = innermost(spans, line) else {
                continue;
            };
            let (ef, ep) = counts.get(&(file.clone(), line)).copied().unwrap_or((1, 0));
            let score = ochiai(ef, ep, failing_total);
            by_symbol
                .entry((file.clone(), span.qualname.clone()))
                .or_insert_with(|| (span.clone(), Vec::new()))
                .1
                .push((line, score));
        }
    }
    let deepest = evidence.frames.len().checked_sub(1);
    let ranked: Vec<(Ranked, Option<usize>, usize, usize)> = by_symbol
        .into_iter()
        .map(|((file, qualname), (span, lines))| {
            let best = lines.iter().map(|(_, s)| *s).fold(0.0, f64::max);
            let top: Vec<u32> = lines
                .iter()
                .filter(|(_, s)| (*s - best).abs() < 1e-9)
                .map(|(l, _)| *l)
                .collect();
            let (failing, passing) = top
                .first()
                .and_then(|l| counts.get(&(file.clone(), *l)))
                .copied()
                .unwrap_or((1, 0));
            let hot = telling(&lines);
            // The deepest frame in this symbol: its distance from the raising frame.
            let frame = evidence
                .frames
                .iter()
                .enumerate()
                .rev()
                .find(|(_, (f, l))| *f == file && span.first <= *l && *l <= span.last)
                .map(|(at, _)| deepest.unwrap_or(0) - at);
            // Its own line a change fixed, the change fixing the most failing tests.
            let fix = evidence
                .fixes
                .iter()
                .filter(|f| f.file == file && lines.iter().any(|(l, _)| *l == f.line))
                .max_by_key(|f| (f.fixes.len(), std::cmp::Reverse(f.line)))
                .map(|f| (*f).clone());
            let mut why = Vec::new();
            if evidence.changed.contains(&(file.clone(), qualname.clone())) {
                why.push(Reason::Changed);
            }
            if fix.is_some() {
                why.push(Reason::Fixed);
            }
            match frame {
                Some(0) => why.push(Reason::Raised),
                Some(_) => why.push(Reason::InTraceback),
                None => {}
            }
            if passing == 0 {
                why.push(Reason::OnlyFailing);
            } else if failing > passing {
                why.push(Reason::RanMore);
            }
            why.sort();
            let tests_ran = ran_by.get(&(file.clone(), qualname)).copied().unwrap_or(0);
            let top_lines = top.len();
            (
                Ranked {
                    file,
                    span,
                    score: best,
                    hot,
                    why,
                    failing,
                    passing,
                    fix,
                },
                frame,
                tests_ran,
                top_lines,
            )
        })
        .collect();
    let callers: Vec<usize> = ranked
        .iter()
        .map(|(callee, ..)| callers_among(callee, ranked.iter().map(|(r, ..)| r)))
        .collect();
    let in_code = |frames: &[(String, u32)]| {
        frames
            .last()
            .is_some_and(|(file, _)| (evidence.spans)(file).is_some())
    };
    let raised_in_code = in_code(evidence.frames);
    // The frames of the other failures that raised in project code.
    let elsewhere: Vec<&(String, u32)> = evidence
        .others
        .iter()
        .filter(|frames| in_code(frames))
        .flatten()
        .collect();
    let framed_elsewhere: Vec<bool> = ranked
        .iter()
        .map(|(r, ..)| {
            elsewhere
                .iter()
                .any(|(f, l)| *f == r.file && r.span.first <= *l && *l <= r.span.last)
        })
        .collect();
    let mut order: Vec<usize> = (0..ranked.len()).collect();
    order.sort_by(|&i, &j| {
        let ((a, a_frame, a_ran, a_lines), (b, b_frame, b_ran, b_lines)) = (&ranked[i], &ranked[j]);
        let changed = |r: &Ranked| r.why.contains(&Reason::Changed);
        // Lines above its entry's score: inside it the failing run went where passing
        // runs did not.
        let diverges = |r: &Ranked| !r.hot.is_empty();
        // Raised in project code: the traceback's frames hold or lead to the fault.
        let framed = |frame: &Option<usize>, at: usize| {
            (raised_in_code && frame.is_some()) || framed_elsewhere[at]
        };
        // Code that formats a failure's message, reached by every failure that shows the
        // object: a consequence, unless the traceback passes through it.
        let reports = |r: &Ranked, frame: &Option<usize>| frame.is_none() && formats(r);
        // How many failing tests a one-token change in it made pass.
        let fixed = |r: &Ranked| r.fix.as_ref().map_or(0, |f| f.fixes.len());
        changed(b)
            .cmp(&changed(a))
            .then(fixed(b).cmp(&fixed(a)))
            .then(framed(b_frame, j).cmp(&framed(a_frame, i)))
            .then(reports(a, a_frame).cmp(&reports(b, b_frame)))
            .then(b.score.total_cmp(&a.score))
            .then(diverges(b).cmp(&diverges(a)))
            .then(
                a_frame
                    .unwrap_or(usize::MAX)
                    .cmp(&b_frame.unwrap_or(usize::MAX)),
            )
            .then(callers[j].cmp(&callers[i]))
            .then(a_ran.cmp(b_ran))
            .then(b_lines.cmp(a_lines))
            .then(a.file.cmp(&b.file))
            .then(a.span.first.cmp(&b.span.first))
    });
    let mut ranked: Vec<Option<Ranked>> = ranked.into_iter().map(|(r, ..)| Some(r)).collect();
    order
        .into_iter()
        .filter_map(|i| ranked[i].take())
        .take(most)
        .collect()
}

/// Whether `ranked` makes an object's text (`__repr__`, `__str__`, `__format__`, a
/// `_repr_…` helper): what a failure's message calls on the values it shows.
fn formats(ranked: &Ranked) -> bool {
    let name = ranked.span.qualname.rsplit('.').next().unwrap_or_default();
    matches!(name, "__repr__" | "__str__" | "__format__") || name.contains("_repr")
}

/// How many of `all` other than `callee` scored as high as it and mention its name.
fn callers_among<'a>(callee: &Ranked, all: impl Iterator<Item = &'a Ranked>) -> usize {
    let name = callee.span.qualname.rsplit('.').next().unwrap_or_default();
    all.filter(|caller| {
        (caller.score - callee.score).abs() < 1e-9
            && (&caller.file, &caller.span.qualname) != (&callee.file, &callee.span.qualname)
            && caller.span.mentions.contains(name)
    })
    .count()
}

/// The lines worth showing among `lines` (the failure's own in a symbol, with their
/// scores), at most two, best first: those scored above the symbol's entry (its first line
/// run, the `def` every call runs), as they tell more than the symbol does.
fn telling(lines: &[(u32, f64)]) -> Vec<u32> {
    let Some(&(entry, entry_score)) = lines.iter().min_by_key(|(l, _)| *l) else {
        return Vec::new();
    };
    let mut above: Vec<(u32, f64)> = lines
        .iter()
        .filter(|(l, s)| *l != entry && *s > entry_score + 1e-9)
        .copied()
        .collect();
    above.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut hot: Vec<u32> = above.into_iter().take(2).map(|(l, _)| l).collect();
    hot.sort_unstable();
    hot
}

/// Ochiai of a line run by `ef` of `failing` failing tests and by `ep` passing ones.
fn ochiai(ef: usize, ep: usize, failing: usize) -> f64 {
    let denominator = ((failing * (ef + ep)) as f64).sqrt();
    if denominator == 0.0 {
        0.0
    } else {
        ef as f64 / denominator
    }
}

/// The innermost of `spans` holding `line`.
fn innermost(spans: &[Span], line: u32) -> Option<&Span> {
    spans
        .iter()
        .filter(|s| s.first <= line && line <= s.last)
        .min_by_key(|s| s.last - s.first)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testrun::coverage::TestLines;

    fn test(name: &str, outcome: TestOutcome, files: &[(&str, &[u32])]) -> TestLines {
        TestLines {
            test: name.into(),
            outcome,
            files: files
                .iter()
                .map(|(f, lines)| (f.to_string(), lines.to_vec()))
                .collect(),
        }
    }

    fn span(qualname: &str, first: u32, last: u32) -> Span {
        Span {
            qualname: qualname.into(),
            first,
            last,
            mentions: BTreeSet::new(),
        }
    }

    /// `calc/ops.py`: `parse` 1-4, `Calc` 6-20 with `Calc.add` 8-10 and `Calc.div` 12-20;
    /// tests/ is a test file.
    fn spans(file: &str) -> Option<Vec<Span>> {
        (file == "calc/ops.py").then(|| {
            vec![
                span("parse", 1, 4),
                span("Calc", 6, 20),
                span("Calc.add", 8, 10),
                span("Calc.div", 12, 20),
            ]
        })
    }

    fn names(ranked: &[Ranked]) -> Vec<&str> {
        ranked.iter().map(|r| r.span.qualname.as_str()).collect()
    }

    fn rank_of(
        coverage: &Coverage,
        changed: &[(&str, &str)],
        frames: &[(&str, u32)],
    ) -> Vec<Ranked> {
        let changed: BTreeSet<(String, String)> = changed
            .iter()
            .map(|(f, q)| (f.to_string(), q.to_string()))
            .collect();
        let frames: Vec<(String, u32)> = frames.iter().map(|(f, l)| (f.to_string(), *l)).collect();
        rank(
            &Evidence {
                coverage,
                test: "t::fails",
                spans: &spans,
                changed: &changed,
                frames: &frames,
                others: &[],
                fixes: &[],
            },
            5,
        )
    }

    /// Every test parses, then adds; the failing one also divides, through a branch no
    /// passing test takes.
    fn coverage() -> Coverage {
        Coverage {
            tests: vec![
                test(
                    "t::fails",
                    TestOutcome::Failed,
                    &[
                        ("calc/ops.py", &[1, 2, 3, 8, 9, 12, 13, 17]),
                        ("tests/t.py", &[5, 6]),
                    ],
                ),
                test(
                    "t::adds",
                    TestOutcome::Passed,
                    &[("calc/ops.py", &[1, 2, 3, 8, 9]), ("tests/t.py", &[9])],
                ),
                test(
                    "t::divides",
                    TestOutcome::Passed,
                    &[
                        ("calc/ops.py", &[1, 2, 3, 12, 13, 14]),
                        ("tests/t.py", &[12]),
                    ],
                ),
                test(
                    "t::skipped",
                    TestOutcome::Skipped,
                    &[("calc/ops.py", &[17])],
                ),
            ],
        }
    }

    #[test]
    fn the_code_only_the_failing_test_ran_comes_first_and_tests_are_never_suspects() {
        let ranked = rank_of(&coverage(), &[], &[]);
        assert_eq!(names(&ranked), ["Calc.div", "Calc.add", "parse"]);
        let first = &ranked[0];
        // Line 17 ran by the failing test only, 13 by a passing one too.
        assert_eq!(first.hot, [17]);
        assert_eq!((first.failing, first.passing), (1, 0));
        assert!((first.score - 1.0).abs() < 1e-9, "{}", first.score);
        assert_eq!(first.why, [Reason::OnlyFailing]);
        // Run by the failing test and one passing test of two: 1/sqrt(2).
        assert!((ranked[1].score - 0.5f64.sqrt()).abs() < 1e-9);
        // parse ran in all three.
        assert!((ranked[2].score - (1.0f64 / 3.0).sqrt()).abs() < 1e-9);
    }

    #[test]
    fn a_change_the_failing_test_ran_comes_first_then_where_it_raised() {
        let ranked = rank_of(&coverage(), &[("calc/ops.py", "parse")], &[]);
        assert_eq!(names(&ranked), ["parse", "Calc.div", "Calc.add"]);
        assert_eq!(ranked[0].why, [Reason::Changed]);
        // A change the failing test did not run is no suspect.
        let unran = rank_of(&coverage(), &[("calc/ops.py", "Calc")], &[]);
        assert_eq!(names(&unran), ["Calc.div", "Calc.add", "parse"]);
        // Equal scores: the raising frame first, then the frame it passed through.
        let mut even = coverage();
        even.tests.retain(|t| t.test == "t::fails");
        let ranked = rank_of(
            &even,
            &[],
            &[("tests/t.py", 6), ("calc/ops.py", 9), ("calc/ops.py", 3)],
        );
        assert_eq!(names(&ranked), ["parse", "Calc.add", "Calc.div"]);
        assert_eq!(ranked[0].why, [Reason::Raised, Reason::OnlyFailing]);
        // Every line scored alike: none tells more than the symbol.
        assert!(ranked[0].hot.is_empty(), "{:?}", ranked[0].hot);
        assert_eq!(ranked[1].why, [Reason::OnlyFailing, Reason::InTraceback]);
    }

    #[test]
    fn of_two_symbols_only_the_failing_test_ran_the_callee_comes_first() {
        let coverage = Coverage {
            tests: vec![test(
                "t::fails",
                TestOutcome::Failed,
                &[("calc/ops.py", &[1, 2, 3, 8, 9])],
            )],
        };
        let spans = |file: &str| {
            (file == "calc/ops.py").then(|| {
                let mut parse = span("parse", 1, 4);
                parse.mentions.insert("add".into());
                let mut add = span("Calc.add", 8, 10);
                // Itself: recursion makes no caller.
                add.mentions.insert("add".into());
                vec![parse, add]
            })
        };
        let none = BTreeSet::new();
        let ranked = rank(
            &Evidence {
                coverage: &coverage,
                test: "t::fails",
                spans: &spans,
                changed: &none,
                frames: &[],
                others: &[],
                fixes: &[],
            },
            5,
        );
        // `parse` holds more lines at the best score, but calls `add`.
        assert_eq!(names(&ranked), ["Calc.add", "parse"]);
    }

    /// [`coverage`] with the failing test also running lines 22-23 of `Calc.<extra>`.
    fn rank_with_extra(extra: &str, frames: &[(&str, u32)]) -> Vec<Ranked> {
        let mut coverage = coverage();
        let lines = coverage.tests[0].files.get_mut("calc/ops.py").unwrap();
        lines.extend([22, 23]);
        let qualname = format!("Calc.{extra}");
        let spans = |file: &str| {
            spans(file).map(|mut spans| {
                spans.push(span(&qualname, 22, 23));
                spans
            })
        };
        let none = BTreeSet::new();
        let frames: Vec<(String, u32)> = frames.iter().map(|(f, l)| (f.to_string(), *l)).collect();
        rank(
            &Evidence {
                coverage: &coverage,
                test: "t::fails",
                spans: &spans,
                changed: &none,
                frames: &frames,
                others: &[],
                fixes: &[],
            },
            5,
        )
    }

    #[test]
    fn where_the_failing_run_went_its_own_way_comes_before_what_only_failures_reach() {
        // Only failures ran `missing`, as only failures ran line 17 of `div`, whose first
        // lines passing tests ran too.
        let ranked = rank_with_extra("missing", &[("tests/t.py", 6)]);
        assert_eq!(names(&ranked)[..2], ["Calc.div", "Calc.missing"]);
    }

    #[test]
    fn an_error_raised_in_the_code_ranks_its_frames_and_a_message_s_repr_comes_last() {
        // Raised in `parse`, which every test ran: the traceback's frames come first.
        let ranked = rank_with_extra("missing", &[("tests/t.py", 6), ("calc/ops.py", 3)]);
        assert_eq!(names(&ranked)[0], "parse");
        assert_eq!(ranked[0].why, [Reason::Raised]);
        // An assertion of the test, whose message showed a Calc: its `__repr__` ran only
        // in the failure, as `div`'s line 17 did, and comes last all the same.
        let ranked = rank_with_extra("__repr__", &[("tests/t.py", 6)]);
        assert_eq!(names(&ranked).last(), Some(&"Calc.__repr__"));
        // Raised in the `__repr__` itself: it is in the traceback, and a suspect like any.
        let ranked = rank_with_extra("__repr__", &[("tests/t.py", 6), ("calc/ops.py", 23)]);
        assert_eq!(names(&ranked)[0], "Calc.__repr__");
    }

    #[test]
    fn where_another_failure_of_the_run_raised_counts_for_this_one() {
        let none = BTreeSet::new();
        let others = vec![vec![
            ("tests/t.py".to_string(), 9),
            ("calc/ops.py".to_string(), 9),
        ]];
        let ranked = rank(
            &Evidence {
                coverage: &coverage(),
                test: "t::fails",
                spans: &spans,
                changed: &none,
                frames: &[("tests/t.py".to_string(), 6)],
                others: &others,
                fixes: &[],
            },
            5,
        );
        // Alone, `div` ranks first (see above); another failure raised in `add`.
        assert_eq!(names(&ranked), ["Calc.add", "Calc.div", "parse"]);
    }

    #[test]
    fn a_symbol_a_one_token_change_fixed_comes_first_after_a_change() {
        // `parse` ran in every test, and scores lowest; a change on its line 2 made the
        // failing test pass.
        let fix = Fix {
            file: "calc/ops.py".into(),
            line: 2,
            was: "n = n + 1".into(),
            now: "n = n - 1".into(),
            fixes: vec!["t::fails".into()],
        };
        // A fix on a line the failing test did not run is none of its.
        let elsewhere = Fix {
            line: 14,
            ..fix.clone()
        };
        let none = BTreeSet::new();
        let with = |fixes: &[&Fix], changed: &BTreeSet<(String, String)>| {
            rank(
                &Evidence {
                    coverage: &coverage(),
                    test: "t::fails",
                    spans: &spans,
                    changed,
                    frames: &[],
                    others: &[],
                    fixes,
                },
                5,
            )
        };
        let ranked = with(&[&fix, &elsewhere], &none);
        assert_eq!(names(&ranked), ["parse", "Calc.div", "Calc.add"]);
        assert_eq!(ranked[0].why, [Reason::Fixed]);
        assert_eq!(ranked[0].fix.as_ref(), Some(&fix));
        assert_eq!(ranked[1].fix, None);
        // What changed since the last green run still comes first.
        let changed = [("calc/ops.py".to_string(), "Calc.add".to_string())].into();
        assert_eq!(
            names(&with(&[&fix], &changed)),
            ["Calc.add", "parse", "Calc.div"]
        );
    }

    #[test]
    fn a_test_not_traced_failing_has_no_ranking() {
        let mut passed = coverage();
        passed.tests[0].outcome = TestOutcome::Passed;
        assert!(rank_of(&passed, &[], &[]).is_empty());
        assert!(rank_of(&Coverage::default(), &[], &[]).is_empty());
    }
}
