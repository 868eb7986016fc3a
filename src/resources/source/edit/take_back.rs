//! Undo by edit: the change an edit made (`before` → `after`), taken back from what the
//! file holds now, as `git apply -R` of the edit's diff would — when the lines the edit
//! changed, and the lines right around them, are still as it left them. Later edits
//! elsewhere in the file (another method) are kept; a later change to those lines makes the
//! undo refuse, naming them, since taking the edit back would lose it.

use similar::{Algorithm, DiffOp, capture_diff_slices};

/// `now` without the change `before` → `after`; or the lines of `now` (1-based) that were
/// changed since `after` where the change is to be taken back.
pub(crate) fn take_back(before: &str, after: &str, now: &str) -> Result<String, Vec<usize>> {
    let (b, a, c) = (lines(before), lines(after), lines(now));
    // Where each line of `after` is in `now`, if it is there unchanged.
    let mut in_now: Vec<Option<usize>> = vec![None; a.len()];
    for op in capture_diff_slices(Algorithm::Myers, &a, &c) {
        if let DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = op
        {
            for k in 0..len {
                in_now[old_index + k] = Some(new_index + k);
            }
        }
    }
    let mut out: Vec<&str> = Vec::with_capacity(c.len());
    let mut next = 0; // the first line of `now` not yet copied
    let mut conflicts = Vec::new();
    for op in capture_diff_slices(Algorithm::Myers, &a, &b) {
        let (start, old_len, new_start, new_len) = match op {
            DiffOp::Equal { .. } => continue,
            DiffOp::Delete {
                old_index,
                old_len,
                new_index,
            } => (old_index, old_len, new_index, 0),
            DiffOp::Insert {
                old_index,
                new_index,
                new_len,
            } => (old_index, 0, new_index, new_len),
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => (old_index, old_len, new_index, new_len),
        };
        // The changed lines and one on each side must be in `now`, in one run.
        let around = start.saturating_sub(1)..(start + old_len + 1).min(a.len());
        let placed: Option<Vec<usize>> = around.clone().map(|i| in_now[i]).collect();
        let consecutive = placed
            .as_ref()
            .is_some_and(|at| at.windows(2).all(|w| w[1] == w[0] + 1));
        let at = match (consecutive, start.checked_sub(1)) {
            (true, Some(before_it)) => in_now[before_it].map(|i| i + 1),
            (true, None) => Some(0),
            (false, _) => None,
        };
        match at {
            Some(at) if at >= next => {
                out.extend_from_slice(&c[next..at]);
                out.extend_from_slice(&b[new_start..new_start + new_len]);
                next = at + old_len;
            }
            _ => {
                // Name the line of `now` where the change was: after the last line before
                // it that is still there.
                let near = start
                    .checked_sub(1)
                    .and_then(|i| in_now[i])
                    .map(|i| i + 1)
                    .or_else(|| around.filter_map(|i| in_now[i]).next())
                    .unwrap_or(next);
                conflicts.push(near.min(c.len().saturating_sub(1)) + 1);
            }
        }
    }
    if !conflicts.is_empty() {
        conflicts.dedup();
        return Err(conflicts);
    }
    out.extend_from_slice(&c[next.min(c.len())..]);
    Ok(out.concat())
}

fn lines(text: &str) -> Vec<&str> {
    text.split_inclusive('\n').collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const BEFORE: &str = "def a():\n    return 1\n\n\ndef b():\n    return 2\n";
    const AFTER: &str = "def a():\n    return 10\n\n\ndef b():\n    return 2\n";

    #[test]
    fn an_edit_is_taken_back_around_a_later_edit_elsewhere() {
        let now = "def a():\n    return 10\n\n\ndef b():\n    return 20\n";
        assert_eq!(
            take_back(BEFORE, AFTER, now).unwrap(),
            "def a():\n    return 1\n\n\ndef b():\n    return 20\n"
        );
        // With nothing since, it is the file before the edit.
        assert_eq!(take_back(BEFORE, AFTER, AFTER).unwrap(), BEFORE);
        // Lines added above move it down.
        let moved = format!("import os\n\n\n{AFTER}");
        assert_eq!(
            take_back(BEFORE, AFTER, &moved).unwrap(),
            format!("import os\n\n\n{BEFORE}")
        );
    }

    #[test]
    fn a_later_change_of_the_same_lines_refuses_naming_them() {
        let now = "def a():\n    return 100\n\n\ndef b():\n    return 2\n";
        assert_eq!(take_back(BEFORE, AFTER, now), Err(vec![2]));
    }

    #[test]
    fn insertions_and_deletions_are_taken_back_too() {
        let added = "def a():\n    return 1\n\n\ndef c():\n    pass\n\n\ndef b():\n    return 2\n";
        let later = added.replace("return 2", "return 3");
        assert_eq!(
            take_back(BEFORE, added, &later).unwrap(),
            BEFORE.replace("return 2", "return 3")
        );
        assert_eq!(
            take_back(added, BEFORE, &BEFORE.replace("return 2", "return 3")).unwrap(),
            later
        );
    }
}
