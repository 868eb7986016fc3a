//! The views of `source/`'s folders: the project root (packages with one-line docstrings
//! and counts, the subresources) and each package (modules with docstrings and sizes).
//! Sizes are given before anyone reads a file, so an agent knows what a `cat` will cost.

use std::path::Path;

use super::Views;
use super::contents::{
    Contents, ContentsRow, DETAILED, about_module_at, docstring, private_about,
    readable_by_its_readers,
};
use crate::model::count::{file_size, plural};
use crate::model::{Entry, Function, Section};
use crate::python::DottedName;
use crate::resources::source::config::CONFIG;
use crate::resources::source::deps::DEPS;
use crate::resources::source::edit::exposure;
use crate::resources::source::own_names;
use crate::resources::source::places::paths::spelled_at_top;
use crate::resources::source::project::{DirKind, DiskEntry, EntryKind};
use crate::tree::glance::Glance;

impl Views {
    pub(super) fn root(&self, glance: Option<&Glance>, here: &str) -> Entry {
        let top = self.project.top_level(glance);
        let mut rows = Vec::new();
        let mut example = self.example_at_top(glance, &top);
        for (n, entry) in top.iter().enumerate() {
            if n >= DETAILED {
                rows.push(ContentsRow::plain(
                    self,
                    glance,
                    &entry.name,
                    entry.kind,
                    &entry.path,
                ));
                continue;
            }
            match entry.kind {
                EntryKind::Dir => {
                    let init = entry.path.join("__init__.py");
                    let doc = docstring(self, glance, &init)
                        .filter(|_| readable_by_its_readers(glance, &init, &self.project.root));
                    let about = match doc {
                        Some(doc) => format!("{doc} ({})", Contents::of(self, glance, &entry.path)),
                        None => Contents::of(self, glance, &entry.path).to_string(),
                    };
                    rows.push(
                        ContentsRow::plain(self, glance, &entry.name, entry.kind, &entry.path)
                            .with_about(about),
                    );
                }
                EntryKind::Module => {
                    let about =
                        match readable_by_its_readers(glance, &entry.path, &self.project.root) {
                            true => about_module_at(self, glance, &entry.path).unwrap_or_default(),
                            false => private_about(&entry.path),
                        };
                    rows.push(
                        ContentsRow::plain(self, glance, &entry.name, entry.kind, &entry.path)
                            .with_about(about),
                    );
                    example.get_or_insert_with(|| entry.name.clone());
                }
                EntryKind::Data => {}
            }
        }
        // The project's other files and folders (README, CHANGELOG, docs/, .github/) after
        // its code: the table gives up their descriptions, then their names, first.
        for entry in self.project.top_entries(glance) {
            if top.iter().any(|code| code.name == entry.name) {
                continue;
            }
            let row = ContentsRow::plain(self, glance, &entry.name, entry.kind, &entry.path);
            rows.push(match entry.kind {
                EntryKind::Dir => row
                    .shown_as_folder()
                    .with_about(Contents::of(self, glance, &entry.path).to_string()),
                _ => row.with_about(file_size(
                    std::fs::metadata(&entry.path).map_or(0, |m| m.len()),
                )),
            });
        }
        let example = example.unwrap_or_else(|| "<module>.py".into());
        // `history.py`'s members are `.history/`, and its dotted names `history.<Symbol>.py`.
        let stem = spelled_at_top(example.trim_end_matches(".py"));
        let dotted = stem.trim_start_matches('.').replace('/', ".");
        let layout = if self.project.code_roots.len() > 1 {
            "src layout: packages under src/"
        } else {
            "packages at the top of the project"
        };
        let mut sections = vec![ContentsRow::section(
            "Contents",
            rows,
            "No files found in the project.",
        )];
        let test_dirs = self.project.test_dirs();
        let tests = test_dirs.iter().map(|d| {
            d.strip_prefix(&self.project.root)
                .unwrap_or(d)
                .display()
                .to_string()
        });
        let mut subresources: Vec<String> = tests
            .map(|t| {
                format!("`{here}tests/` — the test modules of `{t}/`, browsable like the code")
            })
            .collect();
        // Where the tests are kept, looked for (a walk of every module) only without a
        // test folder.
        let homes = match subresources.is_empty() {
            true => self.test_homes(),
            false => String::new(),
        };
        if subresources.is_empty() && homes.is_empty() {
            subresources.push(format!(
                "no test folder (tests/, test/ or pytest's testpaths): a test module written \
                 in `{here}tests/` starts one"
            ));
        } else {
            if subresources.is_empty() {
                subresources.push(format!(
                    "`{here}tests/` — the test runner; pytest finds the tests{homes}"
                ));
            }
            let runs = self.links.to("source/tests/runs/");
            subresources.push(match self.runner.last_run() {
                Some(run) => format!("`{runs}` — last test run {run}"),
                None => format!(
                    "`{runs}` — no test run yet: `echo > {}` runs them",
                    self.links.to("source/tests/run")
                ),
            });
        }
        // deps/ and config/ say themselves what pyproject.toml holds.
        for name in [DEPS, CONFIG] {
            if let Some(child) = self.quoted.iter().find(|c| c.name() == name)
                && let Ok(summary) = child.summary()
            {
                subresources.push(format!("`{here}{name}/` — {summary}"));
            }
        }
        let edits = self
            .editor
            .edits()
            .newest(0)
            .map(|(_, total)| total)
            .unwrap_or(0);
        subresources.push(format!(
            "`{here}history/` — {edits} routed edit{} as diffs, with undo",
            plural(edits)
        ));
        let check = if self.settings.kept().import_check {
            "on"
        } else {
            "off"
        };
        subresources.push(format!("`{here}meta/` — settings: import check {check}"));
        // Said without asking git: this view is kept while nothing announced changes, and
        // git's answers change unannounced (a commit).
        subresources.push(format!("`{here}changes/` — what git sees changed"));
        sections.push(Section {
            heading: "Subresources".into(),
            items: subresources,
            empty: String::new(),
            ..Section::default()
        });
        let mut entry = Entry {
            title: format!("source — {} ({layout})", self.name),
            about: vec![
                "Every module `m.py` has `m/` with its classes and functions; every class `C.py` has `C/` with its methods. Files are exact source; the project's other files (README, `.github/`) are at their paths.".into(),
            ],
            functions: vec![
                Function::new(format!("cat {here}{example}"), "read a module", "its exact source"),
                Function::new(format!("ls {here}{stem}/"), "list a module's symbols", "one file per class and function"),
                Function::new(format!("cat {here}{}/_entry.md", stem), "see a module's outline", "symbols with signatures and sizes"),
                Function::new(format!("cat {here}{dotted}.<Symbol>.py"), "read by dotted path", "that symbol's exact source"),
                Function::new(format!("cp fixed.py {here}{stem}/<Symbol>.py"), "replace one symbol", "the module rewritten; refused with line:column if invalid"),
                Function::new(format!("cat \"{}\"", self.links.to("search/source:<query>")), "search the code", "`module:line: text` with symbol paths"),
            ],
            sections,
            advanced: vec![
                format!("`homespace render --project {} /source/<path>` prints any of these files without mounting.", self.project.root.display()),
                "Dotted names work in every directory here but are not listed by `ls`.".into(),
            ],
        };
        entry.about.extend(own_names::note(here, &top));
        entry
    }

