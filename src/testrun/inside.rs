//! Whether a test path of a selector stays in the project. pytest imports the test files
//! it is given wherever they are (`/tmp/shared/test_x.py`, `../../x`), and their folders'
//! `conftest.py` too below `--confcutdir`: a file there, which others may write, would
//! run as the owner. So a path must end inside the project's root both when followed as
//! the kernel would (`..` after each link) and as pytest reads it (`..` taken off the text
//! first, links followed after): a link `L -> a/b` makes `L/../../x` differ.
//!
//! The path is the word up to its first `[` and then its first `::`, as pytest 7 and 8
//! cut it (they drop a `[…]` without `::` silently): `/tmp/x/test_a.py[/../../root]` is
//! `/tmp/x/test_a.py`.

use std::path::{Component, Path, PathBuf};

/// Why the selector word `word` (a test path or id, `path::name[params]`) is refused, if
/// its path leads outside `root`.
pub fn outside(word: &str, root: &Path) -> Option<String> {
    let path = word.split('[').next().unwrap_or(word);
    let path = path.split("::").next().unwrap_or(path);
    let root = real(root, Path::new(""));
    let followed = real(&root, Path::new(path));
    let as_written = real(Path::new("/"), &lexical(&root, Path::new(path)));
    let leads = match followed.starts_with(&root) {
        true => as_written,
        false => followed,
    };
    if leads.starts_with(&root) {
        return None;
    }
    Some(format!(
        "`{word}` (a test path outside the project: it leads to {}, and pytest would import \
         the test files and conftest.py there, which this mount does not vouch for; name \
         tests inside the project, by a path relative to its root such as tests/test_x.py)",
        leads.display()
    ))
}

/// `path` (relative to `base` unless absolute) as the kernel would resolve it: each part
/// that exists with its links followed, `..` going up from there; what does not exist yet
/// is kept as written, since it may be made later.
fn real(base: &Path, path: &Path) -> PathBuf {
    walk(base, path, true)
}

/// `path` (relative to `base` unless absolute) with `.` and `..` taken off the text, links
/// not followed: what pytest makes of a path before it opens it.
fn lexical(base: &Path, path: &Path) -> PathBuf {
    walk(base, path, false)
}

/// `path` from `base`, part by part, each part that exists resolved to its target when
/// `follow_links`.
fn walk(base: &Path, path: &Path, follow_links: bool) -> PathBuf {
    let follow = |at: &mut PathBuf| {
        if follow_links && let Ok(resolved) = at.canonicalize() {
            *at = resolved;
        }
    };
    let mut at = match path.is_absolute() {
        true => PathBuf::from("/"),
        false => base.to_path_buf(),
    };
    follow(&mut at);
    for part in path.components() {
        match part {
            Component::ParentDir => {
                at.pop();
            }
            Component::Normal(name) => {
                at.push(name);
                follow(&mut at);
            }
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
        }
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A project with `tests/test_a.py`, and `elsewhere/test_b.py` beside it.
    fn project() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("project");
        std::fs::create_dir_all(root.join("tests")).unwrap();
        std::fs::write(root.join("tests/test_a.py"), "").unwrap();
        std::fs::create_dir(dir.path().join("elsewhere")).unwrap();
        std::fs::write(dir.path().join("elsewhere/test_b.py"), "").unwrap();
        (dir, root)
    }

    #[test]
    fn paths_and_ids_in_the_project_pass() {
        let (_dir, root) = project();
        for fine in [
            "tests/test_a.py",
            "tests/test_a.py::test_x[../../etc]",
            "./tests/../tests/test_a.py",
            "tests/not_yet.py",
            "tests",
        ] {
            assert_eq!(outside(fine, &root), None, "{fine}");
        }
        let absolute = root.join("tests/test_a.py");
        assert_eq!(outside(&absolute.display().to_string(), &root), None);
    }

    #[test]
    fn paths_leading_out_are_refused_and_say_what_to_write() {
        let (dir, root) = project();
        std::os::unix::fs::symlink(dir.path().join("elsewhere"), root.join("tests/out")).unwrap();
        std::fs::create_dir_all(root.join("tests/a/b/c")).unwrap();
        std::os::unix::fs::symlink(root.join("tests/a/b/c"), root.join("tests/deep")).unwrap();
        for bad in [
            "../elsewhere/test_b.py",
            "tests/../../elsewhere/test_b.py::test_x",
            "/tmp/shared/test_x.py",
            "tests/out/test_b.py",
            "tests/out/../../project/../elsewhere",
            "..",
            // pytest 7 and 8 drop the brackets and import the file before them.
            "../elsewhere/test_b.py[/../../project/tests]",
            // Followed as the kernel would, it is `tests/x`; pytest takes `..` off the
            // text first and opens `../elsewhere/test_b.py`.
            "tests/deep/../../../elsewhere/test_b.py",
        ] {
            let why = outside(bad, &root).unwrap_or_else(|| panic!("{bad} passed"));
            assert!(
                why.contains("a test path outside the project"),
                "{bad}: {why}"
            );
            assert!(why.contains("relative to its root"), "{bad}: {why}");
        }
        let why = outside("tests/out/test_b.py", &root).unwrap();
        assert!(why.contains("elsewhere/test_b.py"), "says where: {why}");
    }
}
