//! `source/` edits on a real mount, driven by the shell scripts `tests/shell/source_edit_*.sh`
//! (every tool, valid and invalid edits, new and removed symbols and modules, history and
//! undo, concurrent writers, conflicts, the import check), plus what shell cannot drive
//! well: killing the daemon in the middle of edits.

mod common;

use common::Mount;

#[test]
fn symbol_files_are_edited_with_every_tool() {
    Mount::example().run_script("source_edit_symbols.sh");
}

#[test]
fn module_files_are_edited_with_every_tool() {
    Mount::example().run_script("source_edit_modules.sh");
}

#[test]
fn symbol_files_that_break_the_rules_are_refused_and_explained() {
    Mount::example().run_script("source_edit_refused.sh");
}