    /// How a new module of the package at `disk` would be imported in its `__init__.py`;
    /// `None` when it would not be (see [`exposure`]).
    fn exposure_style(
        &self,
        glance: Option<&Glance>,
        disk: &Path,
        dotted: &DottedName,
    ) -> Option<exposure::Style> {
        if !self.settings.kept().expose_new_modules
            || self.project.is_test_dir(disk)
            || exposure::is_tests(dotted, false)
        {
            return None;
        }
        let index = self
            .modules
            .index(glance, &disk.join("__init__.py"))
            .ok()??;
        exposure::style(&index.names, dotted)
    }

    pub(super) fn package(
        &self,
        glance: Option<&Glance>,
        disk: &Path,
        dotted: &DottedName,
        here: &str,
    ) -> Entry {
        let entries = self.project.list_dir(glance, disk).unwrap_or_default();
        let init = disk.join("__init__.py");
        let doc = docstring(self, glance, &init);
        let mut rows = Vec::new();
        for (n, entry) in entries.iter().enumerate() {
            let plain = ContentsRow::plain(self, glance, &entry.name, entry.kind, &entry.path);
            if n >= DETAILED {
                rows.push(plain);
                continue;
            }
            let about = match entry.kind {
                EntryKind::Dir => Contents::of(self, glance, &entry.path).to_string(),
                EntryKind::Module if !readable_by_its_readers(glance, &entry.path, disk) => {
                    private_about(&entry.path)
                }
                EntryKind::Module => {
                    about_module_at(self, glance, &entry.path).unwrap_or_else(|e| e.message)
                }
                EntryKind::Data => {
                    let size = std::fs::metadata(&entry.path).map(|m| m.len()).unwrap_or(0);
                    file_size(size)
                }
            };
            rows.push(plain.with_about(about));
        }
        let example = entries
            .iter()
            .find(|e| e.kind == EntryKind::Module && e.name != "__init__.py")
            .or_else(|| entries.iter().find(|e| e.kind == EntryKind::Module))
            .map(|e| e.name.clone());
        let name = if dotted.is_empty() {
            disk.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        } else {
            dotted.to_string()
        };
        // A package whose __init__.py waits for a module not written yet says so where
        // the next write is decided.
        let about: Vec<String> = self
            .editor
            .known_import_failure(&dotted.to_string())
            .filter(|failure| failure.waiting)
            .map(|failure| failure.said(&failure.line))
            .into_iter()
            .collect();
        Entry {
            about,
            title: format!(
                "{name} — {}{}({})",
                self.project
                    .dir_label(self.project.dir_kind(glance, disk), disk),
                // `package: A tiny library.`: the docstring, not the package's name.
                doc.map(|d| format!(": {d} ")).unwrap_or_else(|| " ".into()),
                Contents::among(self, glance, &entries)
            ),
            functions: self.folder_functions(glance, disk, dotted, here, &entries, example),
            sections: vec![ContentsRow::section(
                "Contents",
                rows,
                "This folder is empty.",
            )],
            ..Entry::default()
        }
    }

