//! `source/`: the Python project by module path. Packages are directories, modules are
//! `m.py` (exact source) beside `m/` (their symbols), classes are `C.py` beside `C/`
//! (their members). The files on disk are the truth: every access reads them afresh (parses
//! are kept by the file's identity, across mounts too), and a mount indexes every module in
//! the background (`warm_up.rs`) so that the first requests find the parses ready.

mod changed_in;
pub mod changes;
mod checkout;
mod config;
mod defined_names;
mod deps;
pub mod disk;
pub(crate) mod edit;
mod history;
pub mod modules;
mod outline;
mod own_names;
mod parse_index;
pub(crate) mod places;
pub mod project;
mod pytest_config;
pub(crate) mod resolve;
pub(crate) mod runner;
mod search;
pub mod settings;
#[cfg(test)]
mod testing;
mod views;
mod warm_up;
mod watch;

use std::path::Path;
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::model::Entry;
use crate::model::Ownership;
use crate::model::count::file_size;
use crate::model::links::Links;
use crate::model::{Child, Hits, Kind, Node, TreePath};
use crate::python::ModuleIndex;
use crate::store::Store;
use crate::transcripts::places::Watching;
use crate::tree::glance::Glance;
use crate::tree::resource::{Aliases, Capabilities, Edit, Live, Search};
use crate::tree::resource::{Changes, ModeChange, ReadNow, Resource};
use changes::ChangesDir;
use config::ConfigDir;
use deps::DepsDir;
use disk::ownership;
use edit::Editor;
use edit::edit_log::EditLog;
use history::HistoryDir;
use modules::Modules;
use places::Places;
use places::in_tree::{tree_path, tree_path_of};
use places::paths::{self, HISTORY, META, Resolved, TESTS};
use places::{Named, links};
use project::{EntryKind, Project};
use runner::Runner;
use settings::Settings;
use settings::file::SettingsFile;
use settings::meta::MetaDir;
use views::Views;

/// The source resourcespace of one project.
pub struct Source {
    project: Arc<Project>,
    /// Shared with the warm-up thread, which fills it ahead of requests.
    modules: Arc<Modules>,
    /// How far warming up is.
    indexing: Arc<warm_up::Indexing>,
    /// Where paths lead in the project.
    places: Arc<Places>,
    links: Links,
    /// What changes the project's files (shared with deps/, config/ and history/).
    editor: Arc<Editor>,
    /// Where the settings are kept (shared with meta/, which shows and takes them).
    settings: Arc<SettingsFile>,
    /// The resourcespaces inside source/: deps/, config/, history/ and meta/.
    children: Vec<Arc<dyn Resource>>,
    /// The test runner, also among `children` (its names in `tests/`): the tests' entry
    /// view and the dashboard tell of its runs.
    runner: Arc<Runner>,
    /// What `search/source:` asks.
    searcher: search::Searcher,
    /// What source/'s views show.
    views: Views,
}

