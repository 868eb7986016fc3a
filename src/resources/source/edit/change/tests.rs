//! Tests of the project-change transaction: order of records, nothing planned, rollback
//! of every file on a failed import or write, unreadable old contents, conflicts, and
//! locking two files from two threads in opposite orders.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc;
use std::time::Duration;

use super::*;
use crate::model::links::Links;
use crate::resources::source::Source;
use crate::resources::source::edit::Editor;
use crate::store::Store;
use crate::tree::access::Admission;

/// A project at a temp dir holding `files`, and the editor of its source tree.
fn project(files: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf, Arc<Editor>) {
    let (dir, root) = crate::resources::source::testing::project_with(files);
    let store = Arc::new(Store::in_memory().unwrap());
    let source = Source::new(&root, "demo".into(), Links::new("/mnt/hs"), store, 500);
    (dir, root, Arc::clone(&source.editor))
}

/// The history, oldest first, as (path, what, before, after).
fn history(source: &Editor) -> Vec<(String, String, Option<String>, Option<String>)> {
    let (rows, _) = source.edits.newest(1000).unwrap();
    let text = |b: Option<Vec<u8>>| b.map(|b| String::from_utf8(b).unwrap());
    // Every file's edit: each change's first, then the others of the change.
    rows.into_iter()
        .rev()
        .flat_map(|(id, _, _, _)| source.edits.change_of(id).unwrap())
        .map(|edit| (edit.path, edit.what, text(edit.before), text(edit.after)))
        .collect()
}

fn read(path: &Path) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

#[test]
fn a_change_records_one_edit_per_file_in_the_order_given() {
    let (_dir, root, source) = project(&[("pkg/__init__.py", ""), ("pkg/old.txt", "old\n")]);
    let (init, new, old) = (
        root.join("pkg/__init__.py"),
        root.join("pkg/new.py"),
        root.join("pkg/old.txt"),
    );
    let mut change = ProjectChange::begin(&source, &[&new, &old, &init]).unwrap();
    assert_eq!(change.old(&new).unwrap(), None, "a missing file is new");
    assert_eq!(change.old(&init).unwrap(), Some(&b""[..]));
    change
        .write(&new, "X = 1\n", "create module pkg.new")
        .unwrap();
    change.delete(&old, "delete old.txt").unwrap();
    change
        .write(&init, "from . import new\n", "expose pkg.new in pkg")
        .unwrap();
    change.commit().unwrap();
    assert_eq!(read(&new).as_deref(), Some("X = 1\n"));
    assert_eq!(read(&old), None);
    assert_eq!(read(&init).as_deref(), Some("from . import new\n"));
    let some = |s: &str| Some(s.to_string());
    assert_eq!(
        history(&source),
        [
            (
                "pkg/new.py".into(),
                "create module pkg.new".into(),
                None,
                some("X = 1\n")
            ),
            (
                "pkg/old.txt".into(),
                "delete old.txt".into(),
                some("old\n"),
                None
            ),
            (
                "pkg/__init__.py".into(),
                "expose pkg.new in pkg".into(),
                some(""),
                some("from . import new\n")
            ),
        ]
    );
}

#[test]
fn a_change_that_plans_nothing_writes_and_records_nothing() {
    let (_dir, root, source) = project(&[("m.py", "X = 1\n")]);
    let module = root.join("m.py");
    let mut change = ProjectChange::begin(&source, &[&module]).unwrap();
    change.import_check("m");
    change.commit().unwrap();
    assert!(history(&source).is_empty());
    assert_eq!(read(&module).as_deref(), Some("X = 1\n"));
}

#[test]
fn a_failed_import_puts_back_every_touched_file_and_removes_created_ones() {
    let (_dir, root, source) = project(&[
        ("pkg/__init__.py", "from . import a\n"),
        ("pkg/a.py", "X = 1\n"),
        ("pkg/notes.txt", "kept\n"),
    ]);
    if crate::python::interpreter::find(&root, None).is_err() {
        eprintln!("no python3: the import check cannot run here");
        return;
    }
    let (init, a, new, notes) = (
        root.join("pkg/__init__.py"),
        root.join("pkg/a.py"),
        root.join("pkg/new.py"),
        root.join("pkg/notes.txt"),
    );
    // The import check runs only for the mount owner's changes.
    let _owner = Admission::enter(true);
    let mut change = ProjectChange::begin(&source, &[&a, &new, &init, &notes]).unwrap();
    change
        .write(&a, "import nonexistent_module\n", "replace module pkg.a")
        .unwrap();
    change
        .write(&new, "Y = 2\n", "create module pkg.new")
        .unwrap();
    change
        .write(&init, "from . import a\nfrom . import new\n", "expose")
        .unwrap();
    change.delete(&notes, "delete notes.txt").unwrap();
    change.import_check("pkg");
    let failure = change.commit().unwrap_err();
    assert_eq!(failure.kind, ErrorKind::Invalid, "{}", failure.message);
    assert!(
        failure
            .message
            .contains("No module named 'nonexistent_module'"),
        "{}",
        failure.message
    );
    assert_eq!(read(&a).as_deref(), Some("X = 1\n"));
    assert_eq!(read(&new), None, "the created module is removed");
    assert_eq!(read(&init).as_deref(), Some("from . import a\n"));
    assert_eq!(
        read(&notes).as_deref(),
        Some("kept\n"),
        "the deleted file is back"
    );
    assert!(history(&source).is_empty(), "nothing is recorded");
}