    /// What a package's or folder's view says can be done there: read, list and outline
    /// its module `example`, or in a folder of no module one of its files and folders;
    /// and create a module.
    fn folder_functions(
        &self,
        glance: Option<&Glance>,
        disk: &Path,
        dotted: &DottedName,
        here: &str,
        entries: &[DiskEntry],
        example: Option<String>,
    ) -> Vec<Function> {
        let mut functions = Vec::new();
        match &example {
            Some(module) => {
                let stem = module.trim_end_matches(".py");
                functions.extend([
                    Function::new(
                        format!("cat {here}{module}"),
                        "read a module",
                        "its exact source",
                    ),
                    Function::new(
                        format!("ls {here}{stem}/"),
                        "list its classes and functions",
                        "one file per symbol",
                    ),
                    Function::new(
                        format!("cat {here}{stem}/_entry.md"),
                        "outline a module",
                        "symbols with signatures and sizes",
                    ),
                ]);
            }
            None => {
                if let Some(file) = entries.iter().find(|e| e.kind == EntryKind::Data) {
                    functions.push(Function::new(
                        format!("cat {here}{}", file.name),
                        "read a file",
                        "its exact bytes",
                    ));
                }
                if let Some(folder) = entries.iter().find(|e| e.kind == EntryKind::Dir) {
                    functions.push(Function::new(
                        format!("ls {here}{}/", folder.name),
                        "list a folder",
                        "its files and folders",
                    ));
                }
            }
        }
        functions.push(Function::new(
            format!("echo '\"\"\"Doc.\"\"\"' > {here}newmod.py"),
            "create a module",
            match self.exposure_style(glance, disk, dotted) {
                Some(style) => format!(
                    "the file, and `{}` in __init__.py (off: `[source] expose_new_modules = false` in source/meta/settings.toml)",
                    exposure::line(&style, dotted, "newmod")
                ),
                None => "the file".to_string(),
            },
        ));
        functions
    }

