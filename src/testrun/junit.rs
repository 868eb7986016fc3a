//! Results of a pytest run read from its JUnit XML report (`--junitxml`): counts, and
//! each failing or erroring test with its traceback, exact. Never from pytest's text
//! output, whose format is not an interface.
//!
//! Read with quick-xml, the XML parser the `junit-parser` crate is built on, rather than
//! with that crate: junit-parser 1.7 trims every piece of element text and drops entity
//! references between them, so a traceback holding `<`, `>`, `&` or quotes (most do:
//! `<Foo object at 0x...>`) came out with those characters gone and its lines torn apart.

use std::borrow::Cow;

use quick_xml::Reader;
use quick_xml::XmlVersion;
use quick_xml::events::{BytesStart, Event};

/// What a run's report says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    pub passed: u64,
    pub failed: u64,
    pub errors: u64,
    pub skipped: u64,
    /// Failing and erroring tests, in report order.
    pub problems: Vec<Problem>,
    /// The ids (as [`Problem::id`] spells them) of the tests that passed, in report order:
    /// a later failing run looks for the last run each of its failing tests passed in.
    pub passed_tests: Vec<String>,
}

/// One test that failed (an assertion) or errored (in a fixture, at collection).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// `tests.test_calc.TestOps.test_div[2-0]`: the dotted module, class and test name.
    pub id: String,
    /// `failure` or `error`.
    pub kind: &'static str,
    /// The one-line message (`AssertionError: assert 3 == 4`).
    pub message: String,
    /// The traceback as pytest wrote it.
    pub traceback: String,
}

/// How the test case being read ended.
enum Outcome {
    Passed,
    Skipped,
    Problem(Problem),
}

/// Reads a JUnit XML report; the error says why it is not one.
pub fn read(xml: &str) -> Result<Report, String> {
    let mut reader = Reader::from_str(xml);
    reader.config_mut().trim_text(false);
    let mut report = Report::default();
    // The test case open now, and its outcome so far.
    let mut case: Option<(String, Outcome)> = None;
    // Inside a <failure> or <error>: its text is the traceback.
    let mut in_problem = false;
    loop {
        let event = reader
            .read_event()
            .map_err(|e| format!("at byte {}: {e}", reader.buffer_position()))?;
        match event {
            Event::Start(e) => match e.name().as_ref() {
                "testcase" => {
                    finish(&mut report, case.take());
                    case = Some((case_id(&e)?, Outcome::Passed));
                }
                _ => in_problem = mark(&mut case, &e)?,
            },
            Event::Empty(e) => match e.name().as_ref() {
                "testcase" => finish(&mut report, Some((case_id(&e)?, Outcome::Passed))),
                _ => {
                    mark(&mut case, &e)?;
                }
            },
            Event::Text(text) if in_problem => {
                push(&mut case, &text.xml_content(XmlVersion::default()))
            }
            Event::CData(text) if in_problem => {
                push(&mut case, &text.xml_content(XmlVersion::default()))
            }
            Event::GeneralRef(r) if in_problem => {
                let resolved: Cow<str> = match r.resolve_char_ref().map_err(|e| e.to_string())? {
                    Some(c) => Cow::Owned(c.to_string()),
                    None => Cow::Borrowed(
                        quick_xml::escape::resolve_predefined_entity(&r)
                            .ok_or_else(|| format!("unknown entity &{};", &*r))?,
                    ),
                };
                push(&mut case, &resolved);
            }
            Event::End(e) => match e.name().as_ref() {
                "failure" | "error" => in_problem = false,
                "testcase" => finish(&mut report, case.take()),
                _ => {}
            },
            Event::Eof => break,
            _ => {}
        }
    }
    finish(&mut report, case.take());
    Ok(report)
}

