//! Building the tree from the command line's options: find the project, open the store,
//! make the resourcespaces and the [`Space`] over them. Shared by `mount` and `render`,
//! so every view can be checked without FUSE.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::model::Links;
use crate::render::budget::BUDGET_TOKENS;
use crate::resources;
use crate::store::Store;
use crate::store::location::Location;
use crate::tree::access::{Access, Perm};
use crate::tree::kernel_cache::CacheMode;
use crate::tree::{ProjectInfo, Space};

/// What `mount` and `render` need to build the tree.
#[derive(Debug, Clone)]
pub struct Options {
    /// The Python project's directory.
    pub project: PathBuf,
    /// The store: a SQLite file or a PostgreSQL URL; `<project>/.homespace/store.db` when
    /// not given.
    pub store: Option<Location>,
    /// The token budget of views.
    pub budget: usize,
    /// `--allow-other`: users other than the owner reach the mount.
    pub others_read: bool,
    /// `--allow-other-write`: users other than the owner may change what the modes let
    /// them (their changes never run the project's code).
    pub others_write: bool,
    /// Whether the kernel keeps what the mount serves (`--no-cache`: it does not).
    pub cache: CacheMode,
    /// `--read-only`: nothing can be changed through the mount, and the kernel answers
    /// every open and close itself.
    pub read_only: bool,
}

impl Options {
    pub fn new(project: PathBuf) -> Self {
        Options {
            project,
            store: None,
            budget: BUDGET_TOKENS,
            others_read: false,
            others_write: false,
            cache: CacheMode::Kept,
            read_only: false,
        }
    }

    /// The store these options use.
    pub fn store(&self) -> Location {
        self.store
            .clone()
            .unwrap_or_else(|| Location::File(self.default_dir().join("store.db")))
    }

    /// Where the mount keeps what is its own alone — its log and editors' large temp files:
    /// beside a SQLite store, or in `<project>/.homespace/` when the store is a database
    /// (shared by other mounts, which keep their own).
    pub fn local_dir(&self) -> PathBuf {
        match self.store() {
            Location::File(path) => match path.parent() {
                Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
                _ => PathBuf::from("."),
            },
            Location::Postgres(_) => self.default_dir(),
        }
    }

    /// Where parses are kept across mounts: beside a SQLite store, named after it
    /// (`store.db` → `store.parses.db`), so that two stores in one folder keep two; for a
    /// database, in the mount's local directory, as they are this machine's alone.
    pub fn parse_index(&self) -> PathBuf {
        match self.store() {
            Location::File(path) => {
                let stem = path.file_stem().unwrap_or(path.as_os_str());
                let mut name = stem.to_os_string();
                name.push(".parses.db");
                path.with_file_name(name)
            }
            Location::Postgres(_) => self.local_dir().join("parses.db"),
        }
    }

    /// Whether the store is the project's own `<project>/.homespace/store.db`, however
    /// it was named (the mount's daemon is always given the store's absolute path).
    pub fn store_is_default(&self) -> bool {
        let Location::File(path) = self.store() else {
            return false;
        };
        let real = |path: &Path| -> Option<PathBuf> {
            Some(path.parent()?.canonicalize().ok()?.join(path.file_name()?))
        };
        let default = self.default_dir().join("store.db");
        path == default || real(&path).is_some_and(|p| Some(p) == real(&default))
    }

    /// `<project>/.homespace`.
    fn default_dir(&self) -> PathBuf {
        self.project.join(".homespace")
    }

    /// Creates the mount's local directory ([`Options::local_dir`]) if it is missing,
    /// private (0700). The default one, `.homespace/` in the project, is made with a
    /// `.gitignore` of `*`, as virtualenvs and tool caches are: the store, its log and its
    /// temp files never show in the project's `git status`.
    pub fn make_store_dir(&self) -> Result<()> {
        let dir = self.local_dir();
        crate::trust::private_dir(&dir, dir == self.default_dir()).map_err(|e| {
            Error::internal(format!(
                "cannot create the store's directory {}: {e}",
                dir.display()
            ))
        })?;
        Ok(())
    }
}

/// The project directory at `path`, made absolute; an error that says so when it is
/// missing or not a directory. Checked before anything is created in it.
pub fn project_dir(path: &Path) -> Result<PathBuf> {
    let project = path.canonicalize().map_err(|e| {
        Error::not_found(format!(
            "the project directory {} cannot be opened: {e}. Pass --project DIR",
            path.display()
        ))
    })?;
    if !project.is_dir() {
        return Err(Error::invalid(format!(
            "{} is not a directory. Pass --project DIR",
            project.display()
        )));
    }
    Ok(project)
}

