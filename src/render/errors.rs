//! `/_errors.md`: recent failures, newest first, each with time, operation, path and the
//! human-readable message; pruned to the budget like every view.

use crate::render::budget;
use crate::render::time::rfc3339_of;
use crate::tree::Space;

/// Render the error log of `space`.
pub fn render(space: &Space) -> String {
    space.examine_misses();
    let failures = space.errors.newest_first();
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
    for failure in &failures {
        let mut lines = failure.message.lines();
        let first = lines.next().unwrap_or_default();
        out.push_str(&format!(
            "- {} {} {}: {first}\n",
            rfc3339_of(failure.at),
            failure.op,
            failure.path
        ));
        for line in lines {
            out.push_str(&format!("  {line}\n"));
        }
    }
    let more = format!(
        "the _entry.md of the directory where it happened, or {}",
        "the daemon log"
    );
    budget::prune(&out, space.budget, &more)
}
