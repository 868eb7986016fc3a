//! `homespace prompt MOUNTPOINT`: the few lines to paste into an agent's instructions
//! (AGENTS.md, CLAUDE.md) so that it knows the mount is there and works the common loop
//! without reading any `_entry.md` first: the verbs of the root dashboard (run the tests
//! and wait, read a symbol, edit, search, record a task, recall), read from the mount
//! itself so that they are always the dashboard's, and that writes are checked.

use std::path::Path;

/// Print the block for the mount at `mountpoint`.
pub fn prompt(mountpoint: &Path) -> Result<(), String> {
    let at = mountpoint
        .canonicalize()
        .map_err(|e| format!("{}: {e}", mountpoint.display()))?;
    if !homespace::daemon::mount::is_mounted(&at) {
        return Err(format!(
            "{} is not mounted; `homespace mount --project DIR {}` first",
            at.display(),
            at.display()
        ));
    }
    let read_only = homespace::daemon::mounts::running()
        .into_iter()
        .find(|m| m.mountpoint == at)
        .and_then(|m| m.daemon)
        .is_some_and(|d| d.read_only);
    let dashboard = std::fs::read_to_string(at.join("_entry.md")).unwrap_or_default();
    print!(
        "{}",
        block(&at.to_string_lossy(), read_only, &verbs(&dashboard))
    );
    Ok(())
}

/// The verb lines (`- run the tests and wait: ...`) of the dashboard's `## Do` section.
fn verbs(dashboard: &str) -> Vec<String> {
    dashboard
        .lines()
        .skip_while(|l| *l != "## Do")
        .skip(1)
        .take_while(|l| l.starts_with("- "))
        // The dashboard itself is where the prompt sends the agent to find its way.
        .filter(|l| !l.starts_with("- find your way"))
        .map(str::to_string)
        .collect()
}

/// The block for a mount at `at` (`read_only`: made with `--read-only`) whose dashboard
/// offers `verbs`.
pub fn block(at: &str, read_only: bool, verbs: &[String]) -> String {
    let writes = if read_only {
        "- This mount is read-only: any change fails with \"Read-only file system\".\n".to_string()
    } else {
        format!(
            "- Writes are checked; a refused one changes nothing, and `{at}/_errors.md` says why (`echo >` hides it).\n"
        )
    };
    let loop_lines = if verbs.is_empty() {
        format!(
            "- First `cat {at}/_entry.md`. In every directory `_entry.md` says what is there and what to do.\n"
        )
    } else {
        let mut lines: String = verbs.iter().map(|v| format!("{v}\n")).collect();
        lines.push_str(&format!(
            "- The test state, open tasks, latest session: `cat {at}/_entry.md`\n"
        ));
        lines
    };
    format!(
        "## Workspace: {at}\n\
         This project (`source/`: a file per class and function), its tasks and notes of past sessions are files under {at}/.\n\
         {loop_lines}\
         {writes}"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The most the block may cost an agent's context, in tokens (chars / 4, as views
    /// count): less than the root dashboard, which it stands in for.
    const PROMPT_TOKENS: usize = 280;

    /// The golden dashboard of the example project: what a mount shows.
    const DASHBOARD: &str = include_str!("../../tests/golden/root._entry.md");

    #[test]
    fn the_block_gives_the_dashboards_verbs_within_its_budget_even_for_a_long_mountpoint() {
        let at = "/home/someone/work/projects/app/hs";
        let verbs = verbs(&DASHBOARD.replace("/mnt/hs", at));
        let text = block(at, false, &verbs);
        let tokens = text.chars().count().div_ceil(4);
        assert!(tokens <= PROMPT_TOKENS, "{tokens} tokens:\n{text}");
        for verb in [
            &format!("echo > {at}/source/tests/run; cat {at}/source/tests/runs/latest/result.md"),
            &format!("cat {at}/source/ledger.<module>.<Class>.<method>.py"),
            &format!("cat \"{at}/search/<words>\""),
            &format!("cat {at}/memory/recall"),
            &format!("{at}/tasks/open/<name>.json"),
            &format!("{at}/_errors.md"),
        ] {
            assert!(text.contains(verb.as_str()), "[{verb}] missing:\n{text}");
        }
    }

    #[test]
    fn without_the_dashboard_the_block_sends_the_agent_to_it() {
        let text = block("/mnt/hs", false, &[]);
        assert!(text.contains("cat /mnt/hs/_entry.md"), "{text}");
    }

    #[test]
    fn a_read_only_mount_is_said_to_be_one_and_offers_no_edits() {
        let text = block("/mnt/hs", true, &[]);
        assert!(text.contains("read-only"), "{text}");
        assert!(!text.contains("Writes are checked"), "{text}");
        assert!(text.contains("cat /mnt/hs/_entry.md"), "{text}");
    }
}