/// Build the tree for `options`, with links under `mountpoint` (`/` for render).
pub fn build(options: &Options, mountpoint: &str) -> Result<Arc<Space>> {
    build_with_store(options, mountpoint).map(|(space, _)| space)
}

/// Build the tree for `options` as [`build`] does, returning also its store.
pub fn build_with_store(options: &Options, mountpoint: &str) -> Result<(Arc<Space>, Arc<Store>)> {
    let project = project_dir(&options.project)?;
    let links = Links::new(mountpoint);
    let name = project_name(&project);
    let location = options.store();
    options.make_store_dir()?;
    let store = Arc::new(location.open()?);
    let resources = resources::all(&resources::Context {
        project: project.clone(),
        name: name.clone(),
        links: links.clone(),
        store: Arc::clone(&store),
        budget: options.budget,
        parse_index: Some(options.parse_index()),
    });
    let info = ProjectInfo {
        name,
        path: project.display().to_string(),
        store: (!options.store_is_default()).then(|| location.shown()),
    };
    let access = Access {
        others_read: options.others_read,
        others_write: options.others_write,
        read_only: options.read_only,
        ..Access::this_process()
    };
    let spill = options.local_dir().join("tmp");
    let perm = match location.file() {
        Some(file) => store_perm(file, &access),
        // A database's rows have no modes: only the owner reads them through the mount.
        None => owner_only(&access),
    };
    let space = Space::new(links, options.budget, info, resources.all)
        .with_nav(resources.nav)
        .with_access(access, perm)
        .with_cache(options.cache)
        .with_spill_dir(spill);
    Ok((Arc::new(space), store))
}

/// The owner and modes of the mount's own data (tasks, memory): the store file's, so the
/// store's modes decide who may read them through the mount as they do on disk. A store
/// that cannot be examined shows as the owner's alone.
fn store_perm(store: &Path, access: &Access) -> Perm {
    use std::os::unix::fs::MetadataExt;
    match std::fs::metadata(store) {
        Ok(meta) => Perm {
            uid: meta.uid(),
            gid: meta.gid(),
            mode: meta.mode() & 0o777,
        },
        Err(_) => owner_only(access),
    }
}

fn owner_only(access: &Access) -> Perm {
    Perm {
        uid: access.owner,
        gid: access.group,
        mode: 0o600,
    }
}

/// The name from pyproject.toml's `[project] name`, else setup.cfg's `[metadata] name`,
/// else setup.py's `name=` when given as a plain string, else an sdist's PKG-INFO `Name:`,
/// else the directory's name.
pub fn project_name(project: &Path) -> String {
    let from_pyproject = std::fs::read_to_string(project.join("pyproject.toml"))
        .ok()
        .and_then(|text| text.parse::<toml_edit::DocumentMut>().ok())
        .and_then(|doc| {
            doc.get("project")?
                .get("name")?
                .as_str()
                .map(str::to_string)
        });
    let from_setup_cfg = || {
        let text = std::fs::read_to_string(project.join("setup.cfg")).ok()?;
        let mut in_metadata = false;
        text.lines().find_map(|line| {
            let line = line.trim();
            if line.starts_with('[') {
                in_metadata = line == "[metadata]";
                return None;
            }
            let (key, value) = line.split_once('=')?;
            (in_metadata && key.trim() == "name")
                .then(|| value.trim().to_string())
                .filter(|v| !v.is_empty())
        })
    };
    let from_setup_py = || {
        let text = std::fs::read_to_string(project.join("setup.py")).ok()?;
        setup_py_name(&text)
    };
    let from_pkg_info = || crate::pyproject::pkg_info::field(project, "Name");
    from_pyproject
        .or_else(from_setup_cfg)
        .or_else(from_setup_py)
        .or_else(from_pkg_info)
        .unwrap_or_else(|| {
            project
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| "project".into())
        })
}

