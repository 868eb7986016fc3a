//! Copying a project tree for a test or a benchmark run, without what earlier runs left
//! in it.

use std::path::Path;

/// Names a copy leaves out: Python's caches and the `.homespace/` an earlier mount left
/// (its log and temp files belong to that mount, not to the project).
const LEFT_OUT: [&str; 3] = ["__pycache__", ".homespace", ".pytest_cache"];

/// Copy directory `from` into `to`, recursively: files and folders only.
pub fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let name = entry.file_name();
        if LEFT_OUT.iter().any(|left| name == *left) {
            continue;
        }
        let target = to.join(&name);
        if entry.file_type()?.is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copy_holds_the_files_and_folders_but_not_the_caches() {
        let from = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(from.path().join("pkg/__pycache__")).unwrap();
        std::fs::create_dir_all(from.path().join(".homespace")).unwrap();
        std::fs::write(from.path().join("pkg/a.py"), "x = 1\n").unwrap();
        std::fs::write(from.path().join("pkg/__pycache__/a.pyc"), "").unwrap();
        let to = tempfile::tempdir().unwrap();
        copy_dir(from.path(), &to.path().join("copy")).unwrap();
        let copy = to.path().join("copy");
        assert_eq!(
            std::fs::read_to_string(copy.join("pkg/a.py")).unwrap(),
            "x = 1\n"
        );
        assert!(!copy.join("pkg/__pycache__").exists());
        assert!(!copy.join(".homespace").exists());
    }
}
