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

#[test]
fn mv_rm_and_new_files_rename_delete_and_add_symbols_and_modules() {
    Mount::example().run_script("source_edit_structure.sh");
}

#[test]
fn every_edit_is_in_the_history_and_can_be_undone() {
    Mount::example().run_script("source_edit_history.sh");
}

#[test]
#[ignore = "bug: rm of a module never runs the import check and leaves `from . import newmod` \
            in __init__.py, so `import ledger` fails afterwards"]
fn rm_of_a_module_leaves_the_package_importable() {
    Mount::example().run_script("source_edit_module_rm.sh");
}

#[test]
#[ignore = "bug: touch of a new symbol file exits 0 although the empty file is refused \
            (at release, after close) and does not exist afterwards"]
fn touch_of_a_new_symbol_file_reports_the_refusal() {
    Mount::example().run_script("source_edit_touch.sh");
}
