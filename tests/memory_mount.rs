//! `memory/` on a real mount, driven by the shell scripts `tests/shell/memory_*.sh`:
//! importing by CLI and by `cp`, idempotence, refused files, entry and summary edits,
//! appending, sessions made with `mkdir`, search and recall, and a session's digest.

mod common;

use common::Mount;

#[test]
fn transcripts_are_imported_whole_once_by_cli_and_by_cp() {
    Mount::example().run_script("memory_import.sh");
}

#[test]
fn entries_keep_what_happened_and_take_tags_appends_and_summaries() {
    Mount::example().run_script("memory_edit.sh");
}

#[test]
fn memory_is_searched_with_snippets_and_filters_and_recalled() {
    Mount::example().run_script("memory_search.sh");
}

#[test]
fn a_session_opens_with_its_digest_and_a_written_summary_replaces_the_extracted_one() {
    Mount::example().run_script("memory_digest.sh");
}
