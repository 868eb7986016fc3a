//! What a virtualenv's `pyvenv.cfg` makes its interpreter load, checked before it runs.
//! Its `home =` names the Python installation the venv was made from: the standard
//! library (`os.py`, `encodings`, imported before any line of the project) is found from
//! there, above all for a `--copies` venv, whose interpreter is a copy that knows no other
//! place. A venv of the owner's whose `home` is a folder another user may write would run
//! their `os.py` as the owner on every import check, so `home`, the interpreter it holds
//! and the standard library found from it must be the owner's alone ([`crate::trust`]),
//! as the venv's own files are.

use std::fs;
use std::path::{Path, PathBuf};

use crate::trust::owner_alone;

/// Why the venv whose configuration is `config` (a `pyvenv.cfg`) must not run `python`
/// (its interpreter, as it will be run), or `Ok` when the file and what its `home` names
/// are the owner's alone. A `pyvenv.cfg` without `home` sends Python nowhere else.
pub(super) fn check(config: &Path, python: &Path) -> Result<(), String> {
    owner_alone(config)?;
    let text = fs::read_to_string(config)
        .map_err(|e| format!("{} cannot be read: {e}", config.display()))?;
    let Some(home) = value(&text, "home") else {
        return Ok(());
    };
    let home = PathBuf::from(home);
    let refused = |why: String| {
        format!(
            "its {} says home = {}, and {why}",
            config.display(),
            home.display()
        )
    };
    if !home.is_absolute() {
        // Python would take it from wherever the interpreter was started.
        return Err(refused("that is not an absolute path".into()));
    }
    owner_alone(&home).map_err(refused)?;
    if let Some(base) = python.file_name().map(|name| home.join(name))
        && base.exists()
    {
        owner_alone(&base).map_err(refused)?;
    }
    for stdlib in standard_libraries(&home) {
        for landmark in ["os.py", "encodings/__init__.py"] {
            let file = stdlib.join(landmark);
            if file.exists() {
                owner_alone(&file).map_err(refused)?;
            }
        }
    }
    Ok(())
}

/// The value of `key` in a `pyvenv.cfg`, read as Python reads it: `key = value` lines,
/// the key compared without case, the first `=` splitting.
fn value<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    text.lines().find_map(|line| {
        let (name, value) = line.split_once('=')?;
        name.trim().eq_ignore_ascii_case(key).then(|| value.trim())
    })
}

/// Every standard library Python may load from `home`: each `lib/python3.N` holding
/// `os.py` (Python's landmark) in `home` or a folder above it.
///
/// All of them, whatever `version` or `version_info` the `pyvenv.cfg` says: those are
/// written by the tool that made the venv and read by no Python — the interpreter looks
/// for the version it was built as, and the file may say another or nothing at all. A
/// `pyvenv.cfg` without a version is still a venv Python runs, so refusing it would refuse
/// venvs that are fine; checking every candidate checks the one Python will load.
fn standard_libraries(home: &Path) -> Vec<PathBuf> {
    let python3 = |name: &str| {
        name.strip_prefix("python3.")
            .is_some_and(|minor| !minor.is_empty() && minor.chars().all(|c| c.is_ascii_digit()))
    };
    home.ancestors()
        .filter_map(|dir| fs::read_dir(dir.join("lib")).ok())
        .flat_map(|entries| entries.filter_map(Result::ok))
        .filter(|entry| entry.file_name().to_str().is_some_and(python3))
        .map(|entry| entry.path())
        .filter(|lib| lib.join("os.py").is_file())
        .collect()
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    fn chmod(path: &Path, mode: u32) {
        fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
    }

    /// An installation (`inst/bin/python3`, `inst/lib/python3.11/os.py`) and a venv made
    /// from it, all 0755/0644 in a temp dir of the owner's.
    fn venv() -> (tempfile::TempDir, PathBuf, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let inst = dir.path().join("inst");
        fs::create_dir_all(inst.join("bin")).unwrap();
        fs::create_dir_all(inst.join("lib/python3.11/encodings")).unwrap();
        fs::write(inst.join("bin/python3"), "").unwrap();
        fs::write(inst.join("lib/python3.11/os.py"), "").unwrap();
        fs::write(inst.join("lib/python3.11/encodings/__init__.py"), "").unwrap();
        let venv = dir.path().join("venv");
        fs::create_dir_all(venv.join("bin")).unwrap();
        fs::write(venv.join("bin/python3"), "").unwrap();
        let config = venv.join("pyvenv.cfg");
        fs::write(
            &config,
            format!("Home = {}\nversion = 3.11.7\n", inst.join("bin").display()),
        )
        .unwrap();
        let python = venv.join("bin/python3");
        (dir, config, python)
    }

    #[test]
    fn a_venv_of_a_home_of_the_owners_passes() {
        let (_dir, config, python) = venv();
        assert_eq!(check(&config, &python), Ok(()));
    }

    #[test]
    fn a_home_others_may_write_is_refused_and_named() {
        for writable in [
            "inst/bin",
            "inst",
            "inst/bin/python3",
            "inst/lib/python3.11",
        ] {
            let (dir, config, python) = venv();
            chmod(&dir.path().join(writable), 0o777);
            let why = check(&config, &python).unwrap_err();
            assert!(why.contains("says home = "), "{writable}: {why}");
            assert!(
                why.contains(&format!("{writable} is writable by everyone")),
                "{writable}: {why}"
            );
        }
        let (dir, config, python) = venv();
        chmod(&dir.path().join("inst/lib/python3.11/encodings"), 0o777);
        let why = check(&config, &python).unwrap_err();
        assert!(why.contains("encodings is writable by everyone"), "{why}");
    }

    #[test]
    fn the_standard_library_is_checked_whatever_version_the_file_says_or_without_one() {
        for text in ["", "version = 3.99.0\n", "version_info = 3.12.1.final.0\n"] {
            let (dir, config, python) = venv();
            let home = dir.path().join("inst/bin");
            fs::write(&config, format!("home = {}\n{text}", home.display())).unwrap();
            assert_eq!(check(&config, &python), Ok(()), "{text:?}");
            chmod(&dir.path().join("inst/lib/python3.11"), 0o777);
            let why = check(&config, &python).unwrap_err();
            assert!(
                why.contains("python3.11 is writable by everyone"),
                "{text:?}: {why}"
            );
        }
    }

    #[test]
    fn a_relative_home_is_refused_and_no_home_sends_python_nowhere() {
        let (_dir, config, python) = venv();
        fs::write(&config, "home = bin\n").unwrap();
        let why = check(&config, &python).unwrap_err();
        assert!(why.contains("not an absolute path"), "{why}");
        fs::write(&config, "include-system-site-packages = false\n").unwrap();
        assert_eq!(check(&config, &python), Ok(()));
    }
}
