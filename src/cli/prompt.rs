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
    print!("{}", block(&at.to_string_lossy()));
    Ok(())
}

/// The block for a mount at `at`.
pub fn block(at: &str) -> String {
    format!(
        "## Workspace: {at}\n\
         This project, its tasks and notes of past sessions are files under {at}/.\n\
         - First `cat {at}/_entry.md`. In every directory `_entry.md` says what is there and what to do.\n\
         - `source/`: one file per class and function; edit with sed -i, cp, echo >.\n\
         - `tasks/`, `memory/` (past sessions), `search/<query>`.\n\
         - Writes are checked; a refused one changes nothing, and `{at}/_errors.md` says why (`echo >` hides it).\n"
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
        let text = block("/home/someone/work/projects/app/hs");
        let tokens = text.chars().count().div_ceil(4);
        assert!(tokens <= PROMPT_TOKENS, "{tokens} tokens:\n{text}");
        assert!(text.contains("cat /home/someone/work/projects/app/hs/_entry.md"));
        assert!(text.contains("_errors.md"));
    }
}
