//! Which Python interpreter the daemon may run for a project: the one the owner's settings
//! name, else the project's `.venv` or `venv`, else `python3` on `PATH` — each only if it
//! is the owner's alone ([`crate::trust`]). A `.venv` another user could have planted or
//! changed is passed over (and the log says why): running it would run their program as
//! the mount's owner.
//!
//! What runs is pinned, not looked up again by name: the interpreter is resolved once to
//! the path it is run by — its folder made real (no link left on the way), a pyenv shim
//! replaced by the version's interpreter (`pyenv.rs`) — and that path is what is checked,
//! with its venv's `pyvenv.cfg` and the `home` it names (`venv.rs`). A link another user
//! swaps after the check changes nothing of what runs.

use std::env;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::trust::{owner_alone, real_alone};

/// An interpreter that may be run, and why those before it were passed over (a user whose
/// `.venv` is not used must be told why, or the tests fail for reasons they cannot see).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Interpreter {
    /// What is run: no link on the way but, perhaps, the interpreter's own file (a venv's
    /// `bin/python`, which Python needs by that name to find its venv).
    pub path: PathBuf,
    pub passed_over: Vec<String>,
    /// Why this one, in a few words: `import_check.python in the settings`, `the project's
    /// .venv`, `python3 on PATH`.
    pub chosen_by: String,
}

/// The interpreter to run for the project at `project`: `chosen` (a setting) if given,
/// else the first of the project's virtualenvs and `python3` on `PATH` that exists and
/// passes the check. The error says why there is none.
pub fn find(project: &Path, chosen: Option<&Path>) -> Result<Interpreter, String> {
    if let Some(chosen) = chosen {
        return pinned(chosen, project).map(|path| Interpreter {
            path,
            passed_over: Vec::new(),
            chosen_by: "import_check.python in the settings".to_string(),
        });
    }
    let on_path = env::var_os("PATH")
        .map(|path| env::split_paths(&path).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        // A relative entry means "wherever the daemon happens to be": never trusted.
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join("python3"));
    let candidates = [".venv", "venv"]
        .iter()
        .map(|venv| {
            let python = project.join(venv).join("bin/python");
            (python, format!("the project's {venv}"))
        })
        .chain(on_path.map(|python| {
            let shim = super::pyenv::shim(&python).is_some();
            let by = if shim {
                "python3 on PATH, a pyenv shim: the version pyenv picks in the project's folder"
            } else {
                "python3 on PATH"
            };
            (python, by.to_string())
        }));
    let mut passed_over = Vec::new();
    for (candidate, chosen_by) in candidates {
        if !executable(&candidate) {
            continue;
        }
        match pinned(&candidate, project) {
            Ok(path) => {
                for why in &passed_over {
                    crate::log::line(&format!("interpreter passed over: {why}"));
                }
                return Ok(Interpreter {
                    path,
                    passed_over,
                    chosen_by,
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

/// The path `python` is run by, or why it must not run: it exists, is executable and, as
/// named and as resolved, is the owner's alone (no link of another user's on the way, nor
/// in any link's target), with its virtualenv's `pyvenv.cfg` and that file's `home` when it
/// has one.
fn pinned(python: &Path, project: &Path) -> Result<PathBuf, String> {
    if !executable(python) {
        return Err(format!("{} is not an executable file", python.display()));
    }
    let refused = |why: String| format!("{} is not run: {why}", python.display());
    owner_alone(python).map_err(refused)?;
    let resolved = match super::pyenv::shim(python) {
        Some(shim) => {
            let version = env::var("PYENV_VERSION").ok();
            shim.resolve(project, version.as_deref()).map_err(refused)?
        }
        None => python.to_path_buf(),
    };
    // Every link met on the way to the real file was checked as it was met: the owner's or
    // root's, in folders no one else may change. So neither the real path nor `kept` (the
    // same walk, but for its last link) can lead elsewhere after the check.
    let real = real_alone(&resolved).map_err(refused)?;
    let kept = real_folder(&resolved).map_err(refused)?;
    match venv_config(&kept) {
        // A venv's `bin/python` is a link to its base interpreter: Python finds its venv
        // (`pyvenv.cfg`) only beside, or one above, the name it is started by, so that
        // name is kept — started by its real path, it would run without its venv.
        Some(config) => {
            super::venv::check(&config, &kept).map_err(refused)?;
            Ok(kept)
        }
        // Not a venv by its name: run by its real path, no link left to go through.
        None => {
            if let Some(config) = venv_config(&real) {
                super::venv::check(&config, &real).map_err(refused)?;
            }
            Ok(real)
        }
    }
}

/// The `pyvenv.cfg` Python started as `python` reads: beside it, or one folder up.
fn venv_config(python: &Path) -> Option<PathBuf> {
    python
        .ancestors()
        .skip(1)
        .take(2)
        .map(|dir| dir.join("pyvenv.cfg"))
        .find(|config| fs::symlink_metadata(config).is_ok())
}

/// `python` with its folder resolved through every link (each checked, [`real_alone`]),
/// its own name kept: a venv's `bin/python` is a link Python must be started by to find
/// its venv.
fn real_folder(python: &Path) -> Result<PathBuf, String> {
    let (Some(folder), Some(name)) = (python.parent(), python.file_name()) else {
        return Err(format!("{} names no file", python.display()));
    };
    let folder = if folder.as_os_str().is_empty() {
        Path::new(".")
    } else {
        folder
    };
    real_alone(folder).map(|real| real.join(name))
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
        assert_eq!((found.path, found.passed_over), (real(&python), vec![]));
    }

    /// `path` as it is run: its folder made real (the temp dir may be behind a link).
    fn real(path: &Path) -> PathBuf {
        real_folder(path).unwrap()
    }

    #[test]
    fn a_venv_reached_through_a_link_runs_by_its_real_path() {
        let (dir, python) = project_with_venv();
        let elsewhere = tempfile::tempdir().unwrap();
        let venv = elsewhere.path().join("venv");
        fs::rename(dir.path().join(".venv"), &venv).unwrap();
        std::os::unix::fs::symlink(&venv, dir.path().join(".venv")).unwrap();
        let found = find(dir.path(), None).unwrap();
        assert_eq!(found.path, real(&venv.join("bin/python")));
        assert_ne!(found.path, python, "not by the link's name");
        // Swapping the link afterwards changes nothing of the path that runs.
        fs::remove_file(dir.path().join(".venv")).unwrap();
        assert!(found.path.exists());
    }

    #[test]
    fn a_venv_whose_home_others_may_write_is_passed_over() {
        let (dir, python) = project_with_venv();
        let home = dir.path().join("open/bin");
        fs::create_dir_all(&home).unwrap();
        chmod(&dir.path().join("open"), 0o777);
        fs::write(
            dir.path().join(".venv/pyvenv.cfg"),
            format!("home = {}\n", home.display()),
        )
        .unwrap();
        let why = find(dir.path(), Some(&python)).unwrap_err();
        assert!(why.contains("says home = "), "{why}");
        assert!(why.contains("open is writable by everyone"), "{why}");
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
        assert_eq!(find(dir.path(), Some(&python)).unwrap().path, real(&python));
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