impl Source {
    /// The source tree of the project at `root` (canonical), named `name`, recording its
    /// edits in `store`, with its history and settings inside.
    pub fn new(
        root: &Path,
        name: String,
        links: Links,
        store: Arc<Store>,
        budget: usize,
    ) -> Arc<Self> {
        let project = Arc::new(Project::open(root));
        let checkout = checkout::key(root);
        let settings = Arc::new(SettingsFile::new(
            Arc::clone(&project),
            Arc::clone(&store),
            checkout.clone(),
        ));
        let edits = Arc::new(EditLog::new(
            Arc::clone(&store),
            checkout.clone(),
            project.root.clone(),
            links.clone(),
            budget,
        ));
        let modules: Arc<Modules> = Arc::default();
        let places = Arc::new(Places::new(
            Arc::clone(&project),
            Arc::clone(&modules),
            links.clone(),
        ));
        // deps/, config/ and history/'s undo change project files: through the editor,
        // as every change is. meta/ needs the settings alone.
        let editor = Arc::new(Editor::new(
            Arc::clone(&project),
            Arc::clone(&places),
            Arc::clone(&modules),
            links.clone(),
            name.clone(),
            Arc::clone(&edits),
            Arc::clone(&settings),
        ));
        let runner = Arc::new(Runner::new(
            Arc::clone(&places),
            Arc::clone(&project),
            Arc::clone(&modules),
            Arc::clone(&settings),
            links.clone(),
            budget,
            runner::TestRuns::new(Arc::clone(&store), checkout),
        ));
        let searcher = search::Searcher::new(
            Arc::clone(&places),
            Arc::clone(&project),
            Arc::clone(&modules),
            links.clone(),
            Arc::clone(&store),
        );
        let children: Vec<Arc<dyn Resource>> = vec![
            Arc::new(DepsDir::new(Arc::clone(&editor))),
            Arc::new(ConfigDir::new(Arc::clone(&editor))),
            Arc::new(HistoryDir::new(edits, Arc::clone(&editor))),
            Arc::new(MetaDir::new(Arc::clone(&settings), links.clone())),
            Arc::new(ChangesDir::new(Arc::clone(&project), links.clone())),
            Arc::clone(&runner) as Arc<dyn Resource>,
        ];
        let indexing: Arc<warm_up::Indexing> = Arc::default();
        let views = Views {
            project: Arc::clone(&project),
            modules: Arc::clone(&modules),
            links: links.clone(),
            store: Arc::clone(&store),
            editor: Arc::clone(&editor),
            runner: Arc::clone(&runner),
            settings: Arc::clone(&settings),
            indexing: Arc::clone(&indexing),
            name,
            quoted: children.clone(),
        };
        let source = Arc::new(Source {
            searcher,
            views,
            children,
            settings: Arc::clone(&settings),
            editor,
            project,
            runner,
            places,
            modules,
            indexing,
            links,
        });
        settings.apply(&settings.current());
        source
    }

    /// Keep parses across mounts in `file` (before the first module is read).
    pub fn keep_parses_in(&self, file: std::path::PathBuf) {
        self.modules.keep_parses_in(file);
    }

    fn file_node(glance: &Glance, disk: &Path) -> Result<Node> {
        let meta = glance
            .metadata(disk)
            .map_err(|e| Error::not_found(format!("{} cannot be read: {e}", disk.display())))?;
        Ok(Node {
            size: Some(meta.len()),
            mtime: meta.modified().ok(),
            ..Node::document(true).owned(Ownership::of(&meta))
        })
    }

    /// The children of a project directory as tree members: `m.py` then `m/`. Without
    /// `described`, names and kinds only: the descriptions cost a stat per file and a look
    /// inside every folder, which `ls` and `_nav.txt` throw away — and a `_nav.txt` deep in
    /// a folder of hundreds lists that folder again each time.
    fn disk_children(&self, glance: &Glance, dir: &Path, top: bool, described: bool) -> Vec<Child> {
        let glance = Some(glance);
        let mut children = Vec::new();
        for (name, kind, path) in self.places.dir_members(glance, dir, top) {
            let about = |text: &dyn Fn() -> String| if described { text() } else { String::new() };
            let size = || file_size(std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0));
            match kind {
                EntryKind::Dir => {
                    let label = about(&|| self.project.dir_kind(glance, &path).label().to_string());
                    // Listed, not only reachable: `find` and `grep -r` see its files.
                    let name = match top {
                        true => paths::spelled_at_top(&name),
                        false => name,
                    };
                    children.push(Child::new(name, Kind::Dir, label));
                }
                EntryKind::Module => {
                    let stem = name.trim_end_matches(".py").to_string();
                    let source = about(&|| format!("module source, {}", size()));
                    // An empty package's `__init__.py` has no members to show: a folder
                    // of nothing, which would only stand in the way of `rm -r`. A module
                    // named as one of source/'s own folders has no link of its name: its
                    // members are `.history/`, unlisted like any module's own directory.
                    // The link comes before its module: `rm -r` unlinks in this order, and
                    // the link is gone once the module is.
                    let taken = top && paths::RESERVED.contains(&stem.as_str());
                    if !taken && !self.editor.is_empty_init(glance, dir, &name) {
                        children.push(Child::new(
                            stem,
                            Kind::Link,
                            "the module's classes and functions",
                        ));
                    }
                    children.push(Child::new(&name, Kind::Document, source));
                }
                EntryKind::Data => {
                    let data = about(&|| format!("file, {}", size()));
                    let name = match top {
                        true => paths::spelled_at_top(&name),
                        false => name,
                    };
                    children.push(Child::new(name, Kind::Document, data));
                }
            }
        }
        children
    }
}

