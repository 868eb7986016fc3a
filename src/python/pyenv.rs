//! A pyenv shim (`~/.pyenv/shims/python3`) resolved to the interpreter it stands for,
//! chosen by the owner's files alone, so that the shim itself is never run.
//!
//! Run, a shim asks pyenv, which takes the version from `PYENV_VERSION`, else from the
//! first `.python-version` in the working folder *or any folder above it*, else from
//! `$PYENV_ROOT/version`. A test run starts in the project folder: in a project inside a
//! shared folder, a `.python-version` another user put above the project would choose
//! what runs as the owner (issue 42). Here the version comes from `PYENV_VERSION` (the
//! daemon's own environment), else the project's own `.python-version` — only the one in
//! the project folder, and only while it is the owner's alone — else
//! `$PYENV_ROOT/version`, else `system`; the interpreter is then that version's
//! `bin/<program>`, run by its path and checked as any other.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::trust::owner_alone;

/// What a shim is: the pyenv it belongs to and the program it stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Shim {
    /// `PYENV_ROOT`, as the shim sets it.
    root: PathBuf,
    /// The folder of the shims, left out when `system` looks on `PATH`.
    dir: PathBuf,
    /// `python3`, `python`: the name the shim runs as.
    program: String,
}

/// The shim `path` is, if it is one: a script that sets `PYENV_ROOT` and hands itself to
/// `pyenv exec`, as every shim pyenv writes does.
pub(super) fn shim(path: &Path) -> Option<Shim> {
    let mut head = Vec::new();
    fs::File::open(path)
        .ok()?
        .take(4096)
        .read_to_end(&mut head)
        .ok()?;
    let text = std::str::from_utf8(&head).ok()?;
    if !text.starts_with("#!") || !text.contains("/libexec/pyenv\" exec ") {
        return None;
    }
    let root = text.lines().find_map(|line| {
        let value = line.trim().strip_prefix("export PYENV_ROOT=")?;
        Some(PathBuf::from(value.trim_matches('"')))
    })?;
    Some(Shim {
        root,
        dir: path.parent()?.to_path_buf(),
        program: path.file_name()?.to_str()?.to_string(),
    })
}

impl Shim {
    /// The interpreter this shim stands for in `project`, with `chosen` the daemon's
    /// `PYENV_VERSION`; the error says which version was asked for where, and why none runs.
    pub(super) fn resolve(&self, project: &Path, chosen: Option<&str>) -> Result<PathBuf, String> {
        let (versions, from) = self.versions(project, chosen)?;
        for version in &versions {
            if let Some(python) = self.interpreter_of(version, &from)? {
                return Ok(python);
            }
        }
        Err(format!(
            "the pyenv version {} (from {from}) has no {} under {}/versions",
            versions.join(", "),
            self.program,
            self.root.display()
        ))
    }

    /// The versions asked for, in order, and where they were read.
    fn versions(
        &self,
        project: &Path,
        chosen: Option<&str>,
    ) -> Result<(Vec<String>, String), String> {
        if let Some(chosen) = chosen.filter(|c| !c.trim().is_empty()) {
            let words = chosen.split(':').map(str::to_string).collect();
            return Ok((words, "PYENV_VERSION".into()));
        }
        let own = project.join(".python-version");
        if fs::symlink_metadata(&own).is_ok() {
            owner_alone(&own)
                .map_err(|why| format!("the project's .python-version is not used: {why}"))?;
            return Ok((read_version_file(&own)?, own.display().to_string()));
        }
        let global = self.root.join("version");
        if global.exists() {
            owner_alone(&global)?;
            let words = read_version_file(&global)?;
            if !words.is_empty() {
                return Ok((words, global.display().to_string()));
            }
        }
        Ok((vec!["system".into()], "pyenv's default".into()))
    }

    /// `version`'s interpreter, if installed: `system` is the first of `PATH` that is not
    /// a shim; else `versions/<version>/bin/<program>`, or, for a prefix (`3.11`), the
    /// newest installed version it begins.
    fn interpreter_of(&self, version: &str, from: &str) -> Result<Option<PathBuf>, String> {
        if version == "system" {
            return Ok(self.system());
        }
        if version.is_empty() || version == "." || version == ".." || version.contains('/') {
            // pyenv refuses these too (since 2.3.3): they would leave its versions folder.
            return Err(format!(
                "{from} names the pyenv version {version:?}, not a version"
            ));
        }
        let versions = self.root.join("versions");
        let python = |name: &str| versions.join(name).join("bin").join(&self.program);
        if python(version).exists() {
            return Ok(Some(python(version)));
        }
        let newest = fs::read_dir(&versions)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|entry| entry.file_name().into_string().ok())
            .filter_map(|name| {
                let rest = name.strip_prefix(version)?.strip_prefix('.')?;
                let numbers: Option<Vec<u64>> = rest.split('.').map(|n| n.parse().ok()).collect();
                Some((numbers?, name))
            })
            .filter(|(_, name)| python(name).exists())
            .max();
        Ok(newest.map(|(_, name)| python(&name)))
    }

    /// `program` on `PATH`, leaving out this pyenv's shims (where `system` would loop).
    fn system(&self) -> Option<PathBuf> {
        let path = std::env::var_os("PATH")?;
        std::env::split_paths(&path)
            .filter(|dir| dir.is_absolute() && *dir != self.dir)
            .map(|dir| dir.join(&self.program))
            .find(|python| python.is_file() && shim(python).is_none())
    }
}