/// Notes a `<failure>`, `<error>` or `<skipped>` inside the open test case; true when its
/// text is a traceback to read.
fn mark(case: &mut Option<(String, Outcome)>, e: &BytesStart) -> Result<bool, String> {
    let Some((id, outcome)) = case.as_mut() else {
        return Ok(false);
    };
    let kind = match e.name().as_ref() {
        "failure" => "failure",
        "error" => "error",
        "skipped" => {
            *outcome = Outcome::Skipped;
            return Ok(false);
        }
        _ => return Ok(false),
    };
    *outcome = Outcome::Problem(Problem {
        id: id.clone(),
        kind,
        message: attribute(e, "message")?.unwrap_or_default(),
        traceback: String::new(),
    });
    Ok(true)
}

/// What pytest's report says of every test module it could not collect, whatever the
/// cause; the cause is in the error's text.
const COLLECTION_FAILURE: &str = "collection failure";

/// What the error of a traceback was: the first line of its last block of `E` lines
/// (`ModuleNotFoundError: No module named 'x'`), not the hints a long message ends with
/// (`See https://docs.pytest.org/…`).
fn explained(traceback: &str) -> Option<&str> {
    let lines: Vec<&str> = traceback.lines().collect();
    let last = lines.iter().rposition(|l| l.starts_with('E'))?;
    let first = lines[..=last]
        .iter()
        .rposition(|l| !l.starts_with('E'))
        .map_or(0, |before| before + 1);
    lines[first..=last]
        .iter()
        .map(|l| l[1..].trim())
        .find(|cause| !cause.is_empty())
}

/// The exception an internal error of pytest ended with: the last line of its traceback.
fn internal_cause(traceback: &str) -> Option<&str> {
    traceback
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| !l.is_empty())
}

/// What pytest's report calls the test case of an error of its own (`INTERNALERROR`).
const INTERNAL: &str = "pytest.internal";

/// The phase (`setup`, `teardown`) of pytest's message for a fixture it could not
/// find: `failed on setup with "file /…/test_x.py, line 24`, the place of the test and
/// nothing of the cause, which is the traceback's `E` line (`fixture 'db' not found`).
fn lookup_failed(message: &str) -> Option<&str> {
    let rest = message.strip_prefix("failed on ")?;
    let (phase, place) = rest.split_once(" with \"")?;
    place.starts_with("file ").then_some(phase)
}

fn push(case: &mut Option<(String, Outcome)>, text: &str) {
    if let Some((_, Outcome::Problem(problem))) = case.as_mut() {
        problem.traceback.push_str(text);
    }
}

fn finish(report: &mut Report, case: Option<(String, Outcome)>) {
    let Some((id, outcome)) = case else { return };
    match outcome {
        Outcome::Passed => {
            report.passed += 1;
            report.passed_tests.push(id);
        }
        Outcome::Skipped => report.skipped += 1,
        Outcome::Problem(mut problem) => {
            match problem.kind {
                "error" => report.errors += 1,
                _ => report.failed += 1,
            }
            if problem.message == COLLECTION_FAILURE
                && let Some(cause) = explained(&problem.traceback)
            {
                problem.message = format!("collecting it failed: {cause}");
            }
            if problem.id == INTERNAL
                && let Some(cause) = internal_cause(&problem.traceback)
            {
                problem.message = format!("pytest's internal error: {cause}");
            }
            if let Some(phase) = lookup_failed(&problem.message)
                && let Some(cause) = explained(&problem.traceback)
            {
                problem.message = format!("failed on {phase}: {cause}");
            }
            report.problems.push(problem);
        }
    }
}

/// `classname.name` of a `<testcase>`.
fn case_id(e: &BytesStart) -> Result<String, String> {
    let name = attribute(e, "name")?.unwrap_or_default();
    Ok(match attribute(e, "classname")? {
        Some(class) if !class.is_empty() => format!("{class}.{name}"),
        _ => name,
    })
}

