//! pytest's closing summary line read back for what its JUnit XML report leaves out or
//! counts differently (`1 failed, 3 passed, 1 xfailed, 2 warnings, 40 subtests passed in
//! 0.12s`): the report files an expected failure (`xfailed`) under skipped and an
//! unexpected pass (`xpassed`) under passed, and holds no warnings or subtests. Read so a
//! run's counts on the mount are the counts pytest prints.

/// What only pytest's closing line says.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Closing {
    /// Expected failures, which the report counts as skipped.
    pub xfailed: u64,
    /// Unexpected passes, which the report counts as passed.
    pub xpassed: u64,
    /// Every other count the report does not hold, as pytest words it, in its order:
    /// `2 warnings`, `40 subtests passed`, `3 deselected`.
    pub others: Vec<String>,
}

/// The counts of pytest's closing line in `output`, as pytest words them (`1 failed, 2
/// passed, 1 xfailed, 3 warnings`); none when pytest gave no closing line (it never got to
/// its summary).
pub fn closing_counts(output: &str) -> Option<&str> {
    let line = output
        .lines()
        .rev()
        .map(|line| line.trim().trim_matches('=').trim())
        .find(|line| is_summary(line))?;
    Some(line.rsplit_once(" in ").map_or(line, |(counts, _)| counts))
}

/// The closing line's counts in `output`; none when pytest gave no closing line (it never
/// got to its summary).
pub fn closing(output: &str) -> Closing {
    let mut closing = Closing::default();
    let Some(counts) = closing_counts(output) else {
        return closing;
    };
    for part in counts.split(", ") {
        let Some((count, what)) = part.split_once(' ') else {
            continue;
        };
        let Ok(n) = count.parse::<u64>() else {
            continue;
        };
        match what {
            // The report holds these.
            "passed" | "failed" | "skipped" | "error" | "errors" => {}
            "xfailed" => closing.xfailed = n,
            "xpassed" => closing.xpassed = n,
            _ => closing.others.push(part.to_string()),
        }
    }
    closing
}

/// `3 passed, 2 warnings in 0.12s`: counts, then the time pytest took.
pub fn is_summary(line: &str) -> bool {
    line.contains(" in ") && line.chars().next().is_some_and(|c| c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_the_report_leaves_out_is_read_from_the_closing_line() {
        let output = "tests/test_a.py .F\n\n=== warnings summary ===\ntests/test_a.py::test_x\n  DeprecationWarning: 3 warnings in here\n\n=============== 1 failed, 3 passed, 2 warnings in 0.12s ===============\n";
        assert_eq!(closing(output).others, ["2 warnings"]);
        assert_eq!(
            closing("1 passed, 1 warning in 0.01s\n").others,
            ["1 warning"]
        );
        let many = closing(
            "= 9 passed, 4 skipped, 1 xfailed, 2 xpassed, 12 warnings, 2332 subtests passed in 62.31s (0:01:02) =\n",
        );
        assert_eq!((many.xfailed, many.xpassed), (1, 2));
        assert_eq!(many.others, ["12 warnings", "2332 subtests passed"]);
        assert_eq!(closing("==== 4 passed in 1.00s ====\n"), Closing::default());
        assert_eq!(
            closing("ERROR: file or directory not found: x\n"),
            Closing::default()
        );
    }
}
