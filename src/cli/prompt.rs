//! `homespace prompt MOUNTPOINT`: the few lines to paste into an agent's instructions
//! (AGENTS.md, CLAUDE.md) so that it knows the mount is there and how to find its way:
//! read `_entry.md`, writes are checked, `_errors.md` says why one failed.

use std::path::Path;

/// Print the block for the mount at `mountpoint`.
pub fn prompt(mountpoint: &Path) -> Result<(), String> {
    let at = mountpoint
        .canonicalize()
        .map_err(|e| format!("{}: {e}", mountpoint.display()))?;
    if !homespace::mount::is_mounted(&at) {
        return Err(format!(
            "{} is not mounted; `homespace mount --project DIR {}` first",
            at.display(),
            at.display()
        ));
    }
    let read_only = homespace::mounts::running()
        .into_iter()
        .find(|m| m.mountpoint == at)
        .and_then(|m| m.daemon)
        .is_some_and(|d| d.read_only);
    print!("{}", block(&at.to_string_lossy(), read_only));
    Ok(())
}

/// The block for a mount at `at` (`read_only`: made with `--read-only`).
pub fn block(at: &str, read_only: bool) -> String {
    let (edit, writes) = if read_only {
        (
            "",
            "- This mount is read-only: any change fails with \"Read-only file system\".\n"
                .to_string(),
        )
    } else {
        (
            "; edit with sed -i, cp, echo >",
            format!(
                "- Writes are checked; a refused one changes nothing, and `{at}/_errors.md` says why (`echo >` hides it).\n"
            ),
        )
    };
    format!(
        "## Workspace: {at}\n\
         This project, its tasks and notes of past sessions are files under {at}/.\n\
         - First `cat {at}/_entry.md`. In every directory `_entry.md` says what is there and what to do.\n\
         - `source/`: one file per class and function{edit}.\n\
         - `tasks/`, `memory/` (past sessions), `search/<query>`.\n\
         {writes}"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The most the block may cost an agent's context, in tokens (chars / 4, as views
    /// count): the promise.
    const PROMPT_TOKENS: usize = 150;

    #[test]
    fn the_block_fits_its_budget_even_for_a_long_mountpoint() {
        let text = block("/home/someone/work/projects/app/hs", false);
        let tokens = text.chars().count().div_ceil(4);
        assert!(tokens <= PROMPT_TOKENS, "{tokens} tokens:\n{text}");
        assert!(text.contains("cat /home/someone/work/projects/app/hs/_entry.md"));
        assert!(text.contains("_errors.md"));
    }

    #[test]
    fn a_read_only_mount_is_said_to_be_one_and_offers_no_edits() {
        let text = block("/mnt/hs", true);
        assert!(text.contains("read-only"), "{text}");
        assert!(
            !text.contains("sed -i") && !text.contains("Writes are checked"),
            "{text}"
        );
        assert!(text.contains("cat /mnt/hs/_entry.md"), "{text}");
    }
}