    /// The project's name as Python would import it (`my-lib` is `my_lib`).
    fn import_name(&self) -> String {
        self.name.to_lowercase().replace(['-', '.'], "_")
    }

    /// The package the examples show: the one named as the project is (`my-lib` is `my_lib`),
    /// else the first regular package, else the first folder of Python — the project's own
    /// code rather than its documentation's configuration.
    fn main_package<'a>(
        &self,
        glance: Option<&Glance>,
        top: &'a [DiskEntry],
    ) -> Option<&'a DiskEntry> {
        let named = self.import_name();
        top.iter()
            .filter(|e| e.kind == EntryKind::Dir && self.first_module(glance, &e.path).is_some())
            .min_by_key(|e| {
                (
                    e.name.to_lowercase() != named,
                    self.project.dir_kind(glance, &e.path) != DirKind::Package,
                )
            })
    }

    /// The module the root view's examples name: one of the main package, unless that is
    /// a folder without `__init__.py` (`documentation/conf.py`) and a module at the top
    /// is the project's code — the one named after the project (six's `six.py`), else the
    /// first that is neither setup.py, a conftest.py nor a test.
    fn example_at_top(&self, glance: Option<&Glance>, top: &[DiskEntry]) -> Option<String> {
        let named = self.import_name();
        let package = self.main_package(glance, top);
        let in_package = |dir: &DiskEntry| {
            self.first_module(glance, &dir.path)
                .map(|m| format!("{}/{m}", spelled_at_top(&dir.name)))
        };
        if let Some(dir) = package
            && (dir.name.to_lowercase() == named
                || self.project.dir_kind(glance, &dir.path) == DirKind::Package)
        {
            return in_package(dir);
        }
        let modules: Vec<&DiskEntry> = top.iter().filter(|e| e.kind == EntryKind::Module).collect();
        let code = modules
            .iter()
            .find(|e| e.name.trim_end_matches(".py").to_lowercase() == named)
            .or_else(|| {
                modules.iter().find(|e| {
                    !matches!(e.name.as_str(), "setup.py" | "conftest.py")
                        && !self.project.is_test_module(&e.name)
                })
            });
        code.map(|e| e.name.clone())
            .or_else(|| package.and_then(in_package))
    }

    /// A module of `dir` to show in examples: a public one (`version.py`) before a private
    /// one (`_elffile.py`), never `__init__.py`.
    fn first_module(&self, glance: Option<&Glance>, dir: &Path) -> Option<String> {
        let modules: Vec<String> = self
            .project
            .list_dir(glance, dir)
            .ok()?
            .into_iter()
            .filter(|e| e.kind == EntryKind::Module && e.name != "__init__.py")
            .map(|e| e.name)
            .collect();
        let public = modules.iter().find(|m| !m.starts_with('_'));
        public.or(modules.first()).cloned()
    }

    /// ` (toolz/tests/, …)`: the folders holding test modules of a project without a test
    /// folder at its top, by path from the project's folder.
    pub(super) fn test_homes(&self) -> String {
        let homes: Vec<String> = self
            .project
            .test_module_folders()
            .iter()
            .map(|dir| crate::resources::source::project::Project::test_home_label(dir))
            .collect();
        match homes.len() {
            0 => String::new(),
            n if n > 3 => format!(" ({}, …)", homes[..3].join(", ")),
            _ => format!(" ({})", homes.join(", ")),
        }
    }
}
