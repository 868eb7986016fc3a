//! Results of a pytest run read from its JUnit XML report (`--junitxml`), with the
//! `junit-parser` crate: counts, and each failing or erroring test with its traceback.
//! Never from pytest's text output, whose format is not an interface.

use std::io::Cursor;

use junit_parser::TestStatus;

/// What a run's report says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    pub passed: u64,
    pub failed: u64,
    pub errors: u64,
    pub skipped: u64,
    /// Failing and erroring tests, in report order.
    pub problems: Vec<Problem>,
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

/// Reads a JUnit XML report; the error says why it is not one.
pub fn read(xml: &str) -> Result<Report, String> {
    let suites =
        junit_parser::from_reader(Cursor::new(xml.as_bytes())).map_err(|e| e.to_string())?;
    let mut report = Report::default();
    let mut stack: Vec<&junit_parser::TestSuite> = suites.suites.iter().collect();
    while let Some(suite) = stack.pop() {
        stack.extend(suite.suites.iter());
        for case in &suite.cases {
            let id = match &case.classname {
                Some(class) if !class.is_empty() => format!("{class}.{}", case.original_name),
                _ => case.original_name.clone(),
            };
            let (kind, message, traceback) = match &case.status {
                TestStatus::Failure(f) => {
                    report.failed += 1;
                    ("failure", &f.message, &f.text)
                }
                TestStatus::Error(e) => {
                    report.errors += 1;
                    ("error", &e.message, &e.text)
                }
                TestStatus::Skipped(_) => {
                    report.skipped += 1;
                    continue;
                }
                TestStatus::Success => {
                    report.passed += 1;
                    continue;
                }
            };
            report.problems.push(Problem {
                id,
                kind,
                message: message.clone(),
                traceback: traceback.clone(),
            });
        }
    }
    Ok(report)
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
<testcase classname="tests.test_calc" name="test_db" time="0"><error message="failed on setup with &quot;RuntimeError: no db&quot;">fixture failed</error></testcase>
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
}