/// The versions a `.python-version` file names: its words, lines starting with `#` left out.
fn read_version_file(file: &Path) -> Result<Vec<String>, String> {
    let text =
        fs::read_to_string(file).map_err(|e| format!("{} cannot be read: {e}", file.display()))?;
    Ok(text
        .lines()
        .map(str::trim)
        .filter(|line| !line.starts_with('#'))
        .flat_map(str::split_whitespace)
        .map(str::to_string)
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pyenv root with a shim for `python3` written as pyenv writes them, and versions
    /// `3.11.7`, `3.12.1` and `old`; the global version `3.11.7`.
    fn pyenv() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("pyenv");
        fs::create_dir_all(root.join("shims")).unwrap();
        let shim = root.join("shims/python3");
        fs::write(
            &shim,
            format!(
                "#!/usr/bin/env bash\nset -e\n[ -n \"$PYENV_DEBUG\" ] && set -x\n\n\
                 program=\"${{0##*/}}\"\n\nexport PYENV_ROOT=\"{root}\"\n\
                 exec \"{root}/libexec/pyenv\" exec \"$program\" \"$@\"\n",
                root = root.display()
            ),
        )
        .unwrap();
        for version in ["3.11.7", "3.12.1", "old"] {
            let bin = root.join("versions").join(version).join("bin");
            fs::create_dir_all(&bin).unwrap();
            fs::write(bin.join("python3"), "").unwrap();
        }
        fs::write(root.join("version"), "3.11.7\n").unwrap();
        (dir, shim)
    }

    fn version_of(python: &Path) -> String {
        let bin = python.parent().unwrap();
        bin.parent()
            .unwrap()
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into()
    }

    #[test]
    fn a_shim_is_known_by_what_it_runs() {
        let (dir, shim_path) = pyenv();
        let found = shim(&shim_path).unwrap();
        assert_eq!(found.root, dir.path().join("pyenv"));
        assert_eq!(found.program, "python3");
        let script = dir.path().join("script");
        fs::write(&script, "#!/bin/sh\nexec python3 \"$@\"\n").unwrap();
        assert_eq!(shim(&script), None);
    }

    #[test]
    fn a_python_version_above_the_project_chooses_nothing() {
        let (dir, shim_path) = pyenv();
        let shim = shim(&shim_path).unwrap();
        let project = dir.path().join("shared/project");
        fs::create_dir_all(&project).unwrap();
        fs::write(dir.path().join("shared/.python-version"), "old\n").unwrap();
        let python = shim.resolve(&project, None).unwrap();
        assert_eq!(version_of(&python), "3.11.7", "the global version");
        fs::write(project.join(".python-version"), "# pinned\n3.12\n").unwrap();
        let python = shim.resolve(&project, None).unwrap();
        assert_eq!(version_of(&python), "3.12.1", "the project's own, a prefix");
        let python = shim.resolve(&project, Some("old")).unwrap();
        assert_eq!(version_of(&python), "old", "PYENV_VERSION first");
    }

    #[test]
    fn a_version_that_leaves_the_versions_folder_or_is_missing_is_refused() {
        let (dir, shim_path) = pyenv();
        let shim = shim(&shim_path).unwrap();
        let project = dir.path().join("project");
        fs::create_dir_all(&project).unwrap();
        fs::write(project.join(".python-version"), "../../evil\n").unwrap();
        let why = shim.resolve(&project, None).unwrap_err();
        assert!(why.contains("not a version"), "{why}");
        fs::write(project.join(".python-version"), "2.7\n").unwrap();
        let why = shim.resolve(&project, None).unwrap_err();
        assert!(why.contains("the pyenv version 2.7 (from "), "{why}");
    }

    #[test]
    fn a_project_python_version_others_may_write_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let (dir, shim_path) = pyenv();
        let shim = shim(&shim_path).unwrap();
        let project = dir.path().join("project");
        fs::create_dir_all(&project).unwrap();
        let own = project.join(".python-version");
        fs::write(&own, "3.12.1\n").unwrap();
        fs::set_permissions(&own, fs::Permissions::from_mode(0o666)).unwrap();
        let why = shim.resolve(&project, None).unwrap_err();
        assert!(
            why.contains("the project's .python-version is not used"),
            "{why}"
        );
    }
}