/// The names of a path held as owned strings, borrowed.
fn names(path: &[String]) -> Vec<&str> {
    path.iter().map(String::as_str).collect()
}

impl Resource for Source {
    fn name(&self) -> &'static str {
        "source"
    }

    fn children(&self) -> &[Arc<dyn Resource>] {
        &self.children
    }

    fn summary(&self) -> Result<String> {
        Ok(self.views.state_line())
    }

    fn root_part(&self) -> Result<crate::model::RootPart> {
        Ok(self.views.dashboard())
    }

    fn stat(&self, glance: &Glance, path: &[&str]) -> Result<Node> {
        let walked = match self.places.named(glance, path)? {
            // The link to the module's dotted directory (see `links.rs`): no parse.
            Named::ModuleDir(module) => {
                return Ok(Node::link().owned(ownership(Some(glance), &module)));
            }
            Named::Walked(walked) => walked,
        };
        let node = match walked.place {
            // Writable so that creating the test runner's names there is answered by
            // `creatable` (why, and where test modules go), not by a bare read-only error.
            Resolved::TestsRoot | Resolved::Root => {
                Node::dir(true).owned(ownership(Some(glance), &self.project.root))
            }
            Resolved::Dir { disk, .. } | Resolved::Members { disk, .. } => {
                Node::dir(true).owned(ownership(Some(glance), &disk))
            }
            Resolved::ModuleFile { disk, .. } | Resolved::DataFile { disk } => Node {
                // Under another name the path is not the file's: see `aliased`.
                file: (!walked.aliased).then(|| disk.clone()),
                ..Self::file_node(glance, &disk)?
            },
            Resolved::Symbol { module, disk, .. } => Node {
                mtime: Some(module.mtime),
                ..Node::document(true).owned(ownership(Some(glance), &disk))
            },
        };
        Ok(node.aliased(walked.aliased))
    }

    fn list(&self, glance: &Glance, path: &[&str]) -> Result<Vec<Child>> {
        self.listing(glance, path, true)
    }

    fn names(&self, glance: &Glance, path: &[&str]) -> Result<Vec<(String, Kind)>> {
        let children = self.listing(glance, path, false)?;
        Ok(Child::names(children))
    }

    fn read(&self, glance: &Glance, path: &[&str]) -> Result<Vec<u8>> {
        match self.places.named(glance, path)? {
            Named::ModuleDir(_) => Ok(links::link_target(path).into_bytes()),
            Named::Walked(walked) => self.places.read_resolved(&walked.place, path),
        }
    }

    fn entry(&self, glance: &Glance, path: &[&str]) -> Result<Entry> {
        let place = self.places.resolve_named(glance, path)?;
        // A module's own directory (`pkg.mod/`) speaks of itself as listed (`pkg/mod/`).
        let shown = self.places.shown_as(Some(glance), path);
        let shown: Vec<&str> = match &shown {
            Some(names) => names.iter().map(String::as_str).collect(),
            None => path.to_vec(),
        };
        self.views
            .entry(Some(glance), &shown, &place, || self.list(glance, path))
    }

    fn capabilities(&self) -> Capabilities<'_> {
        Capabilities {
            edit: Some(self),
            search: Some(self),
            aliases: Some(self),
            live: Some(self),
        }
    }
}

impl Edit for Source {
    fn write(&self, path: &[&str], content: &[u8], base: Option<&[u8]>) -> Result<()> {
        let listed = self.places.listed(path);
        self.editor.write_path(&names(&listed), content, base)
    }

    fn can_create(&self, path: &[&str]) -> Result<()> {
        let listed = self.places.listed(path);
        self.editor.creatable(&names(&listed))
    }

    fn remove(&self, path: &[&str]) -> Result<()> {
        let listed = self.places.listed(path);
        let path = &names(&listed)[..];
        if let Some(target) = self.places.link_at(path)? {
            let module = tree_path(format!("{}.py", path.join("/")));
            return Err(Error::not_permitted(format!(
                "it is a link ({target}) to the module's symbols: to delete the module, rm {}",
                self.links.file(&module)
            )));
        }
        // Only rmdir reaches here with a directory.
        if self.stat_now(path)?.kind == Kind::Dir {
            return self.editor.remove_dir(path, self.names_now(path)?);
        }
        self.editor.remove_path(path)
    }

