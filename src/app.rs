//! Building the tree from the command line's options: find the project, open the store,
//! make the resourcespaces and the [`Space`] over them. Shared by `mount` and `render`,
//! so every view can be checked without FUSE.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::render::budget::BUDGET_TOKENS;
use crate::resources::memory::Memory;
use crate::resources::search::Search;
use crate::resources::source::Source;
use crate::resources::tasks::Tasks;
use crate::store::Store;
use crate::tree::links::Links;
use crate::tree::resource::Resource;
use crate::tree::{ProjectInfo, Space};

/// What `mount` and `render` need to build the tree.
#[derive(Debug, Clone)]
pub struct Options {
    /// The Python project's directory.
    pub project: PathBuf,
    /// The SQLite store; `<project>/.homespace/store.db` when not given.
    pub store: Option<PathBuf>,
    /// The token budget of views.
    pub budget: usize,
}

impl Options {
    pub fn new(project: PathBuf) -> Self {
        Options {
            project,
            store: None,
            budget: BUDGET_TOKENS,
        }
    }

    /// The store file these options use.
    pub fn store_path(&self) -> PathBuf {
        self.store
            .clone()
            .unwrap_or_else(|| self.project.join(".homespace").join("store.db"))
    }
}

/// Build the tree for `options`, with links under `mountpoint` (`/` for render).
pub fn build(options: &Options, mountpoint: &str) -> Result<Arc<Space>> {
    let project = options.project.canonicalize().map_err(|e| {
        Error::not_found(format!(
            "the project directory {} cannot be opened: {e}. Pass --project DIR",
            options.project.display()
        ))
    })?;
    if !project.is_dir() {
        return Err(Error::invalid(format!(
            "{} is not a directory",
            project.display()
        )));
    }
    let links = Links::new(mountpoint);
    let name = project_name(&project);
    let store = Arc::new(Store::open(&options.store_path())?);
    let source: Arc<dyn Resource> = Arc::new(Source::new(
        &project,
        name.clone(),
        links.clone(),
        store.clone(),
        options.budget,
    ));
    let tasks: Arc<dyn Resource> = Arc::new(Tasks::new(store, links.clone()));
    let memory: Arc<dyn Resource> = Arc::new(Memory::new(links.clone()));
    let areas: Vec<Arc<dyn Resource>> = vec![source.clone(), tasks.clone(), memory.clone()];
    let search: Arc<dyn Resource> = Arc::new(Search::new(areas, links.clone(), options.budget));
    let resources = vec![source, tasks, memory, search];
    let info = ProjectInfo {
        name,
        path: project.display().to_string(),
    };
    Ok(Arc::new(Space::new(links, options.budget, info, resources)))
}

/// The name from pyproject.toml's `[project] name`, else the directory's name.
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
    from_pyproject.unwrap_or_else(|| {
        project
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "project".into())
    })
}