fn attribute(e: &BytesStart, name: &str) -> Result<Option<String>, String> {
    let Some(found) = e.try_get_attribute(name).map_err(|e| e.to_string())? else {
        return Ok(None);
    };
    Ok(Some(
        found
            .normalized_value(XmlVersion::default())
            .map_err(|e| e.to_string())?
            .into_owned(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_problems_come_from_the_report() {
        let xml = r#"<?xml version="1.0" encoding="utf-8"?><testsuites name="pytest tests"><testsuite name="pytest" errors="1" failures="1" skipped="1" tests="4" time="0.1">
<testcase classname="tests.test_calc" name="test_add" time="0.001" />
<testcase classname="tests.test_calc.TestOps" name="test_div[2-0]" time="0.001"><failure message="ZeroDivisionError: division by zero">tests/test_calc.py:9: in test_div
    assert div(a, b) == 1
E   ZeroDivisionError: division by zero</failure></testcase>
<testcase classname="tests.test_calc" name="test_later" time="0"><skipped type="pytest.skip" message="later">skipped</skipped></testcase>
<testcase classname="tests.test_calc" name="test_db" time="0"><error message="failed on setup with &quot;RuntimeError: no db&quot;">self = &lt;Db object at 0x7f&gt;
    def db(): &amp;&#65;</error></testcase>
</testsuite></testsuites>"#;
        let report = read(xml).unwrap();
        assert_eq!(
            (report.passed, report.failed, report.errors, report.skipped),
            (1, 1, 1, 1)
        );
        assert_eq!(
            report.problems[0].id,
            "tests.test_calc.TestOps.test_div[2-0]"
        );
        assert_eq!(report.passed_tests, ["tests.test_calc.test_add"]);
        assert_eq!(report.problems[0].kind, "failure");
        assert!(
            report.problems[0]
                .traceback
                .contains("E   ZeroDivisionError")
        );
        assert_eq!(
            report.problems[1].message,
            "failed on setup with \"RuntimeError: no db\""
        );
    }

    #[test]
    fn a_collection_error_and_an_internal_error_say_their_cause() {
        // dateutil 2.9.0 under pytest 9: a deprecation made an error, whose message ends
        // with a link; and its conftest's unknown mark, an internal error.
        let xml = r#"<testsuites><testsuite name="pytest" errors="2" tests="2">
<testcase classname="tests.test_isoparser" name="" time="0"><error message="collection failure">lib/_pytest/python.py:1: in parametrize
    ...
E   pytest.PytestRemovedIn10Warning: Passing a non-Collection iterable to parametrize is deprecated.
E   Test: tests/test_isoparser.py::test_ymd, argvalues type: generator
E   See https://docs.pytest.org/en/stable/deprecations.html#parametrize-iterators</error></testcase>
<testcase classname="pytest" name="internal" time="0"><error message="internal error">Traceback (most recent call last):
  File "/p/tests/conftest.py", line 20, in pytest_collection_modifyitems
    item.add_marker(pytest.mark.no_cover)
pytest.PytestUnknownMarkWarning: Unknown pytest.mark.no_cover - is this a typo?
</error></testcase>
</testsuite></testsuites>"#;
        let report = read(xml).unwrap();
        assert_eq!(
            report.problems[0].message,
            "collecting it failed: pytest.PytestRemovedIn10Warning: Passing a non-Collection iterable to parametrize is deprecated."
        );
        assert_eq!(
            report.problems[1].message,
            "pytest's internal error: pytest.PytestUnknownMarkWarning: Unknown pytest.mark.no_cover - is this a typo?"
        );
    }

    #[test]
    fn a_fixture_pytest_cannot_find_is_named_in_the_message() {
        // pytest 8 and 9 give the test's place as the message, the cause in the text.
        let xml = r#"<testsuites><testsuite name="pytest" errors="1" tests="1">
<testcase classname="tests.test_speed" name="test_fast" time="0"><error message="failed on setup with &quot;file /p/tests/test_speed.py, line 24">file /p/tests/test_speed.py, line 24
  def test_fast(benchmark):
E       fixture 'benchmark' not found
&gt;       available fixtures: cache, capfd, tmp_path
&gt;       use 'pytest --fixtures [testpath]' for help on them.

/p/tests/test_speed.py:24</error></testcase>
</testsuite></testsuites>"#;
        let report = read(xml).unwrap();
        assert_eq!(
            report.problems[0].message,
            "failed on setup: fixture 'benchmark' not found"
        );
    }
}