    fn removable(&self, path: &[&str]) -> bool {
        self.editor.removable_dir(path)
    }

    fn mkdir(&self, path: &[&str]) -> Result<()> {
        self.editor.make_dir(path)
    }

    fn rename(&self, from: &[&str], to: &[&str]) -> Result<()> {
        let (from, to) = (self.places.listed(from), self.places.listed(to));
        self.editor.rename_path(&names(&from), &names(&to))
    }

    fn set_perm(
        &self,
        path: &[&str],
        mode: Option<u32>,
        uid: Option<u32>,
        gid: Option<u32>,
    ) -> Result<ModeChange> {
        match self.places.resolve(None, path)? {
            Resolved::ModuleFile { disk, .. }
            | Resolved::DataFile { disk }
            | Resolved::Dir { disk, .. } => {
                disk::set_perm(&disk, mode, uid, gid).map(|()| ModeChange::Done)
            }
            Resolved::Symbol { disk, .. } | Resolved::Members { disk, .. } => {
                Err(Error::not_permitted(format!(
                    "source/{} shows the modes of its module {}: change those with chmod or \
                     chown of the module's .py file",
                    path.join("/"),
                    disk.display()
                )))
            }
            _ => Ok(ModeChange::NotKept),
        }
    }
}

impl Search for Source {
    fn search(&self, query: &str, limit: usize) -> Result<Hits> {
        self.searcher.search(query, limit)
    }

    fn definitions(&self, name: &str) -> Option<Result<Vec<crate::model::Definition>>> {
        Some(self.searcher.definitions(name))
    }

    fn references(&self, name: &str) -> Option<Result<Hits>> {
        Some(self.searcher.references(name))
    }
}

impl Aliases for Source {
    fn shown_as(&self, glance: &Glance, path: &[&str]) -> Option<Vec<String>> {
        self.places.shown_as(Some(glance), path)
    }

    fn crossed(&self, path: &[&str]) -> Vec<Ownership> {
        self.places.crossed(path)
    }

    fn spellings(&self, path: &[&str]) -> Vec<String> {
        links::spellings(self.name(), path)
    }

    /// A dotted name without `.py` (`packaging.version.Version.public`), or a module's or
    /// symbol's name in its folder without it, means the file that name is once `.py` is
    /// added, not the package whose name starts it.
    ///
    /// A dotted name whose last part is misspelt (`sqlparse.sql.Token.flaten.py`) means the
    /// closest name in the folder its other parts lead to (`sqlparse.sql.Token.flatten.py`),
    /// as the nested path would: not the package its first part is close to.
    fn meant(&self, path: &[&str]) -> Option<String> {
        let (name, parent) = path.split_last()?;
        let file = format!("{name}.py");
        let mut with_py = parent.to_vec();
        with_py.push(&file);
        if let Ok(Resolved::ModuleFile { .. } | Resolved::Symbol { .. }) =
            self.places.resolve(None, &with_py)
        {
            return Some(file);
        }
        let (stem, suffix) = match name.strip_suffix(".py") {
            Some(stem) => (stem, ".py"),
            None => (*name, ""),
        };
        let (head, last) = stem.rsplit_once('.')?;
        let mut folder = parent.to_vec();
        folder.push(head);
        let listed = self.list(&Glance::new(), &folder).ok()?;
        let wanted = format!("{last}{suffix}");
        listed
            .iter()
            .map(|child| (strsim::jaro_winkler(&wanted, &child.name), &child.name))
            .filter(|(score, name)| *score >= 0.85 && **name != wanted)
            .max_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, name)| format!("{head}.{name}"))
    }
}

