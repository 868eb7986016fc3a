//! Which checkout of the project this mount serves, as the store knows it. The edit
//! history, the test runs and the settings describe one checkout's files (the
//! project's files stay local to each checkout; only the store is shared), so the store keeps them under this key,
//! and mounts of other checkouts sharing one store (PostgreSQL) neither see nor undo them.

use std::path::Path;

/// `<host>:<project directory>` (canonical): the directory alone is the same on many
/// machines (every agent's `/work/project`), and a test run's process number means
/// something only on the host that started it. Made from the checkout itself, not stored
/// in it, so a remount or a restarted daemon of the same checkout finds its records again
/// and nothing is written to a project mounted read-only. Moving the project or renaming
/// the host begins a new history: the old records stay in the store under the old key.
pub(crate) fn key(root: &Path) -> String {
    format!("{}:{}", hostname(), root.display())
}

/// This host's name, as `hostname` prints it.
fn hostname() -> String {
    // Linux's names are at most 64 bytes; POSIX allows up to 255.
    let mut name = [0u8; 256];
    // SAFETY: the pointer and length describe `name`, which lives to the end of this
    // function and is written by no one else; gethostname writes at most that many bytes.
    let done = unsafe { libc::gethostname(name.as_mut_ptr().cast(), name.len()) };
    if done != 0 {
        // It fails only for a buffer too small, which 256 bytes is not. A checkout then
        // shares its key with the same directory on other hosts that fail alike.
        return "unknown-host".into();
    }
    // A name that filled the buffer may lack its NUL.
    let end = name.iter().position(|&b| b == 0).unwrap_or(name.len());
    String::from_utf8_lossy(&name[..end]).into_owned()
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::sync::Arc;

    use super::*;
    use crate::error::ErrorKind;
    use crate::model::time::Time;
    use crate::resources::source::Source;
    use crate::resources::source::edit::change::ProjectChange;
    use crate::resources::source::settings::DEFAULT;
    use crate::store::Store;
    use crate::store::runs::Begun;
    use crate::store::testing::for_each_backend;
    use crate::tree::access::Admission;
    use crate::tree::resource::ReadNow;

    #[test]
    fn a_checkout_is_its_host_and_directory() {
        let here = key(Path::new("/work/app"));
        let host = hostname();
        assert!(!host.is_empty());
        assert_eq!(here, format!("{host}:/work/app"));
        assert_eq!(here, key(Path::new("/work/app")), "the same each time");
        assert_ne!(here, key(Path::new("/work/app2")));
    }

    /// A checkout of a one-module project, mounted over `store`.
    fn checkout(store: &Arc<Store>) -> (tempfile::TempDir, PathBuf, Arc<Source>) {
        let (dir, root) = crate::resources::source::testing::project_with(&[("app.py", "X = 1\n")]);
        let source = crate::resources::source::testing::source_over(&root, store);
        (dir, root, source)
    }

    /// Edit `app.py` of `source` as a write through the mount does; the edit's number.
    fn edit(source: &Source, root: &Path, text: &str) -> i64 {
        let file = root.join("app.py");
        let mut change = ProjectChange::begin(&source.editor, &[&file]).unwrap();
        change.write(&file, text, "replace module app").unwrap();
        change.commit().unwrap();
        let (rows, _) = source.editor.edits().newest(1).unwrap();
        rows[0].0
    }

    fn title(source: &Source) -> String {
        source.editor.edits().entry().unwrap().title
    }

    #[test]
    fn two_checkouts_on_one_store_see_only_their_own_history_settings_and_runs() {
        for_each_backend(|store| {
            let (_a_dir, a_root, a) = checkout(&store);
            let (_b_dir, b_root, b) = checkout(&store);
            assert_ne!(key(&a_root), key(&b_root));

            // The history: each sees, shows and undoes its own edits only, numbered from 1
            // in each checkout although the store numbers them together.
            let a_edit = edit(&a, &a_root, "X = 2\n");
            let b_edit = edit(&b, &b_root, "X = 3\n");
            assert_eq!((a_edit, b_edit), (1, 1));
            assert!(title(&a).contains("1 routed edit of"), "{}", title(&a));
            assert!(title(&b).contains("1 routed edit of"), "{}", title(&b));
            assert!(!a.editor.edits().exists(2) && !b.editor.edits().exists(2));
            let a_diff = a.editor.edits().diff_view(1).unwrap();
            assert!(
                a_diff.contains("+X = 2") && !a_diff.contains("+X = 3"),
                "{a_diff}"
            );
            let missing = b.editor.edits().diff_view(2).unwrap_err();
            assert_eq!(missing.kind, ErrorKind::NotFound, "{}", missing.message);
            let refused = a.editor.undo(b"2").unwrap_err();
            assert_eq!(refused.kind, ErrorKind::NotFound, "{}", refused.message);
            assert_eq!(
                std::fs::read_to_string(b_root.join("app.py")).unwrap(),
                "X = 3\n"
            );
            // Its own edit, stored after the other's, shows and undoes as its number 1.
            let b_diff = b.editor.edits().diff_view(1).unwrap();
            assert!(
                b_diff.contains("+X = 3") && !b_diff.contains("+X = 2"),
                "{b_diff}"
            );
            b.editor.undo(b"1").unwrap();
            assert_eq!(
                std::fs::read_to_string(b_root.join("app.py")).unwrap(),
                "X = 1\n"
            );
            assert_eq!(
                std::fs::read_to_string(a_root.join("app.py")).unwrap(),
                "X = 2\n"
            );
            assert!(title(&a).contains("1 routed edit of"), "{}", title(&a));

            // The settings: one checkout's interpreter is not another's.
            let mine = DEFAULT.replace("python = \"\"", "python = \"/opt/a/bin/python\"");
            {
                let _owner = Admission::enter(true);
                a.settings.write(mine.as_bytes()).unwrap();
            }
            assert_eq!(a.settings.text().unwrap(), mine);
            assert_eq!(b.settings.text().unwrap(), DEFAULT);

            // The runs: a run of A (its process alive) is not B's, nor in B's way.
            let alive = |_, _| true;
            let begun = store
                .change_records(|db| {
                    db.runs().begin(
                        &key(&a_root),
                        "pytest",
                        Time::from_unix(1),
                        std::process::id(),
                        &alive,
                    )
                })
                .unwrap();
            let Begun::Started(run) = begun else {
                panic!("{begun:?}")
            };
            assert!(
                a.runner
                    .last_run()
                    .is_some_and(|line| line.starts_with(&run.to_string()))
            );
            assert_eq!(b.runner.last_run(), None);
            assert!(b.runner.list_now(&["runs"]).unwrap().is_empty());
            let missing = b.runner.stat_now(&["runs", &run.to_string()]).unwrap_err();
            assert_eq!(missing.kind, ErrorKind::NotFound, "{}", missing.message);
            let begun = store
                .change_records(|db| {
                    db.runs().begin(
                        &key(&b_root),
                        "pytest",
                        Time::from_unix(2),
                        std::process::id(),
                        &alive,
                    )
                })
                .unwrap();
            assert!(matches!(begun, Begun::Started(_)), "{begun:?}");
        });
    }
}
