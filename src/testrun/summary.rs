//! pytest's closing summary line read back for what its JUnit XML report leaves out: the
//! number of warnings (`1 failed, 3 passed, 2 warnings in 0.12s`).

/// The warnings pytest counted in `output`, from its last summary line; 0 when it gave
/// none (or never got to its summary).
pub fn warnings(output: &str) -> usize {
    output
        .lines()
        .rev()
        .map(|line| line.trim().trim_matches('=').trim())
        .find(|line| is_summary(line))
        .and_then(|line| {
            line.split(", ").find_map(|part| {
                let (count, word) = part.split_once(' ')?;
                let word = word.split(' ').next()?;
                matches!(word, "warning" | "warnings")
                    .then(|| count.parse().ok())
                    .flatten()
            })
        })
        .unwrap_or(0)
}

/// `3 passed, 2 warnings in 0.12s`: counts, then the time pytest took.
fn is_summary(line: &str) -> bool {
    line.contains(" in ") && line.chars().next().is_some_and(|c| c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_warnings_of_the_closing_summary_are_counted() {
        let output = "tests/test_a.py .F\n\n=== warnings summary ===\ntests/test_a.py::test_x\n  DeprecationWarning: 3 warnings in here\n\n=============== 1 failed, 3 passed, 2 warnings in 0.12s ===============\n";
        assert_eq!(warnings(output), 2);
        assert_eq!(warnings("1 passed, 1 warning in 0.01s\n"), 1);
        assert_eq!(
            warnings("= 9 passed, 12 warnings in 62.31s (0:01:02) =\n"),
            12
        );
        assert_eq!(warnings("==== 4 passed in 1.00s ====\n"), 0);
        assert_eq!(warnings("ERROR: file or directory not found: x\n"), 0);
    }
}
