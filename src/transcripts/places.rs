//! Where the agents working on a project write their transcripts, as places to follow:
//! - Claude Code's `~/.claude/projects/<the project's folder key>/` (the key is the
//!   project's path with every character but ASCII letters and digits made `-`;
//!   `CLAUDE_CONFIG_DIR` moves `~/.claude`);
//! - Codex's `~/.codex/sessions/` (`CODEX_HOME` moves `~/.codex`), whose rollouts of every
//!   project share dated folders, so only those run in the project are stored;
//! - Gemini CLI's `~/.gemini/tmp/<sha-256 of the project's path>/chats/` (older) and
//!   `~/.gemini/tmp/<the project's folder name>/chats/` (newer; only sessions whose
//!   `.project_root` is the project);
//! - Aider's `.aider.chat.history.md` in the project;
//! - OpenCode's `~/.local/share/opencode/` (`XDG_DATA_HOME` moves `~/.local/share`), its
//!   database holding every project's sessions, so only the project's are stored.
//!
//! A place that does not exist yet is followed from the moment it appears.

use std::path::{Path, PathBuf};

/// A file or folder (with everything under it) to follow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    pub path: PathBuf,
    /// Codex rollouts here are read only if they ran in this folder (or under it).
    pub only_under: Option<PathBuf>,
}

impl Place {
    /// Every transcript at `path`, whoever wrote it.
    pub fn all(path: PathBuf) -> Place {
        Place {
            path,
            only_under: None,
        }
    }
}

/// What to follow, as `[memory] watch` in the settings says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Watching {
    /// The project's own folders of every supported agent (`defaults`).
    Default,
    /// Nothing.
    Off,
    /// These paths, and the defaults too when `with_defaults` (the list holds `"default"`).
    Paths {
        paths: Vec<PathBuf>,
        with_defaults: bool,
    },
}

/// The places `watching` names for the project at `project` (absolute), with `home` the
/// user's home folder.
pub fn places(watching: &Watching, project: &Path, home: &Path) -> Vec<Place> {
    match watching {
        Watching::Off => Vec::new(),
        Watching::Default => defaults(project, home, &|name| std::env::var_os(name)),
        Watching::Paths {
            paths,
            with_defaults,
        } => {
            let mut places: Vec<Place> = paths.iter().cloned().map(Place::all).collect();
            if *with_defaults {
                places.extend(defaults(project, home, &|name| std::env::var_os(name)));
            }
            places
        }
    }
}

/// The project's own transcript folders; `env` reads the variables that move them.
fn defaults(
    project: &Path,
    home: &Path,
    env: &dyn Fn(&str) -> Option<std::ffi::OsString>,
) -> Vec<Place> {
    let claude = env("CLAUDE_CONFIG_DIR").map_or_else(|| home.join(".claude"), PathBuf::from);
    let codex = env("CODEX_HOME").map_or_else(|| home.join(".codex"), PathBuf::from);
    let data = env("XDG_DATA_HOME").map_or_else(|| home.join(".local/share"), PathBuf::from);
    let gemini = home.join(".gemini/tmp");
    let only_here = |path: PathBuf| Place {
        path,
        only_under: Some(project.to_path_buf()),
    };
    let mut places = vec![
        Place::all(claude.join("projects").join(claude_key(project))),
        only_here(codex.join("sessions")),
        // Older Gemini CLI: a folder named by the hash of the project's path; newer: by
        // its name, with the path in `.project_root` (a name two projects may share).
        Place::all(gemini.join(gemini_hash(project)).join("chats")),
        Place::all(project.join(crate::transcripts::aider::FILE_NAME)),
        only_here(data.join("opencode")),
    ];
    if let Some(name) = project.file_name() {
        places.insert(3, only_here(gemini.join(name).join("chats")));
    }
    places
}

/// Gemini CLI's name for an older project folder: the SHA-256 of the project's path, in hex.
pub fn gemini_hash(project: &Path) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(project.as_os_str().as_encoded_bytes())
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// Claude Code's name for a project's folder: `/home/a/my.proj` → `-home-a-my-proj`.
pub fn claude_key(project: &Path) -> String {
    project
        .to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_project_follows_its_claude_folder_and_codex_rollouts_run_in_it() {
        let none = |_: &str| None;
        let places = defaults(Path::new("/work/my.proj_1"), Path::new("/home/a"), &none);
        assert_eq!(
            places[0],
            Place::all(PathBuf::from("/home/a/.claude/projects/-work-my-proj-1"))
        );
        assert_eq!(places[1].path, PathBuf::from("/home/a/.codex/sessions"));
        assert_eq!(places[1].only_under, Some(PathBuf::from("/work/my.proj_1")));
        let paths: Vec<&Path> = places.iter().map(|p| p.path.as_path()).collect();
        assert!(paths.contains(&Path::new("/work/my.proj_1/.aider.chat.history.md")));
        assert!(paths.contains(&Path::new("/home/a/.gemini/tmp/my.proj_1/chats")));
        assert!(paths.contains(&Path::new("/home/a/.local/share/opencode")));
        // Pinned: what Gemini CLI computes for this path (sha256 of "/work/my.proj_1").
        assert_eq!(
            gemini_hash(Path::new("/work/my.proj_1")),
            "9d7c117b18671dcf9a1e866c5d9409715c7f3460a94a8f5b5ebb47c408d92dca"
        );
        let moved = |name: &str| (name == "CODEX_HOME").then(|| "/opt/codex".into());
        let places = defaults(Path::new("/p"), Path::new("/home/a"), &moved);
        assert_eq!(places[1].path, PathBuf::from("/opt/codex/sessions"));
    }

    #[test]
    fn the_setting_chooses_none_some_or_some_with_the_defaults() {
        let (project, home) = (Path::new("/p"), Path::new("/h"));
        assert!(places(&Watching::Off, project, home).is_empty());
        let mine = Watching::Paths {
            paths: vec![PathBuf::from("/logs")],
            with_defaults: false,
        };
        assert_eq!(
            places(&mine, project, home),
            [Place::all(PathBuf::from("/logs"))]
        );
        let both = Watching::Paths {
            paths: vec![PathBuf::from("/logs")],
            with_defaults: true,
        };
        assert_eq!(places(&both, project, home).len(), 7);
    }
}