#[test]
fn a_failed_write_puts_back_what_was_written_before_it_and_deletes_nothing() {
    let (_dir, root, source) = project(&[("a.py", "X = 1\n"), ("gone.txt", "kept\n")]);
    let (a, gone) = (root.join("a.py"), root.join("gone.txt"));
    // Its directory does not exist, so the rename into place fails.
    let nowhere = root.join("missing/b.py");
    let mut change = ProjectChange::begin(&source, &[&gone, &a, &nowhere]).unwrap();
    change.delete(&gone, "delete gone.txt").unwrap();
    change.write(&a, "X = 2\n", "replace module a").unwrap();
    change
        .write(&nowhere, "Y = 1\n", "create module b")
        .unwrap();
    let failure = change.commit().unwrap_err();
    assert!(
        failure.message.contains("missing/b.py"),
        "{}",
        failure.message
    );
    assert_eq!(read(&a).as_deref(), Some("X = 1\n"), "restored");
    assert_eq!(
        read(&gone).as_deref(),
        Some("kept\n"),
        "deletions come after every write"
    );
    assert!(history(&source).is_empty());
}

#[test]
fn an_unreadable_previous_content_is_an_error_not_a_new_file() {
    let (_dir, root, source) = project(&[("pkg/__init__.py", "")]);
    // A directory cannot be read as a file, even by root (unlike a mode of 000).
    let unreadable = root.join("pkg");
    let Err(failure) = ProjectChange::begin(&source, &[&unreadable]) else {
        panic!("reading a directory as the previous content succeeded");
    };
    assert_eq!(failure.kind, ErrorKind::Internal);
    assert!(
        failure.message.contains("cannot read"),
        "{}",
        failure.message
    );

    let missing = root.join("pkg/missing.py");
    let change = ProjectChange::begin(&source, &[&missing]).unwrap();
    let failure = change.existing(&missing).unwrap_err();
    assert!(
        failure.message.contains("cannot read") && failure.message.contains("missing.py"),
        "{}",
        failure.message
    );
}

#[test]
fn a_stale_base_is_a_conflict_and_files_not_begun_are_refused() {
    let (_dir, root, source) = project(&[("data.txt", "now\n")]);
    let data = root.join("data.txt");
    let mut change = ProjectChange::begin(&source, &[&data]).unwrap();
    change.expect(&data, None, "data.txt").unwrap();
    change.expect(&data, Some(b"now\n"), "data.txt").unwrap();
    let failure = change
        .expect(&data, Some(b"then\n"), "data.txt")
        .unwrap_err();
    assert_eq!(failure.kind, ErrorKind::Busy);
    assert!(failure.message.contains("was changed by someone else"));
    let other = root.join("other.txt");
    assert!(change.write(&other, "x", "write other.txt").is_err());
    assert!(change.old(&other).is_err());
}

#[test]
fn a_file_named_twice_is_locked_once() {
    let (_dir, root, source) = project(&[("pkg/__init__.py", "")]);
    let init = root.join("pkg/__init__.py");
    let (done, finished) = mpsc::channel();
    let source_ = Arc::clone(&source);
    std::thread::spawn(move || {
        let result = ProjectChange::begin(&source_, &[&init, &init]).and_then(|mut change| {
            change.write(&init, "\"\"\"Pkg.\"\"\"\n", "create module pkg")?;
            change.commit()
        });
        let _ = done.send(result.map_err(|e| e.message));
    });
    finished
        .recv_timeout(Duration::from_secs(20))
        .expect("the change returned")
        .unwrap();
    assert_eq!(history(&source).len(), 1);
}

#[test]
fn changes_touching_two_files_in_opposite_orders_never_deadlock_nor_interleave() {
    let (_dir, root, source) = project(&[("pkg/__init__.py", "0"), ("pkg/m.py", "0")]);
    let (init, module) = (root.join("pkg/__init__.py"), root.join("pkg/m.py"));
    const ROUNDS: usize = 40;
    let (done, finished) = mpsc::channel();
    for reversed in [false, true] {
        let (source, done) = (Arc::clone(&source), done.clone());
        let (init, module) = (init.clone(), module.clone());
        std::thread::spawn(move || {
            let touched: [&Path; 2] = match reversed {
                false => [&module, &init],
                true => [&init, &module],
            };
            for _ in 0..ROUNDS {
                // Both files count the changes: a change that read one before the other
                // change wrote it would lose a count.
                let mut change = ProjectChange::begin(&source, &touched).unwrap();
                for file in touched {
                    let count: usize = String::from_utf8_lossy(change.existing(file).unwrap())
                        .parse()
                        .unwrap();
                    std::thread::yield_now();
                    change
                        .write(file, (count + 1).to_string(), "count")
                        .unwrap();
                }
                change.commit().unwrap();
            }
            let _ = done.send(());
        });
    }
    for _ in 0..2 {
        finished
            .recv_timeout(Duration::from_secs(60))
            .expect("both changers finished: no deadlock");
    }
    let total = (2 * ROUNDS).to_string();
    assert_eq!(read(&init), Some(total.clone()));
    assert_eq!(read(&module), Some(total));
    assert_eq!(history(&source).len(), 4 * ROUNDS);
}

#[test]
fn setup_main_and_conftest_are_not_imported_to_check_them() {
    for program in [
        "setup",
        "ledger.__main__",
        "__main__",
        "tests.conftest",
        "conftest",
    ] {
        assert!(!imported_as_a_module(program), "{program}");
    }
    // A module of a package that happens to be called `setup` is a module like any.
    for module in ["ledger.setup", "ledger", "tests.test_setup"] {
        assert!(imported_as_a_module(module), "{module}");
    }
}