impl Live for Source {
    /// A write through the mount reaches its module's whole package (creating a module
    /// also imports it in `__init__.py`) and the edit history; settings reach every view;
    /// deps/, config/ and an undo in history/ rewrite project files: all of source/.
    fn affected(&self, path: &[&str]) -> Option<Vec<TreePath>> {
        let history = TreePath::from_names([self.name(), HISTORY]);
        match path {
            [] => None,
            [first, ..] if *first == META => Some(vec![TreePath::root()]),
            [first, ..] if self.children.iter().any(|c| c.name() == *first) => None,
            _ if self.runner.mount().holds(self.runner.name(), path) => {
                Some(vec![TreePath::from_names([self.name(), TESTS])])
            }
            [dir @ .., _] => {
                let mut reach = match self.places.resolve(None, path) {
                    Ok(
                        Resolved::ModuleFile { disk, .. }
                        | Resolved::Members { disk, .. }
                        | Resolved::Symbol { disk, .. }
                        | Resolved::DataFile { disk }
                        | Resolved::Dir { disk, .. },
                    ) => match disk.parent() {
                        Some(package) => watch::tree_paths(&self.project, self.name(), package),
                        None => vec![TreePath::parse(self.name())],
                    },
                    // Gone (removed or renamed): its directory, with all under it.
                    _ => vec![TreePath::from_names(
                        std::iter::once(self.name()).chain(dir.iter().copied()),
                    )],
                };
                reach.push(history);
                Some(reach)
            }
        }
    }

    fn watch(&self, changes: Changes) {
        if self.runner.report_to(Arc::clone(&changes)) {
            let settings = Arc::clone(&self.settings);
            watch::start(
                Arc::clone(&self.project),
                self.name(),
                changes,
                Box::new(move || settings.forget()),
            );
        }
    }

    fn warm(&self, outside: crate::tree::resource::Outside) {
        self.indexing.start(&self.project, &self.modules, outside);
    }
}

impl Source {
    /// What `list` (`described`) and `names` show of `path` (the runner's names in
    /// `tests/` are the tree's to add: the runner is mounted among them).
    fn listing(&self, glance: &Glance, path: &[&str], described: bool) -> Result<Vec<Child>> {
        let walked = match self.places.named(glance, path)? {
            // From the module's index alone: `_nav.txt` lists the members of every module
            // it shows, and resolving them would read each module.
            Named::ModuleDir(module) => {
                let index = self.modules.index(Some(glance), &module)?;
                return Ok(index.map_or_else(Vec::new, |index| member_children(&index, None)));
            }
            Named::Walked(walked) => walked,
        };
        match walked.place {
            Resolved::Root => {
                let mut children = self.disk_children(glance, &self.project.root, true, described);
                children.push(Child::new(
                    TESTS,
                    Kind::Dir,
                    "the project's test modules, and the test runner",
                ));
                Ok(children)
            }
            Resolved::TestsRoot => Ok(self
                .project
                .test_dirs()
                .iter()
                .filter_map(|d| d.file_name())
                .map(|n| Child::new(n.to_string_lossy(), Kind::Dir, "test folder"))
                .collect()),
            Resolved::Dir { disk, .. } => Ok(self.disk_children(glance, &disk, false, described)),
            Resolved::Members { module, parent, .. } => Ok(member_children(&module.index, parent)),
            Resolved::ModuleFile { .. } | Resolved::Symbol { .. } | Resolved::DataFile { .. } => {
                Err(Error::new(
                    crate::error::ErrorKind::NotADirectory,
                    format!("{} is a file", tree_path_of(path)),
                ))
            }
        }
    }
}

/// The members of a module's class `parent` (the module's own, with `None`): each symbol's
/// file, and a directory for each that has members of its own.
fn member_children(index: &ModuleIndex, parent: Option<usize>) -> Vec<Child> {
    let symbols = &index.symbols;
    let mut children = Vec::new();
    for (at, symbol) in symbols
        .iter()
        .enumerate()
        .filter(|(_, s)| s.parent == parent)
    {
        children.push(Child::new(
            format!("{}.py", symbol.file_stem),
            Kind::Document,
            format!(
                "{}, {} lines",
                symbol.kind.name(symbol.parent.is_some()),
                symbol.lines
            ),
        ));
        if places::paths::has_folder(symbols, at) {
            children.push(Child::new(&symbol.file_stem, Kind::Dir, "its members"));
        }
    }
    children
}

impl Source {
    /// The settings for what reads them often and runs nothing (see [`SettingsFile::kept`]).
    pub(crate) fn kept_settings(&self) -> Settings {
        self.settings.kept()
    }

    /// Which transcript folders memory follows (`[memory] watch`).
    pub fn memory_watch(&self) -> Watching {
        self.kept_settings().memory_watch
    }
}
