//! `tasks/` on a real mount, driven by the shell scripts `tests/shell/tasks_*.sh`: creating,
//! editing, moving, renaming and deleting tasks with the usual tools, every rejected write,
//! and the views that follow the tasks.

mod common;

use common::Mount;

#[test]
fn tasks_are_created_with_the_usual_tools() {
    Mount::example().run_script("tasks_create.sh");
}

#[test]
fn tasks_are_edited_in_place_and_bad_edits_refused() {
    Mount::example().run_script("tasks_edit.sh");
}

#[test]
fn tasks_are_moved_renamed_and_deleted() {
    Mount::example().run_script("tasks_move.sh");
}

#[test]
fn bad_task_writes_are_refused_whole_and_explained() {
    Mount::example().run_script("tasks_reject.sh");
}

#[test]
fn views_of_tasks_follow_every_change() {
    Mount::example().run_script("tasks_views.sh");
}

#[test]
fn a_refused_vim_write_keeps_the_task_as_it_was() {
    Mount::example().run_script("tasks_vim_refused.sh");
}

#[test]
fn two_writers_of_one_task_never_lose_an_update_silently() {
    Mount::example().run_script("tasks_stale_writers.sh");
}
