//! Which Python interpreter the daemon may run for a project: the one the owner's settings
//! name, else the project's `.venv` or `venv`, else `python3` on `PATH` — each only if it
//! is the owner's alone ([`crate::trust`]). A `.venv` another user could have planted or
//! changed is passed over (and the log says why): running it would run their program as
//! the mount's owner.

use std::env;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::trust::owner_alone;

/// An interpreter that may be run, and why those before it were passed over (a user whose
/// `.venv` is not used must be told why, or the tests fail for reasons they cannot see).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Interpreter {
    pub path: PathBuf,
    pub passed_over: Vec<String>,
}

/// The interpreter to run for the project at `project`: `chosen` (a setting) if given,
/// else the first of the project's virtualenvs and `python3` on `PATH` that exists and
/// passes the check. The error says why there is none.
pub fn find(project: &Path, chosen: Option<&Path>) -> Result<Interpreter, String> {
    if let Some(chosen) = chosen {
        return usable(chosen).map(|()| Interpreter {
            path: chosen.to_path_buf(),
            passed_over: Vec::new(),
        });
    }
    let on_path = env::var_os("PATH")
        .map(|path| env::split_paths(&path).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        // A relative entry means "wherever the daemon happens to be": never trusted.
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join("python3"));
    // Not canonicalized: a venv's python is a symlink, and Python finds its venv by it.
    let candidates = [".venv", "venv"]
        .iter()
        .map(|venv| project.join(venv).join("bin/python"))
        .chain(on_path);
    let mut passed_over = Vec::new();
    for candidate in candidates {
        if !executable(&candidate) {
            continue;
        }
        match usable(&candidate) {
            Ok(()) => {
                for why in &passed_over {
                    crate::log::line(&format!("interpreter passed over: {why}"));
                }
                return Ok(Interpreter {
                    path: candidate,
                    passed_over,
                });
            }
            Err(why) => passed_over.push(why),
        }
    }
    if passed_over.is_empty() {
        Err(
            "no Python interpreter found (no .venv or venv in the project, no python3 on PATH)"
                .into(),
        )
    } else {
        Err(format!(
            "no Python interpreter may be run: {}",
            passed_over.join("; ")
        ))
    }
}

/// Whether `python` exists, is executable and is the owner's alone, with its virtualenv's
/// `pyvenv.cfg` (which says where its packages come from) when it has one.
fn usable(python: &Path) -> Result<(), String> {
    if !executable(python) {
        return Err(format!("{} is not an executable file", python.display()));
    }
    let refused = |why: String| format!("{} is not run: {why}", python.display());
    owner_alone(python).map_err(refused)?;
    let config = python
        .parent()
        .and_then(Path::parent)
        .map(|venv| venv.join("pyvenv.cfg"))
        .filter(|config| config.exists());
    if let Some(config) = config {
        owner_alone(&config).map_err(refused)?;
    }
    Ok(())
}

fn executable(path: &Path) -> bool {
    fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chmod(path: &Path, mode: u32) {
        fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
    }

    /// A project with an executable `.venv/bin/python` and its `pyvenv.cfg`.
    fn project_with_venv() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let python = dir.path().join(".venv/bin/python");
        fs::create_dir_all(python.parent().unwrap()).unwrap();
        fs::write(&python, "#!/bin/sh\n").unwrap();
        chmod(&python, 0o755);
        fs::write(dir.path().join(".venv/pyvenv.cfg"), "home = /usr/bin\n").unwrap();
        (dir, python)
    }

    #[test]
    fn the_projects_own_venv_is_used() {
        let (dir, python) = project_with_venv();
        let found = find(dir.path(), None).unwrap();
        assert_eq!((found.path, found.passed_over), (python, vec![]));
    }

    #[test]
    fn a_venv_others_may_change_is_passed_over() {
        let fallback = find(Path::new("/nonexistent"), None);
        for writable in [".venv/bin/python", ".venv/bin", ".venv/pyvenv.cfg", ""] {
            let (dir, python) = project_with_venv();
            chmod(&dir.path().join(writable), 0o777);
            let found = find(dir.path(), None);
            assert_eq!(found.is_ok(), fallback.is_ok(), "{writable}: {found:?}");
            if let Ok(found) = found {
                assert_ne!(found.path, python, "{writable:?} is writable by everyone");
                assert!(found.passed_over[0].contains("is not run"), "{found:?}");
            }
        }
    }

    #[test]
    fn a_chosen_interpreter_must_pass_and_is_never_replaced() {
        let (dir, python) = project_with_venv();
        assert_eq!(find(dir.path(), Some(&python)).unwrap().path, python);
        chmod(&python, 0o757);
        let why = find(dir.path(), Some(&python)).unwrap_err();
        assert!(
            why.contains("is not run") && why.contains("writable by everyone"),
            "{why}"
        );
        let why = find(dir.path(), Some(Path::new("/nonexistent/python"))).unwrap_err();
        assert!(why.contains("not an executable file"), "{why}");
    }
}
