//! Importing the fixtures of the formats read whole (Gemini CLI, Aider, OpenCode) twice:
//! the second import adds nothing, skipping every entry the first stored.

use std::path::{Path, PathBuf};

use crate::store::Store;

use super::import_paths;

fn fixtures(format: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/transcripts")
        .join(format)
}

/// The fixture OpenCode database, made from its SQL in `dir`.
fn database(dir: &Path) -> PathBuf {
    let path = dir.join("opencode.db");
    let db = rusqlite::Connection::open(&path).unwrap();
    db.execute_batch(include_str!(
        "../../tests/fixtures/transcripts/opencode/opencode.sql"
    ))
    .unwrap();
    path
}

/// Imports `paths` into a new store, then again: the files, sessions and entries the first
/// import stored, once the second is seen to add nothing and to skip every entry.
fn imported_twice(paths: &[PathBuf]) -> (usize, usize, usize) {
    let store = Store::in_memory().unwrap();
    let first = import_paths(&store, paths, &mut |_| {}).unwrap();
    assert!(first.bad_files.is_empty(), "{:?}", first.bad_files);
    let again = import_paths(&store, paths, &mut |_| {}).unwrap();
    assert_eq!(
        (again.sessions, again.entries, again.skipped),
        (0, 0, first.entries)
    );
    (first.files, first.sessions, first.entries)
}

#[test]
fn gemini_sessions_import_once() {
    assert_eq!(imported_twice(&[fixtures("gemini")]), (2, 2, 17));
}

#[test]
fn the_aider_project_folder_imports_its_history_once() {
    assert_eq!(imported_twice(&[fixtures("aider")]), (1, 2, 30));
}

#[test]
fn opencode_imports_once_and_a_grown_database_adds_only_what_is_new() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path());
    let store = Store::in_memory().unwrap();
    let paths = [fixtures("opencode/storage"), dir.path().to_path_buf()];
    let first = import_paths(&store, &paths, &mut |_| {}).unwrap();
    assert!(first.bad_files.is_empty(), "{:?}", first.bad_files);
    assert!(
        first.not_transcripts.is_empty(),
        "messages and parts are not walked: {:?}",
        first.not_transcripts
    );
    assert_eq!((first.files, first.sessions, first.entries), (2, 3, 25));
    let again = import_paths(&store, &paths, &mut |_| {}).unwrap();
    assert_eq!((again.sessions, again.entries, again.skipped), (0, 0, 25));

    let part = r#"{"type":"text","text":"Tests added.","time":{"start":1763632995020}}"#;
    rusqlite::Connection::open(&db)
        .unwrap()
        .execute(
            "INSERT INTO part VALUES ('prt_b0d5e3d10004Zz', 'msg_b0d5e3d10001Cv9Bn0Mq1We2Rt', \
             'ses_4f2a9c31bffeR2d8Gh5Jk0Lm3N', 1, 1, ?1)",
            [part],
        )
        .unwrap();
    let grown = import_paths(&store, &[db], &mut |_| {}).unwrap();
    assert_eq!((grown.sessions, grown.entries, grown.skipped), (0, 1, 11));
}