/// The name a setup.py gives as a string literal (`name="toolz"`); a name computed by
/// code (`name=NAME`) is not guessed at, since only running setup.py could tell it.
fn setup_py_name(text: &str) -> Option<String> {
    text.match_indices("name").find_map(|(at, _)| {
        let before = text[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.') {
            return None;
        }
        let rest = text[at + 4..].trim_start().strip_prefix('=')?;
        if rest.starts_with('=') {
            return None;
        }
        let rest = rest.trim_start();
        let quote = rest.chars().next().filter(|c| *c == '"' || *c == '\'')?;
        let value = &rest[1..];
        let end = value.find(quote)?;
        let name = &value[..end];
        let plain = !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.'));
        plain.then(|| name.to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("calc.py"),
            "def add(a, b):\n    return a + b\n",
        )
        .unwrap();
        dir
    }

    #[test]
    fn the_default_store_dir_is_made_ignored_by_git_and_others_are_left_alone() {
        let made = project();
        build(&Options::new(made.path().to_path_buf()), "/").unwrap();
        let ignore = made.path().join(".homespace/.gitignore");
        assert_eq!(std::fs::read_to_string(&ignore).unwrap(), "*\n");

        // A store directory that exists is the user's: nothing is added to it.
        let existing = project();
        std::fs::create_dir(existing.path().join(".homespace")).unwrap();
        build(&Options::new(existing.path().to_path_buf()), "/").unwrap();
        assert!(!existing.path().join(".homespace/.gitignore").exists());

        // Nor to a store of the user's choosing.
        let elsewhere = tempfile::tempdir().unwrap();
        let options = Options {
            store: Some(Location::File(elsewhere.path().join("stores/mine.db"))),
            ..Options::new(made.path().to_path_buf())
        };
        build(&options, "/").unwrap();
        assert!(elsewhere.path().join("stores/mine.db").exists());
        assert!(!elsewhere.path().join("stores/.gitignore").exists());
    }

    #[test]
    fn a_project_is_named_by_pyproject_then_setup_cfg_then_pkg_info_then_its_folder() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir
            .path()
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        assert_eq!(project_name(dir.path()), folder);
        std::fs::write(
            dir.path().join("PKG-INFO"),
            "Metadata-Version: 2.1\nName: from-pkg-info\n",
        )
        .unwrap();
        assert_eq!(project_name(dir.path()), "from-pkg-info");
        std::fs::write(
            dir.path().join("setup.cfg"),
            "[options]\nname = not-this\n[metadata]\nversion = 1\nname = from-setup-cfg\n",
        )
        .unwrap();
        assert_eq!(project_name(dir.path()), "from-setup-cfg");
        std::fs::write(
            dir.path().join("pyproject.toml"),
            "[project]\nname = \"from-pyproject\"\n",
        )
        .unwrap();
        assert_eq!(project_name(dir.path()), "from-pyproject");
    }

    #[test]
    fn the_dashboard_names_a_store_that_is_not_the_projects_own() {
        let made = project();
        let root = |options: &Options| {
            let space = build(options, "/").unwrap();
            String::from_utf8(
                space
                    .render_path(&crate::model::TreePath::parse("_entry.md"))
                    .unwrap(),
            )
            .unwrap()
        };
        let named = "Store: `";
        // Named by its absolute path, as the mount's daemon gets it: still the default.
        let own = Options {
            store: Some(Location::File(made.path().join(".homespace/store.db"))),
            ..Options::new(made.path().to_path_buf())
        };
        assert!(own.store_is_default());
        let text = root(&own);
        assert!(!text.contains(named), "{text}");
        let elsewhere = tempfile::tempdir().unwrap();
        let shared = elsewhere.path().join("team.db");
        let other = Options {
            store: Some(Location::File(shared.clone())),
            ..Options::new(made.path().to_path_buf())
        };
        let text = root(&other);
        let named = format!("{named}{}` (not the project's own)", shared.display());
        assert!(text.contains(&named), "{text}");
    }

    #[test]
    fn a_missing_or_plain_file_project_is_refused_and_nothing_is_made() {
        let dir = tempfile::tempdir().unwrap();
        let typo = dir.path().join("typo");
        let Err(err) = build(&Options::new(typo.clone()), "/") else {
            panic!("a missing project must be refused");
        };
        assert!(err.message.contains("cannot be opened"), "{}", err.message);
        assert!(!typo.exists());
        let file = dir.path().join("file.py");
        std::fs::write(&file, "x = 1\n").unwrap();
        let err = project_dir(&file).unwrap_err();
        assert!(
            err.message.contains("is not a directory"),
            "{}",
            err.message
        );
    }

    #[test]
    fn a_setup_py_names_the_project_only_with_a_plain_string() {
        assert_eq!(
            setup_py_name("from setuptools import setup\nsetup(\n    name='toolz',\n)\n")
                .as_deref(),
            Some("toolz")
        );
        assert_eq!(setup_py_name("setup(name=NAME, package_name='x')"), None);
        assert_eq!(setup_py_name("if name == 'x': pass"), None);
    }
}
